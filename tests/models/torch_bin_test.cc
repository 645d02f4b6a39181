// pytorch_model.bin: the zip format (written by LibTorch's torch::pickle_save, as torch.save does)
// and the legacy format (hand-built here, byte by byte, as torch.save(_use_new_zipfile_serialization
// =False) lays it out) load equal to their safetensors twins, under HF and original UniLM names;
// malformed or hostile files are InputErrors naming the file; config numerics (layer_norm_eps),
// unknown config fields and the UniLM v1 segment ids.
#include "models/io/torch_bin.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "core/error.h"
#include "core/io.h"
#include "models/io/checkpoint.h"
#include "tests/test_util.h"

namespace unieval::models {
namespace {

using unieval::testing::TempDir;

UnilmModel random_model(uint64_t seed, BertConfig cfg = BertConfig::tiny()) {
  torch::manual_seed(seed);
  UnilmModel m(cfg);
  torch::NoGradGuard g;
  for (auto& p : m->parameters()) p.normal_(0.0, 0.5);
  m->eval();
  return m;
}

bool same_parameters(UnilmModel& a, UnilmModel& b) {
  auto pa = a->named_parameters(), pb = b->named_parameters();
  if (pa.size() != pb.size()) return false;
  for (const auto& item : pa) {
    const torch::Tensor* other = pb.find(item.key());
    if (!other || !torch::equal(item.value(), *other)) return false;
  }
  return true;
}

std::string zip_bytes(const NamedTensors& tensors) {
  c10::Dict<std::string, at::Tensor> dict;
  for (const auto& [k, t] : tensors) dict.insert(k, t);
  std::vector<char> bytes = torch::pickle_save(c10::IValue(dict));
  return std::string(bytes.begin(), bytes.end());
}

void write(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}

// --- a pickle writer for the legacy format ----------------------------------------------------

struct Pickle {
  std::string b;
  Pickle& op(int c) {
    b.push_back(static_cast<char>(c));
    return *this;
  }
  Pickle& le(uint64_t v, int n) {
    for (int k = 0; k < n; ++k) b.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
    return *this;
  }
  Pickle& proto() { return op(0x80).op(2); }
  Pickle& str(const std::string& s) {
    op('X').le(s.size(), 4);
    b += s;
    return *this;
  }
  Pickle& integer(int64_t v) { return op('J').le(static_cast<uint64_t>(v), 4); }
  Pickle& global(const std::string& m, const std::string& n) {
    op('c');
    b += m + "\n" + n + "\n";
    return *this;
  }
  Pickle& stop() { return op('.'); }
};

const char* storage_type(torch::ScalarType t) {
  switch (t) {
    case torch::kFloat:
      return "FloatStorage";
    case torch::kHalf:
      return "HalfStorage";
    case torch::kBFloat16:
      return "BFloat16Storage";
    case torch::kLong:
      return "LongStorage";
    default:
      return "IntStorage";
  }
}

// torch.save(state_dict, f, _use_new_zipfile_serialization=False): one storage per tensor (its
// contiguous copy), keys "0", "1", ... in a sorted list (the file sorts them as strings).
std::string legacy_bytes(const NamedTensors& tensors) {
  Pickle p;
  p.proto().op(0x8a).op(10);
  const unsigned char magic[] = {0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
  p.b.append(reinterpret_cast<const char*>(magic), 10);
  p.stop();
  p.proto().op('M').le(1001, 2).stop();
  p.proto()
      .op('}')
      .op('(')
      .str("protocol_version")
      .op('M')
      .le(1001, 2)
      .str("little_endian")
      .op(0x88)
      .op('u')
      .stop();
  // The dict: OrderedDict() + SETITEMS + BUILD of the _metadata attribute (ignored).
  p.proto().global("collections", "OrderedDict").op(')').op('R').op('q').op(0).op('(');
  std::vector<std::string> keys;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& [name, t] = tensors[i];
    const std::string key = std::to_string(i);
    keys.push_back(key);
    p.str(name);
    p.global("torch._utils", "_rebuild_tensor_v2").op('(');
    p.op('(')
        .str("storage")
        .global("torch", storage_type(t.scalar_type()))
        .str(key)
        .str("cpu")
        .integer(t.numel())
        .op('N')
        .op('t');
    p.op('Q').integer(0).op('(');
    for (int64_t s : t.sizes()) p.integer(s);
    p.op('t').op('(');
    for (int64_t s : t.contiguous().strides()) p.integer(s);
    p.op('t').op(0x89).global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
  }
  p.op('u');
  p.op('}').str("_metadata").op('h').op(0).op('s').op('b');  // BUILD {'_metadata': <memo 0>}
  p.stop();
  std::sort(keys.begin(), keys.end());
  p.proto().op(']').op('(');
  for (const auto& k : keys) p.str(k);
  p.op('e').stop();
  for (const auto& k : keys) {
    const torch::Tensor t = tensors[std::stoul(k)].second.contiguous();
    p.le(static_cast<uint64_t>(t.numel()), 8);
    p.b.append(static_cast<const char*>(t.data_ptr()), t.numel() * t.element_size());
  }
  return p.b;
}

NamedTensors sample_tensors() {
  torch::manual_seed(3);
  torch::Tensor base = torch::randn({4, 6});
  return {{"a.weight", torch::randn({3, 5})},
          {"transposed", base.t()},         // non-contiguous strides
          {"slice", base.narrow(0, 1, 2)},  // storage offset
          {"half", torch::randn({7}).to(torch::kHalf)},
          {"bf16", torch::randn({2, 2}).to(torch::kBFloat16)},
          {"ids", torch::arange(5, torch::kLong)},
          {"scalar", torch::tensor(2.5f)},
          {"empty", torch::zeros({0, 3})}};
}

void expect_same(const NamedTensors& got, const NamedTensors& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].first, want[i].first);
    EXPECT_EQ(got[i].second.scalar_type(), want[i].second.scalar_type()) << want[i].first;
    EXPECT_TRUE(torch::equal(got[i].second, want[i].second)) << want[i].first;
  }
}

