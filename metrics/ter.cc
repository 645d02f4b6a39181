// Follows sacreBLEU (Apache-2.0) TER behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "metrics/ter.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/parallel.h"
#include "core/py_string.h"
#include "core/utf8.h"
#include "metrics/text/py_lower.h"
#include "metrics/token_interner.h"

namespace unieval::metrics {

std::string TerOptions::signature(int nrefs) const {
  return "nrefs:" + std::to_string(nrefs) + (case_sensitive ? "|case:mixed" : "|case:lc") +
         "|tok:tercom" + (normalized ? "|norm:yes" : "|norm:no") +
         (no_punct ? "|punct:no" : "|punct:yes") + (asian_support ? "|asian:yes" : "|asian:no") +
         "|version:2.6.0";
}

// ---- tokenisation (TercomTokenizer) ---------------------------------------------------------

namespace {

bool is_digit(char32_t c) { return c >= U'0' && c <= U'9'; }

// The ASCII class Tercom's western normalisation pads with spaces: { | } ~ [ \ ] ^ _ ` space ! " #
// $ % & ( ) * + : ; < = > ? @ / (the apostrophe, comma, hyphen and period are handled apart).
bool is_split_punct(char32_t c) {
  return (c >= 0x7B && c <= 0x7E) || (c >= 0x5B && c <= 0x60) || (c >= 0x20 && c <= 0x26) ||
         (c >= 0x28 && c <= 0x2B) || (c >= 0x3A && c <= 0x40) || c == U'/';
}

// TercomTokenizer.ASIAN_PUNCT and FULL_WIDTH_PUNCT.
bool is_asian_punct(char32_t c) {
  return c == 0x3001 || c == 0x3002 || (c >= 0x3008 && c <= 0x3011) ||
         (c >= 0x3014 && c <= 0x301F) || (c >= 0xFF61 && c <= 0xFF65) || c == 0x30FB;
}
bool is_full_width_punct(char32_t c) {
  switch (c) {
    case 0xFF0E:
    case 0xFF0C:
    case 0xFF1F:
    case 0xFF1A:
    case 0xFF1B:
    case 0xFF01:
    case 0xFF02:
    case 0xFF08:
    case 0xFF09:
      return true;
    default:
      return false;
  }
}

// Characters the Asian normalisation makes tokens of their own: CJK ideographs (and extension A),
// strokes, radicals, compatibility blocks and forms, enclosed letters up to U+3F22, and the two
// punctuation sets. (Its Hiragana/Katakana rules anchor at the start of a text that begins with
// the padding space, so they never apply.)
bool is_asian_split(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x31C0 && c <= 0x31EF) || (c >= 0x2E80 && c <= 0x2EFF) ||
         (c >= 0x3300 && c <= 0x33FF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0x3200 && c <= 0x3F22) || is_asian_punct(c) ||
         is_full_width_punct(c);
}

bool is_removed_punct(char32_t c) {
  switch (c) {
    case U'.':
    case U',':
    case U'?':
    case U':':
    case U';':
    case U'!':
    case U'"':
    case U'(':
    case U')':
      return true;
    default:
      return false;
  }
}

// Tercom's general and western normalisation (_normalize_general_and_western), in its order.
std::u32string normalize_western(std::u32string s) {
  core::py_replace_in(s, U"\n-", U"");
  core::py_replace_in(s, U"\n", U" ");
  core::py_replace_in(s, U"&quot;", U"\"");
  core::py_replace_in(s, U"&amp;", U"&");
  core::py_replace_in(s, U"&lt;", U"<");
  core::py_replace_in(s, U"&gt;", U">");
  std::u32string t;
  t.reserve(s.size() * 2 + 2);
  t += U' ';
  for (char32_t c : s) {
    if (is_split_punct(c)) {
      t += U' ';
      t += c;
      t += U' ';
    } else {
      t += c;
    }
  }
  t += U' ';
  // Possessive 's before a space. (The end-of-text form cannot match: the text ends with the
  // padding space.)
  core::py_replace_in(t, U"'s ", U" 's ");
  // Each rule is a two-character pattern replaced left to right without overlap, as re.sub does.
  std::u32string u;
  u.reserve(t.size() * 2);
  for (size_t i = 0; i < t.size();) {  // period/comma after a non-digit: "x." -> "x . "
    if (i + 1 < t.size() && !is_digit(t[i]) && (t[i + 1] == U'.' || t[i + 1] == U',')) {
      u += t[i];
      u += U' ';
      u += t[i + 1];
      u += U' ';
      i += 2;
    } else {
      u += t[i++];
    }
  }
  t.clear();
  for (size_t i = 0; i < u.size();) {  // period/comma before a non-digit: ".x" -> " . x"
    if (i + 1 < u.size() && (u[i] == U'.' || u[i] == U',') && !is_digit(u[i + 1])) {
      t += U' ';
      t += u[i];
      t += U' ';
      t += u[i + 1];
      i += 2;
    } else {
      t += u[i++];
    }
  }
  u.clear();
  for (size_t i = 0; i < t.size();) {  // hyphen after a digit: "3-" -> "3 - "
    if (i + 1 < t.size() && is_digit(t[i]) && t[i + 1] == U'-') {
      u += t[i];
      u += U" - ";
      i += 2;
    } else {
      u += t[i++];
    }
  }
  return u;
}

}  // namespace

