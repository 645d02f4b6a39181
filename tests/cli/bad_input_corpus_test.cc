// The bad-input corpus (#23 item 3): for every command, files a careless user or a hostile source
// would hand it -- ragged source/target, empty and over-long lines, invalid UTF-8, truncated or
// mistyped JSON, a vocab without [MASK]/[SEP], a config that disagrees with the checkpoint, a run
// directory of another model. Each case runs the binary and asserts the README's contract:
//   * exit code 2 (not 1, 3, a signal or 0),
//   * a message naming the offending file (and its line, or the offending id, where there is one),
//   * no output file left behind (the --out path does not exist afterwards).
// The cases are a table (corpus() below), generated into a fresh temporary directory each; the
// model commands' cases skip when this unieval was built without LibTorch.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace {

namespace fs = std::filesystem;
using unieval::testing::run_cli;
using unieval::testing::shq;
using unieval::testing::TempDir;

// One bad input. In args and files, "{d}" is the case's temporary directory and "{m}" the shared
// model fixture's (a tiny checkpoint, vocab and config made once per test binary).
struct Case {
  std::string command;                       // the command under test (grouping, counts)
  std::string name;                          // unique within the corpus
  std::map<std::string, std::string> files;  // path under {d} -> bytes
  std::string args;                          // the command line after `unieval`
  std::vector<std::string> expect;           // substrings of stderr (the file, its line or id)
  std::vector<std::string> absent = {};      // paths under {d} that must not exist afterwards
  bool model = false;                        // needs unieval-model (LibTorch)
};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// ---- Good files the cases break one thing of ---------------------------------------------

const char* kHyp = "the cat sat on the mat\na dog ran\nbirds fly south\n";
const char* kRef = "the cat sat on a mat\nthe dog ran fast\nbirds fly north\n";

std::string squad_data() {
  return "{\"version\": \"1.1\", \"data\": [{\"title\": \"t\", \"paragraphs\": [{\n"
         "\"context\": \"the cat sat on the mat\",\n"
         "\"qas\": [{\"id\": \"q1\", \"question\": \"who sat?\",\n"
         "\"answers\": [{\"text\": \"the cat\", \"answer_start\": 0}]},\n"
         "{\"id\": \"q2\", \"question\": \"where?\",\n"
         "\"answers\": [{\"text\": \"the mat\", \"answer_start\": 15}]}]}]}]}\n";
}
const char* kSquadPred = "{\"q1\": \"the cat\",\n\"q2\": \"mat\"}\n";

std::string coqa_data() {
  return "{\"version\": \"1.0\", \"data\": [{\"source\": \"wikipedia\", \"id\": \"s1\", \"story\": "
         "\"a b c\",\n"
         "\"questions\": [{\"input_text\": \"what?\", \"turn_id\": 1},\n{\"input_text\": \"and?\", "
         "\"turn_id\": 2}],\n"
         "\"answers\": [{\"input_text\": \"a b\", \"turn_id\": 1},\n{\"input_text\": \"c\", "
         "\"turn_id\": 2}]}]}\n";
}
const char* kCoqaPred =
    "[{\"id\": \"s1\", \"turn_id\": 1, \"answer\": \"a b\"},\n{\"id\": \"s1\", \"turn_id\": 2, "
    "\"answer\": \"c\"}]\n";

const char* kSst2Dev = "sentence\tlabel\nit is good \t1\nit is bad \t0\nfine \t1\n";
const char* kSst2Pred = "index\tprediction\n0\t1\n1\t0\n2\t1\n";

// ---- The corpus ---------------------------------------------------------------------------

