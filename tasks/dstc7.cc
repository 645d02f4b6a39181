// Follows DSTC7 (no code licence) behaviour only; no code taken; see THIRD_PARTY_NOTICES.md.
#include "tasks/dstc7.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "core/io.h"
#include "metrics/text/dstc7_clean.h"
#include "tasks/metric_set.h"
#include "tasks/registry.h"

namespace unieval::tasks {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return out;
}

bool parse_bool(const std::string& key, const std::string& v) {
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  throw InputError("--option " + key + "=" + v + ": expected true or false");
}

int parse_int(const std::string& key, const std::string& v) {
  try {
    size_t used = 0;
    int x = std::stoi(v, &used);
    if (used == v.size()) return x;
  } catch (const std::exception&) {
  }
  throw InputError("--option " + key + "=" + v + ": expected an integer");
}

// First existing path among candidates, or "".
std::string first_existing(const std::vector<fs::path>& candidates) {
  for (const auto& p : candidates)
    if (fs::is_regular_file(p)) return p.string();
  return "";
}

struct Dstc7Settings {
  bool clean = true;
  int n_refs = 6;
  int vshuman = 1;
  std::string refs_path, keys_path;  // refs_path "" = reference-free (--data is a key list)
  std::string tok() const { return clean ? "dstc7-clean_str" : "split"; }
};

// The options and the data files of a request (a folder with test.refs + keys, a refs file, or a
// key list alone).
Dstc7Settings dstc7_settings(const EvalRequest& req) {
  Dstc7Settings st;
  st.clean = parse_bool("clean", option(req, "clean", "true"));
  st.n_refs = parse_int("n_refs", option(req, "n_refs", "6"));
  st.vshuman = parse_int("vshuman", option(req, "vshuman", "1"));
  if (st.n_refs < 1) throw InputError("--option n_refs: must be >= 1");
  st.keys_path = option(req, "keys", "");
  if (req.data
          .empty()) {  // a check before the data exists (`unieval run`): the set with references
    st.refs_path = "(references)";
    return st;
  }
  fs::path data(req.data);
  if (fs::is_directory(data)) {
    st.refs_path =
        first_existing({data / "test.refs", data / "test.refs.gz", data / "test.refs.txt"});
    if (st.keys_path.empty())
      st.keys_path = first_existing({data / "keys" / "test.2k.txt", data / "test.2k.txt",
                                     data / "test.2k.keys.txt.gz", data / "test.2k.keys.txt"});
    if (st.keys_path.empty())
      throw InputError(req.data, 0,
                       "no keys file (keys/test.2k.txt) in this folder; give --option keys=FILE");
  } else {
    auto lines = core::read_lines(req.data);
    bool is_refs = !lines.empty() && lines[0].find('\t') != std::string::npos;
    if (is_refs) {
      st.refs_path = req.data;
      if (st.keys_path.empty())
        st.keys_path = first_existing(
            {data.parent_path() / "keys" / "test.2k.txt", data.parent_path() / "test.2k.txt"});
      if (st.keys_path.empty())
        throw InputError(req.data, 0, "a refs file needs the key list: --option keys=test.2k.txt");
    } else {
      if (!st.keys_path.empty() && st.keys_path != req.data)
        throw InputError("--option keys: --data is already a key list (" + req.data + ")");
      st.keys_path = req.data;
    }
  }
  return st;
}

