// `unieval encode`: run a checkpoint on HF-style inputs and print/write its outputs, to confirm
// that a checkpoint loaded right (parity with Hugging Face's BertForPreTraining outputs, and with
// OpenAIGPTLMHeadModel / OpenAIGPTDoubleHeadsModel for an openai-gpt checkpoint).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "apps/unieval/commands.h"
#include "apps/unieval/torch/model_flags.h"
#include "core/error.h"
#include "core/io.h"
#include "models/io/checkpoint.h"
#include "models/nn/device.h"
#include "models/nn/gpt.h"

namespace unieval::cli {

namespace {

const char* kEncodeUsage =
    "usage: unieval encode --model DIR --input CASES.json [--json] [--output FILE]\n"
    "                      [--hidden-states] [--check] [--device cpu|cuda] [--precision fp32]\n"
    "\n"
    "Runs the checkpoint DIR (config.json + model.safetensors, HF BERT names; or a .safetensors\n"
    "file beside a config.json) in eval mode on every case of CASES.json:\n"
    "  {\"cases\": [{\"name\": ..., \"inputs\": {\"input_ids\": [B][T], \"token_type_ids\": "
    "[B][T],\n"
    "               \"attention_mask\": [B][T] (padding) or [B][T][T] (1 = query i sees key j),\n"
    "               \"position_ids\": [B][T] or null}}]}\n"
    "and writes {\"cases\": [{\"name\", \"outputs\": {\"last_hidden_state\", \"pooler_output\",\n"
    "\"logits\"}}]} in input order, each output {\"shape\", \"data\"} (flat, row-major; logits are "
    "the\n"
    "MLM scores). --json prints it, --output writes it; otherwise a summary table is printed. When "
    "a\n"
    "case also holds expected \"outputs\" (as ../shared/golden/hf_bert/*/cases.json does), the "
    "table\n"
    "shows max|diff| against them; --check exits 1 when one exceeds --atol (--logits-atol for\n"
    "logits).\n"
    "An openai-gpt checkpoint (config.json with model_type \"openai-gpt\"; HF GPT names, Conv1D\n"
    "layout) is run as HF's OpenAIGPTLMHeadModel: outputs last_hidden_state and logits (the tied "
    "LM\n"
    "head; no pooler); token_type_ids are vocabulary ids as in HF; input_ids may be [B][C][T]\n"
    "(multiple choice, no mask) with \"mc_token_ids\": [B][C], which adds \"mc_logits\" [B, C] "
    "when\n"
    "the checkpoint holds multiple_choice_head.summary (or --mc-head FILE supplies it).\n"
    "\n"
    "example: unieval encode --model ../shared/golden/hf_bert/A_h32_l2 \\\n"
    "           --input ../shared/golden/hf_bert/A_h32_l2/cases.json --check";

struct Case {
  std::string name;
  torch::Tensor ids, types, mask, positions, mc;  // ids [B,T] (GPT multiple choice: [B,C,T])
  nlohmann::json expected;                        // the case's "outputs", or null
};

// Flattens a rectangular nested array of numbers; returns its shape.
void flatten(const nlohmann::json& j, size_t depth, std::vector<int64_t>& shape,
             std::vector<double>& out, const std::string& what) {
  if (j.is_array()) {
    if (shape.size() <= depth) {
      shape.push_back(static_cast<int64_t>(j.size()));
    } else if (shape[depth] != static_cast<int64_t>(j.size())) {
      throw InputError(what + " is not rectangular (rows of length " +
                       std::to_string(shape[depth]) + " and " + std::to_string(j.size()) + ")");
    }
    for (const auto& x : j) flatten(x, depth + 1, shape, out, what);
    return;
  }
  if (depth != shape.size()) throw InputError(what + " is not rectangular (mixed depths)");
  if (j.is_boolean()) {
    out.push_back(j.get<bool>() ? 1.0 : 0.0);
  } else if (j.is_number()) {
    out.push_back(j.get<double>());
  } else {
    throw InputError(what + " holds a non-number: " + j.dump());
  }
}

torch::Tensor int_tensor(const nlohmann::json& j, const std::string& what, int min_dim,
                         int max_dim) {
  std::vector<int64_t> shape;
  std::vector<double> vals;
  flatten(j, 0, shape, vals, what);
  if (static_cast<int>(shape.size()) < min_dim || static_cast<int>(shape.size()) > max_dim)
    throw InputError(what + " must have " + std::to_string(min_dim) +
                     (min_dim == max_dim ? "" : " or " + std::to_string(max_dim)) +
                     " dimensions, has " + std::to_string(shape.size()));
  std::vector<int64_t> ints;
  ints.reserve(vals.size());
  for (double v : vals) {
    if (v != std::floor(v) || std::fabs(v) > 9e15)
      throw InputError(what + " holds a non-integer: " + std::to_string(v));
    ints.push_back(static_cast<int64_t>(v));
  }
  return torch::tensor(ints, torch::kLong).reshape(shape);
}

std::vector<Case> read_cases(const std::string& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(core::read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, 0, std::string("not valid JSON: ") + e.what());
  }
  const nlohmann::json* arr = &doc;
  if (doc.is_object()) {
    auto it = doc.find("cases");
    if (it == doc.end() || !it->is_array()) throw InputError(path, 0, "no \"cases\" array");
    arr = &*it;
  } else if (!doc.is_array()) {
    throw InputError(path, 0, "expected {\"cases\": [...]}");
  }
  std::vector<Case> cases;
  for (size_t i = 0; i < arr->size(); ++i) {
    const auto& c = (*arr)[i];
    Case out;
    out.name = "case" + std::to_string(i);
    if (!c.is_object())
      throw InputError(path, 0, "case " + std::to_string(i) + " is not an object");
    if (auto n = c.find("name"); n != c.end() && n->is_string()) out.name = n->get<std::string>();
    const nlohmann::json& in = c.contains("inputs") ? c["inputs"] : c;
    if (!in.is_object())
      throw InputError(path, 0, "case '" + out.name + "': inputs is not an object");
    try {
      if (!in.contains("input_ids")) throw InputError("no input_ids");
      out.ids = int_tensor(in["input_ids"], "input_ids", 2, 3);
      if (out.ids.numel() == 0) throw InputError("input_ids is empty");
      if (out.ids.dim() == 3) {  // GPT multiple choice: no other input but mc_token_ids
        for (const char* k : {"token_type_ids", "position_ids", "attention_mask"})
          if (in.contains(k) && !in[k].is_null())
            throw InputError(std::string("3-D (multiple-choice) input_ids take no ") + k);
        if (in.contains("mc_token_ids") && !in["mc_token_ids"].is_null()) {
          out.mc = int_tensor(in["mc_token_ids"], "mc_token_ids", 2, 2);
          if (out.mc.size(0) != out.ids.size(0) || out.mc.size(1) != out.ids.size(1))
            throw InputError("mc_token_ids must be [batch, choices] like input_ids");
          if (out.mc.lt(0).any().item<bool>() || out.mc.ge(out.ids.size(2)).any().item<bool>())
            throw InputError("mc_token_ids outside the sequences");
        }
      }
      const int64_t B = out.ids.size(0), T = out.ids.size(out.ids.dim() - 1);
      auto same_bt = [&](const torch::Tensor& t, const char* what) {
        if (t.size(0) != B || t.size(1) != T)
          throw InputError(std::string(what) + " does not match input_ids [" + std::to_string(B) +
                           ", " + std::to_string(T) + "]");
      };
      if (in.contains("token_type_ids") && !in["token_type_ids"].is_null()) {
        out.types = int_tensor(in["token_type_ids"], "token_type_ids", 2, 2);
        same_bt(out.types, "token_type_ids");
      }
      if (in.contains("position_ids") && !in["position_ids"].is_null()) {
        out.positions = int_tensor(in["position_ids"], "position_ids", 2, 2);
        same_bt(out.positions, "position_ids");
      }
      if (in.contains("attention_mask") && !in["attention_mask"].is_null()) {
        out.mask = int_tensor(in["attention_mask"], "attention_mask", 2, 3);
        same_bt(out.mask, "attention_mask");
        if (out.mask.dim() == 3 && out.mask.size(2) != T)
          throw InputError("a 3-D attention_mask must be [batch, T, T]");
        if (out.mask.lt(0).any().item<bool>() || out.mask.gt(1).any().item<bool>())
          throw InputError("attention_mask must hold 0/1");
      }
    } catch (const InputError& e) {
      throw InputError(path, 0, "case '" + out.name + "': " + e.problem());
    }
    if (auto o = c.find("outputs"); o != c.end() && o->is_object()) out.expected = *o;
    cases.push_back(std::move(out));
  }
  return cases;
}

void append_float(std::string& out, float v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);  // shortest round-trip float
  out.append(buf, r.ptr);
}

