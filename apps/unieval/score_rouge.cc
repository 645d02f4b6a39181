// score_rouge.cc: the rouge metric family of `unieval score`:
//   --metric rouge         ROUGE-1.5.5 (default --mode rouge155) or google rouge-score (--mode rouge-score)
//   --metric rouge-l-coco  coco-caption / nqg ROUGE-L (beta 1.2)
// The Perl flags of ROUGE-1.5.5 are accepted as written (-c 95 -r 1000 -n 2 -a -m, -2 -1 -U ...).
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "apps/unieval/score.h"
#include "core/error.h"
#include "core/io.h"
#include "metrics/rouge.h"
#include "metrics/rouge_coco.h"
#include "metrics/rouge_score.h"

namespace unieval::cli {

namespace {

namespace fs = std::filesystem;
using metrics::Rouge155Options;
using metrics::RougeInstance;

void add_rouge_options(po::options_description& d) {
  d.add_options()
      ("mode", po::value<std::string>()->default_value("rouge155"),
       "rouge155: ROUGE-1.5.5.pl numbers (default); rouge-score: google-research rouge-score.")
      ("sentence-sep", po::value<std::string>()->default_value(""),
       "Sentence separator inside a line, e.g. '<n>', '<q>', '[X_SEP]', '<S_SEP>' (pieces are "
       "trimmed, empty ones dropped). Default: the whole line is one sentence.")
      ("hyp-dir", po::value<std::string>(),
       "rouge155: directory of system summaries, one file per summary, one sentence per line "
       "(SPL, as pyrouge feeds ROUGE-1.5.5); evaluated in file-name order.")
      ("ref-dir", po::value<std::vector<std::string>>()->composing(),
       "rouge155: directory of reference summaries with the same file names; repeat for several "
       "references.")
      ("rouge-data,e", po::value<std::string>()->default_value(""),
       "ROUGE-1.5.5 data directory (WordNet-2.0-Exceptions/*.exc, smart_common_words.txt); "
       "default $UNIEVAL_ROUGE_DATA. Needed by -m and -s.")
      ("no-wordnet-exceptions", po::bool_switch(),
       "With -m: Porter stemming WITHOUT the WordNet exception lookup (what an empty "
       "WordNet-2.0.exc.db gives; not the original ROUGE-1.5.5 numbers).")
      ("max-ngram,n", po::value<int>()->default_value(0), "-n N: ROUGE-1..N.")
      ("no-lcs,x", po::bool_switch(), "-x: do not compute ROUGE-L.")
      ("wlcs-weight,w", po::value<std::string>(), "-w W: ROUGE-W with weight W (e.g. 1.2).")
      ("skip-gap,2", po::value<std::string>(),
       "-2 D: ROUGE-S with max gap D (-1: unlimited, ROUGE-S*).")
      ("skip-unigram,u", po::bool_switch(), "-u: ROUGE-SU (skip-bigrams plus unigrams) instead of S.")
      ("skip-both,U", po::bool_switch(), "-U: ROUGE-S and ROUGE-SU.")
      ("stem,m", po::bool_switch(),
       "-m: WordNet exceptions + ROUGE's Porter stemmer (rouge155); NLTK Porter (rouge-score).")
      ("stopwords,s", po::bool_switch(), "-s: remove smart_common_words.txt stopwords.")
      ("length-limit,l", po::value<long>()->default_value(0), "-l N: first N words of every summary.")
      ("byte-limit,b", po::value<long>()->default_value(0), "-b N: first N bytes of every summary.")
      ("formula,f", po::value<std::string>()->default_value("A"), "-f A|B: model average or best model.")
      ("alpha,p", po::value<double>()->default_value(0.5), "-p ALPHA: F = PR/((1-a)P + aR).")
      ("confidence,c", po::value<double>(), "-c CF: confidence level of the bounds (default 95).")
      ("resamples,r", po::value<int>(), "-r N: bootstrap resamples (default 1000).")
      ("per-instance,d", po::bool_switch(), "-d: per-instance scores (JSON: \"instances\").")
      ("all,a", po::bool_switch(), "-a: accepted for compatibility (always all).")
      ("input-format,z", po::value<std::string>(), "-z SPL: accepted for compatibility (SPL only).")
      ("count-mode,t", po::value<std::string>(),
       "-t 0: average the per-summary scores (ROUGE-1.5.5's default, what is always computed). "
       "-t 1 and -t 2 (corpus-level token counting) are refused: our ROUGE-1.5.5 specification "
       "and golden vectors do not pin them down, so their numbers could not be shown identical.")
      ("basic-elements,3", po::value<std::string>(),
       "-3 MODE (ROUGE-BE, Basic Elements): refused; it scores the output files of an external "
       "BE parser, whose format our ROUGE-1.5.5 specification does not cover.")
      ("threads", po::value<int>()->default_value(1),
       "Worker threads for scoring and bootstrap (numbers are identical for any value).")
      ("rouge-types", po::value<std::string>()->default_value("rouge1,rouge2,rougeL,rougeLsum"),
       "rouge-score: comma-separated types (rouge1..rouge9, rougeL, rougeLsum).");
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
}

// Line files: hyp and ref streams with the same number of lines. ROUGE-1.5.5 is byte-oriented,
// so its input is not UTF-8 checked.
Corpus read_line_corpus(const po::variables_map& vm, bool check_utf8) {
  std::string hyp = hyp_path(vm);
  std::vector<std::string> refs = ref_paths(vm);
  if (check_utf8) return read_corpus(hyp, refs);
  ReadLinesOptions lo;
  lo.check_utf8 = false;
  Corpus c;
  c.hyps = read_lines(hyp, lo);
  for (const auto& r : refs) {
    c.refs.push_back(read_lines(r, lo));
    if (c.refs.back().size() != c.hyps.size())
      throw InputError(r, 0, "has " + std::to_string(c.refs.back().size()) + " lines but " + hyp +
                                 " has " + std::to_string(c.hyps.size()));
  }
  return c;
}

// An SPL file: every line a sentence (empty lines are skipped later, as the script does).
metrics::RougeSummary read_spl(const std::string& path) {
  std::string text = read_file(path);
  metrics::RougeSummary out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

int run_rouge155(const po::variables_map& vm) {
  Rouge155Options opt;
  opt.max_n = vm["max-ngram"].as<int>();
  opt.lcs = !vm["no-lcs"].as<bool>();
  if (vm.count("wlcs-weight")) opt.wlcs_weight = vm["wlcs-weight"].as<std::string>();
  if (vm.count("skip-gap")) opt.skip_distance = vm["skip-gap"].as<std::string>();
  opt.skip_unigram = vm["skip-unigram"].as<bool>();
  opt.skip_both = vm["skip-both"].as<bool>();
  opt.stem = vm["stem"].as<bool>();
  opt.use_exceptions = !vm["no-wordnet-exceptions"].as<bool>();
  opt.remove_stopwords = vm["stopwords"].as<bool>();
  opt.length_limit = vm["length-limit"].as<long>();
  opt.byte_limit = vm["byte-limit"].as<long>();
  std::string formula = vm["formula"].as<std::string>();
  if (formula != "A" && formula != "B") throw InputError("-f must be A or B, not '" + formula + "'");
  opt.formula = formula[0];
  opt.alpha = vm["alpha"].as<double>();
  bool want_ci = vm.count("confidence") || vm.count("resamples");
  if (vm.count("confidence")) opt.confidence = vm["confidence"].as<double>();
  if (vm.count("resamples")) opt.resamples = vm["resamples"].as<int>();
  opt.threads = vm["threads"].as<int>();
  if (vm.count("input-format")) {
    std::string z = vm["input-format"].as<std::string>();
    if (z != "SPL" && z != "spl")
      throw InputError("-z " + z + ": only SPL input is supported (use --hyp-dir/--ref-dir or line files)");
  }
  if (vm.count("count-mode")) {
    // ROUGE-1.5.5's -t 0 (the default: per-summary scores averaged) is what rouge155() computes.
    std::string t = vm["count-mode"].as<std::string>();
    if (t == "1" || t == "2")
      throw InputError("-t " + t + " (corpus-level token counting) is not supported: the "
                       "ROUGE-1.5.5 specification we reproduce does not "
                       "describe it precisely and no golden vectors check it, so its numbers could not "
                       "be shown identical to the script's; -t 0 (the default) is supported");
    if (t != "0") throw InputError("-t must be 0, 1 or 2, not '" + t + "'");
  }
  if (vm.count("basic-elements"))
    throw InputError("-3 " + vm["basic-elements"].as<std::string>() +
                     ": ROUGE-BE (Basic Elements) is not supported: it scores pre-computed files of an "
                     "external BE parser, whose format the ROUGE-1.5.5 specification we reproduce does "
                     "not describe and no golden vectors check");
  opt.validate();

  // Language resources.
  std::string dir = metrics::rouge_data_dir(vm["rouge-data"].as<std::string>());
  bool need_exc = opt.stem && opt.use_exceptions;
  metrics::RougeResources res;
  if (dir.empty()) {
    if (need_exc)
      throw InputError(
          "-m needs ROUGE-1.5.5's WordNet 2.0 exception lists: pass --rouge-data DIR (or set "
          "UNIEVAL_ROUGE_DATA) to the ROUGE-1.5.5 data directory that holds "
          "WordNet-2.0-Exceptions/{adj,adv,noun,verb}.exc; --no-wordnet-exceptions stems without "
          "them (a different number from the original ROUGE-1.5.5)");
    if (opt.remove_stopwords)
      throw InputError("-s needs smart_common_words.txt: pass --rouge-data DIR or set UNIEVAL_ROUGE_DATA");
  } else {
    if (!fs::is_directory(dir)) throw InputError(dir, 0, "--rouge-data: not a directory");
    res = metrics::RougeResources::load(dir, need_exc, opt.remove_stopwords);
  }

  // Input.
  std::vector<RougeInstance> corpus;
  std::vector<std::string> ref_names;  // for error messages
  std::vector<std::string> instance_names;
  bool dirs = vm.count("hyp-dir") || vm.count("ref-dir");
  if (dirs) {
    if (!vm.count("hyp-dir") || !vm.count("ref-dir"))
      throw InputError("--hyp-dir and --ref-dir go together");
    if (vm.count("hyp") || vm.count("ref"))
      throw InputError("use either --hyp/--ref (line files) or --hyp-dir/--ref-dir (SPL files)");
    std::string hdir = vm["hyp-dir"].as<std::string>();
    auto rdirs = vm["ref-dir"].as<std::vector<std::string>>();
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
        if (!fs::exists(p)) throw InputError(p.string(), 0, "reference file missing for system file " + name);
        inst.models.push_back(read_spl(p.string()));
      }
      corpus.push_back(std::move(inst));
      instance_names.push_back(name);
    }
    ref_names = rdirs;
  } else {
    Corpus c = read_line_corpus(vm, false);
    std::string sep = vm["sentence-sep"].as<std::string>();
    corpus.resize(c.hyps.size());
    for (size_t i = 0; i < c.hyps.size(); ++i) {
      corpus[i].peer = metrics::split_summary(c.hyps[i], sep);
      for (const auto& stream : c.refs) corpus[i].models.push_back(metrics::split_summary(stream[i], sep));
    }
    ref_names = ref_paths(vm);
  }

