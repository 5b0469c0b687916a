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
// # Engine choice
//
// A hand-written engine over a real BLAS was chosen over PyTorch and a
// pure-Go framework because it trained and decoded the project's small
// models several times faster on the 2-core machine the project runs on;
// the measurements and their commands are in docs/history.md ("Speed, and
// the peer"). The pure-Go
// gemm is a fallback for builds without cgo, not a way to train.
//
// Three things make the BLAS path fast:
//
//  1. OpenBLAS is opened with dlopen at start-up and told its kernel
//     (SkylakeX with AVX-512, Haswell with AVX2) unless OPENBLAS_CORETYPE is
//     set: its own detection can fail on virtual CPUs with generic model
//     names. The module therefore builds with cgo without libopenblas-dev;
//     at run time libopenblas0 is needed, and without it the pure-Go gemm
//     is used.
//  2. OpenBLAS runs single-threaded and large products are split into row
//     (or column) blocks, one per worker goroutine: OpenBLAS's own threads
//     spin between calls and starve the engine's other kernels. The split
//     depends only on the shape, and partial sums are added in a fixed
//     order, so training is bitwise reproducible, which exact resume
//     relies on.
//  3. The elementwise hot loops (GELU forward and backward, the attention
//     and head softmaxes, single-query attention when decoding) are small C
//     kernels (kernels_cgo.go) with a branch-free exp that GCC vectorizes,
//     built for AVX-512, AVX2 and generic x86-64 (function multiversioning:
//     the loader picks one); Go without SIMD is slow on tanh and exp.
//     Builds without cgo use the Go versions (float32 expf/tanhf).
//
// Select the backend with SetBackend or SQLRL_GEMM=go|blas; BLASConfig
// reports the kernel in use. Build tags: without cgo, or with -tags noblas,
// only the pure-Go gemm is compiled.
package nn
