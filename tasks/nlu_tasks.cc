// Follows google-research/bert (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "tasks/nlu_tasks.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "core/error.h"
#include "core/io.h"
#include "core/py_string.h"
#include "core/utf8.h"
#include "metrics/glue.h"

namespace unieval::tasks {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

// ---- split specs -----------------------------------------------------------------------------

SplitSpec parse_split_spec(const std::string& spec) {
  SplitSpec s;
  s.text = spec;
  const size_t lb = spec.find('[');
  if (lb == std::string::npos) {
    s.name = spec;
  } else {
    if (spec.back() != ']') throw InputError("split '" + spec + "': expected NAME[B:E]");
    s.name = spec.substr(0, lb);
    const std::string inner = spec.substr(lb + 1, spec.size() - lb - 2);
    const size_t colon = inner.find(':');
    if (colon == std::string::npos || inner.find(':', colon + 1) != std::string::npos)
      throw InputError("split '" + spec + "': expected NAME[B:E] with one ':'");
    auto num = [&](const std::string& t) -> std::optional<int64_t> {
      if (t.empty()) return std::nullopt;
      size_t used = 0;
      int64_t v = 0;
      try {
        v = std::stoll(t, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != t.size()) throw InputError("split '" + spec + "': '" + t + "' is not an integer");
      return v;
    };
    s.begin = num(inner.substr(0, colon));
    s.end = num(inner.substr(colon + 1));
  }
  if (s.name.empty()) throw InputError("split '" + spec + "': empty split name");
  for (char c : s.name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      throw InputError("split '" + spec + "': bad character in the split name");
  return s;
}

std::pair<size_t, size_t> slice_range(const SplitSpec& s, size_t n) {
  const int64_t N = static_cast<int64_t>(n);
  auto fix = [&](std::optional<int64_t> v, int64_t def) {
    if (!v) return def;
    int64_t x = *v < 0 ? *v + N : *v;
    return std::clamp<int64_t>(x, 0, N);
  };
  const int64_t b = fix(s.begin, 0), e = fix(s.end, N);
  return {static_cast<size_t>(b), static_cast<size_t>(std::max(b, e))};
}

const std::vector<std::string>& nlu_task_names() {
  static const std::vector<std::string> k = {
      "glue-cola", "glue-sst2", "glue-mrpc", "glue-stsb",  "glue-qqp", "glue-mnli", "glue-mnli-mm",
      "glue-qnli", "glue-rte",  "glue-wnli", "squad-v1.1", "squad-v2", "coqa"};
  return k;
}

bool is_nlu_task(const std::string& task) {
  const auto& k = nlu_task_names();
  return std::find(k.begin(), k.end(), task) != k.end();
}

namespace {

std::string first_existing(const std::vector<fs::path>& candidates) {
  for (const auto& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) return c.string();
    fs::path gz = c;
    gz += ".gz";
    if (fs::is_regular_file(gz, ec)) return gz.string();
  }
  return "";
}

// Files in dir named PREFIX*SUFFIX or PREFIX*SUFFIX.gz (sorted, first).
std::string glob_first(const fs::path& dir, const std::string& prefix, const std::string& suffix) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return "";
  std::vector<std::string> hits;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    std::string m =
        n.size() > 3 && n.compare(n.size() - 3, 3, ".gz") == 0 ? n.substr(0, n.size() - 3) : n;
    if (m.size() >= prefix.size() + suffix.size() && m.compare(0, prefix.size(), prefix) == 0 &&
        m.compare(m.size() - suffix.size(), suffix.size(), suffix) == 0 && e.is_regular_file())
      hits.push_back(e.path().string());
  }
  std::sort(hits.begin(), hits.end());
  return hits.empty() ? "" : hits.front();
}

std::vector<std::string> split_tab(const std::string& s) { return core::py_split_on(s, '\t'); }

std::string trim(const std::string& s) { return core::py_strip_chars(s, " \t\r\n"); }

json parse_json_file(const std::string& path) {
  try {
    return json::parse(core::read_file(path));
  } catch (const json::exception& e) {
    throw InputError(path, 0, std::string("not valid JSON: ") + e.what());
  }
}

int64_t code_points(const std::string& s) {
  int64_t n = 0;
  size_t i = 0;
  while (i < s.size()) {
    core::next_code_point(s, i);
    ++n;
  }
  return n;
}

std::string collapse_ws(const std::string& s) {
  std::vector<std::string> w;
  std::vector<int64_t> c2w;
  split_words(s, w, c2w);
  std::string out;
  for (const auto& x : w) out += (out.empty() ? "" : " ") + x;
  return out;
}

}  // namespace