void add_score_cases(std::vector<Case>& out) {
  const std::vector<std::string> metrics = {
      "bleu",      "chrf", "chrf++",    "ter",   "bleu-multi",   "bleu-nltk", "bleu-plato",
      "bleu-coco", "nist", "nist-nltk", "rouge", "rouge-l-coco", "meteor"};
  for (const std::string& m : metrics) {
    const std::string base = "score --metric " + m + " --hyp {d}/hyp.txt --ref {d}/ref.txt";
    out.push_back({"score",
                   m + "_hyp_invalid_utf8",
                   {{"hyp.txt", "a b\nc \xff d\ne\n"}, {"ref.txt", kRef}},
                   base,
                   {"hyp.txt:2"}});
    out.push_back({"score",
                   m + "_ref_invalid_utf8",
                   {{"hyp.txt", kHyp}, {"ref.txt", "a\nb\nc \xc3\x28\n"}},
                   base,
                   {"ref.txt:3"}});
    out.push_back({"score",
                   m + "_ref_truncated_sequence",
                   {{"hyp.txt", kHyp}, {"ref.txt", "a\nb\nc \xe2\x82"}},
                   base,
                   {"ref.txt:3"}});
    out.push_back({"score",
                   m + "_ragged_fewer_refs",
                   {{"hyp.txt", kHyp}, {"ref.txt", "a b\nc d\n"}},
                   base,
                   {"ref.txt", "hyp.txt"}});
    out.push_back({"score",
                   m + "_ragged_more_refs",
                   {{"hyp.txt", kHyp}, {"ref.txt", "a\nb\nc\nd\ne\n"}},
                   base,
                   {"ref.txt", "hyp.txt"}});
    out.push_back({"score", m + "_missing_hyp", {{"ref.txt", kRef}}, base, {"hyp.txt"}});
    out.push_back(
        {"score",
         m + "_overlong_line_invalid_utf8",
         {{"hyp.txt", kHyp}, {"ref.txt", "a\n" + std::string(1 << 20, 'x') + " \xff\nc\n"}},
         base,
         {"ref.txt:2"}});
  }
  // The QA and classification metrics take --data / --pred (or --gold / --pred).
  const std::string squad = "score --metric squad --data {d}/data.json --pred {d}/pred.json";
  out.push_back({"score",
                 "squad_pred_truncated",
                 {{"data.json", squad_data()}, {"pred.json", "{\"q1\": \"the cat\",\n"}},
                 squad,
                 {"pred.json:"}});
  out.push_back({"score",
                 "squad_pred_not_object",
                 {{"data.json", squad_data()}, {"pred.json", "[\"the cat\"]\n"}},
                 squad,
                 {"pred.json:1"}});
  out.push_back({"score",
                 "squad_pred_answer_number",
                 {{"data.json", squad_data()}, {"pred.json", "{\"q1\": 3,\n\"q2\": \"x\"}"}},
                 squad,
                 {"pred.json:1"}});
  out.push_back({"score",
                 "squad_pred_invalid_utf8",
                 {{"data.json", squad_data()}, {"pred.json", "{\"q1\": \"a\",\n\"q2\": \"\xff\"}"}},
                 squad,
                 {"pred.json:2"}});
  out.push_back({"score",
                 "squad_v2_pred_missing_id",
                 {{"data.json", replace_all(squad_data(), "\"1.1\"", "\"v2.0\"")},
                  {"pred.json", "{\"q1\": \"the cat\"}"}},
                 squad,
                 {"q2"}});
  out.push_back({"score",
                 "squad_data_no_data_key",
                 {{"data.json", "{\"version\": \"1.1\"}"}, {"pred.json", kSquadPred}},
                 squad,
                 {"data.json:1"}});
  out.push_back(
      {"score",
       "squad_data_answers_not_list",
       {{"data.json", replace_all(squad_data(), "[{\"text\": \"the mat\", \"answer_start\": 15}]",
                                  "\"the mat\"")},
        {"pred.json", kSquadPred}},
       squad,
       {"data.json:6"}});
  out.push_back({"score",
                 "squad_data_empty",
                 {{"data.json", ""}, {"pred.json", kSquadPred}},
                 squad,
                 {"data.json"}});
  const std::string coqa = "score --metric coqa --data {d}/data.json --pred {d}/pred.json";
  out.push_back({"score",
                 "coqa_pred_truncated",
                 {{"data.json", coqa_data()}, {"pred.json", "[{\"id\": \"s1\",\n"}},
                 coqa,
                 {"pred.json:"}});
  out.push_back({"score",
                 "coqa_pred_turn_string",
                 {{"data.json", coqa_data()},
                  {"pred.json", "[{\"id\": \"s1\", \"turn_id\": \"one\", \"answer\": \"a\"}]"}},
                 coqa,
                 {"pred.json:1"}});
  out.push_back({"score",
                 "coqa_data_questions_missing",
                 {{"data.json",
                   "{\"data\": [{\"id\": \"s1\", \"source\": \"wikipedia\",\n\"answers\": []}]}"},
                  {"pred.json", kCoqaPred}},
                 coqa,
                 {"data.json:1"}});
  out.push_back(
      {"score",
       "coqa_data_invalid_utf8",
       {{"data.json", replace_all(coqa_data(), "a b c", "a \xfe c")}, {"pred.json", kCoqaPred}},
       coqa,
       {"data.json:1"}});
  const std::string glue = "score --metric glue --task sst2 --gold {d}/dev.tsv --pred {d}/pred.tsv";
  out.push_back({"score",
                 "glue_pred_bad_label",
                 {{"dev.tsv", kSst2Dev}, {"pred.tsv", "index\tprediction\n0\t1\n1\tmaybe\n2\t1\n"}},
                 glue,
                 {"pred.tsv:3"}});
  out.push_back({"score",
                 "glue_pred_ragged",
                 {{"dev.tsv", kSst2Dev}, {"pred.tsv", "index\tprediction\n0\t1\n"}},
                 glue,
                 {"pred.tsv"}});
  out.push_back(
      {"score",
       "glue_gold_invalid_utf8",
       {{"dev.tsv", "sentence\tlabel\nok\t1\n\xff\t0\nfine\t1\n"}, {"pred.tsv", kSst2Pred}},
       glue,
       {"dev.tsv:3"}});
}

