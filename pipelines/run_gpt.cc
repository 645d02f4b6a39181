// Follows openai/finetune-transformer-lm (MIT) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
#include "pipelines/run_gpt.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include "core/error.h"
#include "core/io.h"
#include "models/io/checkpoint.h"
#include "models/io/run_dir.h"
#include "models/nn/device.h"
#include "models/nn/gpt.h"
#include "models/tokenizer/bpe.h"
#include "models/training/gpt_finetune.h"
#include "pipelines/evaluate.h"
#include "pipelines/run_common.h"
#include "pipelines/run_driver.h"
#include "pipelines/run_nlu.h"
#include "results/sha256.h"
#include "tasks/gpt_tasks.h"
#include "tasks/nlu_tasks.h"
#include "tasks/task_spec.h"

namespace unieval::pipelines {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;
using models::GptFeature;
using models::GptHead;

void apply_gpt_preset(RunOptions& o, const tasks::Preset& p) {
  apply_nlu_preset(o, p);  // training options, max_seq_len, classifier_dropout, dropout
  if (p.train.contains("lm_coef") && p.train.at("lm_coef").is_number())
    o.lm_coef = p.train.at("lm_coef").get<double>();
}

bool is_gpt_run_task(const std::string& task) {
  const tasks::TaskSpec* t = tasks::find_run_task(task);
  return t && t->gpt;
}

namespace {

std::vector<int32_t> bpe_ids(const models::BpeTokenizer& tok, const std::string& text) {
  std::vector<int32_t> ids;
  tok.encode_ids(text, &ids);
  return ids;
}

using Form = tasks::GptForm;  // GPT Figure 1's input transformation of a task (tasks/task_spec.h)

// Figure 1's transformations of a non-GLUE example.
GptFeature task_feature(const tasks::GptTaskExample& e, Form form, const models::BpeTokenizer& tok,
                        int max_len, bool per_text_cut) {
  auto ids = [&](const std::string& t) { return bpe_ids(tok, t); };
  GptFeature f;
  f.label = e.label;
  const size_t budget = static_cast<size_t>(std::max(0, max_len - 3));
  if (form == Form::kPair) {
    std::vector<int32_t> a = ids(e.texts.at(0)),
                         b = ids(e.texts.size() > 1 ? e.texts[1] : std::string());
    while (a.size() + b.size() > budget) (a.size() > b.size() ? a : b).pop_back();
    std::vector<int32_t> s = {tok.start_id()};
    s.insert(s.end(), a.begin(), a.end());
    s.push_back(tok.delimiter_id());
    s.insert(s.end(), b.begin(), b.end());
    s.push_back(tok.classify_id());
    f.seqs.push_back(std::move(s));
    return f;
  }
  // Multiple choice (models::gpt_choice_feature): story-cloze as the release's transform_roc,
  // the others (RACE) with the document cut first so that the question is kept.
  std::vector<std::vector<int32_t>> choices;
  for (const auto& c : e.choices) choices.push_back(ids(c));
  return models::gpt_choice_feature(
      ids(e.texts.at(0)), e.texts.size() > 1 ? ids(e.texts[1]) : std::vector<int32_t>{}, choices,
      e.label, max_len,
      per_text_cut ? models::GptChoiceCut::kPerText : models::GptChoiceCut::kDocumentFirst,
      {tok.start_id(), tok.delimiter_id(), tok.classify_id()});
}

// One split of either family.
struct Split {
  std::optional<tasks::GlueSplit> glue;
  std::optional<tasks::GptTaskData> gpt;
  std::string file() const { return glue ? glue->file : gpt->file; }
  std::string reader() const { return glue ? glue->reader : "GPT task reader (" + gpt->task + ")"; }
  size_t size() const { return glue ? glue->rows.size() : gpt->examples.size(); }
};

// Figure 1's transformations of a GLUE row; texts cut longest-first so that every sequence fits.
GptFeature glue_feature(const tasks::GlueRow& r, Form form, const models::BpeTokenizer& tok,
                        int max_len, bool regression) {
  std::vector<int32_t> a = bpe_ids(tok, r.a),
                       b = form == Form::kSingle ? std::vector<int32_t>{} : bpe_ids(tok, r.b);
  const size_t budget = static_cast<size_t>(std::max(0, max_len - (form == Form::kSingle ? 2 : 3)));
  while (a.size() + b.size() > budget) (a.size() > b.size() ? a : b).pop_back();
  auto seq = [&](const std::vector<int32_t>& x, const std::vector<int32_t>* y) {
    std::vector<int32_t> s = {tok.start_id()};
    s.insert(s.end(), x.begin(), x.end());
    if (y) {
      s.push_back(tok.delimiter_id());
      s.insert(s.end(), y->begin(), y->end());
    }
    s.push_back(tok.classify_id());
    return s;
  };
  GptFeature f;
  if (form == Form::kSingle)
    f.seqs.push_back(seq(a, nullptr));
  else
    f.seqs.push_back(seq(a, &b));
  if (form == Form::kSimilarity) f.seqs.push_back(seq(b, &a));
  if (regression)
    f.target = static_cast<float>(r.label);
  else
    f.label = static_cast<int64_t>(r.label);
  return f;
}

// Matthews correlation of binary predictions (CoLA's metric), for the zero-shot threshold.
double mcc(const std::vector<int>& gold, const std::vector<int>& pred) {
  double tp = 0, tn = 0, fp = 0, fn = 0;
  for (size_t i = 0; i < gold.size(); ++i) {
    if (pred[i] && gold[i])
      ++tp;
    else if (pred[i])
      ++fp;
    else if (gold[i])
      ++fn;
    else
      ++tn;
  }
  const double d = std::sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn));
  return d > 0 ? (tp * tn - fp * fn) / d : 0.0;
}

