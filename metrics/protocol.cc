#include "metrics/protocol.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "core/error.h"

namespace unieval::metrics {

namespace {

OptionSpec make(const std::string& name, OptionType type, std::optional<OptionValue> def,
                const std::string& help, const std::string& signature_key) {
  OptionSpec s;
  size_t comma = name.find(',');
  s.name = name.substr(0, comma);
  if (comma != std::string::npos) s.short_name = name[comma + 1];
  s.type = type;
  s.default_value = std::move(def);
  s.help = help;
  s.signature_key = signature_key;
  return s;
}

template <class T>
std::optional<OptionValue> opt_value(const std::optional<T>& v) {
  if (!v) return std::nullopt;
  return OptionValue(*v);
}

}  // namespace

OptionSpec flag_option(const std::string& name, const std::string& help, const std::string& sig) {
  return make(name, OptionType::kFlag, std::nullopt, help, sig);
}
OptionSpec int_option(const std::string& name, std::optional<int> def, const std::string& help,
                      const std::string& sig) {
  return make(name, OptionType::kInt, opt_value(def), help, sig);
}
OptionSpec long_option(const std::string& name, std::optional<long> def, const std::string& help,
                       const std::string& sig) {
  return make(name, OptionType::kLong, opt_value(def), help, sig);
}
OptionSpec uint64_option(const std::string& name, std::optional<unsigned long long> def,
                         const std::string& help, const std::string& sig) {
  return make(name, OptionType::kUInt64, opt_value(def), help, sig);
}
OptionSpec double_option(const std::string& name, std::optional<double> def,
                         const std::string& help, const std::string& sig) {
  return make(name, OptionType::kDouble, opt_value(def), help, sig);
}
OptionSpec string_option(const std::string& name, std::optional<std::string> def,
                         const std::string& help, const std::string& sig) {
  return make(name, OptionType::kString, opt_value(def), help, sig);
}
OptionSpec string_list_option(const std::string& name, const std::string& help,
                              const std::string& sig) {
  return make(name, OptionType::kStringList, std::nullopt, help, sig);
}

// ---- OptionValues ---------------------------------------------------------------------------

void OptionValues::set(const std::string& name, OptionValue value, bool defaulted) {
  values_[name] = {std::move(value), defaulted};
}

void OptionValues::set_defaults(const std::vector<OptionSpec>& specs) {
  for (const auto& s : specs) {
    if (s.type == OptionType::kFlag)
      set(s.name, false, true);
    else if (s.default_value)
      set(s.name, *s.default_value, true);
  }
}

bool OptionValues::count(const std::string& name) const { return values_.count(name) > 0; }

bool OptionValues::given(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() && !it->second.second;
}

const OptionValue& OptionValues::at(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error("option --" + name + " has no value");
  return it->second.first;
}

bool OptionValues::flag(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() && std::get<bool>(it->second.first);
}
const std::string& OptionValues::str(const std::string& name) const {
  return std::get<std::string>(at(name));
}
int OptionValues::integer(const std::string& name) const { return std::get<int>(at(name)); }
long OptionValues::long_integer(const std::string& name) const { return std::get<long>(at(name)); }
unsigned long long OptionValues::uint64(const std::string& name) const {
  return std::get<unsigned long long>(at(name));
}
double OptionValues::real(const std::string& name) const { return std::get<double>(at(name)); }
const std::vector<std::string>& OptionValues::list(const std::string& name) const {
  return std::get<std::vector<std::string>>(at(name));
}

// ---- ScoreContext ---------------------------------------------------------------------------

std::string ScoreContext::hyp_path() const {
  if (!values.count("hyp"))
    throw InputError("--hyp FILE is required for --metric " + values.str("metric"));
  return values.str("hyp");
}

std::vector<std::string> ScoreContext::ref_paths() const {
  if (!values.count("ref"))
    throw InputError("at least one --ref FILE is required for --metric " + values.str("metric"));
  return values.list("ref");
}

const core::Corpus& ScoreContext::corpus() const {
  if (corpus_) return *corpus_;
  if (read_) return *read_;
  if (seg_hyps_) {
    auto c = std::make_unique<core::Corpus>();
    c->hyps = *seg_hyps_;
    size_t k = 0;
    for (const auto& r : *seg_refs_) k = std::max(k, r.size());
    c->refs.assign(k, std::vector<std::string>(seg_refs_->size()));
    for (size_t i = 0; i < seg_refs_->size(); ++i) {
      const auto& r = (*seg_refs_)[i];
      if (r.empty()) throw InputError("segment " + std::to_string(i + 1) + " has no reference");
      for (size_t j = 0; j < k; ++j) c->refs[j][i] = j < r.size() ? r[j] : r[0];
    }
    read_ = std::move(c);
    return *read_;
  }
  read_ = std::make_unique<core::Corpus>(core::read_corpus(hyp_path(), ref_paths()));
  return *read_;
}

const std::vector<std::vector<std::string>>& ScoreContext::segment_refs() const {
  if (seg_refs_) return *seg_refs_;
  if (!by_segment_) {
    const auto& streams = corpus().refs;
    auto out = std::make_unique<std::vector<std::vector<std::string>>>(
        streams.empty() ? 0 : streams[0].size());
    for (const auto& s : streams)
      for (size_t i = 0; i < s.size() && i < out->size(); ++i) (*out)[i].push_back(s[i]);
    by_segment_ = std::move(out);
  }
  return *by_segment_;
}

const std::vector<std::string>& ScoreContext::hyps() const {
  if (corpus_) return corpus_->hyps;
  if (seg_hyps_) return *seg_hyps_;
  if (read_) return read_->hyps;
  if (!read_hyps_)
    read_hyps_ = std::make_unique<std::vector<std::string>>(core::read_lines(hyp_path()));
  return *read_hyps_;
}

std::string ScoreContext::spell(const std::string& option, const std::string& cli) const {
  auto it = hints_.options.find(option);
  return it == hints_.options.end() ? cli : it->second;
}

void ScoreContext::set_resampling(size_t n, std::vector<std::string> names, ScoreFn fn) {
  items_ = n;
  value_names_ = std::move(names);
  resample_ = std::move(fn);
}

void ScoreContext::set_segments(std::vector<std::string> names,
                                std::vector<std::vector<double>> rows) {
  segment_names_ = std::move(names);
  segments_ = std::move(rows);
}

std::string ScoreContext::json_line(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string ScoreContext::human_lines(const nlohmann::ordered_json& j, const std::string& prefix) {
  std::string out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string k = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it->is_object())
      out += human_lines(*it, k);
    else if (it->is_string())
      out += k + " = " + it->get<std::string>() + "\n";
    else
      out += k + " = " + it->dump() + "\n";
  }
  return out;
}

