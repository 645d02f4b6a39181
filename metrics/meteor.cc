// Part of unieval_meteor, the LGPL-2.1 component of unieval (metrics/CMakeLists.txt).
// SPDX-License-Identifier: LGPL-2.1-only
// Copyright 2026 the unieval authors. This file is a C++ port of parts of METEOR 1.5
// (cmu-mtlab/meteor; Michael Denkowski, Alon Lavie, Carnegie Mellon University), which is licensed
// under the LGPL-2.1, so it is licensed under the GNU Lesser General Public License version 2.1
// (LICENSES/LGPL-2.1.txt), not under Apache-2.0 like the rest of unieval. It is distributed WITHOUT
// ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS FOR A PARTICULAR
// PURPOSE; see the licence.
//
// Follows the structure of METEOR 1.5's aligner and scorer (LGPL-2.1), ported by reading its Java
// source; see THIRD_PARTY_NOTICES.md. The alignment follows
// edu.cmu.meteor.aligner.Aligner.align/resolve and the ExactMatcher, StemMatcher, SynonymMatcher (+
// SynonymDictionary.morph) and ParaphraseMatcher classes; scoring follows
// edu.cmu.meteor.scorer.MeteorScorer.getMeteorStats/computeMetrics and MeteorStats.addStats;
// configuration follows MeteorConfiguration and Constants.
#include "metrics/meteor.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <sstream>
#include <unordered_set>

#include "core/error.h"
#include "core/io.h"
#include "core/parallel.h"
#include "metrics/text/meteor_normalize.h"
#include "metrics/text/snowball_english.h"

namespace unieval::metrics {

namespace {

namespace fs = std::filesystem;

constexpr int kMaxModules = 4;  // Constants.MAX_MODULES: slots in the statistics line

struct TaskDefaults {
  const char* name;
  std::array<double, 4> params;   // α β γ δ (English)
  std::array<double, 4> weights;  // exact stem synonym paraphrase
};
// Constants.java, English rows. "default" is rank; a custom task (-p) falls back to adq.
const TaskDefaults kTasks[] = {
    {"rank", {0.85, 0.20, 0.60, 0.75}, {1.0, 0.6, 0.8, 0.6}},
    {"adq", {0.75, 1.40, 0.45, 0.70}, {1.0, 1.0, 0.6, 0.8}},
    {"hter", {0.40, 1.50, 0.35, 0.55}, {1.0, 0.2, 0.6, 0.8}},
    {"li", {0.75, 1.40, 0.70, 0.50}, {1.0, 0.5, 0.5, 0.5}},
    {"tune", {0.5, 1.0, 0.5, 0.5}, {1.0, 0.5, 0.5, 0.5}},
};

const TaskDefaults& find_task(const std::string& name) {
  std::string lower = name;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "default") lower = "rank";
  for (const auto& t : kTasks)
    if (lower == t.name) return t;
  throw InputError("unknown METEOR task '" + name + "' (rank, adq, hter, li, tune)");
}

// Java's Double.toString for the integral values of the statistics line.
std::string java_double(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  double a = std::fabs(v);
  if (v == std::floor(v) && a < 1e7) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
  }
  if (a >= 1e-3 && a < 1e7) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, r.ptr);
    if (s.find('.') == std::string::npos) s += ".0";
    return s;
  }
  // Scientific: d.dddE±n with the shortest digits.
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, r.ptr);  // e.g. 1.2345678e+07
  size_t e = s.find('e');
  std::string mant = s.substr(0, e);
  int exp = std::atoi(s.c_str() + e + 1);
  if (mant.find('.') == std::string::npos) mant += ".0";
  return mant + "E" + std::to_string(exp);
}

// ---------------------------------------------------------------- resources

std::string skip_hint(const MeteorResourceFlags& f) {
  return f.skip.empty() ? std::string() : "; or leave METEOR out with " + f.skip;
}

std::string resolve_resource(const std::string& dir, const std::string& rel,
                             const std::string& what, const MeteorResourceFlags& flags = {}) {
  for (const std::string& base : {dir, dir + "/resources"}) {
    for (const std::string& cand : {base + "/" + rel, base + "/" + rel + ".gz"}) {
      std::error_code ec;
      if (fs::is_regular_file(cand, ec)) return cand;
    }
  }
  throw InputError(dir + "/" + rel, 0,
                   "METEOR resource not found (" + what + "; also tried .gz): " + flags.data +
                       " (or $UNIEVAL_METEOR_DATA) must hold "
                       "the jar's resources layout (function/, synonym/, nonbreaking/)" +
                       skip_hint(flags));
}

// The resources directory, or the policy's error.
std::string require_data_dir(const std::string& flag_value, const MeteorResourceFlags& flags) {
  std::string dir = meteor_data_dir(flag_value);
  if (dir.empty())
    throw InputError(
        "METEOR needs its resources (function words, synonyms, nonbreaking prefixes): give " +
        flags.data + " or set UNIEVAL_METEOR_DATA" + skip_hint(flags));
  return dir;
}

// The paraphrase table of the paraphrase module, or the policy's error.
std::string find_paraphrase(const std::string& dir, const std::string& given,
                            const MeteorResourceFlags& flags) {
  std::string path = given;
  if (path.empty()) {
    for (const std::string& cand :
         {dir + "/paraphrase-en.gz", dir + "/paraphrase-en", dir + "/data/paraphrase-en.gz",
          dir + "/data/paraphrase-en", dir + "/../data/paraphrase-en.gz"}) {
      std::error_code ec;
      if (fs::is_regular_file(cand, ec)) {
        path = cand;
        break;
      }
    }
    if (path.empty())
      throw InputError(dir + "/paraphrase-en.gz", 0,
                       "METEOR paraphrase table not found (paraphrase module; also looked in "
                       "DIR/data/). Give " +
                           flags.paraphrase + ", or drop the module with " + flags.modules +
                           " (then scores differ from the official -l en ones)" + skip_hint(flags));
  }
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw InputError(path, 0,
                     "METEOR paraphrase table not found (paraphrase module)" + skip_hint(flags));
  return path;
}