TEST(TorchBinTest, ZipFormatFromPickleSave) {
  const NamedTensors want = sample_tensors();
  NamedTensors got = parse_torch_state_dict(zip_bytes(want), "x.bin");
  // pickle_save writes a dict whose order is insertion order.
  expect_same(got, want);
}

TEST(TorchBinTest, LegacyFormat) {
  NamedTensors want = sample_tensors();
  NamedTensors got = parse_torch_state_dict(legacy_bytes(want), "x.bin");
  expect_same(got, want);
}

// A checkpoint directory with only pytorch_model.bin loads equal to its safetensors twin.
TEST(TorchBinTest, BinCheckpointEqualsSafetensorsTwin) {
  TempDir dir;
  UnilmModel a = random_model(5);
  save_checkpoint(a, (dir.path() / "st").string());
  NamedTensors tensors = checkpoint_tensors(*a, /*store_tied_decoder=*/true);
  for (const char* fmt : {"zip", "legacy"}) {
    const auto d = dir.path() / fmt;
    std::filesystem::create_directories(d);
    std::filesystem::copy_file(dir.path() / "st/config.json", d / "config.json");
    write(d / "pytorch_model.bin",
          std::string(fmt) == "zip" ? zip_bytes(tensors) : legacy_bytes(tensors));
    EXPECT_EQ(locate_checkpoint(d.string()).weights, (d / "pytorch_model.bin").string());
    LoadReport report;
    UnilmModel b = load_checkpoint(d.string(), {}, &report);
    EXPECT_TRUE(report.complete()) << report.summary();
    EXPECT_TRUE(same_parameters(a, b)) << fmt;
    UnilmModel c = load_checkpoint((dir.path() / "st").string());
    EXPECT_TRUE(same_parameters(b, c)) << fmt;
  }
}

