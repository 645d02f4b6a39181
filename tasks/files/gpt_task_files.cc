#include "tasks/files/gpt_task_files.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/fs.h"
#include "core/io.h"

namespace unieval::tasks {

namespace fs = std::filesystem;

namespace {

using namespace gpt_files;

void read_race_file(const fs::path& file, const std::string& rel, std::vector<Example>& out) {
  const std::string path = file.string();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(core::read_file(path));
  } catch (const nlohmann::json::exception&
               e) {  // parse_error, and out_of_range for a number that overflows
    throw InputError(path, 0, std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_object()) throw InputError(path, 0, "expected a JSON object (a RACE article)");
  for (const char* k : {"answers", "options", "questions"})
    if (!j.contains(k) || !j[k].is_array())
      throw InputError(path, 0, std::string("missing array '") + k + "'");
  const auto& answers = j["answers"];
  const auto& options = j["options"];
  if (answers.size() != j["questions"].size() || options.size() != answers.size())
    throw InputError(path, 0,
                     std::to_string(j["questions"].size()) + " questions, " +
                         std::to_string(options.size()) + " option lists and " +
                         std::to_string(answers.size()) + " answers");
  std::string id = j.contains("id") && j["id"].is_string() ? j["id"].get<std::string>() : rel;
  std::string level;
  for (const auto& part : fs::path(rel).parent_path())
    if (part == "high" || part == "middle") level = part.string();
  if (level.empty())
    level = id.rfind("high", 0) == 0 ? "high" : id.rfind("middle", 0) == 0 ? "middle" : "";
  for (size_t q = 0; q < answers.size(); ++q) {
    if (!answers[q].is_string())
      throw InputError(path, 0, "answers[" + std::to_string(q) + "]: expected a letter");
    std::string a = answers[q].get<std::string>();
    if (!options[q].is_array())
      throw InputError(path, 0, "options[" + std::to_string(q) + "]: expected an array");
    auto c = race_label(a);
    if (!c || a != *c || static_cast<size_t>((*c)[0] - 'A') >= options[q].size())
      throw InputError(path, 0,
                       "answers[" + std::to_string(q) + "] '" + a +
                           "': expected a letter naming one of its " +
                           std::to_string(options[q].size()) + " options");
    Example e{id + "-" + std::to_string(q), *c, level, true};
    e.texts = {
        j.contains("article") && j["article"].is_string() ? j["article"].get<std::string>()
                                                          : std::string(),
        j["questions"][q].is_string() ? j["questions"][q].get<std::string>() : std::string()};
    for (const auto& opt : options[q])
      e.choices.push_back(opt.is_string() ? opt.get<std::string>() : std::string());
    out.push_back(std::move(e));
  }
}

}  // namespace

namespace gpt_files {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

std::vector<std::string> split_char(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    size_t hit = s.find(sep, pos);
    out.push_back(s.substr(pos, hit == std::string::npos ? std::string::npos : hit - pos));
    if (hit == std::string::npos) return out;
    pos = hit + 1;
  }
}

std::optional<std::string> snli_label(const std::string& s) {
  std::string l = lower(s);
  if (l == "entailment" || l == "0") return "entailment";
  if (l == "neutral" || l == "1") return "neutral";
  if (l == "contradiction" || l == "2") return "contradiction";
  return std::nullopt;
}

std::vector<Example> read_snli(const std::string& path) {
  std::vector<std::string> lines = core::split_lines(core::read_file(path), path);
  std::vector<Example> out;
  auto add = [&](long ln, const std::string& gold, const std::string& id) {
    if (id.empty()) throw InputError(path, ln, "empty pairID");
    Example e;
    e.id = id;
    if (gold == "-") {
      e.scored = false;
    } else {
      auto c = snli_label(gold);
      if (!c || gold != *c)
        throw InputError(
            path, ln,
            "gold_label '" + gold + "': expected entailment, neutral, contradiction or -");
      e.gold = *c;
    }
    out.push_back(std::move(e));
  };
  size_t first = 0;
  while (first < lines.size() && trim(lines[first]).empty()) ++first;
  if (first == lines.size()) throw InputError(path, 0, "empty file");
  if (trim(lines[first])[0] == '{') {
    for (size_t i = 0; i < lines.size(); ++i) {
      long ln = static_cast<long>(i + 1);
      if (trim(lines[i]).empty()) continue;
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(lines[i]);
      } catch (const nlohmann::json::exception&
                   e) {  // parse_error, and out_of_range for a number that overflows
        throw InputError(path, ln, std::string("invalid JSON: ") + e.what());
      }
      if (!j.is_object() || !j.contains("gold_label") || !j["gold_label"].is_string())
        throw InputError(path, ln, "expected an object with a string 'gold_label'");
      std::string id;
      if (j.contains("pairID") && j["pairID"].is_string())
        id = j["pairID"].get<std::string>();
      else
        id = std::to_string(out.size());
      add(ln, j["gold_label"].get<std::string>(), id);
      for (const char* k : {"sentence1", "sentence2"})
        out.back().texts.push_back(j.contains(k) && j[k].is_string() ? j[k].get<std::string>()
                                                                     : std::string());
    }
    return out;
  }
  std::vector<std::string> header = split_char(lines[first], '\t');
  auto col = [&](const std::string& name) -> long {
    auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : static_cast<long>(it - header.begin());
  };
  long gold_col = col("gold_label"), id_col = col("pairID"), s1 = col("sentence1"),
       s2 = col("sentence2");
  if (gold_col < 0)
    throw InputError(path, static_cast<long>(first + 1),
                     "header without a gold_label column (SNLI .txt or .jsonl expected)");
  for (size_t i = first + 1; i < lines.size(); ++i) {
    long ln = static_cast<long>(i + 1);
    if (lines[i].empty()) continue;
    std::vector<std::string> f = split_char(lines[i], '\t');
    if (f.size() != header.size())
      throw InputError(
          path, ln,
          std::to_string(f.size()) + " columns, the header has " + std::to_string(header.size()));
    add(ln, f[static_cast<size_t>(gold_col)],
        id_col >= 0 ? f[static_cast<size_t>(id_col)] : std::to_string(out.size()));
    out.back().texts = {s1 >= 0 ? f[static_cast<size_t>(s1)] : std::string(),
                        s2 >= 0 ? f[static_cast<size_t>(s2)] : std::string()};
  }
  return out;
}

