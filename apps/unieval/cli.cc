#include "apps/unieval/cli.h"

#include <iostream>

#include "core/error.h"

namespace unieval::cli {

po::variables_map parse(const Args& args, const po::options_description& desc,
                        const std::string& usage,
                        const po::positional_options_description* positional) {
  po::options_description all = desc;
  bool has_help = desc.find_nothrow("help", false) != nullptr;
  if (!has_help) all.add_options()("help,h", "Show this help and exit.");
  auto style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  po::command_line_parser parser(args);
  parser.options(all).style(style);
  if (positional) parser.positional(*positional);
  po::variables_map vm;
  try {
    po::store(parser.run(), vm);
    if (vm.count("help")) {
      std::cout << usage << "\n\n" << all << std::flush;
      throw Exit{kExitOk};
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string(e.what()) + " (see --help)");
  }
  return vm;
}

void print_json(const nlohmann::ordered_json& j) {
  std::cout << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

std::vector<double> parse_double_list(const std::string& text, const std::string& option) {
  std::vector<double> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    try {
      size_t used = 0;
      double v = std::stod(item, &used);
      if (used != item.size()) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      throw InputError("--" + option + ": '" + item + "' is not a number (expected e.g. 0.5,0.5)");
    }
    start = end + 1;
  }
  return out;
}

std::vector<int> parse_int_list(const std::string& text, const std::string& option) {
  std::vector<int> out;
  for (double v : parse_double_list(text, option)) {
    if (v != static_cast<int>(v))
      throw InputError("--" + option + ": '" + std::to_string(v) + "' is not an integer");
    out.push_back(static_cast<int>(v));
  }
  return out;
}

void warn(const std::string& message) { std::cerr << "unieval: warning: " << message << "\n"; }


int run_command(const std::string& name, int (*run)(const Args&), const Args& args) {
  try {
    return run(args);
  } catch (const Exit& e) {
    return e.code;
  } catch (const InputError& e) {
    std::cerr << "unieval " << name << ": error: " << e.what() << "\n";
    return kExitInputError;
  } catch (const std::exception& e) {
    std::cerr << "unieval " << name << ": internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace unieval::cli
