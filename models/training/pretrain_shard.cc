#include "models/training/pretrain_shard.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "core/error.h"
#include "core/io.h"

namespace unieval::models {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'U', 'N', 'I', 'S', 'H', 'R', 'D', '1'};

std::string fnv1a_hex(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

bool blank(const std::string& line) {
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\f' && c != '\v') return false;
  return true;
}

}  // namespace

nlohmann::json shard_source_key(const std::vector<std::string>& corpus_files,
                                const std::string& vocab_text, bool lowercase) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : corpus_files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) != 0) throw InputError(f, 0, "cannot read the corpus file");
    nlohmann::json e;
    e["path"] = fs::absolute(f).lexically_normal().string();
    e["size"] = static_cast<int64_t>(st.st_size);
    e["mtime"] = static_cast<int64_t>(st.st_mtime);
    files.push_back(e);
  }
  nlohmann::json key;
  key["files"] = files;
  key["vocab_hash"] = fnv1a_hex(vocab_text);
  key["lowercase"] = lowercase;
  key["format"] = 1;
  return key;
}

nlohmann::json build_shard(const std::vector<std::string>& corpus_files,
                           const WordPieceTokenizer& tok, const std::string& vocab_text,
                           const std::string& out_path, const ShardBuildOptions& options) {
  if (corpus_files.empty()) throw InputError("no corpus file given");
  const nlohmann::json key = shard_source_key(corpus_files, vocab_text, options.lowercase);
  const size_t vocab_size = tok.vocab().size();
  const bool wide = vocab_size > 65536;

  std::vector<uint64_t> doc_off{0}, sent_off{0};
  std::vector<uint32_t> tokens;
  const int threads = std::max(1, options.threads);
  constexpr size_t kBlock = 16384;  // lines tokenised together
  size_t bytes_read = 0, next_report = 10u << 20;

  for (const auto& path : corpus_files) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, "cannot open the corpus file");
    int64_t line_no = 0;
    bool eof = false;
    while (!eof) {
      std::vector<std::string> lines;
      lines.reserve(kBlock);
      std::string line;
      while (lines.size() < kBlock) {
        if (!std::getline(in, line)) {
          eof = true;
          break;
        }
        ++line_no;
        bytes_read += line.size() + 1;
        if (core::find_invalid_utf8(line) != std::string_view::npos)
          throw InputError(path, line_no, "not valid UTF-8");
        lines.push_back(std::move(line));
      }
      const int64_t first_line = line_no - static_cast<int64_t>(lines.size()) + 1;
      (void)first_line;
      std::vector<std::vector<int32_t>> ids(lines.size());
      auto work = [&](size_t t) {
        for (size_t i = t; i < lines.size(); i += static_cast<size_t>(threads))
          if (!blank(lines[i])) tok.encode_ids(lines[i], &ids[i]);
      };
      if (threads == 1 || lines.size() < 64) {
        work(0);
        for (size_t t = 1; t < static_cast<size_t>(threads); ++t) work(t);
      } else {
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t) pool.emplace_back(work, static_cast<size_t>(t));
        for (auto& th : pool) th.join();
      }
      for (size_t i = 0; i < lines.size(); ++i) {
        if (blank(lines[i])) {
          if (sent_off.size() - 1 > doc_off.back()) doc_off.push_back(sent_off.size() - 1);
          continue;
        }
        if (ids[i].empty()) continue;
        for (int32_t id : ids[i]) tokens.push_back(static_cast<uint32_t>(id));
        sent_off.push_back(tokens.size());
      }
      if (options.progress && bytes_read >= next_report) {
        std::cerr << "tokenising: " << (bytes_read >> 20) << " MiB, " << tokens.size()
                  << " tokens\n";
        next_report = bytes_read + (10u << 20);
      }
    }
    // The end of a file ends its document.
    if (sent_off.size() - 1 > doc_off.back()) doc_off.push_back(sent_off.size() - 1);
  }
  if (tokens.empty()) {
    throw InputError(corpus_files.front(), 0,
                     corpus_files.size() == 1
                         ? "the corpus is empty (no token in the file)"
                         : "the corpus is empty (no token in any of the files)");
  }
  const int64_t n_docs = static_cast<int64_t>(doc_off.size()) - 1;
  const int64_t n_sents = static_cast<int64_t>(sent_off.size()) - 1;

  nlohmann::json meta;
  meta["source"] = key;
  meta["vocab_size"] = vocab_size;
  meta["documents"] = n_docs;
  meta["sentences"] = n_sents;
  meta["tokens"] = static_cast<int64_t>(tokens.size());
  meta["token_bytes"] = wide ? 4 : 2;

  std::string out;
  const std::string header = meta.dump();
  out.append(kMagic, 8);
  const uint64_t hlen = header.size();
  out.append(reinterpret_cast<const char*>(&hlen), 8);
  out += header;
  out.append((8 - out.size() % 8) % 8, '\0');
  out.append(reinterpret_cast<const char*>(doc_off.data()), doc_off.size() * 8);
  out.append(reinterpret_cast<const char*>(sent_off.data()), sent_off.size() * 8);
  if (wide) {
    out.append(reinterpret_cast<const char*>(tokens.data()), tokens.size() * 4);
  } else {
    std::vector<uint16_t> narrow(tokens.begin(), tokens.end());
    out.append(reinterpret_cast<const char*>(narrow.data()), narrow.size() * 2);
  }
  if (!fs::path(out_path).parent_path().empty())
    fs::create_directories(fs::path(out_path).parent_path());
  core::write_file_atomic(out_path, out);
  return meta;
}

