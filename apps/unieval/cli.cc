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
