// `unieval score`: a thin shell over the metric protocol (metrics/protocol.h). The metric's option
// specs become Boost.Program_options flags (parsing and --help), --help-markdown prints the README
// tables generated from the same specs, and the library scores and serialises.
#include <iostream>
#include <map>
#include <sstream>

#include "apps/unieval/commands.h"
#include "core/error.h"
#include "metrics/protocol.h"

namespace unieval::cli {

namespace {

namespace m = unieval::metrics;

template <class T>
void add_typed(po::options_description& d, const std::string& name, const m::OptionSpec& s) {
  po::typed_value<T>* sem = po::value<T>();
  if (s.default_value) sem->default_value(std::get<T>(*s.default_value));
  if (s.required) sem->required();
  d.add_options()(name.c_str(), sem, s.help.c_str());
}

// One spec as a Boost option (typed, so --help shows defaults as before).
void add_spec(po::options_description& d, const m::OptionSpec& s) {
  std::string name = s.name;
  if (s.short_name) name += std::string(",") + s.short_name;
  const char* help = s.help.c_str();
  switch (s.type) {
    case m::OptionType::kFlag:
      d.add_options()(name.c_str(), po::bool_switch(), help);
      break;
    case m::OptionType::kInt:
      add_typed<int>(d, name, s);
      break;
    case m::OptionType::kLong:
      add_typed<long>(d, name, s);
      break;
    case m::OptionType::kUInt64:
      add_typed<unsigned long long>(d, name, s);
      break;
    case m::OptionType::kDouble:
      add_typed<double>(d, name, s);
      break;
    case m::OptionType::kString:
      add_typed<std::string>(d, name, s);
      break;
    case m::OptionType::kStringList:
      d.add_options()(name.c_str(), po::value<std::vector<std::string>>()->composing(), help);
      break;
  }
}

void add_specs(po::options_description& d, const std::vector<m::OptionSpec>& specs) {
  for (const auto& s : specs) add_spec(d, s);
}

// The parsed values of the given specs, typed as declared.
void collect(const po::variables_map& vm, const std::vector<m::OptionSpec>& specs,
             m::OptionValues& out) {
  for (const auto& s : specs) {
    if (!vm.count(s.name)) continue;
    const auto& v = vm[s.name];
    switch (s.type) {
      case m::OptionType::kFlag:
        out.set(s.name, v.as<bool>(), v.defaulted());
        break;
      case m::OptionType::kInt:
        out.set(s.name, v.as<int>(), v.defaulted());
        break;
      case m::OptionType::kLong:
        out.set(s.name, v.as<long>(), v.defaulted());
        break;
      case m::OptionType::kUInt64:
        out.set(s.name, v.as<unsigned long long>(), v.defaulted());
        break;
      case m::OptionType::kDouble:
        out.set(s.name, v.as<double>(), v.defaulted());
        break;
      case m::OptionType::kString:
        out.set(s.name, v.as<std::string>(), v.defaulted());
        break;
      case m::OptionType::kStringList:
        out.set(s.name, v.as<std::vector<std::string>>(), v.defaulted());
        break;
    }
  }
}

po::options_description common_options() {
  po::options_description d("Common options");
  add_specs(d, m::common_option_specs());
  d.add_options()("help,h", "Show this help (with --metric NAME: only that metric's options).");
  return d;
}

// --metric value from raw args (before the metric's own options are known).
std::string find_metric_arg(const Args& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--metric" && i + 1 < args.size()) return args[i + 1];
    if (args[i].rfind("--metric=", 0) == 0) return args[i].substr(9);
  }
  return "";
}

void print_help(const m::MetricSpec* only) {
  const m::MetricRegistry& reg = m::metric_registry();
  std::cout
      << "usage: unieval score --metric NAME --hyp FILE --ref FILE [--ref FILE ...] [options] "
         "[--json]\n"
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
    add_specs(d, m.options);
    if (!d.options().empty()) std::cout << "\n" << d;
  }
  std::cout << "\nExit codes: 0 ok, 1 check failed (not used by score), 2 bad input (the message "
               "names the file\n"
               "and line), 3 internal error.\n";
}

}  // namespace

int cmd_score(const Args& args) {
  std::string name = find_metric_arg(args);
  const m::MetricSpec* metric = m::find_metric(name);
  bool help = false;
  for (const auto& a : args) {
    help |= (a == "--help" || a == "-h");
    if (a == "--help-markdown") {
      std::cout << m::registry_markdown();
      return kExitOk;
    }
  }
  if (help) {
    print_help(metric);
    return kExitOk;
  }
  if (name.empty()) throw InputError("--metric NAME is required (see unieval score --help)");
  if (!metric) {
    std::ostringstream known;
    for (const auto& m : m::metric_registry()) known << " " << m.name;
    throw InputError("unknown metric '" + name + "'; known:" + known.str());
  }
  po::options_description desc = common_options();
  po::options_description own("Options for " + metric->name);
  add_specs(own, metric->options);
  desc.add(own);
  po::variables_map vm = parse(args, desc, "usage: unieval score --metric " + name + " ...");
  m::OptionValues values;
  collect(vm, m::common_option_specs(), values);
  collect(vm, metric->options, values);
  std::cout << m::score_metric(name, values, warn) << std::flush;
  return kExitOk;
}

}  // namespace unieval::cli