// dstc.py's metric set: mteval-v14c NIST/BLEU and METEOR (with references), metrics.py entropy
// and diversity.
std::vector<TaskMetric> dstc7_metric_set(const EvalRequest& req, const Dstc7Settings& st) {
  std::vector<TaskMetric> out;
  const std::string tok = st.tok();
  if (!st.refs_path.empty()) {
    TaskMetric nist;  // mteval-v14c, lowercased, DSTC7 XML writer (the registry's defaults)
    nist.id = "mteval";
    nist.call = {"nist", {}};
    nist.signature = "mteval-v14c|nist+bleu|refs:" + std::to_string(st.n_refs) +
                     "|vshuman:" + std::to_string(st.vshuman) + "|tok:" + tok + "|dstc7-writer";
    nist.options = {{"script", "mteval-v14c.pl"},
                    {"n_refs", st.n_refs},
                    {"vshuman", st.vshuman},
                    {"clean", st.clean}};
    for (int n = 1; n <= 4; ++n)
      nist.scores.push_back(
          {"nist" + std::to_string(n), "/nist_cum/" + std::to_string(n - 1), "raw", ""});
    for (int n = 1; n <= 4; ++n)
      nist.scores.push_back(
          {"bleu" + std::to_string(n), "/bleu_cum/" + std::to_string(n - 1), "fraction", ""});
    out.push_back(nist);

    TaskMetric meteor;  // meteor-1.5 -r n_refs -l en -norm
    meteor.id = "meteor";
    meteor.call = {"meteor", {{"norm", true}}};
    if (req.options.count("meteor_data"))
      meteor.call.options.push_back({"meteor-data", req.options.at("meteor_data")});
    meteor.signature_suffix = "|tok:" + tok;
    meteor.options = {{"normalize", "-norm"}, {"refs", st.n_refs}};
    if (req.options.count("meteor_modules")) {
      meteor.call.options.push_back({"modules", req.options.at("meteor_modules")});
      meteor.options["modules"] = req.options.at("meteor_modules");
    }
    meteor.scores = {{"meteor", "/score", "fraction", ""}};
    meteor.hints.options = {
        {"meteor-data", "--option meteor_data=DIR"},
        {"modules", "--option meteor_modules=exact,stem,synonym"},
        {"paraphrase",
         "DIR/paraphrase-en.gz (DIR = --option meteor_data or $UNIEVAL_METEOR_DATA)"}};
    out.push_back(meteor);
  }
  TaskMetric entropy;  // hypotheses already cleaned when clean
  entropy.id = "entropy";
  entropy.call = {"entropy", {}};
  entropy.signature_suffix = "|tok:" + tok;
  entropy.options = {{"orders", std::vector<int>{1, 2, 3, 4}}, {"clean", st.clean}};
  for (int n = 1; n <= 4; ++n)
    entropy.scores.push_back(
        {"entropy" + std::to_string(n), "/entropy_" + std::to_string(n), "nats", ""});
  out.push_back(entropy);

  TaskMetric div;
  div.id = "diversity";
  div.call = {"distinct", {{"flavour", std::string("dstc7")}}};
  div.signature_suffix = "|tok:" + tok;
  div.options = {{"orders", std::vector<int>{1, 2}}, {"clean", st.clean}};
  // Scored below: undefined values (null) are notes, not scores.
  out.push_back(div);
  return out;
}

std::vector<TaskMetric> dstc7_metrics(const EvalRequest& req) {
  return dstc7_metric_set(req, dstc7_settings(req));
}