// SynonymDictionary: WordNet synsets, morphological exceptions and WordNet's morph() rules.
struct SynonymDictionary {
  std::unordered_map<std::string, std::vector<int32_t>> word_to_synsets;
  std::unordered_map<std::string, std::vector<std::string>> word_to_bases;

  void load(const std::string& synsets_path, const std::string& exceptions_path) {
    {
      std::string text = core::read_file(exceptions_path);
      std::vector<std::string> lines = core::split_lines(text, exceptions_path, {false, true});
      for (size_t i = 0; i + 1 < lines.size(); i += 2) {
        const std::string& base = lines[i];
        for (const std::string& form : text::java_tokenize(lines[i + 1]))
          word_to_bases[form].push_back(base);
      }
    }
    std::string text = core::read_file(synsets_path);
    word_to_synsets.reserve(160000);
    size_t pos = 0, n = text.size();
    long line_no = 0;
    auto next_line = [&](std::string_view& out) -> bool {
      if (pos >= n) return false;
      size_t e = text.find('\n', pos);
      if (e == std::string::npos) e = n;
      size_t end = e;
      if (end > pos && text[end - 1] == '\r') --end;
      out = std::string_view(text).substr(pos, end - pos);
      pos = e + 1;
      ++line_no;
      return true;
    };
    std::string_view word, ids;
    while (next_line(word)) {
      if (!next_line(ids)) throw InputError(synsets_path, line_no, "word without a synset line");
      std::vector<int32_t> sets;
      size_t i = 0;
      while (i < ids.size()) {
        while (i < ids.size() && (ids[i] == ' ' || ids[i] == '\t')) ++i;
        size_t j = i;
        while (j < ids.size() && ids[j] != ' ' && ids[j] != '\t') ++j;
        if (j > i) {
          int32_t v = 0;
          auto r = std::from_chars(ids.data() + i, ids.data() + j, v);
          if (r.ec != std::errc() || r.ptr != ids.data() + j)
            throw InputError(synsets_path, line_no,
                             "bad synset id '" + std::string(ids.substr(i, j - i)) + "'");
          sets.push_back(v);
        }
        i = j;
      }
      word_to_synsets[std::string(word)] = std::move(sets);  // Hashtable.put: last one wins
    }
  }

  const std::vector<int32_t>* synsets(const std::string& word) const {
    auto it = word_to_synsets.find(word);
    return it == word_to_synsets.end() ? nullptr : &it->second;
  }

  // SynonymDictionary.morph (WordNet 3.0 suffix rules); "" when no base form is known.
  std::string morph(const std::string& word) const {
    static const char* const kSufx[] = {"s",   "ses", "xes", "zes", "ches", "shes", "men",
                                        "ies", "s",   "ies", "es",  "es",   "ed",   "ed",
                                        "ing", "ing", "er",  "est", "er",   "est"};
    static const char* const kAddr[] = {"",  "s", "x", "z", "ch", "sh", "man", "y", "",  "y",
                                        "e", "",  "e", "",  "e",  "",   "",    "",  "e", "e"};
    auto ends = [&](const std::string& s, const char* suf) {
      size_t n = std::strlen(suf);
      return s.size() >= n && s.compare(s.size() - n, n, suf) == 0;
    };
    // word.length() <= 2 counts UTF-16 units.
    size_t u16 = 0;
    for (unsigned char c : word) {
      if ((c & 0xC0) != 0x80) u16 += (c >= 0xF0) ? 2 : 1;
    }
    if (ends(word, "ss") || u16 <= 2) return word;
    for (int i = 0; i < 20; ++i) {
      if (!ends(word, kSufx[i])) continue;
      std::string cand = word.substr(0, word.size() - std::strlen(kSufx[i])) + kAddr[i];
      if (word_to_synsets.count(cand)) return cand;
    }
    return "";
  }

