// Follows UniLM (MIT) and coco-caption (BSD-2-Clause) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
#include "tasks/squad_qg.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <unordered_map>

#include "core/error.h"
#include "core/io.h"
#include "core/py_string.h"
#include "metrics/rouge_coco.h"
#include "tasks/metric_set.h"
#include "tasks/registry.h"
#include "tasks/unilm_text.h"

namespace unieval::tasks {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

std::string find_split_file(const fs::path& dir, const std::string& prefix,
                            const std::string& split) {
  for (const char* ext : {".txt", ".txt.gz"}) {
    fs::path p = dir / (prefix + split + ext);
    if (fs::exists(p)) return p.string();
  }
  throw InputError(dir.string(), 0, "no " + prefix + split + ".txt (or .txt.gz) in this folder");
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The partner of a data file: src-X <-> tgt-X (nqg), X.pa.tok.txt <-> X.q.tok.txt (UniLM's
// qg_data, which ERNIE-GEN's script reads); "" when the name is neither.
std::string partner_name(const std::string& name, bool* is_src) {
  if (name.rfind("src-", 0) == 0) return *is_src = true, "tgt-" + name.substr(4);
  if (name.rfind("tgt-", 0) == 0) return *is_src = false, "src-" + name.substr(4);
  for (const char* gz : {"", ".gz"}) {
    std::string pa = std::string(".pa.tok.txt") + gz, q = std::string(".q.tok.txt") + gz;
    if (ends_with(name, pa)) return *is_src = true, name.substr(0, name.size() - pa.size()) + q;
    if (ends_with(name, q)) return *is_src = false, name.substr(0, name.size() - q.size()) + pa;
  }
  return "";
}

// (src, tgt) files of the requested split. reversed: dev and test swapped (Zhao et al. 2018).
std::pair<std::string, std::string> resolve_files(const std::string& data, const std::string& split,
                                                  bool reversed) {
  fs::path p(data);
  if (fs::is_directory(p)) {
    std::string file_split = split;
    if (reversed && split == "test")
      file_split = "dev";
    else if (reversed && split == "dev")
      file_split = "test";
    for (const char* ext : {".txt", ".txt.gz"})
      if (fs::exists(p / ("src-" + file_split + ext)))
        return {(p / ("src-" + file_split + ext)).string(), find_split_file(p, "tgt-", file_split)};
    for (const fs::path& dir : {p, p / file_split})
      for (const char* gz : {"", ".gz"}) {
        fs::path pa = dir / (file_split + ".pa.tok.txt" + gz);
        if (!fs::exists(pa)) continue;
        fs::path q = dir / (file_split + ".q.tok.txt" + gz);
        if (!fs::exists(q))
          throw InputError(q.string(), 0, "no such file (the partner of " + pa.string() + ")");
        return {pa.string(), q.string()};
      }
    throw InputError(data, 0,
                     "no src-" + file_split + ".txt (or .txt.gz; tgt-" + file_split +
                         " beside it), nor " + file_split +
                         ".pa.tok.txt / .q.tok.txt, in this folder");
  }
  bool is_src = false;
  std::string other = partner_name(p.filename().string(), &is_src);
  if (other.empty())
    throw InputError(
        data, 0,
        "expected the nqg folder (src-/tgt-{dev,test}.txt) or a src-*/tgt-* (or *.pa.tok.txt / "
        "*.q.tok.txt) file");
  fs::path partner = p.parent_path() / other;
  if (!fs::exists(partner))
    throw InputError(partner.string(), 0, "no such file (the partner of " + data + ")");
  return is_src ? std::make_pair(data, partner.string()) : std::make_pair(partner.string(), data);
}

// The pipeline options of a request (checked), and the signature suffix they give.
struct QgSettings {
  bool ernie = false;
  std::string fix;   // "true" / "false"
  std::string prep;  // signature suffix
};

QgSettings qg_settings(const EvalRequest& req) {
  QgSettings q;
  std::string pipeline = option(req, "pipeline", "unilm");
  if (pipeline != "unilm" && pipeline != "ernie-gen")
    throw InputError("--option pipeline=" + pipeline + ": expected unilm or ernie-gen");
  q.ernie = pipeline == "ernie-gen";
  if (q.ernie && req.options.count("fix_tokenization"))
    throw InputError(
        "--option fix_tokenization: only with pipeline=unilm (ERNIE-GEN's script applies none)");
  q.fix = option(req, "fix_tokenization", q.ernie ? "false" : "true");
  if (q.fix != "true" && q.fix != "false")
    throw InputError("--option fix_tokenization: expected true or false");
  q.prep = q.ernie ? std::string(
                         "|qg:ernie-gen-eval_on_unilm_tokenized_ref.py|group:source|pred:lower|ref:"
                         "wordpiece+lower")
                   : std::string("|qg:nqg-eval.py|group:source|pred:") +
                         (q.fix == "true" ? "fix_tokenization+lower" : "lower");
  return q;
}

// The official metric set of eval.py: coco BLEU-1..4, METEOR 1.5 -norm (coco wrapper), coco ROUGE-L.
std::vector<TaskMetric> qg_metrics(const EvalRequest& req) {
  const QgSettings q = qg_settings(req);
  TaskMetric bleu;
  bleu.id = "bleu-coco";
  bleu.call = {"bleu-coco", {}};
  bleu.signature = "bleu-coco|n:4|option:closest";
  bleu.signature_suffix = q.prep;
  bleu.options = {{"fix_tokenization", q.fix == "true"}};
  for (int n = 1; n <= 4; ++n)
    bleu.scores.push_back({"bleu" + std::to_string(n), "/Bleu_" + std::to_string(n), "fraction",
                           "Bleu_" + std::to_string(n)});

  TaskMetric meteor;
  const std::string mods = option(req, "meteor_modules", "exact,stem,synonym,paraphrase");
  meteor.id = "meteor";
  meteor.call = {"meteor", {{"modules", mods}, {"norm", true}}};
  if (req.options.count("meteor_data"))
    meteor.call.options.push_back({"meteor-data", req.options.at("meteor_data")});
  meteor.signature_suffix = "|stdio-coco" + q.prep;
  meteor.options = {{"normalize", "-norm"}, {"modules", mods}};
  meteor.scores = {{"meteor", "/score", "fraction", "score"}};
  meteor.hints.options = {
      {"meteor-data", "--option meteor_data=DIR"},
      {"modules", "--option meteor_modules=exact,stem,synonym"},
      {"paraphrase", "DIR/paraphrase-en.gz (DIR = --option meteor_data or $UNIEVAL_METEOR_DATA)"}};

  TaskMetric rouge;
  rouge.id = "rouge-l-coco";
  rouge.call = {"rouge-l-coco", {}};
  rouge.signature = "rouge-l-coco|beta:1.2|split:space";
  rouge.signature_suffix = q.prep;
  rouge.options = {{"beta", metrics::kCocoRougeBeta}};
  rouge.scores = {{"rougeL", "/ROUGE_L", "fraction", ""}};
  return {bleu, meteor, rouge};
}

TaskOutput run_squad_qg(const EvalRequest& req, bool reversed) {
  auto t0 = Clock::now();
  const std::string key_name = reversed ? "squad-qg-reversed" : "squad-qg";
  std::string split = req.split.empty() ? "test" : req.split;
  if (split != "test" && split != "dev" && split != "train")
    throw InputError("--split " + split + ": " + key_name + " has test, dev (and train)");
  const QgSettings q = qg_settings(req);
  const std::vector<TaskMetric> metric_set = qg_metrics(req);
  auto [src_path, tgt_path] = resolve_files(req.data, split, reversed);

  bool src_clip = false, tgt_clip = false, pred_clip = false;
  std::vector<std::string> src = read_lines_py_slice(src_path, &src_clip);
  std::vector<std::string> tgt = read_lines_py_slice(tgt_path, &tgt_clip);
  std::vector<std::string> pred = read_lines_py_slice(req.pred, &pred_clip);
  if (tgt.size() != src.size())
    throw InputError(tgt_path, 0,
                     std::to_string(tgt.size()) + " questions for " + std::to_string(src.size()) +
                         " sentences in " + src_path);
  if (pred.size() != src.size())
    throw InputError(req.pred, 0,
                     std::to_string(pred.size()) + " predictions for " +
                         std::to_string(src.size()) + " sentences in " + src_path);
  if (q.ernie) {
    // eval_on_unilm_tokenized_ref.py (Python 3 str): WordPiece pieces of the references glued and
    // lower-cased, predictions only stripped and lower-cased.
    for (auto& s : src) s = py3_lower(py3_strip(s));
    for (auto& t : tgt) t = py3_lower(wordpiece_detokenize(py3_strip(t), true));
    for (auto& h : pred) h = py3_lower(py3_strip(h));
  } else {
    for (auto& s : src) s = py2_lower(py2_strip(s));
    for (auto& t : tgt) t = py2_strip(t);
    for (auto& h : pred)
      h = py2_lower(q.fix == "true" ? unilm_fix_tokenization(py2_strip(h)) : py2_strip(h));
  }
  QgGroups g = group_qg_by_source(src, tgt, pred);
  auto t1 = Clock::now();

  TaskOutput out;
  auto& r = out.result;
  r.task = key_name;
  r.split = split;
  r.examples = static_cast<long>(g.keys.size());
  out.hypotheses = g.hyps;  // as scored: one per source sentence (its last line's prediction)
  for (const auto& refs : g.refs) out.first_references.push_back(refs.front());

  // Each key's references as the multiple references of its prediction (through the metric
  // protocol, metrics/protocol.h; tasks/metric_set.h).
  std::vector<std::vector<double>> bleu_seg, rouge_seg;
  std::vector<double> meteor_seg;
  for (const TaskMetric& m : metric_set) {
    if (skipped(req, m)) {
      r.notes.push_back(skip_note(m));
      continue;
    }
    if (m.call.metric == "meteor") {
      // The coco wrapper's SCORE line: hypothesis without "|||", double spaces made single.
      std::vector<std::string> mh;
      mh.reserve(g.hyps.size());
      for (const auto& h : g.hyps)
        mh.push_back(core::py_replace(core::py_replace(h, "|||", ""), "  ", " "));
      metrics::MetricRun mr = score_task_metric(out, m, mh, g.refs, req);
      for (const auto& v : mr.objects.front().at("segment_scores"))
        meteor_seg.push_back(json_number(v));
    } else {
      metrics::MetricRun mr = score_task_metric(out, m, g.hyps, g.refs, req);
      (m.call.metric == "bleu-coco" ? bleu_seg : rouge_seg) = std::move(mr.segments);
    }
  }

  r.notes.push_back(std::to_string(src.size()) + " pairs, " + std::to_string(g.keys.size()) +
                    " distinct source sentences (" + std::to_string(g.repeated_keys) +
                    " with several questions: multiple references, last prediction scored)");
  if (reversed)
    r.notes.push_back("reversed dev-test split (Zhao et al. 2018): split '" + split +
                      "' read from " + src_path);
  const std::vector<std::pair<bool, std::string>> clips = {
      {src_clip, src_path}, {tgt_clip, tgt_path}, {pred_clip, req.pred}};
  for (const auto& [clip, path] : clips)
    if (clip)
      r.notes.push_back(path +
                        ": last line has no newline; eval.py's line[:-1] drops its last character, "
                        "and so did we");
  // coco's ROUGE-L is the mean of the sentence scores: its CI and paired test resample them.
  if (!rouge_seg.empty()) {
    std::vector<double>& v = out.mean_decomposable["rougeL"];
    for (const auto& row : rouge_seg) v.push_back(row[0]);
  }
  for (size_t i = 0; i < g.keys.size(); ++i) {
    results::ExampleScores e;
    e.id = "line " + std::to_string(g.last_line[i]);
    if (!bleu_seg.empty()) e.scores["bleu4"] = bleu_seg[i][3];
    if (!rouge_seg.empty()) e.scores["rougeL"] = rouge_seg[i][0];
    if (!meteor_seg.empty()) e.scores["meteor"] = meteor_seg[i];
    r.per_example.push_back(std::move(e));
  }
  r.timings.load_s = std::chrono::duration<double>(t1 - t0).count();
  r.timings.score_s = std::chrono::duration<double>(Clock::now() - t1).count();
  return out;
}

TaskInfo qg_info(bool reversed) {
  TaskInfo i;
  i.name = reversed ? "squad-qg-reversed" : "squad-qg";
  i.summary = reversed
                  ? "SQuAD QG, reversed dev-test split (Zhao et al. 2018: test = Du's dev files)"
                  : "SQuAD question generation, Du et al. 2017 split (nqg/UniLM eval.py)";
  i.data_format =
      "nqg data/processed folder (src-/tgt-{dev,test}.txt[.gz]), a src-*/tgt-* file, or UniLM "
      "qg_data *.pa.tok.txt/*.q.tok.txt";
  i.pred_format = "one question per line, aligned with src-/tgt- lines";
  i.metrics =
      "bleu1-4 (coco), meteor (1.5 -norm, coco stdio), rougeL (coco); source-keyed references";
  i.default_split = "test";
  i.options = {
      {"meteor_data", "METEOR 1.5 resources folder (default $UNIEVAL_METEOR_DATA)"},
      {"meteor_modules", "METEOR stages (default exact,stem,synonym,paraphrase = -l en)"},
      {"fix_tokenization", "UniLM fix_tokenization on predictions (default true)"},
      {"pipeline", "unilm (qg/eval.py, default) or ernie-gen (eval_on_unilm_tokenized_ref.py)"}};
  return i;
}

}  // namespace

std::vector<std::string> read_lines_py_slice(const std::string& path, bool* clipped) {
  std::string text = core::read_file(path);
  core::ReadLinesOptions o;
  o.strip_cr = false;  // line[:-1] removes the '\n' only; strip() then removes a '\r'
  std::vector<std::string> lines = core::split_lines(text, path, o);
  *clipped = false;
  if (!text.empty() && text.back() != '\n' && !lines.empty() && !lines.back().empty()) {
    lines.back().pop_back();
    *clipped = true;
  }
  return lines;
}

QgGroups group_qg_by_source(const std::vector<std::string>& keys,
                            const std::vector<std::string>& refs,
                            const std::vector<std::string>& hyps) {
  QgGroups g;
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < keys.size(); ++i) {
    auto [it, fresh] = index.emplace(keys[i], g.keys.size());
    if (fresh) {
      g.keys.push_back(keys[i]);
      g.hyps.push_back(hyps[i]);
      g.refs.push_back({refs[i]});
      g.last_line.push_back(static_cast<long>(i + 1));
    } else {
      size_t k = it->second;
      if (g.refs[k].size() == 1) ++g.repeated_keys;
      g.hyps[k] = hyps[i];
      g.refs[k].push_back(refs[i]);
      g.last_line[k] = static_cast<long>(i + 1);
    }
  }
  return g;
}

std::vector<TaskAdapter> squad_qg_adapters() {
  return {{qg_info(false), [](const EvalRequest& r) { return run_squad_qg(r, false); }, qg_metrics},
          {qg_info(true), [](const EvalRequest& r) { return run_squad_qg(r, true); }, qg_metrics}};
}

}  // namespace unieval::tasks
