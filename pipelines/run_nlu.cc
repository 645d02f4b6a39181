// Follows google-research/bert (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "pipelines/run_nlu.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>

#include "core/error.h"
#include "core/io.h"
#include "core/utf8.h"
#include "metrics/glue.h"
#include "models/decoding/vocab_limit.h"
#include "models/io/checkpoint.h"
#include "models/io/run_dir.h"
#include "models/nn/config.h"
#include "models/nn/device.h"
#include "models/tokenizer/wordpiece.h"
#include "models/training/nlu.h"
#include "models/training/seq2seq_data.h"
#include "pipelines/evaluate.h"
#include "pipelines/presets.h"
#include "pipelines/run_common.h"
#include "pipelines/run_driver.h"
#include "results/sha256.h"
#include "tasks/diagnostics.h"
#include "tasks/nlu_tasks.h"
#include "tasks/presets.h"
#include "tasks/task_spec.h"

namespace unieval::pipelines {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;
using models::NluFeature;
using models::NluHead;

void apply_nlu_preset(RunOptions& o, const tasks::Preset& p) {
  o.preset = p.name;
  o.finetune = models::TrainOptions{};
  o.finetune.label_smoothing = 0.0;
  // Strict over both structs' keys (and GPT's lm_coef): a misspelt key is an InputError.
  o.finetune.update_from_json(p.train, "preset " + p.name + " train", preset_train_keys(p));
  o.nlu.update_from_json(p.train, "preset " + p.name + " train", preset_train_keys(p));
  o.dropout = p.dropout;
  for (const auto& [k, v] : p.eval_options)
    if (!o.eval_options.count(k)) o.eval_options[k] = v;
}

namespace {

enum class Kind { kGlue, kSquad, kCoqa };

struct TaskShape {
  Kind kind = Kind::kGlue;
  NluHead head = NluHead::kClassify;
  int64_t num_labels = 2;
};

// The reader and BERT head of an understanding task (tasks/task_spec.h).
TaskShape task_shape(const std::string& task) {
  const tasks::TaskSpec& spec = tasks::run_task_spec(task);
  TaskShape t;
  t.num_labels = spec.num_labels;
  switch (spec.head) {
    case tasks::TaskHead::kRegress:
      t.kind = Kind::kGlue, t.head = NluHead::kRegress;
      break;
    case tasks::TaskHead::kSpanClass:
      t.kind = Kind::kCoqa, t.head = NluHead::kSpanClass;
      break;
    case tasks::TaskHead::kSpan:
      t.kind = Kind::kSquad, t.head = NluHead::kSpan;
      break;
    case tasks::TaskHead::kClassify:
      t.kind = Kind::kGlue, t.head = NluHead::kClassify;
      break;
    default:
      throw InputError("--task " + task + " has no BERT head (" + tasks::to_string(spec.head) +
                       ")");
  }
  return t;
}

// Token ids of a text (WordPiece).
std::vector<int32_t> encode(const models::WordPieceTokenizer& tok, const std::string& text) {
  std::vector<int32_t> ids;
  tok.encode_ids(text, &ids);
  return ids;
}

// ---- GLUE features ----

std::vector<NluFeature> glue_features(const tasks::GlueSplit& s,
                                      const models::WordPieceTokenizer& tok,
                                      const models::SpecialIds& sp, int max_len, bool need_labels) {
  std::vector<NluFeature> out;
  out.reserve(s.rows.size());
  for (const auto& r : s.rows) {
    if (need_labels && !r.has_label)
      throw InputError(s.file, r.line,
                       "row without a label (a test split cannot be trained on or scored)");
    std::vector<int32_t> a = encode(tok, r.a), b = encode(tok, r.b);
    const bool pair = s.pair;
    const size_t budget = static_cast<size_t>(std::max(0, max_len - (pair ? 3 : 2)));
    while (a.size() + b.size() > budget) (a.size() > b.size() ? a : b).pop_back();  // longest first
    NluFeature f;
    f.ids.push_back(static_cast<int32_t>(sp.cls));
    f.ids.insert(f.ids.end(), a.begin(), a.end());
    f.ids.push_back(static_cast<int32_t>(sp.sep));
    f.types.assign(f.ids.size(), 0);
    if (pair) {
      f.ids.insert(f.ids.end(), b.begin(), b.end());
      f.ids.push_back(static_cast<int32_t>(sp.sep));
      f.types.resize(f.ids.size(), 1);
    }
    if (s.regression())
      f.target = static_cast<float>(r.label);
    else
      f.label = static_cast<int64_t>(r.label);
    out.push_back(std::move(f));
  }
  return out;
}

// ---- QA features (SQuAD, CoQA) ----

struct TokDoc {
  std::vector<int32_t> ids;
  std::vector<int64_t> tok_to_word;
  std::vector<int64_t> word_to_tok;  // first token of each word (size words + 1: end sentinel)
};

TokDoc tokenize_doc(const models::WordPieceTokenizer& tok, const std::vector<std::string>& words) {
  TokDoc d;
  for (size_t w = 0; w < words.size(); ++w) {
    d.word_to_tok.push_back(static_cast<int64_t>(d.ids.size()));
    std::vector<int32_t> p = encode(tok, words[w]);
    for (int32_t id : p) {
      d.ids.push_back(id);
      d.tok_to_word.push_back(static_cast<int64_t>(w));
    }
  }
  d.word_to_tok.push_back(static_cast<int64_t>(d.ids.size()));
  return d;
}

struct QaItem {
  std::string question;
  size_t doc = 0;
  bool impossible = false;  // target the [CLS] span
  int64_t start_word = 0, end_word = 0;
  std::string answer_text;  // for _improve_answer_span ("" = keep the word span)
  int64_t label = 0;        // answer class (CoQA)
  bool trainable = true;    // false: skipped for training (answer not found at its offsets)
};

struct WindowMeta {
  size_t item = 0;
  int64_t doc_offset = 0;         // position of the window's first document token
  int64_t doc_start = 0;          // index of that token in the document
  std::vector<char> max_context;  // per window token
};

struct QaFeatures {
  std::vector<NluFeature> features;
  std::vector<WindowMeta> meta;
};

QaFeatures qa_features(const std::vector<QaItem>& items, const std::vector<TokDoc>& docs,
                       const models::WordPieceTokenizer& tok, const models::SpecialIds& sp,
                       const NluRunOptions& no, bool training, bool keep_last_query) {
  QaFeatures out;
  for (size_t it = 0; it < items.size(); ++it) {
    const QaItem& item = items[it];
    if (training && !item.trainable) continue;
    std::vector<int32_t> q = encode(tok, item.question);
    if (static_cast<int>(q.size()) > no.max_query_len) {
      if (keep_last_query)
        q.erase(q.begin(), q.end() - no.max_query_len);
      else
        q.resize(no.max_query_len);
    }
    const TokDoc& d = docs[item.doc];
    const int64_t n = static_cast<int64_t>(d.ids.size());
    // Answer tokens.
    int64_t tok_s = -1, tok_e = -1;
    if (training && !item.impossible) {
      tok_s = d.word_to_tok[item.start_word];
      tok_e = d.word_to_tok[item.end_word + 1] - 1;
      if (!item.answer_text.empty()) {
        std::vector<int32_t> at = encode(tok, item.answer_text);
        bool found = false;
        for (int64_t a = tok_s; a <= tok_e && !found; ++a)
          for (int64_t b = tok_e; b >= a && !found; --b)
            if (b - a + 1 == static_cast<int64_t>(at.size()) &&
                std::equal(at.begin(), at.end(), d.ids.begin() + a)) {
              tok_s = a;
              tok_e = b;
              found = true;
            }
      }
    }
    const int64_t max_doc = no.max_seq_len - static_cast<int64_t>(q.size()) - 3;
    if (max_doc < 1)
      throw InputError("--max-seq-len " + std::to_string(no.max_seq_len) +
                       " leaves no room for the document after a " + std::to_string(q.size()) +
                       "-token question");
    std::vector<std::pair<int64_t, int64_t>> spans;  // (start, length)
    for (int64_t start = 0;;) {
      const int64_t len = std::min(max_doc, n - start);
      spans.push_back({start, std::max<int64_t>(0, len)});
      if (start + len >= n) break;
      start += std::min<int64_t>(len, no.doc_stride);
    }
    for (size_t si = 0; si < spans.size(); ++si) {
      const auto [ds, dl] = spans[si];
      NluFeature f;
      WindowMeta m;
      m.item = it;
      f.ids.push_back(static_cast<int32_t>(sp.cls));
      f.ids.insert(f.ids.end(), q.begin(), q.end());
      f.ids.push_back(static_cast<int32_t>(sp.sep));
      f.types.assign(f.ids.size(), 0);
      m.doc_offset = static_cast<int64_t>(f.ids.size());
      m.doc_start = ds;
      m.max_context.assign(m.doc_offset, 0);
      for (int64_t i = 0; i < dl; ++i) {
        const int64_t pos = ds + i;
        f.ids.push_back(d.ids[pos]);
        f.types.push_back(1);
        // _check_is_max_context: the window with the largest min(left, right) + 0.01 * length.
        double best = -1;
        size_t best_span = 0;
        for (size_t sj = 0; sj < spans.size(); ++sj) {
          const auto [s2, l2] = spans[sj];
          if (pos < s2 || pos > s2 + l2 - 1) continue;
          const double score = std::min(pos - s2, s2 + l2 - 1 - pos) + 0.01 * double(l2);
          if (score > best) best = score, best_span = sj;
        }
        m.max_context.push_back(best_span == si ? 1 : 0);
      }
      f.ids.push_back(static_cast<int32_t>(sp.sep));
      f.types.push_back(1);
      m.max_context.push_back(0);
      f.label = item.label;
      if (training && !item.impossible && tok_s >= ds && tok_e <= ds + dl - 1) {
        f.start = tok_s - ds + m.doc_offset;
        f.end = tok_e - ds + m.doc_offset;
      } else {
        f.start = f.end = 0;
      }
      out.features.push_back(std::move(f));
      out.meta.push_back(std::move(m));
    }
  }
  return out;
}

struct QaAnswer {
  int64_t tok_start = -1, tok_end = -1;  // best span in document tokens (-1: no candidate)
  double best_score = -std::numeric_limits<double>::infinity();
  double null_score = std::numeric_limits<double>::infinity();
  std::vector<double> class_prob;  // summed softmax of the class head (CoQA)
};

std::vector<QaAnswer> decode_qa(const std::vector<QaItem>& items, const QaFeatures& qf,
                                const std::vector<models::NluPrediction>& preds,
                                const NluRunOptions& no) {
  std::vector<QaAnswer> out(items.size());
  for (size_t fi = 0; fi < qf.features.size(); ++fi) {
    const WindowMeta& m = qf.meta[fi];
    const models::NluPrediction& p = preds[fi];
    QaAnswer& a = out[m.item];
    a.null_score = std::min(a.null_score, models::null_score(p));
    if (!p.logits.empty()) {
      double mx = *std::max_element(p.logits.begin(), p.logits.end()), z = 0;
      for (float l : p.logits) z += std::exp(double(l) - mx);
      if (a.class_prob.empty()) a.class_prob.assign(p.logits.size(), 0.0);
      for (size_t c = 0; c < p.logits.size(); ++c)
        a.class_prob[c] += std::exp(double(p.logits[c]) - mx) / z;
    }
    // p holds the padding positions too (run_squad's n-best ranks them; never allowed).
    std::vector<char> allowed_end(p.start.size(), 0);
    const size_t len = qf.features[fi].ids.size();
    for (size_t i = static_cast<size_t>(m.doc_offset); i + 1 < len; ++i) allowed_end[i] = 1;
    std::vector<char> allowed_start = allowed_end;
    for (size_t i = 0; i < allowed_start.size(); ++i)
      allowed_start[i] = allowed_start[i] && m.max_context[i];
    auto c = models::best_spans(p.start, p.end, allowed_start, allowed_end, no.n_best,
                                no.max_answer_len);
    if (!c.empty() && c.front().score > a.best_score) {
      a.best_score = c.front().score;
      // Window positions -> document tokens (words: span_words).
      a.tok_start = c.front().start - m.doc_offset + m.doc_start;
      a.tok_end = c.front().end - m.doc_offset + m.doc_start;
    }
  }
  return out;
}

// The original whitespace words a token span covers, joined by one space.
}  // namespace

std::string bert_final_text(const std::string& pred_text, const std::string& orig_text,
                            const models::WordPieceTokenizer& tok) {
  // Strings as code points (Python str), and the text without spaces with the map back.
  auto code_points = [](const std::string& s) {
    std::u32string out;
    for (size_t i = 0; i < s.size();) out.push_back(core::next_code_point(s, i));
    return out;
  };
  auto strip_spaces = [](const std::u32string& s, std::vector<size_t>& ns_to_s) {
    std::u32string ns;
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i] != U' ') {
        ns_to_s.push_back(i);
        ns.push_back(s[i]);
      }
    return ns;
  };
  std::string basic;
  for (const auto& t : tok.basic_tokenize(orig_text)) basic += (basic.empty() ? "" : " ") + t;
  const std::u32string tok_text = code_points(basic), pred = code_points(pred_text),
                       orig = code_points(orig_text);
  const size_t start = tok_text.find(pred);
  if (pred.empty() || start == std::u32string::npos) return orig_text;
  const size_t end = start + pred.size() - 1;
  std::vector<size_t> orig_ns_to_s, tok_ns_to_s;
  const std::u32string orig_ns = strip_spaces(orig, orig_ns_to_s),
                       tok_ns = strip_spaces(tok_text, tok_ns_to_s);
  if (orig_ns.size() != tok_ns.size())
    return orig_text;  // lower-casing / accent stripping changed lengths
  std::map<size_t, size_t> tok_s_to_ns;
  for (size_t i = 0; i < tok_ns_to_s.size(); ++i) tok_s_to_ns[tok_ns_to_s[i]] = i;
  auto it_s = tok_s_to_ns.find(start), it_e = tok_s_to_ns.find(end);
  if (it_s == tok_s_to_ns.end() || it_e == tok_s_to_ns.end()) return orig_text;
  const size_t os = orig_ns_to_s[it_s->second], oe = orig_ns_to_s[it_e->second];
  std::string out;
  for (size_t i = os; i <= oe; ++i) core::append_utf8(out, orig[i]);
  return out;
}