void append_output(std::string& out, const torch::Tensor& t) {
  torch::Tensor c = t.detach().to(torch::kCPU, torch::kFloat).contiguous();
  out += "{\"shape\": [";
  for (int64_t d = 0; d < c.dim(); ++d) out += (d ? ", " : "") + std::to_string(c.size(d));
  out += "], \"data\": [";
  const float* p = c.data_ptr<float>();
  for (int64_t i = 0; i < c.numel(); ++i) {
    if (i) out += ", ";
    append_float(out, p[i]);
  }
  out += "]}";
}

// max|a - expected| when shapes agree; -1 when they do not (or expected is malformed).
double max_abs_diff(const torch::Tensor& got, const nlohmann::json& expected) {
  if (!expected.is_object() || !expected.contains("data") || !expected.contains("shape")) return -1;
  std::vector<int64_t> shape = expected["shape"].get<std::vector<int64_t>>();
  if (got.sizes() != at::IntArrayRef(shape)) return -1;
  torch::Tensor c = got.detach().to(torch::kCPU, torch::kFloat).contiguous();
  const auto& data = expected["data"];
  if (!data.is_array() || static_cast<int64_t>(data.size()) != c.numel()) return -1;
  const float* p = c.data_ptr<float>();
  double m = 0;
  for (int64_t i = 0; i < c.numel(); ++i) {
    float ref = static_cast<float>(data[static_cast<size_t>(i)].get<double>());
    m = std::max(m, std::fabs(static_cast<double>(p[i]) - static_cast<double>(ref)));
  }
  return m;
}