std::vector<std::string> ter_tokenize(std::string_view line, const TerOptions& o) {
  return tercom_tokens(core::py_rstrip(line), o);
}

std::string tercom_tokenize(std::string_view sent, const TerOptions& o) {
  std::string out;
  for (const auto& tok : tercom_tokens(sent, o)) {
    if (!out.empty()) out += ' ';
    out += tok;
  }
  return out;
}

std::vector<std::string> tercom_tokens(std::string_view s, const TerOptions& o) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  std::string lowered;
  if (!o.case_sensitive) {
    lowered = text::py_lower(s);
    s = lowered;
  }
  if (!o.normalized && !o.no_punct) {
    for (auto tok : core::py_split(s)) out.emplace_back(tok);
    return out;
  }
  std::u32string u;
  u.reserve(s.size());
  for (size_t i = 0; i < s.size();) u += core::next_code_point(s, i);
  if (o.normalized) {
    u = normalize_western(std::move(u));
    if (o.asian_support) {
      std::u32string t;
      t.reserve(u.size() * 2);
      for (char32_t c : u) {
        if (is_asian_split(c)) {
          t += U' ';
          t += c;
          t += U' ';
        } else {
          t += c;
        }
      }
      u = std::move(t);
    }
  }
  if (o.no_punct) {
    u.erase(
        std::remove_if(u.begin(), u.end(),
                       [&](char32_t c) {
                         return is_removed_punct(c) ||
                                (o.asian_support && (is_asian_punct(c) || is_full_width_punct(c)));
                       }),
        u.end());
  }
  std::string cur;
  bool in_token = false;
  for (char32_t c : u) {
    if (core::is_py_space(c)) {
      if (in_token) out.push_back(std::move(cur));
      cur.clear();
      in_token = false;
    } else {
      core::append_utf8(cur, c);
      in_token = true;
    }
  }
  if (in_token) out.push_back(std::move(cur));
  return out;
}

// ---- edit distance and shifts (lib_ter) -----------------------------------------------------

namespace {

constexpr int kBeamWidth = 25;        // band half-width around the pseudo-diagonal
constexpr int kMaxShiftSize = 10;     // longest span moved
constexpr int kMaxShiftDist = 50;     // farthest reference start from the hypothesis start
constexpr int kMaxCandidates = 1000;  // shift candidates evaluated per segment
constexpr int32_t kInf = 1 << 29;     // cells outside the band (sums of it stay below INT32_MAX)

// Edit operations of the hypothesis-to-reference matrix: match, substitution, reference word
// inserted (left), hypothesis word deleted (up).
enum : uint8_t { kNop, kSub, kIns, kDel, kUndef };

// One segment against one reference. Buffers are kept between calls (one searcher per worker).
class TerSearcher {
 public:
  TerEdits run(const std::vector<uint32_t>& hyp, const std::vector<uint32_t>& ref);

