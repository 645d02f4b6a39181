// ROUGE-1.5.5. Each routine names the subroutine of ROUGE-1.5.5.pl it mirrors.
#include "metrics/rouge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "metrics/core/io.h"
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
  if (!fs::exists(base / "WordNet-2.0-Exceptions") && fs::exists(base / "data" / "WordNet-2.0-Exceptions"))
    base /= "data";
  r.data_dir = base.string();
  fs::path exc = base / "WordNet-2.0-Exceptions";
  if (fs::exists(exc / "adj.exc")) {
    r.exceptions = text::WordNetExceptions::load_dir(exc.string());
    r.has_exceptions = true;
  } else if (require_exceptions) {
    throw InputError(exc.string(), 0,
                     "WordNet 2.0 exception lists (adj.exc, adv.exc, noun.exc, verb.exc) not found; "
                     "--rouge-data must name the ROUGE-1.5.5 data directory");
  }
  fs::path stop = base / "smart_common_words.txt";
  if (fs::exists(stop)) {
    std::string text = read_file(stop.string());
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
    if (*end != '\0' || !(w > 0)) throw InputError("-w: ROUGE-W weight factor must be a number > 0");
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
  s << "rouge155|n:" << max_n << "|l:" << (lcs ? 1 : 0) << "|w:" << (wlcs_weight.empty() ? "-" : wlcs_weight)
    << "|s:" << (skip_distance.empty() ? "-" : skip_distance)
    << "|u:" << (skip_both ? "U" : skip_unigram ? "1" : "0") << "|m:" << (stem ? 1 : 0)
    << "|exc:" << (stem ? (use_exceptions ? res.exceptions_tag() : std::string("none")) : std::string("-"))
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
class Vocabulary {
 public:
  Vocabulary(const Rouge155Options& opt, const RougeResources& res) : opt_(opt), res_(res) {}

  uint32_t id_of_raw(const std::string& raw) {
    auto it = raw_.find(raw);
    if (it != raw_.end()) return it->second;
    uint32_t id = map_raw(raw);
    raw_.emplace(raw, id);
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
    auto it = ids_.find(word);
    if (it != ids_.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(words_.size());
    words_.push_back(word);
    ids_.emplace(word, id);
    return id;
  }

  const Rouge155Options& opt_;
  const RougeResources& res_;
  std::unordered_map<std::string, uint32_t> raw_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> words_;
};

// A summary as the scoring routines see it.
struct Prepared {
  std::vector<uint32_t> tokens;                 // n-gram path (readText + createNGram)
  std::vector<std::vector<uint32_t>> sentences;  // LCS path (readText_LCS + tokenizeText_LCS)
};

void append_tokens(std::string_view text, Vocabulary& vocab, std::vector<uint32_t>& out) {
  // Maximal runs of ASCII letters/digits, lower-cased (rouge_tokenize.h), inlined for speed.
  std::string tok;
  size_t i = 0, n = text.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) {
      ++i;
      continue;
    }
    tok.clear();
    while (i < n) {
      c = static_cast<unsigned char>(text[i]);
      if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
      else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) break;
      tok.push_back(static_cast<char>(c));
      ++i;
    }
    uint32_t id = vocab.id_of_raw(tok);
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

Prepared prepare(const RougeSummary& summary, const Rouge155Options& opt, Vocabulary& vocab) {
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
        auto words = text::perl_split_ws(*s);
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
        auto words = text::perl_split_ws(*s);
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

// Sorted n-gram keys; n-grams compare as token sequences.
struct Grams {
  std::vector<uint64_t> keys;  // n <= 2: packed ids; otherwise indices into `seq`
  const std::vector<uint32_t>* seq = nullptr;
  int n = 1;
};

Grams make_ngrams(const std::vector<uint32_t>& t, int n) {
  Grams g;
  g.n = n;
  g.seq = &t;
  if (static_cast<long>(t.size()) - n + 1 <= 0) return g;
  size_t count = t.size() - n + 1;
  g.keys.resize(count);
  if (n == 1) {
    for (size_t i = 0; i < count; ++i) g.keys[i] = t[i];
    std::sort(g.keys.begin(), g.keys.end());
  } else if (n == 2) {
    for (size_t i = 0; i < count; ++i) g.keys[i] = (uint64_t(t[i]) << 32) | t[i + 1];
    std::sort(g.keys.begin(), g.keys.end());
  } else {
    for (size_t i = 0; i < count; ++i) g.keys[i] = i;
    std::sort(g.keys.begin(), g.keys.end(), [&](uint64_t a, uint64_t b) {
      return std::lexicographical_compare(t.begin() + a, t.begin() + a + n, t.begin() + b,
                                          t.begin() + b + n);
    });
  }
  return g;
}

// -1, 0, 1 comparing gram a of x with gram b of y.
int compare_gram(const Grams& x, size_t a, const Grams& y, size_t b) {
  if (x.n <= 2) return x.keys[a] < y.keys[b] ? -1 : x.keys[a] > y.keys[b] ? 1 : 0;
  const auto& s = *x.seq;
  const auto& t = *y.seq;
  for (int k = 0; k < x.n; ++k) {
    uint32_t u = s[x.keys[a] + k], v = t[y.keys[b] + k];
    if (u != v) return u < v ? -1 : 1;
  }
  return 0;
}

bool same_gram(const Grams& x, size_t a, size_t b) { return compare_gram(x, a, x, b) == 0; }

// ngramScore / skipBigramScore: sum over model grams of min(peer count, model count).
double clipped_hits(const Grams& model, const Grams& peer) {
  double hit = 0;
  size_t i = 0, j = 0;
  while (i < model.keys.size() && j < peer.keys.size()) {
    int c = compare_gram(model, i, peer, j);
    if (c < 0) {
      ++i;
    } else if (c > 0) {
      ++j;
    } else {
      size_t i2 = i + 1, j2 = j + 1;
      while (i2 < model.keys.size() && same_gram(model, i, i2)) ++i2;
      while (j2 < peer.keys.size() && same_gram(peer, j, j2)) ++j2;
      hit += static_cast<double>(std::min(i2 - i, j2 - j));
      i = i2;
      j = j2;
    }
  }
  return hit;
}

// computeNGramScore / computeSkipBigramScore with formulas A and B.
RougePRF gram_score(const Grams& peer, const std::vector<Grams>& models, const Rouge155Options& opt) {
  double total_hit = 0, total_count = 0, total_count_p = 0, best = -1;
  for (const Grams& m : models) {
    double hit = clipped_hits(m, peer);
    double mc = static_cast<double>(m.keys.size());
    double pc = static_cast<double>(peer.keys.size());
    if (opt.formula == 'B') {
      // ngramScore: sprintf("%07.5f", hit/count), 0 when the model has no n-gram.
      double score = mc != 0 ? round5(hit / mc) : 0.0;
      if (score > best) {
        best = score;
        total_hit = hit;
        total_count = mc;
        total_count_p = pc;
      }
    } else {
      total_hit += hit;
      total_count += mc;
      total_count_p += pc;
    }
  }
  return finish(total_hit, total_count, total_count_p, opt.alpha);
}

// createSkipBigram: for i < last index, optional unigram, then pairs (i, j) with
// j - i - 1 <= distance (distance < 0: unlimited).
Grams make_skip_grams(const std::vector<uint32_t>& t, long distance, bool unigram) {
  Grams g;
  g.n = 2;
  g.seq = &t;
  long n = static_cast<long>(t.size());
  for (long i = 0; i < n - 1; ++i) {
    if (unigram) g.keys.push_back(uint64_t(t[i]) << 32);  // second half 0: never a bigram
    for (long j = i + 1; j <= n - 1 && (distance < 0 || j <= i + distance + 1); ++j)
      g.keys.push_back((uint64_t(t[i]) << 32) | (uint64_t(t[j]) + 1));
  }
  std::sort(g.keys.begin(), g.keys.end());
  return g;
}

// Per-thread scratch space for the LCS routines.
struct Scratch {
  std::vector<int> model_budget, peer_budget;  // unigram budgets, indexed by token id
  std::vector<int> c;                          // LCS table
  std::vector<double> wc;                      // WLCS table
  std::vector<int> wl;                         // WLCS run lengths
  std::vector<char> mask;
};

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
      if (ri == p[j - 1]) row[j] = up[j - 1] + 1;
      else row[j] = up[j] >= row[j - 1] ? up[j] : row[j - 1];
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
RougePRF lcs_score(const Prepared& peer, const std::vector<Prepared>& models, const Rouge155Options& opt,
                   bool weighted, double weight, const std::vector<double>& pw, Scratch& s,
                   size_t instance) {
  double total_hit = 0, total_count = 0, total_count_p = 0, best = -1;
  const double peer_count = static_cast<double>(peer.tokens.size());
  for (size_t mi = 0; mi < models.size(); ++mi) {
    const Prepared& model = models[mi];
    set_budget(s.model_budget, model.tokens);
    set_budget(s.peer_budget, peer.tokens);  // renewed for every model
    double hit = 0, base = 0;
    for (const auto& r : model.sentences) {
      s.mask.assign(r.size(), 0);
      base += weighted ? std::pow(static_cast<double>(r.size()), weight) : static_cast<double>(r.size());
      for (const auto& p : peer.sentences) {
        if (weighted) mark_wlcs(r, p, pw, s);
        else mark_lcs(r, p, s);
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

// Perl >= 5.20's drand48: srand(s) sets X = (s << 16) + 0x330E; rand() = X / 2^48 after
// X = 0x5DEECE66D * X + 0xB (mod 2^48).
struct PerlRand {
  explicit PerlRand(uint32_t seed) : x((uint64_t(seed) << 16) + 0x330E) {}
  double next() {
    x = (0x5DEECE66DULL * x + 0xBULL) & ((1ULL << 48) - 1);
    return std::ldexp(static_cast<double>(x), -48);
  }
  uint64_t x;
};

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
    std::vector<double> acc(nv * 3);
    const double dn = static_cast<double>(n);
    for (size_t s = from; s < to; ++s) {
      double* out = &samples[s * nv * 3];
      if (n == 0) continue;
      std::fill(acc.begin(), acc.end(), 0.0);
      PerlRand rng(static_cast<uint32_t>(s));
      for (size_t i = 0; i < n; ++i) {
        size_t idx = static_cast<size_t>(dn * rng.next());
        const double* d = &vals[idx * nv * 3];
        for (size_t q = 0; q < nv * 3; ++q) acc[q] += d[q];
      }
      for (size_t q = 0; q < nv * 3; ++q) out[q] = acc[q] / dn;
    }
  };
  int threads = std::max(1, std::min<int>(opt.threads, static_cast<int>(R)));
  if (threads == 1) {
    run(0, R);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back(run, R * t / threads, R * (t + 1) / threads);
    for (auto& th : pool) th.join();
  }
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
      auto at = [&](long idx) { return idx >= 0 && idx < static_cast<long>(R) ? sorted[idx] : 0.0; };
      double avg = round5(sum / dR);
      double lo = round5(at(ci_la) + (at(ci_la + 1) - at(ci_la)) * ci_r);
      double hi = round5(at(ci_ua) + (at(ci_ua + 1) - at(ci_ua)) * ci_r);
      double* a = q == 0 ? &variants[v]->average.r : q == 1 ? &variants[v]->average.p : &variants[v]->average.f;
      double* l = q == 0 ? &variants[v]->ci_low.r : q == 1 ? &variants[v]->ci_low.p : &variants[v]->ci_low.f;
      double* h = q == 0 ? &variants[v]->ci_high.r : q == 1 ? &variants[v]->ci_high.p : &variants[v]->ci_high.f;
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
    throw InputError("-m needs the WordNet 2.0 exception lists of ROUGE-1.5.5 (pass --rouge-data DIR "
                     "or set UNIEVAL_ROUGE_DATA to the ROUGE-1.5.5 data directory; "
                     "--no-wordnet-exceptions stems without them)");
  if (opt.remove_stopwords && !res.has_stopwords)
    throw InputError("-s needs smart_common_words.txt (pass --rouge-data DIR or set UNIEVAL_ROUGE_DATA)");

  const size_t n = corpus.size();
  Vocabulary vocab(opt, res);
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
    for (size_t i = from; i < to; ++i) {
      const Prepared& peer = peers[i];
      for (size_t v = 0; v < specs.size(); ++v) {
        const Spec& sp = specs[v];
        RougePRF score;
        if (sp.kind == kN) {
          Grams pg = make_ngrams(peer.tokens, sp.n);
          std::vector<Grams> mg;
          for (const auto& m : models[i]) mg.push_back(make_ngrams(m.tokens, sp.n));
          score = gram_score(pg, mg, opt);
        } else if (sp.kind == kS) {
          Grams pg = make_skip_grams(peer.tokens, distance, sp.unigram);
          std::vector<Grams> mg;
          for (const auto& m : models[i]) mg.push_back(make_skip_grams(m.tokens, distance, sp.unigram));
          score = gram_score(pg, mg, opt);
        } else {
          score = lcs_score(peer, models[i], opt, sp.kind == kW, weight, pw, s, i);
        }
        result.variants[v].instances[i] = score;
      }
    }
  };
  int threads = std::max(1, std::min<int>(opt.threads, static_cast<int>(std::max<size_t>(n, 1))));
  if (threads == 1) {
    score_range(0, n);
  } else {
    std::vector<std::thread> pool;
    std::vector<std::exception_ptr> errors(threads);
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        try {
          score_range(n * t / threads, n * (t + 1) / threads);
        } catch (...) {
          errors[t] = std::current_exception();
        }
      });
    for (auto& th : pool) th.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }

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
        std::snprintf(buf, sizeof(buf), "%s %s Eval %zu.%s R:%7.5f P:%7.5f F:%7.5f\n", peer_id.c_str(),
                      v.name.c_str(), i + 1, peer_id.c_str(), s.r, s.p, s.f);
        out += buf;
      }
    }
  }
  return out;
}

}  // namespace unieval::metrics
