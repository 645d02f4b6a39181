// Training curves: series read from log.jsonl as the trainers write it, and an SVG that is
// well-formed XML with one <path> per series.
#include "results/curves.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "tests/test_util.h"

namespace unieval::results {
namespace {

using testing::TempDir;

// A strict XML 1.0 well-formedness check (prolog, elements, quoted attributes, entities,
// comments): returns "" or the first problem. Collects every element's name and attributes.
struct Element {
  std::string name;
  std::map<std::string, std::string> attrs;
};
std::string check_xml(const std::string& s, std::vector<Element>* elements) {
  size_t i = 0;
  std::vector<std::string> open;
  bool root_seen = false;
  auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
           c == '.';
  };
  auto check_text = [&](const std::string& t) -> std::string {
    for (size_t k = 0; k < t.size(); ++k) {
      if (t[k] == '<') return "'<' in text or attribute";
      if (t[k] == '&') {
        size_t semi = t.find(';', k);
        if (semi == std::string::npos) return "unterminated entity";
        std::string ent = t.substr(k + 1, semi - k - 1);
        if (ent != "amp" && ent != "lt" && ent != "gt" && ent != "quot" && ent != "apos" &&
            ent.rfind('#', 0) != 0)
          return "unknown entity &" + ent + ";";
      }
    }
    return "";
  };
  if (s.rfind("<?xml ", 0) == 0) {
    i = s.find("?>");
    if (i == std::string::npos) return "unterminated prolog";
    i += 2;
  }
  while (i < s.size()) {
    size_t lt = s.find('<', i);
    std::string text = s.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    if (open.empty() && text.find_first_not_of(" \t\r\n") != std::string::npos)
      return "text outside the root";
    if (auto p = check_text(text); !p.empty()) return p;
    if (lt == std::string::npos) break;
    if (s.compare(lt, 4, "<!--") == 0) {
      size_t end = s.find("-->", lt);
      if (end == std::string::npos) return "unterminated comment";
      i = end + 3;
      continue;
    }
    size_t gt = s.find('>', lt);
    if (gt == std::string::npos) return "unterminated tag";
    std::string tag = s.substr(lt + 1, gt - lt - 1);
    i = gt + 1;
    if (!tag.empty() && tag[0] == '/') {
      std::string n = tag.substr(1);
      if (open.empty() || open.back() != n) return "mismatched </" + n + ">";
      open.pop_back();
      continue;
    }
    bool self_close = !tag.empty() && tag.back() == '/';
    if (self_close) tag.pop_back();
    size_t k = 0;
    while (k < tag.size() && name_char(tag[k])) ++k;
    Element e;
    e.name = tag.substr(0, k);
    if (e.name.empty()) return "empty tag name";
    while (k < tag.size()) {
      while (k < tag.size() && std::isspace(static_cast<unsigned char>(tag[k]))) ++k;
      if (k >= tag.size()) break;
      size_t a = k;
      while (k < tag.size() && name_char(tag[k])) ++k;
      std::string an = tag.substr(a, k - a);
      if (an.empty() || k >= tag.size() || tag[k] != '=')
        return "bad attribute in <" + e.name + ">";
      ++k;
      if (k >= tag.size() || (tag[k] != '"' && tag[k] != '\'')) return "unquoted attribute " + an;
      char q = tag[k++];
      size_t end = tag.find(q, k);
      if (end == std::string::npos) return "unterminated attribute " + an;
      std::string v = tag.substr(k, end - k);
      if (auto p = check_text(v); !p.empty()) return p + " (attribute " + an + ")";
      if (e.attrs.count(an)) return "duplicate attribute " + an;
      e.attrs[an] = v;
      k = end + 1;
    }
    if (open.empty()) {
      if (root_seen) return "second root element";
      root_seen = true;
    }
    if (!self_close) open.push_back(e.name);
    if (elements) elements->push_back(e);
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  if (!root_seen) return "no root element";
  return "";
}

std::vector<std::string> paths(const std::vector<Element>& els) {
  std::vector<std::string> out;
  for (const auto& e : els)
    if (e.name == "path") out.push_back(e.attrs.at("data-series"));
  return out;
}

TEST(CurvesTest, XmlCheckerCatchesMalformedDocuments) {
  EXPECT_EQ(check_xml("<svg><path d=\"M0,0\"/></svg>", nullptr), "");
  EXPECT_NE(check_xml("<svg><path d=\"M0,0\"></svg>", nullptr), "");
  EXPECT_NE(check_xml("<svg><text>a & b</text></svg>", nullptr), "");
  EXPECT_NE(check_xml("<svg x=1></svg>", nullptr), "");
  EXPECT_NE(check_xml("<svg></svg><svg></svg>", nullptr), "");
}

TEST(CurvesTest, PretrainLogHasOneCurvePerObjectiveAndTokensPerSecond) {
  TempDir tmp;
  std::string log;
  for (int step = 10; step <= 100; step += 10) {
    const double mlm = 6.0 / std::sqrt(step), lm = 7.0 / std::sqrt(step), nsp = 0.7 - step * 0.001;
    log += "{\"step\": " + std::to_string(step) + ", \"loss\": " + std::to_string(mlm + lm + nsp) +
           ", \"mlm\": " + std::to_string(mlm + lm) + ", \"nsp\": " + std::to_string(nsp) +
           ", \"loss_mlm\": " + std::to_string(mlm) + ", \"loss_lm\": " + std::to_string(lm) +
           ", \"lr\": " + std::to_string(1e-4 * step / 100) +
           ", \"tokens\": 512, \"tokens_seen\": " + std::to_string(step * 512) +
           ", \"elapsed_s\": " + std::to_string(step * 0.25) + "}\n";
    if (step % 50 == 0)
      log += "{\"step\": " + std::to_string(step) +
             ", \"dev_loss\": " + std::to_string(9.0 / step) + "}\n";
  }
  auto series = read_training_log(tmp.write("log.jsonl", log));
  std::map<std::string, const CurveSeries*> by;
  for (const auto& s : series) by[s.name] = &s;
  ASSERT_TRUE(by.count("loss") && by.count("loss mlm") && by.count("loss lm") &&
              by.count("loss nsp") && by.count("dev loss") && by.count("lr") &&
              by.count("tokens/s"));
  EXPECT_EQ(by["loss"]->points.size(), 10u);
  EXPECT_EQ(by["dev loss"]->points.size(), 2u);
  EXPECT_EQ(by["tokens/s"]->points.size(), 9u);  // between consecutive lines
  EXPECT_NEAR(by["tokens/s"]->points[0].second, 5120.0 / 2.5, 1e-6);
  EXPECT_NEAR(by["loss mlm"]->points[3].second, 6.0 / std::sqrt(40.0), 1e-6);
  std::string svg = render_curves_svg(series, "run <a&b>");
  std::vector<Element> els;
  ASSERT_EQ(check_xml(svg, &els), "") << svg;
  EXPECT_EQ(els.at(0).name, "svg");
  EXPECT_EQ(els.at(0).attrs.at("xmlns"), "http://www.w3.org/2000/svg");
  auto p = paths(els);
  EXPECT_EQ(p, (std::vector<std::string>{"loss", "loss lm", "loss mlm", "loss nsp", "dev loss",
                                         "lr", "tokens/s"}));  // objectives by name
  EXPECT_NE(svg.find("run &lt;a&amp;b&gt;"), std::string::npos);
}

TEST(CurvesTest, FinetuneLogWithResumeAndNonFiniteValues) {
  TempDir tmp;
  // A single objective: no per-objective curves. A resume restarts elapsed_s: no rate across it.
  auto path = tmp.write(
      "log.jsonl",
      "{\"step\": 1, \"loss\": 3.0, \"nll\": 3.0, \"lr\": 0.001, \"tokens\": 100, \"elapsed_s\": "
      "1.0}\n"
      "{\"step\": 2, \"loss\": 2.5, \"nll\": 2.5, \"lr\": 0.001, \"tokens\": 100, \"elapsed_s\": "
      "2.0}\n"
      "{\"step\": 3, \"loss\": null, \"lr\": 0.001, \"tokens\": 100, \"elapsed_s\": 0.5}\n"
      "{\"step\": 4, \"loss\": 2.0, \"lr\": 0.0005, \"tokens\": 100, \"elapsed_s\": 1.0}\n"
      "{\"step\": 4, \"dev_loss\": 2.2, \"best_dev_loss\": 2.2, \"best_step\": 4}\n"
      "\n");
  auto series = read_training_log(path);
  std::vector<std::string> names;
  for (const auto& s : series) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"loss", "lr", "tokens/s", "dev loss"}));
  EXPECT_EQ(series[0].points.size(), 3u);
  EXPECT_EQ(series[0].skipped, 1);
  ASSERT_EQ(series[2].points.size(), 2u);  // 1->2 and 3->4; not 2->3 (elapsed went back)
  EXPECT_DOUBLE_EQ(series[2].points[0].second, 100.0);
  EXPECT_DOUBLE_EQ(series[2].points[1].second, 200.0);
  std::vector<Element> els;
  std::string svg = render_curves_svg(series, "ft");
  ASSERT_EQ(check_xml(svg, &els), "");
  EXPECT_EQ(paths(els).size(), 4u);
  EXPECT_NE(svg.find("1 non-finite left out"), std::string::npos);
}