// ---- words -----------------------------------------------------------------------------------

bool is_squad_whitespace(char32_t c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0x202F;
}

void split_words(const std::string& text, std::vector<std::string>& words,
                 std::vector<int64_t>& char_to_word) {
  words.clear();
  char_to_word.clear();
  bool prev_ws = true;
  size_t i = 0;
  while (i < text.size()) {
    const size_t b = i;
    const char32_t c = core::next_code_point(text, i);
    if (is_squad_whitespace(c)) {
      prev_ws = true;
    } else {
      if (prev_ws) words.emplace_back();
      words.back().append(text, b, i - b);
      prev_ws = false;
    }
    char_to_word.push_back(static_cast<int64_t>(words.size()) - 1);
  }
}

// ---- GLUE ------------------------------------------------------------------------------------

GlueSplit read_glue_split(const std::string& task, const std::string& data,
                          const SplitSpec& split) {
  if (task.rfind("glue-", 0) != 0) throw InputError("not a GLUE task: " + task);
  const metrics::GlueTask gt = metrics::parse_glue_task(task.substr(5));
  GlueSplit g;
  g.task = task;
  g.labels = metrics::glue_label_names(gt);
  // File.
  std::string s = split.name;
  std::vector<std::string> names = {s};
  if (gt == metrics::GlueTask::kMnli && (s == "dev" || s == "test"))
    names.insert(names.begin(), s + "_matched");
  if (gt == metrics::GlueTask::kMnliMm && (s == "dev" || s == "test"))
    names.insert(names.begin(), s + "_mismatched");
  const fs::path dir(data);
  std::string file;
  std::error_code ec;
  if (fs::is_regular_file(dir, ec)) file = data;  // a split file named itself (as SQuAD and CoQA)
  std::vector<fs::path> cand;
  for (const auto& n : names) cand.push_back(dir / (n + ".tsv"));
  if (file.empty()) file = first_existing(cand);
  if (file.empty()) {
    fs::path p = dir.has_filename() ? dir : dir.parent_path();
    for (const auto& n : names) {
      if (!file.empty()) break;
      file = first_existing({p.parent_path() / (p.filename().string() + "." + n + ".tsv")});
      if (file.empty())
        file = glob_first(p.parent_path(), p.filename().string() + "." + n + ".", ".tsv");
    }
  }
  if (file.empty())
    throw InputError(data, 0,
                     "no " + task + " split '" + s + "' (looked for " + names.front() +
                         ".tsv[.gz] in it and " + fs::path(data).filename().string() + "." +
                         names.front() + "[.*].tsv[.gz] beside it)");
  g.file = file;
  std::vector<std::string> lines = core::read_lines(file);
  while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();
  if (lines.empty()) throw InputError(file, 0, "empty file");
  std::string head0 = lines[0];
  if (head0.rfind("\xEF\xBB\xBF", 0) == 0) head0 = head0.substr(3);  // BOM (MRPC)
  std::vector<std::string> head = split_tab(head0);
  for (auto& h : head) h = trim(h);
  auto find = [&](std::initializer_list<const char*> keys, int not_col) {
    for (const char* k : keys)
      for (size_t i = 0; i < head.size(); ++i)
        if (head[i] == k && static_cast<int>(i) != not_col) return static_cast<int>(i);
    return -1;
  };
  int ca = -1, cb = -1, cl = -1, ci = -1;
  size_t first = 1;
  const bool cola_raw = gt == metrics::GlueTask::kCola && head.size() == 4 &&
                        find({"sentence", "sentence1", "label"}, -1) < 0;
  if (cola_raw) {
    ca = 3;
    cl = 1;
    first = 0;
  } else {
    ca = find({"sentence1", "#1 String", "question1", "question", "premise", "sentence"}, -1);
    cb = find({"sentence2", "#2 String", "question2", "hypothesis", "sentence"}, ca);
    cl = find({"label", "gold_label", "Label", "Quality", "is_duplicate", "score"}, -1);
    ci = find({"index", "idx", "id"}, -1);
    if (ca < 0)
      throw InputError(file, 1, "cannot find the text column(s) of " + task + " in the header");
    g.header = lines[0];
  }
  const bool pair_task = gt != metrics::GlueTask::kCola && gt != metrics::GlueTask::kSst2;
  g.pair = pair_task;
  if (!pair_task) cb = -1;  // single-sentence tasks: never a second text column
  if (pair_task && cb < 0)
    throw InputError(file, 1,
                     task + " is a sentence-pair task but the header has no second text column");
  g.reader = "GLUE TSV " + fs::path(file).filename().string() +
             (cola_raw ? " (CoLA, no header)" : "") + (cl < 0 ? " (no labels)" : "");
  std::vector<GlueRow> rows;
  std::vector<std::string> raw;
  for (size_t ln = first; ln < lines.size(); ++ln) {
    const std::string& line = lines[ln];
    const long lno = static_cast<long>(ln + 1);
    if (trim(line).empty()) throw InputError(file, lno, "empty line");
    std::vector<std::string> cols = split_tab(line);
    const int need = std::max({ca, cb, cl, ci});
    if (static_cast<int>(cols.size()) <= need)
      throw InputError(file, lno,
                       "has " + std::to_string(cols.size()) + " columns, expected at least " +
                           std::to_string(need + 1));
    GlueRow r;
    r.line = lno;
    r.index = ci >= 0 ? trim(cols[ci]) : std::to_string(rows.size());
    r.a = cols[ca];
    if (cb >= 0) r.b = cols[cb];
    if (cl >= 0) {
      const std::string lab = trim(cols[cl]);
      auto it = std::find(g.labels.begin(), g.labels.end(), lab);
      if (it != g.labels.end()) {
        r.label = static_cast<double>(it - g.labels.begin());
      } else {
        char* end = nullptr;
        const double v = std::strtod(lab.c_str(), &end);
        const bool num = !lab.empty() && end && *end == '\0';
        const bool ok = num && (g.regression() ||
                                (v == std::floor(v) && v >= 0 && v < double(g.labels.size())));
        if (!ok) {
          std::string known;
          for (const auto& n : g.labels) known += (known.empty() ? "" : ", ") + n;
          throw InputError(
              file, lno,
              "label '" + lab + "' is not a label of " + task +
                  (g.regression() ? " (expected a number)" : " (expected one of " + known + ")"));
        }
        r.label = v;
      }
      r.has_label = true;
    }
    rows.push_back(std::move(r));
    raw.push_back(line);
  }
  auto [b, e] = slice_range(split, rows.size());
  g.rows.assign(rows.begin() + b, rows.begin() + e);
  g.raw.assign(raw.begin() + b, raw.begin() + e);
  if (split.sliced()) g.reader += " rows [" + std::to_string(b) + ", " + std::to_string(e) + ")";
  return g;
}