  // getSynSets(word) ∪ getStemSynSets(word), sorted and unique.
  std::vector<int32_t> all_synsets(const std::string& word) const {
    std::vector<int32_t> out;
    auto add = [&](const std::string& w) {
      if (auto* s = synsets(w)) out.insert(out.end(), s->begin(), s->end());
    };
    add(word);
    auto it = word_to_bases.find(word);
    if (it != word_to_bases.end()) {
      for (const auto& base : it->second) add(base);
    } else {
      add(morph(word));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
};

bool sorted_intersect(const int32_t* a, const int32_t* ae, const int32_t* b, const int32_t* be) {
  while (a != ae && b != be) {
    if (*a < *b)
      ++a;
    else if (*b < *a)
      ++b;
    else
      return true;
  }
  return false;
}

// Runs fn(i) for i in [0, n) on `threads` threads (dynamic chunks of 32).
template <class Fn>
void parallel_for(size_t n, int threads, Fn fn) {
  core::parallel_chunks(n, threads, 32, [&](size_t b, size_t e, int) {
    for (size_t i = b; i < e; ++i) fn(i);
  });
}

// ---------------------------------------------------------------- alignment

struct WordInfo {
  int32_t hash = 0;                     // String.hashCode (the Stage word key)
  int32_t stem_hash = 0;                // hashCode of the Snowball stem
  bool function = false;                // in the function-word list (lowercased)
  uint32_t syn_begin = 0, syn_end = 0;  // synsets in Impl::syn_pool
  int32_t para = -1;                    // paraphrase vocabulary id
};

struct Match {
  int start, length;              // in the reference (line2)
  int match_start, match_length;  // in the hypothesis (line1)
  int module;                     // stage index
};

struct Path {
  int matches1 = 0, matches2 = 0;  // weighted (int-truncated as the jar's int fields)
  int all1 = 0, all2 = 0, match_count = 0;
  int chunks = 0, idx = 0, last_end = -1, distance = 0;
  int choice = -1;    // last chosen match (ChoiceNode index)
  uint32_t bits = 0;  // offset of this path's used-word bits in its generation's pool
};

struct ChoiceNode {
  int pos, match, prev;
};

// PARTIAL_COMPARE_TOTAL: more weighted matches, then fewer chunks, then less distance.
inline bool path_less(const Path& x, const Path& y) {
  int xm = x.matches1 + x.matches2, ym = y.matches1 + y.matches2;
  if (xm != ym) return xm > ym;
  if (x.chunks != y.chunks) return x.chunks < y.chunks;
  return x.distance < y.distance;
}

void stable_sort_paths(std::vector<Path>& v) {
  if (v.size() <= 48) {
    for (size_t i = 1; i < v.size(); ++i) {
      Path p = v[i];
      size_t j = i;
      while (j > 0 && path_less(p, v[j - 1])) {
        v[j] = v[j - 1];
        --j;
      }
      v[j] = p;
    }
  } else {
    std::stable_sort(v.begin(), v.end(), path_less);
  }
}

struct AlignResult {
  int n = 0, m = 0;
  int function1 = 0, function2 = 0;
  int content_matches1[kMaxModules] = {}, content_matches2[kMaxModules] = {};
  int function_matches1[kMaxModules] = {}, function_matches2[kMaxModules] = {};
  int chunks = 0, matches1 = 0, matches2 = 0;
};

}  // namespace

// ---------------------------------------------------------------- paraphrase table

MeteorParaphraseTable MeteorParaphraseTable::parse(std::string_view text,
                                                   const std::string& source_name) {
  MeteorParaphraseTable t;
  t.emits_.emplace_back();  // root
  std::vector<std::string> lines = core::split_lines(text, source_name, {true, true});
  auto map = [&](const std::string& line) {
    std::vector<int> ids;
    for (const std::string& w : text::java_tokenize(line)) {
      auto it = t.vocab_.find(w);
      if (it == t.vocab_.end()) it = t.vocab_.emplace(w, static_cast<int>(t.vocab_.size())).first;
      ids.push_back(it->second);
    }
    return ids;
  };
  for (size_t i = 0; i < lines.size(); i += 3) {
    if (i + 2 >= lines.size())
      throw InputError(
          source_name, static_cast<long>(i + 1),
          "incomplete paraphrase entry (expected probability, phrase, paraphrase lines)");
    std::vector<int> ref = map(lines[i + 1]);
    std::vector<int> par = map(lines[i + 2]);
    if (ref.empty() || par.empty())
      throw InputError(source_name, static_cast<long>(ref.empty() ? i + 2 : i + 3),
                       "empty phrase in paraphrase table");
    int node = 0;
    for (int w : ref) {
      uint64_t key = (static_cast<uint64_t>(node) << 32) | static_cast<uint32_t>(w);
      auto it = t.edges_.find(key);
      if (it == t.edges_.end()) {
        it = t.edges_.emplace(key, static_cast<int>(t.emits_.size())).first;
        t.emits_.emplace_back();
      }
      node = it->second;
    }
    t.emits_[node].push_back(static_cast<int>(t.paraphrases_.size()));
    t.paraphrases_.push_back(std::move(par));
  }
  return t;
}

MeteorParaphraseTable MeteorParaphraseTable::load(const std::string& path) {
  return parse(core::read_file(path), path);
}

int MeteorParaphraseTable::translate(std::string_view word) const {
  auto it = vocab_.find(std::string(word));
  return it == vocab_.end() ? -1 : it->second;
}

std::vector<std::pair<int, int>> MeteorParaphraseTable::paths(const std::vector<int>& words,
                                                              size_t start) const {
  std::vector<std::pair<int, int>> out;
  int node = 0;
  for (size_t i = 0; start + i < words.size(); ++i) {
    int w = words[start + i];
    if (w < 0) break;
    auto it = edges_.find((static_cast<uint64_t>(node) << 32) | static_cast<uint32_t>(w));
    if (it == edges_.end()) break;
    node = it->second;
    for (int e : emits_[node]) out.emplace_back(static_cast<int>(i + 1), e);
  }
  return out;
}

const std::vector<int>& MeteorParaphraseTable::paraphrase(int index) const {
  return paraphrases_.at(static_cast<size_t>(index));
}

size_t MeteorParaphraseTable::size() const { return paraphrases_.size(); }

// ---------------------------------------------------------------- options

MeteorModule parse_meteor_module(const std::string& name) {
  std::string lower = name;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "exact") return MeteorModule::kExact;
  if (lower == "stem") return MeteorModule::kStem;
  if (lower == "synonym") return MeteorModule::kSynonym;
  if (lower == "paraphrase") return MeteorModule::kParaphrase;
  throw InputError("unknown METEOR module '" + name + "' (exact, stem, synonym, paraphrase)");
}

std::string meteor_module_name(MeteorModule m) {
  switch (m) {
    case MeteorModule::kExact:
      return "exact";
    case MeteorModule::kStem:
      return "stem";
    case MeteorModule::kSynonym:
      return "synonym";
    case MeteorModule::kParaphrase:
      return "paraphrase";
  }
  return "?";
}

