#include "pipelines/reproduce.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "core/error.h"
#include "core/io.h"
#include "pipelines/evaluate.h"
#include "results/html_report.h"
#include "results/run_result.h"
#include "tasks/dstc7.h"
#include "tasks/metric_set.h"
#include "tasks/presets.h"
#include "tasks/task.h"

namespace unieval::pipelines {

namespace fs = std::filesystem;

const char* to_string(CellStatus s) {
  switch (s) {
    case CellStatus::kPublishedOnly:
      return "published only";
    case CellStatus::kMatch:
      return "match";
    case CellStatus::kMismatch:
      return "MISMATCH";
    case CellStatus::kOursOnly:
      return "ours only (published not legible)";
    case CellStatus::kNotComputed:
      return "not computed";
  }
  return "?";
}

std::string slug(const std::string& label) {
  std::string out;
  bool dash = false;
  for (unsigned char c : label) {
    if (std::isalnum(c)) {
      if (dash && !out.empty()) out += '-';
      out += static_cast<char>(std::tolower(c));
      dash = false;
    } else {
      dash = true;
    }
  }
  return out;
}

long split_size(const std::string& task, const std::string& split) {
  static const std::map<std::pair<std::string, std::string>, long> kSizes = {
      {{"squad-qg", "test"}, 11877},
      {{"squad-qg", "dev"}, 10570},
      {{"squad-qg-reversed", "test"}, 10570},
      {{"squad-qg-reversed", "dev"}, 11877},
      {{"cnndm", "test"}, 11490},
      {{"gigaword", "test"}, 1951},
      {{"coqa-gen", "dev"}, 7983},
      {{"dstc7", "test"}, 2208},
      {{"personachat", "valid"}, 7801},
      {{"personachat", "test"}, 7801}};
  auto it = kSizes.find({task, split});
  return it == kSizes.end() ? 0 : it->second;
}

std::string default_data_dir() {
  if (const char* env = std::getenv("UNIEVAL_DATA")) return env;
  for (const char* p : {"../shared/data", "shared/data"})
    if (fs::is_directory(p)) return p;
  return "";
}

namespace {

// Our numbers for one row: score name -> value in unieval units (by task), and where they came from.
struct RowScores {
  std::string source;
  std::vector<results::RunResult> runs;  // matched to cells by task + metric
  bool quoted = false;                   // read from a published score sheet, not recomputed
};

// Canonical form of a task/column for matching multi-task tables ("SST-2" ~ "glue-sst2").
std::string squash(const std::string& s) {
  std::string out;
  for (unsigned char c : s)
    if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
  return out;
}

bool task_matches(const results::RunResult& r, const results::PaperCell& c) {
  if (r.task == c.task) return true;
  if (r.task == c.task + "-reversed")
    return true;  // squad-qg-reversed in a squad-qg table's reversed block
  // squad tables: "squad-v2" cells accept the resolved adapter keys.
  // Multi-task tables (glue, nli, ...): the run's task minus its family prefix must name the column.
  auto dash = r.task.find('-');
  std::string family = dash == std::string::npos ? r.task : r.task.substr(0, dash);
  std::string rest = dash == std::string::npos ? r.task : r.task.substr(dash + 1);
  std::string col = squash(c.column);
  if ((c.task == family || c.task == "nli" || c.task == "race-storycloze") &&
      (squash(rest) == col || squash(r.task) == col || col.rfind(squash(rest), 0) == 0))
    return true;
  return false;
}

std::optional<double> find_ours(const RowScores& rs, const results::PaperCell& c) {
  // A run whose task names the cell's task or column exactly wins over a prefix match, so that
  // with race, race-m and race-h results side by side "RACE-m" takes race-m's accuracy (and
  // "MNLI-mm" glue-mnli-mm's), whatever the order of the files.
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& r : rs.runs) {
      if (pass == 0) {
        auto dash = r.task.find('-');
        std::string rest = dash == std::string::npos ? r.task : r.task.substr(dash + 1);
        std::string col = squash(c.column);
        if (!(r.task == c.task || r.task == c.task + "-reversed" || squash(r.task) == col ||
              squash(rest) == col))
          continue;
      } else if (!task_matches(r, c)) {
        continue;
      }
      if (const results::Score* s = r.score(c.metric)) return s->value * c.scale;
    }
  }
  return std::nullopt;
}