std::string glue_gold_text(const GlueSplit& s) {
  std::string out = s.header.empty() ? "" : s.header + "\n";
  for (const auto& l : s.raw) out += l + "\n";
  return out;
}

std::string glue_predictions_text(const GlueSplit& s, const std::vector<double>& p) {
  if (p.size() != s.rows.size())
    throw InputError("glue predictions: " + std::to_string(p.size()) + " for " +
                     std::to_string(s.rows.size()) + " rows");
  std::string out = "index\tprediction\n";
  for (size_t i = 0; i < p.size(); ++i) {
    std::string v;
    if (s.regression()) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6g", p[i]);
      v = buf;
    } else {
      v = s.labels.at(static_cast<size_t>(p[i]));
    }
    out += std::to_string(i) + "\t" + v + "\n";
  }
  return out;
}

// ---- SQuAD -----------------------------------------------------------------------------------

SquadSplit read_squad_split(const std::string& task, const std::string& data,
                            const SplitSpec& split) {
  const bool v2 = task == "squad-v2";
  if (!v2 && task != "squad-v1.1") throw InputError("not a SQuAD task: " + task);
  const std::string ver = v2 ? "v2.0" : "v1.1";
  const fs::path dir(data);
  std::string file;
  std::error_code ec;
  if (fs::is_regular_file(dir, ec)) file = data;
  if (file.empty()) file = first_existing({dir / (split.name + "-" + ver + ".json")});
  if (file.empty()) file = glob_first(dir, split.name + "-" + ver + ".", ".json");
  if (file.empty()) file = first_existing({dir / (split.name + ".json")});
  if (file.empty())
    throw InputError(data, 0,
                     "no " + task + " split '" + split.name + "' (looked for " + split.name + "-" +
                         ver + "[.*].json[.gz] and " + split.name + ".json)");
  SquadSplit s;
  s.task = task;
  s.file = file;
  s.version = v2 ? "2.0" : "1.1";
  const json doc = parse_json_file(file);
  if (!doc.is_object() || !doc.contains("data") || !doc["data"].is_array())
    throw InputError(file, 0, "not SQuAD JSON (no \"data\" array)");
  // All questions, then the slice; the gold subset keeps the article/paragraph structure.
  struct Ref {
    size_t art, par, qa;
  };
  std::vector<SquadQuestion> all;
  std::vector<Ref> refs;
  const auto& arts = doc["data"];
  size_t skipped = 0;
  for (size_t a = 0; a < arts.size(); ++a) {
    const auto& pars = arts[a].value("paragraphs", json::array());
    for (size_t p = 0; p < pars.size(); ++p) {
      const auto& par = pars[p];
      if (!par.contains("context") || !par["context"].is_string())
        throw InputError(file, 0, "a paragraph without \"context\"");
      const std::string context = par["context"].get<std::string>();
      SquadContext ctx;
      std::vector<int64_t> c2w;
      split_words(context, ctx.words, c2w);
      const int64_t n_chars = static_cast<int64_t>(c2w.size());
      const size_t ctx_index = s.contexts.size();
      s.contexts.push_back(std::move(ctx));
      const auto& qas = par.value("qas", json::array());
      for (size_t q = 0; q < qas.size(); ++q) {
        const auto& qa = qas[q];
        SquadQuestion sq;
        if (!qa.contains("id") || !qa.contains("question"))
          throw InputError(file, 0, "a question without \"id\" or \"question\"");
        sq.id = qa["id"].is_string() ? qa["id"].get<std::string>() : qa["id"].dump();
        sq.question = qa["question"].get<std::string>();
        sq.context = ctx_index;
        sq.impossible = qa.value("is_impossible", false);
        for (const auto& an : qa.value("answers", json::array())) {
          if (!an.contains("text") || !an.contains("answer_start") ||
              !an["answer_start"].is_number_integer())
            throw InputError(
                file, 0,
                "question id " + sq.id + ": an answer without text / integer answer_start");
          SquadAnswer x;
          x.text = an["text"].get<std::string>();
          x.start_char = an["answer_start"].get<int64_t>();
          const int64_t len = code_points(x.text);
          if (x.start_char < 0 || len == 0 || x.start_char + len > n_chars)
            throw InputError(
                file, 0,
                "question id " + sq.id + ": answer offsets [" + std::to_string(x.start_char) +
                    ", " + std::to_string(x.start_char + len) + ") fall outside the context (" +
                    std::to_string(n_chars) + " characters)");
          x.start_word = c2w[x.start_char];
          x.end_word = c2w[x.start_char + len - 1];
          if (x.start_word < 0) x.start_word = 0;
          std::string words;
          for (int64_t w = x.start_word; w <= x.end_word && w >= 0; ++w)
            words += (words.empty() ? "" : " ") + s.contexts[ctx_index].words[w];
          x.aligned = words.find(collapse_ws(x.text)) != std::string::npos;
          if (!x.aligned) ++skipped;
          sq.answers.push_back(std::move(x));
        }
        if (!sq.impossible && sq.answers.empty())
          throw InputError(
              file, 0, "question id " + sq.id + " has no answer and is not marked is_impossible");
        all.push_back(std::move(sq));
        refs.push_back({a, p, q});
      }
    }
  }
  auto [b, e] = slice_range(split, all.size());
  s.questions.assign(all.begin() + b, all.begin() + e);
  // Gold subset.
  ojson gold;
  gold["version"] = doc.value("version", v2 ? std::string("v2.0") : std::string("1.1"));
  ojson data_out = ojson::array();
  long last_art = -1, last_par = -1;
  for (size_t i = b; i < e; ++i) {
    const Ref& r = refs[i];
    if (static_cast<long>(r.art) != last_art) {
      ojson art;
      art["title"] = arts[r.art].value("title", std::string());
      art["paragraphs"] = ojson::array();
      data_out.push_back(art);
      last_art = static_cast<long>(r.art);
      last_par = -1;
    }
    auto& pars = data_out.back()["paragraphs"];
    if (static_cast<long>(r.par) != last_par) {
      ojson par;
      par["context"] = arts[r.art]["paragraphs"][r.par]["context"];
      par["qas"] = ojson::array();
      pars.push_back(par);
      last_par = static_cast<long>(r.par);
    }
    pars.back()["qas"].push_back(
        ojson::parse(arts[r.art]["paragraphs"][r.par]["qas"][r.qa].dump()));
  }
  gold["data"] = data_out;
  s.gold_json = gold.dump();
  s.reader =
      "SQuAD " + s.version + " JSON " + fs::path(file).filename().string() +
      (split.sliced() ? " questions [" + std::to_string(b) + ", " + std::to_string(e) + ")" : "") +
      (skipped ? "; " + std::to_string(skipped) + " answer(s) whose text is not at their offsets"
               : "");
  return s;
}

