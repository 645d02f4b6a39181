#pragma once
// Training curves as SVG, drawn by the project (no plotting dependency): what `unieval plot
// --run RUN` writes from RUN/log.jsonl, and what `unieval run` saves beside its result
// (RUN/curves.svg).
//
//   auto series = read_training_log("RUN/log.jsonl");            // InputError naming file:line
//   core::write_file_atomic("RUN/curves.svg", render_curves_svg(series, "RUN"));
//
// log.jsonl is the one models/training/trainer.h and models/training/pretrainer.h write: one JSON object per line;
// training lines carry "step", "loss", "lr", "elapsed_s" and "tokens" (tokens of that step) or
// "tokens_seen" (running total); pre-training lines add one "loss_<objective>" per objective and
// "nsp"; dev lines carry "step" and "dev_loss". Series, by panel (x = step):
//   loss           "loss" (training), one "loss <objective>" per loss_<objective> key and "nsp"
//                  where the log has several objectives, "dev loss"
//   learning rate  "lr"
//   tokens/s       from consecutive training lines: Δtokens_seen / Δelapsed_s, or without
//                  tokens_seen tokens x Δstep / Δelapsed_s (a resumed run restarts elapsed_s:
//                  the point across the restart is left out)
// Each series is one <path> element (attribute data-series = its name) in a well-formed,
// standalone SVG 1.1 document with axes, ticks and a legend per panel; a panel with no data is
// left out. Non-finite values are skipped (the legend says how many).
#include <string>
#include <utility>
#include <vector>

namespace unieval::results {

struct CurveSeries {
  std::string panel;  // "loss", "learning rate", "tokens/s"
  std::string name;   // "loss", "loss mlm", "dev loss", "lr", "tokens/s"
  std::vector<std::pair<double, double>> points;  // (step, value), finite
  int skipped = 0;                                // non-finite values left out
};

// The series of a log.jsonl; InputError(path, line, problem) on a line that is not a JSON object
// or whose step/values are not numbers; an empty list when the log has no usable line.
std::vector<CurveSeries> read_training_log(const std::string& path);

// The SVG document (title drawn at the top).
std::string render_curves_svg(const std::vector<CurveSeries>& series, const std::string& title);

}  // namespace unieval::results