// A built-in recipe: how to obtain our numbers for one published row from public material.
struct Recipe {
  std::string paper, table, system;
  std::string description;
  std::function<std::optional<RowScores>(const std::string& data_dir,
                                         std::vector<std::string>& notes)>
      run;
};

// A table scores every cell it can: a metric of the task's set whose resources are missing
// (METEOR without $UNIEVAL_METEOR_DATA or its paraphrase table) is left out explicitly, as
// `eval --skip-metric` does; its cells show as not computed and the result's notes say why and
// what to set.
results::RunResult evaluate_cells(tasks::EvalRequest req) {
  std::vector<std::string> why;
  if (const tasks::TaskAdapter* t = tasks::find_task(req.task); t && t->metrics)
    for (const auto& m : t->metrics(req)) {
      try {
        tasks::check_task_metric(m);
      } catch (const InputError& e) {
        req.skip_metrics.push_back(m.call.metric);
        why.push_back(std::string("reproduce: ") + m.call.metric + " not computed: " + e.what());
      }
    }
  results::RunResult r = evaluate(req);
  for (auto& w : why) r.notes.push_back(std::move(w));
  return r;
}

std::optional<RowScores> from_eval(const std::string& task,
                                   const std::vector<std::string>& data_rel,
                                   const std::string& pred_rel, const std::string& data_dir,
                                   const std::string& what, std::vector<std::string>& notes) {
  if (data_dir.empty()) return std::nullopt;
  std::string data;
  for (const auto& d : data_rel)
    if (fs::exists(fs::path(data_dir) / d)) {
      data = (fs::path(data_dir) / d).string();
      break;
    }
  fs::path pred = fs::path(data_dir) / pred_rel;
  if (data.empty() || !fs::exists(pred)) {
    notes.push_back(what + ": material absent under " + data_dir + " (" + pred_rel + ")");
    return std::nullopt;
  }
  tasks::EvalRequest req;
  req.task = task;
  req.data = data;
  req.pred = pred.string();
  RowScores rs;
  rs.runs.push_back(evaluate_cells(req));
  rs.source =
      what + ": unieval eval --task " + task + " --data " + data + " --pred " + pred.string();
  return rs;
}

std::optional<RowScores> from_sheet(const std::string& row, const std::string& data_dir,
                                    std::vector<std::string>& notes) {
  if (data_dir.empty()) return std::nullopt;
  fs::path sheet = fs::path(data_dir) / "dstc7" / "dstc7-task2-automatic-scores.tsv";
  if (!fs::exists(sheet)) {
    notes.push_back("DSTC7 score sheet absent: " + sheet.string());
    return std::nullopt;
  }
  tasks::Dstc7ScoreSheet s = tasks::read_dstc7_score_sheet(sheet.string());
  auto it = s.find(row);
  if (it == s.end()) throw InputError(sheet.string(), 0, "no row named '" + row + "'");
  results::RunResult r;
  r.task = "dstc7";
  r.split = "test";
  r.system = row;
  r.metrics.push_back({"dstc7-sheet", "dstc7-organisers-score-sheet", {}});
  for (const auto& [k, v] : it->second)
    r.scores.push_back({k, v, "dstc7-sheet", "raw", true, std::nullopt});
  RowScores rs;
  rs.runs.push_back(r);
  rs.source = "DSTC7 organisers' score sheet, row '" + row + "' (" + sheet.string() + ")";
  rs.quoted = true;
  return rs;
}

