#pragma once
// Follows PyTorch (BSD-3-Clause) dropout semantics and Random123's Philox4x32-10 (BSD-3-Clause,
// Salmon et al., SC'11); no code copied; see THIRD_PARTY_NOTICES.md.
// Inverted dropout, y = x · keep / (1 − p), the drop-in for torch::dropout / torch::nn::Dropout
// in the models. On the CPU (float32/float64) the keep mask comes from the counter-based
// Philox4x32-10 generator (the one PyTorch's CUDA dropout uses), keyed by one 64-bit draw from
// torch's default CPU generator: one pass over the tensor, on every intra-op thread, a 1-byte mask
// saved for the backward. LibTorch 1.13's CPU dropout draws a Bernoulli per element from a
// Mersenne twister on one thread, then divides, then multiplies, and keeps a float mask: 8% of a
// BERT-base fine-tuning step on 2 cores went there.
//
//   auto y = apply_dropout(x, 0.1, is_training());   // x unchanged when !training or p == 0
//   Dropout drop(0.1);  register_module("dropout", drop);  y = drop(x);
//
// | property      | behaviour                                                                   |
// |---------------|-----------------------------------------------------------------------------|
// | determinism   | the mask is a function of (the generator draw, element index) only: the     |
// |               | same for any number of threads; torch::manual_seed(s) makes it repeatable   |
// | generator     | advances torch's default CPU generator by one 64-bit draw per call (so a     |
// |               | saved/restored generator state resumes the same masks)                      |
// | scale         | 1.0f / float(1 − p), as torch's `noise.div_(1 − p)` computes it              |
// | p == 1        | zeros (as torch)                                                            |
// | other devices | CUDA tensors, other dtypes: torch::dropout                                   |
// | gradient      | dx = dy · keep / (1 − p) (no double backward)                               |
// | vector path   | with AVX2 (checked at run time), eight Philox blocks at a time and eight    |
// |               | float elements per instruction: the same masks and values, bit for bit      |
#include <torch/torch.h>

#include <array>
#include <cstdint>

namespace unieval::models {

// Philox4x32-10 (Random123): the four 32-bit words of block `counter` under `key`.
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

torch::Tensor apply_dropout(const torch::Tensor& x, double p, bool training);

// The module form: registered like torch::nn::Dropout (no parameters, so checkpoints and their
// names are unchanged).
class DropoutImpl : public torch::nn::Cloneable<DropoutImpl> {
 public:
  explicit DropoutImpl(double p = 0.5);
  void reset() override {}
  torch::Tensor forward(const torch::Tensor& x);
  double p() const { return p_; }

 private:
  double p_;
};
TORCH_MODULE(Dropout);

}  // namespace unieval::models
