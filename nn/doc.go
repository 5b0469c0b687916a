// Package nn is sqlrl's tensor engine: a compact decoder-only transformer
// whose forward and backward passes are written out by hand (as llm.c does)
// over flat float32 buffers, with matrix products on a real BLAS.
//
// # Model
//
// Token embeddings tied to the output head (plus, with PrevToken, an
// embedding of the previous token), pre-norm blocks of RMSNorm, causal
// multi-head attention with rotary positions, and a GELU (tanh) feed-forward
// layer, without biases; AdamW with decoupled weight decay. With Copy, a
// pointer head mixes the vocabulary softmax with an attention distribution
// over the prompt's tokens (pointer-generator style, with learned bonuses
// for continuing where the last one or two tokens occurred), so that a
// schema name or a value is copied from the prompt by pointing at it; the
// scored log-probabilities (and sampling) are those of the mixture. Sequences are
// packed end to end without padding (Batch), and only the positions that are
// scored go through the vocabulary projection: an SFT step pays the head for
// completion tokens only. Every backward pass is checked against finite
// differences in grad_test.go, kernel by kernel and tensor by tensor.
// Inference runs through Cache, a key/value cache with batched prefill.
// For PPO, a ValueHead reads the final hidden states of the scored
// positions (Model.Hidden) and stages its gradient into the trunk
// (Model.AddHiddenGrad), so one Backward carries both the log-probability
// and the value gradient.
//
// # Engine choice (measured)
//
// The choice was made by measurement on the project's 2-core machine
// (AVX-512 Xeon VM; medians of 3 interleaved runs in one session; full
// tables and commands in docs/policy.md):
//
//   - The peer's tiny LM (vocab 512, d128, 4 heads, seq 128), training
//     tokens/s at L2 B16 / B32 and L4 B16 / B32: PyTorch 1.13 4,517 /
//     6,887 / 3,205 / 4,006; this engine on OpenBLAS 29,518 / 36,165 /
//     17,260 / 17,481 (4.4-6.5x). KV-cache greedy decoding at B1 / B8, L2:
//     PyTorch 1,763 / 1,400 (noisy), this engine 12,306 / 19,620. GoMLX's
//     pure-Go backend: 650-950 training tokens/s (measured on the same
//     machine when the stack was chosen, with the same peer model).
//   - OpenBLAS sgemm reaches 171-198 GFLOP/s on the model's shapes; a
//     training step reaches about 53% of that in matmul FLOPs (48-64% for
//     the presets, BenchmarkPresets). The rest of the step: sgemm on small
//     and transposed shapes (per-head attention, weight gradients), then
//     GELU, softmaxes, RMSNorm and AdamW.
//   - The pure-Go gemm (4x2 register blocks, two workers) reaches 8-9
//     GFLOP/s; training with it is 11x slower (2,585 tokens/s at L2 B16),
//     so it is a fallback for builds without cgo, not a way to train.
//
// Three things made the BLAS path fast, each found with a profile:
//
//  1. OpenBLAS is opened with dlopen at start-up and told its kernel
//     (SkylakeX with AVX-512, Haswell with AVX2) unless OPENBLAS_CORETYPE is
//     set: its own detection can fail on virtual CPUs with generic model
//     names. The module therefore builds with cgo without libopenblas-dev;
//     at run time libopenblas0 is needed, and without it the pure-Go gemm
//     is used.
//  2. OpenBLAS runs single-threaded and large products are split into row
//     (or column) blocks, one per worker goroutine. OpenBLAS's own threads
//     spin in sched_yield between calls and took a quarter of the CPU from
//     the engine's other kernels. The split depends only on the shape, and
//     partial sums are added in a fixed order, so training is bitwise
//     reproducible, which exact resume relies on.
//  3. The elementwise hot loops (GELU forward and backward, the attention
//     and head softmaxes, single-query attention when decoding) are small C
//     kernels (kernels_cgo.go) with a branch-free exp that GCC vectorizes,
//     built for AVX-512, AVX2 and generic x86-64 (function multiversioning:
//     the loader picks one). In Go, without SIMD, GELU's tanh and the
//     softmax exps were a third of a step and half of decoding. Builds
//     without cgo use the Go versions (float32 expf/tanhf).
//
// Select the backend with SetBackend or SQLRL_GEMM=go|blas; BLASConfig
// reports the kernel in use. Build tags: without cgo, or with -tags noblas,
// only the pure-Go gemm is compiled.
package nn