// The threshold on the average log-probability that maximises MCC (predict 1 when score > t).
double best_threshold(const std::vector<double>& scores, const std::vector<int>& gold) {
  std::vector<double> cand = scores;
  std::sort(cand.begin(), cand.end());
  cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
  double best_t = cand.empty() ? 0.0 : cand.front() - 1.0, best = -2;
  std::vector<double> ts = {best_t};
  for (size_t i = 0; i + 1 < cand.size(); ++i) ts.push_back((cand[i] + cand[i + 1]) / 2);
  for (double t : ts) {
    std::vector<int> p(scores.size());
    for (size_t i = 0; i < scores.size(); ++i) p[i] = scores[i] > t;
    const double m = mcc(gold, p);
    if (m > best) best = m, best_t = t;
  }
  return best_t;
}

std::vector<double> cola_scores(models::GptModel& model, const models::BpeTokenizer& tok,
                                const tasks::GlueSplit& s, int max_len) {
  std::vector<std::vector<int32_t>> seqs;
  std::vector<int64_t> from;
  for (const auto& r : s.rows) {
    // The text alone: the pretrained LM has no _start_ row (the release adds it for fine-tuning).
    std::vector<int32_t> a = bpe_ids(tok, r.a);
    if (static_cast<int>(a.size()) > max_len) a.resize(static_cast<size_t>(max_len));
    if (a.empty()) a.push_back(tok.unk_id());
    seqs.push_back(std::move(a));
    from.push_back(1);  // a one-token sentence has no scored token: average 0
  }
  std::vector<double> out;
  for (const auto& x : models::score_continuations(model, seqs, from)) out.push_back(x.mean());
  return out;
}

}  // namespace

namespace {

// The GPT family (pipelines/run_gpt.h): GPT §3.3's fine-tuning with the auxiliary LM loss, or
// §5's zero-shot heuristics, on GLUE and the GPT-only tasks.
class GptStages : public RunStages {
 public:
  GptStages(const RunOptions& o, const tasks::TaskSpec& task)
      : o_(o),
        task_(task),
        glue_(task.family == tasks::RunFamily::kUnderstanding),
        form_(task.gpt_form),
        max_len_(o.nlu.max_seq_len),
        rt_(models::configure_runtime(o.device)) {
    request_ = run_request(o);
    for (const char* k : {"decode", "decode_batch", "max_src_words", "dev_split", "dev_limit"})
      request_.erase(k);
    request_["eval_split"] = o.eval_split;
    request_["arch"] = "gpt";
    request_["zero_shot"] = o.zero_shot;
    request_["lm_coef"] = o.lm_coef;
    request_["max_seq_len"] = max_len_;
    request_["classifier_dropout"] =
        o.nlu.classifier_dropout ? ojson(*o.nlu.classifier_dropout) : ojson();
  }
  const ojson& request() const override { return request_; }

