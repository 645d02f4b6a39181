// Follows the structure of ROUGE-1.5.5's subroutines (research release, no OSI licence): each
// routine below names the subroutine of ROUGE-1.5.5.pl it follows, written by reading the script;
// no Perl code copied; see THIRD_PARTY_NOTICES.md.
#include "metrics/rouge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <unordered_map>

#include "core/io.h"
#include "core/parallel.h"
#include "metrics/rouge_ngrams.h"
#include "metrics/text/porter_rouge.h"
#include "metrics/text/rouge_tokenize.h"

namespace unieval::metrics {

namespace fs = std::filesystem;

// ------------------------------------------------------------------------------------------
// Resources and options
// ------------------------------------------------------------------------------------------

RougeResources RougeResources::load(const std::string& dir, bool require_exceptions,
                                    bool require_stopwords) {
  RougeResources r;
  fs::path base(dir);
  // Accept the data directory itself or a ROUGE-1.5.5 release directory holding data/.
  if (!fs::exists(base / "WordNet-2.0-Exceptions") &&
      fs::exists(base / "data" / "WordNet-2.0-Exceptions"))
    base /= "data";
  r.data_dir = base.string();
  fs::path exc = base / "WordNet-2.0-Exceptions";
  if (fs::exists(exc / "adj.exc")) {
    r.exceptions = text::WordNetExceptions::load_dir(exc.string());
    r.has_exceptions = true;
  } else if (require_exceptions) {
    throw InputError(
        exc.string(), 0,
        "WordNet 2.0 exception lists (adj.exc, adv.exc, noun.exc, verb.exc) not found; "
        "--rouge-data must name the ROUGE-1.5.5 data directory");
  }
  fs::path stop = base / "smart_common_words.txt";
  if (fs::exists(stop)) {
    std::string text = core::read_file(stop.string());
    // Perl: chomp each line and use it as a hash key.
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      r.stopwords.insert(text.substr(pos, end - pos));
      pos = end + 1;
    }
    r.has_stopwords = true;
  } else if (require_stopwords) {
    throw InputError(stop.string(), 0, "smart_common_words.txt not found (needed by -s)");
  }
  return r;
}

std::string RougeResources::exceptions_tag() const {
  if (!has_exceptions) return "none";
  if (exceptions.size() == 5930 && exceptions.lookup("better") &&
      *exceptions.lookup("better") == "well")
    return "wn2.0";
  return "custom" + std::to_string(exceptions.size());
}

std::string rouge_data_dir(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  if (const char* env = std::getenv("UNIEVAL_ROUGE_DATA")) return env;
  return "";
}

RougeResources find_rouge_resources(const std::string& flag_value, const Rouge155Options& opt,
                                    const RougeResourceFlags& flags) {
  std::string dir = rouge_data_dir(flag_value);
  bool need_exc = opt.stem && opt.use_exceptions;
  if (dir.empty()) {
    if (need_exc)
      throw InputError("-m needs ROUGE-1.5.5's WordNet 2.0 exception lists: pass " + flags.data +
                       " (or set "
                       "UNIEVAL_ROUGE_DATA) to the ROUGE-1.5.5 data directory that holds "
                       "WordNet-2.0-Exceptions/{adj,adv,noun,verb}.exc; " +
                       flags.no_exceptions +
                       " stems without "
                       "them (a different number from the original ROUGE-1.5.5)");
    if (opt.remove_stopwords)
      throw InputError("-s needs smart_common_words.txt: pass " + flags.data +
                       " or set UNIEVAL_ROUGE_DATA");
    return {};
  }
  if (!fs::is_directory(dir)) throw InputError(dir, 0, "--rouge-data: not a directory");
  return RougeResources::load(dir, need_exc, opt.remove_stopwords);
}

void Rouge155Options::validate() const {
  if (max_n < 0) throw InputError("-n must be >= 0");
  if (confidence < 0 || confidence > 100)
    throw InputError("-c: confidence interval should be within 0 and 100");
  if (alpha < 0 || alpha > 1) throw InputError("-p: alpha has to be between 0 and 1 inclusively");
  if (resamples < 1) throw InputError("-r: the number of resamples must be >= 1");
  if (formula != 'A' && formula != 'B') throw InputError("-f must be A or B");
  if (length_limit < 0 || byte_limit < 0) throw InputError("-l/-b must be >= 0");
  if (length_limit > 0 && byte_limit > 0)
    throw InputError("specify length limit in words (-l) or bytes (-b) but not both");
  if (!wlcs_weight.empty()) {
    char* end = nullptr;
    double w = std::strtod(wlcs_weight.c_str(), &end);
    if (*end != '\0' || !(w > 0))
      throw InputError("-w: ROUGE-W weight factor must be a number > 0");
  }
  if (!skip_distance.empty()) {
    char* end = nullptr;
    std::strtol(skip_distance.c_str(), &end, 10);
    if (*end != '\0') throw InputError("-2: max gap length must be an integer (-1 = unlimited)");
  }
  if ((skip_unigram || skip_both) && skip_distance.empty())
    throw InputError("-u/-U need -2 (skip distance)");
  if (threads < 1) throw InputError("--threads must be >= 1");
}