 private:
  int base_distance();  // full matrix of words_ with operations; fills align_ and the error sums
  // Cost only of cand_, equal to words_ before `prefix` and from `suffix` on: rows prefix..suffix
  // computed, joined to the base's cost-to-go at row `suffix`.
  int32_t shifted_distance(int prefix, int suffix);
  void cost_to_go();  // togo_ of words_
  void compute_row(const int32_t* prev, int32_t* row, uint8_t* ops, const uint32_t* words, int i);
  void make_shift(int start, int len, int target);  // cand_ = words_ with the span moved

  const uint32_t* ref_ = nullptr;
  int nh_ = 0, nr_ = 0;
  std::vector<int> lo_, hi_;   // band of each row: columns [lo, hi)
  std::vector<int32_t> cost_;  // (nh+1) x (nr+1), the base matrix
  std::vector<int32_t> togo_;  // (nh+1) x (nr+1): cheapest band path from a cell to the end
  std::vector<uint8_t> ops_;
  std::vector<int32_t> roll_[2];  // rolling rows of a candidate
  int roll_lo_[2] = {0, 0}, roll_hi_[2] = {0, 0};
  std::vector<uint32_t> words_, cand_;
  std::vector<uint8_t> trace_;
  std::vector<int> align_;              // reference position -> aligned hypothesis position (or -1)
  std::vector<int> hyp_err_, ref_err_;  // prefix sums of the error flags
  // Gains of the candidates of the current span start, by (length, target): other reference
  // starts often propose the same move again (it still counts as a candidate, as in sacreBLEU).
  std::vector<int32_t> memo_gain_;
  std::vector<uint32_t> memo_stamp_;
  uint32_t stamp_ = 0;
};

// Row i of the band-limited Levenshtein matrix from row i-1 (BeamEditDistance._edit_distance):
// cells outside [lo_[i], hi_[i]) stay as they are (kInf); ties go to match/substitution, then
// deletion of the hypothesis word, then insertion of the reference word.
inline void TerSearcher::compute_row(const int32_t* prev, int32_t* row, uint8_t* ops,
                                     const uint32_t* words, int i) {
  int j = lo_[i];
  const int hi = hi_[i];
  const uint32_t w = words[i - 1];
  if (j == 0) {
    row[0] = prev[0] + 1;
    if (ops) ops[0] = kDel;
    j = 1;
  }
  for (; j < hi; ++j) {
    const bool same = ref_[j - 1] == w;
    int32_t best = kInf;
    uint8_t op = kUndef;
    int32_t d = prev[j - 1] + (same ? 0 : 1);
    if (d < best) {
      best = d;
      op = same ? kNop : kSub;
    }
    d = prev[j] + 1;
    if (d < best) {
      best = d;
      op = kDel;
    }
    d = row[j - 1] + 1;
    if (d < best) {
      best = d;
      op = kIns;
    }
    row[j] = best;
    if (ops) ops[j] = op;
  }
}

int TerSearcher::base_distance() {
  const int w = nr_ + 1;
  cost_.assign(static_cast<size_t>(nh_ + 1) * w, kInf);
  ops_.assign(static_cast<size_t>(nh_ + 1) * w, kUndef);
  for (int j = 0; j <= nr_; ++j) {
    cost_[j] = j;
    ops_[j] = kIns;
  }
  for (int i = 1; i <= nh_; ++i)
    compute_row(&cost_[(i - 1) * w], &cost_[i * w], &ops_[i * w], words_.data(), i);
  // Backtrace, then the alignment seen from the reference (lib_ter.trace_to_alignment on the
  // flipped trace): a deleted hypothesis word is a hypothesis error, an inserted reference word
  // a reference error aligned to the hypothesis position before it.
  trace_.clear();
  for (int i = nh_, j = nr_; i > 0 || j > 0;) {
    uint8_t op = ops_[i * w + j];
    trace_.push_back(op);
    if (op == kNop || op == kSub) {
      --i;
      --j;
    } else if (op == kIns) {
      --j;
    } else if (op == kDel) {
      --i;
    } else {
      throw std::logic_error("TER: undefined edit operation in the trace");
    }
  }
  align_.assign(nr_, -1);
  hyp_err_.assign(nh_ + 1, 0);
  ref_err_.assign(nr_ + 1, 0);
  int ph = -1, pr = -1;
  for (auto it = trace_.rbegin(); it != trace_.rend(); ++it) {
    switch (*it) {
      case kNop:
      case kSub: {
        const int e = *it == kSub;
        ++ph;
        ++pr;
        align_[pr] = ph;
        hyp_err_[ph + 1] = hyp_err_[ph] + e;
        ref_err_[pr + 1] = ref_err_[pr] + e;
        break;
      }
      case kDel:
        ++ph;
        hyp_err_[ph + 1] = hyp_err_[ph] + 1;
        break;
      default:  // kIns
        ++pr;
        align_[pr] = ph;
        ref_err_[pr + 1] = ref_err_[pr] + 1;
        break;
    }
  }
  return cost_[static_cast<size_t>(nh_) * w + nr_];
}

// The band-limited matrix is a shortest-path problem over the band's cells (moves right, down
// and diagonal), so the distance is min over the cells of any row of (cost to reach the cell +
// cost from it to the end). A shifted candidate differs from the base only in rows
// prefix+1..suffix: its rows are computed up to `suffix` and joined there to the base's
// cost-to-go, which depends only on the words from `suffix` on.
void TerSearcher::cost_to_go() {
  const int w = nr_ + 1;
  togo_.assign(static_cast<size_t>(nh_ + 1) * w, kInf);
  auto in_band = [&](int i, int j) { return i == 0 ? j <= nr_ : (j >= lo_[i] && j < hi_[i]); };
  for (int i = nh_; i >= 0; --i) {
    int32_t* g = &togo_[static_cast<size_t>(i) * w];
    const int32_t* below = i < nh_ ? g + w : nullptr;
    const int lo = i == 0 ? 0 : lo_[i], hi = i == 0 ? nr_ + 1 : hi_[i];
    for (int j = hi - 1; j >= lo; --j) {
      int32_t best = (i == nh_ && j == nr_) ? 0 : kInf;
      if (below) {
        if (j < nr_ && in_band(i + 1, j + 1))
          best = std::min(best, below[j + 1] + (words_[i] == ref_[j] ? 0 : 1));
        if (in_band(i + 1, j)) best = std::min(best, below[j] + 1);
      }
      if (j < nr_ && j + 1 < hi) best = std::min(best, g[j + 1] + 1);
      g[j] = std::min(best, kInf);
    }
  }
}

int32_t TerSearcher::shifted_distance(int prefix, int suffix) {
  const int w = nr_ + 1;
  if (prefix >= suffix) return cost_[static_cast<size_t>(nh_) * w + nr_];
  const int32_t* prev = &cost_[static_cast<size_t>(prefix) * w];
  for (int i = prefix + 1; i <= suffix; ++i) {
    const int b = i & 1;
    int32_t* row = roll_[b].data();
    std::fill(row + roll_lo_[b], row + roll_hi_[b], kInf);
    compute_row(prev, row, nullptr, cand_.data(), i);
    roll_lo_[b] = lo_[i];
    roll_hi_[b] = hi_[i];
    prev = row;
  }
  const int32_t* g = &togo_[static_cast<size_t>(suffix) * w];
  int32_t best = kInf;
  for (int j = lo_[suffix]; j < hi_[suffix]; ++j) best = std::min(best, prev[j] + g[j]);
  return best;
}

// lib_ter._perform_shift, including its third case (a target inside or just after the span
// moves the span `len` words further on).
void TerSearcher::make_shift(int start, int len, int target) {
  const auto* w = words_.data();
  uint32_t* out = cand_.data();
  auto put = [&](int b, int e) {
    e = std::min(e, nh_);
    if (b < e) out = std::copy(w + b, w + e, out);
  };
  if (target < start) {
    put(0, target);
    put(start, start + len);
    put(target, start);
    put(start + len, nh_);
  } else if (target > start + len) {
    put(0, start);
    put(start + len, target);
    put(start, start + len);
    put(target, nh_);
  } else {
    put(0, start);
    put(start + len, len + target);
    put(start, start + len);
    put(len + target, nh_);
  }
}

TerEdits TerSearcher::run(const std::vector<uint32_t>& hyp, const std::vector<uint32_t>& ref) {
  nh_ = static_cast<int>(hyp.size());
  nr_ = static_cast<int>(ref.size());
  if (nr_ == 0) return {nh_, 0};
  ref_ = ref.data();
  lo_.assign(nh_ + 1, 0);
  hi_.assign(nh_ + 1, nr_ + 1);
  if (nh_ > 0) {
    const double ratio = static_cast<double>(nr_) / nh_;
    const int beam =
        kBeamWidth < ratio / 2 ? static_cast<int>(std::ceil(ratio / 2 + kBeamWidth)) : kBeamWidth;
    for (int i = 1; i <= nh_; ++i) {
      const int diag = static_cast<int>(std::floor(i * ratio));
      lo_[i] = std::max(0, diag - beam);
      hi_[i] = i == nh_ ? nr_ + 1 : std::min(nr_ + 1, diag + beam);
    }
  }
  for (auto& r : roll_) r.assign(nr_ + 1, kInf);
  roll_lo_[0] = roll_lo_[1] = roll_hi_[0] = roll_hi_[1] = 0;
  words_ = hyp;
  cand_.resize(nh_);
  memo_gain_.resize(static_cast<size_t>(kMaxShiftSize + 1) * (nh_ + 1));
  memo_stamp_.assign(memo_gain_.size(), 0);
  stamp_ = 0;
  const uint32_t* h = nullptr;
  int64_t shifts = 0;
  int checked = 0;
  int32_t distance = 0;
  for (;;) {
    distance = base_distance();
    cost_to_go();
    h = words_.data();
    // Best candidate: (gain, length, -start, -target), compared as sacreBLEU's tuples.
    bool have = false;
    int best_gain = 0, best_len = 0, best_start = 0, best_target = 0;
    for (int sh = 0; sh < nh_ && checked < kMaxCandidates; ++sh) {
      ++stamp_;
      const int r_lo = std::max(0, sh - kMaxShiftDist),
                r_hi = std::min(nr_, sh + kMaxShiftDist + 1);
      bool stop = false;
      for (int sr = r_lo; sr < r_hi && !stop; ++sr) {
        for (int len = 1; len <= kMaxShiftSize && h[sh + len - 1] == ref_[sr + len - 1]; ++len) {
          // A span is worth moving only when both it and the reference span hold an error and the
          // span is not already aligned into that reference span.
          const bool consumed = sh + len == nh_ || sr + len == nr_;
          if (hyp_err_[sh + len] - hyp_err_[sh] != 0 && ref_err_[sr + len] - ref_err_[sr] != 0 &&
              !(sh <= align_[sr] && align_[sr] < sh + len)) {
            int prev_target = -1;
            for (int off = -1; off < len; ++off) {
              const int target = sr + off == -1 ? 0 : align_[sr + off] + 1;
              if (target == prev_target) continue;
              prev_target = target;
              const size_t key = static_cast<size_t>(len) * (nh_ + 1) + target;
              int gain;
              if (memo_stamp_[key] == stamp_) {
                gain = memo_gain_[key];
              } else {
                make_shift(sh, len, target);
                int prefix = 0, suffix = nh_;
                while (prefix < nh_ && cand_[prefix] == h[prefix]) ++prefix;
                while (suffix > prefix && cand_[suffix - 1] == h[suffix - 1]) --suffix;
                gain = distance - shifted_distance(prefix, suffix);
                memo_stamp_[key] = stamp_;
                memo_gain_[key] = gain;
              }
              ++checked;
              if (!have || gain > best_gain ||
                  (gain == best_gain &&
                   (len > best_len ||
                    (len == best_len &&
                     (sh < best_start || (sh == best_start && target < best_target)))))) {
                have = true;
                best_gain = gain;
                best_len = len;
                best_start = sh;
                best_target = target;
              }
            }
            if (checked >= kMaxCandidates) {
              stop = true;
              break;
            }
          }
          if (consumed) break;
        }
      }
    }
    if (checked >= kMaxCandidates) break;
    if (!have || best_gain <= 0) break;
    ++shifts;
    make_shift(best_start, best_len, best_target);
    words_.swap(cand_);
    cand_.resize(nh_);
  }
  return {shifts + distance, nr_};
}

// Per segment: [fewest edits over the references, average reference length].
void segment_stats(const std::vector<std::string>& hyps,
                   const std::vector<std::vector<std::string>>& refs, const TerOptions& o,
                   std::vector<std::vector<double>>& out) {
  const size_t n = hyps.size();
  if (refs.empty()) throw std::invalid_argument("TER: no reference stream");
  for (const auto& stream : refs)
    if (stream.size() != n)
      throw std::invalid_argument("TER: reference stream and hypotheses differ in length");
  out.assign(n, std::vector<double>(2, 0.0));
  const int threads = core::resolve_threads(o.threads);
  std::vector<TerSearcher> searchers(static_cast<size_t>(std::max(threads, 1)));
  std::vector<TokenInterner> vocabs(searchers.size());
  core::parallel_chunks(n, threads, 16, [&](size_t b, size_t e, int worker) {
    TerSearcher& search = searchers[static_cast<size_t>(worker)];
    TokenInterner& vocab = vocabs[static_cast<size_t>(worker)];
    std::vector<uint32_t> hyp_ids, ref_ids;
    std::string lowered;
    auto ids_of = [&](const std::string& line, std::vector<uint32_t>& ids) {
      ids.clear();
      if (!o.normalized && !o.no_punct) {  // plain split (rstrip changes nothing): no token copies
        std::string_view text = line;
        if (!o.case_sensitive) text = lowered = text::py_lower(line);
        for (auto tok : core::py_split(text)) ids.push_back(vocab.intern(tok));
        return;
      }
      for (const auto& tok : ter_tokenize(line, o)) ids.push_back(vocab.intern(tok));
    };
    for (size_t i = b; i < e; ++i) {
      ids_of(hyps[i], hyp_ids);
      int64_t best = int64_t{10000000000000000};
      int64_t lengths = 0;
      for (const auto& stream : refs) {
        ids_of(stream[i], ref_ids);
        TerEdits t = search.run(hyp_ids, ref_ids);
        lengths += t.ref_length;
        best = std::min(best, t.edits);
      }
      out[i][0] = static_cast<double>(best);
      out[i][1] = static_cast<double>(lengths) / static_cast<double>(refs.size());
    }
  });
}

}  // namespace