  DataManifest read() override {
    if (need_train()) train_ = read_split(o_.train_split, o_.train_limit, true);
    eval_ = read_split(o_.eval_split, o_.eval_limit, false);
    if (train_ && train_->size() == 0)
      throw InputError(train_->file(), 0, "no training examples in split " + o_.train_split);
    if (eval_.size() == 0)
      throw InputError(eval_.file(), 0, "no examples in eval split " + o_.eval_split);
    read_model();
    DataManifest m;
    m.files = {eval_.file()};
    if (train_) m.files.push_back(train_->file());
    m.reader =
        (train_ ? "train: " + train_->reader() + "; " : std::string()) + "eval: " + eval_.reader();
    m.train_examples = train_ ? static_cast<int64_t>(train_->size()) : 0;
    m.eval_examples = static_cast<int64_t>(eval_.size());
    return m;
  }

  void write_splits(const RunPaths& paths) override { fs::create_directories(paths.eval); }

  // The gold the adapter scores: GLUE's sliced subset, or the task's own file / folder.
  void write_references(const RunPaths& paths, bool writer) override {
    gold_path_ = eval_.file();
    if (!glue_) return;
    gold_path_ = (paths.eval / "gold.tsv").string();
    if (writer) core::write_file_atomic(gold_path_, tasks::glue_gold_text(*eval_.glue));
  }

  bool trains() const override { return !o_.zero_shot; }

  bool train(const RunPaths&) override {
    models::GptModel model(cfg_, models::gpt_heads(head(), num_labels()));
    models::RunDir rd(o_.out);
    models::TrainOptions topt = o_.finetune;
    topt.stop_after = o_.stop_after;
    topt.progress = o_.progress;
    const std::vector<GptFeature> features = features_of(*train_);
    const bool resume = rd.has_checkpoint();
    torch::manual_seed(topt.seed);
    model->init_weights();
    if (!resume && !weights_.empty()) {
      models::LoadReport report = models::load_gpt_weights(model, weights_);
      if (report.loaded == 0)
        throw InputError(weights_, 0, "no parameter of the GPT model was found in the checkpoint");
      if (!report.summary().empty() && o_.progress) std::cerr << report.summary();
    }
    model->resize_token_embeddings(embedding_rows());
    if (!resume) {
      ojson info;
      info["kind"] = "gpt-finetune";
      info["task"] = o_.task;
      info["head"] = models::to_string(head());
      info["num_labels"] = num_labels();
      info["preset"] = o_.preset;
      info["data"] = abs_path(o_.data);
      info["model"] = o_.model.empty() ? std::string("(from scratch)") : abs_path(o_.model);
      info["bpe"] = abs_path(bpe_dir_);
      info["lm_coef"] = o_.lm_coef;
      info["max_seq_len"] = max_len_;
      info["train"] = topt.to_json();
      info["examples"] = features.size();
      info["special_tokens"] = {{"_start_", tok().start_id()},
                                {"_delimiter_", tok().delimiter_id()},
                                {"_classify_", tok().classify_id()}};
      info["runtime"] = rt_.describe();
      if (writer_) {
        rd.create(info, model->config().to_json(), "");
        rd.add_tokenizer_files(models::BpeTokenizer::files_in(bpe_dir_));
      }
    } else if (o_.progress) {
      std::cerr << "run: resuming training from " << rd.checkpoint_dir() << "\n";
    }
    model->to(rt_.device);
    models::AutocastScope amp(rt_);
    return models::train_gpt(model, features, head(), topt, o_.lm_coef, &rd, resume).finished;
  }

  std::string predict(const RunPaths& paths, const RunRanks& ranks) override {
    if (!ranks.writer()) return "";  // rank 0 predicts
    const auto t_pred = std::chrono::steady_clock::now();
    if (o_.zero_shot)
      predict_zero_shot();
    else
      predict_fine_tuned(paths);
    predict_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_pred).count();
    return "predict";
  }

