// Follows UniLM (MIT) and coco-caption (BSD-2-Clause) behaviour; clean-room, see
// THIRD_PARTY_NOTICES.md.
#include "tasks/squad_qg.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <unordered_map>

#include "metrics/bleu_compat.h"
#include "core/error.h"
#include "core/io.h"
#include "metrics/meteor.h"
#include "metrics/rouge_coco.h"
#include "tasks/registry.h"
#include "tasks/unilm_text.h"
#include "core/py_string.h"

namespace unieval::tasks {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

std::string find_split_file(const fs::path& dir, const std::string& prefix, const std::string& split) {
  for (const char* ext : {".txt", ".txt.gz"}) {
    fs::path p = dir / (prefix + split + ext);
    if (fs::exists(p)) return p.string();
  }
  throw InputError(dir.string(), 0, "no " + prefix + split + ".txt (or .txt.gz) in this folder");
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
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
    if (reversed && split == "test") file_split = "dev";
    else if (reversed && split == "dev") file_split = "test";
    for (const char* ext : {".txt", ".txt.gz"})
      if (fs::exists(p / ("src-" + file_split + ext)))
        return {(p / ("src-" + file_split + ext)).string(), find_split_file(p, "tgt-", file_split)};
    for (const fs::path& dir : {p, p / file_split})
      for (const char* gz : {"", ".gz"}) {
        fs::path pa = dir / (file_split + ".pa.tok.txt" + gz);
        if (!fs::exists(pa)) continue;
        fs::path q = dir / (file_split + ".q.tok.txt" + gz);
        if (!fs::exists(q)) throw InputError(q.string(), 0, "no such file (the partner of " + pa.string() + ")");
        return {pa.string(), q.string()};
      }
    throw InputError(data, 0, "no src-" + file_split + ".txt (or .txt.gz; tgt-" + file_split + " beside it), nor " +
                                  file_split + ".pa.tok.txt / .q.tok.txt, in this folder");
  }
  bool is_src = false;
  std::string other = partner_name(p.filename().string(), &is_src);
  if (other.empty())
    throw InputError(data, 0, "expected the nqg folder (src-/tgt-{dev,test}.txt) or a src-*/tgt-* (or *.pa.tok.txt / "
                              "*.q.tok.txt) file");
  fs::path partner = p.parent_path() / other;
  if (!fs::exists(partner)) throw InputError(partner.string(), 0, "no such file (the partner of " + data + ")");
  return is_src ? std::make_pair(data, partner.string()) : std::make_pair(partner.string(), data);
}

