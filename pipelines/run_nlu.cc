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
#include "models/checkpoint.h"
#include "models/config.h"
#include "models/device.h"
#include "models/nlu.h"
#include "models/run_dir.h"
#include "models/seq2seq_data.h"
#include "models/tokenizer/wordpiece.h"
#include "models/vocab_limit.h"
#include "pipelines/evaluate.h"
#include "pipelines/presets.h"
#include "pipelines/run_common.h"
#include "results/sha256.h"
#include "tasks/diagnostics.h"
#include "tasks/nlu_tasks.h"
#include "tasks/presets.h"

namespace unieval::pipelines {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;
using models::NluFeature;
using models::NluHead;

void apply_nlu_preset(RunOptions& o, const tasks::Preset& p) {
  o.preset = p.name;
  o.finetune = models::TrainOptions{};
  o.finetune.label_smoothing = 0.0;
  o.finetune.update_from_json(p.train, "preset " + p.name);
  o.nlu.update_from_json(p.train);
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

TaskShape task_shape(const std::string& task) {
  TaskShape t;
  if (task.rfind("glue-", 0) == 0) {
    const auto names = metrics::glue_label_names(metrics::parse_glue_task(task.substr(5)));
    t.kind = Kind::kGlue;
    t.head = names.empty() ? NluHead::kRegress : NluHead::kClassify;
    t.num_labels = names.empty() ? 1 : static_cast<int64_t>(names.size());
  } else if (task == "coqa") {
    t.kind = Kind::kCoqa;
    t.head = NluHead::kSpanClass;
    t.num_labels = 4;  // span, yes, no, unknown
  } else {
    t.kind = Kind::kSquad;
    t.head = NluHead::kSpan;
    t.num_labels = 0;
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

std::vector<NluFeature> glue_features(const tasks::GlueSplit& s, const models::WordPieceTokenizer& tok,
                                      const models::SpecialIds& sp, int max_len, bool need_labels) {
  std::vector<NluFeature> out;
  out.reserve(s.rows.size());
  for (const auto& r : s.rows) {
    if (need_labels && !r.has_label) throw InputError(s.file, r.line, "row without a label (a test split cannot be trained on or scored)");
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
    if (s.regression()) f.target = static_cast<float>(r.label);
    else f.label = static_cast<int64_t>(r.label);
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
  bool impossible = false;     // target the [CLS] span
  int64_t start_word = 0, end_word = 0;
  std::string answer_text;     // for _improve_answer_span ("" = keep the word span)
  int64_t label = 0;           // answer class (CoQA)
  bool trainable = true;       // false: skipped for training (answer not found at its offsets)
};

struct WindowMeta {
  size_t item = 0;
  int64_t doc_offset = 0;           // position of the window's first document token
  int64_t doc_start = 0;            // index of that token in the document
  std::vector<char> max_context;    // per window token
};

struct QaFeatures {
  std::vector<NluFeature> features;
  std::vector<WindowMeta> meta;
};

QaFeatures qa_features(const std::vector<QaItem>& items, const std::vector<TokDoc>& docs,
                       const models::WordPieceTokenizer& tok, const models::SpecialIds& sp, const NluRunOptions& no,
                       bool training, bool keep_last_query) {
  QaFeatures out;
  for (size_t it = 0; it < items.size(); ++it) {
    const QaItem& item = items[it];
    if (training && !item.trainable) continue;
    std::vector<int32_t> q = encode(tok, item.question);
    if (static_cast<int>(q.size()) > no.max_query_len) {
      if (keep_last_query) q.erase(q.begin(), q.end() - no.max_query_len);
      else q.resize(no.max_query_len);
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
            if (b - a + 1 == static_cast<int64_t>(at.size()) && std::equal(at.begin(), at.end(), d.ids.begin() + a)) {
              tok_s = a;
              tok_e = b;
              found = true;
            }
      }
    }
    const int64_t max_doc = no.max_seq_len - static_cast<int64_t>(q.size()) - 3;
    if (max_doc < 1) throw InputError("--max-seq-len " + std::to_string(no.max_seq_len) + " leaves no room for the document after a " +
                                      std::to_string(q.size()) + "-token question");
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
      for (size_t c = 0; c < p.logits.size(); ++c) a.class_prob[c] += std::exp(double(p.logits[c]) - mx) / z;
    }
    std::vector<char> allowed_end(p.start.size(), 0);
    for (size_t i = static_cast<size_t>(m.doc_offset); i + 1 < p.start.size(); ++i) allowed_end[i] = 1;
    std::vector<char> allowed_start = allowed_end;
    for (size_t i = 0; i < allowed_start.size(); ++i) allowed_start[i] = allowed_start[i] && m.max_context[i];
    auto c = models::best_spans(p.start, p.end, allowed_start, allowed_end, no.n_best, no.max_answer_len);
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
  const std::u32string tok_text = code_points(basic), pred = code_points(pred_text), orig = code_points(orig_text);
  const size_t start = tok_text.find(pred);
  if (pred.empty() || start == std::u32string::npos) return orig_text;
  const size_t end = start + pred.size() - 1;
  std::vector<size_t> orig_ns_to_s, tok_ns_to_s;
  const std::u32string orig_ns = strip_spaces(orig, orig_ns_to_s), tok_ns = strip_spaces(tok_text, tok_ns_to_s);
  if (orig_ns.size() != tok_ns.size()) return orig_text;  // lower-casing / accent stripping changed lengths
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
  if (task == "squad-v2") return {"", kSquadNoSpanScoreDiff};
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
      if (s.compare(i, from.size(), from) == 0) i += from.size();
      else out.push_back(s[i++]);
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
  for (int64_t t = a.tok_start; t <= a.tok_end; ++t) pieces.push_back(tok.vocab().token(d.ids.at(t)));
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
  size_t size() const { return glue ? glue->rows.size() : squad ? squad->questions.size() : coqa->turns.size(); }
  std::string gold_text() const {
    return glue ? tasks::glue_gold_text(*glue) : squad ? squad->gold_json : coqa->gold_json;
  }
  std::string gold_name() const { return glue ? "gold.tsv" : "gold.json"; }
};

NluData read_nlu(const std::string& task, const std::string& data, const std::string& split, const NluRunOptions& no) {
  NluData d;
  d.kind = task_shape(task).kind;
  const tasks::SplitSpec spec = tasks::parse_split_spec(split);
  if (d.kind == Kind::kGlue) d.glue = tasks::read_glue_split(task, data, spec);
  else if (d.kind == Kind::kSquad) d.squad = tasks::read_squad_split(task, data, spec);
  else d.coqa = tasks::read_coqa_split(data, spec, no.history_turns);
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

SquadPreds squad_preds(const QaSplit& q, const std::vector<QaAnswer>& ans, const models::WordPieceTokenizer& tok,
                       const std::string& task) {
  SquadPreds s;
  const SquadNoSpan none = squad_no_span(task);
  for (size_t i = 0; i < q.items.size(); ++i) {
    if (ans[i].tok_start < 0) {  // no valid span in any window
      s.answers.emplace_back(q.ids[i], none.text);
      s.diffs.emplace_back(q.ids[i], none.score_diff);
      continue;
    }
    const std::string text = span_words(ans[i], q.docs[q.items[i].doc], (*q.contexts)[q.items[i].doc].words, tok);
    s.answers.emplace_back(q.ids[i], text);
    s.diffs.emplace_back(q.ids[i], ans[i].null_score - ans[i].best_score);
  }
  return s;
}

// The first `n` words of a context, joined by one space.
std::string first_words(const std::vector<std::string>& words, int64_t n) {
  std::string s;
  for (size_t i = 0; i < words.size() && static_cast<int64_t>(i) < n; ++i) s += (i ? " " : "") + words[i];
  return s;
}

// The understanding tasks' baselines (pipelines/run_nlu.h), written in the official prediction
// format under RUN/baselines/NAME/: GLUE "majority" (the most frequent training label, ties: the
// first to occur; STS-B: the mean training score), SQuAD/CoQA "first-window" (the first L words of
// each question's context, L = the median word count of the training answers; squad-v2: never
// no-answer, scored without the model's na_prob file).
std::vector<BaselinePred> nlu_baselines(const NluData& train, const NluData& eval, const fs::path& run,
                                        const std::map<std::string, std::string>& model_options) {
  std::vector<BaselinePred> out;
  auto write = [&](const std::string& name, const std::string& file, const std::string& text) {
    const fs::path dir = run / "baselines" / name;
    fs::create_directories(dir);
    core::write_file_atomic((dir / file).string(), text);
    return (dir / file).string();
  };
  char buf[64];
  if (eval.glue) {
    const auto& rows = train.glue->rows;
    double value = 0;
    std::string description;
    if (eval.glue->regression()) {
      for (const auto& r : rows) value += r.label;
      value = rows.empty() ? 0.0 : value / double(rows.size());
      std::snprintf(buf, sizeof buf, "%.6g", value);
      description = std::string("the mean score of the training split, ") + buf + " (" + std::to_string(rows.size()) +
                    " rows), for every example";
    } else {
      std::map<int64_t, int64_t> counts;
      for (const auto& r : rows) ++counts[static_cast<int64_t>(r.label)];
      int64_t best = 0;
      for (const auto& [label, c] : counts) best = std::max(best, c);
      for (const auto& r : rows)  // ties: the label that occurs first
        if (counts[static_cast<int64_t>(r.label)] == best) {
          value = r.label;
          break;
        }
      description = "the most frequent label of the training split, '" +
                    eval.glue->labels.at(static_cast<size_t>(value)) + "' (" + std::to_string(best) + " of " +
                    std::to_string(rows.size()) + " rows; ties: the first to occur), for every example";
    }
    const std::vector<double> p(eval.glue->rows.size(), value);
    out.push_back({"majority", description, write("majority", "pred.tsv", tasks::glue_predictions_text(*eval.glue, p)),
                   std::nullopt});
    return out;
  }
  std::vector<int64_t> lengths;
  if (train.squad) {
    for (const auto& q : train.squad->questions)
      if (!q.impossible && !q.answers.empty())
        lengths.push_back(static_cast<int64_t>(tasks::whitespace_words(q.answers[0].text).size()));
  } else {
    for (const auto& t : train.coqa->turns) lengths.push_back(static_cast<int64_t>(tasks::whitespace_words(t.answer).size()));
  }
  const int64_t l = std::max<int64_t>(1, rounded_median(lengths));
  const std::string description = "the first " + std::to_string(l) +
                                  " words of each question's context (the median word count of the " +
                                  std::to_string(lengths.size()) + " training answers, rounded)" +
                                  (eval.squad && eval.squad->task == "squad-v2" ? "; never no-answer" : "");
  std::string text;
  if (eval.squad) {
    std::vector<std::pair<std::string, std::string>> answers;
    for (const auto& q : eval.squad->questions) answers.emplace_back(q.id, first_words(eval.squad->contexts[q.context].words, l));
    text = tasks::squad_predictions_json(answers);
  } else {
    std::vector<std::string> answers;
    for (const auto& t : eval.coqa->turns) answers.push_back(first_words(eval.coqa->stories[t.story].words, l));
    text = tasks::coqa_predictions_json(eval.coqa->turns, answers);
  }
  // The model's squad-v2 no-answer probabilities and threshold are not the baseline's.
  std::map<std::string, std::string> options = model_options;
  options.erase("na_prob_file");
  options.erase("na_prob_thresh");
  out.push_back({"first-window", description, write("first-window", "predictions.json", text), options});
  return out;
}

}  // namespace

RunOutcome run_nlu_task(const RunOptions& in) {
  using Clock = std::chrono::steady_clock;
  const auto t_start = Clock::now();
  RunOptions o = in;
  const TaskShape shape = task_shape(o.task);
  check_run_sources(o);
  if (o.eval_split.empty()) o.eval_split = "dev";
  const NluRunOptions& no = o.nlu;
  if (no.max_seq_len < 8) throw InputError("--max-seq-len must be at least 8");
  if (no.doc_stride < 1 || no.max_query_len < 1 || no.max_answer_len < 1 || no.n_best < 1)
    throw InputError("--doc-stride, --max-query-len, --max-answer-len and --n-best must be at least 1");
  if (no.predict_batch < 1) throw InputError("--predict-batch must be at least 1");
  // The split the SQuAD 2.0 threshold is tuned on: an explicit --dev-split only.
  std::string dev_split = o.dev_split == "auto" || o.dev_split == "none" ? "" : o.dev_split;
  if (o.task != "squad-v2") dev_split.clear();

  const fs::path run(o.out);
  const fs::path data_dir = run / "data";
  const fs::path eval_dir = run / "eval";
  const std::string request_path = (run / "request.json").string();
  const std::string result_path = (run / "result.json").string();
  ojson request = run_request(o);
  request.erase("decode");
  request.erase("decode_batch");
  request.erase("max_src_words");
  request["dev_split"] = dev_split;
  request["eval_split"] = o.eval_split;
  request["nlu"] = no.to_json();

  RunOutcome outcome;
  const RunRanks ranks = join_run_ranks(o);  // data parallel: rank 0 writes RUN, predicts and scores
  if (auto done = open_run(run, request, ranks)) return *done;

  // ---- stage 1: data (everything read and checked before RUN is written) ----
  auto limited = [](NluData d, int64_t limit) {
    if (limit <= 0) return d;
    const size_t n = static_cast<size_t>(limit);
    if (d.glue && d.glue->rows.size() > n) d.glue->rows.resize(n), d.glue->raw.resize(n);
    if (d.squad && d.squad->questions.size() > n) d.squad->questions.resize(n);
    if (d.coqa && d.coqa->turns.size() > n) d.coqa->turns.resize(n);
    return d;
  };
  if (o.eval_limit > 0 && shape.kind != Kind::kGlue)
    throw InputError("--eval-limit: use a sliced --eval-split (e.g. dev[:100]) for squad/coqa");
  NluData train = limited(read_nlu(o.task, o.data, o.train_split, no), o.train_limit);
  NluData eval = limited(read_nlu(o.task, o.data, o.eval_split, no), o.eval_limit);
  std::optional<NluData> dev;
  if (!dev_split.empty()) dev = read_nlu(o.task, o.data, dev_split, no);
  if (train.size() == 0) throw InputError(train.file(), 0, "no training examples in split " + o.train_split);
  if (eval.size() == 0) throw InputError(eval.file(), 0, "no examples in eval split " + o.eval_split);
  if (eval.glue)
    for (const auto& r : eval.glue->rows)
      if (!r.has_label) throw InputError(eval.glue->file, r.line, "row without a label: the eval split must have gold labels");
  Model m;
  if (!o.model.empty()) {
    models::CheckpointFiles files = models::locate_checkpoint(o.model);
    m.cfg = models::BertConfig::from_json_file(files.config);
    m.config_path = files.config;
    m.weights = files.weights;
    m.vocab_path = !o.vocab.empty() ? o.vocab : files.vocab;
    if (m.vocab_path.empty()) throw InputError(o.model, 0, "no vocab.txt in the checkpoint (give --vocab)");
  } else {
    m.cfg = models::BertConfig::from_json_file(o.model_config);
    m.config_path = o.model_config;
    m.vocab_path = o.vocab;
    if (!fs::exists(m.vocab_path)) throw InputError(m.vocab_path, 0, "no such file");
  }
  models::check_vocab_fits(static_cast<int64_t>(models::Vocab::from_file(m.vocab_path).size()), m.vocab_path,
                           m.cfg.vocab_size, m.config_path);
  if (no.max_seq_len > m.cfg.max_position_embeddings)
    throw InputError("--max-seq-len " + std::to_string(no.max_seq_len) + " exceeds the model's max_position_embeddings (" +
                     std::to_string(m.cfg.max_position_embeddings) + ")");
  if (o.dropout) m.cfg.hidden_dropout_prob = m.cfg.attention_probs_dropout_prob = *o.dropout;
  if (no.classifier_dropout) m.cfg.classifier_dropout = *no.classifier_dropout;
  m.cfg.validate("model config");

  const bool have_data = fs::exists(data_dir / "manifest.json");
  if (!ranks.writer()) {
    // rank 0 writes the data stage
  } else if (!have_data) {
    fs::create_directories(data_dir);
    fs::create_directories(eval_dir);
    core::write_file_atomic(request_path, request.dump(2) + "\n");
    ojson manifest;
    std::vector<std::string> all = {train.file(), eval.file()};
    if (dev) all.push_back(dev->file());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    ojson files = ojson::array();
    for (const auto& f : all) files.push_back({{"path", abs_path(f)}, {"sha256", results::sha256_file(f)}});
    manifest["files"] = files;
    manifest["reader"] = "train: " + train.reader() + "; eval: " + eval.reader() + (dev ? "; dev: " + dev->reader() : "");
    manifest["train_examples"] = train.size();
    manifest["dev_examples"] = dev ? dev->size() : 0;
    manifest["eval_examples"] = eval.size();
    manifest["dev_split"] = dev_split;
    core::write_file_atomic((data_dir / "manifest.json").string(), manifest.dump(2) + "\n");
  } else if (!fs::exists(request_path)) {
    throw InputError(o.out, 0, "holds data/ but no request.json");
  }
  const std::string gold_path = (eval_dir / eval.gold_name()).string();
  std::string dev_gold_path;
  if (dev) dev_gold_path = (eval_dir / ("dev_" + dev->gold_name())).string();
  if (ranks.writer()) {
    core::write_file_atomic(gold_path, eval.gold_text());
    if (dev) core::write_file_atomic(dev_gold_path, dev->gold_text());
  }
  ranks.sync();
  const ojson manifest = ojson::parse(core::read_file((data_dir / "manifest.json").string()));
  outcome.stage = "data";

  // ---- features ----
  models::WordPieceTokenizer tok =
      models::WordPieceTokenizer::from_file(m.vocab_path, models::TokenizerOptions::bert(o.lowercase));
  const models::SpecialIds sp = models::special_ids(tok.vocab(), m.vocab_path);
  const bool keep_last_query = shape.kind == Kind::kCoqa;
  std::vector<NluFeature> train_features;
  QaSplit eval_qa, dev_qa;
  QaFeatures eval_qf, dev_qf;
  std::vector<NluFeature> eval_glue;
  auto build_train = [&]() {
    if (train.glue) {
      train_features = glue_features(*train.glue, tok, sp, no.max_seq_len, true);
    } else {
      QaSplit q = qa_split(train, tok);
      train_features = qa_features(q.items, q.docs, tok, sp, no, true, keep_last_query).features;
    }
  };

  // ---- stage 2: train ----
  models::Runtime rt = models::configure_runtime(o.device);
  models::RunDir rd(o.out);
  auto train_state = [&]() -> nlohmann::json {
    const fs::path st = run / "checkpoint" / "trainer_state.json";
    if (!fs::exists(st)) return nlohmann::json();
    return nlohmann::json::parse(core::read_file(st.string()));
  };
  auto train_done = [&]() {
    auto j = train_state();
    return !j.is_null() && j.value("step", int64_t{0}) >= j.value("total_steps", int64_t{1});
  };
  models::UnilmModel model(m.cfg, models::nlu_heads(shape.head, shape.num_labels));
  models::TrainOptions topt = o.finetune;
  topt.stop_after = o.stop_after;
  topt.progress = o.progress;
  if (!train_done()) {
    build_train();
    const bool resume = rd.has_checkpoint();
    torch::manual_seed(topt.seed);
    model->init_weights();
    if (!resume) {
      if (!m.weights.empty()) {
        models::LoadReport report = models::load_weights(*model, m.weights);
        if (report.loaded == 0) throw InputError(m.weights, 0, "no parameter of the model was found in the checkpoint");
        const std::string s = report.summary();
        if (!s.empty() && o.progress) std::cerr << s << "\n";
      }
      ojson info;
      info["kind"] = "unilm-nlu";
      info["task"] = o.task;
      info["head"] = models::to_string(shape.head);
      info["num_labels"] = shape.num_labels;
      info["preset"] = o.preset;
      info["data"] = abs_path(o.data);
      info["model"] = o.model.empty() ? std::string("(from scratch)") : abs_path(o.model);
      info["lowercase"] = o.lowercase;
      info["train"] = topt.to_json();
      info["nlu"] = no.to_json();
      info["examples"] = train.size();
      info["features"] = train_features.size();
      info["runtime"] = rt.describe();
      if (ranks.writer()) rd.create(info, m.cfg, core::read_file(m.vocab_path));
    } else if (o.progress) {
      std::cerr << "run: resuming training from " << rd.checkpoint_dir() << "\n";
    }
    model->to(rt.device);
    models::TrainResult tr;
    {
      models::AutocastScope amp(rt);
      tr = models::train_nlu(model, train_features, shape.head, topt, &rd, resume, sp.pad);
    }
    outcome.stage = "train";
    if (!tr.finished) {
      outcome.finished = false;
      return outcome;
    }
  }
  ranks.sync();  // rank 0's last checkpoint is written
  if (!ranks.writer()) {
    outcome.finished = true;
    return outcome;
  }
  const ojson state = ojson::parse(core::read_file((run / "checkpoint" / "trainer_state.json").string()));

  // ---- stage 3: predict ----
  const fs::path ckpt = run / "checkpoint";
  models::load_model_weights(model, (ckpt / models::kRunWeightsFile).string());
  model->to(rt.device);
  model->eval();
  models::PredictOptions popt;
  popt.batch_size = no.predict_batch;
  popt.batch_tokens = no.predict_batch * static_cast<int64_t>(no.max_seq_len);
  popt.pad_id = sp.pad;
  popt.progress = o.progress;
  const auto t_pred = Clock::now();
  std::vector<models::NluPrediction> eval_preds, dev_preds;
  size_t eval_features = 0;
  if (eval.glue) {
    eval_glue = glue_features(*eval.glue, tok, sp, no.max_seq_len, true);
    eval_features = eval_glue.size();
    models::AutocastScope amp(rt);
    eval_preds = models::predict_nlu(model, eval_glue, shape.head, popt);
  } else {
    eval_qa = qa_split(eval, tok);
    eval_qf = qa_features(eval_qa.items, eval_qa.docs, tok, sp, no, false, keep_last_query);
    eval_features = eval_qf.features.size();
    models::AutocastScope amp(rt);
    eval_preds = models::predict_nlu(model, eval_qf.features, shape.head, popt);
    if (dev) {
      dev_qa = qa_split(*dev, tok);
      dev_qf = qa_features(dev_qa.items, dev_qa.docs, tok, sp, no, false, keep_last_query);
      dev_preds = models::predict_nlu(model, dev_qf.features, shape.head, popt);
    }
  }
  const double predict_s = std::chrono::duration<double>(Clock::now() - t_pred).count();
  outcome.stage = "predict";

  // ---- stage 4: score ----
  const std::string system = !o.system.empty() ? o.system : "unieval-run:" + (o.preset.empty() ? o.task : o.preset);
  std::map<std::string, std::string> eopts = o.eval_options;
  std::string pred_path;
  ojson extra_run;
  std::vector<std::string> notes;
  if (eval.glue) {
    std::vector<double> p;
    for (const auto& x : eval_preds) {
      if (shape.head == NluHead::kRegress) p.push_back(x.logits.at(0));
      else p.push_back(static_cast<double>(std::max_element(x.logits.begin(), x.logits.end()) - x.logits.begin()));
    }
    pred_path = (eval_dir / "pred.tsv").string();
    core::write_file_atomic(pred_path, tasks::glue_predictions_text(*eval.glue, p));
  } else if (eval.squad) {
    SquadPreds sp_eval = squad_preds(eval_qa, decode_qa(eval_qa.items, eval_qf, eval_preds, no), tok, o.task);
    if (o.task == "squad-v2") {
      const std::string na_path = (eval_dir / "na_prob.json").string();
      core::write_file_atomic(na_path, tasks::squad_na_probs_json(sp_eval.diffs));
      double thresh = 0.0;
      std::string thresh_split;
      if (no.na_threshold) {
        thresh = *no.na_threshold;
        thresh_split = "(fixed by --na-threshold)";
      } else {
        // Tune: the official best_f1_thresh over best-span predictions on the tuning split.
        const SquadPreds* tune = &sp_eval;
        SquadPreds sp_dev;
        std::string tune_gold = gold_path;
        std::string tune_name = "eval";
        if (dev) {
          sp_dev = squad_preds(dev_qa, decode_qa(dev_qa.items, dev_qf, dev_preds, no), tok, o.task);
          tune = &sp_dev;
          tune_gold = dev_gold_path;
          tune_name = "dev";
        }
        const std::string tp = (eval_dir / (tune_name + "_best_span.json")).string();
        const std::string tn = (eval_dir / (tune_name + "_na_prob_tune.json")).string();
        core::write_file_atomic(tp, tasks::squad_predictions_json(tune->answers));
        core::write_file_atomic(tn, tasks::squad_na_probs_json(tune->diffs));
        results::RunResult tr = score_predictions("squad-v2", tune_gold, tp, dev ? dev_split : o.eval_split,
                                      {{"na_prob_file", tn}}, system);
        const results::Score* bt = tr.score("best_f1_thresh");
        if (!bt) throw InputError(tune_gold, 0, "the official script gave no best_f1_thresh (no questions?)");
        thresh = bt->value;
        thresh_split = dev ? dev_split : o.eval_split + " (the eval split itself, as BERT run_squad / evaluate-v2.0 best_f1_thresh)";
        extra_run["na_threshold_tuning"] = {{"split", dev ? dev_split : o.eval_split},
                                            {"best_f1", tr.score("best_f1") ? tr.score("best_f1")->value : 0.0},
                                            {"best_exact", tr.score("best_exact") ? tr.score("best_exact")->value : 0.0}};
      }
      std::vector<std::pair<std::string, std::string>> final_answers;
      for (size_t i = 0; i < sp_eval.answers.size(); ++i)
        final_answers.emplace_back(sp_eval.answers[i].first, sp_eval.diffs[i].second > thresh ? "" : sp_eval.answers[i].second);
      pred_path = (eval_dir / "predictions.json").string();
      core::write_file_atomic(pred_path, tasks::squad_predictions_json(final_answers));
      eopts["na_prob_file"] = na_path;
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", thresh);
      eopts["na_prob_thresh"] = buf;
      extra_run["na_threshold"] = thresh;
      extra_run["na_threshold_split"] = thresh_split;
      notes.push_back(std::string("no-answer threshold ") + buf + " on score_diff (null - best span), chosen on " + thresh_split);
    } else {
      pred_path = (eval_dir / "predictions.json").string();
      core::write_file_atomic(pred_path, tasks::squad_predictions_json(sp_eval.answers));
    }
  } else {
    std::vector<QaAnswer> ans = decode_qa(eval_qa.items, eval_qf, eval_preds, no);
    std::vector<std::string> texts;
    for (size_t i = 0; i < ans.size(); ++i) {
      const auto& cp = ans[i].class_prob;
      const size_t cls = cp.empty() ? 0 : static_cast<size_t>(std::max_element(cp.begin(), cp.end()) - cp.begin());
      if (cls != 0) texts.push_back(tasks::coqa_answer_text(static_cast<tasks::CoqaAnswerKind>(cls)));
      else texts.push_back(span_words(ans[i], eval_qa.docs[eval_qa.items[i].doc], (*eval_qa.contexts)[eval_qa.items[i].doc].words, tok));
    }
    pred_path = (eval_dir / "predictions.json").string();
    core::write_file_atomic(pred_path, tasks::coqa_predictions_json(eval.coqa->turns, texts));
  }
  results::RunResult r = score_predictions(o.task, gold_path, pred_path, o.eval_split, eopts, system);
  r.split = o.eval_split;
  r.data_path = abs_path(o.data);
  r.data_sha256 = fs::is_regular_file(o.data) ? results::sha256_file(o.data) : "";
  for (const auto& n : notes) r.notes.push_back(n);
  add_split_notes(r, o);
  if (o.baselines) {
    tasks::EvalRequest breq;
    breq.task = o.task;
    breq.data = gold_path;
    breq.pred = pred_path;
    breq.split = o.eval_split;
    breq.options = eopts;
    breq.system = system;
    breq.bootstrap = kBaselineResamples;
    breq.seed = o.finetune.seed;
    r.extra["baselines"] = evaluate_baselines(breq, nlu_baselines(train, eval, run, eopts));
    for (auto& w : baseline_warnings(r)) r.notes.push_back(std::move(w));
  }

  ojson info;
  info["request"] = request;
  const tasks::Preset* p = o.preset.empty() ? nullptr : tasks::find_preset(o.preset);
  if (p) {
    info["preset_source"] = p->source;
    info["preset_unstated"] = p->unstated;
  }
  info["model_sha256"] = m.weights.empty() ? std::string() : results::sha256_file(m.weights);
  info["data_files"] = manifest["files"];
  info["reader"] = manifest["reader"];
  info["train_examples"] = manifest["train_examples"];
  info["dev_examples"] = manifest["dev_examples"];
  info["eval_examples"] = eval.size();
  info["eval_features"] = eval_features;
  info["head"] = models::to_string(shape.head);
  ojson tr;
  tr["steps"] = state.value("step", int64_t{0});
  tr["total_steps"] = state.value("total_steps", int64_t{0});
  info["train"] = tr;
  info["checkpoint"] = "checkpoint";
  info["checkpoint_sha256"] = results::sha256_file((ckpt / models::kRunWeightsFile).string());
  info["predictions_sha256"] = results::sha256_file(pred_path);
  info["predict_s"] = predict_s;
  info["predict_examples_per_s"] = predict_s > 0 ? double(eval.size()) / predict_s : 0.0;
  for (auto it = extra_run.begin(); it != extra_run.end(); ++it) info[it.key()] = it.value();
  return finish_run(std::move(r), info, result_path, t_start);
}

}  // namespace unieval::pipelines