TEST(CurvesTest, LegendEntriesFitInsideTheDocument) {
  // A pre-training log's legend ("loss bidirectional (6500 pts)") was cut at the right edge of a
  // fixed 760-unit-wide document. Every entry must end inside the document at 6.5 units per
  // character (DejaVu Sans at 11 px averages below that), and the plot area keeps its width.
  std::vector<CurveSeries> series(3);
  series[0] = {"loss", "loss", {}, 0};
  series[1] = {"loss", "loss bidirectional", {}, 3};
  series[2] = {"learning rate", "lr", {}, 0};
  for (int step = 1; step <= 6500; ++step) {
    series[0].points.push_back({step, 7.0 - step * 1e-4});
    series[1].points.push_back({step, 6.5 - step * 1e-4});
    series[2].points.push_back({step, 1e-3});
  }
  const std::string svg = render_curves_svg(series, "pt-bidirectional-p42");
  std::vector<Element> els;
  ASSERT_EQ(check_xml(svg, &els), "");
  const double width = std::stod(els.at(0).attrs.at("width"));
  EXPECT_EQ(els.at(0).attrs.at("viewBox"),
            "0 0 " + els.at(0).attrs.at("width") + " " + els.at(0).attrs.at("height"));
  for (const std::string label :
       {"loss (6500 pts)", "loss bidirectional (6500 pts, 3 non-finite left out)",
        "lr (6500 pts)"}) {
    const size_t at = svg.find(">" + label + "</text>");
    ASSERT_NE(at, std::string::npos) << label;
    const size_t x = svg.rfind("<text x=\"", at);
    ASSERT_NE(x, std::string::npos);
    const double left = std::stod(svg.substr(x + 9));
    EXPECT_LE(left + 6.5 * static_cast<double>(label.size()), width) << label;
  }
  int panels = 0;
  for (const auto& e : els)
    if (e.name == "rect" && e.attrs.count("stroke")) {
      EXPECT_EQ(e.attrs.at("width"), "512");
      ++panels;
    }
  EXPECT_EQ(panels, 2);
}

TEST(CurvesTest, MalformedLogNamesTheLine) {
  TempDir tmp;
  try {
    read_training_log(
        tmp.write("log.jsonl", "{\"step\": 1, \"loss\": 2}\n{\"step\": 2, \"loss\": \n"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("log.jsonl:2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_training_log(tmp.write("b.jsonl", "{\"loss\": 2}\n")), InputError);
  EXPECT_THROW(read_training_log(tmp.write("c.jsonl", "{\"step\": 1, \"loss\": \"x\"}\n")),
               InputError);
  std::vector<Element> els;
  EXPECT_EQ(check_xml(render_curves_svg({}, "empty"), &els), "");
  EXPECT_TRUE(paths(els).empty());
}

}  // namespace
}  // namespace unieval::results