TaskOutput run_squad_qg(const EvalRequest& req, bool reversed) {
  auto t0 = Clock::now();
  const std::string key_name = reversed ? "squad-qg-reversed" : "squad-qg";
  std::string split = req.split.empty() ? "test" : req.split;
  if (split != "test" && split != "dev" && split != "train")
    throw InputError("--split " + split + ": " + key_name + " has test, dev (and train)");
  std::string pipeline = option(req, "pipeline", "unilm");
  if (pipeline != "unilm" && pipeline != "ernie-gen")
    throw InputError("--option pipeline=" + pipeline + ": expected unilm or ernie-gen");
  const bool ernie = pipeline == "ernie-gen";
  if (ernie && req.options.count("fix_tokenization"))
    throw InputError("--option fix_tokenization: only with pipeline=unilm (ERNIE-GEN's script applies none)");
  std::string fix = option(req, "fix_tokenization", ernie ? "false" : "true");
  if (fix != "true" && fix != "false") throw InputError("--option fix_tokenization: expected true or false");
  auto [src_path, tgt_path] = resolve_files(req.data, split, reversed);

  bool src_clip = false, tgt_clip = false, pred_clip = false;
  std::vector<std::string> src = read_lines_py_slice(src_path, &src_clip);
  std::vector<std::string> tgt = read_lines_py_slice(tgt_path, &tgt_clip);
  std::vector<std::string> pred = read_lines_py_slice(req.pred, &pred_clip);
  if (tgt.size() != src.size())
    throw InputError(tgt_path, 0, std::to_string(tgt.size()) + " questions for " + std::to_string(src.size()) +
                                      " sentences in " + src_path);
  if (pred.size() != src.size())
    throw InputError(req.pred, 0, std::to_string(pred.size()) + " predictions for " + std::to_string(src.size()) +
                                      " sentences in " + src_path);
  if (ernie) {
    // eval_on_unilm_tokenized_ref.py (Python 3 str): WordPiece pieces of the references glued and
    // lower-cased, predictions only stripped and lower-cased.
    for (auto& s : src) s = py3_lower(py3_strip(s));
    for (auto& t : tgt) t = py3_lower(wordpiece_detokenize(py3_strip(t), true));
    for (auto& h : pred) h = py3_lower(py3_strip(h));
  } else {
    for (auto& s : src) s = py2_lower(py2_strip(s));
    for (auto& t : tgt) t = py2_strip(t);
    for (auto& h : pred) h = py2_lower(fix == "true" ? unilm_fix_tokenization(py2_strip(h)) : py2_strip(h));
  }
  QgGroups g = group_qg_by_source(src, tgt, pred);
  auto t1 = Clock::now();

  TaskOutput out;
  auto& r = out.result;
  r.task = key_name;
  r.split = split;
  r.examples = static_cast<long>(g.keys.size());
  const std::string prep =
      ernie ? std::string("|qg:ernie-gen-eval_on_unilm_tokenized_ref.py|group:source|pred:lower|ref:wordpiece+lower")
            : std::string("|qg:nqg-eval.py|group:source|pred:") + (fix == "true" ? "fix_tokenization+lower" : "lower");

  metrics::CocoBleuScore b = metrics::coco_bleu(g.hyps, g.refs);
  r.metrics.push_back({"bleu-coco", "bleu-coco|n:4|option:closest" + prep, {{"fix_tokenization", fix == "true"}}});
  for (int n = 1; n <= 4; ++n)
    r.scores.push_back({"bleu" + std::to_string(n), b.bleu[n - 1], "bleu-coco", "fraction", true, std::nullopt});

  // The METEOR resource policy (metrics/meteor.h meteor_data_dir): option, else $UNIEVAL_METEOR_DATA.
  std::string meteor_dir = metrics::meteor_data_dir(option(req, "meteor_data", ""));
  std::vector<double> meteor_seg;
  const bool default_modules = !req.options.count("meteor_modules");
  const bool have_paraphrase = !meteor_dir.empty() && (fs::exists(fs::path(meteor_dir) / "paraphrase-en.gz") ||
                                                       fs::exists(fs::path(meteor_dir) / "data" / "paraphrase-en.gz"));
  if (meteor_dir.empty()) {
    r.notes.push_back("METEOR skipped: no METEOR 1.5 resources (--option meteor_data=DIR or $UNIEVAL_METEOR_DATA)");
  } else if (default_modules && !have_paraphrase) {
    // `-l en` needs the paraphrase table; asked for explicitly (meteor_modules) its absence is an
    // error, by default METEOR is left out with a note rather than failing the whole run.
    r.notes.push_back("METEOR skipped: " + meteor_dir + " has no paraphrase-en.gz, which meteor-1.5 -l en uses "
                      "(--option meteor_modules=exact,stem,synonym scores without it)");
  } else {
    metrics::MeteorOptions mopt;
    mopt.normalize = metrics::MeteorNormalize::kNorm;
    mopt.data_dir = meteor_dir;
    std::string mods = option(req, "meteor_modules", "exact,stem,synonym,paraphrase");
    mopt.modules.clear();
    size_t pos = 0;
    while (pos <= mods.size()) {
      size_t comma = mods.find(',', pos);
      std::string m = mods.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      if (!m.empty()) mopt.modules.push_back(metrics::parse_meteor_module(m));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    if (mopt.modules.empty()) throw InputError("--option meteor_modules: no module named");
    // The coco wrapper's SCORE line: hypothesis without "|||", double spaces made single.
    std::vector<std::string> mh;
    mh.reserve(g.hyps.size());
    for (const auto& h : g.hyps) mh.push_back(core::py_replace(core::py_replace(h, "|||", ""), "  ", " "));
    // Reference streams: keys have 1..k references; padding with a copy of the key's first
    // reference leaves the best-reference choice (a max over references) unchanged.
    size_t k = 0;
    for (const auto& rs : g.refs) k = std::max(k, rs.size());
    std::vector<std::vector<std::string>> streams(k, std::vector<std::string>(g.refs.size()));
    for (size_t i = 0; i < g.refs.size(); ++i)
      for (size_t j = 0; j < k; ++j) streams[j][i] = j < g.refs[i].size() ? g.refs[i][j] : g.refs[i][0];
    std::unique_ptr<metrics::MeteorScorer> scorer;
    try {
      scorer = std::make_unique<metrics::MeteorScorer>(mopt);
    } catch (const InputError& e) {
      // The scorer's hint names `unieval score` flags; say how to do it here.
      throw InputError(e.file(), e.line(), e.problem() + " [unieval eval: --option meteor_modules=exact,stem,synonym]");
    }
    metrics::MeteorResult mr = scorer->score(mh, streams);
    r.metrics.push_back({"meteor", mopt.signature() + "|stdio-coco" + prep, {{"normalize", "-norm"}, {"modules", mods}}});
    r.scores.push_back({"meteor", mr.score, "meteor", "fraction", true, std::nullopt});
    meteor_seg = mr.segment_scores;
  }

  std::vector<double> rouge_seg;
  rouge_seg.reserve(g.hyps.size());
  for (size_t i = 0; i < g.hyps.size(); ++i) rouge_seg.push_back(metrics::coco_rouge_l(g.hyps[i], g.refs[i]));
  r.metrics.push_back({"rouge-l-coco", "rouge-l-coco|beta:1.2|split:space" + prep, {{"beta", metrics::kCocoRougeBeta}}});
  r.scores.push_back({"rougeL", metrics::coco_rouge_mean(rouge_seg), "rouge-l-coco", "fraction", true, std::nullopt});

  r.notes.push_back(std::to_string(src.size()) + " pairs, " + std::to_string(g.keys.size()) +
                    " distinct source sentences (" + std::to_string(g.repeated_keys) +
                    " with several questions: multiple references, last prediction scored)");
  if (reversed)
    r.notes.push_back("reversed dev-test split (Zhao et al. 2018): split '" + split + "' read from " + src_path);
  const std::vector<std::pair<bool, std::string>> clips = {
      {src_clip, src_path}, {tgt_clip, tgt_path}, {pred_clip, req.pred}};
  for (const auto& [clip, path] : clips)
    if (clip)
      r.notes.push_back(path + ": last line has no newline; eval.py's line[:-1] drops its last character, and so did we");
  for (size_t i = 0; i < g.keys.size(); ++i) {
    results::ExampleScores e;
    e.id = "line " + std::to_string(g.last_line[i]);
    e.scores["bleu4"] = b.per_segment[i][3];
    e.scores["rougeL"] = rouge_seg[i];
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
  i.summary = reversed ? "SQuAD QG, reversed dev-test split (Zhao et al. 2018: test = Du's dev files)"
                       : "SQuAD question generation, Du et al. 2017 split (nqg/UniLM eval.py)";
  i.data_format = "nqg data/processed folder (src-/tgt-{dev,test}.txt[.gz]), a src-*/tgt-* file, or UniLM qg_data *.pa.tok.txt/*.q.tok.txt";
  i.pred_format = "one question per line, aligned with src-/tgt- lines";
  i.metrics = "bleu1-4 (coco), meteor (1.5 -norm, coco stdio), rougeL (coco); source-keyed references";
  i.default_split = "test";
  i.options = {{"meteor_data", "METEOR 1.5 resources folder (default $UNIEVAL_METEOR_DATA)"},
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

QgGroups group_qg_by_source(const std::vector<std::string>& keys, const std::vector<std::string>& refs,
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
  return {{qg_info(false), [](const EvalRequest& r) { return run_squad_qg(r, false); }},
          {qg_info(true), [](const EvalRequest& r) { return run_squad_qg(r, true); }}};
}

}  // namespace unieval::tasks
