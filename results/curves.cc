#include "results/curves.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "core/io.h"
#include "results/html_report.h"

namespace unieval::results {

namespace {

// Escaping for text and attribute values (XML, as the HTML report's).
std::string xml_escape(const std::string& s) { return html_escape(s); }

std::string num(double v, int precision = 6) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

// Up to ~5 round tick values covering [lo, hi].
std::vector<double> ticks(double lo, double hi) {
  std::vector<double> out;
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / 4;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step)
    out.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  return out;
}

const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                         "#9467bd", "#8c564b", "#e377c2", "#17becf"};

}  // namespace

std::vector<CurveSeries> read_training_log(const std::string& path) {
  const std::string text = core::read_file(path);
  std::vector<std::string> order;  // series names in first-seen order
  std::map<std::string, CurveSeries> by_name;
  auto add = [&](const std::string& panel, const std::string& name, double step,
                 const nlohmann::json& v, long line) {
    if (!v.is_number() && !v.is_null())
      throw InputError(path, line, "\"" + name + "\" must be a number");
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      order.push_back(name);
      it = by_name.emplace(name, CurveSeries{panel, name, {}, 0}).first;
    }
    double x = v.is_null() ? std::nan("") : v.get<double>();
    if (std::isfinite(x))
      it->second.points.push_back({step, x});
    else
      ++it->second.skipped;
  };
  bool several = false;  // several training objectives (pre-training)
  std::vector<nlohmann::json> lines;
  std::vector<long> line_no;
  std::istringstream in(text);
  std::string s;
  for (long n = 1; std::getline(in, s); ++n) {
    if (s.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(s);
    } catch (const nlohmann::json::exception&
                 e) {  // parse_error, and out_of_range for a number that overflows
      throw InputError(path, n, std::string("not JSON: ") + e.what());
    }
    if (!j.is_object()) throw InputError(path, n, "a log line must be a JSON object");
    if (!j.contains("step") || !j["step"].is_number())
      throw InputError(path, n, "no numeric \"step\"");
    int objectives = 0;
    for (const auto& [k, v] : j.items()) objectives += k.rfind("loss_", 0) == 0;
    several |= objectives + (j.contains("nsp") ? 1 : 0) > 1;
    lines.push_back(std::move(j));
    line_no.push_back(n);
  }
  // Training lines, for tokens/s.
  double prev_step = 0, prev_elapsed = 0, prev_seen = 0;
  bool have_prev = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto& j = lines[i];
    const long n = line_no[i];
    const double step = j["step"].get<double>();
    if (j.contains("dev_loss")) add("loss", "dev loss", step, j["dev_loss"], n);
    if (!j.contains("loss")) continue;
    add("loss", "loss", step, j["loss"], n);
    if (several) {
      for (const auto& [k, v] : j.items())
        if (k.rfind("loss_", 0) == 0) add("loss", "loss " + k.substr(5), step, v, n);
      if (j.contains("nsp")) add("loss", "loss nsp", step, j["nsp"], n);
    }
    if (j.contains("lr")) add("learning rate", "lr", step, j["lr"], n);
    if (j.contains("elapsed_s") && j["elapsed_s"].is_number()) {
      const double elapsed = j["elapsed_s"].get<double>();
      const bool seen = j.contains("tokens_seen") && j["tokens_seen"].is_number();
      const double total = seen ? j["tokens_seen"].get<double>() : 0;
      if (have_prev && elapsed > prev_elapsed && step > prev_step) {
        double tokens = 0;
        if (seen)
          tokens = total - prev_seen;
        else if (j.contains("tokens") && j["tokens"].is_number())
          tokens = j["tokens"].get<double>() * (step - prev_step);
        if (tokens > 0) add("tokens/s", "tokens/s", step, tokens / (elapsed - prev_elapsed), n);
      }
      have_prev = true;
      prev_step = step;
      prev_elapsed = elapsed;
      prev_seen = total;
    }
  }
  std::vector<CurveSeries> out;
  for (const auto& name : order)
    if (!by_name[name].points.empty() || by_name[name].skipped) out.push_back(by_name[name]);
  return out;
}

