// Follows DSTC7 (no code licence; behaviour only, no code taken) and PLATO (Apache-2.0) behaviour;
// no code copied; see THIRD_PARTY_NOTICES.md.
#include "metrics/distinct.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/numpy_sum.h"
#include "core/py_string.h"
#include "metrics/ngram_ids.h"
#include "metrics/text/dstc7_clean.h"
#include "metrics/text/squad_normalize.h"

namespace unieval::metrics {

double numpy_mean(const std::vector<double>& v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  return core::numpy_pairwise_sum(v.data(), v.size()) / static_cast<double>(v.size());
}

DistinctFlavour parse_distinct_flavour(const std::string& name) {
  if (name == "dstc7") return DistinctFlavour::kDstc7;
  if (name == "plato") return DistinctFlavour::kPlato;
  if (name == "ernie-gen" || name == "ernie_gen" || name == "erniegen")
    return DistinctFlavour::kErnieGen;
  throw InputError("unknown distinct flavour '" + name + "' (dstc7, plato, ernie-gen)");
}

const char* distinct_flavour_name(DistinctFlavour f) {
  switch (f) {
    case DistinctFlavour::kDstc7:
      return "dstc7";
    case DistinctFlavour::kPlato:
      return "plato";
    case DistinctFlavour::kErnieGen:
      return "ernie-gen";
  }
  return "?";
}

namespace {

// Calls fn(token) for each token of `line` under the flavour's split (no allocation for ASCII
// lines).
template <class Fn>
void for_each_token(std::string_view line, DistinctFlavour flavour, Fn&& fn) {
  if (flavour == DistinctFlavour::kErnieGen) {
    // line.strip().split(" "): single ASCII spaces, empty tokens kept.
    std::string_view s = core::py_strip(line);
    size_t b = 0;
    while (true) {
      size_t e = s.find(' ', b);
      if (e == std::string_view::npos) {
        fn(s.substr(b));
        return;
      }
      fn(s.substr(b, e - b));
      b = e + 1;
    }
  }
  unsigned char high = 0;  // OR of all bytes (a loop the compiler vectorises)
  for (char c : line) high |= static_cast<unsigned char>(c);
  if (high >= 0x80) {
    for (auto t : core::py_split(line)) fn(t);
    return;
  }
  // str.split() on ASCII: whitespace is \t \n \v \f \r, \x1c-\x1f and ' '.
  auto space = [](unsigned char c) { return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20); };
  size_t i = 0, n = line.size();
  while (i < n) {
    while (i < n && space(static_cast<unsigned char>(line[i]))) ++i;
    size_t b = i;
    while (i < n && !space(static_cast<unsigned char>(line[i]))) ++i;
    if (i > b) fn(line.substr(b, i - b));
  }
}

}  // namespace

std::vector<std::string> distinct_tokenize(std::string_view line, DistinctFlavour flavour,
                                           bool dstc7_clean) {
  std::string cleaned;
  if (dstc7_clean) {
    cleaned = text::dstc7_clean_str(line);
    line = cleaned;
  }
  std::vector<std::string> out;
  for_each_token(line, flavour, [&](std::string_view t) { out.emplace_back(t); });
  return out;
}

std::string DistinctOptions::signature() const {
  std::string s = std::string("distinct|flavour:") + distinct_flavour_name(flavour) + "|n:";
  for (size_t i = 0; i < orders.size(); ++i) s += (i ? "," : "") + std::to_string(orders[i]);
  s += "|tok:";
  s += dstc7_clean ? "dstc7-clean_str+" : "";
  s += flavour == DistinctFlavour::kErnieGen ? "strip-split-space" : "split";
  switch (flavour) {
    case DistinctFlavour::kDstc7:
      s += "|official:DSTC7-metrics.py@e2b50e5";
      break;
    case DistinctFlavour::kPlato:
      s += "|official:PLATO-metrics.py-distinct";
      break;
    case DistinctFlavour::kErnieGen:
      s += "|official:ERNIE-GEN-persona_chat-eval.py";
      break;
  }
  return s;
}

namespace internal {

NgramLevels levels_of_lines(const std::vector<std::string>& lines, DistinctFlavour flavour,
                            bool dstc7_clean) {
  std::vector<std::string> cleaned;
  if (dstc7_clean) {
    cleaned.reserve(lines.size());
    for (const auto& l : lines) cleaned.push_back(text::dstc7_clean_str(l));
  }
  const std::vector<std::string>& text = dstc7_clean ? cleaned : lines;
  size_t bytes = 0;
  for (const auto& l : text) bytes += l.size();
  TokenInterner interner(TokenInterner::kViews);
  core::HugeVector<uint32_t> ids;
  std::vector<uint32_t> starts;
  ids.reserve(bytes / 2 +
              text.size());  // split(): at most one token per two bytes of a line, rounded up
  starts.reserve(text.size() + 1);
  starts.push_back(0);
  for (const auto& l : text) {
    for_each_token(l, flavour, [&](std::string_view t) { ids.push_back(interner.intern(t)); });
    if (ids.size() >= 0xFFFFFFF0u) throw InputError("corpus too large (more than 2^32 tokens)");
    starts.push_back(static_cast<uint32_t>(ids.size()));
  }
  // The interner's views point into `text`; only the ids are kept.
  return NgramLevels(std::move(ids), std::move(starts), interner.size());
}

}  // namespace internal

