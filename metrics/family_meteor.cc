// family_meteor.cc: the meteor family of the metric protocol (metrics/protocol.h; METEOR 1.5,
// metrics/meteor.h).
#include <charconv>
#include <cmath>
#include <memory>

#include "core/error.h"
#include "core/io.h"
#include "metrics/meteor.h"
#include "metrics/protocol.h"

namespace unieval::metrics {

namespace {

namespace m = unieval::metrics;

// Items separated by commas and/or spaces ("exact,stem" or "exact stem").
std::vector<std::string> split_items(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ',' || c == ' ' || c == '\t') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::vector<double> parse_numbers(const std::string& text, const std::string& option) {
  std::vector<double> out;
  for (const std::string& item : split_items(text)) {
    std::vector<double> v = parse_double_list(item, option);
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

nlohmann::ordered_json num(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

std::string text_num(double v) {
  if (std::isnan(v)) return "NaN";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::vector<OptionSpec> meteor_options() {
  return {
      string_option(
          "modules", "exact,stem,synonym,paraphrase",
          "Matching stages in order (jar -m): exact, stem, synonym, paraphrase. The paraphrase "
          "module needs paraphrase-en.gz (not shipped); without it use exact,stem,synonym.",
          "m"),
      string_option(
          "weights", std::nullopt,
          "Module weights, one per module (jar -w), e.g. 1.0,0.6,0.8. Default: the task's "
          "weights by position (rank: 1.0,0.6,0.8,0.6); missing ones count 0.",
          "w"),
      string_option("task", "rank", "Parameter set (jar -t): rank, adq, hter, li, tune.", "task"),
      string_option(
          "params", std::nullopt,
          "Custom \"alpha beta gamma delta\" (jar -p). As in the jar, a custom task takes the adq "
          "module weights unless --weights is given.",
          "p"),
      flag_option(
          "norm",
          "Tokenise and lowercase like the jar's -norm (nonbreaking prefixes from --meteor-data).",
          "tok"),
      flag_option("lower", "Lowercase only (jar -lower; ignored with --norm).", "tok"),
      flag_option("no-punct",
                  "With --norm: drop punctuation (jar -norm -noPunct; no effect without --norm).",
                  "tok"),
      flag_option(
          "stats",
          "Also print each segment's 23 sufficient statistics (the jar's -stdio SCORE line)."),
      string_option(
          "meteor-data", std::nullopt,
          "METEOR resources directory (function/, synonym/, nonbreaking/, as in the jar's "
          "resources/); default $UNIEVAL_METEOR_DATA."),
      string_option("paraphrase", std::nullopt,
                    "Paraphrase table for the paraphrase module (jar -a); default "
                    "DIR/paraphrase-en.gz or DIR/data/paraphrase-en.gz."),
      int_option("beam", 40, "Alignment beam size (jar -x).", "beam"),
      int_option("threads", 0, "Worker threads (0 = all cores, max 8).")};
}

// The options struct of the parsed values (warnings only when `warn`).
m::MeteorOptions meteor_opts(const ScoreContext& sc, bool warn) {
  const OptionValues& ov = sc.values;
  m::MeteorOptions opt;
  opt.task = ov.str("task");
  opt.modules.clear();
  for (const std::string& name : split_items(ov.str("modules")))
    opt.modules.push_back(m::parse_meteor_module(name));
  if (ov.count("weights")) opt.weights = parse_numbers(ov.str("weights"), "weights");
  if (ov.count("params")) {
    opt.params = parse_numbers(ov.str("params"), "params");
    if (opt.params.size() != 4)
      throw InputError("--params needs 4 numbers \"alpha beta gamma delta\"");
  }
  if (warn && ov.count("weights") && opt.weights.size() > opt.modules.size())
    sc.warn("--weights has more values than --modules; the extra ones are ignored (as the jar)");
  bool norm = ov.flag("norm"), lower = ov.flag("lower");
  if (norm)
    opt.normalize =
        ov.flag("no-punct") ? m::MeteorNormalize::kNormNoPunct : m::MeteorNormalize::kNorm;
  else if (lower)
    opt.normalize = m::MeteorNormalize::kLower;
  if (warn && ov.flag("no-punct") && !norm)
    sc.warn("--no-punct has no effect without --norm (as the jar's -noPunct)");
  opt.data_dir = m::meteor_data_dir(ov.count("meteor-data") ? ov.str("meteor-data") : "");
  if (ov.count("paraphrase")) opt.paraphrase_file = ov.str("paraphrase");
  opt.beam_size = ov.integer("beam");
  opt.threads = ov.integer("threads");
  return opt;
}

// The resource policy (metrics/meteor.h check_meteor_resources) in the caller's words.
void check_meteor(const ScoreContext& sc) {
  m::MeteorResourceFlags flags;
  flags.data = sc.spell("meteor-data", flags.data);
  flags.paraphrase = sc.spell("paraphrase", flags.paraphrase);
  flags.modules = sc.spell("modules", flags.modules);
  flags.skip = sc.skip_hint();
  m::check_meteor_resources(meteor_opts(sc, false), flags);
}

void run_meteor(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  m::MeteorOptions opt = meteor_opts(sc, true);

  const core::Corpus& corpus = sc.corpus();
  auto scorer = std::make_shared<m::MeteorScorer>(opt);
  m::MeteorResult r = scorer->score(corpus.hyps, corpus.refs);
  const m::MeteorStats& t = r.total;
  if (sc.resampling_wanted() && !r.segments.empty()) {
    // The system score of a resample: its segments' statistics summed (as the jar sums them for
    // the corpus) and the score computed from the sum.
    auto segments = std::make_shared<std::vector<m::MeteorStats>>(r.segments);
    const size_t k = scorer->options().modules.size();
    sc.set_resampling(segments->size(), {"score"},
                      [scorer, segments, k](const std::vector<size_t>& idx) {
                        m::MeteorStats sum;
                        sum.test_content.assign(k, 0.0);
                        sum.reference_content.assign(k, 0.0);
                        sum.test_function.assign(k, 0.0);
                        sum.reference_function.assign(k, 0.0);
                        for (size_t i : idx) sum.add((*segments)[i]);
                        scorer->compute(sum);
                        return std::vector<double>{sum.score};
                      });
  }
  bool stats = ov.flag("stats");
  if (sc.json()) {
    nlohmann::ordered_json j;
    j["metric"] = "meteor";
    j["signature"] = opt.signature();
    j["score"] = num(r.score);
    j["precision"] = num(t.precision);
    j["recall"] = num(t.recall);
    j["f1"] = num(t.f1);
    j["fmean"] = num(t.fmean);
    j["fragmentation_penalty"] = num(t.fragmentation_penalty);
    j["chunks"] = num(t.chunks);
    j["test_words"] = num(t.test_length);
    j["reference_words"] = num(t.reference_length);
    nlohmann::ordered_json seg = nlohmann::ordered_json::array();
    for (double s : r.segment_scores) seg.push_back(num(s));
    j["segment_scores"] = seg;
    if (stats) {
      nlohmann::ordered_json lines = nlohmann::ordered_json::array();
      for (const auto& s : r.segments) lines.push_back(s.to_string());
      j["stats"] = lines;
    }
    sc.emit_json(j);
    return;
  }
  std::string out;
  for (size_t i = 0; i < r.segments.size(); ++i) {
    out += "Segment " + std::to_string(i + 1) + " score:\t" + text_num(r.segment_scores[i]) + "\n";
    if (stats)
      out += "Segment " + std::to_string(i + 1) + " stats:\t" + r.segments[i].to_string() + "\n";
  }
  out += "\nTest words:             " + text_num(t.test_length) + "\n";
  out += "Reference words:        " + text_num(t.reference_length) + "\n";
  out += "Chunks:                 " + text_num(t.chunks) + "\n";
  out += "Precision:              " + text_num(t.precision) + "\n";
  out += "Recall:                 " + text_num(t.recall) + "\n";
  out += "f1:                     " + text_num(t.f1) + "\n";
  out += "fMean:                  " + text_num(t.fmean) + "\n";
  out += "Fragmentation penalty:  " + text_num(t.fragmentation_penalty) + "\n";
  out += "\nFinal score:            " + text_num(r.score) + "\n";
  out += "Signature:              " + opt.signature() + "\n";
  sc.print(out);
  return;
}

}  // namespace

void register_meteor_metrics(MetricRegistry& reg) {
  reg.push_back({"meteor",
                 "METEOR 1.5 (meteor-1.5.jar): exact/stem/synonym/paraphrase alignment, "
                 "per-segment and system score",
                 meteor_options(), run_meteor, "meteor", check_meteor});
}

}  // namespace unieval::metrics