void add_eval_cases(std::vector<Case>& out) {
  struct Task {
    std::string task, data_name, data, pred_name, pred;
  };
  const std::vector<Task> tasks = {
      {"squad", "data.json", squad_data(), "pred.json", kSquadPred},
      {"squad-v2", "data.json", squad_data(), "pred.json", kSquadPred},
      {"coqa", "data.json", coqa_data(), "pred.json", kCoqaPred},
      {"glue-sst2", "dev.tsv", kSst2Dev, "pred.tsv", kSst2Pred},
  };
  for (const Task& t : tasks) {
    const std::string args = "eval --task " + t.task + " --data {d}/" + t.data_name +
                             " --pred {d}/" + t.pred_name + " --out {d}/result.json";
    const bool json = t.pred_name == "pred.json";
    auto add = [&](const std::string& name, const std::string& data, const std::string& pred,
                   std::vector<std::string> expect) {
      out.push_back({"eval",
                     t.task + "_" + name,
                     {{t.data_name, data}, {t.pred_name, pred}},
                     args,
                     expect,
                     {"result.json"}});
    };
    add("pred_empty", t.data, "", {t.pred_name});
    add("pred_invalid_utf8", t.data, replace_all(t.pred, "1", "\xff"), {t.pred_name + ":"});
    add("data_invalid_utf8", t.data + "\xc0\xaf", t.pred, {t.data_name + ":"});
    add("data_missing", "", t.pred, {t.data_name});
    if (json) {
      add("pred_truncated", t.data, t.pred.substr(0, t.pred.size() / 2), {t.pred_name + ":"});
      add("pred_trailing_garbage", t.data, t.pred + "}", {t.pred_name + ":"});
      add("pred_nul_byte", t.data, std::string("{\"q1\": \"a\0b\"}", 13), {t.pred_name + ":1"});
      add("data_truncated", t.data.substr(0, t.data.size() - 8), t.pred, {t.data_name + ":"});
      add("data_top_level_array", "[1, 2]\n", t.pred, {t.data_name + ":1"});
      add("data_deep_nesting", std::string(100000, '['), t.pred, {t.data_name + ":1"});
    } else {
      add("pred_bad_label", t.data, "index\tprediction\n0\t1\n1\tpositive?\n2\t1\n",
          {t.pred_name + ":3"});
      add("pred_too_few", t.data, "index\tprediction\n0\t1\n", {t.pred_name});
      add("data_bad_label", "sentence\tlabel\na\t1\nb\tx\nc\t0\n", t.pred, {t.data_name + ":3"});
      add("data_header_only", "sentence\tlabel\n", t.pred, {t.data_name});
    }
  }
  // The data file given is missing altogether, and an unknown option value.
  out.push_back(
      {"eval",
       "squad_na_prob_file_bad",
       {{"data.json", squad_data()}, {"pred.json", kSquadPred}, {"na.json", "{\"q1\": \"high\"}"}},
       "eval --task squad-v2 --data {d}/data.json --pred {d}/pred.json --option "
       "na_prob_file={d}/na.json --out {d}/result.json",
       {"na.json:1"},
       {"result.json"}});
}

void add_tokenize_cases(std::vector<Case>& out) {
  const std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\n";
  out.push_back({"tokenize",
                 "input_invalid_utf8",
                 {{"vocab.txt", vocab}, {"in.txt", "the cat\nthe \xff cat\n"}},
                 "tokenize --vocab {d}/vocab.txt --input {d}/in.txt",
                 {"in.txt:2"}});
  out.push_back({"tokenize",
                 "input_invalid_utf8_json",
                 {{"vocab.txt", vocab}, {"in.txt", "the cat\nthe\ncat \xed\xa0\x80\n"}},
                 "tokenize --vocab {d}/vocab.txt --input {d}/in.txt --json",
                 {"in.txt:3"}});
  out.push_back({"tokenize",
                 "input_missing",
                 {{"vocab.txt", vocab}},
                 "tokenize --vocab {d}/vocab.txt --input {d}/in.txt",
                 {"in.txt"}});
  out.push_back({"tokenize",
                 "vocab_invalid_utf8",
                 {{"vocab.txt", "[PAD]\n[UNK]\n\xff\xfe\n"}},
                 "tokenize --vocab {d}/vocab.txt --text 'the cat'",
                 {"vocab.txt:3"}});
  out.push_back({"tokenize",
                 "vocab_empty",
                 {{"vocab.txt", ""}},
                 "tokenize --vocab {d}/vocab.txt --text 'the cat'",
                 {"vocab.txt"}});
  out.push_back({"tokenize",
                 "vocab_without_unk",
                 {{"vocab.txt", "[PAD]\n[CLS]\nthe\n"}},
                 "tokenize --vocab {d}/vocab.txt --text 'the cat'",
                 {"vocab.txt", "[UNK]"}});
  out.push_back({"tokenize",
                 "vocab_missing",
                 {},
                 "tokenize --vocab {d}/vocab.txt --text 'the cat'",
                 {"vocab.txt"}});
  out.push_back({"tokenize",
                 "text_invalid_utf8",
                 {{"vocab.txt", vocab}},
                 "tokenize --vocab {d}/vocab.txt --text \"$(printf 'the \\377')\"",
                 {"invalid UTF-8", "text"}});
  out.push_back({"tokenize",
                 "bpe_dir_missing_merges",
                 {{"gpt/encoder_bpe_40000.json", "{\"<unk>\": 0, \"a</w>\": 1}"}},
                 "tokenize --bpe {d}/gpt --text 'a'",
                 {"vocab_40000.bpe"}});
  out.push_back({"tokenize",
                 "bpe_encoder_truncated",
                 {{"gpt/encoder_bpe_40000.json", "{\"<unk>\": 0,\n\"a</w>\": "},
                  {"gpt/vocab_40000.bpe", "#version: 0.2\na b\n"}},
                 "tokenize --bpe {d}/gpt --text 'a'",
                 {"encoder_bpe_40000.json", "line 2"}});
  out.push_back({"tokenize",
                 "bpe_encoder_repeated_id",
                 {{"gpt/encoder_bpe_40000.json", "{\"<unk>\": 0,\n\"a</w>\": 0}"},
                  {"gpt/vocab_40000.bpe", "#version: 0.2\na b\n"}},
                 "tokenize --bpe {d}/gpt --text 'a'",
                 {"encoder_bpe_40000.json"}});
  out.push_back({"tokenize",
                 "bpe_merge_three_symbols",
                 {{"gpt/encoder_bpe_40000.json", "{\"<unk>\": 0, \"a</w>\": 1}"},
                  {"gpt/vocab_40000.bpe", "#version: 0.2\na b\na b c\n"}},
                 "tokenize --bpe {d}/gpt --text 'a'",
                 {"vocab_40000.bpe:3"}});
  out.push_back({"tokenize",
                 "bpe_merges_invalid_utf8",
                 {{"gpt/encoder_bpe_40000.json", "{\"<unk>\": 0, \"a</w>\": 1}"},
                  {"gpt/vocab_40000.bpe", "#version: 0.2\n\xff b\n"}},
                 "tokenize --bpe {d}/gpt --text 'a'",
                 {"vocab_40000.bpe:2"}});
  out.push_back({"tokenize",
                 "bpe_input_invalid_utf8",
                 {{"gpt/encoder_bpe_40000.json", "{\"<unk>\": 0, \"a</w>\": 1}"},
                  {"gpt/vocab_40000.bpe", "#version: 0.2\n"},
                  {"in.txt", "a\na\n\x80\n"}},
                 "tokenize --bpe {d}/gpt --input {d}/in.txt",
                 {"in.txt:3"}});
}

