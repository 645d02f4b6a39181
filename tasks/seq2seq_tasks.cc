// Follows UniLM (MIT) data layouts; no code copied; see THIRD_PARTY_NOTICES.md.
#include "tasks/seq2seq_tasks.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "core/io.h"
#include "tasks/squad_qg.h"
#include "tasks/summarization.h"
#include "tasks/unilm_text.h"

namespace unieval::tasks {

namespace fs = std::filesystem;

namespace {

std::string first_existing(const std::vector<fs::path>& candidates) {
  for (const auto& p : candidates)
    if (fs::exists(p) && !fs::is_directory(p)) return p.string();
  return "";
}

std::string collapse_spaces(const std::string& s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::vector<std::string> words(const std::string& s) { return py2_split(s); }

std::string join(const std::vector<std::string>& w, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end && i < w.size(); ++i) {
    if (!out.empty()) out += ' ';
    out += w[i];
  }
  return out;
}

// The last n words of text.
std::string tail_words(const std::string& text, size_t n) {
  auto w = words(text);
  return w.size() <= n ? join(w, 0, w.size()) : join(w, w.size() - n, w.size());
}

void apply_limit(Seq2SeqSplit& s, int64_t limit) {
  if (limit <= 0 || static_cast<int64_t>(s.src.size()) <= limit) return;
  s.src.resize(limit);
  s.tgt.resize(limit);
  s.refs.resize(limit);
  s.ids.resize(limit);
}

// Two line-aligned files; ragged files are an InputError naming the target file.
void read_pair(const std::string& src_path, const std::string& tgt_path, Seq2SeqSplit& s) {
  s.src = core::read_lines(src_path);
  s.tgt = core::read_lines(tgt_path);
  if (s.src.size() != s.tgt.size())
    throw InputError(tgt_path, 0,
                     "has " + std::to_string(s.tgt.size()) + " lines but " + src_path + " has " +
                         std::to_string(s.src.size()) +
                         " (source and target must be line-aligned)");
  for (size_t i = 0; i < s.src.size(); ++i) {
    if (py2_strip(s.src[i]).empty())
      throw InputError(src_path, static_cast<long>(i + 1), "empty source line");
    s.ids.push_back(std::to_string(i + 1));
  }
  s.files = {src_path, tgt_path};
}

// ---- squad-qg ------------------------------------------------------------------------------

Seq2SeqSplit read_squad_qg(const std::string& data, const std::string& split, bool reversed) {
  Seq2SeqSplit s;
  std::string file_split = split;
  if (reversed && split == "test")
    file_split = "dev";
  else if (reversed && split == "dev")
    file_split = "test";
  const fs::path dir(data);
  if (!fs::is_directory(dir))
    throw InputError(data, 0, "expected the nqg data/processed folder (src-S.txt, tgt-S.txt)");
  std::string src = first_existing(
      {dir / ("src-" + file_split + ".txt"), dir / ("src-" + file_split + ".txt.gz")});
  if (src.empty())
    throw InputError(
        data, 0,
        "no src-" + file_split + ".txt (or .txt.gz) for split '" + split + "' in this folder");
  std::string tgt = first_existing(
      {dir / ("tgt-" + file_split + ".txt"), dir / ("tgt-" + file_split + ".txt.gz")});
  if (tgt.empty())
    throw InputError(data, 0, "no tgt-" + file_split + ".txt (or .txt.gz), the partner of " + src);
  read_pair(src, tgt, s);
  s.refs = s.tgt;
  s.reader = std::string("nqg src-/tgt-") + file_split +
             (reversed ? " (reversed dev/test split)" : "") +
             "; tokenised, lower-cased by nqg; PTB brackets and quotes mapped to characters for "
             "the model; "
             "references as distributed";
  for (auto& t : s.src) t = unptb_brackets(t);
  for (auto& t : s.tgt) t = unptb_brackets(t);
  return s;
}

// ---- cnndm / gigaword -----------------------------------------------------------------------

// A .story file: article lines up to the first @highlight, then the highlights.
void parse_story(const std::string& path, std::string& article,
                 std::vector<std::string>& highlights) {
  auto lines = core::read_lines(path);
  bool in_highlights = false, next_is_highlight = false;
  std::vector<std::string> art;
  for (auto& raw : lines) {
    std::string l = py2_strip(raw);
    if (l.empty()) continue;
    if (l == "@highlight") {
      in_highlights = true;
      next_is_highlight = true;
      continue;
    }
    if (in_highlights) {
      if (next_is_highlight) highlights.push_back(l);
      next_is_highlight = false;
    } else {
      art.push_back(l);
    }
  }
  if (highlights.empty()) throw InputError(path, 0, "no @highlight in this story");
  if (art.empty()) throw InputError(path, 0, "empty article");
  article = join(art, 0, art.size());
}

Seq2SeqSplit read_summaries(const std::string& task, const std::string& data,
                            const std::string& split) {
  Seq2SeqSplit s;
  const fs::path dir(data);
  if (!fs::is_directory(dir))
    throw InputError(data, 0, "expected a folder with " + split + ".src / " + split + ".tgt");
  std::string src = first_existing({dir / (split + ".src"), dir / (split + ".src.txt"),
                                    dir / (split + ".src.gz"), dir / (split + ".src.txt.gz")});
  if (!src.empty()) {
    std::string tgt = first_existing({dir / (split + ".tgt"), dir / (split + ".tgt.txt"),
                                      dir / (split + ".tgt.gz"), dir / (split + ".tgt.txt.gz")});
    if (tgt.empty())
      throw InputError(data, 0, "no " + split + ".tgt (or .tgt.txt), the partner of " + src);
    read_pair(src, tgt, s);
    s.reader = task == "cnndm" ? "UniLM line files " + split +
                                     ".src/.tgt; sentences of the summary split on "
                                     "<S_SEP> [X_SEP] <q> ##SENT##; casing as distributed"
                               : "UniLM org_data " + split +
                                     ".src.txt/.tgt.txt; as distributed (lower-cased, "
                                     "digits '#', UNK)";
  } else if (task == "cnndm") {
    // Raw CNN/DM stories: SPLIT/*.story, or stories/*.story selected by SPLIT.list.
    std::vector<std::string> files;
    if (fs::is_directory(dir / split)) {
      for (const auto& e : fs::directory_iterator(dir / split))
        if (e.path().extension() == ".story") files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
    } else {
      std::string list = first_existing({dir / (split + ".list"), dir / (split + ".txt")});
      if (list.empty())
        throw InputError(data, 0,
                         "no " + split + ".src/.tgt, no " + split +
                             "/ folder of .story files and no " + split + ".list in this folder");
      auto names = core::read_lines(list);
      for (size_t i = 0; i < names.size(); ++i) {
        std::string n = py2_strip(names[i]);
        if (n.empty()) continue;
        if (fs::path(n).extension() != ".story") n += ".story";
        fs::path p = fs::exists(dir / "stories" / n) ? dir / "stories" / n : dir / n;
        if (!fs::exists(p)) throw InputError(list, static_cast<long>(i + 1), "no story file " + n);
        files.push_back(p.string());
      }
    }
    if (files.empty()) throw InputError((dir / split).string(), 0, "no .story files");
    for (const auto& f : files) {
      std::string article;
      std::vector<std::string> hl;
      parse_story(f, article, hl);
      s.src.push_back(article);
      s.tgt.push_back(join_summary_sentences(hl));
      s.ids.push_back(fs::path(f).stem().string());
    }
    s.files = files;
    s.reader =
        "raw CNN/DM .story files (article = lines before the first @highlight, summary = the "
        "highlights); "
        "casing as distributed";
  } else {
    throw InputError(
        data, 0,
        "no " + split + ".src.txt / " + split + ".tgt.txt (UniLM org_data layout) in this folder");
  }
  if (task == "cnndm") {
    s.refs.clear();
    for (auto& t : s.tgt) {
      auto sents = summary_sentences(t);
      std::string ref;
      for (const auto& x : sents) {
        std::string c = collapse_spaces(x);
        if (c.empty()) continue;
        if (!ref.empty()) ref += " <S_SEP> ";
        ref += c;
      }
      s.refs.push_back(ref);
      t = join_summary_sentences(sents);
    }
  } else {
    s.refs = s.tgt;
  }
  return s;
}

// ---- coqa-gen -------------------------------------------------------------------------------

std::string coqa_file(const std::string& data, const std::string& split) {
  const fs::path p(data);
  if (!fs::is_directory(p)) return data;
  const std::string name = split == "train" ? "coqa-train-v1.0.json" : "coqa-dev-v1.0.json";
  std::string f = first_existing(
      {p / name, p / (name + ".gz"), p / (split + ".json"), p / (split + ".json.gz")});
  if (f.empty())
    throw InputError(data, 0, "no " + name + " (or " + split + ".json) for split '" + split + "'");
  return f;
}

// The window of the passage of at most `budget` units (len[i]: units of word i) with the most
// words in common with the question: every start, extended as far as the budget allows; the first
// best wins.
std::string best_chunk(const std::vector<std::string>& passage, const std::vector<size_t>& len,
                       const std::string& question, size_t budget) {
  size_t total = 0;
  for (size_t l : len) total += l;
  if (total <= budget) return join(passage, 0, passage.size());
  // Words compared lower-cased, without punctuation ("cat?" ~ "cat").
  auto norm = [](const std::string& w) {
    std::string out;
    for (unsigned char c : w)
      if (std::isalnum(c) || c >= 0x80) out += static_cast<char>(std::tolower(c));
    return out;
  };
  std::unordered_set<std::string> q;
  for (const auto& w : words(question))
    if (!norm(w).empty()) q.insert(norm(w));
  std::vector<int> hit(passage.size());
  for (size_t i = 0; i < passage.size(); ++i) hit[i] = q.count(norm(passage[i])) ? 1 : 0;
  // Two pointers: [start, end) is the longest window from start within the budget.
  int cur = 0, best = -1;
  size_t end = 0, used = 0, best_start = 0, best_end = 0;
  for (size_t start = 0; start < passage.size(); ++start) {
    if (end < start) end = start, used = 0, cur = 0;
    while (end < passage.size() && used + len[end] <= budget)
      used += len[end], cur += hit[end], ++end;
    if (cur > best) best = cur, best_start = start, best_end = end;
    if (end == passage.size()) break;  // later windows are suffixes of this one
    if (end > start) used -= len[start], cur -= hit[start];
  }
  return join(passage, best_start, best_end);
}

// The last words of text whose lengths add up to at most budget.
std::string tail_within(const std::string& text,
                        const std::function<size_t(const std::string&)>& length, size_t budget) {
  const auto w = words(text);
  size_t used = 0, begin = w.size();
  while (begin > 0 && used + length(w[begin - 1]) <= budget) used += length(w[--begin]);
  return join(w, begin, w.size());
}

Seq2SeqSplit read_coqa_gen(const std::string& data, const std::string& split, int budget_words,
                           int64_t limit, std::function<size_t(const std::string&)> length,
                           const std::string& unit) {
  if (!length) length = [](const std::string&) -> size_t { return 1; };
  Seq2SeqSplit s;
  const std::string path = coqa_file(data, split);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(core::read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, 0, std::string("not valid JSON: ") + e.what());
  }
  if (!doc.contains("data") || !doc["data"].is_array())
    throw InputError(path, 0, "no \"data\" array (CoQA JSON)");
  const size_t budget = budget_words > 0 ? budget_words : 470;
  nlohmann::json subset = doc;
  subset["data"] = nlohmann::json::array();
  for (const auto& story : doc["data"]) {
    if (limit > 0 && static_cast<int64_t>(s.src.size()) >= limit) break;
    const std::string id = story.value("id", "");
    if (!story.contains("story") || !story.contains("questions") || !story.contains("answers") ||
        !story["questions"].is_array() || !story["answers"].is_array())
      throw InputError(path, 0, "story " + id + ": needs story, questions and answers");
    const auto& qs = story["questions"];
    const auto& as = story["answers"];
    if (qs.size() != as.size())
      throw InputError(path, 0,
                       "story " + id + ": " + std::to_string(qs.size()) + " questions but " +
                           std::to_string(as.size()) + " answers");
    const auto passage = words(story["story"].get<std::string>());
    std::vector<size_t> plen(passage.size());
    for (size_t i = 0; i < passage.size(); ++i) plen[i] = length(passage[i]);
    std::vector<std::string> history;
    size_t turns = 0;
    for (size_t t = 0; t < qs.size(); ++t) {
      if (limit > 0 && static_cast<int64_t>(s.src.size()) >= limit) break;
      const std::string q = collapse_spaces(qs[t].value("input_text", ""));
      const std::string a = collapse_spaces(as[t].value("input_text", ""));
      std::string hist;
      for (const auto& h : history) hist += h + " ";
      hist += q;
      const std::string hist_kept = tail_within(hist, length, budget / 2);
      size_t hist_len = 0;
      for (const auto& w : words(hist_kept)) hist_len += length(w);
      const size_t room = budget - std::min(budget, hist_len);
      s.src.push_back(hist_kept + " " + best_chunk(passage, plen, q, room));
      s.tgt.push_back(a);
      s.refs.push_back(a);
      s.ids.push_back(id + "/" + std::to_string(qs[t].value("turn_id", static_cast<int>(t + 1))));
      history.push_back(q);
      history.push_back(a);
      ++turns;
    }
    nlohmann::json st = story;
    st["questions"] = nlohmann::json(std::vector<nlohmann::json>(qs.begin(), qs.begin() + turns));
    st["answers"] = nlohmann::json(std::vector<nlohmann::json>(as.begin(), as.begin() + turns));
    if (st.contains("additional_answers") && st["additional_answers"].is_object())
      for (auto& el : st["additional_answers"].items()) {
        auto& v = el.value();
        if (v.is_array() && v.size() > turns)
          v = nlohmann::json(std::vector<nlohmann::json>(v.begin(), v.begin() + turns));
      }
    subset["data"].push_back(st);
  }
  if (s.src.empty()) throw InputError(path, 0, "no question in this file");
  s.files = {path};
  s.coqa_json = subset.dump();
  s.reader =
      "CoQA JSON; source = conversation history (q/a turns, at most half the budget, last words "
      "kept) + "
      "question + the passage window with the most word overlap with the question, " +
      std::to_string(budget) + " " + unit +
      " in all (UniLM §3.2); target = free-form answer; casing kept";
  return s;
}

// ---- dstc7 ----------------------------------------------------------------------------------

Seq2SeqSplit read_dstc7(const std::string& data, const std::string& split, int budget_words) {
  Seq2SeqSplit s;
  const fs::path dir(data);
  if (!fs::is_directory(dir))
    throw InputError(data, 0,
                     "expected a folder with " + split + ".convos.txt and " + split + ".facts.txt");
  std::string convos =
      first_existing({dir / (split + ".convos.txt"), dir / (split + ".convos.txt.gz")});
  if (convos.empty())
    throw InputError(data, 0, "no " + split + ".convos.txt (DSTC7 task 2) in this folder");
  std::string facts_path =
      first_existing({dir / (split + ".facts.txt"), dir / (split + ".facts.txt.gz")});
  const size_t budget = budget_words > 0 ? budget_words : 469;
  std::unordered_map<std::string, std::string> facts;  // conversation id -> facts text
  if (!facts_path.empty()) {
    auto lines = core::read_lines(facts_path);
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].empty()) continue;
      std::vector<std::string> c;
      size_t start = 0;
      for (size_t k = 0; k <= lines[i].size(); ++k)
        if (k == lines[i].size() || lines[i][k] == '\t')
          c.push_back(lines[i].substr(start, k - start)), start = k + 1;
      if (c.size() < 5)
        throw InputError(
            facts_path, static_cast<long>(i + 1),
            "expected 5 tab-separated columns (hash, subreddit, conversation id, domain, fact)");
      std::string& f = facts[c[2]];
      if (words(f).size() < budget) f += (f.empty() ? "" : " ") + collapse_spaces(c[4]);
    }
  }
  auto lines = core::read_lines(convos);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    std::vector<std::string> c;
    size_t start = 0;
    for (size_t k = 0; k <= lines[i].size(); ++k)
      if (k == lines[i].size() || lines[i][k] == '\t')
        c.push_back(lines[i].substr(start, k - start)), start = k + 1;
    if (c.size() < 6)
      throw InputError(convos, static_cast<long>(i + 1),
                       "expected 6 tab-separated columns (hash, subreddit, conversation id, score, "
                       "turns, response)");
    std::string turns = c[4];
    for (const char* eos : {" EOS ", "EOS "})
      for (size_t p; (p = turns.find(eos)) != std::string::npos;)
        turns.replace(p, std::string(eos).size(), " ");
    std::string ctx = tail_words(collapse_spaces(turns), budget / 2);
    const size_t room = budget - std::min(budget, words(ctx).size());
    std::string f = facts.count(c[2]) ? facts[c[2]] : "";
    auto fw = words(f);
    s.src.push_back(ctx + (fw.empty() ? "" : " " + join(fw, 0, room)));
    s.tgt.push_back(collapse_spaces(c[5]));
    s.refs.push_back(s.tgt.back());
    s.ids.push_back(c[0]);
  }
  s.files = {convos};
  if (!facts_path.empty()) s.files.push_back(facts_path);
  s.reader = "DSTC7 task-2 convos (+ facts by conversation id); source = last " +
             std::to_string(budget / 2) +
             " words of the context (EOS -> space) + the facts up to " + std::to_string(budget) +
             " words in all; target = response; casing kept";
  return s;
}