namespace {

std::string num_text(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

std::string Rouge155Options::signature(const RougeResources& res) const {
  std::ostringstream s;
  s << "rouge155|n:" << max_n << "|l:" << (lcs ? 1 : 0)
    << "|w:" << (wlcs_weight.empty() ? "-" : wlcs_weight)
    << "|s:" << (skip_distance.empty() ? "-" : skip_distance) << "|u:"
    << (skip_both      ? "U"
        : skip_unigram ? "1"
                       : "0")
    << "|m:" << (stem ? 1 : 0) << "|exc:"
    << (stem ? (use_exceptions ? res.exceptions_tag() : std::string("none")) : std::string("-"))
    << "|stop:" << (remove_stopwords ? 1 : 0) << "|len:" << length_limit << "|byte:" << byte_limit
    << "|f:" << formula << "|p:" << num_text(alpha) << "|c:" << num_text(confidence)
    << "|r:" << resamples << "|v:1.5.5";
  return s.str();
}

double round5(double x) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%7.5f", x);
  return std::strtod(buf, nullptr);
}

RougeSummary split_summary(std::string_view line, std::string_view sep) {
  RougeSummary out;
  auto push_trimmed = [&](std::string_view s) {
    size_t a = 0, b = s.size();
    while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r')) ++a;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r')) --b;
    if (b > a) out.emplace_back(s.substr(a, b - a));
  };
  if (sep.empty()) {
    push_trimmed(line);
    return out;
  }
  size_t pos = 0;
  while (true) {
    size_t hit = line.find(sep, pos);
    if (hit == std::string_view::npos) {
      push_trimmed(line.substr(pos));
      break;
    }
    push_trimmed(line.substr(pos, hit - pos));
    pos = hit + sep.size();
  }
  return out;
}

// ------------------------------------------------------------------------------------------
// Reading and tokenising (readText, readText_LCS, createNGram, tokenizeText_LCS, MorphStem)
// ------------------------------------------------------------------------------------------

namespace {

constexpr uint32_t kDropped = 0xFFFFFFFFu;

// Interns the tokens of the whole corpus; each raw token is mapped once (stopword test,
// exception lookup, stemming) and cached.
class RougeVocabulary {
 public:
  RougeVocabulary(const Rouge155Options& opt, const RougeResources& res) : opt_(opt), res_(res) {}

  uint32_t id_of_raw(std::string_view raw) {
    uint32_t r = raw_.intern(raw);
    if (r < raw_ids_.size()) return raw_ids_[r];
    uint32_t id = map_raw(std::string(raw));
    raw_ids_.push_back(id);
    return id;
  }
  size_t size() const { return words_.size(); }

 private:
  uint32_t map_raw(const std::string& raw) {
    // createNGram: stopwords are removed when -s is given; tokens must start with [a-z0-9\$]
    // (always true for our alphanumeric runs).
    if (opt_.remove_stopwords && res_.stopwords.count(raw)) return kDropped;
    std::string word = raw;
    if (opt_.stem && raw.size() > 3) {
      // MorphStem: the exception table first, else Porter.
      const std::string* exc = opt_.use_exceptions ? res_.exceptions.lookup(raw) : nullptr;
      word = exc ? *exc : text::rouge155_porter_stem(raw);
    }
    return words_.intern(word);
  }

  const Rouge155Options& opt_;
  const RougeResources& res_;
  TokenInterner raw_;              // raw tokens, each mapped once ...
  std::vector<uint32_t> raw_ids_;  // ... to its word id (or kDropped), by raw id
  TokenInterner words_;            // words after stemming: the ids n-grams are made of
};

// A summary as the scoring routines see it.
struct Prepared {
  std::vector<uint32_t> tokens;                  // n-gram path (readText + createNGram)
  std::vector<std::vector<uint32_t>> sentences;  // LCS path (readText_LCS + tokenizeText_LCS)
};

void append_tokens(std::string_view text, RougeVocabulary& vocab, std::vector<uint32_t>& out) {
  // Maximal runs of ASCII letters/digits, lower-cased (rouge_tokenize.h), inlined for speed.
  char buf[256];
  std::string big;
  size_t i = 0, n = text.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < n) {
      c = static_cast<unsigned char>(text[i]);
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) break;
      ++i;
    }
    size_t len = i - start;
    char* dst = buf;
    if (len > sizeof(buf)) {
      big.resize(len);
      dst = big.data();
    }
    for (size_t k = 0; k < len; ++k) {
      char ch = text[start + k];
      dst[k] = (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
    }
    uint32_t id = vocab.id_of_raw(std::string_view(dst, len));
    if (id != kDropped) out.push_back(id);
  }
}

