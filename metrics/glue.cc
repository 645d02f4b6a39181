// Follows HF transformers (Apache-2.0), scikit-learn (BSD-3-Clause) and SciPy (BSD-3-Clause)
// behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "metrics/glue.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <numeric>

#include "core/error.h"
#include "core/io.h"
#include "core/py_string.h"
#include "metrics/distinct.h"

namespace unieval::metrics {

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::string> split_tab(const std::string& s) { return core::py_split_on(s, '\t'); }

std::string trim(const std::string& s) { return core::py_strip_chars(s, " \t\r\n"); }

bool is_number(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

}  // namespace

GlueTask parse_glue_task(const std::string& raw) {
  std::string n;
  for (char c : raw) n.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (n == "cola") return GlueTask::kCola;
  if (n == "sst2" || n == "sst-2") return GlueTask::kSst2;
  if (n == "mrpc") return GlueTask::kMrpc;
  if (n == "stsb" || n == "sts-b") return GlueTask::kStsb;
  if (n == "qqp") return GlueTask::kQqp;
  if (n == "mnli" || n == "mnli-m" || n == "mnli_m" || n == "mnli-matched") return GlueTask::kMnli;
  if (n == "mnli-mm" || n == "mnli_mm" || n == "mnli-mismatched") return GlueTask::kMnliMm;
  if (n == "qnli") return GlueTask::kQnli;
  if (n == "rte") return GlueTask::kRte;
  if (n == "wnli") return GlueTask::kWnli;
  if (n == "ax" || n == "diagnostic") return GlueTask::kAx;
  throw InputError("unknown GLUE task '" + raw +
                   "' (cola, sst2, mrpc, stsb, qqp, mnli, mnli-mm, qnli, rte, wnli, ax)");
}

const char* glue_task_name(GlueTask t) {
  switch (t) {
    case GlueTask::kCola:
      return "cola";
    case GlueTask::kSst2:
      return "sst2";
    case GlueTask::kMrpc:
      return "mrpc";
    case GlueTask::kStsb:
      return "stsb";
    case GlueTask::kQqp:
      return "qqp";
    case GlueTask::kMnli:
      return "mnli";
    case GlueTask::kMnliMm:
      return "mnli-mm";
    case GlueTask::kQnli:
      return "qnli";
    case GlueTask::kRte:
      return "rte";
    case GlueTask::kWnli:
      return "wnli";
    case GlueTask::kAx:
      return "ax";
  }
  return "?";
}

std::vector<std::string> glue_label_names(GlueTask t) {
  switch (t) {
    case GlueTask::kMnli:
    case GlueTask::kMnliMm:
    case GlueTask::kAx:
      return {"contradiction", "entailment", "neutral"};
    case GlueTask::kQnli:
    case GlueTask::kRte:
      return {"entailment", "not_entailment"};
    case GlueTask::kStsb:
      return {};
    default:
      return {"0", "1"};
  }
}

std::vector<double> parse_glue_labels(const std::string& text, const std::string& source,
                                      GlueTask task) {
  std::vector<std::string> lines = core::split_lines(text, source);
  std::vector<std::string> names = glue_label_names(task);
  std::vector<double> out;
  if (lines.empty()) return out;
  static const char* kHeaderNames[] = {"label",        "gold_label", "Label",     "Quality",
                                       "is_duplicate", "score",      "prediction"};
  std::vector<std::string> head = split_tab(lines[0]);
  int col = -1;
  size_t first = 0;
  for (const char* h : kHeaderNames) {
    for (size_t i = 0; i < head.size() && col < 0; ++i)
      if (trim(head[i]) == h) col = static_cast<int>(i);
    if (col >= 0) break;
  }
  if (col >= 0) {
    first = 1;
  } else if (head.size() == 1) {
    col = 0;  // plain file: one label per line
  } else if (task == GlueTask::kCola && head.size() == 4) {
    col = 1;  // CoLA: source, label, original label, sentence (no header)
  } else {
    throw InputError(source, 1,
                     "cannot find the label column: no header with label/gold_label/Label/"
                     "Quality/is_duplicate/score/prediction and not a one-column file");
  }
  for (size_t ln = first; ln < lines.size(); ++ln) {
    const std::string& line = lines[ln];
    if (trim(line).empty()) {
      if (ln + 1 == lines.size()) break;
      throw InputError(source, static_cast<long>(ln + 1), "empty line");
    }
    std::vector<std::string> cols = split_tab(line);
    if (static_cast<int>(cols.size()) <= col)
      throw InputError(source, static_cast<long>(ln + 1),
                       "has " + std::to_string(cols.size()) + " columns, label column is " +
                           std::to_string(col + 1));
    std::string lab = trim(cols[col]);
    auto it = std::find(names.begin(), names.end(), lab);
    double v;
    if (it != names.end()) {
      v = static_cast<double>(it - names.begin());
    } else if (!is_number(lab, v)) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      throw InputError(source, static_cast<long>(ln + 1),
                       "bad label '" + lab + "' for " + glue_task_name(task) +
                           (known.empty() ? " (expected a number)"
                                          : " (expected a number or one of " + known + ")"));
    }
    out.push_back(v);
  }
  return out;
}

