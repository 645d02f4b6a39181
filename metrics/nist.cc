// Follows mteval (no licence; behaviour only, no code taken) and NLTK (Apache-2.0) behaviour; no
// code copied; see THIRD_PARTY_NOTICES.md.
#include "metrics/nist.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/error.h"
#include "metrics/bleu_internal.h"
#include "metrics/ngram.h"

namespace unieval::metrics {

namespace {

constexpr int kMaxNgram = 9;  // mteval's $max_Ngram

// Corpus-wide n-gram index: gid (>= 1) of an n-gram = entry for the exact key
// (gid of its (n-1)-gram prefix) << 32 | last token; unigram keys have a zero high word.
// One open-addressing table whose slots hold key, gid and count together, so a lookup that
// also counts touches one cache line (the table is far larger than the caches).
class GlobalNgrams {
 public:
  GlobalNgrams() : slots_(1 << 16), prefix_(1, 0), flag_(1, 0) {}

  uint32_t find(uint64_t key) const {
    const Slot& s = slots_[probe(key)];
    return s.key == key ? s.gid : 0;
  }
  // Adds one occurrence; returns the gid.
  uint32_t add(uint64_t key, uint32_t prefix, bool flag) {
    Slot& s = slot_for(key, prefix, flag);
    s.count++;
    return s.gid;
  }
  // Registers the key with no occurrence (or returns its gid).
  uint32_t insert(uint64_t key, uint32_t prefix, bool flag) {
    return slot_for(key, prefix, flag).gid;
  }
  // Adds one occurrence of a registered key: its gid, or 0 (nothing counted) when absent.
  uint32_t bump(uint64_t key) {
    Slot& s = slots_[probe(key)];
    if (s.key != key) return 0;
    s.count++;
    return s.gid;
  }
  // Hints the cache line of key's home slot.
  void prefetch(uint64_t key) const { __builtin_prefetch(&slots_[mix(key) & (slots_.size() - 1)]); }
  // Occurrences by gid (index 0 unused).
  std::vector<uint32_t> counts() const {
    std::vector<uint32_t> c(size(), 0);
    for (const Slot& s : slots_)
      if (s.key != kEmpty) c[s.gid] = s.count;
    return c;
  }
  static uint64_t key(uint32_t prefix_gid, uint32_t tok) {
    return (static_cast<uint64_t>(prefix_gid) << 32) | tok;
  }
  uint32_t prefix(uint32_t gid) const { return prefix_[gid]; }
  bool flag(uint32_t gid) const { return flag_[gid] != 0; }
  size_t size() const { return prefix_.size(); }

 private:
  static constexpr uint64_t kEmpty = ~0ULL;
  struct Slot {
    uint64_t key = kEmpty;
    uint32_t gid = 0;
    uint32_t count = 0;
  };
  static size_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return static_cast<size_t>(x);
  }
  // The slot holding key, or the empty slot where it would go.
  size_t probe(uint64_t key) const {
    const size_t mask = slots_.size() - 1;
    size_t i = mix(key) & mask;
    while (slots_[i].key != key && slots_[i].key != kEmpty) i = (i + 1) & mask;
    return i;
  }
  Slot& slot_for(uint64_t key, uint32_t prefix, bool flag) {
    size_t i = probe(key);
    if (slots_[i].key == key) return slots_[i];
    slots_[i].key = key;
    slots_[i].gid = static_cast<uint32_t>(prefix_.size());
    prefix_.push_back(prefix);
    flag_.push_back(flag);
    if (prefix_.size() * 2 > slots_.size()) {
      grow();
      i = probe(key);
    }
    return slots_[i];
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, Slot());
    for (const Slot& s : old)
      if (s.key != kEmpty) slots_[probe(s.key)] = s;
  }
  std::vector<Slot> slots_;
  std::vector<uint32_t> prefix_;
  std::vector<uint8_t> flag_;
};

// Flat storage of many token-id sequences.
struct IdLines {
  std::vector<uint32_t> ids;
  std::vector<size_t> off{0};
  void push(const std::vector<uint32_t>& v) {
    ids.insert(ids.end(), v.begin(), v.end());
    off.push_back(ids.size());
  }
  IdSpan at(size_t i) const { return IdSpan(ids.data() + off[i], off[i + 1] - off[i]); }
  size_t size() const { return off.size() - 1; }
};