std::string join_words(const std::vector<std::string_view>& words, size_t count) {
  std::string s;
  for (size_t k = 0; k < count && k < words.size(); ++k) {
    if (k) s += ' ';
    s.append(words[k]);
  }
  return s;
}

Prepared prepare(const RougeSummary& summary, const Rouge155Options& opt, RougeVocabulary& vocab) {
  Prepared p;
  // SPL reading: every non-empty line is a sentence, lower-cased with tr/A-Z/a-z/ (our
  // tokeniser lower-cases ASCII itself, so only the -l/-b paths need the lower-cased text).
  std::vector<const std::string*> snt;
  for (const auto& s : summary)
    if (!s.empty()) snt.push_back(&s);

  if (opt.length_limit == 0 && opt.byte_limit == 0) {
    for (const std::string* s : snt) {
      p.sentences.emplace_back();
      append_tokens(*s, vocab, p.sentences.back());
      p.tokens.insert(p.tokens.end(), p.sentences.back().begin(), p.sentences.back().end());
    }
    return p;
  }
  const long limit = opt.length_limit;
  const long blimit = opt.byte_limit;
  // readText (n-gram path).
  {
    std::string tmp;
    long tmp_len = 0;
    for (const std::string* s : snt) {
      if (limit != 0) {
        auto words = text::perl_split_ascii_ws(*s);
        long slen = static_cast<long>(words.size());
        if (tmp_len + slen < limit) {
          if (tmp_len != 0) tmp += ' ';
          tmp += *s;
          tmp_len += slen;
        } else {
          if (tmp_len > 0) tmp += ' ';
          tmp += join_words(words, static_cast<size_t>(limit - tmp_len));
          break;
        }
      } else {
        long slen = static_cast<long>(s->size());
        if (tmp_len + slen < blimit) {
          if (tmp_len != 0) tmp += ' ';
          tmp += *s;
          tmp_len += slen;
        } else {
          if (tmp_len > 0) tmp += ' ';
          tmp += s->substr(0, static_cast<size_t>(blimit - tmp_len));
          break;
        }
      }
    }
    append_tokens(tmp, vocab, p.tokens);
  }
  // readText_LCS (LCS path): note the byte branch never advances its running length.
  {
    long tmp_len = 0;
    for (const std::string* s : snt) {
      std::string piece;
      bool last = false;
      if (limit != 0) {
        auto words = text::perl_split_ascii_ws(*s);
        long slen = static_cast<long>(words.size());
        if (tmp_len + slen < limit) {
          tmp_len += slen;
          piece = *s;
        } else {
          piece = join_words(words, static_cast<size_t>(limit - tmp_len));
          last = true;
        }
      } else {
        long slen = static_cast<long>(s->size());
        if (tmp_len + slen < blimit) {
          piece = *s;
        } else {
          piece = s->substr(0, static_cast<size_t>(blimit - tmp_len));
          last = true;
        }
      }
      p.sentences.emplace_back();
      append_tokens(piece, vocab, p.sentences.back());
      if (last) break;
    }
  }
  return p;
}

// ------------------------------------------------------------------------------------------
// Scoring one instance
// ------------------------------------------------------------------------------------------

// What computeNGramScore & co. return before averaging.
struct Counts {
  double hit = 0, model_count = 0, peer_count = 0;
};

// R, P, F from the totals, each through sprintf("%7.5f") as the script does.
RougePRF finish(double hit, double model_count, double peer_count, double alpha) {
  RougePRF s;
  s.r = model_count != 0 ? round5(hit / model_count) : 0.0;
  s.p = peer_count != 0 ? round5(hit / peer_count) : 0.0;
  double den = (1 - alpha) * s.p + alpha * s.r;
  s.f = den > 0 ? round5((s.p * s.r) / den) : 0.0;
  return s;
}

using rouge_detail::Grams;
using rouge_detail::make_ngrams;

// The per-model totals of computeNGramScore / computeSkipBigramScore combined with formula A
// (sum over models) or B (the model with the best %07.5f-rounded recall, first on ties).
struct ModelCounts {
  double hit, model_count, peer_count;
};
RougePRF combine_counts(const std::vector<ModelCounts>& per_model, const Rouge155Options& opt) {
  double total_hit = 0, total_count = 0, total_count_p = 0, best = -1;
  for (const ModelCounts& c : per_model) {
    if (opt.formula == 'B') {
      double score = c.model_count != 0 ? round5(c.hit / c.model_count) : 0.0;
      if (score > best) {
        best = score;
        total_hit = c.hit;
        total_count = c.model_count;
        total_count_p = c.peer_count;
      }
    } else {
      total_hit += c.hit;
      total_count += c.model_count;
      total_count_p += c.peer_count;
    }
  }
  return finish(total_hit, total_count, total_count_p, opt.alpha);
}