SquadNoSpan squad_no_span(const std::string& task) {
  const tasks::TaskSpec* t = tasks::find_run_task(task);
  if (t && t->no_answer) return {"", kSquadNoSpanScoreDiff};
  return {"empty", 0.0};
}

std::string bert_pred_text(const std::vector<std::string>& pieces) {
  // run_squad.py write_predictions: " ".join(tok_tokens), then replace(" ##", ""), then
  // replace("##", "") (every remaining "##", so a span starting at "##man" reads "man"), then
  // strip() and " ".join(split()).
  std::string t;
  for (size_t i = 0; i < pieces.size(); ++i) t += (i ? " " : "") + pieces[i];
  auto replace_all = [](std::string& s, const std::string& from) {
    std::string out;
    for (size_t i = 0; i < s.size();) {
      if (s.compare(i, from.size(), from) == 0)
        i += from.size();
      else
        out.push_back(s[i++]);
    }
    s.swap(out);
  };
  replace_all(t, " ##");
  replace_all(t, "##");
  std::string out, word;
  std::istringstream in(t);
  while (in >> word) out += (out.empty() ? "" : " ") + word;
  return out;
}

namespace {

// The answer text of a predicted span: the whitespace words it covers, trimmed inside the first
// and last word to the predicted pieces as BERT's get_final_text does ("1990s" -> "1990").
std::string span_words(const QaAnswer& a, const TokDoc& d, const std::vector<std::string>& words,
                       const models::WordPieceTokenizer& tok) {
  if (a.tok_start < 0) return "";
  const int64_t ws = d.tok_to_word.at(a.tok_start), we = d.tok_to_word.at(a.tok_end);
  std::string s;
  for (int64_t w = ws; w <= we; ++w) s += (s.empty() ? "" : " ") + words[w];
  std::vector<std::string> pieces;
  for (int64_t t = a.tok_start; t <= a.tok_end; ++t)
    pieces.push_back(tok.vocab().token(d.ids.at(t)));
  return bert_final_text(bert_pred_text(pieces), s, tok);
}

// A split read for one of the three task families.
struct NluData {
  Kind kind = Kind::kGlue;
  std::optional<tasks::GlueSplit> glue;
  std::optional<tasks::SquadSplit> squad;
  std::optional<tasks::CoqaSplit> coqa;
  std::string file() const { return glue ? glue->file : squad ? squad->file : coqa->file; }
  std::string reader() const { return glue ? glue->reader : squad ? squad->reader : coqa->reader; }
  size_t size() const {
    return glue ? glue->rows.size() : squad ? squad->questions.size() : coqa->turns.size();
  }
  std::string gold_text() const {
    return glue ? tasks::glue_gold_text(*glue) : squad ? squad->gold_json : coqa->gold_json;
  }
  std::string gold_name() const { return glue ? "gold.tsv" : "gold.json"; }
};

NluData read_nlu(const std::string& task, const std::string& data, const std::string& split,
                 const NluRunOptions& no) {
  NluData d;
  d.kind = task_shape(task).kind;
  const tasks::SplitSpec spec = tasks::parse_split_spec(split);
  if (d.kind == Kind::kGlue)
    d.glue = tasks::read_glue_split(task, data, spec);
  else if (d.kind == Kind::kSquad)
    d.squad = tasks::read_squad_split(task, data, spec);
  else
    d.coqa = tasks::read_coqa_split(data, spec, no.history_turns);
  return d;
}

// Items and tokenised documents of a QA split.
struct QaSplit {
  std::vector<QaItem> items;
  std::vector<TokDoc> docs;
  const std::vector<tasks::SquadContext>* contexts = nullptr;
  std::vector<std::string> ids;  // question ids (SQuAD)
};

QaSplit qa_split(const NluData& d, const models::WordPieceTokenizer& tok) {
  QaSplit q;
  if (d.squad) {
    q.contexts = &d.squad->contexts;
    std::vector<char> used(d.squad->contexts.size(), 0);
    for (const auto& x : d.squad->questions) {
      QaItem it;
      it.question = x.question;
      it.doc = x.context;
      used[x.context] = 1;
      it.impossible = x.impossible || x.answers.empty();
      if (!it.impossible) {
        it.start_word = x.answers[0].start_word;
        it.end_word = x.answers[0].end_word;
        it.answer_text = x.answers[0].text;
        it.trainable = x.answers[0].aligned;
      }
      q.items.push_back(std::move(it));
      q.ids.push_back(x.id);
    }
    for (size_t c = 0; c < d.squad->contexts.size(); ++c)
      q.docs.push_back(used[c] ? tokenize_doc(tok, d.squad->contexts[c].words) : TokDoc{});
  } else {
    q.contexts = &d.coqa->stories;
    std::vector<char> used(d.coqa->stories.size(), 0);
    for (const auto& t : d.coqa->turns) {
      QaItem it;
      it.question = t.question;
      it.doc = t.story;
      used[t.story] = 1;
      it.label = static_cast<int64_t>(t.kind);
      it.impossible = t.kind == tasks::CoqaAnswerKind::kUnknown;
      it.start_word = t.start_word;
      it.end_word = t.end_word;
      q.items.push_back(std::move(it));
    }
    for (size_t c = 0; c < d.coqa->stories.size(); ++c)
      q.docs.push_back(used[c] ? tokenize_doc(tok, d.coqa->stories[c].words) : TokDoc{});
  }
  return q;
}

struct Model {
  models::BertConfig cfg;
  std::string config_path;
  std::string vocab_path;
  std::string weights;  // checkpoint weights ("" = from scratch)
};

// SQuAD predictions of one split: best-span answers, score diffs.
struct SquadPreds {
  std::vector<std::pair<std::string, std::string>> answers;  // best non-null span per question
  std::vector<std::pair<std::string, double>> diffs;         // null score - best span score
};

SquadPreds squad_preds(const QaSplit& q, const std::vector<QaAnswer>& ans,
                       const models::WordPieceTokenizer& tok, const std::string& task) {
  SquadPreds s;
  const SquadNoSpan none = squad_no_span(task);
  for (size_t i = 0; i < q.items.size(); ++i) {
    if (ans[i].tok_start < 0) {  // no valid span in any window
      s.answers.emplace_back(q.ids[i], none.text);
      s.diffs.emplace_back(q.ids[i], none.score_diff);
      continue;
    }
    const std::string text =
        span_words(ans[i], q.docs[q.items[i].doc], (*q.contexts)[q.items[i].doc].words, tok);
    s.answers.emplace_back(q.ids[i], text);
    s.diffs.emplace_back(q.ids[i], ans[i].null_score - ans[i].best_score);
  }
  return s;
}

// The first `n` words of a context, joined by one space.
std::string first_words(const std::vector<std::string>& words, int64_t n) {
  std::string s;
  for (size_t i = 0; i < words.size() && static_cast<int64_t>(i) < n; ++i)
    s += (i ? " " : "") + words[i];
  return s;
}

// The understanding tasks' baselines (pipelines/run_nlu.h), written in the official prediction
// format under RUN/baselines/NAME/: GLUE "majority" (the most frequent training label, ties: the
// first to occur; STS-B: the mean training score), SQuAD/CoQA "first-window" (the first L words of
// each question's context, L = the median word count of the training answers; squad-v2: never
// no-answer, scored without the model's na_prob file).
std::vector<BaselinePred> nlu_baselines(const NluData& train, const NluData& eval,
                                        const fs::path& run,
                                        const std::map<std::string, std::string>& model_options) {
  std::vector<BaselinePred> out;
  auto write = [&](const std::string& name, const std::string& file, const std::string& text) {
    const fs::path dir = run / "baselines" / name;
    fs::create_directories(dir);
    core::write_file_atomic((dir / file).string(), text);
    return (dir / file).string();
  };
  if (eval.glue) {
    const GlueMajority g = glue_majority(*train.glue, *eval.glue);
    const double value = g.value;
    const std::string& description = g.description;
    const std::vector<double> p(eval.glue->rows.size(), value);
    out.push_back({"majority", description,
                   write("majority", "pred.tsv", tasks::glue_predictions_text(*eval.glue, p)),
                   std::nullopt});
    return out;
  }
  std::vector<int64_t> lengths;
  if (train.squad) {
    for (const auto& q : train.squad->questions)
      if (!q.impossible && !q.answers.empty())
        lengths.push_back(static_cast<int64_t>(tasks::whitespace_words(q.answers[0].text).size()));
  } else {
    for (const auto& t : train.coqa->turns)
      lengths.push_back(static_cast<int64_t>(tasks::whitespace_words(t.answer).size()));
  }
  const int64_t l = std::max<int64_t>(1, rounded_median(lengths));
  const std::string description =
      "the first " + std::to_string(l) +
      " words of each question's context (the median word count of the " +
      std::to_string(lengths.size()) + " training answers, rounded)" +
      (eval.squad && tasks::run_task_spec(eval.squad->task).no_answer ? "; never no-answer" : "");
  std::string text;
  if (eval.squad) {
    std::vector<std::pair<std::string, std::string>> answers;
    for (const auto& q : eval.squad->questions)
      answers.emplace_back(q.id, first_words(eval.squad->contexts[q.context].words, l));
    text = tasks::squad_predictions_json(answers);
  } else {
    std::vector<std::string> answers;
    for (const auto& t : eval.coqa->turns)
      answers.push_back(first_words(eval.coqa->stories[t.story].words, l));
    text = tasks::coqa_predictions_json(eval.coqa->turns, answers);
  }
  // The model's squad-v2 no-answer probabilities and threshold are not the baseline's.
  std::map<std::string, std::string> options = model_options;
  options.erase("na_prob_file");
  options.erase("na_prob_thresh");
  out.push_back(
      {"first-window", description, write("first-window", "predictions.json", text), options});
  return out;
}

}  // namespace