  results::RunResult score(const RunPaths& paths, ojson& info) override {
    system_ = !o_.system.empty()
                  ? o_.system
                  : std::string("unieval-run:gpt") + (o_.zero_shot ? "-zero-shot:" : ":") + o_.task;
    pred_path_ = (paths.eval / "pred.tsv").string();
    const std::string& pred_path = pred_path_;
    if (eval_.glue) {
      core::write_file_atomic(pred_path, tasks::glue_predictions_text(*eval_.glue, predictions_));
    } else {
      std::vector<int64_t> labels(predictions_.begin(), predictions_.end());
      core::write_file_atomic(pred_path, tasks::gpt_task_predictions_text(*eval_.gpt, labels));
    }
    results::RunResult r =
        score_predictions(o_.task, gold_path_, pred_path, glue_ ? o_.eval_split : std::string(),
                          o_.eval_options, system_);
    if (o_.zero_shot) r.notes.push_back("GPT zero-shot heuristic (§5): no fine-tuning");
    info["arch"] = "gpt";
    info["head"] = o_.zero_shot ? std::string("zero-shot") : std::string(models::to_string(head()));
    info["input_form"] =
        form_ == Form::kSingle ? "[start] a [extract]"
        : form_ == Form::kPair ? "[start] a [delim] b [extract]"
        : form_ == Form::kChoice
            ? "[start] context [delim] answer_k [extract] per choice, softmax over k"
            : "[start] a [delim] b [extract] + [start] b [delim] a [extract] (summed)";
    info["predictions_sha256"] = results::sha256_file(pred_path);
    info["predict_s"] = predict_s_;
    for (auto it = extra_.begin(); it != extra_.end(); ++it) info[it.key()] = it.value();
    return r;
  }

  // The "majority" baseline under RUN/baselines/majority/: the most frequent label of the
  // training split (ties: the first to occur; multiple choice: the most frequent answer), or
  // STS-B's mean training score, for every example. Zero-shot runs read the training split for it
  // too; a task without one (DPRD) gets a note instead.
  void baselines(const RunPaths& paths, results::RunResult& r) override {
    std::optional<Split> train = train_;
    if (!train) {
      try {
        train = read_split(o_.train_split, o_.train_limit, true);
      } catch (const InputError& e) {
        r.notes.push_back(std::string("no majority baseline: no training split to take it from (") +
                          e.what() + ")");
        return;
      }
    }
    if (train->size() == 0) {
      r.notes.push_back("no majority baseline: the training split has no examples");
      return;
    }
    const fs::path dir = paths.run / "baselines" / "majority";
    fs::create_directories(dir);
    BaselinePred b;
    b.name = "majority";
    b.pred = (dir / "pred.tsv").string();
    if (eval_.glue) {
      const GlueMajority g = glue_majority(*train->glue, *eval_.glue);
      b.description = g.description;
      core::write_file_atomic(b.pred, tasks::glue_predictions_text(
                                          *eval_.glue, std::vector<double>(eval_.size(), g.value)));
    } else {
      std::vector<int64_t> labels;
      for (const auto& e : train->gpt->examples) labels.push_back(e.label);
      const MajorityLabel m = majority_label(labels);
      b.description =
          std::string("the most frequent ") + (eval_.gpt->multiple_choice ? "answer" : "label") +
          " of the training split, '" + eval_.gpt->labels.at(static_cast<size_t>(m.label)) + "' (" +
          std::to_string(m.count) + " of " + std::to_string(labels.size()) +
          " examples; ties: the first to occur), for every example";
      core::write_file_atomic(b.pred, tasks::gpt_task_predictions_text(
                                          *eval_.gpt, std::vector<int64_t>(eval_.size(), m.label)));
    }
    tasks::EvalRequest breq;
    breq.task = o_.task;
    breq.data = gold_path_;
    breq.pred = pred_path_;
    breq.split = glue_ ? o_.eval_split : std::string();
    breq.options = o_.eval_options;
    breq.system = system_;
    breq.bootstrap = kBaselineResamples;
    breq.seed = o_.finetune.seed;
    r.extra["baselines"] = evaluate_baselines(breq, {b});
    for (auto& w : baseline_warnings(r)) r.notes.push_back(std::move(w));
  }

  std::string model_weights() const override { return weights_; }
  std::string trained_word() const override { return o_.zero_shot ? "thresholded" : "trained"; }
  bool reads_train() const override { return need_train(); }
  void set_writer(bool writer) { writer_ = writer; }

 private:
  // Fine-tuning reads the training split, and so does CoLA's zero-shot threshold.
  bool need_train() const {
    return !o_.zero_shot || task_.zero_shot == tasks::ZeroShot::kAcceptability;
  }
  bool regression() const { return eval_.glue && eval_.glue->regression(); }
  GptHead head() const {
    return regression()             ? GptHead::kRegress
           : form_ == Form::kChoice ? GptHead::kMultipleChoice
                                    : GptHead::kClassify;
  }
  int64_t num_labels() const {
    return regression() ? 1
           : eval_.glue ? static_cast<int64_t>(eval_.glue->labels.size())
                        : static_cast<int64_t>(eval_.gpt->labels.size());
  }
  int64_t embedding_rows() const { return std::max<int64_t>(cfg_.vocab_size, tok().size()); }
  const models::BpeTokenizer& tok() const { return *tok_; }