const std::vector<Recipe>& recipes() {
  static const std::vector<Recipe> kRecipes = {
      {"unilm", "5", "BERT_LARGE", "published BERT-large SQuAD 2.0 dev predictions",
       [](const std::string& d, std::vector<std::string>& n) {
         return from_eval("squad-v2",
                          {"squad/dev-v2.0.json", "squad/dev-v2.0.json.gz",
                           "squad/dev-v2.0.reconstructed.json.gz"},
                          "squad/predictions/v2.0-dev.bert-large-single.json.gz", d,
                          "published BERT-large (single) SQuAD 2.0 dev predictions", n);
       }},
      {"unilm", "10", "Best System in DSTC7 Shared Task", "DSTC7 score sheet row TeamB-Primary",
       [](const std::string& d, std::vector<std::string>& n) {
         return from_sheet("TeamB-Primary", d, n);
       }},
      {"unilm", "10", "Human Performance", "DSTC7 score sheet row Human",
       [](const std::string& d, std::vector<std::string>& n) { return from_sheet("Human", d, n); }},
  };
  return kRecipes;
}

// The dataset a table's task reads, under the data root (for --outputs system files).
std::string find_data(const std::string& task, const std::string& data_dir) {
  static const std::map<std::string, std::vector<std::string>> kCandidates = {
      {"squad-v2",
       {"squad/dev-v2.0.json", "squad/dev-v2.0.json.gz", "squad/dev-v2.0.reconstructed.json.gz",
        "dev-v2.0.json"}},
      {"squad-v1.1", {"squad/dev-v1.1.json", "squad/dev-v1.1.json.gz", "dev-v1.1.json"}},
      {"dstc7", {"dstc7/test.refs", "test.refs", "dstc7/test.2k.keys.txt.gz"}},
      {"squad-qg", {"squad_qg", "squad-qg"}},
      {"squad-qg-reversed", {"squad_qg", "squad-qg"}},
  };
  auto it = kCandidates.find(task);
  if (it == kCandidates.end() || data_dir.empty()) return "";
  for (const auto& rel : it->second)
    if (fs::exists(fs::path(data_dir) / rel)) return (fs::path(data_dir) / rel).string();
  return "";
}

// A result's split, size and metric settings against the table's (`unieval run` results and
// result files alike): InputError naming path when they differ. The metric settings of a result
// file are the adapter options `unieval eval` recorded ("eval_options"; none = the defaults),
// allowed when they are resource paths or the paper preset's own evaluation options.
void check_result_fits(const results::PaperTable& t, const results::RunResult& r,
                       const std::string& path) {
  if (!t.split.empty() && !r.split.empty() && r.split != t.split)
    throw InputError(path, 0, "split " + r.split + " differs from the table's (" + t.split + ")");
  if (r.extra.contains("run"))
    return;  // place_run checks a run's size and settings from its request
  const long want = split_size(r.task, r.split);
  if (want > 0 && r.examples != want)
    throw InputError(path, 0,
                     "scored " + std::to_string(r.examples) + " examples of " + r.split +
                         "; the table's cells are on the full split (" + std::to_string(want) +
                         ")");
  std::map<std::string, std::string> preset_opts;
  for (const auto& p : tasks::presets())
    if (p.task == r.task) {
      preset_opts = p.eval_options;
      break;
    }
  if (r.extra.contains("eval_options") && r.extra["eval_options"].is_object())
    for (const auto& [k, v] : r.extra["eval_options"].items()) {
      if (k == "meteor_data" || k == "rouge_data") continue;
      const std::string value = v.is_string() ? v.get<std::string>() : v.dump();
      auto it = preset_opts.find(k);
      if (it != preset_opts.end() && it->second == value) continue;
      throw InputError(path, 0,
                       "metric settings differ from the paper's: --option " + k + "=" + value);
    }
}

