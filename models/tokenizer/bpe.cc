// Follows HF transformers (Apache-2.0) OpenAIGPTTokenizer behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
#include "models/tokenizer/bpe.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io.h"
#include "core/utf8.h"

namespace unieval::models {

namespace fs = std::filesystem;

namespace {

std::string pair_key(std::string_view a, std::string_view b) {
  std::string k;
  k.reserve(a.size() + b.size() + 1);
  k.append(a).push_back('\x01');
  k.append(b);
  return k;
}

// The first of NAME and NAME.gz that exists ("" when neither).
std::string first_existing(const fs::path& dir, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    for (const std::string suffix : {"", ".gz"}) {
      const fs::path p = dir / (std::string(n) + suffix);
      if (fs::exists(p)) return p.string();
    }
  }
  return "";
}

TokenizerOptions basic_options(bool lower) {
  TokenizerOptions o = TokenizerOptions::bert(lower);  // HF v4.30.2 BasicTokenizer: no NFC yet
  return o;
}

}  // namespace

BpeTokenizer::BpeTokenizer(std::unordered_map<std::string, int32_t> encoder,
                           std::vector<std::pair<std::string, std::string>> merges,
                           BpeOptions options)
    : encoder_(std::move(encoder)), options_(std::move(options)) {
  decoder_.assign(encoder_.size(), std::string());
  std::vector<char> seen(encoder_.size(), 0);
  for (const auto& [tok, id] : encoder_) {
    if (id < 0 || static_cast<size_t>(id) >= encoder_.size() || seen[id])
      throw InputError("BPE encoder ids must be 0.." + std::to_string(encoder_.size() - 1) +
                       ", each once (token '" + tok + "')");
    seen[id] = 1;
    decoder_[id] = tok;
  }
  for (const char* sp : kGptSpecialTokens)
    if (encoder_.count(sp))
      throw InputError(std::string("BPE encoder already holds the special token ") + sp);
  auto unk = encoder_.find(options_.unk_token);
  if (unk == encoder_.end())
    throw InputError("BPE encoder has no unknown token '" + options_.unk_token + "'");
  unk_id_ = unk->second;
  for (size_t r = 0; r < merges.size(); ++r)
    ranks_[pair_key(merges[r].first, merges[r].second)] = static_cast<int32_t>(r);
  basic_ = std::make_shared<const WordPieceTokenizer>(Vocab({"[UNK]"}),
                                                      basic_options(options_.lowercase));
}

BpeTokenizer BpeTokenizer::from_files(const std::string& encoder_json,
                                      const std::string& merges_path, BpeOptions options) {
  std::unordered_map<std::string, int32_t> encoder;
  {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(core::read_file(encoder_json));
    } catch (const nlohmann::json::exception& e) {
      throw InputError(encoder_json, 0, std::string("not valid JSON: ") + e.what());
    }
    if (!j.is_object()) throw InputError(encoder_json, 0, "not a JSON object of token -> id");
    encoder.reserve(j.size());
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!it.value().is_number_integer())
        throw InputError(encoder_json, 0, "the id of '" + it.key() + "' is not an integer");
      encoder[it.key()] = it.value().get<int32_t>();
    }
  }
  std::vector<std::pair<std::string, std::string>> merges;
  const std::vector<std::string> lines = core::read_lines(merges_path);
  // HF: read().split("\n")[1:-1] — the "#version" line is skipped, and so is the text after the
  // last newline (empty in a well-formed file).
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.empty() && i + 1 == lines.size()) break;
    const size_t sp = l.find(' ');
    if (sp == std::string::npos || sp == 0 || sp + 1 >= l.size() ||
        l.find(' ', sp + 1) != std::string::npos)
      throw InputError(merges_path, static_cast<long>(i + 1),
                       "a merge line must hold two symbols separated by one space");
    merges.emplace_back(l.substr(0, sp), l.substr(sp + 1));
  }
  try {
    return BpeTokenizer(std::move(encoder), std::move(merges), std::move(options));
  } catch (const InputError& e) {
    throw InputError(encoder_json, 0, e.what());
  }
}