  Split read_split(const std::string& split, int64_t limit, bool training) const {
    Split sp;
    const tasks::SplitSpec spec = tasks::parse_split_spec(split);
    if (glue_) {
      sp.glue = tasks::read_glue_split(o_.task, o_.data, spec);
      if (limit > 0 && sp.glue->rows.size() > static_cast<size_t>(limit)) {
        sp.glue->rows.resize(static_cast<size_t>(limit));
        sp.glue->raw.resize(static_cast<size_t>(limit));
      }
      for (const auto& r : sp.glue->rows)
        if (!r.has_label)
          throw InputError(sp.glue->file, r.line,
                           "row without a label (a test split cannot be trained on or scored)");
      return sp;
    }
    // The adapter scores every example of the file: eval splits are whole.
    if (!training && (spec.sliced() || limit > 0))
      throw InputError("--eval-split / --eval-limit: " + o_.task +
                       " is scored on whole files (its adapter needs a "
                       "prediction for every example); slice the training split only");
    sp.gpt = tasks::read_gpt_task_data(o_.task, tasks::gpt_split_path(task_, o_.data, spec.name));
    auto& ex = sp.gpt->examples;
    if (training) {
      ex.erase(std::remove_if(ex.begin(), ex.end(),
                              [](const tasks::GptTaskExample& e) { return !e.scored; }),
               ex.end());
      const auto [b, e] = tasks::slice_range(spec, ex.size());
      ex = std::vector<tasks::GptTaskExample>(ex.begin() + b, ex.begin() + std::max(b, e));
      if (limit > 0 && ex.size() > static_cast<size_t>(limit))
        ex.resize(static_cast<size_t>(limit));
    }
    return sp;
  }

  // Model sources: the checkpoint (config, weights, its folder's BPE files) or --model-config.
  void read_model() {
    std::string config_path;
    bpe_dir_ = o_.vocab;
    if (!o_.model.empty()) {
      const models::CheckpointFiles files = models::locate_checkpoint(o_.model);
      config_path = files.config;
      weights_ = files.weights;
      if (bpe_dir_.empty())
        bpe_dir_ =
            fs::is_directory(o_.model) ? o_.model : fs::path(o_.model).parent_path().string();
    } else {
      config_path = o_.model_config;
    }
    if (o_.zero_shot && weights_.empty())
      throw InputError("--zero-shot needs a pretrained --model");
    cfg_ = models::GptConfig::from_json_file(config_path);
    tok_.emplace(models::BpeTokenizer::from_dir(bpe_dir_));
    if (cfg_.vocab_size < tok().encoder_size())
      throw InputError(config_path, 0,
                       "vocab_size " + std::to_string(cfg_.vocab_size) +
                           " is smaller than the BPE encoder (" +
                           std::to_string(tok().encoder_size()) + " entries)");
    if (max_len_ > cfg_.n_positions)
      throw InputError("--max-seq-len " + std::to_string(max_len_) +
                       " exceeds the model's n_positions (" + std::to_string(cfg_.n_positions) +
                       ")");
    if (o_.dropout) cfg_.resid_pdrop = cfg_.embd_pdrop = cfg_.attn_pdrop = *o_.dropout;
    if (o_.nlu.classifier_dropout) cfg_.summary_first_dropout = *o_.nlu.classifier_dropout;
    cfg_.validate("model config");
  }

  std::vector<GptFeature> features_of(const Split& sp) const {
    std::vector<GptFeature> f;
    if (sp.glue)
      for (const auto& r : sp.glue->rows)
        f.push_back(glue_feature(r, form_, tok(), max_len_, sp.glue->regression()));
    else
      for (const auto& e : sp.gpt->examples)
        f.push_back(task_feature(e, form_, tok(), max_len_, task_.name == "story-cloze"));
    return f;
  }