// ---- TokenShard ------------------------------------------------------------------------------

TokenShard::TokenShard() = default;
TokenShard::TokenShard(TokenShard&&) noexcept = default;
TokenShard& TokenShard::operator=(TokenShard&&) noexcept = default;
TokenShard::~TokenShard() = default;

TokenShard TokenShard::open(const std::string& path) {
  TokenShard s;
  s.file_ = std::make_unique<core::RawFile>(path);
  s.map_ = std::make_unique<core::MappedFile>(*s.file_);
  const std::string_view b = s.map_->bytes();
  auto bad = [&](const std::string& why) {
    return InputError(path, 0, "not a token shard: " + why);
  };
  if (b.size() < 16 || std::memcmp(b.data(), kMagic, 8) != 0) throw bad("wrong magic");
  uint64_t hlen = 0;
  std::memcpy(&hlen, b.data() + 8, 8);
  if (16 + hlen > b.size()) throw bad("truncated header");
  try {
    s.meta_ = nlohmann::json::parse(b.substr(16, hlen));
    s.n_docs_ = s.meta_.at("documents").get<int64_t>();
    s.n_sents_ = s.meta_.at("sentences").get<int64_t>();
    s.n_tokens_ = s.meta_.at("tokens").get<int64_t>();
    s.wide_ = s.meta_.at("token_bytes").get<int>() == 4;
  } catch (const nlohmann::json::exception& e) {
    throw bad(std::string("bad header: ") + e.what());
  }
  size_t off = 16 + hlen;
  off += (8 - off % 8) % 8;
  const size_t need =
      off + 8 * (s.n_docs_ + 1) + 8 * (s.n_sents_ + 1) + (s.wide_ ? 4 : 2) * s.n_tokens_;
  if (s.n_docs_ < 1 || s.n_sents_ < 1 || s.n_tokens_ < 1 || need != b.size())
    throw bad("truncated or wrong size");
  s.doc_off_ = reinterpret_cast<const uint64_t*>(b.data() + off);
  off += 8 * (s.n_docs_ + 1);
  s.sent_off_ = reinterpret_cast<const uint64_t*>(b.data() + off);
  off += 8 * (s.n_sents_ + 1);
  if (s.wide_)
    s.tok32_ = reinterpret_cast<const uint32_t*>(b.data() + off);
  else
    s.tok16_ = reinterpret_cast<const uint16_t*>(b.data() + off);
  if (s.doc_off_[s.n_docs_] != static_cast<uint64_t>(s.n_sents_) ||
      s.sent_off_[s.n_sents_] != static_cast<uint64_t>(s.n_tokens_))
    throw bad("inconsistent offsets");
  return s;
}

TokenShard TokenShard::from_documents(
    const std::vector<std::vector<std::vector<int32_t>>>& documents) {
  TokenShard s;
  s.own_docs_.push_back(0);
  s.own_sents_.push_back(0);
  for (const auto& doc : documents) {
    for (const auto& sent : doc) {
      if (sent.empty()) continue;
      for (int32_t t : sent) s.own_tokens_.push_back(static_cast<uint32_t>(t));
      s.own_sents_.push_back(s.own_tokens_.size());
    }
    if (s.own_sents_.size() - 1 > s.own_docs_.back())
      s.own_docs_.push_back(s.own_sents_.size() - 1);
  }
  if (s.own_tokens_.empty()) throw InputError("the corpus is empty");
  s.n_docs_ = static_cast<int64_t>(s.own_docs_.size()) - 1;
  s.n_sents_ = static_cast<int64_t>(s.own_sents_.size()) - 1;
  s.n_tokens_ = static_cast<int64_t>(s.own_tokens_.size());
  s.doc_off_ = s.own_docs_.data();
  s.sent_off_ = s.own_sents_.data();
  s.tok32_ = s.own_tokens_.data();
  s.wide_ = true;
  s.meta_ = {{"documents", s.n_docs_}, {"sentences", s.n_sents_}, {"tokens", s.n_tokens_}};
  return s;
}

int64_t TokenShard::document_of(int64_t s) const {
  // Last d with doc_off_[d] <= s.
  const uint64_t* it = std::upper_bound(doc_off_, doc_off_ + n_docs_ + 1, static_cast<uint64_t>(s));
  return static_cast<int64_t>(it - doc_off_) - 1;
}

void TokenShard::append_sentence(int64_t s, std::vector<int64_t>& out) const {
  for (uint64_t i = sent_off_[s]; i < sent_off_[s + 1]; ++i)
    out.push_back(token(static_cast<int64_t>(i)));
}

}  // namespace unieval::models