std::vector<std::string> BpeTokenizer::files_in(const std::string& dir) {
  if (!fs::is_directory(dir))
    throw InputError(dir, 0, "not a directory (expected the GPT BPE files)");
  const std::string enc = first_existing(dir, {"encoder_bpe_40000.json", "vocab.json"});
  const std::string mer = first_existing(dir, {"vocab_40000.bpe", "merges.txt"});
  if (enc.empty())
    throw InputError(dir, 0, "holds neither encoder_bpe_40000.json(.gz) nor vocab.json(.gz)");
  if (mer.empty())
    throw InputError(dir, 0, "holds neither vocab_40000.bpe(.gz) nor merges.txt(.gz)");
  return {enc, mer};
}

BpeTokenizer BpeTokenizer::from_dir(const std::string& dir, BpeOptions options) {
  const std::vector<std::string> files = files_in(dir);
  return from_files(files[0], files[1], std::move(options));
}

std::vector<std::string> BpeTokenizer::pre_tokenize(std::string_view text) const {
  return basic_->basic_tokenize(text);
}

std::vector<std::string> BpeTokenizer::bpe(std::string_view token) const {
  std::vector<std::string> word;
  for (size_t i = 0; i < token.size();) {
    const size_t b = i;
    core::next_code_point(token, i);
    word.emplace_back(token.substr(b, i - b));
  }
  if (word.empty()) return {};
  word.back() += "</w>";
  while (word.size() > 1) {
    // The adjacent pair with the lowest rank (ties cannot happen: ranks are distinct).
    int32_t best = std::numeric_limits<int32_t>::max();
    size_t at = 0;
    for (size_t i = 0; i + 1 < word.size(); ++i) {
      auto r = ranks_.find(pair_key(word[i], word[i + 1]));
      if (r != ranks_.end() && r->second < best) best = r->second, at = i;
    }
    if (best == std::numeric_limits<int32_t>::max()) break;
    const std::string first = word[at], second = word[at + 1];
    std::vector<std::string> next;
    next.reserve(word.size());
    for (size_t i = 0; i < word.size();) {
      if (i + 1 < word.size() && word[i] == first && word[i + 1] == second) {
        next.push_back(first + second);
        i += 2;
      } else {
        next.push_back(word[i]);
        ++i;
      }
    }
    word = std::move(next);
  }
  return word;
}

Encoding BpeTokenizer::encode(std::string_view text) const {
  Encoding e;
  for (const std::string& w : pre_tokenize(text))
    for (std::string& p : bpe(w)) {
      auto it = encoder_.find(p);
      e.ids.push_back(it == encoder_.end() ? unk_id_ : it->second);
      e.tokens.push_back(std::move(p));
    }
  return e;
}

void BpeTokenizer::encode_ids(std::string_view text, std::vector<int32_t>* ids) const {
  for (const std::string& w : pre_tokenize(text))
    for (const std::string& p : bpe(w)) {
      auto it = encoder_.find(p);
      ids->push_back(it == encoder_.end() ? unk_id_ : it->second);
    }
}

const std::string& BpeTokenizer::token(int32_t id) const {
  if (id >= 0 && id < encoder_size()) return decoder_[id];
  if (id >= encoder_size() && id < size()) {
    static const std::string names[3] = {kGptSpecialTokens[0], kGptSpecialTokens[1],
                                         kGptSpecialTokens[2]};
    return names[id - encoder_size()];
  }
  throw InputError("token id " + std::to_string(id) + " outside the BPE vocabulary (0.." +
                   std::to_string(size() - 1) + ")");
}

int32_t BpeTokenizer::id(std::string_view t) const {
  auto it = encoder_.find(std::string(t));
  if (it != encoder_.end()) return it->second;
  for (int k = 0; k < 3; ++k)
    if (t == kGptSpecialTokens[k]) return encoder_size() + k;
  return -1;
}

std::string BpeTokenizer::decode(const std::vector<int32_t>& ids, bool skip_special) const {
  std::string joined;
  for (int32_t i : ids) {
    if (skip_special && i >= encoder_size() && i < size()) continue;
    joined += token(i);
  }
  std::string out;
  out.reserve(joined.size());
  for (size_t i = 0; i < joined.size();) {
    if (joined.compare(i, 4, "</w>") == 0) {
      out.push_back(' ');
      i += 4;
    } else {
      out.push_back(joined[i++]);
    }
  }
  // Python str.strip(): ASCII whitespace suffices here (pieces hold no other whitespace).
  const auto ws = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  size_t b = 0, e = out.size();
  while (b < e && ws(out[b])) ++b;
  while (e > b && ws(out[e - 1])) --e;
  return out.substr(b, e - b);
}

}  // namespace unieval::models