// Number of grams createSkipBigram makes from n tokens: for i < n-1, an optional unigram and
// the pairs (i, j), j <= n-1, j - i - 1 <= distance (distance < 0: unlimited).
double skip_gram_count(long n, long distance, bool unigram) {
  double count = 0;
  for (long i = 0; i < n - 1; ++i) {
    long last = distance < 0 ? n - 1 : std::min(n - 1, i + distance + 1);
    count += static_cast<double>(last - i) + (unigram ? 1 : 0);
  }
  return count;
}

// The skip-grams of t that can match the other side: only positions whose token occurs there
// (`present`) take part; positions keep their original index for the distance test. Keys: pair
// (a, b) -> a << 32 | (b + 1); unigram a -> a << 32.
void make_skip_keys(const std::vector<uint32_t>& t, const std::vector<char>& present, long distance,
                    bool unigram, std::vector<long>& pos, Grams& g) {
  g.n = 2;
  g.seq = &t;
  g.keys.clear();
  pos.clear();
  long n = static_cast<long>(t.size());
  for (long i = 0; i < n; ++i)
    if (present[t[i]]) pos.push_back(i);
  for (size_t x = 0; x < pos.size(); ++x) {
    long i = pos[x];
    if (i >= n - 1) break;
    uint64_t hi = uint64_t(t[i]) << 32;
    if (unigram) g.keys.push_back(hi);
    for (size_t y = x + 1; y < pos.size(); ++y) {
      long j = pos[y];
      if (distance >= 0 && j > i + distance + 1) break;
      g.keys.push_back(hi | (uint64_t(t[j]) + 1));
    }
  }
  std::sort(g.keys.begin(), g.keys.end());
}

// Per-thread scratch space for the LCS routines.
struct Scratch {
  std::vector<int> model_budget, peer_budget;  // unigram budgets, indexed by token id
  std::vector<int> c;                          // LCS table
  std::vector<double> wc;                      // WLCS table
  std::vector<int> wl;                         // WLCS run lengths
  std::vector<char> mask;
  std::vector<char> in_model, in_peer;  // token presence, indexed by token id
  std::vector<long> pos;
  Grams peer_grams, model_grams;
  std::vector<uint32_t> local;      // token id -> local id + 1 (tokens on both sides)
  std::vector<int> cm, cp, um, up;  // pair / unigram counts over local ids
  std::vector<std::pair<long, uint32_t>> mpos, ppos;  // (position, local id)
};

// skipBigramScore's clipped hits for one (model, peer) pair: pairs = sum over skip-bigrams of
// min(model count, peer count); unigrams likewise for the SU unigrams (positions < n-1). Only
// tokens present on both sides can hit; they get dense local ids so the counts are arrays.
void skip_hits(const std::vector<uint32_t>& m, const std::vector<uint32_t>& p, long distance,
               Scratch& s, double& pair_hits, double& unigram_hits) {
  uint32_t k = 0;
  for (uint32_t t : m) s.in_model[t] = 1;
  for (uint32_t t : p)
    if (s.in_model[t] && !s.local[t]) s.local[t] = ++k;
  auto gather = [&](const std::vector<uint32_t>& t, std::vector<std::pair<long, uint32_t>>& out) {
    out.clear();
    for (size_t i = 0; i < t.size(); ++i)
      if (s.local[t[i]]) out.emplace_back(static_cast<long>(i), s.local[t[i]] - 1);
  };
  gather(m, s.mpos);
  gather(p, s.ppos);
  for (uint32_t t : m) s.in_model[t] = 0;
  for (uint32_t t : p) s.local[t] = 0;
  pair_hits = 0;
  unigram_hits = 0;
  // Unigrams (SU): every position but the last.
  s.um.assign(k, 0);
  s.up.assign(k, 0);
  const long nm = static_cast<long>(m.size()), np = static_cast<long>(p.size());
  for (const auto& [i, a] : s.mpos)
    if (i < nm - 1) ++s.um[a];
  for (const auto& [i, a] : s.ppos)
    if (i < np - 1 && ++s.up[a] <= s.um[a]) unigram_hits += 1;
  if (k == 0) return;
  if (k <= 1024) {
    s.cm.assign(size_t(k) * k, 0);
    s.cp.assign(size_t(k) * k, 0);
    for (size_t x = 0; x < s.mpos.size(); ++x) {
      auto [i, a] = s.mpos[x];
      for (size_t y = x + 1; y < s.mpos.size(); ++y) {
        auto [j, b] = s.mpos[y];
        if (distance >= 0 && j > i + distance + 1) break;
        ++s.cm[size_t(a) * k + b];
      }
    }
    for (size_t x = 0; x < s.ppos.size(); ++x) {
      auto [i, a] = s.ppos[x];
      for (size_t y = x + 1; y < s.ppos.size(); ++y) {
        auto [j, b] = s.ppos[y];
        if (distance >= 0 && j > i + distance + 1) break;
        size_t key = size_t(a) * k + b;
        if (++s.cp[key] <= s.cm[key]) pair_hits += 1;
      }
    }
    return;
  }
  // Very long texts: sorted keys instead of a k x k table.
  for (uint32_t t : m) s.in_model[t] = 1;
  for (uint32_t t : p) s.in_peer[t] = 1;
  make_skip_keys(p, s.in_model, distance, false, s.pos, s.peer_grams);
  make_skip_keys(m, s.in_peer, distance, false, s.pos, s.model_grams);
  for (uint32_t t : m) s.in_model[t] = 0;
  for (uint32_t t : p) s.in_peer[t] = 0;
  pair_hits = static_cast<double>(rouge_detail::clipped_hits(s.model_grams, s.peer_grams));
}