// Original UniLM v1 / TF-converted names: gamma/beta LayerNorms, a bare BertModel without "bert.",
// the tied decoder under cls.predictions.decoder, the NSP head (ignored).
TEST(TorchBinTest, OriginalUnilmNames) {
  TempDir dir;
  UnilmModel a = random_model(6);
  NamedTensors tensors;
  for (auto& [name, t] : checkpoint_tensors(*a, true)) {
    std::string k = name;
    if (k.size() > 16 && k.compare(k.size() - 16, 16, "LayerNorm.weight") == 0)
      k = k.substr(0, k.size() - 6) + "gamma";
    if (k.size() > 14 && k.compare(k.size() - 14, 14, "LayerNorm.bias") == 0)
      k = k.substr(0, k.size() - 4) + "beta";
    tensors.emplace_back(k, t);
  }
  tensors.emplace_back("cls.seq_relationship.weight", torch::randn({2, 32}));
  tensors.emplace_back("cls.seq_relationship.bias", torch::randn({2}));
  write(dir.path() / "pytorch_model.bin", legacy_bytes(tensors));
  core::write_file_atomic((dir.path() / "config.json").string(), a->config().to_json().dump());
  LoadReport report;
  UnilmModel b = load_checkpoint(dir.path().string(), {}, &report);
  EXPECT_TRUE(report.complete()) << report.summary();
  EXPECT_EQ(report.ignored_keys.size(), 2u);
  EXPECT_FALSE(report.renamed_keys.empty());
  EXPECT_TRUE(same_parameters(a, b));
}

void expect_input_error(const std::string& bytes, const std::string& needle) {
  try {
    parse_torch_state_dict(bytes, "bad/pytorch_model.bin");
    ADD_FAILURE() << "no error for " << needle;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad/pytorch_model.bin"), std::string::npos) << what;
    EXPECT_NE(what.find(needle), std::string::npos) << what;
  }
}

TEST(TorchBinTest, MalformedFilesAreInputErrors) {
  const NamedTensors tensors = sample_tensors();
  const std::string zip = zip_bytes(tensors), legacy = legacy_bytes(tensors);
  expect_input_error("hello world", "not a PyTorch");
  expect_input_error(zip.substr(0, zip.size() / 2), "zip");
  // Truncated anywhere: always an InputError, never a crash.
  for (size_t cut = 1; cut < legacy.size(); cut += 7) {
    try {
      parse_torch_state_dict(legacy.substr(0, cut), "bad/pytorch_model.bin");
      ADD_FAILURE() << "no error at cut " << cut;
    } catch (const InputError&) {
    }
  }
  // A global that is not on the list is refused, not called.
  Pickle evil;
  evil.proto().global("os", "system").str("echo hi").op(0x85).op('R').stop();
  std::string file = legacy.substr(0, legacy.find("collections") - 3);  // magic, protocol, sys info
  expect_input_error(file + evil.b, "refusing pickle global 'os.system'");
  // A tensor that addresses past its storage.
  NamedTensors one = {{"w", torch::randn({4})}};
  std::string bytes = legacy_bytes(one);
  const size_t at = bytes.size() - 16 - 8;  // the int64 element count before the 4 floats
  ASSERT_EQ(bytes.substr(at, 8), std::string("\x04\0\0\0\0\0\0\0", 8));
  std::string shrunk =
      bytes.substr(0, at) + std::string("\x02\0\0\0\0\0\0\0", 8) + bytes.substr(at + 8, 8);
  // (numel in the persistent id says 4, the file holds 2 elements)
  expect_input_error(shrunk, "storage '0'");
  // The checkpoint loader names the file too.
  TempDir dir;
  write(dir.path() / "pytorch_model.bin", zip.substr(0, 100));
  core::write_file_atomic((dir.path() / "config.json").string(),
                          BertConfig::tiny().to_json().dump());
  try {
    load_checkpoint(dir.path().string());
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pytorch_model.bin"), std::string::npos) << e.what();
  }
}

