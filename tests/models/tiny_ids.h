#pragma once
// The special ids of the model tests' tiny vocabularies: [PAD] 0, [UNK] 1, [CLS] 2, [SEP] 3,
// [MASK] 4, then regular tokens; with_attn adds ERNIE-GEN's [ATTN] as 5 (regular tokens from 6).
#include <cstdint>

#include "models/training/seq2seq_data.h"

namespace unieval::testing {

inline models::SpecialIds tiny_special_ids(int64_t vocab, bool with_attn = false) {
  models::SpecialIds ids;
  ids.pad = 0;
  ids.unk = 1;
  ids.cls = 2;
  ids.sep = 3;
  ids.mask = 4;
  ids.attn = with_attn ? 5 : ids.mask;
  ids.vocab_size = vocab;
  ids.first_regular = with_attn ? 6 : 5;
  return ids;
}

}  // namespace unieval::testing