std::string render_curves_svg(const std::vector<CurveSeries>& series, const std::string& title) {
  const std::vector<std::string> panels = {"loss", "learning rate", "tokens/s"};
  // Each legend entry is "NAME (N pts[, K non-finite left out])"; the legend column is as wide as
  // the longest, at kCharWidth per byte (an upper bound for a character of 11 px sans-serif text;
  // a UTF-8 character has at least one byte), so no entry is cut at the right edge. The plot area
  // keeps its width.
  auto legend_label = [](const CurveSeries& s) {
    return s.name + " (" + std::to_string(s.points.size()) + " pts" +
           (s.skipped ? ", " + std::to_string(s.skipped) + " non-finite left out" : "") + ")";
  };
  const double kCharWidth = 7, panel_w = 512, legend_x = 35;
  size_t longest = 0;
  for (const auto& s : series)
    if (!s.points.empty()) longest = std::max(longest, legend_label(s).size());
  const double right = std::max(170.0, legend_x + kCharWidth * static_cast<double>(longest) + 10);
  const double panel_h = 230, top = 44, left = 78, gap = 40, width = left + panel_w + right;
  std::vector<std::string> shown;
  for (const auto& p : panels)
    if (std::any_of(series.begin(), series.end(),
                    [&](const CurveSeries& s) { return s.panel == p && !s.points.empty(); }))
      shown.push_back(p);
  const double height = top + shown.size() * (panel_h + gap) + 10;
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << width
     << "\" height=\"" << num(height) << "\" viewBox=\"0 0 " << width << " " << num(height)
     << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
     << "<title>" << xml_escape(title) << "</title>\n"
     << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << num(height)
     << "\" fill=\"#ffffff\"/>\n"
     << "<text x=\"" << left << "\" y=\"24\" font-size=\"15\" font-weight=\"bold\">"
     << xml_escape(title) << "</text>\n";
  if (shown.empty())
    os << "<text x=\"" << left << "\" y=\"60\">no training log lines to draw</text>\n";
  double y0 = top;
  int color = 0;
  for (const auto& panel : shown) {
    std::vector<const CurveSeries*> in;
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (const auto& s : series) {
      if (s.panel != panel || s.points.empty()) continue;
      in.push_back(&s);
      for (const auto& [x, y] : s.points) {
        xmin = std::min(xmin, x);
        xmax = std::max(xmax, x);
        ymin = std::min(ymin, y);
        ymax = std::max(ymax, y);
      }
    }
    if (xmax == xmin) xmax = xmin + 1;
    if (ymax == ymin) {
      const double pad = ymin == 0 ? 1 : std::fabs(ymin) * 0.05;
      ymin -= pad;
      ymax += pad;
    } else {
      const double pad = (ymax - ymin) * 0.05;
      ymin -= pad;
      ymax += pad;
    }
    const double pw = panel_w, ph = panel_h - 30;
    auto X = [&](double x) { return left + (x - xmin) / (xmax - xmin) * pw; };
    auto Y = [&](double y) { return y0 + 10 + ph - (y - ymin) / (ymax - ymin) * ph; };
    os << "<g class=\"panel\" data-panel=\"" << xml_escape(panel) << "\">\n"
       << "<text x=\"" << left << "\" y=\"" << num(y0 + 4) << "\" font-weight=\"bold\">"
       << xml_escape(panel) << "</text>\n"
       << "<rect x=\"" << left << "\" y=\"" << num(y0 + 10) << "\" width=\"" << pw << "\" height=\""
       << ph << "\" fill=\"none\" stroke=\"#888888\"/>\n";
    for (double t : ticks(ymin, ymax)) {
      os << "<line x1=\"" << left << "\" x2=\"" << num(left + pw) << "\" y1=\"" << num(Y(t))
         << "\" y2=\"" << num(Y(t)) << "\" stroke=\"#e4e4e4\"/>\n<text x=\"" << num(left - 6)
         << "\" y=\"" << num(Y(t) + 4) << "\" text-anchor=\"end\">" << num(t, 4) << "</text>\n";
    }
    for (double t : ticks(xmin, xmax))
      os << "<text x=\"" << num(X(t)) << "\" y=\"" << num(y0 + 10 + ph + 14)
         << "\" text-anchor=\"middle\">" << num(t, 7) << "</text>\n";
    os << "<text x=\"" << num(left + pw / 2) << "\" y=\"" << num(y0 + 10 + ph + 27)
       << "\" text-anchor=\"middle\" fill=\"#555555\">step</text>\n";
    double ly = y0 + 22;
    for (const auto* s : in) {
      const char* c = kColors[color++ % (sizeof kColors / sizeof kColors[0])];
      std::ostringstream d;
      for (size_t i = 0; i < s->points.size(); ++i)
        d << (i ? " L" : "M") << num(X(s->points[i].first), 7) << ","
          << num(Y(s->points[i].second), 7);
      if (s->points.size() == 1) d << " h0.01";  // a single point still draws a dot (round cap)
      os << "<path data-series=\"" << xml_escape(s->name) << "\" d=\"" << d.str()
         << "\" fill=\"none\" stroke=\"" << c
         << "\" stroke-width=\"1.6\" stroke-linejoin=\"round\" stroke-linecap=\"round\"/>\n";
      os << "<line x1=\"" << num(left + pw + 12) << "\" x2=\"" << num(left + pw + 30) << "\" y1=\""
         << num(ly) << "\" y2=\"" << num(ly) << "\" stroke=\"" << c
         << "\" stroke-width=\"2\"/>\n<text x=\"" << num(left + pw + legend_x) << "\" y=\""
         << num(ly + 4) << "\">" << xml_escape(legend_label(*s)) << "</text>\n";
      ly += 16;
    }
    os << "</g>\n";
    y0 += panel_h + gap;
  }
  os << "</svg>\n";
  return os.str();
}

}  // namespace unieval::results