namespace {

// The understanding family (pipelines/run_nlu.h): a BERT head fine-tuned on GLUE, SQuAD or CoQA,
// its predictions in the official formats, and the majority / first-window baselines.
class NluStages : public RunStages {
 public:
  explicit NluStages(const RunOptions& o)
      : o_(o), no_(o.nlu), shape_(task_shape(o.task)), rt_(models::configure_runtime(o.device)) {
    // The split the SQuAD 2.0 threshold is tuned on: an explicit --dev-split only.
    dev_split_ = o.dev_split == "auto" || o.dev_split == "none" ? "" : o.dev_split;
    if (!tasks::run_task_spec(o.task).no_answer) dev_split_.clear();
    if (!(no_.token_dropout >= 0.0 && no_.token_dropout < 1.0))
      throw InputError("--token-dropout must be in [0, 1), got " +
                       std::to_string(no_.token_dropout));
    if (!(std::isfinite(no_.mlm_aux) && no_.mlm_aux >= 0.0))
      throw InputError("--mlm-aux must be a finite weight >= 0, got " +
                       std::to_string(no_.mlm_aux));
    request_ = run_request(o);
    request_.erase("decode");
    request_.erase("decode_batch");
    request_.erase("max_src_words");
    request_["dev_split"] = dev_split_;
    request_["eval_split"] = o.eval_split;
    request_["nlu"] = no_.to_json();
    system_ =
        !o.system.empty() ? o.system : "unieval-run:" + (o.preset.empty() ? o.task : o.preset);
  }
  const ojson& request() const override { return request_; }