std::vector<double> read_glue_labels(const std::string& path, GlueTask task) {
  return parse_glue_labels(core::read_file(path), path, task);
}

double glue_accuracy(const std::vector<double>& labels, const std::vector<double>& preds) {
  size_t same = 0;
  for (size_t i = 0; i < labels.size(); ++i) same += labels[i] == preds[i];
  return static_cast<double>(same) / static_cast<double>(labels.size());
}

double glue_f1(const std::vector<double>& labels, const std::vector<double>& preds,
               bool* ill_defined) {
  double tp = 0, pred_pos = 0, true_pos = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    bool p = preds[i] == 1, t = labels[i] == 1;
    tp += p && t;
    pred_pos += p;
    true_pos += t;
  }
  // sklearn precision_recall_fscore_support: 0/0 -> 0 (zero_division="warn").
  double precision = pred_pos == 0 ? 0 : tp / pred_pos;
  double recall = true_pos == 0 ? 0 : tp / true_pos;
  double denom = precision + recall;
  if (ill_defined) *ill_defined = pred_pos == 0 || true_pos == 0 || denom == 0;
  if (denom == 0) return 0.0;
  return 2 * precision * recall / denom;
}

double matthews_corrcoef(const std::vector<double>& labels, const std::vector<double>& preds) {
  // sklearn: confusion matrix over the sorted union of labels.
  std::vector<double> classes(labels);
  classes.insert(classes.end(), preds.begin(), preds.end());
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  size_t k = classes.size();
  auto idx = [&](double v) {
    return std::lower_bound(classes.begin(), classes.end(), v) - classes.begin();
  };
  std::vector<double> t_sum(k, 0), p_sum(k, 0);
  double n_correct = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    t_sum[idx(labels[i])] += 1;
    p_sum[idx(preds[i])] += 1;
    n_correct += labels[i] == preds[i];
  }
  double n_samples = 0, tp = 0, pp = 0, tt = 0;
  for (size_t c = 0; c < k; ++c) {
    n_samples += p_sum[c];
    tp += t_sum[c] * p_sum[c];
    pp += p_sum[c] * p_sum[c];
    tt += t_sum[c] * t_sum[c];
  }
  double cov_ytyp = n_correct * n_samples - tp;
  double cov_ypyp = n_samples * n_samples - pp;
  double cov_ytyt = n_samples * n_samples - tt;
  if (cov_ypyp * cov_ytyt == 0) return 0.0;
  return cov_ytyp / std::sqrt(cov_ytyt * cov_ypyp);
}