void ScoreContext::emit(const nlohmann::ordered_json& j) {
  if (json())
    emit_json(j);
  else
    out_ += human_lines(j);
}

// ---- option text lists ---------------------------------------------------------------------

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

// ---- registry -------------------------------------------------------------------------------

const MetricRegistry& metric_registry() {
  static const MetricRegistry kRegistry = [] {
    MetricRegistry reg;
    register_bleu_metrics(reg);
    register_rouge_metrics(reg);
    register_meteor_metrics(reg);
    register_qa_metrics(reg);
    return reg;
  }();
  return kRegistry;
}

const MetricSpec* find_metric(const std::string& name) {
  for (const auto& m : metric_registry())
    if (m.name == name) return &m;
  return nullptr;
}

const std::vector<OptionSpec>& common_option_specs() {
  static const std::vector<OptionSpec> kCommon = [] {
    std::vector<OptionSpec> c;
    c.push_back(string_option("metric", std::nullopt, "Metric to compute (list below)."));
    c.back().required = true;
    c.push_back(
        string_option("hyp", std::nullopt, "System output: UTF-8, one segment per line (.gz ok)."));
    c.push_back(string_list_option(
        "ref",
        "Reference file, one segment per line; repeat for several references (sacreBLEU "
        "convention: the k-th file holds the k-th reference of every segment)."));
    c.push_back(flag_option("json", "Print one JSON object instead of a human summary."));
    return c;
  }();
  return kCommon;
}