TaskOutput run_dstc7(const EvalRequest& req) {
  auto t0 = Clock::now();
  const Dstc7Settings st = dstc7_settings(req);
  const bool clean = st.clean;
  const int n_refs = st.n_refs, vshuman = st.vshuman;
  const std::string& refs_path = st.refs_path;
  std::vector<std::string> keys = read_dstc7_keys(st.keys_path);
  Dstc7Hypotheses hyp = read_dstc7_submission(req.pred, keys);
  std::vector<std::string> hyps = hyp.hyps;
  if (clean)
    for (auto& h : hyps) h = metrics::text::dstc7_clean_str(h);

  // References.
  std::vector<std::vector<std::string>> refs;
  if (!refs_path.empty()) {
    std::unordered_set<std::string> wanted(keys.begin(), keys.end());
    std::unordered_map<std::string, std::vector<std::string>> cells;
    auto lines = core::read_lines(refs_path);
    for (size_t i = 0; i < lines.size(); ++i) {
      auto c = split_tabs(lines[i]);
      if (!wanted.count(c[0])) continue;
      if (c.size() < 2)
        throw InputError(refs_path, static_cast<long>(i + 1),
                         "expected 'hash<TAB>score|text...' (no reference column)");
      std::vector<std::string> texts;
      for (size_t k = 1; k < c.size(); ++k) {
        auto bar = c[k].find('|');
        if (bar == std::string::npos)
          throw InputError(
              refs_path, static_cast<long>(i + 1),
              "reference column " + std::to_string(k + 1) + " has no 'score|text' separator '|'");
        // Python's split('|')[1]: the text up to the next '|'.
        auto next = c[k].find('|', bar + 1);
        texts.push_back(
            c[k].substr(bar + 1, next == std::string::npos ? std::string::npos : next - bar - 1));
      }
      cells[c[0]] = std::move(texts);
    }
    refs.assign(static_cast<size_t>(n_refs), {});
    for (const auto& k : hyp.keys) {
      auto it = cells.find(k);
      if (it == cells.end()) throw InputError(refs_path, 0, "no references for key " + k);
      const auto& r = it->second;
      for (int i = 0; i < n_refs; ++i) {
        size_t idx = static_cast<size_t>(i) % r.size();
        if (static_cast<int>(idx) == vshuman) idx = (idx + 1) % r.size();
        refs[static_cast<size_t>(i)].push_back(clean ? metrics::text::dstc7_clean_str(r[idx])
                                                     : r[idx]);
      }
    }
  }
  double load_s = seconds_since(t0);
  auto t1 = Clock::now();

  TaskOutput out;
  results::RunResult& res = out.result;
  res.task = "dstc7";
  res.split = req.split.empty() ? "test" : req.split;
  res.examples = static_cast<long>(hyps.size());
  out.hypotheses = hyps;  // after clean_str when --clean, as scored
  if (!refs.empty()) out.first_references = refs.front();  // the first reference stream
  // metrics.py reads the hypothesis file back; '\n'.join loses a final empty line.
  core::Corpus diversity;
  diversity.hyps = hyps;
  bool dropped_final = false;
  if (!diversity.hyps.empty() && diversity.hyps.back().empty()) {
    diversity.hyps.pop_back();
    dropped_final = true;
  }
  const core::Corpus with_refs{hyps, refs};
  // The metric set through the metric protocol (tasks/metric_set.h).
  for (const TaskMetric& m : dstc7_metric_set(req, st)) {
    if (m.call.metric == "entropy") {
      if (refs.empty())
        res.notes.push_back(
            "reference-free run (--data is a key list): NIST, BLEU and METEOR need the "
            "official multi-reference test.refs");
      if (dropped_final)
        res.notes.push_back(
            "final hypothesis is empty: dropped for entropy/div/avg_len as DSTC7's file round trip "
            "does");
    }
    if (skipped(req, m)) {
      res.notes.push_back(skip_note(m));
      continue;
    }
    if (m.call.metric == "nist") {
      metrics::MetricRun mr = score_task_metric(out, m, with_refs, req);
      for (const auto& w : mr.warnings) res.notes.push_back("mteval: " + w);
    } else if (m.call.metric == "meteor") {
      score_task_metric(out, m, with_refs, req);
    } else if (m.call.metric == "entropy") {
      score_task_metric(out, m, diversity, req);
    } else {
      metrics::MetricRun mr = score_task_metric(out, m, diversity, req);
      const auto& j = mr.objects.front();
      for (int n : {1, 2}) {
        const auto& v = j.at("div_" + std::to_string(n));
        if (!v.is_null())
          res.scores.push_back({"div" + std::to_string(n), v.get<double>(), "diversity", "fraction",
                                true, std::nullopt});
        else
          res.notes.push_back("div" + std::to_string(n) +
                              " undefined: no n-gram (official: ZeroDivisionError)");
      }
      if (!j.at("avg_len").is_null())
        res.scores.push_back(
            {"avg_len", j.at("avg_len").get<double>(), "diversity", "tokens", true, std::nullopt});
    }
  }
  if (hyp.duplicates)
    res.notes.push_back(std::to_string(hyp.duplicates) +
                        " repeated hash(es) in the submission: last line kept (as dstc.py)");
  res.timings.load_s = load_s;
  res.timings.score_s = seconds_since(t1);
  return out;
}

}  // namespace