  void predict_fine_tuned(const RunPaths& paths) {
    models::GptModel model(cfg_, models::gpt_heads(head(), num_labels()));
    model->resize_token_embeddings(embedding_rows());
    const fs::path ckpt = paths.run / "checkpoint" / models::kRunWeightsFile;
    models::load_model_weights(*model, ckpt.string());
    model->to(rt_.device);
    model->eval();
    const std::vector<GptFeature> eval_features = features_of(eval_);
    std::vector<std::vector<float>> out;
    {
      models::AutocastScope amp(rt_);
      out = models::predict_gpt(model, eval_features, head(), o_.nlu.predict_batch, o_.progress);
    }
    for (const auto& y : out)
      predictions_.push_back(regression()
                                 ? double(y.at(0))
                                 : double(std::max_element(y.begin(), y.end()) - y.begin()));
  }

  // The pretrained LM only, no special tokens (it has no rows for them).
  void predict_zero_shot() {
    models::GptModel model(cfg_, models::GptHeads{});
    models::LoadReport report = models::load_gpt_weights(model, weights_);
    if (report.loaded == 0)
      throw InputError(weights_, 0, "no parameter of the GPT model was found in the checkpoint");
    if (!report.summary().empty() && o_.progress) std::cerr << report.summary();
    model->to(rt_.device);
    model->eval();
    models::AutocastScope amp(rt_);
    switch (task_.zero_shot) {
      case tasks::ZeroShot::kSentiment:
        zero_shot_sentiment(model);
        break;
      case tasks::ZeroShot::kAcceptability:
        zero_shot_acceptability(model);
        break;
      default:
        zero_shot_choice(model);
        break;
    }
  }

  // SST-2: append "very", compare log p(positive</w>) with log p(negative</w>).
  void zero_shot_sentiment(models::GptModel& model) {
    const int32_t pos = tok().id("positive</w>"), neg = tok().id("negative</w>");
    std::vector<int32_t> very = bpe_ids(tok(), "very");
    if (pos < 0 || neg < 0)
      throw InputError(bpe_dir_, 0, "the BPE vocabulary lacks positive</w> / negative</w>");
    std::vector<std::vector<int32_t>> prefixes;
    for (const auto& r : eval_.glue->rows) {
      std::vector<int32_t> p = bpe_ids(tok(), r.a);
      const size_t room =
          static_cast<size_t>(std::max<int>(0, max_len_ - static_cast<int>(very.size())));
      if (p.size() > room) p.resize(room);
      p.insert(p.end(), very.begin(), very.end());
      prefixes.push_back(std::move(p));
    }
    for (const auto& lp : models::next_token_logprobs(model, prefixes, {pos, neg}))
      predictions_.push_back(lp[0] > lp[1] ? 1 : 0);
    extra_["zero_shot"] =
        "append \"very\", compare log p(positive</w>) with log p(negative</w>) (GPT §5)";
  }

  // CoLA: the average token log-probability, thresholded at the training split's best threshold.
  void zero_shot_acceptability(models::GptModel& model) {
    const std::vector<double> tr = cola_scores(model, tok(), *train_->glue, max_len_);
    std::vector<int> gold;
    for (const auto& r : train_->glue->rows) gold.push_back(static_cast<int>(r.label));
    const double t = best_threshold(tr, gold);
    for (double sc : cola_scores(model, tok(), *eval_.glue, max_len_))
      predictions_.push_back(sc > t ? 1 : 0);
    extra_["zero_shot"] = "average token log-probability, thresholded (GPT §5)";
    extra_["zero_shot_threshold"] = t;
    extra_["zero_shot_threshold_split"] = o_.train_split;
  }