OptionSpec threads_option(int def, const std::string& what) {
  return int_option("threads", def,
                    "Threads (0 = all cores, max 8; 1 = none): " + what +
                        ". The numbers are identical for any value.");
}

std::string score_metric(const std::string& name, const OptionValues& values,
                         const std::function<void(const std::string&)>& warn) {
  const MetricSpec* m = find_metric(name);
  if (!m) throw InputError("unknown metric '" + name + "'");
  ScoreContext ctx(values, warn);
  m->run(ctx);
  return ctx.output();
}

// ---- library calls --------------------------------------------------------------------------

OptionValues call_values(const MetricCall& call) {
  const MetricSpec* m = find_metric(call.metric);
  if (!m) throw std::logic_error("metric call: unknown metric '" + call.metric + "'");
  OptionValues v;
  v.set_defaults(m->options);
  v.set("metric", call.metric);
  v.set("json", true);
  for (const auto& [name, value] : call.options) {
    const OptionSpec* spec = nullptr;
    for (const auto& s : m->options)
      if (s.name == name) spec = &s;
    if (!spec)
      throw std::logic_error("metric call: --metric " + call.metric + " has no option --" + name);
    size_t want = static_cast<size_t>(spec->type);  // OptionType and OptionValue share their order
    if (value.index() != want)
      throw std::logic_error("metric call: --" + name + " of --metric " + call.metric +
                             " has another type");
    v.set(name, value);
  }
  return v;
}

void check_metric_resources(const MetricCall& call, const ResourceHints& hints) {
  const MetricSpec* m = find_metric(call.metric);
  OptionValues v = call_values(call);
  if (!m->check) return;
  ScoreContext sc(v, nullptr);
  sc.set_hints(hints);
  m->check(sc);
}

namespace {

MetricRun run_with(const MetricCall& call, const std::function<void(ScoreContext&)>& input,
                   const ResourceHints& hints, bool resampling) {
  const MetricSpec* m = find_metric(call.metric);
  OptionValues v = call_values(call);
  MetricRun out;
  ScoreContext sc(v, [&out](const std::string& w) { out.warnings.push_back(w); });
  input(sc);
  sc.set_hints(hints);
  sc.set_capture(true);
  sc.set_resampling_wanted(resampling);
  if (m->check) m->check(sc);
  m->run(sc);
  out.objects = sc.emitted();
  out.items = sc.items();
  out.value_names = sc.value_names();
  out.resample = sc.resample();
  out.segment_names = sc.segment_names();
  out.segments = std::move(sc.segments());
  return out;
}

}  // namespace

MetricRun run_metric(const MetricCall& call, const core::Corpus& corpus, const ResourceHints& hints,
                     bool resampling) {
  return run_with(
      call, [&](ScoreContext& sc) { sc.set_corpus(&corpus); }, hints, resampling);
}

MetricRun run_metric(const MetricCall& call, const std::vector<std::string>& hyps,
                     const std::vector<std::vector<std::string>>& refs, const ResourceHints& hints,
                     bool resampling) {
  if (refs.size() != hyps.size())
    throw std::logic_error("run_metric: " + std::to_string(refs.size()) + " reference sets for " +
                           std::to_string(hyps.size()) + " segments");
  return run_with(
      call, [&](ScoreContext& sc) { sc.set_segments_input(&hyps, &refs); }, hints, resampling);
}

// ---- markdown -------------------------------------------------------------------------------