  DataManifest read() override {
    auto limited = [](NluData d, int64_t limit) {
      if (limit <= 0) return d;
      const size_t n = static_cast<size_t>(limit);
      if (d.glue && d.glue->rows.size() > n) d.glue->rows.resize(n), d.glue->raw.resize(n);
      if (d.squad && d.squad->questions.size() > n) d.squad->questions.resize(n);
      if (d.coqa && d.coqa->turns.size() > n) d.coqa->turns.resize(n);
      return d;
    };
    if (o_.eval_limit > 0 && shape_.kind != Kind::kGlue)
      throw InputError("--eval-limit: use a sliced --eval-split (e.g. dev[:100]) for squad/coqa");
    train_ = limited(read_nlu(o_.task, o_.data, o_.train_split, no_), o_.train_limit);
    eval_ = limited(read_nlu(o_.task, o_.data, o_.eval_split, no_), o_.eval_limit);
    if (!dev_split_.empty()) dev_ = read_nlu(o_.task, o_.data, dev_split_, no_);
    if (train_.size() == 0)
      throw InputError(train_.file(), 0, "no training examples in split " + o_.train_split);
    if (eval_.size() == 0)
      throw InputError(eval_.file(), 0, "no examples in eval split " + o_.eval_split);
    if (eval_.glue)
      for (const auto& r : eval_.glue->rows)
        if (!r.has_label)
          throw InputError(eval_.glue->file, r.line,
                           "row without a label: the eval split must have gold labels");
    read_model();
    DataManifest m;
    m.files = {train_.file(), eval_.file()};
    if (dev_) m.files.push_back(dev_->file());
    m.reader = "train: " + train_.reader() + "; eval: " + eval_.reader() +
               (dev_ ? "; dev: " + dev_->reader() : "");
    m.train_examples = static_cast<int64_t>(train_.size());
    m.dev_examples = dev_ ? static_cast<int64_t>(dev_->size()) : 0;
    m.eval_examples = static_cast<int64_t>(eval_.size());
    m.dev_split = dev_split_;
    return m;
  }