// lcs_inner + markLCS: marks in `mask` the model positions of one LCS of (model, peer);
// ties go "up" (c[i-1][j] >= c[i][j-1]).
void mark_lcs(const std::vector<uint32_t>& r, const std::vector<uint32_t>& p, Scratch& s) {
  size_t m = r.size(), n = p.size();
  if (m == 0 || n == 0) return;
  size_t w = n + 1;
  s.c.assign((m + 1) * w, 0);
  int* c = s.c.data();
  for (size_t i = 1; i <= m; ++i) {
    uint32_t ri = r[i - 1];
    int* row = c + i * w;
    const int* up = c + (i - 1) * w;
    for (size_t j = 1; j <= n; ++j) {
      if (ri == p[j - 1])
        row[j] = up[j - 1] + 1;
      else
        row[j] = up[j] >= row[j - 1] ? up[j] : row[j - 1];
    }
  }
  size_t i = m, j = n;
  while (i != 0 && j != 0) {
    if (r[i - 1] == p[j - 1]) {
      --i;
      --j;
      s.mask[i] = 1;
    } else if (c[(i - 1) * w + j] >= c[i * w + j - 1]) {
      --i;
    } else {
      --j;
    }
  }
}

// wlcs_inner + markLCS.
void mark_wlcs(const std::vector<uint32_t>& r, const std::vector<uint32_t>& p,
               const std::vector<double>& pw, Scratch& s) {
  size_t m = r.size(), n = p.size();
  if (m == 0 || n == 0) return;
  size_t w = n + 1;
  s.wc.assign((m + 1) * w, 0.0);
  s.wl.assign((m + 1) * w, 0);
  double* c = s.wc.data();
  int* l = s.wl.data();
  for (size_t i = 1; i <= m; ++i) {
    for (size_t j = 1; j <= n; ++j) {
      size_t at = i * w + j;
      if (r[i - 1] == p[j - 1]) {
        int k = l[(i - 1) * w + j - 1];
        c[at] = c[(i - 1) * w + j - 1] + pw[k + 1] - pw[k];
        l[at] = k + 1;
      } else if (c[(i - 1) * w + j] >= c[i * w + j - 1]) {
        c[at] = c[(i - 1) * w + j];
      } else {
        c[at] = c[i * w + j - 1];
      }
    }
  }
  size_t i = m, j = n;
  while (i != 0 && j != 0) {
    if (r[i - 1] == p[j - 1]) {
      --i;
      --j;
      s.mask[i] = 1;
    } else if (c[(i - 1) * w + j] >= c[i * w + j - 1]) {
      --i;
    } else {
      --j;
    }
  }
}

void set_budget(std::vector<int>& budget, const std::vector<uint32_t>& tokens) {
  for (uint32_t t : tokens) budget[t] = 0;
  for (uint32_t t : tokens) ++budget[t];
}
void clear_budget(std::vector<int>& budget, const std::vector<uint32_t>& tokens) {
  for (uint32_t t : tokens) budget[t] = 0;
}