namespace {

std::string short_double(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

struct Resolved {
  std::array<double, 4> params;
  std::vector<double> weights;
};

// MeteorConfiguration(Properties): task -> params + weights; -p makes the task "custom", which
// Constants.getParameters/getModuleWeights treat as adq; -w then -m (weights resized to modules).
Resolved resolve(const MeteorOptions& o) {
  const TaskDefaults& task = o.params.empty() ? find_task(o.task) : find_task("adq");
  if (o.params.empty()) find_task(o.task);
  Resolved r;
  r.params = task.params;
  if (!o.params.empty()) {
    if (o.params.size() != 4)
      throw InputError("METEOR parameters need 4 values (alpha beta gamma delta), got " +
                       std::to_string(o.params.size()));
    for (int i = 0; i < 4; ++i) r.params[i] = o.params[i];
  }
  if (o.modules.empty()) throw InputError("METEOR needs at least one module");
  if (o.modules.size() > static_cast<size_t>(kMaxModules))
    throw InputError("METEOR takes at most 4 modules");
  std::vector<double> w = o.weights;
  if (w.empty()) w.assign(task.weights.begin(), task.weights.end());
  w.resize(o.modules.size(), 0.0);  // the jar pads with 0.0 / drops extra weights
  r.weights = w;
  if (o.beam_size < 1) throw InputError("METEOR beam size must be >= 1");
  return r;
}

}  // namespace

std::string meteor_data_dir(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  if (const char* env = std::getenv("UNIEVAL_METEOR_DATA")) return env;
  return "";
}

std::string check_meteor_resources(const MeteorOptions& options, const MeteorResourceFlags& flags) {
  std::string dir = require_data_dir(options.data_dir, flags);
  resolve_resource(dir, "function/english.words", "function-word list", flags);
  if (options.normalize == MeteorNormalize::kNorm ||
      options.normalize == MeteorNormalize::kNormNoPunct)
    resolve_resource(dir, "nonbreaking/english.prefixes", "nonbreaking prefixes for -norm", flags);
  bool syn = false, para = false;
  for (MeteorModule mod : options.modules) {
    syn |= mod == MeteorModule::kSynonym;
    para |= mod == MeteorModule::kParaphrase;
  }
  if (syn) {
    resolve_resource(dir, "synonym/english.synsets", "synonym module", flags);
    resolve_resource(dir, "synonym/english.exceptions", "synonym module", flags);
  }
  if (para) find_paraphrase(dir, options.paraphrase_file, flags);
  return dir;
}

std::string MeteorOptions::signature() const {
  Resolved r = resolve(*this);
  std::string s = "meteor-1.5|en|";
  switch (normalize) {
    case MeteorNormalize::kNone:
      s += "tok:none";
      break;
    case MeteorNormalize::kLower:
      s += "tok:lower";
      break;
    case MeteorNormalize::kNorm:
      s += "tok:norm";
      break;
    case MeteorNormalize::kNormNoPunct:
      s += "tok:norm-nopunct";
      break;
  }
  s += "|task:" + (params.empty() ? task : std::string("custom"));
  s += "|p:";
  for (int i = 0; i < 4; ++i) s += (i ? "," : "") + short_double(r.params[i]);
  s += "|m:";
  for (size_t i = 0; i < modules.size(); ++i) s += (i ? "," : "") + meteor_module_name(modules[i]);
  s += "|w:";
  for (size_t i = 0; i < r.weights.size(); ++i) s += (i ? "," : "") + short_double(r.weights[i]);
  s += "|beam:" + std::to_string(beam_size);
  return s;
}

// ---------------------------------------------------------------- stats

void MeteorStats::add(const MeteorStats& ss) {
  test_length += ss.test_length;
  reference_length += ss.reference_length;
  test_function_words += ss.test_function_words;
  reference_function_words += ss.reference_function_words;
  test_total_matches += ss.test_total_matches;
  reference_total_matches += ss.reference_total_matches;
  size_t k = std::max(test_content.size(), ss.test_content.size());
  test_content.resize(k, 0.0);
  reference_content.resize(k, 0.0);
  test_function.resize(k, 0.0);
  reference_function.resize(k, 0.0);
  for (size_t i = 0; i < ss.test_content.size(); ++i) {
    test_content[i] += ss.test_content[i];
    reference_content[i] += ss.reference_content[i];
    test_function[i] += ss.test_function[i];
    reference_function[i] += ss.reference_function[i];
  }
  if (!(ss.test_total_matches == ss.test_length &&
        ss.reference_total_matches == ss.reference_length && ss.chunks == 1.0))
    chunks += ss.chunks;
  test_word_matches += ss.test_word_matches;
  reference_word_matches += ss.reference_word_matches;
}

std::string MeteorStats::to_string() const {
  std::string s;
  auto put = [&](double v) {
    if (!s.empty()) s += ' ';
    s += java_double(v);
  };
  put(test_length);
  put(reference_length);
  put(test_function_words);
  put(reference_function_words);
  for (size_t i = 0; i < static_cast<size_t>(kMaxModules); ++i) {
    bool have = i < test_content.size();
    put(have ? test_content[i] : 0.0);
    put(have ? reference_content[i] : 0.0);
    put(have ? test_function[i] : 0.0);
    put(have ? reference_function[i] : 0.0);
  }
  put(chunks);
  put(test_word_matches);
  put(reference_word_matches);
  return s;
}

MeteorStats MeteorStats::parse(std::string_view line) {
  std::vector<std::string> tok = text::java_tokenize(line);
  if (tok.size() < 23)
    throw InputError("METEOR statistics line needs 23 numbers, got " + std::to_string(tok.size()));
  std::vector<double> v;
  for (const auto& t : tok) {
    try {
      size_t used = 0;
      v.push_back(std::stod(t, &used));
      if (used != t.size()) throw std::invalid_argument(t);
    } catch (const std::exception&) {
      throw InputError("METEOR statistics line: '" + t + "' is not a number");
    }
  }
  MeteorStats s;
  s.test_length = v[0];
  s.reference_length = v[1];
  s.test_function_words = v[2];
  s.reference_function_words = v[3];
  for (int i = 0; i < kMaxModules; ++i) {
    double tc = v[4 + 4 * i], rc = v[5 + 4 * i], tf = v[6 + 4 * i], rf = v[7 + 4 * i];
    s.test_content.push_back(tc);
    s.reference_content.push_back(rc);
    s.test_function.push_back(tf);
    s.reference_function.push_back(rf);
    s.test_total_matches += tc;
    s.reference_total_matches += rc;
    s.test_total_matches += tf;
    s.reference_total_matches += rf;
  }
  s.chunks = v[20];
  s.test_word_matches = v[21];
  s.reference_word_matches = v[22];
  return s;
}

// ---------------------------------------------------------------- scorer

struct MeteorScorer::Impl {
  MeteorOptions options;
  std::array<double, 4> params{};
  std::vector<double> weights;        // scoring weights, one per module
  std::vector<double> align_weights;  // the aligner's own weights: exact 1.0, others 0.5
  int threads = 1;
  bool use_stem = false, use_syn = false, use_para = false;
  std::unordered_set<std::string> function_words;
  text::NonbreakingPrefixes prefixes;
  SynonymDictionary synonyms;
  MeteorParaphraseTable paraphrase;

  std::string normalize(std::string_view line) const {
    switch (options.normalize) {
      case MeteorNormalize::kNone:
        return std::string(line);
      case MeteorNormalize::kLower:
        return text::java_lowercase(line);
      case MeteorNormalize::kNorm:
        return text::java_lowercase(text::meteor_normalize(line, prefixes, true));
      case MeteorNormalize::kNormNoPunct:
        return text::java_lowercase(text::meteor_normalize(line, prefixes, false));
    }
    return std::string(line);
  }

