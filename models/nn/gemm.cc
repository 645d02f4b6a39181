// Linear-layer products by LibTorch or oneDNN's dnnl_sgemm (models/nn/gemm.h).
#include "models/nn/gemm.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>

#include "core/error.h"

namespace unieval::models {

namespace {

// oneDNN's C API (dnnl.h, v2.x): row-major C = alpha op(A) op(B) + beta C; 0 is dnnl_success.
using DnnlSgemm = int (*)(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                          const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                          float* c, int64_t ldc);

DnnlSgemm dnnl_sgemm_fn() {
  static const DnnlSgemm fn = reinterpret_cast<DnnlSgemm>(dlsym(RTLD_DEFAULT, "dnnl_sgemm"));
  return fn;
}

std::atomic<GemmPath> g_gemm_path{GemmPath::kLibTorch};

// c [m, n] = op(a) op(b) (+ c when accumulate), all row-major fp32 and contiguous.
void sgemm(char ta, char tb, int64_t m, int64_t n, int64_t k, const torch::Tensor& a,
           const torch::Tensor& b, torch::Tensor& c, bool accumulate) {
  const int64_t lda = a.size(1), ldb = b.size(1), ldc = c.size(1);
  const int status =
      dnnl_sgemm_fn()(ta, tb, m, n, k, 1.0f, a.data_ptr<float>(), lda, b.data_ptr<float>(), ldb,
                      accumulate ? 1.0f : 0.0f, c.data_ptr<float>(), ldc);
  if (status != 0)
    throw std::runtime_error("dnnl_sgemm failed with status " + std::to_string(status));
}

// y = x Wᵀ + b with both products of the backward pass in dnnl_sgemm as well. No bias is an empty
// tensor: LibTorch 1.13's custom functions take no undefined input.
struct OneDnnLinear : public torch::autograd::Function<OneDnnLinear> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& weight, const torch::Tensor& bias) {
    const int64_t in = weight.size(1), out = weight.size(0);
    const torch::Tensor x2 = x.reshape({-1, in}).contiguous();
    const torch::Tensor w = weight.contiguous();
    const int64_t rows = x2.size(0);
    torch::Tensor y;
    if (bias.numel() > 0) {
      y = bias.reshape({1, out}).expand({rows, out}).contiguous();
    } else {
      y = torch::empty({rows, out}, x2.options());
    }
    if (rows > 0) sgemm('N', 'T', rows, out, in, x2, w, y, bias.numel() > 0);
    ctx->save_for_backward({x2, w});
    ctx->saved_data["x_sizes"] = x.sizes().vec();
    ctx->saved_data["has_bias"] = bias.numel() > 0;
    auto sizes = x.sizes().vec();
    sizes.back() = out;
    return y.view(sizes);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor& x2 = saved[0];
    const torch::Tensor& w = saved[1];
    const int64_t rows = x2.size(0), in = w.size(1), out = w.size(0);
    const torch::Tensor g = grads[0].reshape({rows, out}).contiguous();
    torch::Tensor dx, dw, db;
    if (ctx->needs_input_grad(0)) {
      dx = torch::empty({rows, in}, g.options());
      if (rows > 0) sgemm('N', 'N', rows, in, out, g, w, dx, false);
      dx = dx.view(ctx->saved_data["x_sizes"].toIntVector());
    }
    if (ctx->needs_input_grad(1)) {
      dw = torch::empty({out, in}, g.options());
      if (rows > 0) {
        sgemm('T', 'N', out, in, rows, g, x2, dw, false);
      } else {
        dw.zero_();
      }
    }
    if (ctx->saved_data["has_bias"].toBool() && ctx->needs_input_grad(2)) db = g.sum(0);
    return {dx, dw, db};
  }
};

bool onednn_applies(const torch::Tensor& x, const torch::Tensor& weight,
                    const torch::Tensor& bias) {
  if (g_gemm_path.load(std::memory_order_relaxed) != GemmPath::kOneDnn) return false;
  const auto is_cpu_fp32 = [](const torch::Tensor& t) {
    return t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.layout() == torch::kStrided;
  };
  return is_cpu_fp32(x) && is_cpu_fp32(weight) && (!bias.defined() || is_cpu_fp32(bias)) &&
         weight.dim() == 2 && x.dim() >= 1 && x.size(-1) == weight.size(1);
}

}  // namespace

GemmPath parse_gemm_path(const std::string& name) {
  if (name == "libtorch") return GemmPath::kLibTorch;
  if (name == "onednn") return GemmPath::kOneDnn;
  throw InputError("--gemm: unknown path '" + name + "' (expected libtorch or onednn)");
}

std::string to_string(GemmPath path) { return path == GemmPath::kOneDnn ? "onednn" : "libtorch"; }

bool onednn_gemm_available() { return dnnl_sgemm_fn() != nullptr; }

void set_gemm_path(GemmPath path) {
  if (path == GemmPath::kOneDnn && !onednn_gemm_available()) {
    throw InputError(
        "--gemm onednn: this process has no oneDNN dnnl_sgemm (the LibTorch in use links "
        "oneDNN statically or not at all); use --gemm libtorch");
  }
  g_gemm_path.store(path, std::memory_order_relaxed);
}

GemmPath gemm_path() { return g_gemm_path.load(std::memory_order_relaxed); }

torch::Tensor linear(const torch::Tensor& x, const torch::Tensor& weight,
                     const torch::Tensor& bias) {
  if (!onednn_applies(x, weight, bias)) return torch::nn::functional::linear(x, weight, bias);
  return OneDnnLinear::apply(x, weight, bias.defined() ? bias : torch::empty({0}, x.options()));
}

torch::Tensor linear(const torch::nn::Linear& m, const torch::Tensor& x) {
  return linear(x, m->weight, m->bias);
}

}  // namespace unieval::models
