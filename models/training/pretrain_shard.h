#pragma once
// A pre-training corpus tokenised once into a binary shard file that is memory-mapped: no training
// step re-tokenises text (`unieval pretrain`, models/training/pretrainer.h).
//
// Corpus format (BERT's `create_pretraining_data.py` convention): plain UTF-8 text, one sentence
// (or short paragraph) per line, documents separated by one or more blank lines; the end of a
// file ends its document. Lines are WordPiece-tokenised (models/tokenizer/wordpiece.h); a line
// that yields no token (only spaces or control characters) is dropped, a document without tokens
// too. A line that is not UTF-8 is an InputError naming the file and line; a corpus without a
// single token is an InputError.
//
//   ShardBuildOptions b;  b.threads = 2;
//   build_shard({"corpus.txt"}, tokenizer, vocab_text, "run/corpus.shard", b);
//   TokenShard shard = TokenShard::open("run/corpus.shard");
//   for (int64_t s = shard.doc_begin(0); s < shard.doc_end(0); ++s) ... shard.sentence(s) ...
//
// File layout (little-endian):
//   8 bytes magic "UNISHRD1"; uint64 length n of the header; n bytes of JSON (ShardMeta: corpus
//   files with sizes and mtimes, vocab hash and size, lower-casing, counts, token width); zero
//   padding to a multiple of 8; uint64 doc_offsets[documents + 1] (sentence indices); uint64
//   sentence_offsets[sentences + 1] (token indices); token ids as uint16 (vocabularies of at most
//   65536 entries) or uint32.
// The file is written to a temporary name and renamed, so a shard that exists is complete.
//
// | ShardBuildOptions field | default | meaning                                                 |
// |-------------------------|---------|---------------------------------------------------------|
// | lowercase               | true    | uncased tokeniser (BERT uncased vocabularies)            |
// | threads                 | 1       | tokenising threads (the result does not depend on it)    |
// | progress                | true    | a line per 10 MB read on stderr                          |
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/tokenizer/wordpiece.h"

namespace unieval::core {
class RawFile;
class MappedFile;
}  // namespace unieval::core

namespace unieval::models {

struct ShardBuildOptions {
  bool lowercase = true;  // uncased tokeniser
  int threads = 1;        // tokenising threads
  bool progress = true;   // progress lines on stderr
};

// What a shard was built from; two shards with equal `key()` hold the same tokens.
// files: [{path (absolute), size, mtime}], vocab_hash: FNV-1a 64 of vocab.txt's bytes (hex).
nlohmann::json shard_source_key(const std::vector<std::string>& corpus_files,
                                const std::string& vocab_text, bool lowercase);

// Tokenises the corpus files into a shard at out_path (atomically). Returns its header JSON.
nlohmann::json build_shard(const std::vector<std::string>& corpus_files,
                           const WordPieceTokenizer& tok, const std::string& vocab_text,
                           const std::string& out_path, const ShardBuildOptions& options = {});

// A read-only view of a shard: memory-mapped from a file, or held in memory (tests).
class TokenShard {
 public:
  // Maps the file; InputError naming it when it is not a shard or is truncated.
  static TokenShard open(const std::string& path);
  // documents[d][s] = token ids of sentence s of document d (empty sentences/documents dropped).
  static TokenShard from_documents(const std::vector<std::vector<std::vector<int32_t>>>& documents);

  TokenShard(TokenShard&&) noexcept;
  TokenShard& operator=(TokenShard&&) noexcept;
  ~TokenShard();

  int64_t documents() const { return n_docs_; }
  int64_t sentences() const { return n_sents_; }
  int64_t tokens() const { return n_tokens_; }
  // Sentence range [doc_begin(d), doc_end(d)) of document d.
  int64_t doc_begin(int64_t d) const { return static_cast<int64_t>(doc_off_[d]); }
  int64_t doc_end(int64_t d) const { return static_cast<int64_t>(doc_off_[d + 1]); }
  // The document holding sentence s (binary search).
  int64_t document_of(int64_t s) const;
  int64_t sentence_length(int64_t s) const {
    return static_cast<int64_t>(sent_off_[s + 1] - sent_off_[s]);
  }
  // Appends the token ids of sentence s to out.
  void append_sentence(int64_t s, std::vector<int64_t>& out) const;
  int64_t token(int64_t i) const {
    return wide_ ? static_cast<int64_t>(tok32_[i]) : static_cast<int64_t>(tok16_[i]);
  }
  // The header JSON (counts, source key, ...).
  const nlohmann::json& meta() const { return meta_; }

 private:
  TokenShard();
  std::unique_ptr<core::RawFile> file_;
  std::unique_ptr<core::MappedFile> map_;
  std::vector<uint64_t> own_docs_, own_sents_;  // from_documents storage
  std::vector<uint32_t> own_tokens_;
  nlohmann::json meta_;
  const uint64_t* doc_off_ = nullptr;
  const uint64_t* sent_off_ = nullptr;
  const uint16_t* tok16_ = nullptr;
  const uint32_t* tok32_ = nullptr;
  bool wide_ = false;
  int64_t n_docs_ = 0, n_sents_ = 0, n_tokens_ = 0;
};

}  // namespace unieval::models
