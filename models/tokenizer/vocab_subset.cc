#include "models/tokenizer/vocab_subset.h"

#include <algorithm>

#include "core/error.h"
#include "core/io.h"
#include "core/parallel.h"
#include "core/utf8.h"

namespace unieval::models {

namespace {

bool is_bracketed(const std::string& t) {
  return t.size() >= 2 && t.front() == '[' && t.back() == ']';
}

// BERT's "[unused0]" ... "[unused993]" placeholders.
bool is_unused_placeholder(const std::string& t) {
  static const std::string kHead = "[unused";
  if (t.size() < kHead.size() + 2 || t.compare(0, kHead.size(), kHead) != 0 || t.back() != ']')
    return false;
  for (size_t i = kHead.size(); i + 1 < t.size(); ++i)
    if (t[i] < '0' || t[i] > '9') return false;
  return true;
}

// "c" or "##c": one code point after the optional continuation prefix.
bool is_single_character(const std::string& t) {
  std::string_view s(t);
  if (s.size() > 2 && s.compare(0, 2, "##") == 0) s.remove_prefix(2);
  if (s.empty()) return false;
  return core::utf8_sequence_length(static_cast<unsigned char>(s[0])) == s.size();
}

// Ids the tokenizer can emit: a token written on several lines maps to its last line (Vocab), so
// the earlier lines are dead entries, never output.
bool is_live(const Vocab& v, int32_t id) { return v.id(v.token(id)) == id; }

void add(PieceCounts& into, const PieceCounts& part) {
  if (into.count.size() < part.count.size()) into.count.resize(part.count.size(), 0);
  for (size_t i = 0; i < part.count.size(); ++i) into.count[i] += part.count[i];
  into.lines += part.lines;
  into.words += part.words;
  into.pieces += part.pieces;
  into.unk += part.unk;
}

std::string describe(const std::vector<std::string>& paths) {
  std::string s;
  for (size_t i = 0; i < paths.size(); ++i) s += (i ? ", " : "") + paths[i];
  return s;
}

// count_pieces over lines[0, n).
void count_range(const WordPieceTokenizer& tok, const std::string* lines, size_t n, int threads,
                 PieceCounts* counts) {
  const Vocab& v = tok.vocab();
  // A word's first piece never starts with "##": the basic tokenizer splits '#' off as
  // punctuation, so a word holding '#' is "#" itself, and WordPiece looks the word's head up
  // without the prefix. Counting those pieces counts the basic tokens without building them.
  std::vector<uint8_t> starts_word(v.size());
  for (size_t i = 0; i < v.size(); ++i) starts_word[i] = v.token(int32_t(i)).rfind("##", 0) != 0;
  const int32_t unk = v.id(tok.options().unk_token);
  const int workers = core::resolve_threads(threads);
  std::vector<PieceCounts> part(static_cast<size_t>(workers));
  core::parallel_chunks(n, workers, 256, [&](size_t b, size_t e, int worker) {
    PieceCounts& c = part[static_cast<size_t>(worker)];
    if (c.count.empty()) c.count.assign(v.size(), 0);
    std::vector<int32_t> ids;
    for (size_t i = b; i < e; ++i) {
      ids.clear();
      tok.encode_ids(lines[i], &ids);
      for (int32_t id : ids) {
        ++c.count[static_cast<size_t>(id)];
        c.words += starts_word[static_cast<size_t>(id)];
        c.unk += id == unk;
      }
      c.pieces += ids.size();
      ++c.lines;
    }
  });
  if (counts->count.empty()) counts->count.assign(v.size(), 0);
  for (const auto& p : part) add(*counts, p);
}

std::string below_minimum(size_t size, size_t minimum, const std::string& kept) {
  return "--size " + std::to_string(size) + " is below the minimum " + std::to_string(minimum) +
         ": " + kept + " are always kept";
}

}  // namespace

bool vocab_is_cased(const Vocab& vocab) {
  for (size_t i = 0; i < vocab.size(); ++i) {
    const std::string& t = vocab.token(static_cast<int32_t>(i));
    if (is_bracketed(t)) continue;
    for (char c : t)
      if (c >= 'A' && c <= 'Z') return true;
  }
  return false;
}

bool choose_lowercase(bool lowercase_flag, bool no_lowercase_flag, const Vocab& vocab) {
  if (lowercase_flag) return true;
  if (no_lowercase_flag) return false;
  return !vocab_is_cased(vocab);
}

void count_pieces(const WordPieceTokenizer& tok, const std::vector<std::string>& lines, int threads,
                  PieceCounts* counts) {
  count_range(tok, lines.data(), lines.size(), threads, counts);
}

std::string VocabSubset::text() const {
  std::string out;
  for (const auto& t : tokens) out += t + "\n";
  return out;
}

size_t vocab_subset_minimum(const Vocab& base, const std::string& base_path,
                            const std::vector<std::string>& specials) {
  for (const auto& s : specials)
    if (!base.contains(s))
      throw InputError(base_path, 0, "vocabulary has no special token '" + s + "'");
  size_t n = 0;
  for (int32_t i = 0; i < int32_t(base.size()); ++i) {
    if (!is_live(base, i)) continue;
    const std::string& t = base.token(i);
    n += std::find(specials.begin(), specials.end(), t) != specials.end() || is_single_character(t);
  }
  return n;
}

VocabSubset select_vocab_subset(const Vocab& base, const std::string& base_path,
                                const PieceCounts& counts, const VocabSubsetOptions& opts) {
  const std::vector<std::string>& specials = opts.specials;
  vocab_subset_minimum(base, base_path, specials);  // the specials' presence
  auto count_of = [&](int32_t id) {
    return size_t(id) < counts.count.size() ? counts.count[size_t(id)] : 0;
  };
  VocabSubset r;
  r.base_size = base.size();
  std::vector<uint8_t> keep(base.size(), 0);
  std::vector<int32_t> candidates;
  for (int32_t i = 0; i < int32_t(base.size()); ++i) {
    if (!is_live(base, i)) continue;
    const std::string& t = base.token(i);
    if (std::find(specials.begin(), specials.end(), t) != specials.end() ||
        (is_bracketed(t) && !is_unused_placeholder(t) && count_of(i) > 0)) {
      keep[size_t(i)] = 1;
      ++r.specials;
    } else if (is_single_character(t)) {
      keep[size_t(i)] = 1;
      ++r.characters;
    } else if (!t.empty() && !is_bracketed(t)) {
      candidates.push_back(i);
    }
  }
  const size_t minimum = r.specials + r.characters;
  if (opts.size < minimum)
    throw InputError(below_minimum(opts.size, minimum,
                                   "the " + std::to_string(r.specials) + " special tokens and " +
                                       std::to_string(r.characters) + " single characters of " +
                                       base_path));
  if (opts.size > minimum + candidates.size())
    throw InputError("--size " + std::to_string(opts.size) + " is above the " +
                     std::to_string(minimum + candidates.size()) + " entries " + base_path +
                     " can give (without its [unusedN] placeholders)");
  r.frequent = opts.size - minimum;
  // Most frequent first, ties by base id: a stable sort of the id-ordered candidates.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](int32_t a, int32_t b) { return count_of(a) > count_of(b); });
  for (size_t k = 0; k < r.frequent; ++k) {
    keep[size_t(candidates[k])] = 1;
    r.unseen += count_of(candidates[k]) == 0;
  }
  for (int32_t i = 0; i < int32_t(base.size()); ++i) {
    if (!keep[size_t(i)]) continue;
    r.base_ids.push_back(i);
    r.tokens.push_back(base.token(i));
    r.covered += count_of(i);
  }
  return r;
}

VocabSubset build_vocab_subset(const Vocab& base, const std::string& base_path,
                               const TokenizerOptions& tok_opts,
                               const std::vector<std::string>& corpus_paths,
                               const VocabSubsetOptions& opts) {
  if (corpus_paths.empty()) throw InputError("no corpus file given");
  if (!base.contains(tok_opts.unk_token))
    throw InputError(base_path, 0, "vocabulary has no unknown token '" + tok_opts.unk_token + "'");
  // Fail before reading the corpus when the size cannot work whatever the corpus holds.
  const size_t minimum = vocab_subset_minimum(base, base_path, opts.specials);
  if (opts.size < minimum)
    throw InputError(below_minimum(opts.size, minimum,
                                   "the special tokens and single characters of " + base_path));
  const size_t block = std::max<size_t>(opts.progress_every, 1);
  auto pass = [&](int number, const WordPieceTokenizer& tok, PieceCounts* counts) {
    uint64_t reported = 0;  // progress_every-line marks of the pass already reported
    for (const auto& path : corpus_paths) {
      const std::vector<std::string> lines = core::read_lines(path);
      if (lines.empty()) throw InputError(path, 0, "corpus file is empty");
      const uint64_t words_before = counts->words;
      for (size_t b = 0; b < lines.size(); b += block) {
        const size_t e = std::min(lines.size(), b + block);
        count_range(tok, lines.data() + b, e - b, opts.threads, counts);
        if (opts.progress && counts->lines / block > reported) {
          reported = counts->lines / block;
          opts.progress(number, path, counts->lines);
        }
      }
      if (counts->words == words_before)
        throw InputError(
            path, 0, "corpus file has no words in its " + std::to_string(lines.size()) + " lines");
    }
  };
  const WordPieceTokenizer base_tok(base, tok_opts);
  PieceCounts base_counts;
  pass(1, base_tok, &base_counts);
  VocabSubset r = select_vocab_subset(base, base_path, base_counts, opts);
  r.base = std::move(base_counts);
  const WordPieceTokenizer new_tok(Vocab(r.tokens), tok_opts);
  pass(2, new_tok, &r.subset);
  if (r.subset.words != r.base.words)  // the basic tokenizer does not depend on the vocabulary
    throw std::logic_error("vocab subset: " + describe(corpus_paths) +
                           ": words differ between the passes");
  return r;
}

}  // namespace unieval::models
