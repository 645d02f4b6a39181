#include "metrics/core/numpy_sum.h"
#include "metrics/distinct.h"

#include <cmath>
#include <limits>
#include <unordered_set>

#include "metrics/core/error.h"
#include "metrics/ngram_ids.h"
#include "metrics/text/dstc7_clean.h"
#include "metrics/text/squad_normalize.h"

namespace unieval::metrics {

double numpy_mean(const std::vector<double>& v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  return numpy_pairwise_sum(v.data(), v.size()) / static_cast<double>(v.size());
}

DistinctFlavour parse_distinct_flavour(const std::string& name) {
  if (name == "dstc7") return DistinctFlavour::kDstc7;
  if (name == "plato") return DistinctFlavour::kPlato;
  if (name == "ernie-gen" || name == "ernie_gen" || name == "erniegen") return DistinctFlavour::kErnieGen;
  throw InputError("unknown distinct flavour '" + name + "' (dstc7, plato, ernie-gen)");
}

const char* distinct_flavour_name(DistinctFlavour f) {
  switch (f) {
    case DistinctFlavour::kDstc7: return "dstc7";
    case DistinctFlavour::kPlato: return "plato";
    case DistinctFlavour::kErnieGen: return "ernie-gen";
  }
  return "?";
}

std::vector<std::string> distinct_tokenize(std::string_view line, DistinctFlavour flavour,
                                           bool dstc7_clean) {
  std::string cleaned;
  if (dstc7_clean) {
    cleaned = dstc7_clean_str(line);
    line = cleaned;
  }
  std::vector<std::string> out;
  if (flavour == DistinctFlavour::kErnieGen) {
    // line.strip().split(" "): single ASCII spaces, empty tokens kept.
    std::string_view s = python_strip(line);
    size_t b = 0;
    while (true) {
      size_t e = s.find(' ', b);
      if (e == std::string_view::npos) {
        out.emplace_back(s.substr(b));
        break;
      }
      out.emplace_back(s.substr(b, e - b));
      b = e + 1;
    }
    return out;
  }
  for (auto t : python_split(line)) out.emplace_back(t);
  return out;
}

std::string DistinctOptions::signature() const {
  std::string s = std::string("distinct|flavour:") + distinct_flavour_name(flavour) + "|n:";
  for (size_t i = 0; i < orders.size(); ++i) s += (i ? "," : "") + std::to_string(orders[i]);
  s += "|tok:";
  s += dstc7_clean ? "dstc7-clean_str+" : "";
  s += flavour == DistinctFlavour::kErnieGen ? "strip-split-space" : "split";
  switch (flavour) {
    case DistinctFlavour::kDstc7: s += "|official:DSTC7-metrics.py@e2b50e5"; break;
    case DistinctFlavour::kPlato: s += "|official:PLATO-metrics.py-distinct"; break;
    case DistinctFlavour::kErnieGen: s += "|official:ERNIE-GEN-persona_chat-eval.py"; break;
  }
  return s;
}

DistinctResult distinct_tokens(const std::vector<std::vector<std::string>>& segs,
                               const DistinctOptions& opts) {
  DistinctResult r;
  r.flavour = opts.flavour;
  r.orders = opts.orders;
  r.signature = opts.signature();
  for (int n : opts.orders)
    if (n < 1) throw InputError("n-gram orders must be >= 1 (got " + std::to_string(n) + ")");
  const auto ids = internal::intern_segments(segs);
  if (opts.flavour == DistinctFlavour::kDstc7) {
    // calc_diversity: types[n][ngram] = 1; tokens[n] += 1 (float count).
    for (int n : opts.orders) {
      std::unordered_set<internal::PackedNgram, internal::PackedNgramHash> types;
      double tokens = 0;
      for (const auto& t : ids) {
        if (t.size() < static_cast<size_t>(n)) continue;
        for (size_t i = 0; i + n <= t.size(); ++i) {
          types.insert(internal::pack_ngram(t.data() + i, n));
          tokens += 1;
        }
      }
      if (tokens == 0) r.div.push_back(std::nullopt);  // ZeroDivisionError in the official code
      else r.div.push_back(static_cast<double>(types.size()) / tokens);
    }
    // calc_len: np.mean of token counts.
    std::vector<double> lens;
    lens.reserve(segs.size());
    for (const auto& t : segs) lens.push_back(static_cast<double>(t.size()));
    if (!lens.empty()) r.avg_len = numpy_mean(lens);
    return r;
  }
  // PLATO distinct(seqs).
  for (int n : opts.orders) {
    std::vector<double> intra;
    intra.reserve(ids.size());
    std::unordered_set<internal::PackedNgram, internal::PackedNgramHash> all, uniq;
    double total = 0;
    for (const auto& t : ids) {
      uniq.clear();
      size_t count = t.size() >= static_cast<size_t>(n) ? t.size() - n + 1 : 0;
      for (size_t i = 0; i < count; ++i) {
        auto k = internal::pack_ngram(t.data() + i, n);
        uniq.insert(k);
        all.insert(std::move(k));
      }
      intra.push_back((static_cast<double>(uniq.size()) + 1e-12) / (static_cast<double>(count) + 1e-5));
      total += static_cast<double>(count);
    }
    r.intra.push_back(numpy_mean(intra));
    r.inter.push_back((static_cast<double>(all.size()) + 1e-12) / (total + 1e-5));
  }
  return r;
}

DistinctResult distinct(const std::vector<std::string>& lines, const DistinctOptions& opts) {
  std::vector<std::vector<std::string>> segs;
  segs.reserve(lines.size());
  for (const auto& l : lines) segs.push_back(distinct_tokenize(l, opts.flavour, opts.dstc7_clean));
  return distinct_tokens(segs, opts);
}

nlohmann::ordered_json DistinctResult::to_json() const {
  nlohmann::ordered_json j;
  auto put = [&](const std::string& k, std::optional<double> v) {
    if (v && std::isfinite(*v)) j[k] = *v;
    else j[k] = nullptr;
  };
  if (flavour == DistinctFlavour::kDstc7) {
    for (size_t i = 0; i < orders.size(); ++i) put("div_" + std::to_string(orders[i]), div[i]);
    put("avg_len", avg_len);
  } else {
    for (size_t i = 0; i < orders.size(); ++i) put("intra_dist_" + std::to_string(orders[i]), intra[i]);
    for (size_t i = 0; i < orders.size(); ++i) put("inter_dist_" + std::to_string(orders[i]), inter[i]);
  }
  return j;
}

}  // namespace unieval::metrics
