// family_rouge.cc: the rouge family of the metric protocol (metrics/protocol.h):
//   --metric rouge         ROUGE-1.5.5 (default --mode rouge155) or google rouge-score (--mode rouge-score)
//   --metric rouge-l-coco  coco-caption / nqg ROUGE-L (beta 1.2)
// The Perl flags of ROUGE-1.5.5 are accepted as written (-c 95 -r 1000 -n 2 -a -m, -2 -1 -U ...).
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/error.h"
#include "core/io.h"
#include "core/py_string.h"
#include "metrics/protocol.h"
#include "metrics/rouge.h"
#include "metrics/rouge_coco.h"
#include "metrics/rouge_score.h"

namespace unieval::metrics {

namespace {

namespace fs = std::filesystem;
using metrics::Rouge155Options;
using metrics::RougeInstance;

std::vector<OptionSpec> rouge_options() {
  return {
      string_option(
          "mode", "rouge155",
          "rouge155: ROUGE-1.5.5.pl numbers (default); rouge-score: google-research rouge-score."),
      string_option(
          "sentence-sep", "",
          "Sentence separator inside a line, e.g. '<n>', '<q>', '[X_SEP]', '<S_SEP>' (pieces are "
          "trimmed, empty ones dropped). Default: the whole line is one sentence."),
      string_option(
          "hyp-dir", std::nullopt,
          "rouge155: directory of system summaries, one file per summary, one sentence per line "
          "(SPL, as pyrouge feeds ROUGE-1.5.5); evaluated in file-name order."),
      string_list_option(
          "ref-dir",
          "rouge155: directory of reference summaries with the same file names; repeat for "
          "several references."),
      string_option(
          "rouge-data,e", "",
          "ROUGE-1.5.5 data directory (WordNet-2.0-Exceptions/*.exc, smart_common_words.txt); "
          "default $UNIEVAL_ROUGE_DATA. Needed by -m and -s.",
          "exc"),
      flag_option("no-wordnet-exceptions",
                  "With -m: Porter stemming WITHOUT the WordNet exception lookup (what an empty "
                  "WordNet-2.0.exc.db gives; not the original ROUGE-1.5.5 numbers).",
                  "exc"),
      int_option("max-ngram,n", 0, "-n N: ROUGE-1..N.", "n"),
      flag_option("no-lcs,x", "-x: do not compute ROUGE-L.", "l"),
      string_option("wlcs-weight,w", std::nullopt, "-w W: ROUGE-W with weight W (e.g. 1.2).", "w"),
      string_option("skip-gap,2", std::nullopt,
                    "-2 D: ROUGE-S with max gap D (-1: unlimited, ROUGE-S*).", "s"),
      flag_option("skip-unigram,u", "-u: ROUGE-SU (skip-bigrams plus unigrams) instead of S.", "u"),
      flag_option("skip-both,U", "-U: ROUGE-S and ROUGE-SU.", "u"),
      flag_option(
          "stem,m",
          "-m: WordNet exceptions + ROUGE's Porter stemmer (rouge155); NLTK Porter (rouge-score).",
          "m"),
      flag_option("stopwords,s", "-s: remove smart_common_words.txt stopwords.", "stop"),
      long_option("length-limit,l", 0L, "-l N: first N words of every summary.", "len"),
      long_option("byte-limit,b", 0L, "-b N: first N bytes of every summary.", "byte"),
      string_option("formula,f", "A", "-f A|B: model average or best model.", "f"),
      double_option("alpha,p", 0.5, "-p ALPHA: F = PR/((1-a)P + aR).", "p"),
      double_option("confidence,c", std::nullopt,
                    "-c CF: confidence level of the bounds (default 95).", "c"),
      int_option("resamples,r", std::nullopt, "-r N: bootstrap resamples (default 1000).", "r"),
      flag_option("per-instance,d", "-d: per-instance scores (JSON: \"instances\")."),
      flag_option("all,a", "-a: accepted for compatibility (always all)."),
      string_option("input-format,z", std::nullopt,
                    "-z SPL: accepted for compatibility (SPL only)."),
      string_option(
          "count-mode,t", std::nullopt,
          "-t 0: average the per-summary scores (ROUGE-1.5.5's default, what is always computed). "
          "-t 1 and -t 2 (corpus-level token counting) are refused: our ROUGE-1.5.5 specification "
          "and golden vectors do not pin them down, so their numbers could not be shown "
          "identical."),
      string_option(
          "basic-elements,3", std::nullopt,
          "-3 MODE (ROUGE-BE, Basic Elements): refused; it scores the output files of an external "
          "BE parser, whose format our ROUGE-1.5.5 specification does not cover."),
      int_option("threads", 1,
                 "Worker threads for scoring and bootstrap (numbers are identical for any value)."),
      string_option("rouge-types", "rouge1,rouge2,rougeL,rougeLsum",
                    "rouge-score: comma-separated types (rouge1..rouge9, rougeL, rougeLsum).",
                    "types")};
}

template <class... A>
std::string format(const char* fmt, A... args) {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, fmt, args...);
  if (n < static_cast<int>(sizeof buf)) return std::string(buf, n > 0 ? n : 0);
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), fmt, args...);
  out.resize(static_cast<size_t>(n));
  return out;
}