  // Multiple choice: the answer with the highest average token log-probability given the
  // document and question (§5 "RACE"); Winograd (DPRD): the pronoun replaced by the candidate,
  // the score the average log-probability of the rest of the sentence after it (the candidate
  // itself when the pronoun ends the sentence).
  void zero_shot_choice(models::GptModel& model) {
    std::vector<std::vector<int32_t>> seqs;
    std::vector<int64_t> from;
    std::vector<size_t> owner;
    const bool dprd = task_.zero_shot == tasks::ZeroShot::kWinograd;
    const auto& examples = eval_.gpt->examples;
    for (size_t i = 0; i < examples.size(); ++i) {
      const auto& e = examples[i];
      std::vector<int32_t> ctx = bpe_ids(tok(), e.texts.at(0));
      if (e.texts.size() > 1 && !dprd) {
        std::vector<int32_t> q = bpe_ids(tok(), e.texts[1]);
        ctx.insert(ctx.end(), q.begin(), q.end());
      }
      for (size_t ci = 0; ci < e.choices.size(); ++ci) {
        const std::string& c = e.choices[ci];
        std::vector<int32_t> a = bpe_ids(tok(), c);
        if (dprd) {
          const auto [head, rest] = tasks::dprd_substitution(e, ci);
          ctx = bpe_ids(tok(), head);
          a = bpe_ids(tok(), rest);
          if (a.empty()) {
            ctx = bpe_ids(tok(), head.substr(0, head.size() - c.size()));
            a = bpe_ids(tok(), c);
          }
        }
        if (a.empty()) a.push_back(tok().unk_id());
        if (a.size() > static_cast<size_t>(max_len_) - 1)
          a.resize(static_cast<size_t>(max_len_) - 1);
        std::vector<int32_t> x = ctx;
        const size_t keep = static_cast<size_t>(max_len_) - a.size();  // the document's end is kept
        if (x.size() > keep) x.erase(x.begin(), x.end() - static_cast<long>(keep));
        if (x.empty()) x.push_back(tok().unk_id());
        from.push_back(static_cast<int64_t>(x.size()));
        x.insert(x.end(), a.begin(), a.end());
        seqs.push_back(std::move(x));
        owner.push_back(i);
      }
    }
    const auto sc = models::score_continuations(model, seqs, from);
    std::vector<double> best(examples.size(), -1e300);
    predictions_.assign(examples.size(), 0);
    std::vector<size_t> k(examples.size(), 0);
    for (size_t j = 0; j < sc.size(); ++j) {
      const size_t i = owner[j];
      if (sc[j].mean() > best[i])
        best[i] = sc[j].mean(), predictions_[i] = static_cast<double>(k[i]);
      ++k[i];
    }
    extra_["zero_shot"] =
        dprd ? "the candidate after which the rest of the sentence has the highest average token "
               "log-probability (GPT §5, Winograd schemas)"
             : "the answer with the highest average token log-probability given document and "
               "question (GPT §5)";
  }

  const RunOptions& o_;
  const tasks::TaskSpec& task_;
  const bool glue_;
  const Form form_;
  const int max_len_;
  const models::Runtime rt_;
  ojson request_;
  bool writer_ = true;
  std::optional<Split> train_;
  Split eval_;
  models::GptConfig cfg_;
  std::optional<models::BpeTokenizer> tok_;
  std::string bpe_dir_, weights_, gold_path_, pred_path_, system_;
  std::vector<double> predictions_;
  ojson extra_;
  double predict_s_ = 0;
};

}  // namespace

RunOutcome run_gpt_task(const RunOptions& in) {
  const auto t_start = std::chrono::steady_clock::now();
  RunOptions o = in;
  const tasks::TaskSpec* task = tasks::find_run_task(o.task);
  if (!task || !task->gpt)
    throw InputError("--arch gpt runs " + tasks::gpt_run_task_list() + "; not --task " + o.task);
  if (o.zero_shot && task->zero_shot == tasks::ZeroShot::kNone)
    throw InputError(
        "--zero-shot: GPT §5's heuristics are for glue-sst2, glue-cola, dprd and the "
        "multiple-choice tasks "
        "(race*, story-cloze), not " +
        o.task);
  if (task->zero_shot_only && !o.zero_shot)
    throw InputError("--task " + o.task +
                     ": GPT evaluates the Winograd schemas zero-shot only (§5); add --zero-shot");
  check_run_sources(o);
  if (o.eval_split.empty()) o.eval_split = task->default_eval_split;
  if (o.nlu.max_seq_len < 8) throw InputError("--max-seq-len must be at least 8");
  if (o.nlu.predict_batch < 1) throw InputError("--predict-batch must be at least 1");
  if (o.finetune.length_groups < 1) throw InputError("--length-groups must be at least 1");
  if (!(o.lm_coef >= 0)) throw InputError("--lm-coef must be >= 0");
  // Data parallel: rank 0 writes RUN, predicts and scores; zero-shot has no training to split.
  if (o.zero_shot && models::dist::env_from_environment().world_size > 1)
    throw InputError(
        "--zero-shot trains nothing: run it in one process (no --nproc, WORLD_SIZE unset)");
  const RunRanks ranks = join_run_ranks(o);
  GptStages family(o, *task);
  family.set_writer(ranks.writer());
  return drive_run(family, o, ranks, t_start);
}

}  // namespace unieval::pipelines
