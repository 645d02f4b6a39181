#include "tasks/diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <unordered_map>

namespace unieval::tasks {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

std::string percent(int64_t part, int64_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", whole > 0 ? 100.0 * double(part) / double(whole) : 0.0);
  return buf;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// The text for a message: newlines shown as " / ", cut at 80 bytes on a UTF-8 boundary.
std::string quoted(const std::string& text) {
  std::string s;
  for (char c : text) s += c == '\n' ? std::string(" / ") : std::string(1, c);
  if (s.size() > 80) {
    size_t cut = 80;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s = s.substr(0, cut) + "...";
  }
  return "\"" + s + "\"";
}

}  // namespace

std::vector<std::string> whitespace_words(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

bool has_repeated_run(const std::vector<std::string>& words) {
  int run = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    run = i > 0 && words[i] == words[i - 1] ? run + 1 : 1;
    if (run >= kRepeatRun) return true;
  }
  return false;
}

bool has_glued_punctuation(const std::vector<std::string>& words) {
  auto mark = [](char c) { return c == '?' || c == '!' || c == ',' || c == ';' || c == ':'; };
  for (const auto& w : words)
    if (w.size() >= 2 && mark(w.back()) && !mark(w[w.size() - 2]) && w[w.size() - 2] != '.')
      return true;
  return false;
}

OutputDiagnostics diagnose_outputs(const std::vector<std::string>& hyps,
                                   const std::vector<std::string>& first_refs) {
  if (!first_refs.empty() && first_refs.size() != hyps.size())
    throw std::invalid_argument("diagnose_outputs: " + std::to_string(first_refs.size()) +
                                " references for " + std::to_string(hyps.size()) + " hypotheses");
  OutputDiagnostics d;
  d.hypotheses = static_cast<int64_t>(hyps.size());
  std::unordered_map<std::string, int64_t> counts;
  int64_t hyp_words = 0;
  for (const auto& h : hyps) {
    const std::vector<std::string> w = whitespace_words(h);
    hyp_words += static_cast<int64_t>(w.size());
    if (w.empty()) ++d.empty;
    if (has_repeated_run(w)) ++d.repeated;
    if (has_glued_punctuation(w)) ++d.glued_hyps;
    d.most_common_count = std::max(d.most_common_count, ++counts[h]);
  }
  // Ties: the string that occurs first in the list.
  for (const auto& h : hyps)
    if (counts[h] == d.most_common_count) {
      d.most_common = h;
      break;
    }
  d.distinct = static_cast<int64_t>(counts.size());
  if (!hyps.empty()) d.mean_hyp_words = double(hyp_words) / double(hyps.size());
  if (!first_refs.empty()) {
    int64_t ref_words = 0;
    for (const auto& r : first_refs) {
      const std::vector<std::string> w = whitespace_words(r);
      ref_words += static_cast<int64_t>(w.size());
      if (has_glued_punctuation(w)) ++d.glued_refs;
    }
    d.mean_ref_words = double(ref_words) / double(first_refs.size());
    if (d.mean_ref_words > 0) d.length_ratio = d.mean_hyp_words / d.mean_ref_words;
  }
  return d;
}

std::vector<std::string> diagnostic_warnings(const OutputDiagnostics& d) {
  std::vector<std::string> w;
  if (d.hypotheses <= 0) return w;
  const double n = double(d.hypotheses);
  const std::string of = " of " + std::to_string(d.hypotheses) + " hypotheses (";
  if (double(d.empty) / n > kMaxEmptyFraction)
    w.push_back(std::to_string(d.empty) + of + percent(d.empty, d.hypotheses) +
                ") are empty or whitespace only (more than 1%)");
  if (double(d.repeated) / n > kMaxRepeatedFraction)
    w.push_back(std::to_string(d.repeated) + of + percent(d.repeated, d.hypotheses) +
                ") repeat a word 3 or more times in a row (more than 5%)");
  if (d.length_ratio && (*d.length_ratio < kMinLengthRatio || *d.length_ratio > kMaxLengthRatio))
    w.push_back("hypotheses are " + fixed(*d.length_ratio, 2) +
                " times as long as the references (" + fixed(d.mean_hyp_words, 1) + " vs " +
                fixed(d.mean_ref_words, 1) + " words on average; outside 0.5-2)");
  if (d.mean_ref_words > 0) {
    const double hyp_share = double(d.glued_hyps) / n, ref_share = double(d.glued_refs) / n;
    const std::string counts = std::to_string(d.glued_hyps) + of +
                               percent(d.glued_hyps, d.hypotheses) + ") and " +
                               std::to_string(d.glued_refs) + " of the first references (" +
                               percent(d.glued_refs, d.hypotheses) + ")";
    if (hyp_share - ref_share > kMaxGluedShareGap)
      w.push_back(counts +
                  " attach '?', '!', ',', ';' or ':' to a word (\"world?\"): the references "
                  "are tokenised and the hypotheses are not, so those words never match "
                  "(tokenise the hypotheses as the references; `unieval decode --no-clean-up` "
                  "writes the references' form)");
    else if (ref_share - hyp_share > kMaxGluedShareGap)
      w.push_back(counts +
                  " attach '?', '!', ',', ';' or ':' to a word (\"world?\"): the hypotheses "
                  "are tokenised and the references are not, so those words never match");
  }
  if (d.most_common_count > 1 && double(d.most_common_count) / n > kMaxMostCommonFraction)
    w.push_back("one hypothesis, " + quoted(d.most_common) + ", makes up " +
                std::to_string(d.most_common_count) + of +
                percent(d.most_common_count, d.hypotheses) + "; more than 20%)");
  return w;
}

nlohmann::ordered_json to_json(const OutputDiagnostics& d) {
  nlohmann::ordered_json j;
  j["hypotheses"] = d.hypotheses;
  j["empty"] = d.empty;
  j["repeated"] = d.repeated;
  j["distinct"] = d.distinct;
  j["most_common"] = {{"text", d.most_common}, {"count", d.most_common_count}};
  j["mean_hyp_words"] = d.mean_hyp_words;
  j["mean_ref_words"] = d.mean_ref_words;
  j["length_ratio"] =
      d.length_ratio ? nlohmann::ordered_json(*d.length_ratio) : nlohmann::ordered_json();
  if (d.mean_ref_words > 0)
    j["glued_punctuation"] = {{"hypotheses", d.glued_hyps}, {"references", d.glued_refs}};
  return j;
}

OutputDiagnostics diagnostics_from_json(const nlohmann::json& j) {
  OutputDiagnostics d;
  if (!j.is_object()) return d;
  auto integer = [&](const char* k) {
    return j.contains(k) && j[k].is_number() ? j[k].get<int64_t>() : int64_t{0};
  };
  auto number = [&](const char* k) {
    return j.contains(k) && j[k].is_number() ? j[k].get<double>() : 0.0;
  };
  d.hypotheses = integer("hypotheses");
  d.empty = integer("empty");
  d.repeated = integer("repeated");
  d.distinct = integer("distinct");
  if (j.contains("most_common") && j["most_common"].is_object()) {
    const auto& m = j["most_common"];
    if (m.contains("text") && m["text"].is_string()) d.most_common = m["text"].get<std::string>();
    if (m.contains("count") && m["count"].is_number())
      d.most_common_count = m["count"].get<int64_t>();
  }
  d.mean_hyp_words = number("mean_hyp_words");
  d.mean_ref_words = number("mean_ref_words");
  if (j.contains("length_ratio") && j["length_ratio"].is_number())
    d.length_ratio = j["length_ratio"].get<double>();
  if (j.contains("glued_punctuation") && j["glued_punctuation"].is_object()) {
    const auto& g = j["glued_punctuation"];
    if (g.contains("hypotheses") && g["hypotheses"].is_number())
      d.glued_hyps = g["hypotheses"].get<int64_t>();
    if (g.contains("references") && g["references"].is_number())
      d.glued_refs = g["references"].get<int64_t>();
  }
  return d;
}

std::string render_diagnostics(const OutputDiagnostics& d) {
  std::string s = "diagnostics: " + std::to_string(d.hypotheses) + " hypotheses, " +
                  std::to_string(d.empty) + " empty, " + std::to_string(d.repeated) +
                  " with a word 3+ times in a row, " + std::to_string(d.distinct) + " distinct\n";
  s += "  most common (" + std::to_string(d.most_common_count) + "x, " +
       percent(d.most_common_count, d.hypotheses) + "): " + quoted(d.most_common) + "\n";
  s += "  words per hypothesis " + fixed(d.mean_hyp_words, 2);
  if (d.length_ratio)
    s += ", per reference " + fixed(d.mean_ref_words, 2) + " (first reference), length ratio " +
         fixed(*d.length_ratio, 3);
  else
    s += d.mean_ref_words > 0 ? ", per reference " + fixed(d.mean_ref_words, 2)
                              : std::string(", no references");
  s += "\n";
  return s;
}

}  // namespace unieval::tasks