// gid of every hypothesis n-gram: gids[n-1][pos] (0 when the n-gram is not in the references).
void hyp_gids(IdSpan h, int max_n, const GlobalNgrams& g,
              std::vector<std::vector<uint32_t>>& gids) {
  gids.resize(max_n);
  for (int n = 1; n <= max_n; ++n) {
    auto& cur = gids[n - 1];
    cur.assign(h.size >= static_cast<size_t>(n) ? h.size - n + 1 : 0, 0);
    bool any = false;
    for (size_t p = 0; p < cur.size(); ++p) {
      uint32_t prev = n == 1 ? 0 : gids[n - 2][p];
      if (n > 1 && prev == 0) continue;
      cur[p] = g.find(GlobalNgrams::key(prev, h.data[p + n - 1]));
      any |= cur[p] != 0;
    }
    if (!any) {
      for (int m = n + 1; m <= max_n; ++m)
        gids[m - 1].assign(h.size >= static_cast<size_t>(m) ? h.size - m + 1 : 0, 0);
      break;
    }
  }
}

double nist_length_penalty(double ratio) {
  // mteval nist_length_penalty
  if (ratio >= 1) return 1;
  if (ratio <= 0) return 0;
  const double ratio_x = 1.5, score_x = 0.5;
  const double beta = -std::log(score_x) / std::log(ratio_x) / std::log(ratio_x);
  return std::exp(-beta * std::log(ratio) * std::log(ratio));
}

// Normalises and tokenises every segment into ids (mteval's NormalizeText + split); warns where
// every line of a stream is empty (DSTC7's placeholder segments).
void read_streams(const std::vector<std::string>& hyps,
                  const std::vector<std::vector<std::string>>& refs, const NistOptions& opts,
                  Vocabulary& vocab, IdLines& hyp, std::vector<IdLines>& ref, NistScore& out) {
  std::vector<uint32_t> buf;
  auto ids_of = [&](const std::string& line, IdLines& dst) {
    std::string txt = opts.dstc7_writer ? text::dstc7_xml_segment(line) : line;
    std::string norm = text::mteval_normalize(txt, opts.tokenization, opts.preserve_case);
    buf.clear();
    for (auto t : text::perl_split_ws(norm)) buf.push_back(vocab.id(t));
    dst.push(buf);
  };
  ref.resize(refs.size());
  bool all_hyp_empty = true;
  for (const auto& h : hyps) {
    ids_of(h, hyp);
    all_hyp_empty &= h.empty();
  }
  bool some_stream_empty = false;
  for (size_t k = 0; k < refs.size(); ++k) {
    bool all_empty = true;
    for (const auto& r : refs[k]) {
      ids_of(r, ref[k]);
      all_empty &= r.empty();
    }
    some_stream_empty |= all_empty;
  }
  if (hyps.empty()) throw InputError("NIST: the corpus has no segments");
  if (all_hyp_empty || some_stream_empty)
    out.warnings.push_back(
        "every line of the hypothesis or of a reference file is empty: DSTC7's XML writer + "
        "mteval abort on such input; scored with DSTC7's '__empty__' placeholder segments");
}

// What pass 1 gathers over the corpus (indices 1..kMaxNgram by n-gram order).
struct MtevalCounts {
  // Per gid: the order of its n-gram and its clipped matches summed over the segments (an
  // n-gram's information weight is corpus-wide, so its matches can be added up before weighting).
  std::vector<uint8_t> order = std::vector<uint8_t>(1, 0);
  std::vector<uint32_t> clipped = std::vector<uint32_t>(1, 0);
  std::vector<double> match = std::vector<double>(kMaxNgram + 1, 0);
  std::vector<double> tst_cnt = std::vector<double>(kMaxNgram + 1, 0);
  std::vector<double> ref_cnt = std::vector<double>(kMaxNgram + 1, 0);
  std::vector<double> tst_info = std::vector<double>(kMaxNgram + 1, 0);
  double cum_ref_length = 0;
};

