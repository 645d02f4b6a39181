#pragma once
// Follows HF transformers (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// GPT (Radford et al. 2018, "Improving Language Understanding by Generative Pre-Training"): the
// left-to-right Transformer decoder of §3.1 / §4.1 in LibTorch, numerically equal to HF
// transformers v4.30.2 `OpenAIGPTModel` / `OpenAIGPTLMHeadModel` / `OpenAIGPTDoubleHeadsModel`
// (fp32, eval mode; checked against ../shared/golden/hf_gpt to 1e-4), with HF's parameter names
// so that `openai-gpt` checkpoints load by name.
//
//   using namespace unieval::models;
//   LoadReport report;
//   GptModel model = load_gpt_checkpoint("openai-gpt/", {}, &report);   // eval() mode
//   GptOutput out = model->forward(ids, mask);          // ids [B,T] int64, mask [B,T] 0/1 or {}
//   torch::Tensor logits = model->lm_logits(out.last_hidden_state);   // [B,T,V]
//
// Architecture (§3.1 eq. 2, §4.1; HF's module layout):
//   h0 = tokens_embed[ids] + positions_embed[pos] (+ tokens_embed[token_type_ids], HF's use of the
//        token matrix for types); dropout(embd_pdrop). No embedding LayerNorm, no scaling.
//   block (post-LN, as the paper's released code): a = c_proj(attn(c_attn(h))); n = ln_1(h + a);
//        m = c_proj(act(c_fc(n))); h' = ln_2(n + m)   (resid_pdrop dropout on a and m)
//   attn: c_attn(h) split into [q | k | v]; per head w = q·kᵀ/√d; w = w·tril + (−1e4)(1 − tril)
//        (the causal mask, as HF); + (1 − m)·finfo(float).min for a padding mask m; softmax;
//        dropout(attn_pdrop); · v; heads merged. No final LayerNorm (unlike GPT-2).
//   act: config "afn": "gelu" is the tanh approximation 0.5x(1 + tanh(√(2/π)(x + 0.044715x³)))
//        (HF's gelu_new; §4.1 "Gaussian Error Linear Unit"), also "relu", "silu"/"swish".
//   lm_logits = h · tokens_embedᵀ (the weight-tied output layer of eq. 2; no bias).
//   Conv1D (c_attn, c_proj, c_fc) stores its weight [in, out] and computes x·W + b, exactly HF's
//   layout: no transposition anywhere, and a checkpoint's weights load as stored.
//
// Parameter names (named_parameters(), exactly HF's `OpenAIGPTLMHeadModel.state_dict()` minus
// buffers and the tied lm_head):
//   transformer.tokens_embed.weight [V,E], transformer.positions_embed.weight [P,E]
//   transformer.h.{i}.attn.c_attn.{weight [E,3E], bias}, transformer.h.{i}.attn.c_proj.{weight,bias}
//   transformer.h.{i}.ln_1.{weight,bias}, transformer.h.{i}.mlp.c_fc.{weight [E,4E],bias}
//   transformer.h.{i}.mlp.c_proj.{weight [4E,E],bias}, transformer.h.{i}.ln_2.{weight,bias}
//   multiple_choice_head.summary.{weight [1,E], bias}   (GptHeads::multiple_choice; HF DoubleHeads)
//   classifier.{weight [K,E], bias}                     (GptHeads::num_labels = K > 0; ours: the
//                                                        §3.2 W_y on the extract state)
// Loading (load_gpt_weights / load_gpt_checkpoint; models/io/checkpoint.h LoadReport):
//   * `lm_head.weight` is the tie: loaded into transformer.tokens_embed.weight after it (HF
//     order), a differing copy listed in tied_conflicts; absent (HF save_pretrained's
//     safe_serialization key set) it is not missing;
//   * keys without the `transformer.` prefix (a bare OpenAIGPTModel's checkpoint) get it;
//   * ignored: the buffers `transformer.position_ids` and `transformer.h.{i}.attn.bias` (HF 4.30
//     saves them; derived from the config here);
//   * anything else is unexpected, parameters nothing supplied are missing (report.summary()).
// Saving (save_gpt_checkpoint): config.json (HF OpenAIGPTConfig keys) + model.safetensors with
// the parameters above, plus `lm_head.weight` when store_lm_head (HF's torch.save key set).
//
// | GptConfig field       | default | meaning (HF OpenAIGPTConfig; defaults = openai-gpt)       |
// |-----------------------|---------|-----------------------------------------------------------|
// | vocab_size            | 40478   | token rows (BPE encoder; + 3 specials after fine-tuning)  |
// | n_positions           | 512     | position rows (the longest input)                         |
// | n_embd                | 768     | width E; the MLP is 4E wide (no config field)             |
// | n_layer               | 12      | blocks                                                    |
// | n_head                | 12      | heads; must divide n_embd                                 |
// | afn                   | "gelu"  | activation: gelu (= tanh form), gelu_new, relu, silu, swish|
// | resid_pdrop           | 0.1     | dropout on attention and MLP outputs (train() only)       |
// | embd_pdrop            | 0.1     | dropout on the embedding sum                              |
// | attn_pdrop            | 0.1     | dropout on attention probabilities                        |
// | layer_norm_epsilon    | 1e-5    | LayerNorm epsilon                                         |
// | initializer_range     | 0.02    | N(0, σ²) init of new weights (§4.1 "N(0, 0.02)")          |
// | summary_first_dropout | 0.1     | dropout before the task head (§4.1 "dropout ... 0.1")     |
//
// | GptHeads field   | default | meaning                                                       |
// |------------------|---------|---------------------------------------------------------------|
// | num_labels       | 0       | > 0: `classifier` Linear(E → K) on the extract state (K = 1:  |
// |                  |         | regression)                                                   |
// | multiple_choice  | false   | `multiple_choice_head.summary` Linear(E → 1) per choice       |
#include <torch/torch.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/io/checkpoint.h"
#include "models/nn/dropout.h"