// Result files: "@result:<how>" in a case's files is a real `unieval eval --out` result (made once,
// see good_result) broken as <how> says (mutate_result).
std::string good_result();
std::string mutate_result(const std::string& how) {
  nlohmann::json j = nlohmann::json::parse(good_result());
  if (how == "good") return j.dump(2);
  if (how == "scores_string")
    j["scores"] = "high";
  else if (how == "score_value_string")
    j["scores"][0]["value"] = "high";
  else if (how == "score_no_name")
    j["scores"][0].erase("name");
  else if (how == "no_task")
    j.erase("task");
  else if (how == "task_number")
    j["task"] = 7;
  else if (how == "schema_version_99")
    j["schema_version"] = 99;
  else if (how == "summary_array")
    j["summary"] = nlohmann::json::array({1, 2});
  else if (how == "metrics_string")
    j["metrics"] = "glue";
  else if (how == "system_null")
    j["system"] = nullptr;
  return j.dump(2);
}

void add_result_cases(std::vector<Case>& out) {
  struct Bad {
    std::string name, text, where;
  };
  const std::vector<Bad> bad = {
      {"truncated", "{\n  \"task\": \"glue-sst2\",\n  \"scores\": {", "bad.json:3"},
      {"not_json", "task: glue\n", "bad.json:1"},
      {"array", "[1, 2, 3]\n", "bad.json"},
      {"empty", "", "bad.json"},
      {"invalid_utf8", "{\"task\": \"glue\xff\", \"scores\": {}}", "bad.json:1"},
      {"trailing_garbage", "{\"task\": \"glue-sst2\", \"scores\": {}} x", "bad.json:1"},
      {"deep_nesting", std::string(50000, '['), "bad.json:1"},
      {"scores_string", "@result:scores_string", "bad.json"},
      {"score_value_string", "@result:score_value_string", "bad.json"},
      {"score_no_name", "@result:score_no_name", "bad.json"},
      {"no_task", "@result:no_task", "bad.json"},
      {"task_number", "@result:task_number", "bad.json"},
      {"schema_version_99", "@result:schema_version_99", "bad.json"},
      {"metrics_string", "@result:metrics_string", "bad.json"},
  };
  for (const Bad& b : bad) {
    for (const std::string fmt : {"md", "csv", "html"}) {
      out.push_back(
          {"table",
           b.name + "_" + fmt,
           {{"good.json", "@result:good"}, {"bad.json", b.text}},
           "table --results {d}/good.json {d}/bad.json --format " + fmt + " --out {d}/table.out",
           {b.where},
           {"table.out"}});
    }
    out.push_back({"compare",
                   b.name + "_current",
                   {{"good.json", "@result:good"}, {"bad.json", b.text}},
                   "compare --files {d}/good.json {d}/bad.json",
                   {b.where}});
    out.push_back({"compare",
                   b.name + "_baseline",
                   {{"good.json", "@result:good"}, {"bad.json", b.text}},
                   "compare --files {d}/bad.json {d}/good.json",
                   {b.where}});
    out.push_back({"compare",
                   b.name + "_tolerances",
                   {{"good.json", "@result:good"}, {"bad.json", b.text}},
                   "compare --files {d}/good.json {d}/good.json --tolerances {d}/bad.json",
                   {"bad.json"}});
  }
  out.push_back({"compare",
                 "one_file_missing",
                 {{"good.json", "@result:good"}},
                 "compare --files {d}/good.json {d}/absent.json",
                 {"absent.json"},
                 {}});
  out.push_back({"plot",
                 "run_log_truncated",
                 {{"run/log.jsonl", "{\"step\": 1, \"loss\": 2.0}\n{\"step\": 2, \"loss\":"}},
                 "plot --run {d}/run --out {d}/curves.svg",
                 {"log.jsonl:2"},
                 {"curves.svg"}});
  out.push_back(
      {"plot",
       "run_log_invalid_utf8",
       {{"run/log.jsonl", "{\"step\": 1, \"loss\": 2.0}\n{\"step\": 2, \"note\": \"\xff\"}\n"}},
       "plot --run {d}/run --out {d}/curves.svg",
       {"log.jsonl:2"},
       {"curves.svg"}});
  out.push_back({"plot",
                 "run_log_loss_string",
                 {{"run/log.jsonl", "{\"step\": 1, \"loss\": \"high\"}\n"}},
                 "plot --run {d}/run --out {d}/curves.svg",
                 {"log.jsonl:1"},
                 {"curves.svg"}});
}