namespace {

DistinctResult distinct_levels(internal::NgramLevels lv, const DistinctOptions& opts) {
  DistinctResult r;
  r.flavour = opts.flavour;
  r.orders = opts.orders;
  r.signature = opts.signature();
  int max_n = 0;
  for (int n : opts.orders) {
    if (n < 1) throw InputError("n-gram orders must be >= 1 (got " + std::to_string(n) + ")");
    max_n = std::max(max_n, n);
  }
  const auto& starts = lv.starts();
  const size_t segs = lv.segments();
  // Per order: the number of n-gram occurrences (count), distinct corpus n-grams (types), and,
  // for PLATO, the per-segment distinct counts (a segment stamp per n-gram id).
  std::vector<double> tokens(max_n + 1, 0), types(max_n + 1, 0);
  std::vector<std::vector<double>> intra(max_n + 1);
  const bool plato = opts.flavour != DistinctFlavour::kDstc7;
  std::vector<bool> wanted(max_n + 1, false);
  for (int n : opts.orders) wanted[n] = true;
  core::HugeVector<uint32_t> stamp;
  for (int n = 1; n <= max_n; ++n) {
    if (n > 1) lv.next();
    if (!wanted[n]) continue;
    const auto& ids = lv.ids();
    double total = 0;
    if (plato) {
      stamp.assign(lv.types(), 0xFFFFFFFFu);
      intra[n].reserve(segs);
    }
    for (size_t s = 0; s < segs; ++s) {
      size_t len = starts[s + 1] - starts[s];
      size_t count = len >= static_cast<size_t>(n) ? len - n + 1 : 0;
      if (plato) {
        // distinct(): intra = (|set(ngrams)| + 1e-12) / (len(ngrams) + 1e-5)
        size_t uniq = 0;
        for (size_t p = starts[s]; p < starts[s] + count; ++p) {
          uint32_t& st = stamp[ids[p]];
          if (st != s) {
            st = static_cast<uint32_t>(s);
            ++uniq;
          }
        }
        intra[n].push_back((static_cast<double>(uniq) + 1e-12) /
                           (static_cast<double>(count) + 1e-5));
      }
      total += static_cast<double>(count);  // integer-valued: the same sum in any grouping
    }
    tokens[n] = total;
    types[n] = static_cast<double>(lv.types());
  }
  if (opts.flavour == DistinctFlavour::kDstc7) {
    // calc_diversity: types[n][ngram] = 1; tokens[n] += 1 (float count).
    for (int n : opts.orders) {
      if (tokens[n] == 0)
        r.div.push_back(std::nullopt);  // ZeroDivisionError in the official code
      else
        r.div.push_back(types[n] / tokens[n]);
    }
    // calc_len: np.mean of token counts.
    std::vector<double> lens;
    lens.reserve(segs);
    for (size_t s = 0; s < segs; ++s)
      lens.push_back(static_cast<double>(starts[s + 1] - starts[s]));
    if (!lens.empty()) r.avg_len = numpy_mean(lens);
    return r;
  }
  // PLATO distinct(seqs).
  for (int n : opts.orders) {
    r.intra.push_back(numpy_mean(intra[n]));
    r.inter.push_back((types[n] + 1e-12) / (tokens[n] + 1e-5));
  }
  return r;
}

}  // namespace

DistinctResult distinct_tokens(const std::vector<std::vector<std::string>>& segs,
                               const DistinctOptions& opts) {
  return distinct_levels(internal::levels_of_segments(segs), opts);
}

DistinctResult distinct(const std::vector<std::string>& lines, const DistinctOptions& opts) {
  return distinct_levels(internal::levels_of_lines(lines, opts.flavour, opts.dstc7_clean), opts);
}

nlohmann::ordered_json DistinctResult::to_json() const {
  nlohmann::ordered_json j;
  auto put = [&](const std::string& k, std::optional<double> v) {
    if (v && std::isfinite(*v))
      j[k] = *v;
    else
      j[k] = nullptr;
  };
  if (flavour == DistinctFlavour::kDstc7) {
    for (size_t i = 0; i < orders.size(); ++i) put("div_" + std::to_string(orders[i]), div[i]);
    put("avg_len", avg_len);
  } else {
    for (size_t i = 0; i < orders.size(); ++i)
      put("intra_dist_" + std::to_string(orders[i]), intra[i]);
    for (size_t i = 0; i < orders.size(); ++i)
      put("inter_dist_" + std::to_string(orders[i]), inter[i]);
  }
  return j;
}

}  // namespace unieval::metrics