// ---- personachat ----------------------------------------------------------------------------

Seq2SeqSplit read_personachat(const std::string& data, const std::string& split, int budget_words) {
  Seq2SeqSplit s;
  std::string path = data;
  if (fs::is_directory(data)) {
    const std::string sp = split == "dev" ? "valid" : split;
    const fs::path d(data);
    path = first_existing(
        {d / (sp + "_self_original_no_cands.txt"), d / (sp + "_self_original_no_cands.txt.gz"),
         d / ("convai2_" + sp + "_self_original_no_cands.txt"),
         d / ("convai2_" + sp + "_self_original_no_cands.txt.gz"), d / (sp + "_self_original.txt"),
         d / (sp + "_self_original.txt.gz"), d / (sp + ".txt")});
    if (path.empty())
      throw InputError(
          data, 0,
          "no " + sp + "_self_original_no_cands.txt (ConvAI2 text) for split '" + split + "'");
  }
  const size_t budget = budget_words > 0 ? budget_words : 469;
  auto lines = core::read_lines(path);
  std::vector<std::string> persona, history;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (py2_strip(l).empty()) continue;
    size_t sp = l.find(' ');
    if (sp == std::string::npos || sp == 0 || l.find_first_not_of("0123456789") != sp)
      throw InputError(path, static_cast<long>(i + 1),
                       "expected 'N text' (ConvAI2 line number first)");
    const long n = std::stol(l.substr(0, sp));
    const std::string rest = l.substr(sp + 1);
    if (n == 1) persona.clear(), history.clear();
    if (rest.rfind("your persona:", 0) == 0) {
      persona.push_back(py2_strip(rest.substr(13)));
      continue;
    }
    if (rest.rfind("partner's persona:", 0) == 0) continue;
    const size_t tab = rest.find('\t');
    if (tab == std::string::npos)
      throw InputError(path, static_cast<long>(i + 1),
                       "dialogue line without a tab-separated response");
    const std::string utt = collapse_spaces(rest.substr(0, tab));
    size_t end = rest.find('\t', tab + 1);
    const std::string resp = collapse_spaces(
        rest.substr(tab + 1, end == std::string::npos ? std::string::npos : end - tab - 1));
    history.push_back(utt);
    std::string p;
    for (const auto& x : persona) p += (p.empty() ? "" : " ") + x;
    std::string h;
    for (const auto& x : history) h += (h.empty() ? "" : " ") + x;
    const size_t pw = words(p).size();
    const size_t room = budget > pw ? budget - pw : budget / 2;
    s.src.push_back((p.empty() ? "" : p + " ") + tail_words(h, room));
    s.tgt.push_back(resp);
    s.refs.push_back(resp);
    s.ids.push_back(std::to_string(i + 1));
    history.push_back(resp);
  }
  if (s.src.empty()) throw InputError(path, 0, "no dialogue lines");
  s.files = {path};
  s.reader =
      "ConvAI2 text; source = persona sentences + dialogue history (last words kept, " +
      std::to_string(budget) +
      " words in all) ending with the partner's utterance; target = response; text as distributed "
      "(lower-cased)";
  return s;
}

}  // namespace