// ---- Model commands ----------------------------------------------------------------------

std::string model_words(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? " w" : "w") + std::to_string(i % 30);
  return s;
}
std::string vocab_text(bool mask = true, bool sep = true) {
  std::string v = "[PAD]\n[UNK]\n[CLS]\n";
  if (sep) v += "[SEP]\n";
  if (mask) v += "[MASK]\n";
  for (int i = 0; i < 30; ++i) v += "w" + std::to_string(i) + "\n";
  return v;
}
// vocab_text() and six words more: 41 entries against config_text()'s vocab_size 35.
std::string vocab_past_the_config() {
  return vocab_text() + "extra1\nextra2\nextra3\nextra4\nextra5\nextra6\n";
}
std::string config_text(int hidden = 32, int vocab = 35) {
  return nlohmann::json({{"vocab_size", vocab},
                         {"hidden_size", hidden},
                         {"num_hidden_layers", 1},
                         {"num_attention_heads", 2},
                         {"intermediate_size", 64},
                         {"max_position_embeddings", 64},
                         {"type_vocab_size", 6}})
      .dump();
}
std::string lines(int n, int words, int offset = 0) {
  std::string s;
  for (int i = 0; i < n; ++i) s += model_words(words + (i + offset) % 3) + "\n";
  return s;
}

