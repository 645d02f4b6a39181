#pragma once
// Two per-row passes of a decoding step, bit-identical to the LibTorch calls they replace and
// split across the intra-op threads on the CPU (float32); elsewhere they are those calls.
//
//   auto lp = log_softmax_last_dim(logits);   // torch::log_softmax(logits, -1)
//   auto clean = nan_to_neg_inf(lp);          // torch::nan_to_num(lp, -inf, inf, -inf)
//
// | function             | why                                                                  |
// |----------------------|----------------------------------------------------------------------|
// | log_softmax_last_dim | LibTorch 1.13's CPU kernel runs fewer than 256 rows on one thread: a  |
// |                      | beam-5 step of 16 sources (80 rows of 30,522) took 11 ms of a 2-core  |
// |                      | machine's one core. Each block of rows goes through that same kernel  |
// |                      | on its own thread, so every value is the kernel's. Inputs that need   |
// |                      | a gradient go to torch::log_softmax.                                  |
// | nan_to_neg_inf       | nan_to_num's CPU kernel is a scalar loop (4.5 ms for those 80 rows);  |
// |                      | only NaN changes (±inf map to themselves), so this is one copying pass |
#include <torch/torch.h>

namespace unieval::models {

torch::Tensor log_softmax_last_dim(const torch::Tensor& x);
torch::Tensor nan_to_neg_inf(const torch::Tensor& x);

}  // namespace unieval::models