namespace unieval::models {

struct GptConfig {
  int64_t vocab_size = 40478;               // token rows
  int64_t n_positions = 512;                // position rows
  int64_t n_embd = 768;                     // width
  int64_t n_layer = 12;                     // blocks
  int64_t n_head = 12;                      // heads
  std::string afn = "gelu";                 // activation (gelu = tanh approximation)
  double resid_pdrop = 0.1;                 // residual dropout
  double embd_pdrop = 0.1;                  // embedding dropout
  double attn_pdrop = 0.1;                  // attention dropout
  double layer_norm_epsilon = 1e-5;         // LayerNorm epsilon
  double initializer_range = 0.02;          // init std
  double summary_first_dropout = 0.1;       // task-head dropout
  std::vector<std::string> unknown_fields;  // keys of the file not read (not serialised)

  int64_t head_dim() const { return n_embd / n_head; }
  // InputError(source, 0, "field: problem") for impossible values.
  void validate(const std::string& source = "config") const;
  // HF OpenAIGPTConfig JSON (absent fields keep the defaults). Validates.
  static GptConfig from_json(const nlohmann::json& j, const std::string& source = "config");
  static GptConfig from_json_file(const std::string& path);
  // All fields under HF's names, model_type "openai-gpt".
  nlohmann::json to_json() const;
  // Whether a config.json object is a GPT config (model_type "openai-gpt" or the n_embd key).
  static bool is_gpt_config(const nlohmann::json& j);
  // 2 layers, width 32, 4 heads, the given vocabulary, 64 positions, all dropouts = dropout.
  static GptConfig tiny(int64_t vocab_size = 64, double dropout = 0.0);
};

struct GptHeads {
  int64_t num_labels = 0;        // classifier rows (0: none)
  bool multiple_choice = false;  // multiple_choice_head.summary
};

// HF Conv1D: weight [in, out], y = x·W + b.
struct Conv1DImpl : torch::nn::Module {
  Conv1DImpl(int64_t in, int64_t out);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor weight, bias;
};
TORCH_MODULE(Conv1D);

struct GptAttentionImpl : torch::nn::Module {
  explicit GptAttentionImpl(const GptConfig& cfg);
  // x [B,T,E]; key_bias [B,1,1,T] additive padding mask or undefined.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_bias);
  Conv1D c_attn{nullptr}, c_proj{nullptr};
  Dropout attn_dropout{nullptr}, resid_dropout{nullptr};
  int64_t n_head = 0, head_dim = 0;
};
TORCH_MODULE(GptAttention);

struct GptMlpImpl : torch::nn::Module {
  explicit GptMlpImpl(const GptConfig& cfg);
  torch::Tensor forward(const torch::Tensor& x);
  Conv1D c_fc{nullptr}, c_proj{nullptr};
  Dropout dropout{nullptr};
  std::string afn;
};
TORCH_MODULE(GptMlp);

struct GptBlockImpl : torch::nn::Module {
  explicit GptBlockImpl(const GptConfig& cfg);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_bias);
  GptAttention attn{nullptr};
  torch::nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  GptMlp mlp{nullptr};
};
TORCH_MODULE(GptBlock);