void add_model_cases(std::vector<Case>& out) {
  // finetune from scratch: --model-config + --vocab + --data (train.src / train.tgt).
  const std::string ft =
      "finetune --model-config {d}/config.json --vocab {d}/vocab.txt --data {d}/data --out {d}/run "
      "--steps 1 --threads 1 --no-progress --batch-size 4 --max-src-len 16 --max-tgt-len 8";
  auto ft_case = [&](const std::string& name, std::map<std::string, std::string> change,
                     std::vector<std::string> expect, const std::string& args_extra = "") {
    std::map<std::string, std::string> files = {{"config.json", config_text()},
                                                {"vocab.txt", vocab_text()},
                                                {"data/train.src", lines(8, 4)},
                                                {"data/train.tgt", lines(8, 2)}};
    for (auto& [k, v] : change) {
      if (v == "<absent>")
        files.erase(k);
      else
        files[k] = v;
    }
    out.push_back({"finetune", name, files, ft + args_extra, expect, {"run"}, true});
  };
  ft_case("ragged_src_tgt", {{"data/train.tgt", lines(6, 2)}}, {"train.tgt", "train.src"});
  ft_case("ragged_tgt_longer", {{"data/train.tgt", lines(9, 2)}}, {"train.tgt", "train.src"});
  ft_case("src_invalid_utf8", {{"data/train.src", lines(2, 4) + "w1 \xff w2\n" + lines(5, 4)}},
          {"train.src:3"});
  ft_case("tgt_invalid_utf8", {{"data/train.tgt", lines(4, 2) + "\xc3\n" + lines(3, 2)}},
          {"train.tgt:5"});
  ft_case("src_missing", {{"data/train.src", "<absent>"}}, {"train.src"});
  ft_case("data_empty", {{"data/train.src", ""}, {"data/train.tgt", ""}}, {"train.src"});
  ft_case("vocab_without_mask", {{"vocab.txt", vocab_text(false, true)}}, {"vocab.txt", "[MASK]"});
  ft_case("vocab_without_sep", {{"vocab.txt", vocab_text(true, false)}}, {"vocab.txt", "[SEP]"});
  ft_case("vocab_invalid_utf8", {{"vocab.txt", vocab_text() + "\xff\n"}}, {"vocab.txt:36"});
  ft_case("vocab_larger_than_config", {{"vocab.txt", vocab_past_the_config()}},
          {"vocab.txt", "config.json", "vocab_size"});
  ft_case("config_truncated", {{"config.json", "{\"vocab_size\": 35,\n\"hidden_size\":"}},
          {"config.json", "line 2"});
  ft_case("config_heads_do_not_divide",
          {{"config.json",
            replace_all(config_text(), "\"num_attention_heads\":2", "\"num_attention_heads\":5")}},
          {"config.json", "num_attention_heads"});
  ft_case("config_negative_layers",
          {{"config.json",
            replace_all(config_text(), "\"num_hidden_layers\":1", "\"num_hidden_layers\":-1")}},
          {"config.json", "num_hidden_layers"});
  ft_case(
      "config_hidden_string",
      {{"config.json", replace_all(config_text(), "\"hidden_size\":32", "\"hidden_size\":\"32\"")}},
      {"config.json", "hidden_size"});
  ft_case("config_invalid_utf8", {{"config.json", "{\"vocab_size\": 35, \"x\": \"\xff\"}"}},
          {"config.json", "line 1"});
  ft_case("config_not_object", {{"config.json", "[40, 32]"}}, {"config.json"});
  ft_case("config_number_overflows_a_double",
          {{"config.json", replace_all(config_text(), "\"intermediate_size\":64",
                                       "\"intermediate_size\":1e999999")}},
          {"config.json", "not valid JSON"});

  // finetune --model DIR: a checkpoint folder whose config disagrees with its tensors, or that is
  // some other model's. {m}/ckpt is a real tiny checkpoint (made once, see ModelFixture).
  const std::string ftm =
      "finetune --model {d}/ckpt --data {m}/data --out {d}/run --steps 1 --threads 1 --no-progress";
  auto ckpt_case = [&](const std::string& name, std::map<std::string, std::string> files,
                       std::vector<std::string> expect) {
    out.push_back({"finetune", name, files, "@copy-ckpt " + ftm, expect, {"run"}, true});
  };
  ckpt_case("ckpt_config_hidden_disagrees", {{"ckpt/config.json", config_text(48)}},
            {"model.safetensors", "config.json"});
  ckpt_case("ckpt_config_vocab_disagrees", {{"ckpt/config.json", config_text(32, 50)}},
            {"ckpt", "word_embeddings"});
  ckpt_case(
      "ckpt_safetensors_truncated",
      {{"ckpt/model.safetensors", std::string("\x40\x00\x00\x00\x00\x00\x00\x00{\"a\":", 13)}},
      {"model.safetensors"});
  ckpt_case("ckpt_safetensors_header_too_long",
            {{"ckpt/model.safetensors", std::string("\xff\xff\xff\xff\x00\x00\x00\x00{}", 10)}},
            {"model.safetensors"});
  ckpt_case("ckpt_safetensors_offsets_overlap",
            {{"ckpt/model.safetensors",
              std::string("\x58\x00\x00\x00\x00\x00\x00\x00", 8) +
                  "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"b\":{"
                  "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}" +
                  std::string(4, '\0')}},
            {"model.safetensors"});
  ckpt_case("ckpt_config_missing", {{"ckpt/config.json", "<absent>"}}, {"config.json"});
  ckpt_case("ckpt_vocab_without_mask", {{"ckpt/vocab.txt", vocab_text(false, true)}},
            {"vocab.txt", "[MASK]"});
  ckpt_case("ckpt_vocab_larger_than_config", {{"ckpt/vocab.txt", vocab_past_the_config()}},
            {"ckpt/vocab.txt", "ckpt/config.json", "41 entries"});

  // decode --run: a run directory that is broken, or another model's.
  const std::string dec =
      "decode --run {d}/run --data {d}/data --out {d}/out.txt --threads 1 --no-progress --max-len "
      "4";
  auto dec_case = [&](const std::string& name, std::map<std::string, std::string> files,
                      std::vector<std::string> expect) {
    files.emplace("data/test.src", lines(4, 4));
    out.push_back(
        {"decode", name, files, "@copy-run " + dec, expect, {"out.txt", "out.txt.partial"}, true});
  };
  dec_case("test_src_invalid_utf8", {{"data/test.src", "w1 w2\n\xfe\n"}}, {"test.src:2"});
  dec_case("test_src_missing", {{"data/test.src", "<absent>"}}, {"test.src"});
  dec_case("run_checkpoint_config_disagrees", {{"run/checkpoint/config.json", config_text(48)}},
           {"model.safetensors"});
  dec_case("run_checkpoint_weights_missing", {{"run/checkpoint/model.safetensors", "<absent>"}},
           {"run"});
  dec_case("run_checkpoint_truncated_weights", {{"run/checkpoint/model.safetensors", "12345678"}},
           {"model.safetensors"});
  dec_case("run_vocab_without_sep", {{"run/checkpoint/vocab.txt", vocab_text(true, false)}},
           {"vocab.txt", "[SEP]"});
  dec_case("run_dir_empty", {{"run/.keep", ""}}, {"run"});
  dec_case("run_config_json_truncated", {{"run/run.json", "{\"model\":"}}, {"run.json", "line 1"});
  // A vocabulary with ids past the embedding table (a smaller one is masked: models/decoding/vocab_limit.h).
  dec_case("run_vocab_larger_than_config", {{"run/checkpoint/vocab.txt", vocab_past_the_config()}},
           {"checkpoint/vocab.txt", "checkpoint/config.json", "41 entries"});

  // decode --model (GPT): a BPE encoder with more entries than the config's token rows, refused
  // before the weights load (the weights here are a placeholder).
  const std::string gpt_config = nlohmann::json({{"model_type", "openai-gpt"},
                                                 {"vocab_size", 4},
                                                 {"n_embd", 8},
                                                 {"n_layer", 1},
                                                 {"n_head", 2},
                                                 {"n_positions", 16}})
                                     .dump();
  out.push_back(
      {"decode",
       "gpt_bpe_larger_than_config",
       {{"gpt/config.json", gpt_config},
        {"gpt/model.safetensors", "placeholder"},
        {"gpt/vocab.json",
         "{\"<unk>\": 0, \"a</w>\": 1, \"b</w>\": 2, \"c</w>\": 3, \"d</w>\": 4, \"e</w>\": 5}"},
        {"gpt/merges.txt", "#version: 0.2\n"},
        {"prompts.txt", "a b\nc\n"}},
       "decode --model {d}/gpt --input {d}/prompts.txt --out {d}/out.txt --threads 1",
       {"gpt/vocab.json", "gpt/config.json", "6 entries"},
       {"out.txt"},
       true});

  // pretrain: corpus and vocab.
  const std::string pt =
      "pretrain --corpus {d}/corpus.txt --model-config {d}/config.json --vocab {d}/vocab.txt "
      "--out {d}/run --steps 1 --threads 1 --no-progress --batch-size 4 --max-len 16";
  auto pt_case = [&](const std::string& name, std::map<std::string, std::string> change,
                     std::vector<std::string> expect) {
    std::map<std::string, std::string> files = {
        {"config.json", config_text()},
        {"vocab.txt", vocab_text()},
        {"corpus.txt", lines(6, 5) + "\n" + lines(6, 5, 1)}};
    for (auto& [k, v] : change) files[k] = v;
    out.push_back({"pretrain", name, files, pt, expect, {"run"}, true});
  };
  pt_case("corpus_invalid_utf8", {{"corpus.txt", lines(3, 5) + "w1 \xff\n"}}, {"corpus.txt:4"});
  pt_case("corpus_empty", {{"corpus.txt", ""}}, {"corpus.txt"});
  pt_case("corpus_blank_lines_only", {{"corpus.txt", "\n\n  \n"}}, {"corpus.txt"});
  pt_case("vocab_without_mask", {{"vocab.txt", vocab_text(false, true)}}, {"vocab.txt", "[MASK]"});
  pt_case("vocab_without_sep", {{"vocab.txt", vocab_text(true, false)}}, {"vocab.txt", "[SEP]"});
  pt_case("config_truncated", {{"config.json", "{\"vocab_size\":"}}, {"config.json", "line 1"});
  pt_case("config_too_few_segments",
          {{"config.json",
            replace_all(config_text(), "\"type_vocab_size\":6", "\"type_vocab_size\":2")}},
          {"config.json", "type_vocab_size is 2"});
  pt_case("vocab_larger_than_config", {{"vocab.txt", vocab_past_the_config()}},
          {"vocab.txt", "config.json", "41 entries"});
  // --resume: the run's own vocab.txt and config.json (the fixture's pre-training run, copied).
  out.push_back({"pretrain",
                 "resume_vocab_larger_than_config",
                 {{"@pretrain-run", ""}, {"run/vocab.txt", vocab_past_the_config()}},
                 "@copy-run pretrain --resume --out {d}/run --steps 2 --threads 1 --no-progress",
                 {"run/vocab.txt", "run/config.json", "41 entries"},
                 {},
                 true});
  pt_case("config_fewer_positions_than_max_len",
          {{"config.json", replace_all(config_text(), "\"max_position_embeddings\":64",
                                       "\"max_position_embeddings\":8")}},
          {"config.json", "max_position_embeddings 8"});

  // run: the task's data in its distributed format.
  const std::string run =
      "run --task squad-qg --data {d}/qg --model-config {d}/config.json --vocab {d}/vocab.txt "
      "--out {d}/run --threads 1 --no-progress --stop-after 1 --train-limit 4 --skip-metric meteor";
  out.push_back({"run",
                 "qg_data_missing",
                 {{"config.json", config_text()}, {"vocab.txt", vocab_text()}},
                 run,
                 {"qg"},
                 {"run"},
                 true});
  out.push_back({"run",
                 "qg_src_invalid_utf8",
                 {{"config.json", config_text()},
                  {"vocab.txt", vocab_text()},
                  {"qg/src-train.txt", "w1\n\xff\n"},
                  {"qg/tgt-train.txt", "w1\nw2\n"},
                  {"qg/src-test.txt", "w1\n"},
                  {"qg/tgt-test.txt", "w1\n"}},
                 run,
                 {"src-train.txt:2"},
                 {"run"},
                 true});
  out.push_back({"run",
                 "qg_ragged",
                 {{"config.json", config_text()},
                  {"vocab.txt", vocab_text()},
                  {"qg/src-train.txt", "w1\nw2\nw3\n"},
                  {"qg/tgt-train.txt", "w1\nw2\n"},
                  {"qg/src-test.txt", "w1\n"},
                  {"qg/tgt-test.txt", "w1\n"}},
                 run,
                 {"tgt-train.txt"},
                 {"run"},
                 true});
  out.push_back({"run",
                 "vocab_without_mask",
                 {{"config.json", config_text()},
                  {"vocab.txt", vocab_text(false, true)},
                  {"qg/src-train.txt", "w1\nw2\n"},
                  {"qg/tgt-train.txt", "w1\nw2\n"},
                  {"qg/src-test.txt", "w1\n"},
                  {"qg/tgt-test.txt", "w1\n"}},
                 run,
                 {"vocab.txt", "[MASK]"},
                 {"run"},
                 true});
  out.push_back({"run",
                 "glue_data_bad_label",
                 {{"config.json", config_text()},
                  {"vocab.txt", vocab_text()},
                  {"sst/train.tsv", "sentence\tlabel\nw1 w2\t1\nw3\tyes\n"},
                  {"sst/dev.tsv", "sentence\tlabel\nw1\t1\n"}},
                 "run --task glue-sst2 --data {d}/sst --model-config {d}/config.json --vocab "
                 "{d}/vocab.txt --out {d}/run "
                 "--threads 1 --no-progress --stop-after 1",
                 {"train.tsv:3"},
                 {"run"},
                 true});
}