namespace {

bool constant(const std::vector<double>& v) {
  for (double x : v)
    if (x != v[0]) return false;
  return true;
}

// np.corrcoef(x, y)[1, 0]: cov / sqrt(var) / sqrt(var), clipped to [-1, 1].
double corrcoef(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = numpy_mean(x), my = numpy_mean(y);
  double sxx = 0, syy = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double dx = x[i] - mx, dy = y[i] - my;
    sxx += dx * dx;
    syy += dy * dy;
    sxy += dx * dy;
  }
  double f = static_cast<double>(x.size()) - 1;
  double c = sxy / f;
  c /= std::sqrt(syy / f);
  c /= std::sqrt(sxx / f);
  return std::max(-1.0, std::min(1.0, c));
}

std::vector<double> rankdata_average(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    double avg = (static_cast<double>(i + 1) + static_cast<double>(j + 1)) / 2.0;
    for (size_t k = i; k <= j; ++k) r[order[k]] = avg;
    i = j + 1;
  }
  return r;
}

}  // namespace

double pearson_r(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() < 2 || constant(x) || constant(y)) return kNaN;
  if (x.size() == 2) {  // scipy special case
    auto sgn = [](double d) { return d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0; };
    return sgn(x[1] - x[0]) * sgn(y[1] - y[0]);
  }
  double mx = numpy_mean(x), my = numpy_mean(y);
  std::vector<double> xm(x.size()), ym(y.size());
  double nx = 0, ny = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    xm[i] = x[i] - mx;
    ym[i] = y[i] - my;
    nx += xm[i] * xm[i];
    ny += ym[i] * ym[i];
  }
  nx = std::sqrt(nx);
  ny = std::sqrt(ny);
  double r = 0;
  for (size_t i = 0; i < x.size(); ++i) r += (xm[i] / nx) * (ym[i] / ny);
  return std::max(-1.0, std::min(1.0, r));
}

double spearman_r(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() < 2 || constant(x) || constant(y)) return kNaN;
  return corrcoef(rankdata_average(x), rankdata_average(y));
}

GlueResult glue_compute_metrics(GlueTask task, const std::vector<double>& labels,
                                const std::vector<double>& preds) {
  if (labels.size() != preds.size())
    throw InputError("gold has " + std::to_string(labels.size()) +
                     " labels but the predictions have " + std::to_string(preds.size()));
  if (labels.empty()) throw InputError("no labels to score");
  GlueResult r;
  r.task = task;
  r.signature =
      std::string("glue|task:") + glue_task_name(task) + "|semantics:sklearn-1.2+scipy-1.10";
  if (task == GlueTask::kStsb) {
    double p = pearson_r(preds, labels), s = spearman_r(preds, labels);
    if (std::isnan(p) || std::isnan(s))
      r.warnings.push_back(
          "an input array is constant; the correlation coefficient is not defined (null)");
    r.pearson = p;
    r.spearmanr = s;
    r.corr = (p + s) / 2;
    return r;
  }
  r.accuracy = glue_accuracy(labels, preds);
  if (task == GlueTask::kCola || task == GlueTask::kAx)
    r.matthews_corrcoef = matthews_corrcoef(labels, preds);
  if (task == GlueTask::kMrpc || task == GlueTask::kQqp) {
    bool ill = false;
    r.f1 = glue_f1(labels, preds, &ill);
    if (ill)
      r.warnings.push_back(
          "F-score is ill-defined (no true or no predicted positive); set to 0.0 as sklearn");
    r.acc_and_f1 = (*r.accuracy + *r.f1) / 2;
  }
  return r;
}

nlohmann::ordered_json GlueResult::to_json() const {
  nlohmann::ordered_json j;
  auto put = [&](const char* k, const std::optional<double>& v) {
    if (!v) return;
    if (std::isnan(*v))
      j[k] = nullptr;
    else
      j[k] = *v;
  };
  put("accuracy", accuracy);
  put("f1", f1);
  put("acc_and_f1", acc_and_f1);
  put("matthews_corrcoef", matthews_corrcoef);
  put("pearson", pearson);
  put("spearmanr", spearmanr);
  put("corr", corr);
  return j;
}

// ---- GLUE score -------------------------------------------------------------------------