// computeLCSScore (weighted = false) / computeWLCSScore (weighted = true).
RougePRF lcs_score(const Prepared& peer, const std::vector<Prepared>& models,
                   const Rouge155Options& opt, bool weighted, double weight,
                   const std::vector<double>& pw, Scratch& s, size_t instance) {
  double total_hit = 0, total_count = 0, total_count_p = 0, best = -1;
  const double peer_count = static_cast<double>(peer.tokens.size());
  for (size_t mi = 0; mi < models.size(); ++mi) {
    const Prepared& model = models[mi];
    set_budget(s.model_budget, model.tokens);
    set_budget(s.peer_budget, peer.tokens);  // renewed for every model
    double hit = 0, base = 0;
    for (const auto& r : model.sentences) {
      s.mask.assign(r.size(), 0);
      base += weighted ? std::pow(static_cast<double>(r.size()), weight)
                       : static_cast<double>(r.size());
      for (const auto& p : peer.sentences) {
        if (weighted)
          mark_wlcs(r, p, pw, s);
        else
          mark_lcs(r, p, s);
      }
      int hit_len = 0;
      for (size_t j = 0; j < r.size(); ++j) {
        if (!s.mask[j]) continue;
        uint32_t t = r[j];
        if (s.model_budget[t] > 0 && s.peer_budget[t] > 0) {
          if (weighted) {
            ++hit_len;
            // wlcs: a run is closed at a position whose successor is unmarked, or at the end.
            if ((j + 1 < r.size() && !s.mask[j + 1]) || j + 1 == r.size()) {
              hit += pw[hit_len];
              hit_len = 0;
            }
          } else {
            hit += 1;
          }
          --s.model_budget[t];
          --s.peer_budget[t];
        }
      }
    }
    clear_budget(s.model_budget, model.tokens);
    clear_budget(s.peer_budget, peer.tokens);
    double score;
    if (weighted) {
      if (base == 0)
        throw RougeEmptyModelError(instance, mi,
                                   "ROUGE-W is undefined for a reference with no tokens "
                                   "(ROUGE-1.5.5 dies here with 'Illegal division by zero')");
      score = std::pow(hit / base, 1 / weight);
    } else {
      score = base > 0 ? hit / base : 0.0;
    }
    double mcount = weighted ? std::pow(base, weight) : base;
    double pcount = weighted ? std::pow(peer_count, weight) : peer_count;
    if (opt.formula == 'B') {
      if (score > best) {
        best = score;
        total_hit = hit;
        total_count = mcount;
        total_count_p = pcount;
      }
    } else {
      total_hit += hit;
      total_count += mcount;
      total_count_p += pcount;
    }
  }
  if (!weighted) return finish(total_hit, total_count, total_count_p, opt.alpha);
  RougePRF out;
  out.r = total_count != 0 ? round5(std::pow(total_hit / total_count, 1 / weight)) : 0.0;
  out.p = total_count_p != 0 ? round5(std::pow(total_hit / total_count_p, 1 / weight)) : 0.0;
  double den = (1 - opt.alpha) * out.p + opt.alpha * out.r;
  out.f = den > 0 ? round5((out.p * out.r) / den) : 0.0;
  return out;
}

// ------------------------------------------------------------------------------------------
// Averages (computeAverages + bootstrapResampling)
// ------------------------------------------------------------------------------------------

// Perl >= 5.20's drand48 (used inline in bootstrap_group): srand(s) sets X = (s << 16) + 0x330E;
// rand() = X / 2^48 after X = 0x5DEECE66D * X + 0xB (mod 2^48).
// bootstrapResampling for K/3 variants at once: resample s draws n indices with srand(s) and
// averages the drawn R, P, F (summed in draw order, divided by n). K accumulators stay in
// registers; the same draw sequence serves every variant.
template <int K>
void bootstrap_group(const double* vals, size_t n, size_t nv, size_t first_variant, size_t from,
                     size_t to, double* samples) {
  const size_t stride = nv * 3;
  const size_t off = first_variant * 3;
  const double dn = static_cast<double>(n);
  for (size_t s = from; s < to; ++s) {
    double* out = samples + s * stride + off;
    if (n == 0) continue;
    double acc[K] = {};
    uint64_t x = (uint64_t(static_cast<uint32_t>(s)) << 16) + 0x330E;
    for (size_t i = 0; i < n; ++i) {
      x = (0x5DEECE66DULL * x + 0xBULL) & ((1ULL << 48) - 1);
      // rand(n) = n * (X / 2^48); the scaling by 2^-48 is exact.
      size_t idx = static_cast<size_t>(dn * (static_cast<double>(x) * 0x1p-48));
      const double* d = vals + idx * stride + off;
      for (int q = 0; q < K; ++q) acc[q] += d[q];
    }
    for (int q = 0; q < K; ++q) out[q] = acc[q] / dn;
  }
}