std::vector<Case> corpus() {
  std::vector<Case> c;
  add_score_cases(c);
  add_eval_cases(c);
  add_tokenize_cases(c);
  add_result_cases(c);
  add_model_cases(c);
  return c;
}

// ---- The model fixture: one tiny checkpoint and run, made once ----------------------------

bool have_model_commands() {
  static const bool yes = run_cli("finetune --help").exit_code == 0;
  return yes;
}

struct ModelFixture {
  TempDir dir;
  std::string error;
  ModelFixture() {
    dir.write("config.json", config_text());
    dir.write("vocab.txt", vocab_text());
    dir.write("data/train.src", lines(8, 4));
    dir.write("data/train.tgt", lines(8, 2));
    dir.write("corpus.txt", lines(6, 5) + "\n" + lines(6, 5, 1));
    const std::string d = dir.path().string();
    auto r = run_cli(
        "finetune --model-config " + shq(d + "/config.json") + " --vocab " + shq(d + "/vocab.txt") +
        " --data " + shq(d + "/data") + " --out " + shq(d + "/run") +
        " --steps 1 --threads 1 --no-progress --batch-size 4 --max-src-len 16 --max-tgt-len 8");
    if (r.exit_code != 0) error += "finetune: " + r.err;
    auto p = run_cli("pretrain --corpus " + shq(d + "/corpus.txt") + " --model-config " +
                     shq(d + "/config.json") + " --vocab " + shq(d + "/vocab.txt") + " --out " +
                     shq(d + "/pretrain") +
                     " --steps 1 --threads 1 --no-progress --batch-size 4 --max-len 16");
    if (p.exit_code != 0) error += "pretrain: " + p.err;
  }
};
ModelFixture& model_fixture() {
  static ModelFixture f;
  return f;
}