const std::vector<std::string>& seq2seq_task_names() {
  static const std::vector<std::string> k = {
      "cnndm", "gigaword", "squad-qg", "squad-qg-reversed", "coqa-gen", "dstc7", "personachat"};
  return k;
}

bool is_seq2seq_task(const std::string& task) {
  const auto& n = seq2seq_task_names();
  return std::find(n.begin(), n.end(), task) != n.end();
}

std::string unptb_brackets(const std::string& text) {
  static const std::pair<const char*, const char*> kMap[] = {
      {"-lrb-", "("}, {"-rrb-", ")"}, {"-lsb-", "["}, {"-rsb-", "]"}, {"-lcb-", "{"},
      {"-rcb-", "}"}, {"-LRB-", "("}, {"-RRB-", ")"}, {"-LSB-", "["}, {"-RSB-", "]"},
      {"-LCB-", "{"}, {"-RCB-", "}"}, {"``", "\""},   {"''", "\""}};
  std::vector<std::string> toks;
  for (auto t : words(text)) {
    // PTB "do n't" -> "don't": BERT splits it as "don ' t", which fix_tokenization turns back
    // into "do n't" (from "do n ' t" it would leave an empty token).
    if ((t == "n't" || t == "N'T") && !toks.empty()) {
      toks.back() += t;
      continue;
    }
    for (const auto& [from, to] : kMap)
      if (t == from) {
        t = to;
        break;
      }
    toks.push_back(t);
  }
  return join(toks, 0, toks.size());
}