// ---- SciTail ------------------------------------------------------------------------------
std::optional<std::string> scitail_label(const std::string& s) {
  std::string l = lower(s);
  if (l == "entails") return "entails";
  if (l == "neutral") return "neutral";
  return std::nullopt;
}

std::vector<Example> read_scitail(const std::string& path) {
  std::vector<std::string> lines = core::split_lines(core::read_file(path), path);
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  std::vector<Example> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    long ln = static_cast<long>(i + 1);
    std::vector<std::string> f = split_char(lines[i], '\t');
    if (f.size() < 3)
      throw InputError(path, ln,
                       "expected premise<TAB>hypothesis<TAB>label, found " +
                           std::to_string(f.size()) + " column(s)");
    std::string gold = trim(f[2]);
    if (gold != "entails" && gold != "neutral")
      throw InputError(path, ln, "label '" + gold + "': expected entails or neutral");
    out.push_back({std::to_string(i), gold, "", true, {f[0], f[1]}});
  }
  if (out.empty()) throw InputError(path, 0, "empty file");
  return out;
}

// ---- RACE ---------------------------------------------------------------------------------
std::optional<std::string> race_label(const std::string& s) {
  if (s.size() == 1 && s[0] >= 'A' && s[0] <= 'D') return s;
  if (s.size() == 1 && s[0] >= 'a' && s[0] <= 'd')
    return std::string(1, static_cast<char>(s[0] - 'a' + 'A'));
  if (s.size() == 1 && s[0] >= '0' && s[0] <= '3')
    return std::string(1, static_cast<char>(s[0] - '0' + 'A'));
  return std::nullopt;
}

std::vector<Example> read_race(const std::string& data, const std::string& only_level) {
  std::vector<std::pair<std::string, fs::path>> files;  // relative path, full path
  fs::path root(data);
  if (fs::is_directory(root)) {
    for (const std::string& rel : core::list_files(data)) {
      std::string ext = fs::path(rel).extension().string();
      if (ext != ".txt" && ext != ".json") continue;
      files.emplace_back(rel, root / rel);
    }
    std::sort(files.begin(), files.end());
    // A relative path does not include the --data folder itself (RACE/test/high): look at it too.
    std::string top =
        root.filename().empty() ? root.parent_path().filename().string() : root.filename().string();
    if (top == "high" || top == "middle")
      for (auto& f : files) f.first = top + "/" + f.first;
  } else {
    files.emplace_back(root.filename().string(), root);
    std::string parent = root.parent_path().filename().string();
    if (parent == "high" || parent == "middle")
      files.back().first = parent + "/" + files.back().first;
  }
  if (files.empty())
    throw InputError(data, 0, "no RACE article files (*.txt / *.json) below this folder");
  std::vector<Example> all;
  for (const auto& [rel, full] : files) read_race_file(full, rel, all);
  if (!only_level.empty()) {
    // The other level's questions stay (unscored), so that a prediction list covering all of
    // RACE still lines up.
    size_t n = 0;
    for (auto& e : all) {
      e.scored = e.group == only_level;
      n += e.scored;
    }
    if (n == 0)
      throw InputError(data, 0,
                       "no " + only_level + "-school questions (level from a " + only_level +
                           "/ folder or the article id)");
  }
  return all;
}

