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
// over the sequence's earlier tokens (pointer-generator style), so that a
// schema name or a value is copied from the prompt by pointing at it; the
// scored log-probabilities (and sampling) are those of the mixture. Sequences are
// packed end to end without padding (Batch), and only the positions that are
// scored go through the vocabulary projection: an SFT step pays the head for
// completion tokens only. Every backward pass is checked against finite
// differences in grad_test.go, kernel by kernel and tensor by tensor.
// Inference runs through Cache, a key/value cache with batched prefill.
//
// # Engine choice (measured)
//
// The choice was made by measurement on the project's 2-core machine
// (AVX-512 Xeon, shared with other builds; medians of 3 runs in quiet
// moments; see docs/policy.md for the full table and commands):
//
//   - GoMLX's pure-Go backend trains the peer's tiny LM (vocab 512, d128,
//     L2, seq 128) at 650-950 tokens/s (docs/stack-measurements.md);
//     PyTorch 1.13 on the same CPU at about 4,400-5,900.
//   - This engine on OpenBLAS: see BenchmarkTrain; about 20,000 tokens/s
//     at L2/B16 on a quiet machine, roughly 70% of the sgemm throughput
//     measured by BenchmarkSgemm at the same shapes, and several times
//     PyTorch's figure measured in the same session.
//   - The pure-Go gemm (4x2 register blocks, two workers) reaches about
//     1.6 GFLOP/s against OpenBLAS's 60-110 GFLOP/s on the same shapes, so
//     it is a fallback for builds without cgo, not a way to train.
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
