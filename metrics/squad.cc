// Follows SQuAD (no licence header) behaviour only; no code taken; see THIRD_PARTY_NOTICES.md.
#include "metrics/squad.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <utility>

#include "core/error.h"
#include "core/io.h"
#include "core/json_cursor.h"
#include "core/json_reader.h"
#include "core/parallel.h"
#include "metrics/text/squad_normalize.h"

namespace unieval::metrics {

namespace {

// sum(common.values()) for Counter(a) & Counter(b): greedy multiset matching.
template <class Tok>
size_t common_count(const std::vector<Tok>& a, const std::vector<Tok>& b) {
  if (a.empty() || b.empty()) return 0;
  if (b.size() <= 64 && a.size() <= 64) {  // the usual answer: a bit per gold token
    uint64_t used = 0;
    size_t same = 0;
    for (const auto& t : a) {
      for (size_t j = 0; j < b.size(); ++j) {
        if (!(used >> j & 1) && b[j] == t) {
          used |= uint64_t{1} << j;
          ++same;
          break;
        }
      }
    }
    return same;
  }
  if (a.size() * b.size() <= 4096) {
    thread_local std::vector<char> used;  // reused: this runs once per (prediction, gold) pair
    used.assign(b.size(), 0);
    size_t same = 0;
    for (const auto& t : a) {
      for (size_t j = 0; j < b.size(); ++j) {
        if (!used[j] && b[j] == t) {
          used[j] = 1;
          ++same;
          break;
        }
      }
    }
    return same;
  }
  std::vector<std::string_view> x(a.begin(), a.end()), y(b.begin(), b.end());
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  size_t i = 0, j = 0, same = 0;
  while (i < x.size() && j < y.size()) {
    if (x[i] == y[j]) {
      ++same, ++i, ++j;
    } else if (x[i] < y[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return same;
}

// compute_f1 / f1_score on token lists (std::string or std::string_view).
template <class Tok>
double token_f1(const std::vector<Tok>& pred_toks, const std::vector<Tok>& gold_toks, bool v2) {
  if (v2 && (pred_toks.empty() || gold_toks.empty()))
    return pred_toks.size() == gold_toks.size() ? 1 : 0;
  size_t same = common_count(pred_toks, gold_toks);
  if (same == 0) return 0;
  double precision = 1.0 * static_cast<double>(same) / static_cast<double>(pred_toks.size());
  double recall = 1.0 * static_cast<double>(same) / static_cast<double>(gold_toks.size());
  return (2 * precision * recall) / (precision + recall);
}

std::string fmt_thresh(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

const char* version_name(SquadVersion v) { return v == SquadVersion::kV2_0 ? "2.0" : "1.1"; }

std::string missing_message(const std::vector<std::string>& missing, size_t total,
                            const std::string& pred_source) {
  std::string first;
  for (size_t i = 0; i < missing.size() && i < 5; ++i) first += (i ? ", " : "") + missing[i];
  if (missing.size() > 5) first += ", ...";
  return std::to_string(missing.size()) + " of " + std::to_string(total) +
         " questions have no prediction in " + pred_source + " (first: " + first +
         "); evaluate-v2.0.py crashes on this; pass --allow-missing to score them 0";
}

}  // namespace

double squad_token_f1(const std::vector<std::string>& pred_toks,
                      const std::vector<std::string>& gold_toks, bool v2) {
  return token_f1(pred_toks, gold_toks, v2);
}

double squad_token_f1(const std::vector<std::string_view>& pred_toks,
                      const std::vector<std::string_view>& gold_toks, bool v2) {
  return token_f1(pred_toks, gold_toks, v2);
}

bool squad_v1_exact_match(std::string_view prediction, std::string_view ground_truth) {
  return text::squad_normalize_answer(prediction) == text::squad_normalize_answer(ground_truth);
}

double squad_v1_f1(std::string_view prediction, std::string_view ground_truth) {
  return squad_token_f1(text::squad_answer_tokens(prediction),
                        text::squad_answer_tokens(ground_truth), false);
}

int squad_v2_compute_exact(std::string_view a_gold, std::string_view a_pred) {
  return text::squad_normalize_answer(a_gold) == text::squad_normalize_answer(a_pred) ? 1 : 0;
}

double squad_v2_compute_f1(std::string_view a_gold, std::string_view a_pred) {
  return squad_token_f1(text::squad_answer_tokens(a_pred), text::squad_answer_tokens(a_gold), true);
}

// ---- Readers ------------------------------------------------------------------------------

namespace {

// The readers build views into the document's text, then keep that text (shared) and drop
// the nodes.
std::shared_ptr<const core::HugeVector<char>> keep_text(core::JsonDocument&& doc) {
  return std::make_shared<const core::HugeVector<char>>(std::move(doc).take_text());
}

SquadDataset squad_dataset_of(core::JsonDocument&& doc, const std::string& source) {
  core::JsonValue root = doc.root();
  SquadDataset ds;
  ds.source = source;
  if (!root.is_object()) root.fail("a SQuAD data file must be a JSON object with a 'data' list");
  if (core::JsonValue v = root.find("version"); v.valid() && v.is_string())
    ds.version = v.as_string();
  size_t n_questions = 0;
  for (core::JsonValue article : root["data"].array_items("'data'"))
    for (core::JsonValue para : article["paragraphs"].array_items("'paragraphs'"))
      n_questions += para["qas"].size();
  ds.questions.reserve(n_questions);
  ds.answer_texts.reserve(n_questions * 3);
  for (core::JsonValue article : root["data"].array_items("'data'")) {
    for (core::JsonValue para : article["paragraphs"].array_items("'paragraphs'")) {
      for (core::JsonValue qa : para["qas"].array_items("'qas'")) {
        SquadQuestion q;
        q.line = qa.line();
        q.id = qa["id"].as_string("'id'");
        q.first_answer = static_cast<uint32_t>(ds.answer_texts.size());
        for (core::JsonValue ans : qa["answers"].array_items("'answers'"))
          ds.answer_texts.push_back(ans["text"].as_string("answer 'text'"));
        q.n_answers = static_cast<uint32_t>(ds.answer_texts.size() - q.first_answer);
        if (qa.find("is_impossible").valid()) ds.has_is_impossible = true;
        ds.questions.push_back(q);
      }
    }
  }
  ds.text = keep_text(std::move(doc));
  return ds;
}

// squad_dataset_of from the text with a core::JsonCursor, without building the document (the
// nodes of a SQuAD file cost more than its scoring): data / paragraphs / qas / id / answers /
// text are read as squad_dataset_of reads them, everything else (contexts, questions,
// answer_start) is only checked. A layout squad_dataset_of would judge -- a wrong type, a
// missing key, a repeated one (its lookups take the last), an escaped key -- refuses, and the
// caller parses the untouched text instead, so both paths give the same dataset or error.
bool squad_dataset_fast(core::HugeVector<char>& text, SquadDataset& ds) {
  using Cursor = core::JsonCursor;
  using Refused = Cursor::Refused;
  struct Escaped {
    size_t index;  // into questions (ids) or answer_texts
    Cursor::Span span;
  };
  std::vector<Escaped> ids, answers;  // decoded in place once the scan succeeded
  const char* t = text.data();
  auto is = [t](Cursor::Span key, std::string_view name) { return Cursor::plain(t, key) == name; };
  auto once = [](bool& seen) {
    if (seen) throw Refused{};
    seen = true;
  };
  auto raw = [t](Cursor::Span s) { return std::string_view(t + s.off, s.len); };
  try {
    Cursor c(t, text.size());
    // True for the member `name` (refused when repeated); any other member is skipped.
    auto wanted = [&](Cursor::Span key, std::string_view name, bool& seen) {
      if (!is(key, name)) {
        c.skip();
        return false;
      }
      once(seen);
      return true;
    };
    Cursor::Span key, version;
    bool seen_data = false, seen_version = false, has_version = false;
    for (auto root = c.object(); root.next(key);) {
      if (is(key, "version")) {
        once(seen_version);
        has_version = c.peek() == '"';  // root.find("version") is used when it is a string
        if (has_version)
          version = c.string();
        else
          c.skip();
        continue;
      }
      if (!wanted(key, "data", seen_data)) continue;
      for (auto articles = c.array(); articles.next();) {
        bool seen_paragraphs = false;
        for (auto article = c.object(); article.next(key);) {
          if (!wanted(key, "paragraphs", seen_paragraphs)) continue;
          for (auto paras = c.array(); paras.next();) {
            bool seen_qas = false;
            for (auto para = c.object(); para.next(key);) {
              if (!wanted(key, "qas", seen_qas)) continue;
              for (auto qas = c.array(); qas.next();) {
                SquadQuestion q;
                q.first_answer = static_cast<uint32_t>(ds.answer_texts.size());
                bool seen_id = false, seen_answers = false;
                auto qa = c.object();
                q.line = c.line();  // the line of the qa's '{', as Value::line()
                while (qa.next(key)) {
                  if (is(key, "id")) {
                    once(seen_id);
                    Cursor::Span id = c.string();
                    q.id = raw(id);
                    if (id.escaped) ids.push_back({ds.questions.size(), id});
                  } else if (is(key, "answers")) {
                    once(seen_answers);
                    for (auto list = c.array(); list.next();) {
                      bool seen_text = false;
                      for (auto ans = c.object(); ans.next(key);) {
                        if (!wanted(key, "text", seen_text)) continue;
                        Cursor::Span a = c.string();
                        if (a.escaped) answers.push_back({ds.answer_texts.size(), a});
                        ds.answer_texts.push_back(raw(a));
                      }
                      if (!seen_text) throw Refused{};
                    }
                  } else {
                    if (is(key, "is_impossible")) ds.has_is_impossible = true;
                    c.skip();
                  }
                }
                if (!seen_id || !seen_answers) throw Refused{};
                q.n_answers = static_cast<uint32_t>(ds.answer_texts.size() - q.first_answer);
                ds.questions.push_back(q);
              }
            }
            if (!seen_qas) throw Refused{};
          }
        }
        if (!seen_paragraphs) throw Refused{};
      }
    }
    if (!seen_data) throw Refused{};
    c.finish();
    if (has_version) ds.version = std::string(Cursor::decode(text.data(), version));
  } catch (const Refused&) {
    return false;
  }
  for (const Escaped& e : ids) ds.questions[e.index].id = Cursor::decode(text.data(), e.span);
  for (const Escaped& e : answers) ds.answer_texts[e.index] = Cursor::decode(text.data(), e.span);
  return true;
}

// One member of an {id: value} file (predictions, na-probs), in file order: as in a Python dict,
// a repeated id keeps its first position and takes its last value.
template <class Map, class Values, class V>
void add_member(Map& p, Values& values, std::string_view id, V value) {
  size_t k = p.index.find(id, [&p](size_t i) { return p.ids[i]; });
  if (k == SquadIdIndex::npos) {
    p.index.insert(id, p.ids.size());
    p.ids.push_back(id);
    values.push_back(value);
  } else {
    values[k] = value;
  }
}

SquadPredictions squad_predictions_of(core::JsonDocument&& doc, const std::string& source) {
  core::JsonValue root = doc.root();
  SquadPredictions p;
  p.source = source;
  if (!root.is_object())
    root.fail("a SQuAD prediction file must be a JSON object {question id: answer text}, found " +
              std::string(core::json_type_name(root.type())));
  p.ids.reserve(root.size());
  p.answers.reserve(root.size());
  p.index.reserve(root.size());
  for (core::JsonValue v : root.items()) {
    std::string_view id = v.key();
    if (!v.is_string()) v.as_string("prediction for '" + std::string(id) + "'");  // throws
    add_member(p, p.answers, id, v.as_string());
  }
  p.text = keep_text(std::move(doc));
  return p;
}

// A value of a flat object as the reader keeps it: a string decoded (after the scan), a number
// as is.
std::string_view value_of(char* text, core::JsonCursor::Span s) {
  return core::JsonCursor::decode(text, s);
}
double value_of(char*, double v) { return v; }

// squad_predictions_of / squad_na_probs_of with a core::JsonCursor (see squad_dataset_fast): a JSON
// object {id: value}, read(cursor) reading one value (refusing another type); the members are
// then added to p (ids, index) and values in file order. False when the cursor refuses.
template <class Map, class Values, class Read>
bool flat_object_fast(core::HugeVector<char>& text, Map& p, Values& values, Read&& read) {
  using Cursor = core::JsonCursor;
  core::HugeVector<Cursor::Span> keys;
  core::HugeVector<decltype(read(std::declval<Cursor&>()))> raw;
  try {
    Cursor c(text.data(), text.size());
    Cursor::Span key;
    for (auto root = c.object(); root.next(key);) {
      keys.push_back(key);
      raw.push_back(read(c));
    }
    c.finish();
  } catch (const Cursor::Refused&) {
    return false;
  }
  p.ids.reserve(keys.size());
  values.reserve(keys.size());
  p.index.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i)
    add_member(p, values, Cursor::decode(text.data(), keys[i]), value_of(text.data(), raw[i]));
  return true;
}

bool squad_predictions_fast(core::HugeVector<char>& text, SquadPredictions& p) {
  return flat_object_fast(text, p, p.answers, [](core::JsonCursor& c) { return c.string(); });
}

SquadNaProbs squad_na_probs_of(core::JsonDocument&& doc, const std::string& source) {
  core::JsonValue root = doc.root();
  SquadNaProbs p;
  p.source = source;
  if (!root.is_object())
    root.fail("an na-prob file must be a JSON object {question id: probability}, found " +
              std::string(core::json_type_name(root.type())));
  p.ids.reserve(root.size());
  p.probs.reserve(root.size());
  p.index.reserve(root.size());
  for (core::JsonValue v : root.items()) {
    std::string_view id = v.key();
    if (!v.is_number()) v.as_double("na_prob of '" + std::string(id) + "'");  // throws
    add_member(p, p.probs, id, v.as_double());
  }
  p.text = keep_text(std::move(doc));
  return p;
}

bool squad_na_probs_fast(core::HugeVector<char>& text, SquadNaProbs& p) {
  return flat_object_fast(text, p, p.probs, [](core::JsonCursor& c) { return c.number(); });
}

// A reader from checked text: the cursor's scan (fast(text, result)), else the document's.
template <class Result, class Fast, class OfDocument>
Result read_squad_file(core::HugeVector<char> text, const std::string& source, Fast&& fast,
                       OfDocument&& of_document) {
  Result r;
  r.source = source;
  if (fast(text, r)) {
    r.text = std::make_shared<const core::HugeVector<char>>(std::move(text));
    return r;
  }
  return of_document(core::JsonDocument::parse_checked(std::move(text), source), source);
}

// The dataset from checked text (core::JsonDocument::check_text): the cursor's scan, else the
// document's.
SquadDataset squad_dataset_of_text(core::HugeVector<char> text, const std::string& source) {
  return read_squad_file<SquadDataset>(std::move(text), source, squad_dataset_fast,
                                       squad_dataset_of);
}

SquadPredictions squad_predictions_of_text(core::HugeVector<char> text, const std::string& source) {
  return read_squad_file<SquadPredictions>(std::move(text), source, squad_predictions_fast,
                                           squad_predictions_of);
}

SquadNaProbs squad_na_probs_of_text(core::HugeVector<char> text, const std::string& source) {
  return read_squad_file<SquadNaProbs>(std::move(text), source, squad_na_probs_fast,
                                       squad_na_probs_of);
}

}  // namespace

SquadDataset parse_squad_dataset(std::string text, const std::string& source) {
  return squad_dataset_of_text(
      core::JsonDocument::check_text(core::HugeVector<char>(text.begin(), text.end()), source),
      source);
}
SquadPredictions parse_squad_predictions(std::string text, const std::string& source) {
  return squad_predictions_of_text(
      core::JsonDocument::check_text(core::HugeVector<char>(text.begin(), text.end()), source),
      source);
}
SquadDataset parse_squad_dataset_with_document(std::string text, const std::string& source) {
  return squad_dataset_of(core::JsonDocument::parse(std::move(text), source), source);
}
SquadPredictions parse_squad_predictions_with_document(std::string text,
                                                       const std::string& source) {
  return squad_predictions_of(core::JsonDocument::parse(std::move(text), source), source);
}
SquadNaProbs parse_squad_na_probs(std::string text, const std::string& source) {
  return squad_na_probs_of_text(
      core::JsonDocument::check_text(core::HugeVector<char>(text.begin(), text.end()), source),
      source);
}
SquadNaProbs parse_squad_na_probs_with_document(std::string text, const std::string& source) {
  return squad_na_probs_of(core::JsonDocument::parse(std::move(text), source), source);
}

SquadDataset load_squad_dataset(const std::string& path) {
  return squad_dataset_of_text(core::JsonDocument::read_text(path), path);
}
SquadPredictions load_squad_predictions(const std::string& path) {
  return squad_predictions_of_text(core::JsonDocument::read_text(path), path);
}
SquadNaProbs load_squad_na_probs(const std::string& path) {
  return squad_na_probs_of_text(core::JsonDocument::read_text(path), path);
}

// ---- Evaluation ---------------------------------------------------------------------------

std::string SquadOptions::signature(SquadVersion resolved, bool with_na_probs) const {
  std::string s = std::string("squad|v:") + version_name(resolved);
  if (resolved == SquadVersion::kV2_0) {
    s += "|na_probs:" + std::string(with_na_probs ? "file" : "none");
    s += "|thresh:" + fmt_thresh(na_prob_thresh);
    s += std::string("|missing:") + (allow_missing ? "zero" : "error");
  } else {
    s += "|missing:zero";
  }
  return s + "|official:evaluate-v" + version_name(resolved) + ".py";
}

SquadVersion resolve_squad_version(const SquadDataset& data, SquadVersion requested) {
  if (requested != SquadVersion::kAuto) return requested;
  const std::string& v = data.version;
  if (v.rfind("1.", 0) == 0 || v.rfind("v1.", 0) == 0) return SquadVersion::kV1_1;
  if (v.rfind("2.", 0) == 0 || v.rfind("v2.", 0) == 0) return SquadVersion::kV2_0;
  if (data.has_is_impossible) return SquadVersion::kV2_0;
  for (const auto& q : data.questions)
    if (q.n_answers == 0) return SquadVersion::kV2_0;
  return SquadVersion::kV1_1;
}

namespace {

// evaluate-v1.1.py evaluate(dataset, predictions). Questions are scored in parallel (each
// independently); the sums run in data order afterwards, so the numbers do not depend on it.
SquadResult evaluate_v1(const SquadDataset& data, const SquadPredictions& preds, int threads) {
  SquadResult r;
  r.version = SquadVersion::kV1_1;
  size_t n = data.questions.size();
  if (n == 0) throw InputError(data.source, 0, "the data file has no questions");
  core::HugeVector<const std::string_view*> pred_of(n, nullptr);
  r.item_exact.assign(n, 0);
  r.item_f1.assign(n, 0);
  core::parallel_ranges(n, core::resolve_threads(threads), [&](size_t begin, size_t end) {
    text::NormalizedAnswer p, g;
    size_t hint = begin;
    for (size_t i = begin; i < end; ++i) {
      const SquadQuestion& q = data.questions[i];
      const std::string_view* pred = preds.find_near(q.id, hint);
      pred_of[i] = pred;
      if (!pred) continue;  // "Unanswered question X will receive score 0."
      if (q.n_answers == 0)
        throw InputError(data.source, q.line,
                         "question '" + std::string(q.id) +
                             "' has no gold answers; evaluate-v1.1.py fails on it (max() arg is an "
                             "empty sequence): use --squad-version 2.0 for SQuAD 2.0 data");
      p.set(*pred);
      bool em = false;
      double best_f1 = 0;
      bool first = true;
      SquadAnswers golds = data.answers(q);
      for (const std::string_view* gold = golds.begin(); gold != golds.end(); ++gold) {
        if (std::find(golds.begin(), gold, *gold) != gold) continue;  // a repeat scores the same
        g.set(*gold);
        em = em || (g.norm == p.norm);
        double f = squad_token_f1(p.toks, g.toks, false);
        if (first || f > best_f1) best_f1 = f;
        first = false;
      }
      r.item_exact[i] = em ? 1 : 0;
      r.item_f1[i] = best_f1;
    }
  });
  long exact_match = 0;
  double f1 = 0;
  r.item_ids.reserve(n);
  r.text = data.text;
  for (size_t i = 0; i < n; ++i) {
    std::string_view id = data.questions[i].id;
    if (!pred_of[i]) r.missing.emplace_back(id);
    r.item_ids.push_back(id);
    exact_match += static_cast<long>(r.item_exact[i]);
    f1 += r.item_f1[i];
  }
  r.total = static_cast<long>(n);
  r.exact_match = 100.0 * static_cast<double>(exact_match) / static_cast<double>(n);
  r.f1 = 100.0 * f1 / static_cast<double>(n);
  return r;
}

struct V2Item {
  const SquadQuestion* q;  // last occurrence wins (dict semantics); q->id is the id
  bool has_ans;
};

double mean100(const core::HugeVector<double>& v, const core::HugeVector<size_t>& idx) {
  double s = 0;
  for (size_t i : idx) s += v[i];
  return 100.0 * s / static_cast<double>(idx.size());
}

// evaluate-v2.0.py find_best_thresh(preds, scores, na_probs, qid_to_has_ans).
void find_best_thresh(const core::HugeVector<V2Item>& items, const core::HugeVector<char>& scored,
                      const core::HugeVector<const std::string_view*>& pred_of,
                      const core::HugeVector<double>& raw, const SquadNaProbs& na,
                      const core::HugeVector<size_t>& order,
                      const core::HugeVector<size_t>& item_of, long n_scored, double& best_out,
                      double& thresh_out) {
  double num_no_ans = 0;
  for (const auto& it : items) num_no_ans += it.has_ans ? 0 : 1;
  double cur = num_no_ans, best = cur, best_thresh = 0.0;
  for (size_t k : order) {
    size_t i = item_of[k];
    if (i == SquadIdIndex::npos || !scored[i]) continue;  // "if qid not in scores: continue"
    double diff;
    if (items[i].has_ans) {
      diff = raw[i];
    } else {
      const std::string_view* pred = pred_of[i];
      diff = (!pred || !pred->empty()) ? -1 : 0;  // raw-string test: `if preds[qid]`
    }
    cur += diff;
    if (cur > best) {
      best = cur;
      best_thresh = na.probs[k];
    }
  }
  best_out = 100.0 * best / static_cast<double>(n_scored);
  thresh_out = best_thresh;
}

// evaluate-v2.0.py main().
SquadResult evaluate_v2(const SquadDataset& data, const SquadPredictions& preds,
                        const SquadNaProbs* na, const SquadOptions& opts) {
  SquadResult r;
  r.version = SquadVersion::kV2_0;
  // Unique question ids in first-seen order, last occurrence's content (Python dicts).
  core::HugeVector<V2Item> items;
  SquadIdIndex pos;
  pos.reserve(data.questions.size());
  items.reserve(data.questions.size());
  for (const auto& q : data.questions) {
    size_t k = pos.find(q.id, [&items](size_t j) { return items[j].q->id; });
    if (k == SquadIdIndex::npos) {
      pos.insert(q.id, items.size());
      items.push_back({&q, q.n_answers > 0});
    } else {
      items[k] = {&q, q.n_answers > 0};
    }
  }
  size_t n = items.size();
  if (n == 0) throw InputError(data.source, 0, "the data file has no questions");
  // get_raw_scores
  core::HugeVector<double> exact_raw(n, 0), f1_raw(n, 0);
  core::HugeVector<char> scored(n, 0);
  core::HugeVector<const std::string_view*> pred_of(n, nullptr);
  // Scored in parallel (each question independently); everything order-dependent below runs
  // sequentially.
  core::parallel_ranges(n, core::resolve_threads(opts.threads), [&](size_t begin, size_t end) {
    text::NormalizedAnswer p, g;
    size_t hint = begin;
    for (size_t i = begin; i < end; ++i) {
      const std::string_view* pred = preds.find_near(items[i].q->id, hint);
      if (!pred) continue;
      pred_of[i] = pred;
      scored[i] = 1;
      p.set(*pred);
      bool any_gold = false;
      int best_em = 0;
      double best_f1 = 0;
      SquadAnswers golds = data.answers(*items[i].q);
      for (const std::string_view* gold = golds.begin(); gold != golds.end(); ++gold) {
        if (std::find(golds.begin(), gold, *gold) != gold) continue;  // a repeat scores the same
        g.set(*gold);
        if (g.norm.empty()) continue;  // gold_answers = [a for a in answers if normalize_answer(a)]
        int em = g.norm == p.norm ? 1 : 0;
        double f = squad_token_f1(p.toks, g.toks, true);
        if (!any_gold || em > best_em) best_em = em;
        if (!any_gold || f > best_f1) best_f1 = f;
        any_gold = true;
      }
      if (!any_gold) {  // ['']: correct only for an empty (normalised) prediction
        best_em = p.norm.empty() ? 1 : 0;
        best_f1 = p.toks.empty() ? 1 : 0;
      }
      exact_raw[i] = best_em;
      f1_raw[i] = best_f1;
    }
  });
  for (size_t i = 0; i < n; ++i)
    if (!scored[i]) r.missing.emplace_back(items[i].q->id);
  if (!r.missing.empty() && !opts.allow_missing)
    throw InputError(preds.source, 0, missing_message(r.missing, n, preds.source));
  if (!r.missing.empty())
    for (size_t i = 0; i < n; ++i) scored[i] = 1;  // allow_missing: scored as 0
  // apply_no_ans_threshold
  core::HugeVector<double> exact_t(n), f1_t(n);
  size_t na_hint = 0;
  for (size_t i = 0; i < n; ++i) {
    double prob = 0.0;
    if (na) {
      size_t k = na->find_near(items[i].q->id, na_hint);
      if (k != SquadIdIndex::npos) {
        prob = na->probs[k];
      } else if (pred_of[i]) {
        throw InputError(na->source, 0,
                         "no na_prob for question '" + std::string(items[i].q->id) +
                             "' (evaluate-v2.0.py: KeyError)");
      }
    }
    bool pred_na = pred_of[i] && prob > opts.na_prob_thresh;
    exact_t[i] = pred_na ? (items[i].has_ans ? 0.0 : 1.0) : exact_raw[i];
    f1_t[i] = pred_na ? (items[i].has_ans ? 0.0 : 1.0) : f1_raw[i];
  }
  core::HugeVector<size_t> all, has, no;
  all.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (!scored[i]) continue;
    all.push_back(i);
  }
  for (size_t i = 0; i < n; ++i) (items[i].has_ans ? has : no).push_back(i);
  r.total = static_cast<long>(all.size());
  r.exact = mean100(exact_t, all);
  r.f1 = mean100(f1_t, all);
  if (!has.empty()) {
    r.has_ans_exact = mean100(exact_t, has);
    r.has_ans_f1 = mean100(f1_t, has);
    r.has_ans_total = static_cast<long>(has.size());
  }
  if (!no.empty()) {
    r.no_ans_exact = mean100(exact_t, no);
    r.no_ans_f1 = mean100(f1_t, no);
    r.no_ans_total = static_cast<long>(no.size());
  }
  if (na) {
    // sorted(na_probs, key=lambda k: na_probs[k]) (a stable sort), and each na-prob id's
    // question; shared by both searches.
    core::HugeVector<size_t> order(na->ids.size()), item_of(na->ids.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return na->probs[a] < na->probs[b]; });
    size_t hint = 0;
    for (size_t k = 0; k < na->ids.size(); ++k)
      item_of[k] = pos.find_near(na->ids[k], hint, [&items](size_t j) { return items[j].q->id; });
    double b, t;
    find_best_thresh(items, scored, pred_of, exact_raw, *na, order, item_of, r.total, b, t);
    r.best_exact = b;
    r.best_exact_thresh = t;
    find_best_thresh(items, scored, pred_of, f1_raw, *na, order, item_of, r.total, b, t);
    r.best_f1 = b;
    r.best_f1_thresh = t;
  }
  r.text = data.text;
  r.item_ids.reserve(all.size());
  for (size_t i : all) {
    r.item_ids.push_back(items[i].q->id);
    r.item_exact.push_back(exact_t[i]);
    r.item_f1.push_back(f1_t[i]);
  }
  return r;
}

}  // namespace

SquadResult evaluate_squad(const SquadDataset& data, const SquadPredictions& preds,
                           const SquadNaProbs* na_probs, const SquadOptions& opts) {
  SquadVersion v = resolve_squad_version(data, opts.version);
  SquadResult r = v == SquadVersion::kV2_0 ? evaluate_v2(data, preds, na_probs, opts)
                                           : evaluate_v1(data, preds, opts.threads);
  r.signature = opts.signature(v, na_probs != nullptr);
  return r;
}

nlohmann::ordered_json SquadResult::to_json() const {
  nlohmann::ordered_json j;
  if (version == SquadVersion::kV1_1) {
    j["exact_match"] = exact_match;
    j["f1"] = f1;
    return j;
  }
  j["exact"] = exact;
  j["f1"] = f1;
  j["total"] = total;
  if (has_ans_exact) {
    j["HasAns_exact"] = *has_ans_exact;
    j["HasAns_f1"] = *has_ans_f1;
    j["HasAns_total"] = has_ans_total;
  }
  if (no_ans_exact) {
    j["NoAns_exact"] = *no_ans_exact;
    j["NoAns_f1"] = *no_ans_f1;
    j["NoAns_total"] = no_ans_total;
  }
  if (best_exact) {
    j["best_exact"] = *best_exact;
    j["best_exact_thresh"] = *best_exact_thresh;
    j["best_f1"] = *best_f1;
    j["best_f1_thresh"] = *best_f1_thresh;
  }
  return j;
}

}  // namespace unieval::metrics