// A result file given for a row must fill at least one of its cells: one of another task, or
// without any of the row's metrics, used to leave the row "not computed" and exit 0 in silence.
void check_result_fills_row(const results::PaperTable& t, const std::string& block,
                            const std::string& system, const results::RunResult& r,
                            const std::string& path) {
  RowScores one;
  one.runs.push_back(r);
  std::set<std::string> wanted;
  for (const auto& col : t.columns)
    if (const results::PaperCell* c = t.cell(block, system, col)) {
      if (find_ours(one, *c)) return;
      wanted.insert(c->task + " " + c->metric);
    }
  if (wanted.empty()) return;  // a row without cells
  std::string have, want;
  for (const auto& s : r.scores) have += (have.empty() ? "" : ", ") + s.name;
  for (const auto& w : wanted) want += (want.empty() ? "" : ", ") + w;
  throw InputError(path, 0,
                   "fills no cell of row '" + system + "' of " + t.paper + " table " + t.table +
                       ": it is task " + (r.task.empty() ? std::string("(none)") : r.task) +
                       " with scores [" + have + "], the row needs one of: " + want);
}

std::optional<RowScores> from_outputs(const results::PaperTable& t, const std::string& block,
                                      const std::string& system, const std::string& dir,
                                      const std::string& data_dir) {
  if (dir.empty()) return std::nullopt;
  std::vector<std::string> names;
  if (!block.empty()) names.push_back(slug(block) + "--" + slug(system));
  names.push_back(slug(system));
  for (const auto& name : names) {
    fs::path base = fs::path(dir) / name;
    fs::path result = fs::path(dir) / (name + ".result.json");
    if (fs::is_regular_file(result)) {
      RowScores rs;
      rs.runs.push_back(results::read_run_result(result.string()));
      check_result_fits(t, rs.runs.back(), result.string());
      check_result_fills_row(t, block, system, rs.runs.back(), result.string());
      rs.source = "--outputs " + result.string();
      return rs;
    }
    if (fs::is_directory(base)) {
      RowScores rs;
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(base))
        if (e.path().string().size() > 12 &&
            e.path().string().compare(e.path().string().size() - 12, 12, ".result.json") == 0)
          files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        rs.runs.push_back(results::read_run_result(f.string()));
        check_result_fits(t, rs.runs.back(), f.string());
        check_result_fills_row(t, block, system, rs.runs.back(), f.string());
      }
      if (!rs.runs.empty()) {
        rs.source = "--outputs " + base.string() + "/*.result.json";
        return rs;
      }
    }
    for (const char* ext : {".json", ".json.gz", ".txt", ".txt.gz", ".hypo", ".jsonl"}) {
      fs::path pred = fs::path(dir) / (name + ext);
      if (!fs::is_regular_file(pred)) continue;
      std::string task = t.task;
      // The QG tables' second block is the reversed dev-test split: its own adapter.
      if (task == "squad-qg" && slug(block).rfind("reversed", 0) == 0) task = "squad-qg-reversed";
      if (!tasks::find_task(task))
        throw InputError(
            pred.string(), 0,
            "table " + t.paper + "/" + t.table + " is about task '" + t.task +
                "', which has no adapter in this build; evaluate it yourself and give " + name +
                ".result.json");
      std::string data = find_data(task, data_dir);
      if (data.empty())
        throw InputError(pred.string(), 0,
                         "no dataset for task '" + task + "' under --data " +
                             (data_dir.empty() ? std::string("(none given)") : data_dir));
      tasks::EvalRequest req;
      req.task = task;
      req.data = data;
      req.pred = pred.string();
      req.system = system;
      RowScores rs;
      rs.runs.push_back(evaluate_cells(req));
      rs.source = "--outputs " + pred.string() + " on " + data;
      return rs;
    }
  }
  return std::nullopt;
}