std::string join_summary_sentences(const std::vector<std::string>& sentences) {
  std::string out;
  for (const auto& x : sentences) {
    std::string c = collapse_spaces(x);
    if (c.empty()) continue;
    if (!out.empty()) out += " [X_SEP] ";
    out += c;
  }
  return out;
}

Seq2SeqSplit read_seq2seq_split(const std::string& task, const std::string& data,
                                const std::string& split, const Seq2SeqReadOptions& opts) {
  if (!is_seq2seq_task(task))
    throw InputError("--task " + task +
                     ": not a generation task (cnndm, gigaword, squad-qg, squad-qg-reversed, "
                     "coqa-gen, dstc7, personachat)");
  if (!fs::exists(data)) throw InputError(data, 0, "no such file or folder");
  Seq2SeqSplit s;
  if (task == "squad-qg" || task == "squad-qg-reversed")
    s = read_squad_qg(data, split, task == "squad-qg-reversed");
  else if (task == "cnndm" || task == "gigaword")
    s = read_summaries(task, data, split);
  else if (task == "coqa-gen")
    s = read_coqa_gen(data, split, opts.max_src_words, opts.limit, opts.length, opts.length_unit);
  else if (task == "dstc7")
    s = read_dstc7(data, split, opts.max_src_words);
  else
    s = read_personachat(data, split, opts.max_src_words);
  s.task = task;
  s.split = split;
  apply_limit(s, opts.limit);
  if (s.src.empty())
    throw InputError(s.files.empty() ? data : s.files[0], 0,
                     "split '" + split + "' has no examples");
  return s;
}

