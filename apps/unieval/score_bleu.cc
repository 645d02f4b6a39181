// score_bleu.cc: the BLEU family of `unieval score`: bleu, chrf, bleu-multi, bleu-nltk,
// bleu-plato, bleu-coco, nist, nist-nltk. Flags map onto the options structs of
// metrics/bleu.h, bleu_compat.h, chrf.h and nist.h; no scoring logic lives here.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "apps/unieval/score.h"
#include "metrics/bleu.h"
#include "metrics/bleu_compat.h"
#include "metrics/chrf.h"
#include "core/error.h"
#include "core/io.h"
#include "metrics/nist.h"

namespace unieval::cli {

namespace {

namespace m = unieval::metrics;
using nlohmann::ordered_json;

// Integral counts print as integers (as sacreBLEU's Python ints), others as doubles.
ordered_json number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15)
    return static_cast<int64_t>(v);
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

bool flag(const po::variables_map& vm, const char* name) {
  return vm.count(name) && vm[name].as<bool>();
}

Corpus read(const po::variables_map& vm) { return read_corpus(hyp_path(vm), ref_paths(vm)); }

std::vector<std::vector<std::vector<std::string>>> split_refs(
    const std::vector<std::vector<std::string>>& streams) {
  std::vector<std::vector<std::vector<std::string>>> out;
  for (const auto& seg : m::refs_by_segment(streams)) out.push_back(m::split_lines_py(seg));
  return out;
}

// ---- bleu -----------------------------------------------------------------------------------

void bleu_options(po::options_description& d) {
  d.add_options()
      ("tokenize", po::value<std::string>()->default_value("13a"),
       "sacreBLEU tokenizer: 13a, intl, none, char, zh.")
      ("smooth", po::value<std::string>()->default_value("exp"),
       "Smoothing: exp, floor, add-k, none.")
      ("smooth-value", po::value<double>(), "Value for floor (default 0.1) or add-k (default 1).")
      ("lowercase", po::bool_switch(), "Lowercase (Python str.lower) before tokenising.")
      ("max-order", po::value<int>()->default_value(4), "Maximum n-gram order.")
      ("effective-order", po::bool_switch(),
       "Effective order (implied by --sentence-level, as sacreBLEU's sentence_bleu).")
      ("ref-missing-marker", po::value<std::string>(),
       "A reference line equal to this text is absent for its segment (sacreBLEU None); "
       "otherwise an empty line is a real 0-length reference.")
      ("sentence-level", po::bool_switch(), "One JSON object (or line) per segment.");
  add_threads_option(d, "segments are tokenised and counted on several threads");
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

int run_bleu(const po::variables_map& vm) {
  m::BleuOptions o;
  o.tokenize = m::parse_bleu_tokenize(vm["tokenize"].as<std::string>());
  o.smooth = m::parse_bleu_smooth(vm["smooth"].as<std::string>());
  if (vm.count("smooth-value")) o.smooth_value = vm["smooth-value"].as<double>();
  o.lowercase = flag(vm, "lowercase");
  o.max_order = vm["max-order"].as<int>();
  if (o.max_order < 1) throw InputError("--max-order must be >= 1");
  o.effective_order = flag(vm, "effective-order");
  if (vm.count("ref-missing-marker")) o.ref_missing_marker = vm["ref-missing-marker"].as<std::string>();
  o.threads = vm["threads"].as<int>();
  Corpus c = read(vm);
  if (flag(vm, "sentence-level")) {
    o.effective_order = true;
    for (const auto& s : m::sentence_bleu(c.hyps, c.refs, o)) {
      if (want_json(vm)) print_json(bleu_json(s, false));
      else std::cout << s.format() << "\n";
    }
    return kExitOk;
  }
  m::BleuScore s = m::corpus_bleu(c.hyps, c.refs, o);
  if (want_json(vm)) print_json(bleu_json(s, true));
  else std::cout << "BLEU|" << s.signature << " = " << s.format().substr(7) << "\n";
  return kExitOk;
}

// ---- chrf -----------------------------------------------------------------------------------

void chrf_options(po::options_description& d) {
  d.add_options()
      ("max-order", po::value<int>()->default_value(6), "Character n-gram order (sacreBLEU -cc).")
      ("word-order", po::value<int>(),
       "Word n-gram order (sacreBLEU --chrf-word-order): 0 for chrF (the default of "
       "--metric chrf), 2 for chrF++ (the default of --metric chrf++).")
      ("beta", po::value<double>()->default_value(2.0), "Recall weight beta.")
      ("lowercase", po::bool_switch(), "Lowercase (Python str.lower) first.")
      ("eps-smoothing", po::bool_switch(), "chrF++.py-style averaging of per-order F-scores.")
      ("sentence-level", po::bool_switch(), "One score per segment.");
  add_threads_option(d, "segments are split into n-grams and matched on several threads");
}

int run_chrf_with(const po::variables_map& vm, int default_word_order) {
  m::ChrfOptions o;
  o.char_order = vm["max-order"].as<int>();
  o.word_order = vm.count("word-order") ? vm["word-order"].as<int>() : default_word_order;
  if (o.word_order < 0) throw unieval::InputError("--word-order must be >= 0");
  o.beta = vm["beta"].as<double>();
  o.lowercase = flag(vm, "lowercase");
  o.eps_smoothing = flag(vm, "eps-smoothing");
  o.threads = vm["threads"].as<int>();
  // sacreBLEU's name: chrF{beta} followed by one '+' per word order.
  const std::string name = "chrF" + f("%g", o.beta) + std::string(o.word_order, '+');
  Corpus c = read(vm);
  if (flag(vm, "sentence-level")) {
    for (const auto& s : m::sentence_chrf(c.hyps, c.refs, o)) {
      if (want_json(vm)) print_json(ordered_json{{"score", s.score}});
      else std::cout << name << " = " << f("%.2f", s.score) << "\n";
    }
    return kExitOk;
  }
  m::ChrfScore s = m::corpus_chrf(c.hyps, c.refs, o);
  if (want_json(vm)) {
    print_json(ordered_json{{"score", s.score}, {"signature", s.signature}});
  } else {
    std::cout << name << "|" << s.signature << " = " << f("%.2f", s.score) << "\n";
  }
  return kExitOk;
}

int run_chrf(const po::variables_map& vm) { return run_chrf_with(vm, 0); }
int run_chrf_pp(const po::variables_map& vm) { return run_chrf_with(vm, 2); }

// ---- bleu-multi -----------------------------------------------------------------------------

void multi_options(po::options_description& d) {
  d.add_options()("lowercase", po::bool_switch(), "multi-bleu.perl -lc (ASCII lowercasing).");
}

int run_multi(const po::variables_map& vm) {
  m::MultiBleuOptions o;
  o.lowercase = flag(vm, "lowercase");
  Corpus c = read(vm);
  m::MultiBleuScore s = m::multi_bleu(c.hyps, c.refs, o);
  if (s.warning) warn(*s.warning);
  if (want_json(vm)) {
    ordered_json j;
    j["score"] = s.score;
    j["precisions"] = list(s.precisions);
    j["bp"] = s.bp;
    j["ratio"] = s.ratio;
    j["hyp_len"] = s.hyp_len;
    j["ref_len"] = s.ref_len;
    print_json(j);
  } else {
    std::cout << s.format() << "\n";
  }
  return kExitOk;
}

// ---- bleu-nltk ------------------------------------------------------------------------------

void nltk_options(po::options_description& d) {
  d.add_options()
      ("weights", po::value<std::string>(),
       "Comma-separated weights, e.g. 0.5,0.5 (default: uniform over --max-order).")
      ("max-order", po::value<int>()->default_value(4), "Orders when --weights is not given.")
      ("smoothing", po::value<int>()->default_value(0), "SmoothingFunction().methodN, N = 0..7.")
      ("sentence-level", po::bool_switch(), "sentence_bleu per segment (one JSON per line).");
}

int run_nltk(const po::variables_map& vm) {
  m::NltkBleuOptions o;
  if (vm.count("weights")) {
    o.weights = parse_double_list(vm["weights"].as<std::string>(), "--weights");
  } else {
    int n = vm["max-order"].as<int>();
    if (n < 1) throw InputError("--max-order must be >= 1");
    o.weights.assign(n, 1.0 / n);
  }
  if (o.weights.empty()) throw InputError("--weights must not be empty");
  o.smoothing = vm["smoothing"].as<int>();
  if (o.smoothing < 0 || o.smoothing > 7) throw InputError("--smoothing must be 0..7");
  Corpus c = read(vm);
  const auto refs = m::refs_by_segment(c.refs);
  auto check = [](const m::NltkBleuResult& r) {
    if (r.error)
      throw InputError("NLTK 3.8 raises '" + *r.error + "' for this input with method " +
                       std::string("6 (it needs trigram matches and >= 3 weights)"));
    return r.score;
  };
  if (flag(vm, "sentence-level")) {
    std::vector<double> scores;
    for (const auto& r : m::nltk_sentence_bleu_lines(c.hyps, refs, o)) scores.push_back(check(r));
    for (double s : scores) {
      if (want_json(vm)) print_json(ordered_json{{"score", s}});
      else std::cout << "BLEU = " << f("%.17g", s) << "\n";
    }
    return kExitOk;
  }
  double s = check(m::nltk_corpus_bleu_lines(c.hyps, refs, o));
  if (want_json(vm)) print_json(ordered_json{{"score", s}});
  else std::cout << "BLEU (NLTK corpus_bleu, method" << o.smoothing << ") = " << f("%.17g", s) << "\n";
  return kExitOk;
}

// ---- bleu-plato -----------------------------------------------------------------------------

void plato_options(po::options_description& d) {
  d.add_options()("single-space-split", po::bool_switch(),
                  "Tokens = line.strip().split(\" \") as ERNIE-GEN's persona_chat/eval.py reads "
                  "files (default: str.split(), as the golden vectors and PLATO's metrics.py).");
}

int run_plato(const po::variables_map& vm) {
  m::PlatoBleuOptions o;
  o.single_space_split = flag(vm, "single-space-split");
  Corpus c = read(vm);
  if (c.refs.size() > 1) warn("bleu-plato uses the first --ref only (as PLATO/ERNIE-GEN do)");
  m::PlatoBleuScore s = m::plato_bleu(c.hyps, c.refs[0], o);
  if (want_json(vm)) print_json(ordered_json{{"bleu_1", s.bleu_1}, {"bleu_2", s.bleu_2}});
  else std::cout << "BLEU-1 = " << f("%.4f", s.bleu_1) << "  BLEU-2 = " << f("%.4f", s.bleu_2) << "\n";
  return kExitOk;
}

// ---- bleu-coco ------------------------------------------------------------------------------

void coco_options(po::options_description& d) {
  d.add_options()("sentence-level", po::bool_switch(),
                  "Per-segment Bleu_1..Bleu_4 (one JSON object per line).");
}

ordered_json coco_json(const std::vector<double>& b) {
  ordered_json j;
  for (int k = 0; k < 4; ++k) j["Bleu_" + std::to_string(k + 1)] = b[k];
  return j;
}

int run_coco(const po::variables_map& vm) {
  Corpus c = read(vm);
  m::CocoBleuScore s = m::coco_bleu(c.hyps, m::refs_by_segment(c.refs));
  if (flag(vm, "sentence-level")) {
    for (const auto& seg : s.per_segment) {
      if (want_json(vm)) print_json(coco_json(seg));
      else std::cout << "Bleu_4 = " << f("%.5f", seg[3]) << "\n";
    }
    return kExitOk;
  }
  if (want_json(vm)) {
    print_json(coco_json(s.bleu));
  } else {
    std::cout << "Bleu_1 = " << f("%.5f", s.bleu[0]) << "  Bleu_2 = " << f("%.5f", s.bleu[1])
              << "  Bleu_3 = " << f("%.5f", s.bleu[2]) << "  Bleu_4 = " << f("%.5f", s.bleu[3])
              << "\n";
  }
  return kExitOk;
}

// ---- nist -----------------------------------------------------------------------------------

void nist_options(po::options_description& d) {
  d.add_options()
      ("nist-version", po::value<std::string>()->default_value("14c"),
       "mteval version: 14c (keeps http(s):// tokens whole; DSTC7) or 13a.")
      ("case-sensitive", po::bool_switch(), "mteval -c: do not lowercase.")
      ("international-tokenization", po::bool_switch(),
       "mteval-v14c --international-tokenization (Unicode rules).")
      ("no-dstc7-writer", po::bool_switch(),
       "Do not apply DSTC7's XML writer substitutions ('&','<' -> ' ', empty -> __empty__).");
}

int run_nist(const po::variables_map& vm) {
  m::NistOptions o;
  std::string v = vm["nist-version"].as<std::string>();
  if (v == "14c" || v == "v14c") o.tokenization = m::text::MtevalTokenization::kV14c;
  else if (v == "13a" || v == "v13a") o.tokenization = m::text::MtevalTokenization::kV13a;
  else throw InputError("--nist-version: '" + v + "' (14c or 13a)");
  if (flag(vm, "international-tokenization")) o.tokenization = m::text::MtevalTokenization::kIntl;
  o.preserve_case = flag(vm, "case-sensitive");
  o.dstc7_writer = !flag(vm, "no-dstc7-writer");
  Corpus c = read(vm);
  m::NistScore s = m::mteval_nist(c.hyps, c.refs, o);
  for (const auto& w : s.warnings) warn(w);
  if (want_json(vm)) {
    ordered_json j;
    j["nist_cum"] = list(s.nist_cum);
    j["nist_ind"] = list(s.nist_ind);
    j["bleu_cum"] = list(s.bleu_cum);
    j["bleu_ind"] = list(s.bleu_ind);
    print_json(j);
  } else {
    std::cout << "NIST score = " << f("%2.4f", s.nist_cum[4]) << "  BLEU score = "
              << f("%.4f", s.bleu_cum[3]) << "  (NIST-4 = " << f("%.4f", s.nist_cum[3])
              << ", mteval-v" << v << ")\n";
  }
  return kExitOk;
}

void nist_nltk_options(po::options_description& d) {
  d.add_options()("max-order", po::value<int>()->default_value(5), "corpus_nist n.");
}

int run_nist_nltk(const po::variables_map& vm) {
  int n = vm["max-order"].as<int>();
  if (n < 1) throw InputError("--max-order must be >= 1");
  Corpus c = read(vm);
  m::NltkNistScore s = m::nltk_corpus_nist(m::split_lines_py(c.hyps), split_refs(c.refs), n);
  if (s.warning) warn(*s.warning);
  if (want_json(vm)) print_json(ordered_json{{"score", s.score}});
  else std::cout << "NIST (NLTK corpus_nist, n=" << n << ") = " << f("%.17g", s.score) << "\n";
  return kExitOk;
}

}  // namespace

void register_bleu_metrics(ScoreRegistry& reg) {
  reg.push_back({"bleu", "sacreBLEU 2.6.0 corpus/sentence BLEU (13a, intl, none, char, zh)",
                 bleu_options, run_bleu, "bleu"});
  reg.push_back({"chrf", "sacreBLEU 2.6.0 chrF", chrf_options, run_chrf, "chrf"});
  reg.push_back({"chrf++", "sacreBLEU 2.6.0 chrF++ (chrF with word 1,2-grams)", chrf_options,
                 run_chrf_pp, "chrf"});
  reg.push_back({"bleu-multi", "Moses multi-bleu.perl", multi_options, run_multi, "bleu-multi"});
  reg.push_back({"bleu-nltk", "NLTK 3.8 corpus_bleu / sentence_bleu, smoothing 0..7",
                 nltk_options, run_nltk, "bleu-nltk"});
  reg.push_back({"bleu-plato", "PLATO / ERNIE-GEN Persona-Chat BLEU-1/2 (NLTK method7)",
                 plato_options, run_plato, "bleu-plato"});
  reg.push_back({"bleu-coco", "coco-caption BLEU-1..4 (UniLM/ERNIE-GEN question generation)",
                 coco_options, run_coco, "bleu-coco"});
  reg.push_back({"nist", "mteval-v14c/v13a NIST-1..9 and BLEU-1..9 (DSTC7)", nist_options,
                 run_nist, "nist"});
  reg.push_back({"nist-nltk", "NLTK 3.8 corpus_nist", nist_nltk_options, run_nist_nltk,
                 "nist-nltk"});
}

}  // namespace unieval::cli