void compute_averages(std::vector<Rouge155Variant*>& variants, const Rouge155Options& opt) {
  if (variants.empty()) return;
  const size_t n = variants[0]->instances.size();
  const size_t nv = variants.size();
  // Instances keyed "<evalID>.<peerID>" and sorted as strings.
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::vector<std::string> keys(n);
  for (size_t i = 0; i < n; ++i) keys[i] = std::to_string(i + 1) + ".X";
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  // vals[k * 3nv + 3v + {0,1,2}] = R, P, F of variant v at sorted position k.
  std::vector<double> vals(n * nv * 3);
  for (size_t k = 0; k < n; ++k)
    for (size_t v = 0; v < nv; ++v) {
      const RougePRF& s = variants[v]->instances[order[k]];
      double* d = &vals[k * nv * 3 + v * 3];
      d[0] = s.r;
      d[1] = s.p;
      d[2] = s.f;
    }
  const size_t R = static_cast<size_t>(opt.resamples);
  std::vector<double> samples(R * nv * 3, 0.0);  // [s][v][3]
  auto run = [&](size_t from, size_t to) {
    for (size_t g = 0; g < nv; g += 3) {
      size_t cnt = std::min<size_t>(3, nv - g);
      if (cnt == 3)
        bootstrap_group<9>(vals.data(), n, nv, g, from, to, samples.data());
      else if (cnt == 2)
        bootstrap_group<6>(vals.data(), n, nv, g, from, to, samples.data());
      else
        bootstrap_group<3>(vals.data(), n, nv, g, from, to, samples.data());
    }
  };
  core::parallel_ranges(R, opt.threads, run, 1);
  // Bounds: delta = R * ((100 - c) / 2) / 100; lower at int(delta), upper at int(R - delta - 1),
  // both interpolated with the ratio of the upper index (as the script does). An index past
  // the end reads as 0 (Perl's undef).
  const double dR = static_cast<double>(R);
  const double delta = dR * ((100 - opt.confidence) / 2.0) / 100.0;
  const long ci_ua = static_cast<long>(dR - delta - 1);
  const long ci_la = static_cast<long>(delta);
  const double ci_r = dR - delta - 1 - static_cast<double>(ci_ua);
  std::vector<double> sorted(R);
  for (size_t v = 0; v < nv; ++v) {
    for (int q = 0; q < 3; ++q) {
      for (size_t s = 0; s < R; ++s) sorted[s] = samples[s * nv * 3 + v * 3 + q];
      std::sort(sorted.begin(), sorted.end());
      double sum = 0;
      for (double x : sorted) sum += x;
      auto at = [&](long idx) {
        return idx >= 0 && idx < static_cast<long>(R) ? sorted[idx] : 0.0;
      };
      double avg = round5(sum / dR);
      double lo = round5(at(ci_la) + (at(ci_la + 1) - at(ci_la)) * ci_r);
      double hi = round5(at(ci_ua) + (at(ci_ua + 1) - at(ci_ua)) * ci_r);
      double* a = q == 0   ? &variants[v]->average.r
                  : q == 1 ? &variants[v]->average.p
                           : &variants[v]->average.f;
      double* l = q == 0   ? &variants[v]->ci_low.r
                  : q == 1 ? &variants[v]->ci_low.p
                           : &variants[v]->ci_low.f;
      double* h = q == 0   ? &variants[v]->ci_high.r
                  : q == 1 ? &variants[v]->ci_high.p
                           : &variants[v]->ci_high.f;
      *a = avg;
      *l = lo;
      *h = hi;
    }
  }
}

}  // namespace

// ------------------------------------------------------------------------------------------
// Driver
// ------------------------------------------------------------------------------------------