  // Word features, computed once per distinct word.
  WordInfo info_of(const std::string& w, std::vector<int32_t>* syn_out) const {
    WordInfo info;
    info.hash = text::java_string_hash(w);
    if (use_stem) info.stem_hash = text::java_string_hash(text::snowball_english_stem(w));
    info.function = function_words.count(text::java_lowercase(w)) > 0;
    if (use_syn && syn_out) *syn_out = synonyms.all_synsets(w);
    if (use_para) info.para = paraphrase.translate(w);
    return info;
  }

  // Aligner.align + resolve for one hypothesis (line1) / reference (line2) pair.
  struct Workspace {
    std::vector<Match> cands, sorted;
    std::vector<int> begin, cov1, cov2, fixed, chosen;
    std::vector<int32_t> h1, h2, st1, st2;  // word keys of this pair, contiguous
    std::vector<Path> paths, next;
    std::vector<uint64_t> pool, next_pool;
    std::vector<ChoiceNode> nodes;
  };

  // A path's used-word bits: w1 words of line1, then those of line2.
  struct UsedBits {
    int w1;
    bool used1(const uint64_t* b, int i) const { return (b[i >> 6] >> (i & 63)) & 1; }
    bool used2(const uint64_t* b, int j) const { return (b[w1 + (j >> 6)] >> (j & 63)) & 1; }
    void set1(uint64_t* b, int i) const { b[i >> 6] |= uint64_t(1) << (i & 63); }
    void set2(uint64_t* b, int j) const { b[w1 + (j >> 6)] |= uint64_t(1) << (j & 63); }
  };

  static void add_candidate(Workspace& ws, const Match& mt) {
    ws.cands.push_back(mt);
    for (int k = 0; k < mt.match_length; ++k) ws.cov1[mt.match_start + k]++;
    for (int k = 0; k < mt.length; ++k) ws.cov2[mt.start + k]++;
  }

  // The paraphrase stage: phrases of either line whose paraphrase appears in the other.
  void paraphrase_candidates(const int* w1, int n, const int* w2, int m,
                             const std::vector<WordInfo>& info, int stage, Workspace& ws) const {
    std::vector<int> line1(n), line2(m);
    for (int i = 0; i < n; ++i) line1[i] = info[w1[i]].para;
    for (int j = 0; j < m; ++j) line2[j] = info[w2[j]].para;
    // Paraphrases in line1 of line2 phrases.
    for (int j = 0; j < m; ++j) {
      for (const auto& [len, idx] : paraphrase.paths(line2, j)) {
        const std::vector<int>& words = paraphrase.paraphrase(idx);
        const int wl = static_cast<int>(words.size());
        for (int i = 0; i < n; ++i) {
          bool match = true;
          for (int k = 0; k < wl; ++k)
            if (i + k == n || line1[i + k] != words[k]) {
              match = false;
              break;
            }
          if (match) add_candidate(ws, {j, len, i, wl, stage});
        }
      }
    }
    // Paraphrases in line2 of line1 phrases.
    for (int i = 0; i < n; ++i) {
      for (const auto& [len, idx] : paraphrase.paths(line1, i)) {
        const std::vector<int>& words = paraphrase.paraphrase(idx);
        const int wl = static_cast<int>(words.size());
        for (int j = 0; j < m; ++j) {
          bool match = true;
          for (int k = 0; k < wl; ++k)
            if (j + k == m || line2[j + k] != words[k]) {
              match = false;
              break;
            }
          if (match) add_candidate(ws, {j, wl, i, len, stage});
        }
      }
    }
  }

  // The matcher stages (Aligner.align's loop over modules): every candidate match, in the jar's
  // order, with how often each word is covered.
  void collect_candidates(const int* w1, int n, const int* w2, int m,
                          const std::vector<WordInfo>& info, const std::vector<int32_t>& syn_pool,
                          Workspace& ws) const {
    const int module_count = static_cast<int>(options.modules.size());
    ws.cands.clear();
    ws.cov1.assign(n, 0);
    ws.cov2.assign(m, 0);
    // Identical lines: exact matching only ("prevents beam search errors").
    ws.h1.resize(n);
    ws.h2.resize(m);
    for (int i = 0; i < n; ++i) ws.h1[i] = info[w1[i]].hash;
    for (int j = 0; j < m; ++j) ws.h2[j] = info[w2[j]].hash;
    const int32_t* h1 = ws.h1.data();
    const int32_t* h2 = ws.h2.data();
    int mods_used = module_count;
    if (n == m && std::equal(h1, h1 + n, h2)) mods_used = 1;
    for (int stage = 0; stage < mods_used; ++stage) {
      switch (options.modules[stage]) {
        case MeteorModule::kExact:
          for (int j = 0; j < m; ++j) {
            const int32_t key = h2[j];
            for (int i = 0; i < n; ++i)
              if (h1[i] == key) add_candidate(ws, {j, 1, i, 1, stage});
          }
          break;
        case MeteorModule::kStem: {
          ws.st1.resize(n);
          ws.st2.resize(m);
          for (int i = 0; i < n; ++i) ws.st1[i] = info[w1[i]].stem_hash;
          for (int j = 0; j < m; ++j) ws.st2[j] = info[w2[j]].stem_hash;
          const int32_t* s1 = ws.st1.data();
          const int32_t* s2 = ws.st2.data();
          for (int j = 0; j < m; ++j) {
            const int32_t key = s2[j];
            for (int i = 0; i < n; ++i)
              if (s1[i] == key && h1[i] != h2[j]) add_candidate(ws, {j, 1, i, 1, stage});
          }
          break;
        }
        case MeteorModule::kSynonym:
          for (int j = 0; j < m; ++j) {
            const WordInfo& b = info[w2[j]];
            if (b.syn_begin == b.syn_end) continue;
            for (int i = 0; i < n; ++i) {
              const WordInfo& a = info[w1[i]];
              if (a.syn_begin == a.syn_end || a.hash == b.hash) continue;
              if (sorted_intersect(syn_pool.data() + a.syn_begin, syn_pool.data() + a.syn_end,
                                   syn_pool.data() + b.syn_begin, syn_pool.data() + b.syn_end))
                add_candidate(ws, {j, 1, i, 1, stage});
            }
          }
          break;
        case MeteorModule::kParaphrase:
          paraphrase_candidates(w1, n, w2, m, info, stage, ws);
          break;
      }
    }
  }

