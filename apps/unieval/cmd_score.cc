// `unieval score`: dispatches to the metric family that registered --metric NAME.
#include <iostream>
#include <map>
#include <sstream>

#include "apps/unieval/commands.h"
#include "apps/unieval/score.h"
#include "core/error.h"

namespace unieval::cli {

namespace {

ScoreRegistry build_registry() {
  ScoreRegistry reg;
  register_bleu_metrics(reg);
  register_rouge_metrics(reg);
  register_meteor_metrics(reg);
  register_qa_metrics(reg);
  return reg;
}

po::options_description common_options() {
  po::options_description d("Common options");
  d.add_options()
      ("metric", po::value<std::string>()->required(), "Metric to compute (list below).")
      ("hyp", po::value<std::string>(), "System output: UTF-8, one segment per line (.gz ok).")
      ("ref", po::value<std::vector<std::string>>()->composing(),
       "Reference file, one segment per line; repeat for several references (sacreBLEU "
       "convention: the k-th file holds the k-th reference of every segment).")
      ("json", po::bool_switch(), "Print one JSON object instead of a human summary.")
      ("help,h", "Show this help (with --metric NAME: only that metric's options).");
  return d;
}

// --metric value from raw args (before the metric's own options are known).
std::string find_metric(const Args& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--metric" && i + 1 < args.size()) return args[i + 1];
    if (args[i].rfind("--metric=", 0) == 0) return args[i].substr(9);
  }
  return "";
}

void print_help(const ScoreRegistry& reg, const ScoreMetric* only) {
  std::cout << "usage: unieval score --metric NAME --hyp FILE --ref FILE [--ref FILE ...] [options] [--json]\n"
               "       (squad/coqa/glue take --data/--pred or --gold/--pred instead of --hyp/--ref)\n\n"
            << common_options() << "\nMetrics:\n";
  for (const auto& m : reg) {
    std::cout << "  " << m.name << std::string(m.name.size() < 14 ? 14 - m.name.size() : 1, ' ')
              << m.summary << "\n";
  }
  std::map<std::string, bool> printed;
  for (const auto& m : reg) {
    if (only && only->name != m.name) continue;
    std::string section = m.section.empty() ? m.name : m.section;
    if (printed[section]) continue;
    printed[section] = true;
    po::options_description d("Options for " + section);
    m.add_options(d);
    if (!d.options().empty()) std::cout << "\n" << d;
  }
  std::cout << "\nExit codes: 0 ok, 2 bad input (message names the file and line), 3 internal error.\n";
}

}  // namespace

std::string hyp_path(const po::variables_map& vm) {
  if (!vm.count("hyp")) throw InputError("--hyp FILE is required for --metric " +
                                         vm["metric"].as<std::string>());
  return vm["hyp"].as<std::string>();
}

std::vector<std::string> ref_paths(const po::variables_map& vm) {
  if (!vm.count("ref")) throw InputError("at least one --ref FILE is required for --metric " +
                                         vm["metric"].as<std::string>());
  return vm["ref"].as<std::vector<std::string>>();
}

bool want_json(const po::variables_map& vm) { return vm.count("json") && vm["json"].as<bool>(); }

void add_threads_option(po::options_description& d, const std::string& what) {
  d.add_options()
      ("threads", po::value<int>()->default_value(0),
       ("Threads (0 = all cores, max 8; 1 = none): " + what +
        ". The numbers are identical for any value.").c_str());
}

int cmd_score(const Args& args) {
  ScoreRegistry reg = build_registry();
  std::string name = find_metric(args);
  const ScoreMetric* metric = nullptr;
  for (const auto& m : reg)
    if (m.name == name) metric = &m;
  bool help = false;
  for (const auto& a : args) help |= (a == "--help" || a == "-h");
  if (help) {
    print_help(reg, metric);
    return kExitOk;
  }
  if (name.empty()) throw InputError("--metric NAME is required (see unieval score --help)");
  if (!metric) {
    std::ostringstream known;
    for (const auto& m : reg) known << " " << m.name;
    throw InputError("unknown metric '" + name + "'; known:" + known.str());
  }
  po::options_description desc = common_options();
  po::options_description own("Options for " + metric->name);
  metric->add_options(own);
  desc.add(own);
  po::variables_map vm = parse(args, desc, "usage: unieval score --metric " + name + " ...");
  return metric->run(vm);
}

}  // namespace unieval::cli