ReproducedRow fill_row(const results::PaperTable& t, const std::string& block,
                       const std::string& system, const std::optional<RowScores>& rs,
                       Reproduction& out) {
  ReproducedRow row;
  row.block = block;
  row.system = system;
  if (rs) row.source = rs->source;
  row.quoted = rs && rs->quoted;
  for (const auto& col : t.columns) {
    const results::PaperCell* c = t.cell(block, system, col);
    ReproducedCell rc;
    rc.column = col;
    if (c) {
      rc.metric = c->metric;
      rc.display = c->display;
      rc.published = c->value;
      rc.tolerance = c->tolerance();
      if (rs) rc.ours = find_ours(*rs, *c);
    }
    if (!rs) {
      rc.status = CellStatus::kPublishedOnly;
    } else if (!rc.ours) {
      rc.status = CellStatus::kNotComputed;
    } else if (!rc.published) {
      rc.status = CellStatus::kOursOnly;
    } else {
      ++(row.quoted ? out.quoted_cells : out.reproduced_cells);
      bool ok = std::fabs(*rc.ours - *rc.published) <= rc.tolerance + 1e-9;
      rc.status = ok ? CellStatus::kMatch : CellStatus::kMismatch;
      if (!ok) out.mismatch = true;
    }
    row.cells.push_back(rc);
  }
  return row;
}

// UniLM Table 10 supplementary check: the constant baseline's reference-free cells.
void dstc7_constant_check(const std::string& data_dir, Reproduction& out) {
  if (data_dir.empty()) return;
  fs::path d = fs::path(data_dir) / "dstc7";
  fs::path keys = d / "test.2k.keys.txt.gz", sub = d / "constant-baseline.test.convos.txt.gz",
           sheet = d / "dstc7-task2-automatic-scores.tsv";
  if (!fs::exists(keys) || !fs::exists(sub) || !fs::exists(sheet)) {
    out.notes.push_back("DSTC7 constant-baseline check skipped: material absent under " +
                        d.string());
    return;
  }
  tasks::EvalRequest req;
  req.task = "dstc7";
  req.data = keys.string();
  req.pred = sub.string();
  results::RunResult ours = evaluate_cells(req);
  auto s = tasks::read_dstc7_score_sheet(sheet.string());
  const auto& row = s.at("Baseline (constant)");
  ReproducedRow r;
  r.system = "Baseline (constant)";
  r.source =
      "sheet vs unieval eval --task dstc7 --data " + keys.string() + " --pred " + sub.string();
  for (const char* k :
       {"entropy1", "entropy2", "entropy3", "entropy4", "div1", "div2", "avg_len"}) {
    ReproducedCell c;
    c.column = k;
    c.metric = k;
    auto it = row.find(k);
    if (it != row.end()) {
      c.published = it->second;
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.6g", it->second);
      c.display = buf;
    }
    // The sheet holds unrounded values: agreement to 1e-6 relative.
    c.tolerance = c.published ? 1e-6 * std::max(1.0, std::fabs(*c.published)) : 0;
    if (const results::Score* sc = ours.score(k)) c.ours = sc->value;
    if (c.ours && c.published) {
      ++out.reproduced_cells;
      bool ok = std::fabs(*c.ours - *c.published) <= c.tolerance;
      c.status = ok ? CellStatus::kMatch : CellStatus::kMismatch;
      if (!ok) out.mismatch = true;
    } else {
      c.status = CellStatus::kNotComputed;
    }
    r.cells.push_back(c);
  }
  out.checks.push_back(r);
  out.checks_caption =
      "Supplementary check (not a row of the paper): DSTC7 constant baseline, organisers' sheet vs "
      "our recomputation from its submission with DSTC7 clean_str (2,208 keys)";
}

}  // namespace

