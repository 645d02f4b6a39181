#pragma once
// The matrix products of the transformer's linear layers (every nn::Linear of models/nn/
// transformer.h and the tied LM head; not the copy head's or GPT's, which stay LibTorch's),
// computed by LibTorch or, on CPU in fp32, by oneDNN.
//
//   set_gemm_path(parse_gemm_path("onednn"));   // what `--gemm onednn` does (configure_runtime)
//   auto y = linear(dense, x);                   // = dense(x), either path
//
// Why: Debian's LibTorch 1.13 sends fp32 products to OpenBLAS 0.3.21. On this project's 2-vCPU
// AMD EPYC (family 26, AVX-512), which that OpenBLAS does not know, the machine image pins its
// Haswell kernels (OPENBLAS_CORETYPE, left alone: docs/training.md); a pre-training step then spent
// 77% of its time in OpenBLAS at ~85-93 GFLOP/s a core, where oneDNN's `dnnl_sgemm` (the
// libdnnl.so.2 that LibTorch itself links) ran the same products at 144-192 GFLOP/s
// (bench/gemm_torch_bench.cc measures both).
//
// | path     | what computes y = x Wᵀ + b and its gradients                                      |
// |----------|-----------------------------------------------------------------------------------|
// | libtorch | torch::linear (the default; autograd as LibTorch's)                               |
// | onednn   | CPU fp32 tensors: dnnl_sgemm for y, dL/dx = g W and dL/dW = gᵀ x (a custom        |
// |          | autograd function); dL/db = Σ g. Any other tensor (CUDA, reduced precision) keeps |
// |          | torch::linear. Same fp32 arithmetic, another summation order: results agree with  |
// |          | libtorch's to rounding (tests/models/gemm_test.cc), not bit for bit.              |
//
// The path is process-wide (one per run, like the thread count) and recorded in every run's
// provenance by Runtime::describe() ("GEMM oneDNN"). `onednn` is an InputError where the process
// has no `dnnl_sgemm` (a LibTorch that links oneDNN statically and hides it, e.g. the PyTorch
// wheels) and for CUDA devices.
#include <torch/torch.h>

#include <string>

namespace unieval::models {

enum class GemmPath { kLibTorch, kOneDnn };

// "libtorch" | "onednn"; InputError otherwise.
GemmPath parse_gemm_path(const std::string& name);
std::string to_string(GemmPath path);

// True when oneDNN's dnnl_sgemm can be called from this process (looked up at run time).
bool onednn_gemm_available();

// Sets the process-wide path; kOneDnn without onednn_gemm_available() is an InputError.
void set_gemm_path(GemmPath path);
GemmPath gemm_path();

// y = x Wᵀ + b over x's last dimension (x [..., in], weight [out, in], bias [out] or undefined),
// by the process-wide path.
torch::Tensor linear(const torch::Tensor& x, const torch::Tensor& weight,
                     const torch::Tensor& bias);
// The same for a Linear module: linear(x, m->weight, m->bias).
torch::Tensor linear(const torch::nn::Linear& m, const torch::Tensor& x);

}  // namespace unieval::models
