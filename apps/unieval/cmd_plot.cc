// `unieval plot --run RUN [--out FILE.svg]`: training curves of a run from RUN/log.jsonl as an
// SVG drawn by the project (results/curves.h).
#include <filesystem>
#include <iostream>

#include "apps/unieval/commands.h"
#include "core/error.h"
#include "core/io.h"
#include "results/curves.h"

namespace unieval::cli {

int cmd_plot(const Args& args) {
  po::options_description desc("unieval plot options");
  desc.add_options()("run", po::value<std::string>(),
                     "Run folder of `unieval finetune`, `pretrain` or `run` (reads RUN/log.jsonl), "
                     "or the log.jsonl itself.")(
      "out", po::value<std::string>()->default_value(""),
      "SVG file to write (atomically); default RUN/curves.svg; '-' = stdout.")(
      "title", po::value<std::string>()->default_value(""),
      "Title drawn at the top (default: the run folder).");
  auto vm = parse(
      args, desc,
      "usage: unieval plot --run RUN [--out FILE.svg]\n"
      "Draws training loss (one curve per objective where there are several), dev loss, learning "
      "rate and tokens/s against the step, from RUN/log.jsonl, as one standalone SVG (one <path> "
      "per series). Exit 2 when the log is absent or malformed (file and line named).");
  if (!vm.count("run")) throw InputError("--run RUN is required (see --help)");
  const std::filesystem::path run = vm["run"].as<std::string>();
  const bool is_dir = std::filesystem::is_directory(run);
  const std::filesystem::path log = is_dir ? run / "log.jsonl" : run;
  if (!std::filesystem::is_regular_file(log))
    throw InputError(log.string(), 0,
                     "no training log (log.jsonl of `unieval finetune`, `pretrain` or `run`)");
  auto series = results::read_training_log(log.string());
  std::string title = vm["title"].as<std::string>();
  if (title.empty()) title = (is_dir ? run : run.parent_path()).string();
  std::string out = vm["out"].as<std::string>();
  if (out.empty()) out = ((is_dir ? run : run.parent_path()) / "curves.svg").string();
  const std::string svg = results::render_curves_svg(series, title);
  if (out == "-") {
    std::cout << svg;
  } else {
    core::write_file_atomic(out, svg);
    size_t drawn = 0;
    for (const auto& s : series) drawn += !s.points.empty();
    std::cerr << "plot: " << drawn << " series -> " << out << "\n";
  }
  return kExitOk;
}

}  // namespace unieval::cli