// ---- CoQA ------------------------------------------------------------------------------------

const char* coqa_answer_text(CoqaAnswerKind k) {
  switch (k) {
    case CoqaAnswerKind::kYes:
      return "yes";
    case CoqaAnswerKind::kNo:
      return "no";
    case CoqaAnswerKind::kUnknown:
      return "unknown";
    default:
      return "";
  }
}

namespace {

std::string norm_word(const std::string& w) {
  std::string o;
  for (char c : w)
    if (std::isalnum(static_cast<unsigned char>(c)) || (static_cast<unsigned char>(c) & 0x80))
      o.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return o;
}

}  // namespace

// The sub-span [start, end] of words[ws..we] (a CoQA rationale) with the best word F1 against
// the free-form answer (first best wins); start/end are left alone when no sub-span overlaps it.
static void best_f1_subspan(const std::vector<std::string>& words, int64_t ws, int64_t we,
                            const std::string& answer, int64_t& start, int64_t& end) {
  std::vector<std::string> aw;
  std::vector<int64_t> dummy;
  split_words(answer, aw, dummy);
  std::map<std::string, int> gold;
  int ng = 0;
  for (const auto& w : aw) {
    std::string n = norm_word(w);
    if (!n.empty()) ++gold[n], ++ng;
  }
  double best = 0;
  for (int64_t i = ws; i <= we && ng > 0; ++i) {
    std::map<std::string, int> seen;
    int common = 0, np = 0;
    for (int64_t j = i; j <= we; ++j) {
      std::string n = norm_word(words[j]);
      if (!n.empty()) {
        ++np;
        if (++seen[n] <= (gold.count(n) ? gold[n] : 0)) ++common;
      }
      if (common == 0 || np == 0) continue;
      const double p = double(common) / np, r = double(common) / ng, f = 2 * p * r / (p + r);
      if (f > best) {
        best = f;
        start = i;
        end = j;
      }
    }
  }
}