namespace {

std::string canonical_task(const std::string& name) {
  GlueTask t = parse_glue_task(name);
  switch (t) {
    case GlueTask::kCola:
      return "CoLA";
    case GlueTask::kSst2:
      return "SST-2";
    case GlueTask::kMrpc:
      return "MRPC";
    case GlueTask::kStsb:
      return "STS-B";
    case GlueTask::kQqp:
      return "QQP";
    case GlueTask::kMnli:
      return "MNLI-m";
    case GlueTask::kMnliMm:
      return "MNLI-mm";
    case GlueTask::kQnli:
      return "QNLI";
    case GlueTask::kRte:
      return "RTE";
    case GlueTask::kWnli:
      return "WNLI";
    case GlueTask::kAx:
      return "AX";
  }
  return name;
}

double metric(const nlohmann::json& m, const std::vector<std::string>& names,
              const std::string& task, const std::string& source) {
  for (const auto& n : names)
    if (m.contains(n) && m[n].is_number()) return m[n].get<double>();
  throw InputError(source, 0, "task " + task + " lacks metric '" + names[0] + "'");
}

}  // namespace

GlueScore glue_score(const nlohmann::json& tm, const GlueScoreOptions& opts,
                     const std::string& source) {
  if (!tm.is_object())
    throw InputError(source, 0, "GLUE results must be a JSON object {task: {metric: value}}");
  std::map<std::string, nlohmann::json> by;
  for (auto it = tm.begin(); it != tm.end(); ++it) by[canonical_task(it.key())] = it.value();
  static const char* kOrder[] = {"CoLA",    "SST-2", "MRPC", "STS-B", "QQP", "MNLI-m",
                                 "MNLI-mm", "QNLI",  "RTE",  "WNLI",  "AX"};
  GlueScore g;
  std::map<std::string, double> per;
  std::string missing;
  for (const char* t : kOrder) {
    auto it = by.find(t);
    if (it == by.end()) {
      if (std::string(t) != "AX") missing += std::string(missing.empty() ? "" : ", ") + t;
      continue;
    }
    const auto& m = it->second;
    std::string task = t;
    double v;
    if (task == "CoLA" || task == "AX") {
      v = metric(m, {"mcc", "matthews_corrcoef"}, task, source);
    } else if (task == "MRPC" || task == "QQP") {
      v = (metric(m, {"f1"}, task, source) + metric(m, {"acc", "accuracy"}, task, source)) / 2;
    } else if (task == "STS-B") {
      v = (metric(m, {"pearson"}, task, source) +
           metric(m, {"spearman", "spearmanr"}, task, source)) /
          2;
    } else {
      v = metric(m, {"acc", "accuracy"}, task, source);
    }
    per[task] = v;
    g.per_task.emplace_back(task, v);
  }
  if (!missing.empty())
    throw InputError(source, 0, "GLUE score needs every task; missing: " + missing);
  auto avg9 = [&](double mnli) {
    double s = per["CoLA"] + per["SST-2"] + per["MRPC"] + per["STS-B"] + per["QQP"] + mnli +
               per["QNLI"] + per["RTE"] + per["WNLI"];
    return s / 9;
  };
  g.score_mnli_avg = avg9((per["MNLI-m"] + per["MNLI-mm"]) / 2);
  g.score_mnli_m_only = avg9(per["MNLI-m"]);
  g.score = opts.mnli == GlueMnliConvention::kAverage ? g.score_mnli_avg : g.score_mnli_m_only;
  g.signature = std::string("glue-score|tasks:9|mnli:") +
                (opts.mnli == GlueMnliConvention::kAverage ? "mean(m,mm)" : "m-only") +
                "|ax:excluded";
  return g;
}

nlohmann::ordered_json GlueScore::to_json() const {
  nlohmann::ordered_json j;
  j["glue_score"] = score;
  j["glue_score_mnli_avg_9tasks"] = score_mnli_avg;
  j["glue_score_mnli_m_only_9tasks"] = score_mnli_m_only;
  nlohmann::ordered_json p;
  for (const auto& [k, v] : per_task) p[k] = v;
  j["per_task"] = p;
  return j;
}

}  // namespace unieval::metrics