namespace {

std::string default_text(const OptionSpec& s) {
  if (s.type == OptionType::kFlag) return "off";
  if (!s.default_value) return "—";
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return v.empty() ? "\"\"" : "`" + v + "`";
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          return "—";
        } else if constexpr (std::is_same_v<T, double>) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%g", v);
          return buf;
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "on" : "off";
        } else {
          return std::to_string(v);
        }
      },
      *s.default_value);
}

std::string escape_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string options_markdown(const std::vector<OptionSpec>& specs) {
  std::string out = "| option | default | signature | meaning |\n|---|---|---|---|\n";
  for (const auto& s : specs) {
    std::string name = "`--" + s.name;
    if (s.type != OptionType::kFlag) name += " V";
    name += "`";
    if (s.short_name) name += " (`-" + std::string(1, s.short_name) + "`)";
    out += "| " + name + " | " + default_text(s) + " | " +
           (s.signature_key.empty() ? "" : "`" + s.signature_key + "`") + " | " +
           escape_cell(s.help) + " |\n";
  }
  return out;
}

std::string registry_markdown() {
  std::string out = "#### Common options\n\n" + options_markdown(common_option_specs());
  std::vector<std::string> done;
  for (const auto& m : metric_registry()) {
    std::string section = m.section.empty() ? m.name : m.section;
    bool seen = false;
    for (const auto& d : done) seen |= d == section;
    if (seen) continue;
    done.push_back(section);
    std::string names;
    for (const auto& o : metric_registry())
      if ((o.section.empty() ? o.name : o.section) == section)
        names += std::string(names.empty() ? "" : ", ") + "`" + o.name + "`";
    out += "\n#### --metric " + names + "\n\n";
    out +=
        m.options.empty() ? std::string("No options of its own.\n") : options_markdown(m.options);
  }
  return out;
}

// ---- resampling -----------------------------------------------------------------------------

std::vector<OptionSpec> bootstrap_option_specs(const std::string& other_what) {
  return {int_option("bootstrap", 0,
                     "Bootstrap resamples for confidence intervals (0 = off; e.g. 1000).", "bs"),
          uint64_option("seed", 12345ULL, "Bootstrap random seed.", "seed"),
          double_option("confidence", 0.95, "Bootstrap CI coverage.", "ci"),
          string_option("paired-bootstrap", std::nullopt, other_what)};
}

namespace {

BootstrapOptions bootstrap_options(const OptionValues& v) {
  BootstrapOptions o;
  o.resamples = v.integer("bootstrap");
  if (v.count("paired-bootstrap") && o.resamples <= 0) o.resamples = 1000;
  o.seed = v.uint64("seed");
  o.confidence = v.real("confidence");
  return o;
}

nlohmann::ordered_json num(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

void add_resampling(nlohmann::ordered_json& j, const OptionValues& values, size_t n,
                    const std::vector<std::string>& names, const ScoreFn& sys,
                    const ScoreFn* base) {
  BootstrapOptions o = bootstrap_options(values);
  if (values.integer("bootstrap") > 0) {
    auto ci = bootstrap_ci(n, sys, o);
    nlohmann::ordered_json b;
    for (size_t k = 0; k < names.size(); ++k)
      b[names[k]] = {{"mean", num(ci[k].mean)},
                     {"stddev", num(ci[k].stddev)},
                     {"low", num(ci[k].low)},
                     {"high", num(ci[k].high)}};
    b["signature"] = o.signature();
    j["bootstrap"] = b;
  }
  if (base) {
    auto pb = paired_bootstrap(n, sys, *base, o);
    nlohmann::ordered_json b;
    for (size_t k = 0; k < names.size(); ++k)
      b[names[k]] = {{"system", num(pb[k].system)},
                     {"baseline", num(pb[k].baseline)},
                     {"delta", num(pb[k].delta)},
                     {"p_value", num(pb[k].p_value)}};
    b["signature"] = o.signature();
    j["paired_bootstrap"] = b;
  }
}

}  // namespace unieval::metrics