// Counts the reference n-grams of one segment and returns mteval's brevity_penalty_closest
// reference length (the closest to the hypothesis length hl; the shorter on a tie).
int64_t segment_ref_length(const std::vector<IdLines>& ref, size_t i, int64_t hl,
                           std::vector<IdSpan>& spans, MtevalCounts& c) {
  spans.clear();
  int64_t ref_length = -1;
  for (size_t k = 0; k < ref.size(); ++k) {
    IdSpan r = ref[k].at(i);
    spans.push_back(r);
    int64_t len = static_cast<int64_t>(r.size);
    for (int j = 1; j <= kMaxNgram; ++j)
      c.ref_cnt[j] += len >= j ? static_cast<double>(len - j + 1) : 0.0;
    if (ref_length < 0) {
      ref_length = len;
    } else {  // brevity_penalty_closest
      int64_t dr = std::llabs(hl - len), dc = std::llabs(hl - ref_length);
      if (dr <= dc) {
        if (dr == dc) {
          if (ref_length > len) ref_length = len;
        } else {
          ref_length = len;
        }
      }
    }
  }
  return ref_length;
}

// Pass 1: registers in g every hypothesis n-gram that its segment's references match, with its
// clipped matches, and counts the lengths.
void collect_matches(const IdLines& hyp, const std::vector<IdLines>& ref, uint32_t zero_tok,
                     GlobalNgrams& g, MtevalCounts& c) {
  NgramClipper clip;
  std::vector<IdSpan> spans;
  std::vector<uint32_t> prev_gid, cur_gid;
  for (size_t i = 0; i < hyp.size(); ++i) {
    IdSpan h = hyp.at(i);
    const int64_t hl = static_cast<int64_t>(h.size);
    c.cum_ref_length += static_cast<double>(segment_ref_length(ref, i, hl, spans, c));
    for (int j = 1; j <= kMaxNgram; ++j)
      c.tst_cnt[j] += hl >= j ? static_cast<double>(hl - j + 1) : 0.0;
    clip.run(h, spans, kMaxNgram);
    prev_gid.assign(h.size, 0);
    for (int j = 1; j <= kMaxNgram; ++j) {
      const auto& grams = clip.grams(j);
      const auto& pos = clip.positions(j);
      bool any = false;
      cur_gid.assign(pos.size(), 0);
      for (size_t p = 0; p < pos.size(); ++p)  // prefetch the probes of this order
        if (grams[pos[p]].ref_max != 0)
          g.prefetch(GlobalNgrams::key(j == 1 ? 0 : prev_gid[p], h.data[p + j - 1]));
      for (size_t p = 0; p < pos.size(); ++p) {
        const auto& gr = grams[pos[p]];
        if (gr.ref_max == 0) continue;
        any = true;
        // The (j-1)-gram prefix at p is matched too, so prev_gid[p] is set for j > 1.
        bool quirk = j == 2 && h.data[p] == zero_tok;
        cur_gid[p] = g.insert(GlobalNgrams::key(j == 1 ? 0 : prev_gid[p], h.data[p + j - 1]),
                              j == 1 ? 0 : prev_gid[p], quirk);
        if (gr.start == p) {  // once per distinct n-gram
          uint32_t m = std::min(gr.hyp_count, gr.ref_max);
          const uint32_t gid = cur_gid[p];
          if (gid >= c.order.size()) {
            c.order.resize(g.size(), 0);
            c.clipped.resize(g.size(), 0);
          }
          c.order[gid] = static_cast<uint8_t>(j);
          c.clipped[gid] += m;
          c.match[j] += m;
        }
      }
      if (!any) break;
      prev_gid.swap(cur_gid);
    }
  }
}

// Pass 2 (compute_ngram_info restricted to the matched n-grams). The n-gram starting at s of
// order n is counted when its (n-1)-gram prefix at s was found. Taken order by order over a
// line (not start by start), the lookups of one order are independent, and each is
// prefetched before it is probed: the table is far larger than the caches. Returns the number of
// reference words.
double count_in_references(const std::vector<IdLines>& ref, GlobalNgrams& g) {
  double tot_wrds = 0;
  std::vector<uint32_t> prev_ids, cur_ids;
  for (const auto& rs : ref) {
    for (size_t i = 0; i < rs.size(); ++i) {
      IdSpan r = rs.at(i);
      tot_wrds += static_cast<double>(r.size);
      prev_ids.assign(r.size, 0);
      for (size_t n = 1; n <= static_cast<size_t>(kMaxNgram) && n <= r.size; ++n) {
        const size_t cnt = r.size - n + 1;
        cur_ids.assign(cnt, 0);
        // prev_ids is all 0 for n == 1: the unigram keys have prefix 0.
        for (size_t s = 0; s < cnt; ++s)
          if (n == 1 || prev_ids[s]) g.prefetch(GlobalNgrams::key(prev_ids[s], r.data[s + n - 1]));
        bool any = false;
        for (size_t s = 0; s < cnt; ++s) {
          if (n > 1 && prev_ids[s] == 0) continue;  // its prefix is not counted: neither is it
          cur_ids[s] = g.bump(GlobalNgrams::key(prev_ids[s], r.data[s + n - 1]));
          any |= cur_ids[s] != 0;
        }
        if (!any) break;
        prev_ids.swap(cur_ids);
      }
    }
  }
  return tot_wrds;
}

