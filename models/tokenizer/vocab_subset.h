#pragma once
// A small WordPiece vocabulary for a from-scratch model: the entries of an existing (base)
// vocabulary that a corpus uses most, chosen by frequency (`unieval vocab`).
//
// Method: every corpus line is tokenised with the base vocabulary's WordPiece tokenizer (the
// BERT basic + WordPiece tokenisation the models use, models/tokenizer/wordpiece.h) and the pieces
// are counted. The new vocabulary keeps, in this order of precedence:
//   1. the special tokens (`specials`, default [PAD] [UNK] [CLS] [SEP] [MASK]; each must be in the
//      base) and every other bracketed base entry that occurs in the tokenised corpus, except the
//      [unusedN] placeholders;
//   2. every single-character entry of the base, word-initial ("c") and continuation ("##c"), so
//      that any word spelled with the base's characters still tokenises (as characters at worst);
//   3. the most frequent remaining pieces (ties: lower base id first) until it has exactly `size`
//      entries; when the corpus uses fewer distinct pieces, unseen entries fill up in base order
//      (counted as `unseen`).
// The entries are written in the base's order (the special tokens stay first where they were), so
// the new vocabulary is a sub-sequence of the base. The corpus is then tokenised again with the new
// vocabulary to measure what the choice costs ([UNK] growth, pieces per word).
//
//   auto base = unieval::models::Vocab::from_file("vocab.txt");
//   VocabSubsetOptions o;  o.size = 8000;
//   VocabSubset v = build_vocab_subset(base, "vocab.txt", TokenizerOptions::bert(true),
//                                      {"src-train.txt.gz", "tgt-train.txt.gz"}, o);
//   core::write_file_atomic("vocab-8k.txt", v.text());
//
// | VocabSubsetOptions | default                          | meaning                                  |
// |--------------------|----------------------------------|------------------------------------------|
// | size               | 0 (required)                     | entries of the new vocabulary            |
// | specials           | [PAD] [UNK] [CLS] [SEP] [MASK]   | always kept; each must be in the base    |
// | threads            | 0                                | workers (0: all cores, at most 8); the   |
// |                    |                                  | result does not depend on it             |
// | progress_every     | 100000                           | lines between progress calls             |
// | progress           | none                             | progress(pass 1|2, file being read,      |
// |                    |                                  | lines of the pass so far)                |
//
// Corpus files: one text per line, plain or gzip (core/io.h read_lines: invalid UTF-8 is an
// InputError naming file:line). A missing base special token, an empty corpus file, a corpus
// without words, or a size below the minimum (specials + characters) or above what the base can
// give are InputErrors naming the file or the minimum; nothing is written by this unit.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/tokenizer/wordpiece.h"

namespace unieval::models {

struct VocabSubsetOptions {
  size_t size = 0;  // entries of the new vocabulary
  std::vector<std::string> specials = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};  // kept
  int threads = 0;                 // 0: all cores (at most 8)
  size_t progress_every = 100000;  // lines between progress calls
  std::function<void(int pass, const std::string& file, uint64_t lines)>
      progress;  // optional, about
                 // every progress_every lines of a pass
};

// Piece counts of a corpus under one tokenizer.
struct PieceCounts {
  std::vector<uint64_t> count;  // per vocabulary id
  uint64_t lines = 0;
  uint64_t words = 0;  // basic tokens (each starts with a piece without "##")
  uint64_t pieces = 0;
  uint64_t unk = 0;  // [UNK] pieces (whole words WordPiece could not cover)
};

// Adds the pieces of lines[i] for every i to *counts (sized to the vocabulary on first use).
// Deterministic: integer sums, independent of threads.
void count_pieces(const WordPieceTokenizer& tok, const std::vector<std::string>& lines, int threads,
                  PieceCounts* counts);

// The new vocabulary and what it cost.
struct VocabSubset {
  std::vector<std::string> tokens;  // the new vocabulary, in base order
  std::vector<int32_t> base_ids;    // their ids in the base
  size_t base_size = 0;
  size_t specials = 0;    // special tokens kept (rule 1)
  size_t characters = 0;  // single-character entries kept (rule 2)
  size_t frequent = 0;    // chosen by frequency (rule 3), unseen included
  size_t unseen = 0;      // of those, entries the corpus never used
  PieceCounts base;       // the corpus under the base vocabulary
  PieceCounts subset;     // the corpus under the new vocabulary
  uint64_t covered = 0;   // base pieces of the corpus that are new entries

  double pieces_per_word_base() const {
    return base.words ? double(base.pieces) / double(base.words) : 0.0;
  }
  double pieces_per_word_new() const {
    return base.words ? double(subset.pieces) / double(base.words) : 0.0;
  }
  // [UNK] pieces the new vocabulary adds (may be negative in theory: greedy matching differs).
  int64_t unk_growth() const { return int64_t(subset.unk) - int64_t(base.unk); }
  // unk_growth per 1,000 pieces of the new tokenisation.
  double unk_growth_per_1000() const {
    return subset.pieces ? 1000.0 * double(unk_growth()) / double(subset.pieces) : 0.0;
  }
  // Share of the base tokenisation's pieces that are entries of the new vocabulary.
  double coverage() const { return base.pieces ? double(covered) / double(base.pieces) : 0.0; }
  // vocab.txt content: one entry per line.
  std::string text() const;
};

// True when the vocabulary has upper-case ASCII entries besides [BRACKETED] specials (a cased
// vocab: `unieval tokenize` and `unieval vocab` keep case by default then).
bool vocab_is_cased(const Vocab& vocab);

// The lower-casing of `--lowercase` / `--no-lowercase` (at most one is true), else the vocabulary's:
// lower-case unless vocab_is_cased.
bool choose_lowercase(bool lowercase_flag, bool no_lowercase_flag, const Vocab& vocab);

// The entries rules 1-2 keep before looking at the corpus (the required specials and the single
// characters): the smallest possible size. InputError naming base_path when a special is absent.
size_t vocab_subset_minimum(const Vocab& base, const std::string& base_path,
                            const std::vector<std::string>& specials);

// Chooses the new vocabulary from counts of the corpus under base (rules 1-3; base and subset
// counts of the result are not filled). InputError for a size out of range.
VocabSubset select_vocab_subset(const Vocab& base, const std::string& base_path,
                                const PieceCounts& counts, const VocabSubsetOptions& opts);

// The whole method: counts the corpus files with the base vocabulary, chooses, and counts them
// again with the new one (the tokenizer options apply to both).
VocabSubset build_vocab_subset(const Vocab& base, const std::string& base_path,
                               const TokenizerOptions& tok,
                               const std::vector<std::string>& corpus_paths,
                               const VocabSubsetOptions& opts);

}  // namespace unieval::models