// Line files: hyp and ref streams with the same number of lines. ROUGE-1.5.5 itself reads bytes;
// we take its input under the one policy of every metric: invalid UTF-8 is an InputError naming
// the file and line.
core::Corpus read_line_corpus(const ScoreContext& sc) {
  return core::read_corpus(sc.hyp_path(), sc.ref_paths());
}

// An SPL file: every line a sentence (empty lines are skipped later, as the script does).
metrics::RougeSummary read_spl(const std::string& path) {
  std::string text = core::read_file(path);
  metrics::RougeSummary out;
  size_t pos = 0;
  long line = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(pos, end - pos));
    ++line;
    const size_t bad = core::find_invalid_utf8(out.back());
    if (bad != std::string::npos)
      throw InputError(path, line,
                       "invalid UTF-8 at byte " + std::to_string(bad + 1) + " of the line");
    pos = end + 1;
  }
  return out;
}

// The ROUGE-1.5.5 options of the parsed values (checked as the script checks them).
Rouge155Options rouge155_options(const OptionValues& ov) {
  Rouge155Options opt;
  opt.max_n = ov.integer("max-ngram");
  opt.lcs = !ov.flag("no-lcs");
  if (ov.count("wlcs-weight")) opt.wlcs_weight = ov.str("wlcs-weight");
  if (ov.count("skip-gap")) opt.skip_distance = ov.str("skip-gap");
  opt.skip_unigram = ov.flag("skip-unigram");
  opt.skip_both = ov.flag("skip-both");
  opt.stem = ov.flag("stem");
  opt.use_exceptions = !ov.flag("no-wordnet-exceptions");
  opt.remove_stopwords = ov.flag("stopwords");
  opt.length_limit = ov.long_integer("length-limit");
  opt.byte_limit = ov.long_integer("byte-limit");
  std::string formula = ov.str("formula");
  if (formula != "A" && formula != "B")
    throw InputError("-f must be A or B, not '" + formula + "'");
  opt.formula = formula[0];
  opt.alpha = ov.real("alpha");
  if (ov.count("confidence")) opt.confidence = ov.real("confidence");
  if (ov.count("resamples")) opt.resamples = ov.integer("resamples");
  opt.threads = ov.integer("threads");
  if (ov.count("input-format")) {
    std::string z = ov.str("input-format");
    if (z != "SPL" && z != "spl")
      throw InputError("-z " + z +
                       ": only SPL input is supported (use --hyp-dir/--ref-dir or line files)");
  }
  if (ov.count("count-mode")) {
    // ROUGE-1.5.5's -t 0 (the default: per-summary scores averaged) is what rouge155() computes.
    std::string t = ov.str("count-mode");
    if (t == "1" || t == "2")
      throw InputError(
          "-t " + t +
          " (corpus-level token counting) is not supported: the "
          "ROUGE-1.5.5 specification we reproduce does not "
          "describe it precisely and no golden vectors check it, so its numbers could not "
          "be shown identical to the script's; -t 0 (the default) is supported");
    if (t != "0") throw InputError("-t must be 0, 1 or 2, not '" + t + "'");
  }
  if (ov.count("basic-elements"))
    throw InputError(
        "-3 " + ov.str("basic-elements") +
        ": ROUGE-BE (Basic Elements) is not supported: it scores pre-computed files of an "
        "external BE parser, whose format the ROUGE-1.5.5 specification we reproduce does "
        "not describe and no golden vectors check");
  opt.validate();
  return opt;
}

// The resource policy (metrics/rouge.h find_rouge_resources) in the caller's words.
void check_rouge(const ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  if (ov.str("mode") != "rouge155" && ov.str("mode") != "rouge-1.5.5") return;
  metrics::RougeResourceFlags flags;
  flags.data = sc.spell("rouge-data", flags.data);
  flags.no_exceptions = sc.spell("no-wordnet-exceptions", flags.no_exceptions);
  metrics::find_rouge_resources(ov.str("rouge-data"), rouge155_options(ov), flags);
}