// ---- Story Cloze --------------------------------------------------------------------------
std::optional<std::string> cloze_label(const std::string& s) {
  if (s == "1" || s == "2") return s;
  return std::nullopt;
}

std::vector<Example> read_story_cloze(const std::string& path) {
  CsvTable t = parse_csv(core::read_file(path), path);
  if (t.rows.empty()) throw InputError(path, 0, "empty file");
  const auto& header = t.rows[0];
  auto col = [&](const std::string& name) -> long {
    auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : static_cast<long>(it - header.begin());
  };
  long id_col = col("InputStoryid"), ans_col = col("AnswerRightEnding");
  if (id_col < 0 || ans_col < 0)
    throw InputError(
        path, 1,
        "header without InputStoryid and AnswerRightEnding (Story Cloze Test CSV expected)");
  std::vector<Example> out;
  for (size_t i = 1; i < t.rows.size(); ++i) {
    const auto& row = t.rows[i];
    if (row.size() == 1 && row[0].empty()) continue;
    if (row.size() != header.size())
      throw InputError(
          path, t.line[i],
          std::to_string(row.size()) + " fields, the header has " + std::to_string(header.size()));
    std::string a = trim(row[static_cast<size_t>(ans_col)]);
    if (!cloze_label(a))
      throw InputError(path, t.line[i], "AnswerRightEnding '" + a + "': expected 1 or 2");
    Example e{row[static_cast<size_t>(id_col)], a, "", true};
    std::string story;
    for (const char* k : {"InputSentence1", "InputSentence2", "InputSentence3", "InputSentence4"})
      if (long c = col(k); c >= 0)
        story += (story.empty() ? "" : " ") + row[static_cast<size_t>(c)];
    e.texts = {story};
    for (const char* k : {"RandomFifthSentenceQuiz1", "RandomFifthSentenceQuiz2"})
      if (long c = col(k); c >= 0) e.choices.push_back(row[static_cast<size_t>(c)]);
    out.push_back(std::move(e));
  }
  if (out.empty()) throw InputError(path, 0, "no stories");
  return out;
}

// ---- DPRD (Rahman & Ng 2012) ---------------------------------------------------------------
std::optional<std::string> dprd_label(const std::string& s) {
  if (s == "0" || s == "1") return s;
  return std::nullopt;
}

std::vector<Example> read_dprd(const std::string& path) {
  const std::vector<std::string> lines = core::split_lines(core::read_file(path), path);
  std::vector<Example> out;
  for (size_t i = 0; i < lines.size();) {
    if (trim(lines[i]).empty()) {
      ++i;
      continue;
    }
    const long first = static_cast<long>(i + 1);
    if (i + 3 >= lines.size() || trim(lines[i + 1]).empty() || trim(lines[i + 2]).empty() ||
        trim(lines[i + 3]).empty())
      throw InputError(path, first,
                       "a DPRD example needs four lines: sentence, pronoun, candidates, answer");
    Example e;
    e.id = "dprd-" + std::to_string(out.size());
    std::vector<std::string> cands;
    const std::string c = lines[i + 2];
    for (size_t b = 0;;) {
      const size_t comma = c.find(',', b);
      cands.push_back(
          trim(c.substr(b, comma == std::string::npos ? std::string::npos : comma - b)));
      if (comma == std::string::npos) break;
      b = comma + 1;
    }
    if (cands.size() != 2 || cands[0].empty() || cands[1].empty())
      throw InputError(path, first + 2,
                       "expected two candidates separated by one comma, got '" + c + "'");
    const std::string answer = trim(lines[i + 3]);
    const auto it = std::find(cands.begin(), cands.end(), answer);
    if (it == cands.end())
      throw InputError(path, first + 3,
                       "the answer '" + answer + "' is neither candidate ('" + c + "')");
    e.gold = std::to_string(it - cands.begin());
    e.texts = {trim(lines[i]), trim(lines[i + 1])};
    e.choices = std::move(cands);
    out.push_back(std::move(e));
    i += 4;
    if (i < lines.size() && !trim(lines[i]).empty())
      throw InputError(path, static_cast<long>(i + 1), "a blank line must separate DPRD examples");
  }
  if (out.empty()) throw InputError(path, 0, "no DPRD examples");
  return out;
}

}  // namespace gpt_files