EvalFiles write_eval_files(const Seq2SeqSplit& s, const std::string& dir) {
  fs::create_directories(dir);
  const fs::path d(dir);
  EvalFiles e;
  e.split = s.split;
  std::string text;
  if (s.task == "squad-qg" || s.task == "squad-qg-reversed") {
    // The adapter reads a named src- file as given (for either task) with its tgt- partner.
    std::string src, tgt;
    for (size_t i = 0; i < s.refs.size(); ++i) src += s.src[i] + "\n", tgt += s.refs[i] + "\n";
    core::write_file_atomic((d / "tgt-eval.txt").string(), tgt);
    // Keys of eval.py's grouping are the sources as distributed: re-read them from the split.
    core::write_file_atomic((d / "src-eval.txt").string(), src);
    e.data = (d / "src-eval.txt").string();
    e.pred = (d / "pred.txt").string();
  } else if (s.task == "cnndm" || s.task == "gigaword") {
    for (const auto& r : s.refs) text += r + "\n";
    core::write_file_atomic((d / "ref.txt").string(), text);
    e.data = (d / "ref.txt").string();
    e.pred = (d / "pred.txt").string();
    if (s.task == "cnndm") e.options["unilm_postprocess"] = "true";
  } else if (s.task == "coqa-gen") {
    core::write_file_atomic((d / "coqa.json").string(), s.coqa_json);
    e.data = (d / "coqa.json").string();
    e.pred = (d / "pred.json").string();
  } else if (s.task == "dstc7") {
    std::string keys;
    for (size_t i = 0; i < s.refs.size(); ++i)
      text += s.ids[i] + "\t1|" + s.refs[i] + "\n", keys += s.ids[i] + "\n";
    core::write_file_atomic((d / "test.refs").string(), text);
    core::write_file_atomic((d / "keys.txt").string(), keys);
    e.data = (d / "test.refs").string();
    e.pred = (d / "pred.txt").string();
    e.options = {{"keys", (d / "keys.txt").string()}, {"n_refs", "1"}, {"vshuman", "-1"}};
  } else {  // personachat
    for (size_t i = 0; i < s.refs.size(); ++i) {
      std::string ctx = s.src[i];
      std::replace(ctx.begin(), ctx.end(), '\t', ' ');
      text += "1 " + ctx + "\t" + s.refs[i] + "\n";
    }
    core::write_file_atomic((d / "ref.txt").string(), text);
    e.data = (d / "ref.txt").string();
    e.pred = (d / "pred.txt").string();
  }
  return e;
}