  // Groups the candidates by reference position, in insertion order (Stage.matches.get(j)), into
  // ws.sorted with ws.begin; marks the one-to-one, non-overlapping ones definite (ws.fixed) and
  // their words used in the first path's bits (ws.pool).
  static void index_and_fix(int m, const UsedBits& ub, int words, Workspace& ws) {
    ws.begin.assign(m + 1, 0);
    for (const Match& mt : ws.cands) ws.begin[mt.start + 1]++;
    for (int j = 0; j < m; ++j) ws.begin[j + 1] += ws.begin[j];
    ws.sorted.resize(ws.cands.size());
    {
      std::vector<int>& fill = ws.chosen;
      fill.assign(ws.begin.begin(), ws.begin.end() - 1);
      for (const Match& mt : ws.cands) ws.sorted[fill[mt.start]++] = mt;
    }
    const std::vector<Match>& matches = ws.sorted;
    ws.fixed.assign(m, -1);
    ws.pool.assign(words, 0);
    for (int j = 0; j < m; ++j) {
      if (ws.begin[j + 1] - ws.begin[j] != 1) continue;
      const Match& mt = matches[ws.begin[j]];
      bool overlap = false;
      for (int k = 0; k < mt.length; ++k) overlap |= ws.cov2[j + k] != 1;
      for (int k = 0; k < mt.match_length; ++k) overlap |= ws.cov1[mt.match_start + k] != 1;
      if (overlap) continue;
      ws.fixed[j] = ws.begin[j];
      for (int k = 0; k < mt.length; ++k) ub.set2(ws.pool.data(), j + k);
      for (int k = 0; k < mt.match_length; ++k) ub.set1(ws.pool.data(), mt.match_start + k);
    }
  }

  // The beam search over the reference positions (Aligner.resolve); leaves the paths sorted best
  // first in ws.paths.
  void beam_search(int m, const UsedBits& ub, int words, Workspace& ws) const {
    const std::vector<Match>& matches = ws.sorted;
    ws.nodes.clear();
    ws.paths.clear();
    ws.paths.push_back(Path());
    const double* aw = align_weights.data();
    auto take = [&](Path& p, const Match& mt) {
      p.match_count++;
      // int += double in Java: the sum is truncated back to int.
      p.matches1 = static_cast<int>(p.matches1 + mt.match_length * aw[mt.module]);
      p.matches2 = static_cast<int>(p.matches2 + mt.length * aw[mt.module]);
      p.all1 += mt.match_length;
      p.all2 += mt.length;
      if (p.last_end != -1 && mt.match_start != p.last_end) p.chunks++;
      p.idx = mt.start + mt.length;
      p.last_end = mt.match_start + mt.match_length;
    };
    const int beam = options.beam_size;
    for (int current = 0; current <= m; ++current) {
      stable_sort_paths(ws.paths);
      ws.next.clear();
      ws.next_pool.clear();
      auto push = [&](Path p, const uint64_t* bits) {
        p.bits = static_cast<uint32_t>(ws.next_pool.size());
        ws.next_pool.insert(ws.next_pool.end(), bits, bits + words);
        ws.next.push_back(p);
      };
      const int limit = std::min<int>(beam, static_cast<int>(ws.paths.size()));
      for (int rank = 0; rank < limit; ++rank) {
        Path p = ws.paths[rank];
        const uint64_t* bits = ws.pool.data() + p.bits;
        if (current == m) {
          if (p.last_end != -1) p.chunks++;
          push(p, bits);
          continue;
        }
        if (ub.used2(bits, current)) {
          if (current < p.idx) {
            push(p, bits);
          } else if (p.idx < m && ws.fixed[p.idx] >= 0) {
            const Match& mt = matches[ws.fixed[p.idx]];
            take(p, mt);
            p.distance += std::abs(mt.start - mt.match_start);
            push(p, bits);
          }
          continue;
        }
        for (int k = ws.begin[current]; k < ws.begin[current + 1]; ++k) {
          const Match& mt = matches[k];
          bool is_used = false;
          for (int q = 0; q < mt.length && !is_used; ++q) is_used = ub.used2(bits, mt.start + q);
          for (int q = 0; q < mt.match_length && !is_used; ++q)
            is_used = ub.used1(bits, mt.match_start + q);
          if (is_used) continue;
          Path np = p;
          take(np, mt);
          ws.nodes.push_back({current, k, p.choice});
          np.choice = static_cast<int>(ws.nodes.size()) - 1;
          // The jar adds the distance to the path being extended, not the new one.
          p.distance += std::abs(mt.start - mt.match_start);
          size_t off = ws.next_pool.size();
          ws.next_pool.insert(ws.next_pool.end(), bits, bits + words);
          uint64_t* nb = ws.next_pool.data() + off;
          for (int q = 0; q < mt.length; ++q) ub.set2(nb, mt.start + q);
          for (int q = 0; q < mt.match_length; ++q) ub.set1(nb, mt.match_start + q);
          np.bits = static_cast<uint32_t>(off);
          ws.next.push_back(np);
        }
        if (p.last_end != -1) {
          p.chunks++;
          p.last_end = -1;
        }
        p.idx++;
        push(p, bits);
      }
      if (ws.next.empty()) push(ws.paths[0], ws.pool.data() + ws.paths[0].bits);
      ws.paths.swap(ws.next);
      ws.pool.swap(ws.next_pool);
    }
    stable_sort_paths(ws.paths);
  }