// Weights each matched n-gram by its information (compute_ngram_info) into c.tst_info.
void weigh_matches(const GlobalNgrams& g, double tot_wrds, MtevalCounts& c) {
  const std::vector<uint32_t> count = g.counts();
  std::vector<double> info(g.size(), 0.0);
  for (uint32_t gid = 1; gid < g.size(); ++gid) {
    uint32_t p = g.prefix(gid);
    // Perl: `$mgram ? count/count(mgram) : count/tot_wrds`; the mgram "0" is false.
    double ratio = (p != 0 && !g.flag(gid)) ? static_cast<double>(count[gid]) / count[p]
                                            : static_cast<double>(count[gid]) / tot_wrds;
    info[gid] = -std::log(ratio) / std::log(2.0);
  }
  for (uint32_t gid = 1; gid < c.clipped.size(); ++gid)
    if (c.clipped[gid]) c.tst_info[c.order[gid]] += info[gid] * c.clipped[gid];
}

// mteval's nist_score and bleu_score (with its smoothing) from the corpus counts.
void nist_and_bleu_scores(const MtevalCounts& c, double nsys, NistScore& out) {
  double lp;
  if (c.ref_cnt[1] == 0) {
    out.warnings.push_back(
        "the references have no words: mteval divides by zero here; "
        "length penalty taken as " +
        std::string(c.tst_cnt[1] > 0 ? "1" : "0"));
    lp = c.tst_cnt[1] > 0 ? 1.0 : 0.0;
  } else {
    lp = nist_length_penalty(c.tst_cnt[1] / (c.ref_cnt[1] / nsys));
  }
  double score = 0;
  for (int n = 1; n <= kMaxNgram; ++n) {
    double iscore = c.tst_info[n] / std::max(c.tst_cnt[n], 1.0);
    score += iscore;
    out.nist_cum.push_back(score * lp);
    out.nist_ind.push_back(iscore * lp);
  }
  double exp_len_score = 0;
  if (c.tst_cnt[1] > 0)
    exp_len_score = std::exp(std::min(0.0, 1 - c.cum_ref_length / c.tst_cnt[1]));
  double smooth = 1, bscore = 0;
  for (int j = 1; j <= kMaxNgram; ++j) {
    double iscore;
    if (c.tst_cnt[j] == 0) {
      iscore = 0;
    } else if (c.match[j] == 0) {
      smooth *= 2;
      iscore = std::log(1 / (smooth * c.tst_cnt[j]));
    } else {
      iscore = std::log(c.match[j] / c.tst_cnt[j]);
    }
    out.bleu_ind.push_back(std::exp(iscore));
    bscore += iscore;
    out.bleu_cum.push_back(std::exp(bscore / j) * exp_len_score);
  }
}

}  // namespace

NistScore mteval_nist(const std::vector<std::string>& hyps,
                      const std::vector<std::vector<std::string>>& refs, const NistOptions& opts) {
  internal::check_streams(hyps.size(), refs);
  NistScore out;
  Vocabulary vocab;
  IdLines hyp;
  std::vector<IdLines> ref;
  read_streams(hyps, refs, opts, vocab, hyp, ref, out);
  // Only the reference counts of n-grams that some hypothesis matches (and of their prefixes,
  // which are matched too) enter the score, so those are the only ones counted: pass 1 collects
  // the matched n-grams of every segment, pass 2 counts them (and nothing else) in the
  // references. Same numbers as mteval's compute_ngram_info over all n-grams, far less memory.
  GlobalNgrams g;
  MtevalCounts c;
  collect_matches(hyp, ref, vocab.find("0"), g, c);
  weigh_matches(g, count_in_references(ref, g), c);
  nist_and_bleu_scores(c, static_cast<double>(ref.size()), out);
  return out;
}