// layer_norm_eps from config.json reaches every LayerNorm, and changes the numbers.
TEST(TorchBinTest, LayerNormEpsHonoured) {
  TempDir dir;
  BertConfig cfg = BertConfig::tiny();
  UnilmModel a = random_model(7, cfg);
  nlohmann::json j = cfg.to_json();
  j["layer_norm_eps"] = 0.25;
  write(dir.path() / "pytorch_model.bin", zip_bytes(checkpoint_tensors(*a, false)));
  core::write_file_atomic((dir.path() / "config.json").string(), j.dump());
  UnilmModel b = load_checkpoint(dir.path().string());
  int n = 0;
  for (const auto& m : b->modules(false))
    if (auto* ln = m->as<torch::nn::LayerNormImpl>()) {
      EXPECT_EQ(ln->options.eps(), 0.25);
      ++n;
    }
  EXPECT_EQ(n, 2 * cfg.num_hidden_layers + 2);  // embeddings, 2 per block, MLM transform
  // The embedding LayerNorm by hand with eps 0.25.
  torch::NoGradGuard g;
  auto ids = torch::tensor({{2, 5, 9}}, torch::kLong);
  auto out =
      b->forward(ids, {}, torch::ones({1, 3}, torch::kLong), {}, /*output_hidden_states=*/true);
  auto e = b->named_parameters();
  torch::Tensor x = e["bert.embeddings.word_embeddings.weight"].index_select(0, ids[0]) +
                    e["bert.embeddings.position_embeddings.weight"].narrow(0, 0, 3) +
                    e["bert.embeddings.token_type_embeddings.weight"][0];
  torch::Tensor mu = x.mean(-1, true), var = (x - mu).pow(2).mean(-1, true);
  torch::Tensor want = (x - mu) / torch::sqrt(var + 0.25) * e["bert.embeddings.LayerNorm.weight"] +
                       e["bert.embeddings.LayerNorm.bias"];
  EXPECT_TRUE(torch::allclose(out.hidden_states.at(0)[0], want, 1e-5, 1e-5));
  EXPECT_FALSE(
      torch::allclose(out.hidden_states.at(0)[0],
                      (x - mu) / torch::sqrt(var + 1e-12) * e["bert.embeddings.LayerNorm.weight"] +
                          e["bert.embeddings.LayerNorm.bias"],
                      1e-5, 1e-5));
}

TEST(TorchBinTest, UnknownConfigFieldsReported) {
  nlohmann::json j = BertConfig::tiny().to_json();
  j["relax_projection"] = 0;
  j["ffn_type"] = 0;
  j["transformers_version"] = "4.30.2";
  BertConfig cfg = BertConfig::from_json(j, "c.json");
  EXPECT_EQ(cfg.unknown_fields, (std::vector<std::string>{"ffn_type", "relax_projection"}));
  TempDir dir;
  UnilmModel a = random_model(8);
  write(dir.path() / "pytorch_model.bin", zip_bytes(checkpoint_tensors(*a, false)));
  core::write_file_atomic((dir.path() / "config.json").string(), j.dump());
  LoadReport report;
  load_checkpoint(dir.path().string(), {}, &report);
  EXPECT_NE(report.summary().find("relax_projection"), std::string::npos) << report.summary();
}

TEST(TorchBinTest, SegmentIdsFromTheCheckpointFamily) {
  BertConfig cfg = BertConfig::tiny();
  EXPECT_EQ(cfg.seq2seq_segment_ids(), (std::pair<int64_t, int64_t>{0, 1}));
  nlohmann::json j = cfg.to_json();
  j["type_vocab_size"] = 6;  // UniLM v1
  EXPECT_EQ(BertConfig::from_json(j).seq2seq_segment_ids(), (std::pair<int64_t, int64_t>{4, 5}));
  j["unilm_segment_ids"] = {2, 3};
  BertConfig explicit_ids = BertConfig::from_json(j);
  EXPECT_EQ(explicit_ids.seq2seq_segment_ids(), (std::pair<int64_t, int64_t>{2, 3}));
  EXPECT_EQ(BertConfig::from_json(explicit_ids.to_json()).seq2seq_segment_ids(),
            (std::pair<int64_t, int64_t>{2, 3}));
  j["unilm_segment_ids"] = {4, 6};
  EXPECT_THROW(BertConfig::from_json(j), InputError);
}

}  // namespace
}  // namespace unieval::models