  // The alignment's statistics: the definite matches plus those chosen along the best path,
  // counted by module and word class, and getCountAndChunks.
  static void count_alignment(const int* w1, int n, const int* w2, int m,
                              const std::vector<WordInfo>& info, Workspace& ws, AlignResult& out) {
    const std::vector<Match>& matches = ws.sorted;
    const Path& best = ws.paths[0];
    std::vector<int>& at = ws.chosen;
    at.assign(ws.fixed.begin(), ws.fixed.end());
    for (int c = best.choice; c >= 0; c = ws.nodes[c].prev) at[ws.nodes[c].pos] = ws.nodes[c].match;

    for (int i = 0; i < n; ++i) out.function1 += info[w1[i]].function;
    for (int j = 0; j < m; ++j) out.function2 += info[w2[j]].function;
    for (int j = 0; j < m; ++j) {
      if (at[j] < 0) continue;
      const Match& mt = matches[at[j]];
      for (int k = 0; k < mt.match_length; ++k) {
        if (info[w1[mt.match_start + k]].function)
          out.function_matches1[mt.module]++;
        else
          out.content_matches1[mt.module]++;
      }
      for (int k = 0; k < mt.length; ++k) {
        if (info[w2[mt.start + k]].function)
          out.function_matches2[mt.module]++;
        else
          out.content_matches2[mt.module]++;
      }
    }
    // getCountAndChunks
    int idx = 0, last_end = -1;
    while (idx < m) {
      if (at[idx] < 0) {
        if (last_end != -1) {
          out.chunks++;
          last_end = -1;
        }
        ++idx;
      } else {
        const Match& mt = matches[at[idx]];
        out.matches1 += mt.match_length;
        out.matches2 += mt.length;
        if (last_end != -1 && mt.match_start != last_end) out.chunks++;
        idx = mt.start + mt.length;
        last_end = mt.match_start + mt.match_length;
      }
    }
    if (last_end != -1) out.chunks++;
  }

  void align(const int* w1, int n, const int* w2, int m, const std::vector<WordInfo>& info,
             const std::vector<int32_t>& syn_pool, Workspace& ws, AlignResult& out) const {
    out = AlignResult();
    out.n = n;
    out.m = m;
    collect_candidates(w1, n, w2, m, info, syn_pool, ws);
    const int W1 = (n + 63) / 64, W2 = (m + 63) / 64;
    const UsedBits ub{W1};
    index_and_fix(m, ub, W1 + W2, ws);
    beam_search(m, ub, W1 + W2, ws);
    count_alignment(w1, n, w2, m, info, ws, out);
  }

  MeteorStats stats_of(const AlignResult& a) const {
    MeteorStats s;
    const size_t k = options.modules.size();
    s.test_length = a.n;
    s.reference_length = a.m;
    s.test_function_words = a.function1;
    s.reference_function_words = a.function2;
    s.test_content.assign(k, 0.0);
    s.reference_content.assign(k, 0.0);
    s.test_function.assign(k, 0.0);
    s.reference_function.assign(k, 0.0);
    for (size_t i = 0; i < k && i < static_cast<size_t>(kMaxModules); ++i) {
      s.test_content[i] = a.content_matches1[i];
      s.reference_content[i] = a.content_matches2[i];
      s.test_function[i] = a.function_matches1[i];
      s.reference_function[i] = a.function_matches2[i];
    }
    s.chunks = a.chunks;
    for (size_t i = 0; i < k; ++i) {
      s.test_total_matches += s.test_content[i];
      s.test_total_matches += s.test_function[i];
      s.reference_total_matches += s.reference_content[i];
      s.reference_total_matches += s.reference_function[i];
      s.test_word_matches += a.content_matches1[i];
      s.test_word_matches += a.function_matches1[i];
      s.reference_word_matches += a.content_matches2[i];
      s.reference_word_matches += a.function_matches2[i];
    }
    compute(s);
    return s;
  }