std::vector<std::string> read_dstc7_keys(const std::string& path) {
  auto lines = core::read_lines(path);
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto& k = lines[i];
    if (k.empty()) throw InputError(path, static_cast<long>(i + 1), "empty line in the key list");
    if (k.find('\t') != std::string::npos)
      throw InputError(path, static_cast<long>(i + 1),
                       "a key list has one hash per line (found a tab)");
    if (seen.insert(k).second) keys.push_back(k);
  }
  if (keys.empty()) throw InputError(path, 0, "no keys");
  return keys;
}

Dstc7Hypotheses read_dstc7_submission(const std::string& path,
                                      const std::vector<std::string>& keys) {
  std::unordered_set<std::string> wanted(keys.begin(), keys.end());
  std::map<std::string, std::string> cells;  // sorted by key, as dstc.py's sorted(keys)
  Dstc7Hypotheses out;
  auto lines = core::read_lines(path);
  for (size_t i = 0; i < lines.size(); ++i) {
    auto c = split_tabs(lines[i]);
    if (c.size() < 2)
      throw InputError(path, static_cast<long>(i + 1),
                       "expected 'hash<TAB>...<TAB>response' (tab-separated, response last)");
    if (!wanted.count(c[0])) continue;
    if (cells.count(c[0])) ++out.duplicates;
    cells[c[0]] = c.back();
  }
  std::vector<std::string> missing;
  for (const auto& k : keys)
    if (!cells.count(k)) missing.push_back(k);
  if (!missing.empty())
    throw InputError(path, 0,
                     std::to_string(missing.size()) + " of " + std::to_string(keys.size()) +
                         " test keys have no response (first: " + missing.front() + ")");
  for (auto& [k, v] : cells) {
    out.keys.push_back(k);
    out.hyps.push_back(std::move(v));
  }
  return out;
}

Dstc7ScoreSheet read_dstc7_score_sheet(const std::string& path) {
  auto lines = core::read_lines(path);
  if (lines.empty()) throw InputError(path, 0, "empty score sheet");
  auto header = split_tabs(lines[0]);
  if (header.empty() || header[0] != "Name")
    throw InputError(path, 1, "expected a header starting with 'Name'");
  Dstc7ScoreSheet sheet;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    auto c = split_tabs(lines[i]);
    if (c.size() != header.size())
      throw InputError(path, static_cast<long>(i + 1),
                       "expected " + std::to_string(header.size()) + " columns, found " +
                           std::to_string(c.size()));
    auto& row = sheet[c[0]];
    for (size_t k = 1; k < c.size(); ++k) {
      try {
        size_t used = 0;
        row[header[k]] = std::stod(c[k], &used);
        if (used != c[k].size()) throw std::invalid_argument(c[k]);
      } catch (const std::exception&) {
        throw InputError(path, static_cast<long>(i + 1),
                         "column " + header[k] + ": '" + c[k] + "' is not a number");
      }
    }
  }
  return sheet;
}

std::vector<TaskAdapter> dstc7_adapters() {
  TaskInfo i;
  i.name = "dstc7";
  i.summary =
      "DSTC7 task 2 response generation (dstc.py: NIST, BLEU, METEOR, entropy, div, length)";
  i.data_format =
      "test.refs (hash<TAB>score|text...) with keys, a folder holding both, or a key list alone "
      "(reference-free)";
  i.pred_format = "submission: hash<TAB>...<TAB>response per line (.gz ok)";
  i.metrics =
      "nist1-4, bleu1-4 (mteval-v14c), meteor (1.5 -norm), entropy1-4, div1-2, avg_len "
      "(metrics.py)";
  i.default_split = "test";
  i.options = {{"keys", "hash list (default: keys/test.2k.txt beside the refs)"},
               {"clean", "dstc.py --clean: DSTC7 clean_str (default true)"},
               {"n_refs", "reference streams (default 6)"},
               {"vshuman", "held-out human reference index (default 1; -1 keeps all)"},
               {"meteor_data", "METEOR 1.5 resources folder (default $UNIEVAL_METEOR_DATA)"},
               {"meteor_modules", "METEOR stages (default exact,stem,synonym,paraphrase = -l en)"}};
  return {{i, run_dstc7, dstc7_metrics}};
}

}  // namespace unieval::tasks
