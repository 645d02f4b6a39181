// family_bleu.cc: the BLEU family of the metric protocol (metrics/protocol.h): bleu, chrf,
// chrf++, ter, bleu-multi, bleu-nltk, bleu-plato, bleu-coco, nist, nist-nltk. Options map onto the
// options structs of metrics/bleu.h, bleu_compat.h, chrf.h, ter.h and nist.h; no scoring logic
// lives here.
#include <cmath>
#include <cstdio>
#include <memory>

#include "core/error.h"
#include "core/io.h"
#include "metrics/bleu.h"
#include "metrics/bleu_compat.h"
#include "metrics/chrf.h"
#include "metrics/nist.h"
#include "metrics/protocol.h"
#include "metrics/ter.h"

namespace unieval::metrics {

namespace {

namespace m = unieval::metrics;
using O = std::vector<OptionSpec>;
using nlohmann::ordered_json;

// Integral counts print as integers (as sacreBLEU's Python ints), others as doubles.
ordered_json number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15) return static_cast<int64_t>(v);
  return v;
}

ordered_json list(const std::vector<double>& v, bool integral = false) {
  ordered_json a = ordered_json::array();
  for (double x : v) a.push_back(integral ? number(x) : ordered_json(x));
  return a;
}

std::string f(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// Resampling of a sum-decomposable corpus metric: rows[i] = segment i's statistics, `score`
// maps summed statistics to the metric's values. The function owns the rows.
ScoreFn sums_fn(std::shared_ptr<const std::vector<std::vector<double>>> rows,
                std::function<std::vector<double>(const std::vector<double>&)> score) {
  return [rows, score](const std::vector<size_t>& idx) {
    std::vector<double> sums((*rows)[0].size(), 0.0);
    for (size_t i : idx) {
      const auto& r = (*rows)[i];
      for (size_t c = 0; c < sums.size(); ++c) sums[c] += r[c];
    }
    return score(sums);
  };
}

bool resampling_asked(const OptionValues& ov) {
  return ov.integer("bootstrap") > 0 || ov.count("paired-bootstrap");
}

// The baseline of a paired test: --paired-bootstrap FILE against the same references.
std::vector<std::string> baseline_hyps(const ScoreContext& sc, size_t n) {
  std::string path = sc.values.str("paired-bootstrap");
  std::vector<std::string> base = core::read_lines(path);
  if (base.size() != n)
    throw InputError(path, 0,
                     "has " + std::to_string(base.size()) + " lines but the system output has " +
                         std::to_string(n));
  return base;
}

std::vector<std::vector<std::vector<std::string>>> split_refs(
    const std::vector<std::vector<std::string>>& streams) {
  std::vector<std::vector<std::vector<std::string>>> out;
  for (const auto& seg : m::refs_by_segment(streams)) out.push_back(m::split_lines_py(seg));
  return out;
}

// ---- bleu -----------------------------------------------------------------------------------

// --bootstrap N --seed S --confidence C --paired-bootstrap FILE of the corpus scores (sacreBLEU's
// --confidence and --paired-bs): resamples of the segments, the corpus score recomputed from
// their summed statistics (metrics/bootstrap.h).
O with_bootstrap(O o) {
  for (auto& b : bootstrap_option_specs(
           "Baseline system output (one segment per line, same references): "
           "paired bootstrap p-value of --hyp against it (sacreBLEU --paired-bs)."))
    o.push_back(b);
  return o;
}

O bleu_options() {
  return with_bootstrap(
      {string_option("tokenize", "13a", "sacreBLEU tokenizer: 13a, intl, none, char, zh.", "tok"),
       string_option("smooth", "exp", "Smoothing: exp, floor, add-k, none.", "smooth"),
       double_option("smooth-value", std::nullopt,
                     "Value for floor (default 0.1) or add-k (default 1).", "smooth"),
       flag_option("lowercase", "Lowercase (Python str.lower) before tokenising.", "case"),
       int_option("max-order", 4, "Maximum n-gram order."),
       flag_option("effective-order",
                   "Effective order (implied by --sentence-level, as sacreBLEU's sentence_bleu).",
                   "eff"),
       string_option(
           "ref-missing-marker", std::nullopt,
           "A reference line equal to this text is absent for its segment (sacreBLEU None); "
           "otherwise an empty line is a real 0-length reference."),
       flag_option("sentence-level", "One JSON object (or line) per segment."),
       threads_option(0, "segments are tokenised and counted on several threads")});
}

ordered_json bleu_json(const m::BleuScore& s, bool signature) {
  ordered_json j;
  j["score"] = s.score;
  j["counts"] = list(s.counts, true);
  j["totals"] = list(s.totals, true);
  j["precisions"] = list(s.precisions);
  j["bp"] = s.bp;
  j["sys_len"] = s.sys_len;
  j["ref_len"] = s.ref_len;
  if (signature) j["signature"] = s.signature;
  return j;
}

void run_bleu(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  m::BleuOptions o;
  o.tokenize = m::parse_bleu_tokenize(ov.str("tokenize"));
  o.smooth = m::parse_bleu_smooth(ov.str("smooth"));
  if (ov.count("smooth-value")) o.smooth_value = ov.real("smooth-value");
  o.lowercase = ov.flag("lowercase");
  o.max_order = ov.integer("max-order");
  if (o.max_order < 1) throw InputError("--max-order must be >= 1");
  o.effective_order = ov.flag("effective-order");
  if (ov.count("ref-missing-marker")) o.ref_missing_marker = ov.str("ref-missing-marker");
  o.threads = ov.integer("threads");
  const core::Corpus& c = sc.corpus();
  if (ov.flag("sentence-level")) {
    if (resampling_asked(ov))
      throw InputError(
          "--bootstrap / --paired-bootstrap resample a corpus score: not with --sentence-level");
    o.effective_order = true;
    for (const auto& s : m::sentence_bleu(c.hyps, c.refs, o)) {
      if (sc.json())
        sc.emit_json(bleu_json(s, false));
      else
        sc.print(s.format() + "\n");
    }
    return;
  }
  m::BleuScore s = m::corpus_bleu(c.hyps, c.refs, o);
  ordered_json j = bleu_json(s, true);
  if (resampling_asked(ov) || sc.resampling_wanted()) {
    // Segment statistics: sys_len, ref_len, correct[1..N], total[1..N] (what corpus_bleu sums),
    // against the references tokenised once for the system and the baseline.
    auto prepared = std::make_shared<m::BleuReferences>(c.refs, o);
    auto rows_of = [&, prepared](const std::vector<std::string>& hyps) {
      auto rows = std::make_shared<std::vector<std::vector<double>>>();
      for (const auto& st : m::bleu_segment_stats(hyps, *prepared, o)) {
        std::vector<double> r = {static_cast<double>(st.sys_len), static_cast<double>(st.ref_len)};
        for (int64_t x : st.correct) r.push_back(static_cast<double>(x));
        for (int64_t x : st.total) r.push_back(static_cast<double>(x));
        rows->push_back(std::move(r));
      }
      return rows;
    };
    auto score = [o](const std::vector<double>& sums) {
      m::BleuStats st;
      st.sys_len = static_cast<int64_t>(sums[0]);
      st.ref_len = static_cast<int64_t>(sums[1]);
      for (int k = 0; k < o.max_order; ++k) {
        st.correct.push_back(static_cast<int64_t>(sums[2 + k]));
        st.total.push_back(static_cast<int64_t>(sums[2 + o.max_order + k]));
      }
      return std::vector<double>{m::compute_bleu(st, o).score};
    };
    const size_t n = c.hyps.size();
    if (n > 0) {
      ScoreFn sys = sums_fn(rows_of(c.hyps), score);
      if (sc.resampling_wanted()) sc.set_resampling(n, {"score"}, sys);
      if (resampling_asked(ov)) {
        ScoreFn base;
        if (ov.count("paired-bootstrap")) base = sums_fn(rows_of(baseline_hyps(sc, n)), score);
        add_resampling(j, ov, n, {"score"}, sys, base ? &base : nullptr);
      }
    }
  }
  if (sc.json()) {
    sc.emit_json(j);
  } else {
    sc.print("BLEU|" + s.signature + " = " + s.format().substr(7) + "\n");
    if (j.contains("bootstrap") || j.contains("paired_bootstrap")) {
      ordered_json extra;
      for (const char* k : {"bootstrap", "paired_bootstrap"})
        if (j.contains(k)) extra[k] = j[k];
      sc.print(ScoreContext::human_lines(extra));
    }
  }
}

// ---- chrf -----------------------------------------------------------------------------------

O chrf_options() {
  return with_bootstrap(
      {int_option("max-order", 6, "Character n-gram order (sacreBLEU -cc).", "nc"),
       int_option("word-order", std::nullopt,
                  "Word n-gram order (sacreBLEU --chrf-word-order): 0 for chrF (the default of "
                  "--metric chrf), 2 for chrF++ (the default of --metric chrf++).",
                  "nw"),
       double_option("beta", 2.0, "Recall weight beta.", "beta"),
       flag_option("lowercase", "Lowercase (Python str.lower) first.", "case"),
       flag_option("eps-smoothing", "chrF++.py-style averaging of per-order F-scores.", "eff"),
       flag_option("whitespace",
                   "Keep whitespace in character n-grams (sacreBLEU --chrf-whitespace).", "space"),
       flag_option("sentence-level", "One score per segment."),
       threads_option(0, "segments are split into n-grams and matched on several threads")});
}

void run_chrf_with(ScoreContext& sc, int default_word_order) {
  const OptionValues& ov = sc.values;
  m::ChrfOptions o;
  o.char_order = ov.integer("max-order");
  o.word_order = ov.count("word-order") ? ov.integer("word-order") : default_word_order;
  if (o.word_order < 0) throw unieval::InputError("--word-order must be >= 0");
  o.beta = ov.real("beta");
  o.lowercase = ov.flag("lowercase");
  o.eps_smoothing = ov.flag("eps-smoothing");
  o.whitespace = ov.flag("whitespace");
  o.threads = ov.integer("threads");
  // sacreBLEU's name: chrF{beta} followed by one '+' per word order.
  const std::string name = "chrF" + f("%g", o.beta) + std::string(o.word_order, '+');
  const core::Corpus& c = sc.corpus();
  if (ov.flag("sentence-level")) {
    if (resampling_asked(ov))
      throw InputError(
          "--bootstrap / --paired-bootstrap resample a corpus score: not with --sentence-level");
    for (const auto& s : m::sentence_chrf(c.hyps, c.refs, o)) {
      if (sc.json())
        sc.emit_json(ordered_json{{"score", s.score}});
      else
        sc.print(name + " = " + f("%.2f", s.score) + "\n");
    }
    return;
  }
  m::ChrfScore s = m::corpus_chrf(c.hyps, c.refs, o);
  ordered_json j{{"score", s.score}, {"signature", s.signature}};
  if ((resampling_asked(ov) || sc.resampling_wanted()) && !c.hyps.empty()) {
    const size_t n = c.hyps.size();
    auto rows_of = [&](const std::vector<std::string>& hyps) {
      return std::make_shared<const std::vector<std::vector<double>>>(
          m::chrf_segment_stats(hyps, c.refs, o));
    };
    auto score = [o](const std::vector<double>& sums) {
      return std::vector<double>{m::chrf_from_stats(sums, o)};
    };
    ScoreFn sys = sums_fn(rows_of(c.hyps), score);
    if (sc.resampling_wanted()) sc.set_resampling(n, {"score"}, sys);
    if (resampling_asked(ov)) {
      ScoreFn base;
      if (ov.count("paired-bootstrap")) base = sums_fn(rows_of(baseline_hyps(sc, n)), score);
      add_resampling(j, ov, n, {"score"}, sys, base ? &base : nullptr);
    }
  }
  if (sc.json()) {
    sc.emit_json(j);
  } else {
    sc.print(name + "|" + s.signature + " = " + f("%.2f", s.score) + "\n");
    ordered_json extra;
    for (const char* k : {"bootstrap", "paired_bootstrap"})
      if (j.contains(k)) extra[k] = j[k];
    if (!extra.empty()) sc.print(ScoreContext::human_lines(extra));
  }
}

void run_chrf(ScoreContext& sc) { run_chrf_with(sc, 0); }
void run_chrf_pp(ScoreContext& sc) { run_chrf_with(sc, 2); }

// ---- ter ------------------------------------------------------------------------------------

O ter_options() {
  return with_bootstrap(
      {flag_option("normalized",
                   "Tercom normalisation: XML entities, joined lines, punctuation split off; "
                   "with --asian-support CJK characters one by one (sacreBLEU --ter-normalized).",
                   "norm"),
       flag_option("no-punct",
                   "Remove punctuation . , ? : ; ! \" ( ); with --asian-support CJK and full-width "
                   "punctuation too (sacreBLEU --ter-no-punct).",
                   "punct"),
       flag_option("asian-support",
                   "CJK handling in --normalized and --no-punct (sacreBLEU --ter-asian-support).",
                   "asian"),
       flag_option("case-sensitive",
                   "Keep case; the default lowercases (Python str.lower) "
                   "(sacreBLEU --ter-case-sensitive).",
                   "case"),
       flag_option("sentence-level", "One score per segment."),
       threads_option(0, "segments are aligned on several threads")});
}

void run_ter(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  m::TerOptions o;
  o.normalized = ov.flag("normalized");
  o.no_punct = ov.flag("no-punct");
  o.asian_support = ov.flag("asian-support");
  o.case_sensitive = ov.flag("case-sensitive");
  o.threads = ov.integer("threads");
  const core::Corpus& c = sc.corpus();
  if (ov.flag("sentence-level")) {
    if (resampling_asked(ov))
      throw InputError(
          "--bootstrap / --paired-bootstrap resample a corpus score: not with --sentence-level");
    for (const auto& s : m::sentence_ter(c.hyps, c.refs, o)) {
      if (sc.json())
        sc.emit_json(ordered_json{
            {"score", s.score}, {"num_edits", number(s.num_edits)}, {"ref_length", s.ref_length}});
      else
        sc.print("TER = " + f("%.2f", s.score) + "\n");
    }
    return;
  }
  auto rows = std::make_shared<const std::vector<std::vector<double>>>(
      m::ter_segment_stats(c.hyps, c.refs, o));
  m::TerScore s;
  for (const auto& r : *rows) {  // summed in segment order (corpus_ter)
    s.num_edits += r[0];
    s.ref_length += r[1];
  }
  s.score = m::ter_from_stats({s.num_edits, s.ref_length});
  s.signature = o.signature(static_cast<int>(c.refs.size()));
  ordered_json j{{"score", s.score},
                 {"num_edits", number(s.num_edits)},
                 {"ref_length", s.ref_length},
                 {"signature", s.signature}};
  if ((resampling_asked(ov) || sc.resampling_wanted()) && !c.hyps.empty()) {
    const size_t n = c.hyps.size();
    auto score = [](const std::vector<double>& sums) {
      return std::vector<double>{m::ter_from_stats(sums)};
    };
    ScoreFn sys = sums_fn(rows, score);
    if (sc.resampling_wanted()) sc.set_resampling(n, {"score"}, sys);
    if (resampling_asked(ov)) {
      ScoreFn base;
      if (ov.count("paired-bootstrap"))
        base = sums_fn(std::make_shared<const std::vector<std::vector<double>>>(
                           m::ter_segment_stats(baseline_hyps(sc, n), c.refs, o)),
                       score);
      add_resampling(j, ov, n, {"score"}, sys, base ? &base : nullptr);
    }
  }
  if (sc.json()) {
    sc.emit_json(j);
  } else {
    sc.print("TER|" + s.signature + " = " + f("%.2f", s.score) + "\n");
    ordered_json extra;
    for (const char* k : {"bootstrap", "paired_bootstrap"})
      if (j.contains(k)) extra[k] = j[k];
    if (!extra.empty()) sc.print(ScoreContext::human_lines(extra));
  }
}

// ---- bleu-multi -----------------------------------------------------------------------------

O multi_options() { return {flag_option("lowercase", "multi-bleu.perl -lc (ASCII lowercasing).")}; }

void run_multi(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  m::MultiBleuOptions o;
  o.lowercase = ov.flag("lowercase");
  const core::Corpus& c = sc.corpus();
  m::MultiBleuScore s = m::multi_bleu(c.hyps, c.refs, o);
  if (s.warning) sc.warn(*s.warning);
  if (sc.json()) {
    ordered_json j;
    j["score"] = s.score;
    j["precisions"] = list(s.precisions);
    j["bp"] = s.bp;
    j["ratio"] = s.ratio;
    j["hyp_len"] = s.hyp_len;
    j["ref_len"] = s.ref_len;
    sc.emit_json(j);
  } else {
    sc.print(s.format() + "\n");
  }
  return;
}

// ---- bleu-nltk ------------------------------------------------------------------------------

O nltk_options() {
  return {
      string_option("weights", std::nullopt,
                    "Comma-separated weights, e.g. 0.5,0.5 (default: uniform over --max-order)."),
      int_option("max-order", 4, "Orders when --weights is not given."),
      int_option("smoothing", 0, "SmoothingFunction().methodN, N = 0..7."),
      flag_option("sentence-level", "sentence_bleu per segment (one JSON per line).")};
}

void run_nltk(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  m::NltkBleuOptions o;
  if (ov.count("weights")) {
    o.weights = parse_double_list(ov.str("weights"), "--weights");
  } else {
    int n = ov.integer("max-order");
    if (n < 1) throw InputError("--max-order must be >= 1");
    o.weights.assign(n, 1.0 / n);
  }
  if (o.weights.empty()) throw InputError("--weights must not be empty");
  o.smoothing = ov.integer("smoothing");
  if (o.smoothing < 0 || o.smoothing > 7) throw InputError("--smoothing must be 0..7");
  const core::Corpus& c = sc.corpus();
  const auto refs = m::refs_by_segment(c.refs);
  auto check = [](const m::NltkBleuResult& r) {
    if (r.error)
      throw InputError("NLTK 3.8 raises '" + *r.error + "' for this input with method " +
                       std::string("6 (it needs trigram matches and >= 3 weights)"));
    return r.score;
  };
  if (ov.flag("sentence-level")) {
    std::vector<double> scores;
    for (const auto& r : m::nltk_sentence_bleu_lines(c.hyps, refs, o)) scores.push_back(check(r));
    for (double s : scores) {
      if (sc.json())
        sc.emit_json(ordered_json{{"score", s}});
      else
        sc.print("BLEU = " + f("%.17g", s) + "\n");
    }
    return;
  }
  double s = check(m::nltk_corpus_bleu_lines(c.hyps, refs, o));
  if (sc.json())
    sc.emit_json(ordered_json{{"score", s}});
  else
    sc.print("BLEU (NLTK corpus_bleu, method" + std::to_string(o.smoothing) +
             ") = " + f("%.17g", s) + "\n");
  return;
}

// ---- bleu-plato -----------------------------------------------------------------------------

O plato_options() {
  return {
      flag_option("single-space-split",
                  "Tokens = line.strip().split(\" \") as ERNIE-GEN's persona_chat/eval.py reads "
                  "files (default: str.split(), as the golden vectors and PLATO's metrics.py).")};
}

void run_plato(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  m::PlatoBleuOptions o;
  o.single_space_split = ov.flag("single-space-split");
  const core::Corpus& c = sc.corpus();
  if (c.refs.size() > 1) sc.warn("bleu-plato uses the first --ref only (as PLATO/ERNIE-GEN do)");
  m::PlatoBleuScore s = m::plato_bleu(c.hyps, c.refs[0], o);
  if (sc.json())
    sc.emit_json(ordered_json{{"bleu_1", s.bleu_1}, {"bleu_2", s.bleu_2}});
  else
    sc.print("BLEU-1 = " + f("%.4f", s.bleu_1) + "  BLEU-2 = " + f("%.4f", s.bleu_2) + "\n");
  return;
}

// ---- bleu-coco ------------------------------------------------------------------------------

O coco_options() {
  return {flag_option("sentence-level", "Per-segment Bleu_1..Bleu_4 (one JSON object per line).")};
}

ordered_json coco_json(const std::vector<double>& b) {
  ordered_json j;
  for (int k = 0; k < 4; ++k) j["Bleu_" + std::to_string(k + 1)] = b[k];
  return j;
}

void run_coco(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  m::CocoBleuScore s;
  if (sc.per_segment_input()) {
    s = m::coco_bleu(sc.hyps(), sc.segment_refs());
  } else {
    const core::Corpus& c = sc.corpus();
    s = m::coco_bleu(c.hyps, m::refs_by_segment(c.refs));
  }
  if (sc.resampling_wanted() && !s.stats.empty()) {
    const size_t n = s.stats.size();
    sc.set_resampling(
        n, {"Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"},
        sums_fn(std::make_shared<const std::vector<std::vector<double>>>(std::move(s.stats)),
                m::coco_bleu_from_stats));
  }
  if (sc.segments_wanted())
    sc.set_segments({"Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"}, s.per_segment);
  if (ov.flag("sentence-level")) {
    for (const auto& seg : s.per_segment) {
      if (sc.json())
        sc.emit_json(coco_json(seg));
      else
        sc.print("Bleu_4 = " + f("%.5f", seg[3]) + "\n");
    }
    return;
  }
  if (sc.json()) {
    sc.emit_json(coco_json(s.bleu));
  } else {
    sc.print("Bleu_1 = " + f("%.5f", s.bleu[0]) + "  Bleu_2 = " + f("%.5f", s.bleu[1]) +
             "  Bleu_3 = " + f("%.5f", s.bleu[2]) + "  Bleu_4 = " + f("%.5f", s.bleu[3]) + "\n");
  }
  return;
}

// ---- nist -----------------------------------------------------------------------------------

O nist_options() {
  return {
      string_option("nist-version", "14c",
                    "mteval version: 14c (keeps http(s):// tokens whole; DSTC7) or 13a."),
      flag_option("case-sensitive", "mteval -c: do not lowercase."),
      flag_option("international-tokenization",
                  "mteval-v14c --international-tokenization (Unicode rules)."),
      flag_option(
          "no-dstc7-writer",
          "Do not apply DSTC7's XML writer substitutions ('&','<' -> ' ', empty -> __empty__).")};
}

void run_nist(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  m::NistOptions o;
  std::string v = ov.str("nist-version");
  if (v == "14c" || v == "v14c")
    o.tokenization = m::text::MtevalTokenization::kV14c;
  else if (v == "13a" || v == "v13a")
    o.tokenization = m::text::MtevalTokenization::kV13a;
  else
    throw InputError("--nist-version: '" + v + "' (14c or 13a)");
  if (ov.flag("international-tokenization")) o.tokenization = m::text::MtevalTokenization::kIntl;
  o.preserve_case = ov.flag("case-sensitive");
  o.dstc7_writer = !ov.flag("no-dstc7-writer");
  const core::Corpus& c = sc.corpus();
  m::NistScore s = m::mteval_nist(c.hyps, c.refs, o);
  for (const auto& w : s.warnings) sc.warn(w);
  if (sc.json()) {
    ordered_json j;
    j["nist_cum"] = list(s.nist_cum);
    j["nist_ind"] = list(s.nist_ind);
    j["bleu_cum"] = list(s.bleu_cum);
    j["bleu_ind"] = list(s.bleu_ind);
    sc.emit_json(j);
  } else {
    sc.print("NIST score = " + f("%2.4f", s.nist_cum[4]) +
             "  BLEU score = " + f("%.4f", s.bleu_cum[3]) +
             "  (NIST-4 = " + f("%.4f", s.nist_cum[3]) + ", mteval-v" + v + ")\n");
  }
  return;
}

O nist_nltk_options() { return {int_option("max-order", 5, "corpus_nist n.")}; }

void run_nist_nltk(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  int n = ov.integer("max-order");
  if (n < 1) throw InputError("--max-order must be >= 1");
  const core::Corpus& c = sc.corpus();
  m::NltkNistScore s = m::nltk_corpus_nist(m::split_lines_py(c.hyps), split_refs(c.refs), n);
  if (s.warning) sc.warn(*s.warning);
  if (sc.json())
    sc.emit_json(ordered_json{{"score", s.score}});
  else
    sc.print("NIST (NLTK corpus_nist, n=" + std::to_string(n) + ") = " + f("%.17g", s.score) +
             "\n");
  return;
}

}  // namespace