using namespace gpt_files;

CsvTable parse_csv(const std::string& text, const std::string& source) {
  CsvTable t;
  std::vector<std::string> row;
  std::string field;
  long line = 1, row_line = 1;
  bool in_quotes = false, any = false;
  size_t i = 0;
  if (text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;  // UTF-8 BOM
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"' && field.empty()) {
      in_quotes = true;
      any = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      row.push_back(std::move(field));
      field.clear();
      t.rows.push_back(std::move(row));
      t.line.push_back(row_line);
      row.clear();
      any = false;
      row_line = ++line;
    } else {
      field += c;
      any = true;
    }
  }
  if (in_quotes) throw InputError(source, row_line, "unterminated quoted field");
  if (any || !field.empty()) {
    row.push_back(std::move(field));
    t.rows.push_back(std::move(row));
    t.line.push_back(row_line);
  }
  return t;
}

const std::vector<std::string>& gpt_task_names() {
  static const std::vector<std::string> k = {"snli",   "scitail",     "race", "race-m",
                                             "race-h", "story-cloze", "dprd"};
  return k;
}

GptTaskData read_gpt_task_data(const std::string& task, const std::string& path) {
  GptTaskData d;
  d.task = task;
  d.file = path;
  std::vector<Example> ex;
  if (task == "snli") {
    ex = read_snli(path);
    d.labels = {"entailment", "neutral", "contradiction"};
  } else if (task == "scitail") {
    ex = read_scitail(path);
    d.labels = {"entails", "neutral"};
  } else if (task == "race" || task == "race-m" || task == "race-h") {
    ex = read_race(path, task == "race-m" ? "middle" : task == "race-h" ? "high" : "");
    d.labels = {"A", "B", "C", "D"};
    d.multiple_choice = true;
  } else if (task == "story-cloze") {
    ex = read_story_cloze(path);
    d.labels = {"1", "2"};
    d.multiple_choice = true;
  } else if (task == "dprd") {
    ex = read_dprd(path);
    d.labels = {"0", "1"};
    d.multiple_choice = true;
  } else {
    throw InputError("not a GPT task: " + task);
  }
  for (auto& e : ex) {
    GptTaskExample g;
    g.id = std::move(e.id);
    g.texts = std::move(e.texts);
    g.choices = std::move(e.choices);
    g.scored = e.scored;
    if (e.scored) {
      const auto it = std::find(d.labels.begin(), d.labels.end(), e.gold);
      g.label = static_cast<int64_t>(it - d.labels.begin());
    }
    if (d.multiple_choice && g.choices.size() < 2)
      throw InputError(path, 0, "example " + g.id + " has fewer than 2 answer options");
    d.examples.push_back(std::move(g));
  }
  return d;
}

std::pair<std::string, std::string> dprd_substitution(const GptTaskExample& e, size_t k) {
  const std::string& s = e.texts.at(0);
  const std::string& pronoun = e.texts.at(1);
  auto lower = [](std::string x) {
    for (char& ch : x) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return x;
  };
  const std::string ls = lower(s), lp = lower(pronoun);
  auto word_char = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '\'';
  };
  size_t at = std::string::npos;
  for (size_t p = ls.find(lp); p != std::string::npos; p = ls.find(lp, p + 1)) {
    const bool left = p == 0 || !word_char(ls[p - 1]);
    const bool right = p + lp.size() == ls.size() || !word_char(ls[p + lp.size()]);
    if (left && right) at = p;
  }
  if (lp.empty() || at == std::string::npos)
    throw InputError(e.id + ": the pronoun '" + pronoun + "' is not a word of the sentence '" + s +
                     "'");
  return {s.substr(0, at) + e.choices.at(k), s.substr(at + pronoun.size())};
}

std::string gpt_task_predictions_text(const GptTaskData& d, const std::vector<int64_t>& labels) {
  if (labels.size() != d.examples.size())
    throw InputError("one prediction per example of " + d.file + " is needed");
  std::string out = "id\tlabel\n";
  for (size_t i = 0; i < labels.size(); ++i) {
    if (!d.examples[i].scored) continue;
    if (labels[i] < 0 || labels[i] >= static_cast<int64_t>(d.labels.size()))
      throw InputError("prediction outside the labels");
    out += d.examples[i].id + "\t" + d.labels[static_cast<size_t>(labels[i])] + "\n";
  }
  return out;
}

}  // namespace unieval::tasks