  void write_splits(const RunPaths& paths) override { fs::create_directories(paths.eval); }

  void write_references(const RunPaths& paths, bool writer) override {
    gold_path_ = (paths.eval / eval_.gold_name()).string();
    if (dev_) dev_gold_path_ = (paths.eval / ("dev_" + dev_->gold_name())).string();
    if (!writer) return;
    core::write_file_atomic(gold_path_, eval_.gold_text());
    if (dev_) core::write_file_atomic(dev_gold_path_, dev_->gold_text());
  }

  bool train(const RunPaths&) override {
    std::vector<NluFeature> features;
    if (train_.glue) {
      features = glue_features(*train_.glue, tok(), sp_, no_.max_seq_len, true);
    } else {
      QaSplit q = qa_split(train_, tok());
      features = qa_features(q.items, q.docs, tok(), sp_, no_, true, keep_last_query()).features;
    }
    const models::Runtime& rt = rt_;
    models::RunDir rd(o_.out);
    models::TrainOptions topt = o_.finetune;
    topt.stop_after = o_.stop_after;
    topt.progress = o_.progress;
    models::UnilmModel model(m_.cfg,
                             models::nlu_heads(shape_.head, shape_.num_labels, no_.mlm_aux > 0.0));
    const bool resume = rd.has_checkpoint();
    torch::manual_seed(topt.seed);
    model->init_weights();
    if (!resume) {
      if (!m_.weights.empty()) {
        models::LoadReport report = models::load_weights(*model, m_.weights);
        if (report.loaded == 0)
          throw InputError(m_.weights, 0, "no parameter of the model was found in the checkpoint");
        const std::string s = report.summary();
        if (!s.empty() && o_.progress) std::cerr << s << "\n";
      }
      ojson info;
      info["kind"] = "unilm-nlu";
      info["task"] = o_.task;
      info["head"] = models::to_string(shape_.head);
      info["num_labels"] = shape_.num_labels;
      info["preset"] = o_.preset;
      info["data"] = abs_path(o_.data);
      info["model"] = o_.model.empty() ? std::string("(from scratch)") : abs_path(o_.model);
      info["lowercase"] = o_.lowercase;
      info["train"] = topt.to_json();
      info["nlu"] = no_.to_json();
      info["examples"] = train_.size();
      info["features"] = features.size();
      info["runtime"] = rt.describe();
      if (writer_) rd.create(info, m_.cfg, core::read_file(m_.vocab_path));
    } else if (o_.progress) {
      std::cerr << "run: resuming training from " << rd.checkpoint_dir() << "\n";
    }
    model->to(rt.device);
    models::AutocastScope amp(rt);
    models::TokenDropout td;
    td.prob = no_.token_dropout;
    td.replacement = sp_.mask;
    td.keep = {sp_.cls, sp_.sep, sp_.pad};
    models::MlmAux aux;
    aux.weight = no_.mlm_aux;
    aux.ids = sp_;
    aux.keep = {sp_.cls, sp_.sep, sp_.pad};
    return models::train_nlu(model, features, shape_.head, topt, &rd, resume, sp_.pad, td, aux)
        .finished;
  }

