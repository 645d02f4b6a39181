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
#include "models/checkpoint.h"
#include "models/device.h"
#include "models/gpt.h"
#include "models/gpt_finetune.h"
#include "models/run_dir.h"
#include "models/tokenizer/bpe.h"
#include "pipelines/evaluate.h"
#include "pipelines/run_nlu.h"
#include "pipelines/run_common.h"
#include "results/sha256.h"
#include "tasks/gpt_tasks.h"
#include "tasks/nlu_tasks.h"

namespace unieval::pipelines {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;
using models::GptFeature;
using models::GptHead;

void apply_gpt_preset(RunOptions& o, const tasks::Preset& p) {
  apply_nlu_preset(o, p);  // training options, max_seq_len, classifier_dropout, dropout
  if (p.train.contains("lm_coef") && p.train.at("lm_coef").is_number()) o.lm_coef = p.train.at("lm_coef").get<double>();
}

bool is_gpt_run_task(const std::string& task) {
  if (task.rfind("glue-", 0) == 0 && tasks::is_nlu_task(task)) return true;
  const auto& g = tasks::gpt_task_names();
  return std::find(g.begin(), g.end(), task) != g.end();
}

namespace {

std::vector<int32_t> bpe_ids(const models::BpeTokenizer& tok, const std::string& text) {
  std::vector<int32_t> ids;
  tok.encode_ids(text, &ids);
  return ids;
}

enum class Form { kSingle, kPair, kSimilarity, kChoice };

Form form_of(const std::string& task) {
  if (task == "glue-cola" || task == "glue-sst2") return Form::kSingle;
  if (task == "glue-mrpc" || task == "glue-qqp" || task == "glue-stsb") return Form::kSimilarity;
  if (task.rfind("race", 0) == 0 || task == "story-cloze" || task == "dprd") return Form::kChoice;
  return Form::kPair;  // entailment: GLUE NLI tasks, snli, scitail
}

// The file (or RACE folder) of a split of a non-GLUE GPT task below --data (a file is used as is).
std::string gpt_split_path(const std::string& task, const std::string& data, const std::string& split) {
  const fs::path d(data);
  if (fs::is_regular_file(d)) return data;
  if (!fs::is_directory(d)) throw InputError(data, 0, "no such file or folder");
  std::vector<fs::path> cand;
  if (task == "snli") cand = {d / ("snli_1.0_" + split + ".jsonl"), d / ("snli_1.0_" + split + ".txt")};
  else if (task == "scitail") cand = {d / ("scitail_1.0_" + split + ".tsv"), d / "tsv_format" / ("scitail_1.0_" + split + ".tsv")};
  else if (task.rfind("race", 0) == 0) cand = {d / split};
  else if (task == "dprd") cand = {d / (split + ".c.txt"), d / (split + ".txt")};
  else {  // story-cloze: the val / test CSVs (GPT fine-tunes on the validation stories)
    std::vector<fs::path> csv;
    for (const auto& e : fs::directory_iterator(d))
      if (e.is_regular_file() && e.path().extension() == ".csv" && e.path().filename().string().find(split) != std::string::npos)
        csv.push_back(e.path());
    std::sort(csv.begin(), csv.end());
    cand = csv;
  }
  for (const auto& c : cand)
    if (fs::exists(c)) return c.string();
  throw InputError(data, 0, "no " + split + " split of " + task + " here" +
                                (cand.empty() ? std::string(" (no *") + split + "*.csv)" : " (looked for " + cand.front().filename().string() + ")"));
}

// Figure 1's transformations of a non-GLUE example.
GptFeature task_feature(const tasks::GptTaskExample& e, Form form, const models::BpeTokenizer& tok, int max_len) {
  auto ids = [&](const std::string& t) { return bpe_ids(tok, t); };
  GptFeature f;
  f.label = e.label;
  const size_t budget = static_cast<size_t>(std::max(0, max_len - 3));
  if (form == Form::kPair) {
    std::vector<int32_t> a = ids(e.texts.at(0)), b = ids(e.texts.size() > 1 ? e.texts[1] : std::string());
    while (a.size() + b.size() > budget) (a.size() > b.size() ? a : b).pop_back();
    std::vector<int32_t> s = {tok.start_id()};
    s.insert(s.end(), a.begin(), a.end());
    s.push_back(tok.delimiter_id());
    s.insert(s.end(), b.begin(), b.end());
    s.push_back(tok.classify_id());
    f.seqs.push_back(std::move(s));
    return f;
  }
  // Multiple choice: [start] context [delim] answer_k [extract]; the document (texts[0]) is cut at
  // its end first, then the answer, so that the question (texts[1]) is kept.
  std::vector<int32_t> doc = ids(e.texts.at(0)), q = e.texts.size() > 1 ? ids(e.texts[1]) : std::vector<int32_t>{};
  for (const auto& choice : e.choices) {
    std::vector<int32_t> d = doc, a = ids(choice), qq = q;
    while (d.size() + qq.size() + a.size() > budget) {
      if (!d.empty()) d.pop_back();
      else if (a.size() > qq.size()) a.pop_back();
      else qq.pop_back();
    }
    std::vector<int32_t> s = {tok.start_id()};
    s.insert(s.end(), d.begin(), d.end());
    s.insert(s.end(), qq.begin(), qq.end());
    s.push_back(tok.delimiter_id());
    s.insert(s.end(), a.begin(), a.end());
    s.push_back(tok.classify_id());
    f.seqs.push_back(std::move(s));
  }
  return f;
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
GptFeature glue_feature(const tasks::GlueRow& r, Form form, const models::BpeTokenizer& tok, int max_len,
                        bool regression) {
  std::vector<int32_t> a = bpe_ids(tok, r.a), b = form == Form::kSingle ? std::vector<int32_t>{} : bpe_ids(tok, r.b);
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
  if (form == Form::kSingle) f.seqs.push_back(seq(a, nullptr));
  else f.seqs.push_back(seq(a, &b));
  if (form == Form::kSimilarity) f.seqs.push_back(seq(b, &a));
  if (regression) f.target = static_cast<float>(r.label);
  else f.label = static_cast<int64_t>(r.label);
  return f;
}


// Matthews correlation of binary predictions (CoLA's metric), for the zero-shot threshold.
double mcc(const std::vector<int>& gold, const std::vector<int>& pred) {
  double tp = 0, tn = 0, fp = 0, fn = 0;
  for (size_t i = 0; i < gold.size(); ++i) {
    if (pred[i] && gold[i]) ++tp;
    else if (pred[i]) ++fp;
    else if (gold[i]) ++fn;
    else ++tn;
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

std::vector<double> cola_scores(models::GptModel& model, const models::BpeTokenizer& tok, const tasks::GlueSplit& s,
                                int max_len) {
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

RunOutcome run_gpt_task(const RunOptions& in) {
  using Clock = std::chrono::steady_clock;
  const auto t_start = Clock::now();
  RunOptions o = in;
  if (!is_gpt_run_task(o.task))
    throw InputError("--arch gpt runs glue-cola, glue-sst2, glue-mrpc, glue-stsb, glue-qqp, glue-mnli, glue-mnli-mm, "
                     "glue-qnli, glue-rte, glue-wnli, snli, scitail, race, race-m, race-h, story-cloze, dprd; not --task " + o.task);
  const bool glue = o.task.rfind("glue-", 0) == 0;
  const Form form = form_of(o.task);
  if (o.zero_shot && o.task != "glue-sst2" && o.task != "glue-cola" && form != Form::kChoice)
    throw InputError("--zero-shot: GPT §5's heuristics are for glue-sst2, glue-cola, dprd and the multiple-choice tasks "
                     "(race*, story-cloze), not " + o.task);
  if (o.task == "dprd" && !o.zero_shot)
    throw InputError("--task dprd: GPT evaluates the Winograd schemas zero-shot only (§5); add --zero-shot");
  check_run_sources(o);
  if (o.eval_split.empty()) o.eval_split = glue ? "dev" : "test";
  const int max_len = o.nlu.max_seq_len;
  if (max_len < 8) throw InputError("--max-seq-len must be at least 8");
  if (o.nlu.predict_batch < 1) throw InputError("--predict-batch must be at least 1");
  if (!(o.lm_coef >= 0)) throw InputError("--lm-coef must be >= 0");

  const fs::path run(o.out);
  const fs::path data_dir = run / "data";
  const fs::path eval_dir = run / "eval";
  const std::string request_path = (run / "request.json").string();
  const std::string result_path = (run / "result.json").string();
  ojson request = run_request(o);
  for (const char* k : {"decode", "decode_batch", "max_src_words", "dev_split", "dev_limit"}) request.erase(k);
  request["eval_split"] = o.eval_split;
  request["arch"] = "gpt";
  request["zero_shot"] = o.zero_shot;
  request["lm_coef"] = o.lm_coef;
  request["max_seq_len"] = max_len;
  request["classifier_dropout"] = o.nlu.classifier_dropout ? ojson(*o.nlu.classifier_dropout) : ojson();

  RunOutcome outcome;
  // Data parallel: rank 0 writes RUN, predicts and scores; zero-shot has no training to split.
  if (o.zero_shot && models::dist::env_from_environment().world_size > 1)
    throw InputError("--zero-shot trains nothing: run it in one process (no --nproc, WORLD_SIZE unset)");
  const RunRanks ranks = join_run_ranks(o);
  if (auto done = open_run(run, request, ranks)) return *done;

  // ---- stage 1: data (read and checked before RUN is written) ----
  auto read = [&](const std::string& split, int64_t limit, bool training) {
    Split sp;
    const tasks::SplitSpec spec = tasks::parse_split_spec(split);
    if (glue) {
      sp.glue = tasks::read_glue_split(o.task, o.data, spec);
      if (limit > 0 && sp.glue->rows.size() > static_cast<size_t>(limit)) {
        sp.glue->rows.resize(static_cast<size_t>(limit));
        sp.glue->raw.resize(static_cast<size_t>(limit));
      }
      for (const auto& r : sp.glue->rows)
        if (!r.has_label) throw InputError(sp.glue->file, r.line, "row without a label (a test split cannot be trained on or scored)");
    } else {
      // The adapter scores every example of the file: eval splits are whole.
      if (!training && (spec.sliced() || limit > 0))
        throw InputError("--eval-split / --eval-limit: " + o.task + " is scored on whole files (its adapter needs a "
                         "prediction for every example); slice the training split only");
      sp.gpt = tasks::read_gpt_task_data(o.task, gpt_split_path(o.task, o.data, spec.name));
      auto& ex = sp.gpt->examples;
      if (training) {
        ex.erase(std::remove_if(ex.begin(), ex.end(), [](const tasks::GptTaskExample& e) { return !e.scored; }), ex.end());
        const auto [b, e] = tasks::slice_range(spec, ex.size());
        ex = std::vector<tasks::GptTaskExample>(ex.begin() + b, ex.begin() + std::max(b, e));
        if (limit > 0 && ex.size() > static_cast<size_t>(limit)) ex.resize(static_cast<size_t>(limit));
      }
    }
    return sp;
  };
  const bool need_train = !o.zero_shot || o.task == "glue-cola";
  std::optional<Split> train;
  if (need_train) train = read(o.train_split, o.train_limit, true);
  const Split eval = read(o.eval_split, o.eval_limit, false);
  if (train && train->size() == 0) throw InputError(train->file(), 0, "no training examples in split " + o.train_split);
  if (eval.size() == 0) throw InputError(eval.file(), 0, "no examples in eval split " + o.eval_split);

  // Model sources.
  std::string config_path, weights, bpe_dir = o.vocab;
  if (!o.model.empty()) {
    const models::CheckpointFiles files = models::locate_checkpoint(o.model);
    config_path = files.config;
    weights = files.weights;
    if (bpe_dir.empty()) bpe_dir = fs::is_directory(o.model) ? o.model : fs::path(o.model).parent_path().string();
  } else {
    config_path = o.model_config;
  }
  if (o.zero_shot && weights.empty()) throw InputError("--zero-shot needs a pretrained --model");
  models::GptConfig cfg = models::GptConfig::from_json_file(config_path);
  const models::BpeTokenizer tok = models::BpeTokenizer::from_dir(bpe_dir);
  if (cfg.vocab_size < tok.encoder_size())
    throw InputError(config_path, 0, "vocab_size " + std::to_string(cfg.vocab_size) + " is smaller than the BPE encoder (" +
                                         std::to_string(tok.encoder_size()) + " entries)");
  if (max_len > cfg.n_positions)
    throw InputError("--max-seq-len " + std::to_string(max_len) + " exceeds the model's n_positions (" + std::to_string(cfg.n_positions) + ")");
  if (o.dropout) cfg.resid_pdrop = cfg.embd_pdrop = cfg.attn_pdrop = *o.dropout;
  if (o.nlu.classifier_dropout) cfg.summary_first_dropout = *o.nlu.classifier_dropout;
  cfg.validate("model config");

  if (!ranks.writer()) {
    // rank 0 writes the data stage
  } else if (!fs::exists(data_dir / "manifest.json")) {
    fs::create_directories(data_dir);
    fs::create_directories(eval_dir);
    core::write_file_atomic(request_path, request.dump(2) + "\n");
    std::vector<std::string> all = {eval.file()};
    if (train) all.push_back(train->file());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    ojson files = ojson::array();
    for (const auto& f : all)
      files.push_back({{"path", abs_path(f)}, {"sha256", fs::is_regular_file(f) ? results::sha256_file(f) : std::string()}});
    ojson manifest;
    manifest["files"] = files;
    manifest["reader"] = (train ? "train: " + train->reader() + "; " : std::string()) + "eval: " + eval.reader();
    manifest["train_examples"] = train ? train->size() : 0;
    manifest["eval_examples"] = eval.size();
    core::write_file_atomic((data_dir / "manifest.json").string(), manifest.dump(2) + "\n");
  } else if (!fs::exists(request_path)) {
    throw InputError(o.out, 0, "holds data/ but no request.json");
  }
  // The gold the adapter scores: GLUE's sliced subset, or the task's own file / folder.
  std::string gold_path = eval.file();
  if (glue) {
    gold_path = (eval_dir / "gold.tsv").string();
    if (ranks.writer()) core::write_file_atomic(gold_path, tasks::glue_gold_text(*eval.glue));
  }
  ranks.sync();
  const ojson manifest = ojson::parse(core::read_file((data_dir / "manifest.json").string()));
  outcome.stage = "data";

  auto features_of = [&](const Split& sp) {
    std::vector<GptFeature> f;
    if (sp.glue)
      for (const auto& r : sp.glue->rows) f.push_back(glue_feature(r, form, tok, max_len, sp.glue->regression()));
    else
      for (const auto& e : sp.gpt->examples) f.push_back(task_feature(e, form, tok, max_len));
    return f;
  };

  const models::Runtime rt = models::configure_runtime(o.device);
  const bool regression = eval.glue && eval.glue->regression();
  const GptHead head = regression ? GptHead::kRegress : form == Form::kChoice ? GptHead::kMultipleChoice : GptHead::kClassify;
  const int64_t num_labels = regression ? 1 : eval.glue ? static_cast<int64_t>(eval.glue->labels.size())
                                                        : static_cast<int64_t>(eval.gpt->labels.size());
  ojson extra;
  std::vector<double> predictions;
  std::string checkpoint_sha;
  ojson train_info;
  const auto t_pred = Clock::now();

  if (o.zero_shot) {
    // ---- zero-shot: the pretrained LM only, no special tokens (it has no rows for them) ----
    models::GptModel model(cfg, models::GptHeads{});
    models::LoadReport report = models::load_gpt_weights(model, weights);
    if (report.loaded == 0) throw InputError(weights, 0, "no parameter of the GPT model was found in the checkpoint");
    if (!report.summary().empty() && o.progress) std::cerr << report.summary();
    model->to(rt.device);
    model->eval();
    models::AutocastScope amp(rt);
    if (o.task == "glue-sst2") {
      const int32_t pos = tok.id("positive</w>"), neg = tok.id("negative</w>");
      std::vector<int32_t> very = bpe_ids(tok, "very");
      if (pos < 0 || neg < 0) throw InputError(bpe_dir, 0, "the BPE vocabulary lacks positive</w> / negative</w>");
      std::vector<std::vector<int32_t>> prefixes;
      for (const auto& r : eval.glue->rows) {
        std::vector<int32_t> p = bpe_ids(tok, r.a);
        const size_t room = static_cast<size_t>(std::max<int>(0, max_len - static_cast<int>(very.size())));
        if (p.size() > room) p.resize(room);
        p.insert(p.end(), very.begin(), very.end());
        prefixes.push_back(std::move(p));
      }
      for (const auto& lp : models::next_token_logprobs(model, prefixes, {pos, neg})) predictions.push_back(lp[0] > lp[1] ? 1 : 0);
      extra["zero_shot"] = "append \"very\", compare log p(positive</w>) with log p(negative</w>) (GPT §5)";
    } else if (o.task == "glue-cola") {
      const std::vector<double> tr = cola_scores(model, tok, *train->glue, max_len);
      std::vector<int> gold;
      for (const auto& r : train->glue->rows) gold.push_back(static_cast<int>(r.label));
      const double t = best_threshold(tr, gold);
      for (double sc : cola_scores(model, tok, *eval.glue, max_len)) predictions.push_back(sc > t ? 1 : 0);
      extra["zero_shot"] = "average token log-probability, thresholded (GPT §5)";
      extra["zero_shot_threshold"] = t;
      extra["zero_shot_threshold_split"] = o.train_split;
    } else {
      // Multiple choice: the answer with the highest average token log-probability given the
      // document and question (§5 "RACE").
      std::vector<std::vector<int32_t>> seqs;
      std::vector<int64_t> from;
      std::vector<size_t> owner;
      const bool dprd = o.task == "dprd";
      for (size_t i = 0; i < eval.gpt->examples.size(); ++i) {
        const auto& e = eval.gpt->examples[i];
        std::vector<int32_t> ctx = bpe_ids(tok, e.texts.at(0));
        if (e.texts.size() > 1 && !dprd) {
          std::vector<int32_t> q = bpe_ids(tok, e.texts[1]);
          ctx.insert(ctx.end(), q.begin(), q.end());
        }
        for (size_t ci = 0; ci < e.choices.size(); ++ci) {
          const std::string& c = e.choices[ci];
          std::vector<int32_t> a = bpe_ids(tok, c);
          if (dprd) {
            // Winograd (§5): the pronoun replaced by the candidate; the score is the average
            // log-probability of the rest of the sentence after it (the candidate itself when
            // the pronoun ends the sentence).
            const auto [head, rest] = tasks::dprd_substitution(e, ci);
            ctx = bpe_ids(tok, head);
            a = bpe_ids(tok, rest);
            if (a.empty()) {
              ctx = bpe_ids(tok, head.substr(0, head.size() - c.size()));
              a = bpe_ids(tok, c);
            }
          }
          if (a.empty()) a.push_back(tok.unk_id());
          if (a.size() > static_cast<size_t>(max_len) - 1) a.resize(static_cast<size_t>(max_len) - 1);
          std::vector<int32_t> x = ctx;
          const size_t keep = static_cast<size_t>(max_len) - a.size();  // the document's end is kept
          if (x.size() > keep) x.erase(x.begin(), x.end() - static_cast<long>(keep));
          if (x.empty()) x.push_back(tok.unk_id());
          from.push_back(static_cast<int64_t>(x.size()));
          x.insert(x.end(), a.begin(), a.end());
          seqs.push_back(std::move(x));
          owner.push_back(i);
        }
      }
      const auto sc = models::score_continuations(model, seqs, from);
      std::vector<double> best(eval.gpt->examples.size(), -1e300);
      predictions.assign(eval.gpt->examples.size(), 0);
      std::vector<size_t> k(eval.gpt->examples.size(), 0);
      for (size_t j = 0; j < sc.size(); ++j) {
        const size_t i = owner[j];
        if (sc[j].mean() > best[i]) best[i] = sc[j].mean(), predictions[i] = static_cast<double>(k[i]);
        ++k[i];
      }
      extra["zero_shot"] = dprd ? "the candidate after which the rest of the sentence has the highest average token "
                                  "log-probability (GPT §5, Winograd schemas)"
                                : "the answer with the highest average token log-probability given document and question (GPT §5)";
    }
    extra["model_sha256"] = results::sha256_file(weights);
  } else {
    // ---- stage 2: train ----
    const models::GptHeads heads = models::gpt_heads(head, num_labels);
    models::GptModel model(cfg, heads);
    models::RunDir rd(o.out);
    const fs::path state_path = run / "checkpoint" / "trainer_state.json";
    auto train_done = [&]() {
      if (!fs::exists(state_path)) return false;
      auto j = nlohmann::json::parse(core::read_file(state_path.string()));
      return j.value("step", int64_t{0}) >= j.value("total_steps", int64_t{1});
    };
    models::TrainOptions topt = o.finetune;
    topt.stop_after = o.stop_after;
    topt.progress = o.progress;
    const int64_t rows = std::max<int64_t>(cfg.vocab_size, tok.size());
    if (!train_done()) {
      const std::vector<GptFeature> features = features_of(*train);
      const bool resume = rd.has_checkpoint();
      torch::manual_seed(topt.seed);
      model->init_weights();
      if (!resume && !weights.empty()) {
        models::LoadReport report = models::load_gpt_weights(model, weights);
        if (report.loaded == 0) throw InputError(weights, 0, "no parameter of the GPT model was found in the checkpoint");
        if (!report.summary().empty() && o.progress) std::cerr << report.summary();
      }
      model->resize_token_embeddings(rows);
      if (!resume) {
        ojson info;
        info["kind"] = "gpt-finetune";
        info["task"] = o.task;
        info["head"] = models::to_string(head);
        info["num_labels"] = num_labels;
        info["preset"] = o.preset;
        info["data"] = abs_path(o.data);
        info["model"] = o.model.empty() ? std::string("(from scratch)") : abs_path(o.model);
        info["bpe"] = abs_path(bpe_dir);
        info["lm_coef"] = o.lm_coef;
        info["max_seq_len"] = max_len;
        info["train"] = topt.to_json();
        info["examples"] = features.size();
        info["special_tokens"] = {{"_start_", tok.start_id()}, {"_delimiter_", tok.delimiter_id()}, {"_classify_", tok.classify_id()}};
        info["runtime"] = rt.describe();
        if (ranks.writer()) {
          rd.create(info, model->config().to_json(), "");
          rd.add_tokenizer_files(models::BpeTokenizer::files_in(bpe_dir));
        }
      } else if (o.progress) {
        std::cerr << "run: resuming training from " << rd.checkpoint_dir() << "\n";
      }
      model->to(rt.device);
      models::TrainResult tr;
      {
        models::AutocastScope amp(rt);
        tr = models::train_gpt(model, features, head, topt, o.lm_coef, &rd, resume);
      }
      outcome.stage = "train";
      if (!tr.finished) {
        outcome.finished = false;
        return outcome;
      }
    } else {
      model->resize_token_embeddings(rows);
    }
    ranks.sync();  // rank 0's last checkpoint is written
    if (!ranks.writer()) {
      outcome.finished = true;
      return outcome;
    }
    const ojson state = ojson::parse(core::read_file(state_path.string()));
    // ---- stage 3: predict ----
    const fs::path ckpt = run / "checkpoint" / models::kRunWeightsFile;
    models::load_model_weights(*model, ckpt.string());
    model->to(rt.device);
    model->eval();
    const std::vector<GptFeature> eval_features = features_of(eval);
    std::vector<std::vector<float>> out;
    {
      models::AutocastScope amp(rt);
      out = models::predict_gpt(model, eval_features, head, o.nlu.predict_batch, o.progress);
    }
    for (const auto& y : out)
      predictions.push_back(regression ? double(y.at(0)) : double(std::max_element(y.begin(), y.end()) - y.begin()));
    train_info["steps"] = state.value("step", int64_t{0});
    train_info["total_steps"] = state.value("total_steps", int64_t{0});
    checkpoint_sha = results::sha256_file(ckpt.string());
    extra["model_sha256"] = weights.empty() ? std::string() : results::sha256_file(weights);
  }
  const double predict_s = std::chrono::duration<double>(Clock::now() - t_pred).count();
  outcome.stage = "predict";

  // ---- stage 4: score ----
  const std::string system = !o.system.empty() ? o.system
                                                : std::string("unieval-run:gpt") + (o.zero_shot ? "-zero-shot:" : ":") + o.task;
  const std::string pred_path = (eval_dir / "pred.tsv").string();
  if (eval.glue) {
    core::write_file_atomic(pred_path, tasks::glue_predictions_text(*eval.glue, predictions));
  } else {
    std::vector<int64_t> labels(predictions.begin(), predictions.end());
    core::write_file_atomic(pred_path, tasks::gpt_task_predictions_text(*eval.gpt, labels));
  }
  results::RunResult r = score_predictions(o.task, gold_path, pred_path, glue ? o.eval_split : std::string(), o.eval_options, system);
  r.split = o.eval_split;
  r.data_path = abs_path(o.data);
  r.data_sha256 = fs::is_regular_file(o.data) ? results::sha256_file(o.data) : "";
  if (need_train) {
    add_split_notes(r, o, o.zero_shot ? "thresholded" : "trained");
  } else if (o.eval_limit > 0) {
    r.notes.push_back("eval split limited to its first " + std::to_string(o.eval_limit) + " examples");
  }
  if (o.zero_shot) r.notes.push_back("GPT zero-shot heuristic (§5): no fine-tuning");

  ojson info;
  info["request"] = request;
  if (const tasks::Preset* p = o.preset.empty() ? nullptr : tasks::find_preset(o.preset)) {
    info["preset_source"] = p->source;
    info["preset_unstated"] = p->unstated;
  }
  info["arch"] = "gpt";
  info["data_files"] = manifest["files"];
  info["reader"] = manifest["reader"];
  info["train_examples"] = manifest["train_examples"];
  info["eval_examples"] = eval.size();
  info["head"] = o.zero_shot ? std::string("zero-shot") : std::string(models::to_string(head));
  info["input_form"] = form == Form::kSingle   ? "[start] a [extract]"
                       : form == Form::kPair   ? "[start] a [delim] b [extract]"
                       : form == Form::kChoice ? "[start] context [delim] answer_k [extract] per choice, softmax over k"
                                               : "[start] a [delim] b [extract] + [start] b [delim] a [extract] (summed)";
  if (!o.zero_shot) {
    info["train"] = train_info;
    info["checkpoint"] = "checkpoint";
    info["checkpoint_sha256"] = checkpoint_sha;
  }
  info["predictions_sha256"] = results::sha256_file(pred_path);
  info["predict_s"] = predict_s;
  for (auto it = extra.begin(); it != extra.end(); ++it) info[it.key()] = it.value();
  return finish_run(std::move(r), info, result_path, t_start);
}

}  // namespace unieval::pipelines