  void compute(MeteorStats& s) const {
    const double alpha = params[0], beta = params[1], gamma = params[2], delta = params[3];
    const size_t k = weights.size();
    auto at = [](const std::vector<double>& v, size_t i) { return i < v.size() ? v[i] : 0.0; };
    double test_wl = (delta * (s.test_length - s.test_function_words)) +
                     ((1.0 - delta) * (s.test_function_words));
    double ref_wl = (delta * (s.reference_length - s.reference_function_words)) +
                    ((1.0 - delta) * (s.reference_function_words));
    double test_wm = 0, ref_wm = 0;
    for (size_t i = 0; i < k; ++i) test_wm += at(s.test_content, i) * weights[i] * delta;
    for (size_t i = 0; i < k; ++i) ref_wm += at(s.reference_content, i) * weights[i] * delta;
    for (size_t i = 0; i < k; ++i) test_wm += at(s.test_function, i) * weights[i] * (1.0 - delta);
    for (size_t i = 0; i < k; ++i)
      ref_wm += at(s.reference_function, i) * weights[i] * (1.0 - delta);
    s.precision = test_wm / test_wl;
    s.recall = ref_wm / ref_wl;
    s.f1 = (2 * s.precision * s.recall) / (s.precision + s.recall);
    s.fmean = 1.0 / (((1.0 - alpha) / s.precision) + (alpha / s.recall));
    double frag;
    if (s.test_total_matches == s.test_length && s.reference_total_matches == s.reference_length &&
        s.chunks == 1)
      frag = 0;
    else
      frag = s.chunks / ((s.test_word_matches + s.reference_word_matches) / 2);
    s.fragmentation_penalty = gamma * std::pow(frag, beta);
    double score = s.fmean * (1.0 - s.fragmentation_penalty);
    s.score = std::isnan(score) ? 0.0 : std::max(score, 0.0);
  }
};

MeteorScorer::MeteorScorer(const MeteorOptions& options) : impl_(std::make_unique<Impl>()) {
  Impl& im = *impl_;
  im.options = options;
  Resolved r = resolve(options);
  im.params = r.params;
  im.weights = r.weights;
  for (MeteorModule mod : options.modules) {
    im.align_weights.push_back(mod == MeteorModule::kExact ? 1.0 : 0.5);
    im.use_stem |= mod == MeteorModule::kStem;
    im.use_syn |= mod == MeteorModule::kSynonym;
    im.use_para |= mod == MeteorModule::kParaphrase;
  }
  im.threads = core::resolve_threads(options.threads);

  std::string dir = require_data_dir(options.data_dir, {});
  std::string fw = resolve_resource(dir, "function/english.words", "function-word list");
  for (const std::string& line : core::split_lines(core::read_file(fw), fw, {false, true}))
    im.function_words.insert(line);
  if (options.normalize == MeteorNormalize::kNorm ||
      options.normalize == MeteorNormalize::kNormNoPunct)
    im.prefixes = text::NonbreakingPrefixes::load(
        resolve_resource(dir, "nonbreaking/english.prefixes", "nonbreaking prefixes for -norm"));
  if (im.use_syn) {
    std::string synsets = resolve_resource(dir, "synonym/english.synsets", "synonym module");
    std::string exceptions = resolve_resource(dir, "synonym/english.exceptions", "synonym module");
    im.synonyms.load(synsets, exceptions);
  }
  if (im.use_para)
    im.paraphrase = MeteorParaphraseTable::load(find_paraphrase(dir, options.paraphrase_file, {}));
}

MeteorScorer::~MeteorScorer() = default;

const std::array<double, 4>& MeteorScorer::params() const { return impl_->params; }
const std::vector<double>& MeteorScorer::weights() const { return impl_->weights; }
const MeteorOptions& MeteorScorer::options() const { return impl_->options; }
std::string MeteorScorer::normalize(std::string_view line) const { return impl_->normalize(line); }
void MeteorScorer::compute(MeteorStats& stats) const { impl_->compute(stats); }

MeteorResult MeteorScorer::score(const std::vector<std::string>& hyps,
                                 const std::vector<std::vector<std::string>>& refs) const {
  const Impl& im = *impl_;
  const size_t n = hyps.size();
  for (size_t k = 0; k < refs.size(); ++k)
    if (refs[k].size() != n)
      throw InputError("METEOR: reference stream " + std::to_string(k + 1) + " has " +
                       std::to_string(refs[k].size()) + " segments, the hypotheses " +
                       std::to_string(n));
  if (refs.empty() && n > 0) throw InputError("METEOR needs at least one reference");
  const size_t streams = refs.size() + 1;
  // 1. Normalise every line (parallel); line L = s * n + i (s = 0: hypotheses).
  std::vector<std::string> lines(streams * n);
  parallel_for(lines.size(), im.threads, [&](size_t L) {
    size_t s = L / n, i = L % n;
    lines[L] = im.normalize(s == 0 ? hyps[i] : refs[s - 1][i]);
  });
  // 2. Intern the tokens (serial) and compute word features once per distinct word.
  std::unordered_map<std::string_view, int> vocab;
  vocab.reserve(1 << 16);
  std::vector<std::string_view> words;
  std::vector<int> ids;
  std::vector<size_t> offsets(lines.size() + 1, 0);
  ids.reserve(lines.size() * 16);
  for (size_t L = 0; L < lines.size(); ++L) {
    std::string_view t = lines[L];
    size_t i = 0;
    auto delim = [](char c) {
      return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
    };
    while (i < t.size()) {
      while (i < t.size() && delim(t[i])) ++i;
      size_t j = i;
      while (j < t.size() && !delim(t[j])) ++j;
      if (j > i) {
        std::string_view w = t.substr(i, j - i);
        auto it = vocab.find(w);
        if (it == vocab.end()) {
          it = vocab.emplace(w, static_cast<int>(words.size())).first;
          words.push_back(w);
        }
        ids.push_back(it->second);
      }
      i = j;
    }
    offsets[L + 1] = ids.size();
  }
  std::vector<WordInfo> info(words.size());
  std::vector<std::vector<int32_t>> syn(im.use_syn ? words.size() : 0);
  parallel_for(words.size(), im.threads, [&](size_t w) {
    info[w] = im.info_of(std::string(words[w]), im.use_syn ? &syn[w] : nullptr);
  });
  std::vector<int32_t> syn_pool;
  for (size_t w = 0; w < syn.size(); ++w) {
    info[w].syn_begin = static_cast<uint32_t>(syn_pool.size());
    syn_pool.insert(syn_pool.end(), syn[w].begin(), syn[w].end());
    info[w].syn_end = static_cast<uint32_t>(syn_pool.size());
  }
  syn.clear();
  syn.shrink_to_fit();
  // 3. Align every segment with every reference (parallel); keep the best reference.
  MeteorResult result;
  result.segments.resize(n);
  result.segment_scores.resize(n);
  int nthreads = im.threads;
  auto score_range = [&](Impl::Workspace& ws, size_t b, size_t e) {
    AlignResult a;
    for (size_t i = b; i < e; ++i) {
      const int* h = ids.data() + offsets[i];
      int hn = static_cast<int>(offsets[i + 1] - offsets[i]);
      MeteorStats best;
      best.score = -1;
      for (size_t k = 1; k < streams; ++k) {
        size_t L = k * n + i;
        const int* r = ids.data() + offsets[L];
        int rn = static_cast<int>(offsets[L + 1] - offsets[L]);
        im.align(h, hn, r, rn, info, syn_pool, ws, a);
        MeteorStats cur = im.stats_of(a);
        if (cur.score > best.score) best = std::move(cur);
      }
      result.segment_scores[i] = best.score;
      result.segments[i] = std::move(best);
    }
  };
  std::vector<Impl::Workspace> workspaces(static_cast<size_t>(std::max(1, nthreads)));
  core::parallel_chunks(n, nthreads, 64, [&](size_t b, size_t e, int worker) {
    score_range(workspaces[static_cast<size_t>(worker)], b, e);
  });
  // 4. System score from the summed statistics.
  MeteorStats total;
  const size_t k = im.options.modules.size();
  total.test_content.assign(k, 0.0);
  total.reference_content.assign(k, 0.0);
  total.test_function.assign(k, 0.0);
  total.reference_function.assign(k, 0.0);
  for (const auto& s : result.segments) total.add(s);
  im.compute(total);
  result.total = total;
  result.score = total.score;
  return result;
}

MeteorStats MeteorScorer::segment(const std::string& hyp,
                                  const std::vector<std::string>& refs) const {
  std::vector<std::vector<std::string>> streams;
  for (const auto& r : refs) streams.push_back({r});
  MeteorResult res = score({hyp}, streams);
  return res.segments.at(0);
}

MeteorResult meteor(const std::vector<std::string>& hyps,
                    const std::vector<std::vector<std::string>>& refs,
                    const MeteorOptions& options) {
  return MeteorScorer(options).score(hyps, refs);
}

}  // namespace unieval::metrics