void register_bleu_metrics(MetricRegistry& reg) {
  reg.push_back({"bleu", "sacreBLEU 2.6.0 corpus/sentence BLEU (13a, intl, none, char, zh)",
                 bleu_options(), run_bleu, "bleu", nullptr});
  reg.push_back({"chrf", "sacreBLEU 2.6.0 chrF", chrf_options(), run_chrf, "chrf", nullptr});
  reg.push_back({"chrf++", "sacreBLEU 2.6.0 chrF++ (chrF with word 1,2-grams)", chrf_options(),
                 run_chrf_pp, "chrf", nullptr});
  reg.push_back({"ter", "sacreBLEU 2.6.0 TER (Tercom shifts and beam edit distance)", ter_options(),
                 run_ter, "ter", nullptr});
  reg.push_back(
      {"bleu-multi", "Moses multi-bleu.perl", multi_options(), run_multi, "bleu-multi", nullptr});
  reg.push_back({"bleu-nltk", "NLTK 3.8 corpus_bleu / sentence_bleu, smoothing 0..7",
                 nltk_options(), run_nltk, "bleu-nltk", nullptr});
  reg.push_back({"bleu-plato", "PLATO / ERNIE-GEN Persona-Chat BLEU-1/2 (NLTK method7)",
                 plato_options(), run_plato, "bleu-plato", nullptr});
  reg.push_back({"bleu-coco", "coco-caption BLEU-1..4 (UniLM/ERNIE-GEN question generation)",
                 coco_options(), run_coco, "bleu-coco", nullptr});
  reg.push_back({"nist", "mteval-v14c/v13a NIST-1..9 and BLEU-1..9 (DSTC7)", nist_options(),
                 run_nist, "nist", nullptr});
  reg.push_back({"nist-nltk", "NLTK 3.8 corpus_nist", nist_nltk_options(), run_nist_nltk,
                 "nist-nltk", nullptr});
}

}  // namespace unieval::metrics