// The checkpoint of --model (a GPT one with its multiple-choice head when it has one, or
// --mc-head's), on the runtime's device in eval mode.
struct Encoder {
  bool gpt = false;
  models::UnilmModel model{nullptr};
  models::GptModel gpt_model{nullptr};
  bool has_mc = false;        // GPT: a multiple-choice head was loaded
  int64_t max_positions = 0;  // longest input the model takes
};

Encoder load_encoder(const po::variables_map& vm, const models::Runtime& rt,
                     models::LoadReport& report) {
  Encoder e;
  const std::string model_path = vm["model"].as<std::string>();
  e.gpt = models::is_gpt_checkpoint(model_path);
  if (e.gpt) {
    e.gpt_model = models::load_gpt_checkpoint(
        model_path, models::GptHeads{.num_labels = 0, .multiple_choice = true}, &report);
    auto& miss = report.missing_keys;
    const size_t before = miss.size();
    miss.erase(std::remove_if(
                   miss.begin(), miss.end(),
                   [](const std::string& k) { return k.rfind("multiple_choice_head.", 0) == 0; }),
               miss.end());
    e.has_mc = before == miss.size();
    if (vm.count("mc-head")) {
      models::LoadReport mc =
          models::load_gpt_weights(e.gpt_model, vm["mc-head"].as<std::string>());
      e.has_mc = mc.loaded == 2;
      if (!e.has_mc)
        throw InputError(vm["mc-head"].as<std::string>(), 0,
                         "holds no multiple_choice_head.summary.{weight,bias}");
    }
    e.gpt_model->to(rt.device);
    e.gpt_model->eval();
    e.max_positions = e.gpt_model->config().n_positions;
  } else {
    e.model = models::load_checkpoint(model_path, {}, &report);
    e.model->to(rt.device);
    e.model->eval();
    e.max_positions = e.model->config().max_position_embeddings;
  }
  return e;
}

}  // namespace