CoqaSplit read_coqa_split(const std::string& data, const SplitSpec& split, int history_turns) {
  const fs::path dir(data);
  std::string file;
  std::error_code ec;
  if (fs::is_regular_file(dir, ec)) file = data;
  if (file.empty())
    file =
        first_existing({dir / ("coqa-" + split.name + "-v1.0.json"), dir / (split.name + ".json")});
  if (file.empty()) file = glob_first(dir, "coqa-" + split.name + "-", ".json");
  if (file.empty())
    throw InputError(data, 0,
                     "no coqa split '" + split.name + "' (looked for coqa-" + split.name +
                         "-v1.0.json[.gz] and " + split.name + ".json)");
  CoqaSplit s;
  s.file = file;
  const json doc = parse_json_file(file);
  if (!doc.is_object() || !doc.contains("data") || !doc["data"].is_array())
    throw InputError(file, 0, "not CoQA JSON (no \"data\" array)");
  struct Ref {
    size_t story, turn;
  };
  std::vector<CoqaTurn> all;
  std::vector<Ref> refs;
  const auto& stories = doc["data"];
  for (size_t si = 0; si < stories.size(); ++si) {
    const auto& st = stories[si];
    const std::string sid = st.value("id", std::string());
    if (!st.contains("story") || !st.contains("questions"))
      throw InputError(file, 0, "story " + sid + " without story/questions");
    const std::string story = st["story"].get<std::string>();
    SquadContext ctx;
    std::vector<int64_t> c2w;
    split_words(story, ctx.words, c2w);
    const int64_t n_chars = static_cast<int64_t>(c2w.size());
    std::vector<char> is_ws;
    for (size_t i = 0; i < story.size();)
      is_ws.push_back(is_squad_whitespace(core::next_code_point(story, i)) ? 1 : 0);
    const size_t story_index = s.stories.size();
    const auto& qs = st["questions"];
    const json answers = st.value("answers", json::array());
    std::vector<std::pair<std::string, std::string>> history;
    for (size_t t = 0; t < qs.size(); ++t) {
      CoqaTurn turn;
      turn.story_id = sid;
      turn.turn_id = qs[t].value("turn_id", static_cast<int64_t>(t + 1));
      turn.story = story_index;
      const std::string id = "story " + sid + " turn " + std::to_string(turn.turn_id);
      if (t >= answers.size() || !answers[t].is_object() || !answers[t].contains("input_text") ||
          !answers[t]["input_text"].is_string())
        throw InputError(
            file, 0,
            id + ": no answer (answers[" + std::to_string(t) + "] with input_text missing)");
      const auto& an = answers[t];
      turn.answer = an["input_text"].get<std::string>();
      const std::string q = qs[t].value("input_text", std::string());
      std::string full;
      const size_t h0 = history.size() > static_cast<size_t>(std::max(0, history_turns))
                            ? history.size() - history_turns
                            : 0;
      for (size_t h = h0; h < history.size(); ++h)
        full += history[h].first + " " + history[h].second + " ";
      turn.question = full + q;
      history.emplace_back(q, turn.answer);
      const int64_t rs = an.value("span_start", int64_t{-1}),
                    re = an.value("span_end", int64_t{-1});
      const std::string na = norm_word(turn.answer);
      if (na == "unknown" || rs < 0)
        turn.kind = CoqaAnswerKind::kUnknown;
      else if (na == "yes")
        turn.kind = CoqaAnswerKind::kYes;
      else if (na == "no")
        turn.kind = CoqaAnswerKind::kNo;
      if (rs >= 0) {
        if (re <= rs || re > n_chars)
          throw InputError(file, 0,
                           id + ": rationale offsets [" + std::to_string(rs) + ", " +
                               std::to_string(re) + ") fall outside the story (" +
                               std::to_string(n_chars) + " characters)");
        // Rationale words without surrounding whitespace.
        int64_t a = rs, z = re - 1;
        while (a < z && is_ws[a]) ++a;
        while (z > a && is_ws[z]) --z;
        int64_t ws = std::max<int64_t>(0, c2w[a]), we = std::max<int64_t>(ws, c2w[z]);
        turn.start_word = ws;
        turn.end_word = we;
        if (turn.kind == CoqaAnswerKind::kSpan)
          best_f1_subspan(ctx.words, ws, we, turn.answer, turn.start_word, turn.end_word);
      }
      all.push_back(std::move(turn));
      refs.push_back({si, t});
    }
    s.stories.push_back(std::move(ctx));
  }
  auto [b, e] = slice_range(split, all.size());
  s.turns.assign(all.begin() + b, all.begin() + e);
  // Gold subset: the stories of the slice with only its turns (questions, answers and the
  // additional answers filtered by position).
  ojson gold;
  gold["version"] = doc.value("version", std::string("1.0"));
  ojson out = ojson::array();
  std::map<size_t, std::set<size_t>> keep;
  for (size_t i = b; i < e; ++i) keep[refs[i].story].insert(refs[i].turn);
  for (const auto& [si, kept] : keep) {
    ojson st = ojson::parse(stories[si].dump());
    const std::set<size_t>& turns =
        kept;  // a lambda may not capture a structured binding (C++17; clang)
    auto filter = [&](const ojson& arr) {
      ojson o = ojson::array();
      for (size_t t = 0; t < arr.size(); ++t)
        if (turns.count(t)) o.push_back(arr[t]);
      return o;
    };
    st["questions"] = filter(st["questions"]);
    st["answers"] = filter(st["answers"]);
    if (st.contains("additional_answers") && st["additional_answers"].is_object())
      for (auto it = st["additional_answers"].begin(); it != st["additional_answers"].end(); ++it)
        it.value() = filter(it.value());
    out.push_back(st);
  }
  gold["data"] = out;
  s.gold_json = gold.dump();
  s.reader =
      "CoQA JSON " + fs::path(file).filename().string() + ", history " +
      std::to_string(history_turns) + " turn(s)" +
      (split.sliced() ? ", turns [" + std::to_string(b) + ", " + std::to_string(e) + ")" : "");
  return s;
}

// ---- prediction files ------------------------------------------------------------------------

std::string squad_predictions_json(
    const std::vector<std::pair<std::string, std::string>>& answers) {
  ojson j = ojson::object();
  for (const auto& [id, a] : answers) j[id] = a;
  return j.dump(2) + "\n";
}

std::string squad_na_probs_json(const std::vector<std::pair<std::string, double>>& probs) {
  ojson j = ojson::object();
  for (const auto& [id, p] : probs) j[id] = p;
  return j.dump(2) + "\n";
}

std::string coqa_predictions_json(const std::vector<CoqaTurn>& turns,
                                  const std::vector<std::string>& answers) {
  if (turns.size() != answers.size())
    throw InputError("coqa predictions: " + std::to_string(answers.size()) + " answers for " +
                     std::to_string(turns.size()) + " turns");
  ojson j = ojson::array();
  for (size_t i = 0; i < turns.size(); ++i)
    j.push_back({{"id", turns[i].story_id}, {"turn_id", turns[i].turn_id}, {"answer", answers[i]}});
  return j.dump(2) + "\n";
}

}  // namespace unieval::tasks