TerEdits translation_edit_rate(const std::vector<uint32_t>& hyp, const std::vector<uint32_t>& ref) {
  TerSearcher s;
  return s.run(hyp, ref);
}

double ter_from_stats(const std::vector<double>& st) {
  if (st.size() < 2) throw std::out_of_range("ter_from_stats: expected [edits, length]");
  return ter_from_stats(st.data());
}

double ter_from_stats(const double* st, bool float32_ratio) {
  const double edits = st[0], length = st[1];
  double rate;
  if (length > 0)
    rate = float32_ratio
               ? static_cast<double>(static_cast<float>(edits) / static_cast<float>(length))
               : edits / length;
  else if (edits > 0)
    rate = 1.0;  // empty references, non-empty hypotheses
  else
    rate = 0.0;
  return 100 * rate;
}

std::vector<std::vector<double>> ter_segment_stats(
    const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
    const TerOptions& opts) {
  std::vector<std::vector<double>> out;
  segment_stats(hyps, refs, opts, out);
  return out;
}

TerScore corpus_ter(const std::vector<std::string>& hyps,
                    const std::vector<std::vector<std::string>>& refs, const TerOptions& opts) {
  std::vector<std::vector<double>> rows;
  segment_stats(hyps, refs, opts, rows);
  TerScore s;
  for (const auto& r : rows) {  // summed in segment order, as sacreBLEU's sum_of_lists
    s.num_edits += r[0];
    s.ref_length += r[1];
  }
  s.score = ter_from_stats({s.num_edits, s.ref_length});
  s.signature = opts.signature(static_cast<int>(refs.size()));
  return s;
}

std::vector<TerScore> sentence_ter(const std::vector<std::string>& hyps,
                                   const std::vector<std::vector<std::string>>& refs,
                                   const TerOptions& opts) {
  std::vector<std::vector<double>> rows;
  segment_stats(hyps, refs, opts, rows);
  std::vector<TerScore> out(rows.size());
  const std::string sig = opts.signature(static_cast<int>(refs.size()));
  for (size_t i = 0; i < rows.size(); ++i) {
    out[i].num_edits = rows[i][0];
    out[i].ref_length = rows[i][1];
    out[i].score = ter_from_stats(rows[i]);
    out[i].signature = sig;
  }
  return out;
}

}  // namespace unieval::metrics