namespace {

// A `unieval run` result checked against the table and placed in its row: (block, system).
std::pair<std::string, std::string> place_run(const results::PaperTable& t,
                                              const results::RunResult& r,
                                              const std::string& path) {
  if (!r.extra.contains("run") || !r.extra["run"].contains("request")) {
    // A result file of `unieval eval`: its task, split, size and settings, then its row by --system.
    const bool reversed =
        r.task.size() > 9 && r.task.compare(r.task.size() - 9, 9, "-reversed") == 0;
    const std::string base_task = reversed ? r.task.substr(0, r.task.size() - 9) : r.task;
    if (base_task != t.task)
      throw InputError(path, 0,
                       "task " + r.task + " does not belong in " + t.paper + " table " + t.table +
                           " (" + t.task + ")");
    if (r.split != t.split)
      throw InputError(path, 0,
                       "split " + (r.split.empty() ? std::string("(none)") : r.split) +
                           " differs from the table's (" + t.split + ")");
    check_result_fits(t, r, path);
    for (const auto& [block, system] : t.row_keys())
      if ((slug(block).find("reversed") != std::string::npos) == reversed &&
          slug(system) == slug(r.system))
        return {block, system};
    for (const auto& [block, system] : t.row_keys())
      if ((slug(block).find("reversed") != std::string::npos) == reversed &&
          slug(system) == slug(t.paper))
        return {block, system};
    throw InputError(path, 0,
                     "no row of " + t.paper + " table " + t.table + " for system '" + r.system +
                         "' (name the row with `unieval eval --system`)");
  }
  const auto& run = r.extra["run"];
  const auto& req = run["request"];
  const std::string task = r.task;
  const bool reversed = task.size() > 9 && task.compare(task.size() - 9, 9, "-reversed") == 0;
  const std::string base_task = reversed ? task.substr(0, task.size() - 9) : task;
  if (base_task != t.task)
    throw InputError(path, 0,
                     "task " + task + " does not belong in " + t.paper + " table " + t.table +
                         " (" + t.task + ")");
  if (r.split != t.split)
    throw InputError(path, 0, "split " + r.split + " differs from the table's (" + t.split + ")");
  const long want = split_size(task, r.split);
  const long eval_limit = req.value("eval_limit", 0L);
  const long have = run.value("eval_examples", 0L);
  if (eval_limit > 0 || (want > 0 && have != want))
    throw InputError(path, 0,
                     "scored " + std::to_string(have) + " examples of " + r.split +
                         " (--eval-limit " + std::to_string(eval_limit) +
                         "); the table's cells are on the full split" +
                         (want > 0 ? " (" + std::to_string(want) + ")" : std::string()));
  // Metric settings: only resource paths and the preset's own evaluation options.
  std::map<std::string, std::string> preset_opts;
  if (run.contains("preset_eval_options"))
    for (const auto& [k, v] : run["preset_eval_options"].items())
      preset_opts[k] = v.get<std::string>();
  if (req.contains("eval_options"))
    for (const auto& [k, v] : req["eval_options"].items()) {
      if (k == "meteor_data" || k == "rouge_data") continue;
      auto it = preset_opts.find(k);
      if (it != preset_opts.end() && it->second == v.get<std::string>()) continue;
      throw InputError(
          path, 0,
          "metric settings differ from the paper's: --option " + k + "=" + v.get<std::string>());
    }
  // The row: the run's system label, else the paper's own row, in the block of its task.
  // Blocks: the reversed QG split; Gigaword's 10K-training-examples block (a run with
  // --train-limit 10000) against the full training set.
  const long train_examples = run.value("train_examples", 0L);
  auto block_ok = [&](const std::string& block) {
    const std::string b = slug(block);
    if ((b.find("reversed") != std::string::npos) != reversed) return false;
    if (b.rfind("10k", 0) == 0 && train_examples != 10000) return false;
    if (b.rfind("full", 0) == 0 && req.value("train_limit", 0L) > 0) return false;
    return true;
  };
  for (const auto& [block, system] : t.row_keys())
    if (block_ok(block) && slug(system) == slug(r.system)) return {block, system};
  for (const auto& [block, system] : t.row_keys())
    if (block_ok(block) && slug(system) == slug(t.paper)) return {block, system};
  throw InputError(path, 0,
                   "no row of " + t.paper + " table " + t.table + " for system '" + r.system +
                       "' (give the row label with `unieval run --system`)");
}

}  // namespace

