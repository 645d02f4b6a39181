#include "models/nn/masks.h"

#include <algorithm>

#include "core/error.h"

namespace unieval::models {

MaskKind parse_mask_kind(const std::string& name) {
  if (name == "bidirectional" || name == "bi") return MaskKind::kBidirectional;
  if (name == "left-to-right" || name == "l2r") return MaskKind::kLeftToRight;
  if (name == "right-to-left" || name == "r2l") return MaskKind::kRightToLeft;
  if (name == "seq2seq" || name == "s2s") return MaskKind::kSeq2Seq;
  throw InputError("unknown mask kind '" + name +
                   "' (expected bidirectional, left-to-right, right-to-left or seq2seq)");
}

std::string to_string(MaskKind kind) {
  switch (kind) {
    case MaskKind::kBidirectional:
      return "bidirectional";
    case MaskKind::kLeftToRight:
      return "left-to-right";
    case MaskKind::kRightToLeft:
      return "right-to-left";
    case MaskKind::kSeq2Seq:
      return "seq2seq";
  }
  return "bidirectional";
}

namespace {

int64_t resolve_max_len(const std::vector<int64_t>& lengths, int64_t max_len) {
  int64_t longest = 0;
  for (size_t b = 0; b < lengths.size(); ++b) {
    if (lengths[b] < 0) {
      throw InputError("mask: length of example " + std::to_string(b) + " is negative");
    }
    longest = std::max(longest, lengths[b]);
  }
  if (max_len < 0) throw InputError("mask: max_len is negative");
  if (max_len == 0) return longest;
  if (longest > max_len) {
    throw InputError("mask: an example of length " + std::to_string(longest) +
                     " does not fit max_len " + std::to_string(max_len));
  }
  return max_len;
}

torch::Tensor as_column(const std::vector<int64_t>& v) {
  return torch::tensor(v, torch::kLong).view({static_cast<int64_t>(v.size()), 1, 1});
}

}  // namespace

torch::Tensor build_mask(MaskKind kind, const std::vector<int64_t>& lengths, int64_t max_len,
                         const std::vector<int64_t>& source_lengths, torch::ScalarType dtype) {
  const int64_t T = resolve_max_len(lengths, max_len);
  const int64_t B = static_cast<int64_t>(lengths.size());
  if (B == 0) return torch::zeros({0, T, T}, dtype);
  auto i = torch::arange(T, torch::kLong).view({1, T, 1});  // query
  auto j = torch::arange(T, torch::kLong).view({1, 1, T});  // key
  auto len = as_column(lengths);
  auto real_key = j < len;
  torch::Tensor allowed;
  switch (kind) {
    case MaskKind::kBidirectional:
      allowed = real_key.expand({B, T, T});
      break;
    case MaskKind::kLeftToRight:
      allowed = real_key & (j <= i);
      break;
    case MaskKind::kRightToLeft:
      allowed = real_key & (j >= i);
      break;
    case MaskKind::kSeq2Seq: {
      if (source_lengths.size() != lengths.size()) {
        throw InputError("seq2seq mask: " + std::to_string(source_lengths.size()) +
                         " source lengths for " + std::to_string(B) + " examples");
      }
      for (int64_t b = 0; b < B; ++b) {
        if (source_lengths[b] < 0 || source_lengths[b] > lengths[b]) {
          throw InputError("seq2seq mask: source length " + std::to_string(source_lengths[b]) +
                           " of example " + std::to_string(b) + " is outside [0, " +
                           std::to_string(lengths[b]) + "]");
        }
      }
      auto src = as_column(source_lengths);
      // Source keys are visible to every query; target keys only to target queries at or
      // after them (so a source query, i < src ≤ j, never sees the target).
      allowed = real_key & ((j < src) | ((i >= src) & (j <= i)));
      break;
    }
  }
  // Padding query rows: every real key (as a 2-D padding mask would give).
  auto pad_query = i >= len;
  allowed = torch::where(pad_query, real_key.expand({B, T, T}), allowed);
  return allowed.to(dtype).contiguous();
}

torch::Tensor seq2seq_mask(const std::vector<int64_t>& source_lengths,
                           const std::vector<int64_t>& target_lengths, int64_t max_len,
                           torch::ScalarType dtype) {
  if (source_lengths.size() != target_lengths.size()) {
    throw InputError("seq2seq mask: " + std::to_string(source_lengths.size()) +
                     " source lengths but " + std::to_string(target_lengths.size()) +
                     " target lengths");
  }
  std::vector<int64_t> lengths(source_lengths.size());
  for (size_t b = 0; b < lengths.size(); ++b) {
    if (target_lengths[b] < 0) {
      throw InputError("seq2seq mask: target length of example " + std::to_string(b) +
                       " is negative");
    }
    lengths[b] = source_lengths[b] + target_lengths[b];
  }
  return build_mask(MaskKind::kSeq2Seq, lengths, max_len, source_lengths, dtype);
}

torch::Tensor padding_mask(const std::vector<int64_t>& lengths, int64_t max_len,
                           torch::ScalarType dtype) {
  const int64_t T = resolve_max_len(lengths, max_len);
  const int64_t B = static_cast<int64_t>(lengths.size());
  auto j = torch::arange(T, torch::kLong).view({1, T});
  auto len = torch::tensor(lengths, torch::kLong).view({B, 1});
  return (j < len).to(dtype).contiguous();
}

}  // namespace unieval::models