void run_rouge155(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  Rouge155Options opt = rouge155_options(ov);
  bool want_ci = ov.count("confidence") || ov.count("resamples");

  // Language resources (the one policy: metrics/rouge.h find_rouge_resources).
  metrics::RougeResourceFlags flags;
  flags.data = sc.spell("rouge-data", flags.data);
  flags.no_exceptions = sc.spell("no-wordnet-exceptions", flags.no_exceptions);
  metrics::RougeResources res = metrics::find_rouge_resources(ov.str("rouge-data"), opt, flags);

  // Input.
  std::vector<RougeInstance> corpus;
  std::vector<std::string> ref_names;  // for error messages
  std::vector<std::string> instance_names;
  bool dirs = ov.count("hyp-dir") || ov.count("ref-dir");
  if (dirs) {
    if (!ov.count("hyp-dir") || !ov.count("ref-dir"))
      throw InputError("--hyp-dir and --ref-dir go together");
    if (ov.count("hyp") || ov.count("ref"))
      throw InputError("use either --hyp/--ref (line files) or --hyp-dir/--ref-dir (SPL files)");
    std::string hdir = ov.str("hyp-dir");
    auto rdirs = ov.list("ref-dir");
    if (!fs::is_directory(hdir)) throw InputError(hdir, 0, "--hyp-dir: not a directory");
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(hdir))
      if (e.is_regular_file()) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    if (names.empty()) throw InputError(hdir, 0, "--hyp-dir holds no files");
    for (const auto& name : names) {
      RougeInstance inst;
      inst.peer = read_spl((fs::path(hdir) / name).string());
      for (const auto& rd : rdirs) {
        fs::path p = fs::path(rd) / name;
        if (!fs::exists(p))
          throw InputError(p.string(), 0, "reference file missing for system file " + name);
        inst.models.push_back(read_spl(p.string()));
      }
      corpus.push_back(std::move(inst));
      instance_names.push_back(name);
    }
    ref_names = rdirs;
  } else {
    core::Corpus read;
    if (!sc.in_memory()) read = read_line_corpus(sc);
    const core::Corpus& c = sc.in_memory() ? sc.corpus() : read;
    std::string sep = ov.str("sentence-sep");
    corpus.resize(c.hyps.size());
    for (size_t i = 0; i < c.hyps.size(); ++i) {
      corpus[i].peer = metrics::split_summary(c.hyps[i], sep);
      for (const auto& stream : c.refs)
        corpus[i].models.push_back(metrics::split_summary(stream[i], sep));
    }
    if (!sc.in_memory()) ref_names = sc.ref_paths();
  }

  metrics::Rouge155Result result;
  try {
    result = metrics::rouge155(corpus, opt, res);
  } catch (const metrics::RougeEmptyModelError& e) {
    if (sc.in_memory()) throw;  // the library caller names its own files
    if (dirs)
      throw InputError((fs::path(ref_names[e.model()]) / instance_names[e.instance()]).string(), 0,
                       e.problem());
    throw InputError(ref_names[e.model()], static_cast<long>(e.instance() + 1), e.problem());
  }

  bool per_instance = ov.flag("per-instance");
  if (!sc.json()) {
    sc.print(metrics::rouge155_report(result, opt, per_instance) +
             "signature: " + result.signature + "\n");
    return;
  }
  nlohmann::ordered_json j;
  auto prf = [](const metrics::RougePRF& s) {
    nlohmann::ordered_json o;
    o["R"] = s.r;
    o["P"] = s.p;
    o["F"] = s.f;
    return o;
  };
  for (const auto& v : result.variants) {
    nlohmann::ordered_json o = prf(v.average);
    if (want_ci) {
      o["R_ci"] = {v.ci_low.r, v.ci_high.r};
      o["P_ci"] = {v.ci_low.p, v.ci_high.p};
      o["F_ci"] = {v.ci_low.f, v.ci_high.f};
    }
    j[v.name] = o;
  }
  j["n"] = corpus.size();
  j["signature"] = result.signature;
  if (per_instance) {
    nlohmann::ordered_json inst = nlohmann::ordered_json::object();
    for (size_t i = 0; i < corpus.size(); ++i) {
      nlohmann::ordered_json o;
      for (const auto& v : result.variants) o[v.name] = prf(v.instances[i]);
      inst[std::to_string(i + 1) + ".X"] = o;
    }
    j["instances"] = inst;
  }
  sc.emit_json(j);
  return;
}