Reproduction reproduce(const ReproduceOptions& opts) {
  auto tables = results::load_paper_tables(opts.paper_dir);
  const results::PaperTable* t = results::find_table(tables, opts.paper, opts.table);
  if (!t) {
    std::string known;
    for (const auto& x : tables)
      if (x.paper == opts.paper) known += " " + x.table;
    if (known.empty())
      throw InputError("--paper: unknown paper '" + opts.paper + "' (unilm, ernie-gen, gpt)");
    throw InputError("--table: " + opts.paper + " has no results table '" + opts.table +
                     "'; tables:" + known);
  }
  if (!opts.outputs_dir.empty() && !fs::is_directory(opts.outputs_dir))
    throw InputError(opts.outputs_dir, 0, "--outputs: not a directory");
  std::string data_dir = opts.data_dir.empty() ? default_data_dir() : opts.data_dir;
  if (!opts.data_dir.empty() && !fs::is_directory(opts.data_dir))
    throw InputError(opts.data_dir, 0, "--data: not a directory");
  Reproduction out;
  out.table = *t;
  std::map<std::pair<std::string, std::string>, RowScores> from_runs;
  for (const auto& run : opts.runs) {
    const fs::path result = fs::is_directory(run) ? fs::path(run) / "result.json" : fs::path(run);
    if (!fs::exists(result))
      throw InputError(run, 0, "no result.json (an unfinished or foreign run directory)");
    results::RunResult r = results::read_run_result(result.string());
    auto key = place_run(*t, r, result.string());
    if (from_runs.count(key))
      throw InputError(result.string(), 0,
                       "a second run for row '" + key.second + "' (" + from_runs[key].source + ")");
    RowScores rs;
    rs.source = "unieval run " + result.string();
    rs.runs.push_back(std::move(r));
    from_runs[key] = std::move(rs);
  }
  for (const auto& [block, system] : t->row_keys()) {
    std::optional<RowScores> rs;
    if (auto it = from_runs.find({block, system}); it != from_runs.end()) rs = it->second;
    if (!rs) rs = from_outputs(*t, block, system, opts.outputs_dir, data_dir);
    if (!rs) {
      for (const auto& rec : recipes()) {
        if (rec.paper == t->paper && rec.table == t->table && rec.system == system) {
          rs = rec.run(data_dir, out.notes);
          break;
        }
      }
    }
    out.rows.push_back(fill_row(*t, block, system, rs, out));
  }
  if (t->paper == "unilm" && t->table == "10") dstc7_constant_check(data_dir, out);
  if (data_dir.empty())
    out.notes.push_back("no data folder (--data DIR or $UNIEVAL_DATA): built-in recipes skipped");
  return out;
}