  metrics::Rouge155Result result;
  try {
    result = metrics::rouge155(corpus, opt, res);
  } catch (const metrics::RougeEmptyModelError& e) {
    if (dirs)
      throw InputError((fs::path(ref_names[e.model()]) / instance_names[e.instance()]).string(), 0, e.problem());
    throw InputError(ref_names[e.model()], static_cast<long>(e.instance() + 1), e.problem());
  }

  bool per_instance = vm["per-instance"].as<bool>();
  if (!want_json(vm)) {
    std::cout << metrics::rouge155_report(result, opt, per_instance) << "signature: " << result.signature
              << "\n";
    return kExitOk;
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
  print_json(j);
  return kExitOk;
}

int run_rouge_score(const po::variables_map& vm) {
  for (const char* f : {"hyp-dir", "ref-dir", "wlcs-weight", "skip-gap", "confidence", "resamples",
                        "input-format", "count-mode", "basic-elements"})
    if (vm.count(f)) throw InputError(std::string("--") + f + " is a ROUGE-1.5.5 option; not used by --mode rouge-score");
  for (const char* f : {"no-lcs", "skip-unigram", "skip-both", "stopwords", "per-instance", "no-wordnet-exceptions"})
    if (vm[f].as<bool>()) throw InputError(std::string("--") + f + " is a ROUGE-1.5.5 option; not used by --mode rouge-score");
  metrics::RougeScoreOptions opt;
  opt.stem = vm["stem"].as<bool>();
  opt.types.clear();
  std::string types = vm["rouge-types"].as<std::string>();
  size_t pos = 0;
  while (pos <= types.size()) {
    size_t end = types.find(',', pos);
    if (end == std::string::npos) end = types.size();
    if (end > pos) opt.types.push_back(types.substr(pos, end - pos));
    pos = end + 1;
  }
  opt.validate();
  Corpus c = read_line_corpus(vm, true);
  std::string sep = vm["sentence-sep"].as<std::string>();
  if (!sep.empty()) {
    for (auto& h : c.hyps) replace_all(h, sep, "\n");
    for (auto& stream : c.refs)
      for (auto& r : stream) replace_all(r, sep, "\n");
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
  if (want_json(vm)) {
    print_json(j);
  } else {
    for (size_t t = 0; t < opt.types.size(); ++t)
      std::printf("%s P: %.6f R: %.6f F: %.6f\n", opt.types[t].c_str(), res.mean[t].precision,
                  res.mean[t].recall, res.mean[t].fmeasure);
    std::cout << "signature: " << opt.signature() << "\n";
  }
  return kExitOk;
}

int run_rouge(const po::variables_map& vm) {
  std::string mode = vm["mode"].as<std::string>();
  if (mode == "rouge155" || mode == "rouge-1.5.5") return run_rouge155(vm);
  if (mode == "rouge-score") return run_rouge_score(vm);
  throw InputError("--mode must be rouge155 or rouge-score, not '" + mode + "'");
}

int run_coco(const po::variables_map& vm) {
  Corpus c = read_corpus(hyp_path(vm), ref_paths(vm));
  auto res = metrics::coco_rouge_l_corpus(c.hyps, c.refs);
  nlohmann::ordered_json j;
  j["ROUGE_L"] = res.score;
  j["n"] = c.hyps.size();
  j["signature"] = "rouge-l-coco|beta:1.2|tok:split-space|agg:np.mean";
  if (want_json(vm)) print_json(j);
  else std::printf("ROUGE_L: %.6f\nsignature: %s\n", res.score, j["signature"].get<std::string>().c_str());
  return kExitOk;
}

}  // namespace

void register_rouge_metrics(ScoreRegistry& reg) {
  reg.push_back({"rouge",
                 "ROUGE-1.5.5 exactly (R/P/F, bootstrap Average and CI; Perl flags -n -m -c -r ...) "
                 "or --mode rouge-score",
                 add_rouge_options, run_rouge, "rouge"});
  reg.push_back({"rouge-l-coco", "coco-caption / nqg ROUGE-L (beta 1.2), as in the QG tables",
                 [](po::options_description&) {}, run_coco, "rouge-l-coco"});
}

}  // namespace unieval::cli
