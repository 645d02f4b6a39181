// `unieval eval --task T --data PATH --pred FILE [--json] [--out RESULT.json]`: a task's official
// metric set on its original data format (tasks/task.h).
#include <cstdio>
#include <iostream>
#include <sstream>

#include "apps/unieval/commands.h"
#include "core/error.h"
#include "pipelines/evaluate.h"
#include "results/report.h"
#include "results/run_result.h"
#include "tasks/diagnostics.h"
#include "tasks/task.h"

namespace unieval::cli {

namespace {

std::string task_list() {
  std::ostringstream os;
  os << "Tasks:\n";
  for (const auto& t : tasks::task_registry()) {
    const auto& i = t.info;
    os << "  " << i.name << std::string(i.name.size() < 18 ? 18 - i.name.size() : 1, ' ')
       << i.summary << "\n"
       << "      data: " << i.data_format << "\n"
       << "      pred: " << i.pred_format << "\n"
       << "      metrics: " << i.metrics << "\n";
    if (t.metrics) {  // the set as data (tasks/metric_set.h): what --skip-metric names
      tasks::EvalRequest defaults;
      defaults.task = i.name;
      os << "      metric set (--skip-metric NAME):";
      for (const auto& m : t.metrics(defaults)) os << " " << m.call.metric;
      os << "\n";
    }
    for (const auto& [k, h] : i.options) os << "      --option " << k << "=...  " << h << "\n";
  }
  return os.str();
}

}  // namespace

int cmd_eval(const Args& args) {
  po::options_description desc("unieval eval options");
  desc.add_options()("task", po::value<std::string>(), "Task key (list below).")(
      "data", po::value<std::string>(),
      "Dataset in its original distribution format (file or folder).")(
      "pred", po::value<std::string>(), "System output file.")(
      "split", po::value<std::string>()->default_value(""),
      "Split name recorded in the result (default: the task's).")(
      "system", po::value<std::string>()->default_value(""),
      "System name (default: the prediction file's name).")(
      "option", po::value<std::vector<std::string>>()->composing(),
      "Task option KEY=VALUE (repeatable; per task below).")(
      "skip-metric", po::value<std::vector<std::string>>()->composing(),
      "Leave metric NAME of the task's set out (repeatable; e.g. meteor when its resources are "
      "absent). "
      "A metric whose resources are missing is otherwise an error naming what to set; a skipped "
      "one "
      "is recorded in the result's notes.")(
      "json", po::bool_switch(),
      "Print the result as JSON (schema results/schema/run_result.v1.schema.json).")(
      "out", po::value<std::string>()->default_value(""),
      "Also write the result JSON here (atomically).")("per-example", po::bool_switch(),
                                                       "Keep per-example scores in the result.")(
      "bootstrap", po::value<int>()->default_value(0),
      "Percentile-bootstrap CIs with N resamples (0 = none): mean scores (EM, F1, accuracy) and "
      "corpus "
      "scores of decomposable metrics (squad-qg coco BLEU-1..4, METEOR, ROUGE-L).")(
      "seed", po::value<unsigned long long>()->default_value(12345), "Bootstrap seed.")(
      "ci-level", po::value<double>()->default_value(0.95), "CI coverage.")(
      "paired-pred", po::value<std::string>()->default_value(""),
      "A baseline's output file for the same data: paired bootstrap test (needs --bootstrap N) of "
      "every "
      "score with a CI, --pred against it, on the same resamples; p-values in the result's "
      "paired_bootstrap.")("paired-system", po::value<std::string>()->default_value(""),
                           "The baseline's name (default: its file name).")(
      "list", po::bool_switch(), "List the tasks and exit.");
  bool help = false;
  for (const auto& a : args) help |= (a == "--help" || a == "-h");
  const std::string usage =
      "usage: unieval eval --task T --data PATH --pred FILE [--json] [--out RESULT.json] [--option "
      "KEY=VALUE ...]";
  if (help) {
    std::cout << usage << "\n\n"
              << "Generation tasks (squad-qg, cnndm, gigaword, coqa-gen, dstc7, personachat) also "
                 "get the result's\n"
                 "\"diagnostics\" of the hypotheses as scored (empty, repeated words, distinct, "
                 "most common, words per\n"
                 "hypothesis and reference, length ratio); abnormal values are notes and "
                 "\"warning: ...\" on stderr.\n\n"
              << desc << "\n"
              << task_list();
    return kExitOk;
  }
  auto vm = parse(args, desc, usage);
  if (vm["list"].as<bool>()) {
    std::cout << task_list();
    return kExitOk;
  }
  if (!vm.count("task"))
    throw InputError("--task T is required (unieval eval --list shows the tasks)");
  tasks::EvalRequest req;
  req.task = vm["task"].as<std::string>();
  if (vm.count("data")) req.data = vm["data"].as<std::string>();
  if (vm.count("pred")) req.pred = vm["pred"].as<std::string>();
  req.split = vm["split"].as<std::string>();
  req.system = vm["system"].as<std::string>();
  if (vm.count("option")) {
    for (const auto& kv : vm["option"].as<std::vector<std::string>>()) {
      auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0)
        throw InputError("--option '" + kv + "': expected KEY=VALUE");
      req.options[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
  }
  if (vm.count("skip-metric")) req.skip_metrics = vm["skip-metric"].as<std::vector<std::string>>();
  req.per_example = vm["per-example"].as<bool>();
  req.bootstrap = vm["bootstrap"].as<int>();
  req.seed = vm["seed"].as<unsigned long long>();
  req.ci_level = vm["ci-level"].as<double>();
  req.paired_pred = vm["paired-pred"].as<std::string>();
  req.paired_system = vm["paired-system"].as<std::string>();
  results::RunResult r = pipelines::evaluate(req);
  std::string out = vm["out"].as<std::string>();
  if (!out.empty()) results::write_run_result(out, r);
  for (const auto& w : pipelines::result_warnings(r)) std::cerr << "warning: " << w << "\n";
  if (vm["json"].as<bool>())
    print_json(results::to_json(r));
  else {
    std::cout << results::render_summary(r);
    if (r.extra.contains("diagnostics"))
      std::cout << tasks::render_diagnostics(
          tasks::diagnostics_from_json(nlohmann::json::parse(r.extra["diagnostics"].dump())));
    if (r.extra.contains("paired_bootstrap")) {
      const auto& p = r.extra["paired_bootstrap"];
      std::cout << "paired bootstrap against " << p["baseline"].get<std::string>() << " ("
                << p["resamples"].get<int>() << " resamples):\n";
      for (const auto& t : p["scores"]) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "  %-12s %.4f vs %.4f  delta %+.4f  p = %.4f\n",
                      t["score"].get<std::string>().c_str(), t["system"].get<double>(),
                      t["baseline"].get<double>(), t["delta"].get<double>(),
                      t["p_value"].get<double>());
        std::cout << buf;
      }
    }
  }
  return kExitOk;
}

}  // namespace unieval::cli