void copy_tree(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

std::string good_result() {
  static const std::string text = [] {
    TempDir t;
    const std::string d = t.path().string();
    t.write("dev.tsv", kSst2Dev);
    t.write("pred.tsv", kSst2Pred);
    auto r = run_cli("eval --task glue-sst2 --data " + shq(d + "/dev.tsv") + " --pred " +
                     shq(d + "/pred.tsv") + " --out " + shq(d + "/r.json"));
    std::ifstream in(d + "/r.json");
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }();
  return text;
}

// Case names instead of gtest's byte dump.
void PrintTo(const Case& c, std::ostream* os) { *os << c.command << "/" << c.name; }

class BadInputCorpusTest : public ::testing::TestWithParam<Case> {};

TEST_P(BadInputCorpusTest, ExitsTwoNamingTheFileWithoutOutput) {
  const Case& c = GetParam();
  if (c.model && !have_model_commands()) GTEST_SKIP() << "this unieval was built without LibTorch";
  TempDir tmp;
  const std::string d = tmp.path().string();
  std::string args = c.args;
  std::string m;
  if (c.model) {
    ModelFixture& f = model_fixture();
    ASSERT_EQ(f.error, "") << "the model fixture failed";
    m = f.dir.path().string();
    if (args.rfind("@copy-ckpt ", 0) == 0) {
      copy_tree(f.dir.path() / "run" / "checkpoint", tmp.path() / "ckpt");
      args = args.substr(11);
    } else if (args.rfind("@copy-run ", 0) == 0) {
      if (c.files.count("@pretrain-run"))
        copy_tree(f.dir.path() / "pretrain", tmp.path() / "run");
      else if (!c.files.count("run/.keep"))
        copy_tree(f.dir.path() / "run", tmp.path() / "run");
      args = args.substr(10);
    }
  }
  for (const auto& [name, bytes] : c.files) {
    if (name[0] == '@') continue;
    if (bytes == "<absent>") {
      fs::remove(tmp.path() / name);
      continue;
    }
    tmp.write(name, bytes.rfind("@result:", 0) == 0 ? mutate_result(bytes.substr(8)) : bytes);
  }
  args = replace_all(replace_all(args, "{d}", d), "{m}", m);
  auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2) << "unieval " << args << "\nstderr: " << r.err;
  for (const std::string& e : c.expect)
    EXPECT_NE(r.err.find(e), std::string::npos) << "no '" << e << "' in: " << r.err;
  for (const std::string& a : c.absent)
    EXPECT_FALSE(fs::exists(tmp.path() / a)) << a << " was left behind";
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string s = info.param.command + "_" + info.param.name;
  for (char& ch : s)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInputCorpusTest, ::testing::ValuesIn(corpus()), case_name);

// The corpus covers every command and holds at least 200 cases (#23).
TEST(BadInputCorpusSizeTest, AtLeastTwoHundredCasesAcrossTheCommands) {
  std::map<std::string, int> per_command;
  std::set<std::string> names;
  for (const Case& c : corpus()) {
    ++per_command[c.command];
    EXPECT_TRUE(names.insert(c.command + "/" + c.name).second) << "duplicate case " << c.name;
  }
  int total = 0;
  for (const auto& [cmd, n] : per_command) {
    std::printf("%-10s %d\n", cmd.c_str(), n);
    total += n;
  }
  EXPECT_GE(total, 200);
  for (const char* cmd : {"score", "eval", "tokenize", "table", "compare", "plot", "finetune",
                          "decode", "pretrain", "run"})
    EXPECT_GT(per_command[cmd], 0) << cmd;
}

}  // namespace
