#pragma once
// Follows HF transformers (Apache-2.0) OpenAIGPTTokenizer and openai/finetune-transformer-lm (MIT)
// behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// GPT's byte-pair encoding (Radford et al. 2018 §4.1: "a bytepair encoding (BPE) vocabulary with
// 40,000 merges"), as HF transformers v4.30.2 `OpenAIGPTTokenizer` computes it when spaCy and ftfy
// are not installed (its documented fallback, our default and only pre-tokeniser):
//   1. pre-tokenisation = BERT's BasicTokenizer with do_lower_case (models/tokenizer/wordpiece.h
//      steps 1-5: clean text, CJK split, whitespace split, lower-case + NFD + drop Mn, punctuation
//      split); the original release used spaCy + ftfy + text_standardize instead (not reproduced);
//   2. per word, BPE over its code points with the last one carrying `</w>` ("cat" starts as
//      c a t</w>); repeatedly the adjacent pair with the lowest merge rank (line number in
//      vocab_40000.bpe after the "#version" line, 0-based; a repeated pair keeps its last rank)
//      is merged at every non-overlapping occurrence, left to right, until no pair has a rank or
//      one symbol is left (HF `bpe`; a one-character word is just "x</w>");
//   3. pieces -> ids by encoder_bpe_40000.json; a piece the encoder lacks (an unknown character)
//      gets the id of `<unk>` (HF `_convert_token_to_id`; the original release used id 0, which
//      is `<unk>` in this encoder too).
// Special tokens (GPT §3.3 start / delimiter / extract): appended after the encoder's ids, in the
// release's order (finetune-transformer-lm train.py: encoder['_start_'] = len(encoder), then
// '_delimiter_', '_classify_'). With the shared 40,478-entry encoder (which holds `<unk>` at id 0
// and the 40,478 rows of params_shapes.json's token embedding): _start_ = 40478,
// _delimiter_ = 40479, _classify_ = 40480; a fine-tuned model has 40,481 token rows.
// Special-token strings written in the raw text are not protected (they are BPE-encoded as text).
//
//   auto tok = unieval::models::BpeTokenizer::from_dir("../shared/data/vocab/gpt");
//   auto enc = tok.encode("Hello, world!");  // tokens {"hello</w>", ",</w>", "world</w>", "!</w>"}
//   std::string text = tok.decode(enc.ids);   // "hello , world !" (HF convert_tokens_to_string)
//
// Files (from_dir, each plain or .gz): encoder_bpe_40000.json + vocab_40000.bpe (the release's
// names) or vocab.json + merges.txt (HF's). A missing file, malformed JSON, a non-integer or
// repeated id, or a merge line without exactly two symbols is an InputError naming file and line.
//
// | BpeOptions field | default | meaning                                                    |
// |------------------|---------|------------------------------------------------------------|
// | lowercase        | true    | BasicTokenizer do_lower_case (lower-case + strip accents)  |
// | unk_token        | <unk>   | the encoder entry unknown pieces map to (must exist)       |
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "models/tokenizer/wordpiece.h"

namespace unieval::models {

struct BpeOptions {
  bool lowercase = true;            // BasicTokenizer do_lower_case (HF OpenAIGPTTokenizer: true)
  std::string unk_token = "<unk>";  // id for pieces the encoder lacks
};

class BpeTokenizer {
 public:
  // encoder: token -> id (ids must be 0..n-1, each once); merges in rank order.
  BpeTokenizer(std::unordered_map<std::string, int32_t> encoder,
               std::vector<std::pair<std::string, std::string>> merges, BpeOptions options = {});
  static BpeTokenizer from_files(const std::string& encoder_json, const std::string& merges_path,
                                 BpeOptions options = {});
  static BpeTokenizer from_dir(const std::string& dir, BpeOptions options = {});
  // The two files from_dir(dir) reads: {encoder, merges} (plain or .gz); InputError as from_dir.
  static std::vector<std::string> files_in(const std::string& dir);

  // The BasicTokenizer words of a text (step 1). Invalid UTF-8 is an InputError.
  std::vector<std::string> pre_tokenize(std::string_view text) const;
  // BPE pieces of one pre-tokenised word (step 2), e.g. "lower" -> {"low", "er</w>"}.
  std::vector<std::string> bpe(std::string_view word) const;
  Encoding encode(std::string_view text) const;
  void encode_ids(std::string_view text, std::vector<int32_t>* ids) const;
  // ids -> text: pieces concatenated, "</w>" -> " ", stripped (HF convert_tokens_to_string).
  // Special ids print as their names unless skip_special; other ids out of range: InputError.
  std::string decode(const std::vector<int32_t>& ids, bool skip_special = false) const;

  // The piece of an id (specials included).
  const std::string& token(int32_t id) const;
  // -1 when absent (specials included).
  int32_t id(std::string_view token) const;
  // Entries of the encoder (40,478 for GPT); specials follow.
  int32_t encoder_size() const { return static_cast<int32_t>(decoder_.size()); }
  // encoder_size() + 3: the token rows of a fine-tuned model.
  int32_t size() const { return encoder_size() + 3; }
  int32_t unk_id() const { return unk_id_; }
  int32_t start_id() const { return encoder_size(); }
  int32_t delimiter_id() const { return encoder_size() + 1; }
  int32_t classify_id() const { return encoder_size() + 2; }
  size_t num_merges() const { return ranks_.size(); }
  const BpeOptions& options() const { return options_; }

 private:
  std::unordered_map<std::string, int32_t> encoder_;
  std::vector<std::string> decoder_;
  std::unordered_map<std::string, int32_t> ranks_;  // "first\x01second" -> rank
  BpeOptions options_;
  std::shared_ptr<const WordPieceTokenizer> basic_;  // used only for basic_tokenize
  int32_t unk_id_ = 0;
};

// The special-token names, in id order after the encoder.
inline constexpr const char* kGptSpecialTokens[3] = {"_start_", "_delimiter_", "_classify_"};

}  // namespace unieval::models