  std::string predict(const RunPaths& paths, const RunRanks& ranks) override {
    if (!ranks.writer()) return "";  // rank 0 predicts
    const models::Runtime& rt = rt_;
    models::UnilmModel model(m_.cfg, models::nlu_heads(shape_.head, shape_.num_labels));
    models::load_model_weights(model,
                               (paths.run / "checkpoint" / models::kRunWeightsFile).string());
    model->to(rt.device);
    model->eval();
    models::PredictOptions popt;
    popt.batch_size = no_.predict_batch;
    popt.batch_tokens = no_.predict_batch * static_cast<int64_t>(no_.max_seq_len);
    popt.pad_id = sp_.pad;
    // QA windows padded to max_seq_len as run_squad feeds them: its n-best counts the padding.
    if (shape_.kind != Kind::kGlue) popt.pad_to = no_.max_seq_len;
    popt.progress = o_.progress;
    const auto t_pred = std::chrono::steady_clock::now();
    models::AutocastScope amp(rt);
    if (eval_.glue) {
      const std::vector<NluFeature> features =
          glue_features(*eval_.glue, tok(), sp_, no_.max_seq_len, true);
      eval_features_ = features.size();
      eval_preds_ = models::predict_nlu(model, features, shape_.head, popt);
    } else {
      eval_qa_ = qa_split(eval_, tok());
      eval_qf_ =
          qa_features(eval_qa_.items, eval_qa_.docs, tok(), sp_, no_, false, keep_last_query());
      eval_features_ = eval_qf_.features.size();
      eval_preds_ = models::predict_nlu(model, eval_qf_.features, shape_.head, popt);
      if (dev_) {
        dev_qa_ = qa_split(*dev_, tok());
        dev_qf_ =
            qa_features(dev_qa_.items, dev_qa_.docs, tok(), sp_, no_, false, keep_last_query());
        dev_preds_ = models::predict_nlu(model, dev_qf_.features, shape_.head, popt);
      }
    }
    predict_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_pred).count();
    return "predict";
  }