void run_rouge_score(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  for (const char* f : {"hyp-dir", "ref-dir", "wlcs-weight", "skip-gap", "confidence", "resamples",
                        "input-format", "count-mode", "basic-elements"})
    if (ov.count(f))
      throw InputError(std::string("--") + f +
                       " is a ROUGE-1.5.5 option; not used by --mode rouge-score");
  for (const char* f : {"no-lcs", "skip-unigram", "skip-both", "stopwords", "per-instance",
                        "no-wordnet-exceptions"})
    if (ov.flag(f))
      throw InputError(std::string("--") + f +
                       " is a ROUGE-1.5.5 option; not used by --mode rouge-score");
  metrics::RougeScoreOptions opt;
  opt.stem = ov.flag("stem");
  opt.types.clear();
  std::string types = ov.str("rouge-types");
  size_t pos = 0;
  while (pos <= types.size()) {
    size_t end = types.find(',', pos);
    if (end == std::string::npos) end = types.size();
    if (end > pos) opt.types.push_back(types.substr(pos, end - pos));
    pos = end + 1;
  }
  opt.validate();
  core::Corpus c = read_line_corpus(sc);
  std::string sep = ov.str("sentence-sep");
  if (!sep.empty()) {
    for (auto& h : c.hyps) core::py_replace_in(h, sep, "\n");
    for (auto& stream : c.refs)
      for (auto& r : stream) core::py_replace_in(r, sep, "\n");
  }
  auto res = metrics::rouge_score_corpus(c.hyps, c.refs, opt);
  nlohmann::ordered_json j;
  for (size_t t = 0; t < opt.types.size(); ++t) {
    nlohmann::ordered_json o;
    o["precision"] = res.mean[t].precision;
    o["recall"] = res.mean[t].recall;
    o["fmeasure"] = res.mean[t].fmeasure;
    j[opt.types[t]] = o;
  }
  j["n"] = c.hyps.size();
  j["signature"] = opt.signature();
  if (sc.json()) {
    sc.emit_json(j);
  } else {
    for (size_t t = 0; t < opt.types.size(); ++t)
      sc.print(format("%s P: %.6f R: %.6f F: %.6f\n", opt.types[t].c_str(), res.mean[t].precision,
                      res.mean[t].recall, res.mean[t].fmeasure));
    sc.print("signature: " + opt.signature() + "\n");
  }
  return;
}

void run_rouge(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  std::string mode = ov.str("mode");
  if (mode == "rouge155" || mode == "rouge-1.5.5") return run_rouge155(sc);
  if (mode == "rouge-score") return run_rouge_score(sc);
  throw InputError("--mode must be rouge155 or rouge-score, not '" + mode + "'");
}

void run_coco(ScoreContext& sc) {
  const auto& hyps = sc.per_segment_input() ? sc.hyps() : sc.corpus().hyps;
  metrics::CocoRougeLResult res;
  if (sc.per_segment_input()) {  // coco_rouge_l_corpus over references per segment
    const auto& refs = sc.segment_refs();
    res.per_segment.reserve(hyps.size());
    for (size_t i = 0; i < hyps.size(); ++i)
      res.per_segment.push_back(metrics::coco_rouge_l(hyps[i], refs[i]));
    res.score = metrics::coco_rouge_mean(res.per_segment);
  } else {
    res = metrics::coco_rouge_l_corpus(hyps, sc.corpus().refs);
  }
  if (sc.segments_wanted()) {
    std::vector<std::vector<double>> rows;
    rows.reserve(res.per_segment.size());
    for (double v : res.per_segment) rows.push_back({v});
    sc.set_segments({"ROUGE_L"}, std::move(rows));
  }
  nlohmann::ordered_json j;
  j["ROUGE_L"] = res.score;
  j["n"] = hyps.size();
  j["signature"] = "rouge-l-coco|beta:1.2|tok:split-space|agg:np.mean";
  if (sc.json())
    sc.emit_json(j);
  else
    sc.print(format("ROUGE_L: %.6f\nsignature: %s\n", res.score,
                    j["signature"].get<std::string>().c_str()));
  return;
}

}  // namespace

void register_rouge_metrics(MetricRegistry& reg) {
  reg.push_back(
      {"rouge",
       "ROUGE-1.5.5 exactly (R/P/F, bootstrap Average and CI; Perl flags -n -m -c -r ...) "
       "or --mode rouge-score",
       rouge_options(), run_rouge, "rouge", check_rouge});
  reg.push_back({"rouge-l-coco",
                 "coco-caption / nqg ROUGE-L (beta 1.2), as in the QG tables",
                 {},
                 run_coco,
                 "rouge-l-coco",
                 nullptr});
}

}  // namespace unieval::metrics