namespace {

std::string fmt(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

int decimals_of(const std::string& display, int def) {
  auto dot = display.find('.');
  if (display.empty()) return def;
  return dot == std::string::npos ? 0 : static_cast<int>(display.size() - dot - 1);
}

results::Grid grid_of(const std::vector<ReproducedRow>& rows,
                      const std::vector<std::string>& columns, bool has_blocks,
                      int extra_decimals) {
  results::Grid g;
  if (has_blocks) g.header.push_back("block");
  g.header.push_back("system");
  g.header.push_back("");
  for (const auto& c : columns) g.header.push_back(c);
  size_t lead = g.header.size() - columns.size();
  g.numeric.assign(g.header.size(), true);
  for (size_t i = 0; i < lead; ++i) g.numeric[i] = false;
  for (const auto& r : rows) {
    bool has_ours = !r.source.empty();
    std::vector<std::string> pub, ours, diff;
    std::vector<bool> bold_pub, bold_ours, bold_diff;
    auto lead_cells = [&](std::vector<std::string>& v, const std::string& what, bool first) {
      if (has_blocks) v.push_back(first ? r.block : "");
      v.push_back(first ? r.system + (has_ours ? "" : " †") : "");
      v.push_back(what);
    };
    lead_cells(pub, "published", true);
    lead_cells(ours, r.quoted ? "quoted" : "ours", false);
    lead_cells(diff, "diff", false);
    for (size_t i = 0; i < lead; ++i) {
      bold_pub.push_back(false);
      bold_ours.push_back(false);
      bold_diff.push_back(false);
    }
    for (const auto& c : r.cells) {
      pub.push_back(c.display.empty() ? (c.published ? fmt(*c.published, 4) : "–") : c.display);
      bold_pub.push_back(false);
      int dec = decimals_of(c.display, 3) + extra_decimals;
      ours.push_back(c.ours ? fmt(*c.ours, dec) : "–");
      bool bad = c.status == CellStatus::kMismatch;
      bold_ours.push_back(bad);
      if (c.ours && c.published) {
        double d = *c.ours - *c.published;
        diff.push_back((d >= 0 ? "+" : "") + fmt(d, dec) + (bad ? " ✗" : " ✓"));
      } else {
        diff.push_back("–");
      }
      bold_diff.push_back(bad);
    }
    g.rows.push_back(pub);
    g.bold.push_back(bold_pub);
    if (has_ours) {
      g.rows.push_back(ours);
      g.bold.push_back(bold_ours);
      g.rows.push_back(diff);
      g.bold.push_back(bold_diff);
    }
  }
  return g;
}

}  // namespace

std::string render_reproduction(const Reproduction& r, results::TableFormat format) {
  const auto& t = r.table;
  bool has_blocks =
      std::any_of(r.rows.begin(), r.rows.end(), [](const auto& x) { return !x.block.empty(); });
  results::Grid g = grid_of(r.rows, t.columns, has_blocks, 2);
  g.caption = t.paper + " Table " + t.table + ": " + t.caption;
  bool any_published_only = false;
  for (const auto& row : r.rows) any_published_only |= row.source.empty();
  if (any_published_only)
    g.footer.push_back("† published value only: no system outputs for this row (--outputs DIR)");
  for (const auto& row : r.rows)
    if (!row.source.empty())
      g.footer.push_back(std::string(row.quoted ? "quoted (not recomputed) for " : "ours for ") +
                         row.system + ": " + row.source);
  g.footer.push_back(
      "✓ within half a unit of the last printed digit, ✗ beyond it; ours in the printed unit (x "
      "scale)");
  for (const auto& n : r.notes) g.footer.push_back("note: " + n);
  int mism = 0;
  for (const auto& rows : {&r.rows, &r.checks})
    for (const auto& row : *rows)
      for (const auto& c : row.cells) mism += c.status == CellStatus::kMismatch;
  g.footer.push_back(
      "result: " + std::to_string(r.reproduced_cells) + " cell(s) reproduced, " +
      (r.quoted_cells ? std::to_string(r.quoted_cells) + " quoted from a published sheet, " : "") +
      std::to_string(mism) + " beyond tolerance" + (r.mismatch ? " (exit 1)" : ""));
  std::string out = results::render_grid(g, format);
  if (!r.checks.empty()) {
    std::vector<std::string> cols;
    for (const auto& c : r.checks[0].cells) cols.push_back(c.column);
    results::Grid cg = grid_of(r.checks, cols, false, 4);
    cg.caption = r.checks_caption;
    for (const auto& row : r.checks) cg.footer.push_back(row.system + ": " + row.source);
    cg.footer.push_back("tolerance: 1e-6 relative (the sheet is unrounded)");
    out += "\n" + results::render_grid(cg, format);
  }
  if (format == results::TableFormat::kHtml)
    out = results::html_page(t.paper + " Table " + t.table + " reproduced",
                             "<h1>" + results::html_escape(g.caption) + "</h1>\n" + out);
  return out;
}

}  // namespace unieval::pipelines