// HF OpenAIGPTModel (registered as "transformer").
struct GptTransformerImpl : torch::nn::Module {
  explicit GptTransformerImpl(const GptConfig& cfg);
  torch::nn::Embedding tokens_embed{nullptr}, positions_embed{nullptr};
  Dropout drop{nullptr};
  torch::nn::ModuleList h{nullptr};
  std::vector<GptBlock> blocks;  // typed view of h
};
TORCH_MODULE(GptTransformer);

// HF SequenceSummary's projection (the double-heads model's "multiple_choice_head").
struct GptSummaryImpl : torch::nn::Module {
  explicit GptSummaryImpl(int64_t n_embd);
  torch::nn::Linear summary{nullptr};  // Linear(E -> 1)
};
TORCH_MODULE(GptSummary);

struct GptOutput {
  torch::Tensor last_hidden_state;           // [B,T,E]
  std::vector<torch::Tensor> hidden_states;  // if requested: embeddings, then each block
};

class GptModelImpl : public torch::nn::Module {
 public:
  explicit GptModelImpl(const GptConfig& cfg, const GptHeads& heads = {});

  // input_ids [B,T] int64; attention_mask 0/1 [B,T] (undefined: causal mask only);
  // token_type_ids [B,T] vocabulary ids (undefined: none added); position_ids [B,T] (undefined:
  // arange(T)). Ids outside the vocabulary / positions: InputError before any kernel.
  GptOutput forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                    const torch::Tensor& token_type_ids = {},
                    const torch::Tensor& position_ids = {}, bool output_hidden_states = false);
  // hidden [...,E] -> [...,V] with the tied token matrix.
  torch::Tensor lm_logits(const torch::Tensor& hidden);
  // The hidden state at `index` of each row: hidden [N,T,E], index [N] -> [N,E].
  static torch::Tensor gather_positions(const torch::Tensor& hidden, const torch::Tensor& index);
  // classifier(dropout(x)) [N,K] / multiple_choice_head.summary(dropout(x)) [N].
  torch::Tensor classify(const torch::Tensor& extract_states);
  torch::Tensor choice_score(const torch::Tensor& extract_states);

  // HF _init_weights: Linear/Conv1D/Embedding weights N(0, initializer_range²), biases 0,
  // LayerNorm 1/0. Uses torch's global generator.
  void init_weights();
  // Grows the token matrix to n rows (the §3.3 special tokens); new rows N(0, initializer_range²),
  // old rows kept (HF resize_token_embeddings). Updates config().vocab_size.
  void resize_token_embeddings(int64_t n);

  const GptConfig& config() const { return cfg_; }
  const GptHeads& heads() const { return heads_; }

  GptTransformer transformer{nullptr};
  torch::nn::Linear classifier{nullptr};     // null unless heads.num_labels > 0
  GptSummary multiple_choice_head{nullptr};  // null unless heads.multiple_choice
  Dropout head_dropout{nullptr};

 private:
  GptConfig cfg_;
  GptHeads heads_;
};
TORCH_MODULE(GptModel);

// The key rules of GPT checkpoints (above), for LoadOptions::names.
const CheckpointNames& gpt_checkpoint_names();

// Loads a weights file (.safetensors, or .bin/.pt/.pth) into a GPT model by the rules above.
LoadReport load_gpt_weights(GptModel& model, const std::string& weights_path, bool strict = false);

// config.json + weights -> a GptModel in eval() mode. The checkpoint's own vocab_size is used;
// `vocab_size_at_least` > it grows the token matrix after loading (specials of fine-tuning).
GptModel load_gpt_checkpoint(const std::string& path, const GptHeads& heads = {},
                             LoadReport* report = nullptr, int64_t vocab_size_at_least = 0);

// Writes DIR/config.json and DIR/model.safetensors (HF names; + lm_head.weight when asked).
void save_gpt_checkpoint(GptModel& model, const std::string& dir, bool store_lm_head = false);

// Whether a checkpoint directory (or a weights file beside a config.json) holds a GPT model.
bool is_gpt_checkpoint(const std::string& path);

}  // namespace unieval::models