int cmd_encode(const Args& args) {
  po::options_description desc("encode options");
  desc.add_options()("model", po::value<std::string>()->required(),
                     "checkpoint directory (config.json + model.safetensors) or .safetensors file")(
      "input", po::value<std::string>()->required(),
      "CASES.json ({\"cases\": [{\"name\", \"inputs\": {...}}]})")(
      "json", po::bool_switch(), "print the outputs as JSON on standard output")(
      "output", po::value<std::string>(), "write the outputs JSON to this file (atomically)")(
      "hidden-states", po::bool_switch(), "also output hidden_states [L+1, B, T, H]")(
      "check", po::bool_switch(),
      "exit 1 when an expected output in CASES.json differs beyond tolerance")(
      "atol", po::value<double>()->default_value(1e-4),
      "tolerance for hidden states and pooler (max abs)")(
      "logits-atol", po::value<double>()->default_value(2e-4), "tolerance for logits (max abs)")(
      "precision", po::value<std::string>()->default_value("fp32"),
      "fp32 | bf16 | fp16 (CUDA autocast) | auto")(
      "mc-head", po::value<std::string>(),
      "GPT: a safetensors file with multiple_choice_head.summary.{weight,bias} (adds mc_logits)");
  add_device_flags(desc, "CPU threads (0 = default)");
  auto vm = parse(args, desc, kEncodeUsage);

  models::Runtime rt = models::configure_runtime(device_flags(vm));

  std::vector<Case> cases = read_cases(vm["input"].as<std::string>());
  models::LoadReport report;
  const Encoder enc = load_encoder(vm, rt, report);
  const bool gpt = enc.gpt;
  models::UnilmModel model = enc.model;  // (holders: shared, no copy of the weights)
  models::GptModel gpt_model = enc.gpt_model;
  const bool has_mc = enc.has_mc;
  const int64_t max_positions = enc.max_positions;
  if (!report.summary().empty()) warn(report.summary());
  const bool want_hidden = vm["hidden-states"].as<bool>();
  const double atol = vm["atol"].as<double>(), logits_atol = vm["logits-atol"].as<double>();

  std::string json = "{\"cases\": [";
  std::ostringstream table;
  table << "case                                 output              shape            max|diff|\n";
  bool any_fail = false, any_expected = false;
  torch::NoGradGuard no_grad;
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& c = cases[ci];
    auto ctx = [&](const std::string& problem) {
      return InputError(vm["input"].as<std::string>(), 0, "case '" + c.name + "': " + problem);
    };
    const int64_t T = c.ids.size(c.ids.dim() - 1);
    if (!c.positions.defined() && T > max_positions)
      throw ctx("sequence length " + std::to_string(T) + " exceeds the model's " +
                std::to_string(max_positions) + " positions");
    if (!gpt && c.ids.dim() != 2)
      throw ctx("input_ids must be [batch, time] for a BERT checkpoint");
    std::vector<std::pair<std::string, torch::Tensor>> outputs;
    try {
      auto dev_or_undef = [&](const torch::Tensor& t) { return t.defined() ? t.to(rt.device) : t; };
      models::AutocastScope amp(rt);
      if (gpt) {
        const bool mc = c.ids.dim() == 3;
        const auto shape = c.ids.sizes().vec();
        torch::Tensor ids = c.ids.reshape({-1, T}).to(rt.device);
        models::GptOutput out = gpt_model->forward(ids, dev_or_undef(c.mask), dev_or_undef(c.types),
                                                   dev_or_undef(c.positions), want_hidden);
        auto as_input = [&](const torch::Tensor& t) {  // [B·C, T, ...] -> [B, C, T, ...]
          if (!mc) return t;
          auto s = shape;
          for (int64_t d = 2; d < t.dim(); ++d) s.push_back(t.size(d));
          return t.reshape(s);
        };
        outputs.emplace_back("last_hidden_state", as_input(out.last_hidden_state));
        outputs.emplace_back("logits", as_input(gpt_model->lm_logits(out.last_hidden_state)));
        if (mc && c.mc.defined() && has_mc) {
          torch::Tensor ext = models::GptModelImpl::gather_positions(
              out.last_hidden_state, c.mc.reshape({-1}).to(rt.device));
          outputs.emplace_back("mc_logits",
                               gpt_model->choice_score(ext).view({shape[0], shape[1]}));
        }
        if (want_hidden && !mc)
          outputs.emplace_back("hidden_states", torch::stack(out.hidden_states));
      } else {
        models::BertOutput out =
            model->forward(c.ids.to(rt.device), dev_or_undef(c.types), dev_or_undef(c.mask),
                           dev_or_undef(c.positions), want_hidden);
        outputs = {{"last_hidden_state", out.last_hidden_state},
                   {"pooler_output", out.pooler_output},
                   {"logits", model->mlm_logits(out.last_hidden_state)}};
        if (want_hidden) outputs.emplace_back("hidden_states", torch::stack(out.hidden_states));
      }
    } catch (const InputError& e) {
      throw ctx(e.problem());
    }
    if (ci) json += ", ";
    nlohmann::json name = c.name;
    json += "{\"name\": " + name.dump() + ", \"outputs\": {";
    for (size_t k = 0; k < outputs.size(); ++k) {
      const auto& [key, t] = outputs[k];
      if (k) json += ", ";
      json += "\"" + key + "\": ";
      append_output(json, t);
      std::string shape = "[";
      for (int64_t d = 0; d < t.dim(); ++d) shape += (d ? "," : "") + std::to_string(t.size(d));
      shape += "]";
      std::string diff = "-";
      if (!c.expected.is_null() && c.expected.contains(key)) {
        any_expected = true;
        double m = max_abs_diff(t, c.expected[key]);
        double tol = key == "logits" ? logits_atol : atol;
        if (m < 0) {
          diff = "shape/format mismatch FAIL";
          any_fail = true;
        } else {
          char buf[64];
          std::snprintf(buf, sizeof(buf), "%.3g %s", m, m <= tol ? "ok" : "FAIL");
          diff = buf;
          any_fail |= !(m <= tol);
        }
      }
      std::string cname = c.name.size() > 36 ? c.name.substr(0, 36) : c.name;
      table << cname << std::string(37 - cname.size(), ' ') << key
            << std::string(key.size() < 20 ? 20 - key.size() : 1, ' ') << shape
            << std::string(shape.size() < 17 ? 17 - shape.size() : 1, ' ') << diff << "\n";
    }
    json += "}}";
  }
  json += "]}\n";

  if (vm.count("output")) core::write_file_atomic(vm["output"].as<std::string>(), json);
  if (vm["json"].as<bool>()) {
    std::fwrite(json.data(), 1, json.size(), stdout);
    std::fflush(stdout);
  } else {
    std::cout << table.str();
    std::cout << "model " << vm["model"].as<std::string>() << " on " << rt.describe() << "; "
              << report.loaded << " parameters loaded";
    if (any_expected)
      std::cout << (any_fail ? "; expected outputs: MISMATCH"
                             : "; expected outputs: all within tolerance");
    std::cout << "\n";
  }
  if (vm["check"].as<bool>()) {
    if (!any_expected)
      throw InputError(vm["input"].as<std::string>(), 0,
                       "--check: the cases hold no expected outputs");
    if (any_fail) {
      std::cerr << "unieval encode: outputs differ from the expected ones beyond tolerance\n";
      return kExitFailure;
    }
  }
  return kExitOk;
}

}  // namespace unieval::cli