  results::RunResult score(const RunPaths& paths, ojson& info) override {
    eopts_ = o_.eval_options;
    ojson extra_run;
    std::vector<std::string> notes;
    if (eval_.glue)
      write_glue_predictions(paths);
    else if (eval_.squad)
      write_squad_predictions(paths, extra_run, notes);
    else
      write_coqa_predictions(paths);
    results::RunResult r =
        score_predictions(o_.task, gold_path_, pred_path_, o_.eval_split, eopts_, system_);
    for (const auto& n : notes) r.notes.push_back(n);
    info["eval_features"] = eval_features_;
    info["head"] = models::to_string(shape_.head);
    info["predictions_sha256"] = results::sha256_file(pred_path_);
    info["predict_s"] = predict_s_;
    info["predict_examples_per_s"] = predict_s_ > 0 ? double(eval_.size()) / predict_s_ : 0.0;
    for (auto it = extra_run.begin(); it != extra_run.end(); ++it) info[it.key()] = it.value();
    return r;
  }

  void baselines(const RunPaths& paths, results::RunResult& r) override {
    tasks::EvalRequest breq;
    breq.task = o_.task;
    breq.data = gold_path_;
    breq.pred = pred_path_;
    breq.split = o_.eval_split;
    breq.options = eopts_;
    breq.system = system_;
    breq.bootstrap = kBaselineResamples;
    breq.seed = o_.finetune.seed;
    r.extra["baselines"] =
        evaluate_baselines(breq, nlu_baselines(train_, eval_, paths.run, eopts_));
    for (auto& w : baseline_warnings(r)) r.notes.push_back(std::move(w));
  }

  std::string model_weights() const override { return m_.weights; }
  void set_writer(bool writer) { writer_ = writer; }

 private:
  // The checkpoint's (or --model-config's) files, checked against the vocabulary and the options.
  void read_model() {
    if (!o_.model.empty()) {
      models::CheckpointFiles files = models::locate_checkpoint(o_.model);
      m_.cfg = models::BertConfig::from_json_file(files.config);
      m_.config_path = files.config;
      m_.weights = files.weights;
      m_.vocab_path = !o_.vocab.empty() ? o_.vocab : files.vocab;
      if (m_.vocab_path.empty())
        throw InputError(o_.model, 0, "no vocab.txt in the checkpoint (give --vocab)");
    } else {
      m_.cfg = models::BertConfig::from_json_file(o_.model_config);
      m_.config_path = o_.model_config;
      m_.vocab_path = o_.vocab;
      if (!fs::exists(m_.vocab_path)) throw InputError(m_.vocab_path, 0, "no such file");
    }
    models::check_vocab_fits(static_cast<int64_t>(models::Vocab::from_file(m_.vocab_path).size()),
                             m_.vocab_path, m_.cfg.vocab_size, m_.config_path);
    if (no_.max_seq_len > m_.cfg.max_position_embeddings)
      throw InputError("--max-seq-len " + std::to_string(no_.max_seq_len) +
                       " exceeds the model's max_position_embeddings (" +
                       std::to_string(m_.cfg.max_position_embeddings) + ")");
    if (o_.dropout) m_.cfg.hidden_dropout_prob = m_.cfg.attention_probs_dropout_prob = *o_.dropout;
    if (no_.classifier_dropout) m_.cfg.classifier_dropout = *no_.classifier_dropout;
    m_.cfg.validate("model config");
    tok_.emplace(models::WordPieceTokenizer::from_file(
        m_.vocab_path, models::TokenizerOptions::bert(o_.lowercase)));
    sp_ = models::special_ids(tok_->vocab(), m_.vocab_path);
  }

  const models::WordPieceTokenizer& tok() const { return *tok_; }
  bool keep_last_query() const { return shape_.kind == Kind::kCoqa; }

  void write_glue_predictions(const RunPaths& paths) {
    std::vector<double> p;
    for (const auto& x : eval_preds_) {
      if (shape_.head == NluHead::kRegress)
        p.push_back(x.logits.at(0));
      else
        p.push_back(static_cast<double>(std::max_element(x.logits.begin(), x.logits.end()) -
                                        x.logits.begin()));
    }
    pred_path_ = (paths.eval / "pred.tsv").string();
    core::write_file_atomic(pred_path_, tasks::glue_predictions_text(*eval_.glue, p));
  }

  void write_squad_predictions(const RunPaths& paths, ojson& extra_run,
                               std::vector<std::string>& notes);

  void write_coqa_predictions(const RunPaths& paths) {
    std::vector<QaAnswer> ans = decode_qa(eval_qa_.items, eval_qf_, eval_preds_, no_);
    std::vector<std::string> texts;
    for (size_t i = 0; i < ans.size(); ++i) {
      const auto& cp = ans[i].class_prob;
      const size_t cls =
          cp.empty() ? 0 : static_cast<size_t>(std::max_element(cp.begin(), cp.end()) - cp.begin());
      if (cls != 0) {
        texts.push_back(tasks::coqa_answer_text(static_cast<tasks::CoqaAnswerKind>(cls)));
      } else {
        const auto& item = eval_qa_.items[i];
        texts.push_back(span_words(ans[i], eval_qa_.docs[item.doc],
                                   (*eval_qa_.contexts)[item.doc].words, tok()));
      }
    }
    pred_path_ = (paths.eval / "predictions.json").string();
    core::write_file_atomic(pred_path_, tasks::coqa_predictions_json(eval_.coqa->turns, texts));
  }

