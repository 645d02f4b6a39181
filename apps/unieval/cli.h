#pragma once
// Shared plumbing for the `unieval` subcommands: option parsing, JSON printing, exit codes.
// Subcommands hold no scoring or training logic: they map flags onto the libraries' options
// structs, call them, and print.
#include <boost/program_options.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "metrics/protocol.h"

namespace unieval::cli {

namespace po = boost::program_options;
using Args = std::vector<std::string>;

// Exit codes used by every subcommand.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;     // a check failed (compare: regression; reproduce: mismatch)
constexpr int kExitInputError = 2;  // bad input, bad option, missing file
constexpr int kExitInternal = 3;    // a bug or a library failure

// Thrown to end a subcommand early with an exit code (e.g. after printing --help).
struct Exit {
  int code;
};

// Parses args against desc (and positionals). Long options only as written in full (no
// abbreviations); unknown options are errors. --help/-h prints "usage" and desc, then throws Exit{0}.
po::variables_map parse(const Args& args, const po::options_description& desc,
                        const std::string& usage,
                        const po::positional_options_description* positional = nullptr);

// Prints one JSON value on one line to stdout.
void print_json(const nlohmann::ordered_json& j);

// "0.5,0.5" -> {0.5, 0.5}; "1,2,4" -> {1, 2, 4} (metrics/protocol.h: the option-list parsers the
// metric protocol uses).
using metrics::parse_double_list;
using metrics::parse_int_list;

// Runs one subcommand, turning its exceptions into exit codes with a message on stderr:
// Exit -> its code, InputError -> 2, any other exception -> 3.
int run_command(const std::string& name, int (*run)(const Args&), const Args& args);

// Writes a warning line to stderr ("unieval: warning: ...").
void warn(const std::string& message);

}  // namespace unieval::cli