// ---- NLTK corpus_nist -----------------------------------------------------------------------

NltkNistScore nltk_corpus_nist(const std::vector<std::vector<std::string>>& hyps,
                               const std::vector<std::vector<std::vector<std::string>>>& refs,
                               int n) {
  if (hyps.size() != refs.size())
    throw InputError("NLTK NIST: hypotheses and reference lists differ in number");
  if (n < 1) throw InputError("NLTK NIST: n must be >= 1");
  Vocabulary vocab;
  IdLines hyp;
  std::vector<std::vector<std::vector<uint32_t>>> ref(refs.size());
  for (const auto& h : hyps) hyp.push(vocab.ids(h));
  for (size_t i = 0; i < refs.size(); ++i)
    for (const auto& r : refs[i]) ref[i].push_back(vocab.ids(r));
  GlobalNgrams g;
  double total_ref_words = 0;
  for (const auto& rs : ref)
    for (const auto& r : rs) {
      total_ref_words += static_cast<double>(r.size());
      for (size_t s = 0; s < r.size(); ++s) {
        uint32_t prev = 0;
        for (size_t m = 1; m <= static_cast<size_t>(n) && s + m <= r.size(); ++m)
          prev = g.add(GlobalNgrams::key(prev, r[s + m - 1]), prev, false);
      }
    }
  const std::vector<uint32_t> count = g.counts();
  std::vector<double> info(g.size(), 0.0);
  for (uint32_t gid = 1; gid < g.size(); ++gid) {
    uint32_t p = g.prefix(gid);
    double numerator = p != 0 ? static_cast<double>(count[p]) : total_ref_words;
    info[gid] = std::log(numerator / count[gid]) / std::log(2.0);  // math.log(x, 2)
  }
  std::vector<double> num(n + 1, 0), den(n + 1, 0);
  double l_ref = 0, l_sys = 0;
  NgramClipper clip;
  std::vector<std::vector<uint32_t>> gids;
  for (size_t i = 0; i < hyp.size(); ++i) {
    IdSpan h = hyp.at(i);
    hyp_gids(h, n, g, gids);
    // Per reference and order: (precision, numerator, denominator, ref_len).
    std::vector<std::vector<std::tuple<double, double, double, double>>> per_order(n + 1);
    for (const auto& r : ref[i]) {
      clip.run(h, std::vector<IdSpan>{IdSpan(r)}, n);
      for (int j = 1; j <= n; ++j) {
        double numerator = 0;
        for (const auto& gr : clip.grams(j)) {
          if (gr.ref_max == 0) continue;
          numerator += info[gids[j - 1][gr.start]] * std::min(gr.hyp_count, gr.ref_max);
        }
        double denominator = static_cast<double>(clip.hyp_total(j));
        double precision = denominator == 0 ? 0 : numerator / denominator;
        per_order[j].emplace_back(precision, numerator, denominator, static_cast<double>(r.size()));
      }
    }
    for (int j = 1; j <= n; ++j) {
      if (per_order[j].empty()) throw InputError("NLTK NIST: a segment has no reference");
      auto best = *std::max_element(per_order[j].begin(), per_order[j].end());
      num[j] += std::get<1>(best);
      den[j] += std::get<2>(best);
      l_ref += std::get<3>(best);
      l_sys += static_cast<double>(h.size);
    }
  }
  NltkNistScore out;
  double nist_precision = 0;
  bool zero_div = false;
  for (int j = 1; j <= n; ++j) {
    if (den[j] == 0) {
      zero_div = true;
      continue;
    }
    nist_precision += num[j] / den[j];
  }
  double lp;
  if (l_ref == 0) {
    zero_div = true;
    lp = 0;
  } else {
    double ratio = l_sys / l_ref;
    if (0 < ratio && ratio < 1) {
      const double ratio_x = 1.5, score_x = 0.5;
      const double beta = std::log(score_x) / std::pow(std::log(ratio_x), 2);
      lp = std::exp(beta * std::pow(std::log(ratio), 2));
    } else {
      lp = std::max(std::min(ratio, 1.0), 0.0);
    }
  }
  if (zero_div)
    out.warning =
        "NLTK corpus_nist raises ZeroDivisionError here (an order without hypothesis "
        "n-grams, or no reference words); such orders count 0";
  out.score = nist_precision * lp;
  return out;
}

}  // namespace unieval::metrics