  const RunOptions& o_;
  const NluRunOptions& no_;
  const TaskShape shape_;
  const models::Runtime rt_;
  std::string dev_split_;
  ojson request_;
  std::string system_;
  bool writer_ = true;
  NluData train_, eval_;
  std::optional<NluData> dev_;
  Model m_;
  std::optional<models::WordPieceTokenizer> tok_;
  models::SpecialIds sp_;
  std::string gold_path_, dev_gold_path_, pred_path_;
  std::map<std::string, std::string> eopts_;
  QaSplit eval_qa_, dev_qa_;
  QaFeatures eval_qf_, dev_qf_;
  std::vector<models::NluPrediction> eval_preds_, dev_preds_;
  size_t eval_features_ = 0;
  double predict_s_ = 0;
};

// SQuAD's predictions.json; for SQuAD 2.0 also na_prob.json and the no-answer threshold: fixed
// by --na-threshold, else the official best_f1_thresh on the tuning split (--dev-split, else the
// eval split itself, as BERT's run_squad with evaluate-v2.0).
void NluStages::write_squad_predictions(const RunPaths& paths, ojson& extra_run,
                                        std::vector<std::string>& notes) {
  const fs::path& eval_dir = paths.eval;
  SquadPreds sp_eval =
      squad_preds(eval_qa_, decode_qa(eval_qa_.items, eval_qf_, eval_preds_, no_), tok(), o_.task);
  if (!tasks::run_task_spec(o_.task).no_answer) {
    pred_path_ = (eval_dir / "predictions.json").string();
    core::write_file_atomic(pred_path_, tasks::squad_predictions_json(sp_eval.answers));
    return;
  }
  const std::string na_path = (eval_dir / "na_prob.json").string();
  core::write_file_atomic(na_path, tasks::squad_na_probs_json(sp_eval.diffs));
  double thresh = 0.0;
  std::string thresh_split;
  if (no_.na_threshold) {
    thresh = *no_.na_threshold;
    thresh_split = "(fixed by --na-threshold)";
  } else {
    // Tune: the official best_f1_thresh over best-span predictions on the tuning split.
    const SquadPreds* tune = &sp_eval;
    SquadPreds sp_dev;
    std::string tune_gold = gold_path_;
    std::string tune_name = "eval";
    if (dev_) {
      sp_dev =
          squad_preds(dev_qa_, decode_qa(dev_qa_.items, dev_qf_, dev_preds_, no_), tok(), o_.task);
      tune = &sp_dev;
      tune_gold = dev_gold_path_;
      tune_name = "dev";
    }
    const std::string tp = (eval_dir / (tune_name + "_best_span.json")).string();
    const std::string tn = (eval_dir / (tune_name + "_na_prob_tune.json")).string();
    core::write_file_atomic(tp, tasks::squad_predictions_json(tune->answers));
    core::write_file_atomic(tn, tasks::squad_na_probs_json(tune->diffs));
    results::RunResult tr = score_predictions(
        o_.task, tune_gold, tp, dev_ ? dev_split_ : o_.eval_split, {{"na_prob_file", tn}}, system_);
    const results::Score* bt = tr.score("best_f1_thresh");
    if (!bt)
      throw InputError(tune_gold, 0, "the official script gave no best_f1_thresh (no questions?)");
    thresh = bt->value;
    thresh_split =
        dev_ ? dev_split_
             : o_.eval_split +
                   " (the eval split itself, as BERT run_squad / evaluate-v2.0 best_f1_thresh)";
    extra_run["na_threshold_tuning"] = {
        {"split", dev_ ? dev_split_ : o_.eval_split},
        {"best_f1", tr.score("best_f1") ? tr.score("best_f1")->value : 0.0},
        {"best_exact", tr.score("best_exact") ? tr.score("best_exact")->value : 0.0}};
  }
  std::vector<std::pair<std::string, std::string>> final_answers;
  for (size_t i = 0; i < sp_eval.answers.size(); ++i)
    final_answers.emplace_back(sp_eval.answers[i].first,
                               sp_eval.diffs[i].second > thresh ? "" : sp_eval.answers[i].second);
  pred_path_ = (eval_dir / "predictions.json").string();
  core::write_file_atomic(pred_path_, tasks::squad_predictions_json(final_answers));
  eopts_["na_prob_file"] = na_path;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", thresh);
  eopts_["na_prob_thresh"] = buf;
  extra_run["na_threshold"] = thresh;
  extra_run["na_threshold_split"] = thresh_split;
  notes.push_back(std::string("no-answer threshold ") + buf +
                  " on score_diff (null - best span), chosen on " + thresh_split);
}

}  // namespace

RunOutcome run_nlu_task(const RunOptions& in) {
  const auto t_start = std::chrono::steady_clock::now();
  RunOptions o = in;
  check_run_sources(o);
  if (o.eval_split.empty()) o.eval_split = tasks::run_task_spec(o.task).default_eval_split;
  const NluRunOptions& no = o.nlu;
  if (no.max_seq_len < 8) throw InputError("--max-seq-len must be at least 8");
  if (no.doc_stride < 1 || no.max_query_len < 1 || no.max_answer_len < 1 || no.n_best < 1)
    throw InputError(
        "--doc-stride, --max-query-len, --max-answer-len and --n-best must be at least 1");
  if (no.predict_batch < 1) throw InputError("--predict-batch must be at least 1");
  if (o.finetune.length_groups < 1) throw InputError("--length-groups must be at least 1");
  const RunRanks ranks =
      join_run_ranks(o);  // data parallel: rank 0 writes RUN, predicts and scores
  NluStages family(o);
  family.set_writer(ranks.writer());
  return drive_run(family, o, ranks, t_start);
}

}  // namespace unieval::pipelines