void write_predictions(const Seq2SeqSplit& s, const std::vector<std::string>& hyps,
                       const std::string& path) {
  if (hyps.size() != s.src.size())
    throw InputError(path, 0,
                     std::to_string(hyps.size()) + " predictions for " +
                         std::to_string(s.src.size()) + " examples");
  std::string text;
  if (s.task == "coqa-gen") {
    nlohmann::json arr = nlohmann::json::array();
    for (size_t i = 0; i < hyps.size(); ++i) {
      const auto slash = s.ids[i].rfind('/');
      arr.push_back({{"id", s.ids[i].substr(0, slash)},
                     {"turn_id", std::stoi(s.ids[i].substr(slash + 1))},
                     {"answer", hyps[i]}});
    }
    text = arr.dump() + "\n";
  } else if (s.task == "dstc7") {
    for (size_t i = 0; i < hyps.size(); ++i) text += s.ids[i] + "\t" + hyps[i] + "\n";
  } else {
    for (const auto& h : hyps) text += h + "\n";
  }
  core::write_file_atomic(path, text);
}

std::string postprocess_hypothesis(const std::string& task, const std::string& decoded) {
  std::string s = collapse_spaces(decoded);
  if (task == "cnndm") {
    // An uncased vocabulary without [X_SEP] spells it "[ x _ sep ]".
    for (const char* spelled : {"[ x _ sep ]", "[ X _ SEP ]", "[x_sep]"})
      for (size_t p; (p = s.find(spelled)) != std::string::npos;)
        s.replace(p, std::string(spelled).size(), "[X_SEP]");
  }
  return s;
}

}  // namespace unieval::tasks