Rouge155Result rouge155(const std::vector<RougeInstance>& corpus, const Rouge155Options& opt,
                        const RougeResources& res) {
  opt.validate();
  if (opt.stem && opt.use_exceptions && !res.has_exceptions)
    throw InputError(
        "-m needs the WordNet 2.0 exception lists of ROUGE-1.5.5 (pass --rouge-data DIR "
        "or set UNIEVAL_ROUGE_DATA to the ROUGE-1.5.5 data directory; "
        "--no-wordnet-exceptions stems without them)");
  if (opt.remove_stopwords && !res.has_stopwords)
    throw InputError(
        "-s needs smart_common_words.txt (pass --rouge-data DIR or set UNIEVAL_ROUGE_DATA)");

  const size_t n = corpus.size();
  RougeVocabulary vocab(opt, res);
  std::vector<Prepared> peers(n);
  std::vector<std::vector<Prepared>> models(n);
  for (size_t i = 0; i < n; ++i) {
    peers[i] = prepare(corpus[i].peer, opt, vocab);
    models[i].reserve(corpus[i].models.size());
    for (const auto& m : corpus[i].models) models[i].push_back(prepare(m, opt, vocab));
  }

  // The variants in the script's order.
  Rouge155Result result;
  result.signature = opt.signature(res);
  enum Kind { kN, kL, kW, kS };
  struct Spec {
    Kind kind;
    int n = 0;
    bool unigram = false;
  };
  std::vector<Spec> specs;
  for (int k = 1; k <= opt.max_n; ++k) {
    specs.push_back({kN, k, false});
    result.variants.push_back({"ROUGE-" + std::to_string(k), {}, {}, {}, {}});
  }
  if (opt.lcs) {
    specs.push_back({kL, 0, false});
    result.variants.push_back({"ROUGE-L", {}, {}, {}, {}});
  }
  double weight = 0;
  if (!opt.wlcs_weight.empty()) {
    weight = std::strtod(opt.wlcs_weight.c_str(), nullptr);
    specs.push_back({kW, 0, false});
    result.variants.push_back({"ROUGE-W-" + opt.wlcs_weight, {}, {}, {}, {}});
  }
  long distance = 0;
  if (!opt.skip_distance.empty()) {
    distance = std::strtol(opt.skip_distance.c_str(), nullptr, 10);
    std::string d = distance >= 0 ? opt.skip_distance : "*";
    if (opt.skip_unigram) {
      specs.push_back({kS, 0, true});
      result.variants.push_back({"ROUGE-SU" + d, {}, {}, {}, {}});
    } else {
      specs.push_back({kS, 0, false});
      result.variants.push_back({"ROUGE-S" + d, {}, {}, {}, {}});
      if (opt.skip_both) {
        specs.push_back({kS, 0, true});
        result.variants.push_back({"ROUGE-SU" + d, {}, {}, {}, {}});
      }
    }
  }
  for (auto& v : result.variants) v.instances.resize(n);

  // pw[k] = k^w for the WLCS runs.
  size_t max_len = 0;
  for (size_t i = 0; i < n; ++i) {
    for (const auto& s : peers[i].sentences) max_len = std::max(max_len, s.size());
    for (const auto& m : models[i])
      for (const auto& s : m.sentences) max_len = std::max(max_len, s.size());
  }
  std::vector<double> pw(max_len + 2, 0.0);
  if (weight > 0)
    for (size_t k = 0; k < pw.size(); ++k) pw[k] = std::pow(static_cast<double>(k), weight);

  auto score_range = [&](size_t from, size_t to) {
    Scratch s;
    s.model_budget.assign(vocab.size(), 0);
    s.peer_budget.assign(vocab.size(), 0);
    s.in_model.assign(vocab.size(), 0);
    s.in_peer.assign(vocab.size(), 0);
    s.local.assign(vocab.size(), 0);
    std::vector<ModelCounts> per_model;
    for (size_t i = from; i < to; ++i) {
      const Prepared& peer = peers[i];
      for (size_t v = 0; v < specs.size(); ++v) {
        const Spec& sp = specs[v];
        RougePRF score;
        if (sp.kind == kN) {
          make_ngrams(peer.tokens, sp.n, s.peer_grams);
          per_model.clear();
          for (const auto& m : models[i]) {
            make_ngrams(m.tokens, sp.n, s.model_grams);
            per_model.push_back(
                {static_cast<double>(rouge_detail::clipped_hits(s.model_grams, s.peer_grams)),
                 static_cast<double>(s.model_grams.keys.size()),
                 static_cast<double>(s.peer_grams.keys.size())});
          }
          score = combine_counts(per_model, opt);
        } else if (sp.kind == kS) {
          per_model.clear();
          for (const auto& m : models[i]) {
            double pair_hits = 0, unigram_hits = 0;
            skip_hits(m.tokens, peer.tokens, distance, s, pair_hits, unigram_hits);
            per_model.push_back(
                {pair_hits + (sp.unigram ? unigram_hits : 0.0),
                 skip_gram_count(static_cast<long>(m.tokens.size()), distance, sp.unigram),
                 skip_gram_count(static_cast<long>(peer.tokens.size()), distance, sp.unigram)});
          }
          score = combine_counts(per_model, opt);
        } else {
          score = lcs_score(peer, models[i], opt, sp.kind == kW, weight, pw, s, i);
        }
        result.variants[v].instances[i] = score;
      }
    }
  };
  core::parallel_ranges(n, opt.threads, score_range, 1);

  std::vector<Rouge155Variant*> ptrs;
  for (auto& v : result.variants) ptrs.push_back(&v);
  compute_averages(ptrs, opt);
  return result;
}

std::string rouge155_report(const Rouge155Result& result, const Rouge155Options& opt,
                            bool per_instance, const std::string& peer_id) {
  std::string out;
  char buf[512];
  std::string conf = num_text(opt.confidence);
  for (const auto& v : result.variants) {
    out += "---------------------------------------------\n";
    const char* names[3] = {"R", "P", "F"};
    const double avg[3] = {v.average.r, v.average.p, v.average.f};
    const double lo[3] = {v.ci_low.r, v.ci_low.p, v.ci_low.f};
    const double hi[3] = {v.ci_high.r, v.ci_high.p, v.ci_high.f};
    for (int q = 0; q < 3; ++q) {
      std::snprintf(buf, sizeof(buf), "%s %s Average_%s: %7.5f (%s%%-conf.int. %7.5f - %7.5f)\n",
                    peer_id.c_str(), v.name.c_str(), names[q], avg[q], conf.c_str(), lo[q], hi[q]);
      out += buf;
    }
    if (per_instance) {
      out += ".............................................\n";
      for (size_t i = 0; i < v.instances.size(); ++i) {
        const RougePRF& s = v.instances[i];
        std::snprintf(buf, sizeof(buf), "%s %s Eval %zu.%s R:%7.5f P:%7.5f F:%7.5f\n",
                      peer_id.c_str(), v.name.c_str(), i + 1, peer_id.c_str(), s.r, s.p, s.f);
        out += buf;
      }
    }
  }
  return out;
}

}  // namespace unieval::metrics
