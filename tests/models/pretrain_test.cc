// Unified LM pre-training: the token shard, each objective's input, segments, mask and cloze
// targets on concrete examples, the batch mix, loss falling, and resume == uninterrupted run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/error.h"
#include "models/io/run_dir.h"
#include "models/training/pretrain_data.h"
#include "models/training/pretrain_shard.h"
#include "models/training/pretrainer.h"
#include "tests/models/tiny_ids.h"
#include "tests/test_util.h"

// unieval::models::pretrain_test: its helpers' names are used by other test files of the same unity batch.
namespace unieval::models::pretrain_test {
namespace {

constexpr int64_t kVocab = 80;

SpecialIds tiny_ids() { return testing::tiny_special_ids(kVocab); }

// Document d holds tokens 10+20d, 11+20d, ... cut into sentences of the given lengths, so any
// run of text says where it came from.
TokenShard counting_shard(const std::vector<std::vector<int>>& sentence_lengths) {
  std::vector<std::vector<std::vector<int32_t>>> docs;
  for (size_t d = 0; d < sentence_lengths.size(); ++d) {
    int32_t next = 10 + 20 * static_cast<int32_t>(d);
    docs.emplace_back();
    for (int len : sentence_lengths[d]) {
      docs.back().emplace_back();
      for (int i = 0; i < len; ++i) docs.back().back().push_back(next++);
    }
  }
  return TokenShard::from_documents(docs);
}

PretrainDataOptions all_masked(int64_t max_len) {
  PretrainDataOptions o;
  o.max_len = max_len;
  o.mask_prob = 1.0;
  o.max_pred = 100;
  o.short_seq_prob = 0.0;
  o.nsp_random_prob = 0.0;
  return o;
}

// The text with every label put back.
std::vector<int64_t> original(const PretrainInstance& x) {
  std::vector<int64_t> t = x.input_ids;
  for (size_t k = 0; k < x.masked_positions.size(); ++k) t[x.masked_positions[k]] = x.labels[k];
  return t;
}

// Allowed keys of query row i of example b, as a 0/1 string over the first n keys.
std::string row(const PretrainBatch& b, int64_t ex, int64_t i, int64_t n) {
  std::string s;
  for (int64_t j = 0; j < n; ++j) s += b.attention_mask[ex][i][j].item<int64_t>() ? '1' : '0';
  return s;
}

TEST(TokenShardTest, BuildsDocumentsFromBlankLinesAndMapsTheFile) {
  testing::TempDir tmp;
  const std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\ndog\nran\n.\n";
  const std::string vp = tmp.write("vocab.txt", vocab);
  // Two documents in the first file (blank lines between, an extra blank line too), one in the
  // second; a whitespace-only line is no sentence.
  const std::string c1 =
      tmp.write("a.txt", "the cat sat .\nthe dog ran .\n\n\n   \nthe dog sat .\n");
  const std::string c2 = tmp.write("b.txt", "cat ran\n");
  auto tok = WordPieceTokenizer::from_file(vp, TokenizerOptions::bert(true));
  ShardBuildOptions b;
  b.progress = false;
  b.threads = 2;
  build_shard({c1, c2}, tok, vocab, (tmp.path() / "s.shard").string(), b);
  TokenShard s = TokenShard::open((tmp.path() / "s.shard").string());
  EXPECT_EQ(s.documents(), 3);
  EXPECT_EQ(s.sentences(), 4);
  EXPECT_EQ(s.tokens(), 4 + 4 + 4 + 2);
  EXPECT_EQ(s.doc_begin(1), 2);
  EXPECT_EQ(s.doc_end(1), 3);
  EXPECT_EQ(s.document_of(3), 2);
  std::vector<int64_t> sent;
  s.append_sentence(1, sent);
  EXPECT_EQ(sent, (std::vector<int64_t>{5, 8, 9, 10}));  // the dog ran .
  EXPECT_EQ(s.meta()["source"], shard_source_key({c1, c2}, vocab, true));
}

TEST(TokenShardTest, EmptyCorpusAndBadUtf8AreInputErrors) {
  testing::TempDir tmp;
  const std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\n";
  const std::string vp = tmp.write("vocab.txt", vocab);
  auto tok = WordPieceTokenizer::from_file(vp, TokenizerOptions::bert(true));
  ShardBuildOptions b;
  b.progress = false;
  const std::string out = (tmp.path() / "s.shard").string();
  EXPECT_THROW(build_shard({tmp.write("empty.txt", "\n\n  \n")}, tok, vocab, out, b), InputError);
  try {
    build_shard({tmp.write("bad.txt", "the\nthe\nthe \xff the\n")}, tok, vocab, out, b);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.txt:3"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_THROW(TokenShard::open(tmp.write("junk.shard", "not a shard at all")), InputError);
}

TEST(PretrainDataTest, Seq2SeqExampleMaskSegmentsAndTargets) {
  // One document "10 11 12 | 13 14": the chunk is both sentences, cut at the only boundary.
  TokenShard shard = counting_shard({{3, 2}});
  std::mt19937_64 rng(1);
  PretrainInstance x = make_instance(shard, MaskKind::kSeq2Seq, all_masked(16), tiny_ids(), rng);
  EXPECT_EQ(original(x), (std::vector<int64_t>{2, 10, 11, 12, 3, 13, 14, 3}));
  EXPECT_EQ(x.source_length, 5);
  EXPECT_EQ(x.token_type_ids, (std::vector<int64_t>{4, 4, 4, 4, 4, 5, 5, 5}));  // UniLM v1 s2s
  // mask_prob 1: every text token of both segments is a target, never [CLS] or [SEP].
  EXPECT_EQ(x.masked_positions, (std::vector<int64_t>{1, 2, 3, 5, 6}));
  EXPECT_EQ(x.labels, (std::vector<int64_t>{10, 11, 12, 13, 14}));
  EXPECT_EQ(x.nsp_label, -1);
  PretrainBatch b = collate({x}, 0);
  EXPECT_EQ(row(b, 0, 2, 8), "11111000");  // a source token sees the source only
  EXPECT_EQ(row(b, 0, 4, 8), "11111000");
  EXPECT_EQ(row(b, 0, 5, 8), "11111100");  // a target token: the source and itself
  EXPECT_EQ(row(b, 0, 6, 8), "11111110");  // ... and the target to its left
  EXPECT_EQ(row(b, 0, 7, 8), "11111111");
  EXPECT_EQ(b.masked_index.sizes(), torch::IntArrayRef({5}));
}

TEST(PretrainDataTest, UnidirectionalExamplesAreSingleSegments) {
  TokenShard shard = counting_shard({{3, 2}});
  for (MaskKind k : {MaskKind::kLeftToRight, MaskKind::kRightToLeft}) {
    std::mt19937_64 rng(2);
    PretrainInstance x = make_instance(shard, k, all_masked(16), tiny_ids(), rng);
    EXPECT_EQ(original(x), (std::vector<int64_t>{2, 10, 11, 12, 13, 14, 3})) << to_string(k);
    const int64_t type = k == MaskKind::kLeftToRight ? 2 : 3;
    EXPECT_EQ(x.token_type_ids, std::vector<int64_t>(7, type));
    EXPECT_EQ(x.masked_positions, (std::vector<int64_t>{1, 2, 3, 4, 5}));
    PretrainBatch b = collate({x}, 0);
    if (k == MaskKind::kLeftToRight) {
      EXPECT_EQ(row(b, 0, 0, 7), "1000000");
      EXPECT_EQ(row(b, 0, 3, 7), "1111000");  // x3 sees [CLS] x1 x2 and itself
    } else {
      EXPECT_EQ(row(b, 0, 3, 7), "0001111");  // x3 sees itself and its right context
      EXPECT_EQ(row(b, 0, 6, 7), "0000001");
    }
  }
  // The "bert" scheme: segment 0 for single segments.
  PretrainDataOptions o = all_masked(16);
  o.segments = "bert";
  std::mt19937_64 rng(3);
  EXPECT_EQ(make_instance(shard, MaskKind::kLeftToRight, o, tiny_ids(), rng).token_type_ids,
            std::vector<int64_t>(7, 0));
}

TEST(PretrainDataTest, BidirectionalPairsCarryNextSentenceLabels) {
  // Two documents; with nsp_random_prob 0 B continues A (label 0), with 1 it is text of the other
  // document (label 1).
  TokenShard shard = counting_shard({{3, 2, 2}, {4, 4}});
  PretrainDataOptions o = all_masked(32);
  for (int seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(seed);
    PretrainInstance x = make_instance(shard, MaskKind::kBidirectional, o, tiny_ids(), rng);
    const auto t = original(x);
    ASSERT_EQ(x.nsp_label, 0);
    for (size_t i = 2; i + 1 < t.size(); ++i) {
      if (static_cast<int64_t>(i) == x.source_length - 1 ||
          static_cast<int64_t>(i) == x.source_length)
        continue;
      EXPECT_EQ(t[i], t[i - 1] + 1) << "seed " << seed;  // consecutive text within each segment
    }
    EXPECT_EQ(t[x.source_length], t[x.source_length - 2] + 1);  // B starts where A ended
    EXPECT_EQ(x.token_type_ids[0], 0);
    EXPECT_EQ(x.token_type_ids.back(), 1);
    PretrainBatch b = collate({x}, 0);
    const int64_t n = static_cast<int64_t>(t.size());
    EXPECT_EQ(row(b, 0, 1, n), std::string(n, '1'));
  }
  o.nsp_random_prob = 1.0;
  for (int seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(seed);
    PretrainInstance x = make_instance(shard, MaskKind::kBidirectional, o, tiny_ids(), rng);
    const auto t = original(x);
    ASSERT_EQ(x.nsp_label, 1);
    const bool a_in_doc0 = t[1] < 30, b_in_doc0 = t[x.source_length] < 30;
    EXPECT_NE(a_in_doc0, b_in_doc0) << "seed " << seed;
  }
}

TEST(PretrainDataTest, MaskingRateSpansAndReplacement) {
  std::vector<std::vector<int>> docs(4, std::vector<int>(10, 10));
  TokenShard shard = counting_shard(docs);
  PretrainDataOptions o;
  o.max_len = 128;
  o.short_seq_prob = 0;
  o.mask_prob = 0.05;  // few targets per example: neighbours are rarely both masked by chance
  std::mt19937_64 rng(7);
  int64_t masked = 0, as_mask = 0, kept = 0, in_span = 0;
  for (int i = 0; i < 300; ++i) {
    PretrainInstance x = make_instance(shard, MaskKind::kLeftToRight, o, tiny_ids(), rng);
    const int64_t text = static_cast<int64_t>(x.input_ids.size()) - 2;
    ASSERT_EQ(text, 100);
    ASSERT_EQ(static_cast<int64_t>(x.masked_positions.size()), 5);  // round(0.05 * 100)
    for (size_t k = 0; k < x.masked_positions.size(); ++k) {
      const int64_t p = x.masked_positions[k];
      ASSERT_TRUE(p >= 1 && p <= text);
      ++masked;
      if (x.input_ids[p] == 4) ++as_mask;
      if (x.input_ids[p] == x.labels[k]) ++kept;
      if (k > 0 && x.masked_positions[k - 1] == p - 1) ++in_span;
    }
  }
  EXPECT_NEAR(double(as_mask) / double(masked), 0.8, 0.04);
  EXPECT_NEAR(double(kept) / double(masked), 0.1,
              0.03);  // (a random draw may equal the label: ~1/75)
  // 20% of the spans are bigrams or trigrams: about a fifth of the targets follow a masked
  // neighbour; without spans only chance adjacency (~4%) remains.
  EXPECT_GT(double(in_span) / double(masked), 0.15);
  o.span_prob = 0;
  int64_t adjacent = 0, total = 0;
  for (int i = 0; i < 300; ++i) {
    PretrainInstance x = make_instance(shard, MaskKind::kLeftToRight, o, tiny_ids(), rng);
    for (size_t k = 1; k < x.masked_positions.size(); ++k)
      adjacent += x.masked_positions[k - 1] + 1 == x.masked_positions[k];
    total += static_cast<int64_t>(x.masked_positions.size());
  }
  EXPECT_LT(double(adjacent) / double(total), 0.08);
}

// cloze_mask on its own (the masking of make_instance, and of fine-tuning's MlmAux): a span never
// crosses a position that is not a candidate, no candidate draws nothing, and flags of the wrong
// length are an InputError.
TEST(PretrainDataTest, ClozeMaskKeepsToItsCandidates) {
  PretrainDataOptions o;
  o.mask_prob = 0.5;
  o.span_prob = 1.0;  // every choice starts a bigram or trigram
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200; ++i) {
    std::vector<int64_t> ids(30, 11), positions, labels;
    std::vector<char> candidate(30, 0);
    for (int t = 0; t < 30; ++t) candidate[t] = t % 3 != 0;  // holes every third position
    cloze_mask(ids, candidate, o, tiny_ids(), rng, positions, labels);
    ASSERT_EQ(positions.size(), 10u);  // round(0.5 x 20)
    for (int64_t p : positions) EXPECT_TRUE(candidate[p]) << p;
    EXPECT_EQ(labels, std::vector<int64_t>(10, 11));
    for (int t = 0; t < 30; t += 3) EXPECT_EQ(ids[t], 11);
  }
  std::vector<int64_t> ids(8, 11), positions, labels;
  std::mt19937_64 a(9), b(9);
  cloze_mask(ids, std::vector<char>(8, 0), o, tiny_ids(), a, positions, labels);
  EXPECT_TRUE(positions.empty());
  EXPECT_EQ(a(), b());  // nothing drawn
  EXPECT_THROW(cloze_mask(ids, std::vector<char>(7, 1), o, tiny_ids(), a, positions, labels),
               InputError);
}

TEST(PretrainDataTest, UnifiedBatchMixesObjectivesAndIsAFunctionOfTheStep) {
  TokenShard shard = counting_shard({{4, 3, 5}, {6, 2}, {3, 3, 3}});
  PretrainDataOptions o;
  o.max_len = 24;
  const auto cycle = objective_cycle("unified");
  PretrainBatch b = make_pretrain_batch(shard, cycle, o, tiny_ids(), 5, 3, 0, 1, 12);
  std::map<MaskKind, int> count;
  for (MaskKind k : b.objectives) ++count[k];
  EXPECT_EQ(count[MaskKind::kBidirectional], 4);
  EXPECT_EQ(count[MaskKind::kSeq2Seq], 4);
  EXPECT_EQ(count[MaskKind::kLeftToRight], 2);
  EXPECT_EQ(count[MaskKind::kRightToLeft], 2);
  EXPECT_EQ(b.nsp_rows.size(0), 4);
  PretrainBatch again = make_pretrain_batch(shard, cycle, o, tiny_ids(), 5, 3, 0, 1, 12);
  EXPECT_TRUE(torch::equal(b.input_ids, again.input_ids));
  EXPECT_TRUE(torch::equal(b.attention_mask, again.attention_mask));
  PretrainBatch other = make_pretrain_batch(shard, cycle, o, tiny_ids(), 5, 4, 0, 1, 12);
  EXPECT_FALSE(b.input_ids.sizes() == other.input_ids.sizes() &&
               torch::equal(b.input_ids, other.input_ids));
  // Each row has its objective's mask: an r2l row's first real query sees every real key.
  for (size_t e = 0; e < b.objectives.size(); ++e) {
    const int64_t len = (b.input_ids[e] != 0).sum().item<int64_t>();
    const int64_t seen = b.attention_mask[e][0].sum().item<int64_t>();
    if (b.objectives[e] == MaskKind::kLeftToRight) {
      EXPECT_EQ(seen, 1);
    }
    if (b.objectives[e] == MaskKind::kRightToLeft || b.objectives[e] == MaskKind::kBidirectional) {
      EXPECT_EQ(seen, len);
    }
  }
  EXPECT_EQ(objective_cycle("bidirectional"), std::vector<MaskKind>{MaskKind::kBidirectional});
  EXPECT_THROW(objective_cycle("sideways"), InputError);
}

// A learnable corpus: sentences count up by 1 or 2 from a random start.
TokenShard learnable_shard() {
  std::mt19937 rng(3);
  std::vector<std::vector<std::vector<int32_t>>> docs(30);
  for (auto& d : docs) {
    for (int s = 0; s < 4; ++s) {
      const int step = 1 + static_cast<int>(rng() % 2);
      int32_t v = 5 + static_cast<int32_t>(rng() % 40);
      d.emplace_back();
      for (int i = 0; i < 6; ++i, v += step) d.back().push_back(v);
    }
  }
  return TokenShard::from_documents(docs);
}

BertConfig tiny_config(double dropout) {
  BertConfig c = BertConfig::tiny(kVocab, dropout);
  c.type_vocab_size = 6;
  return c;
}

UnilmModel fresh(const PretrainOptions& o, double dropout) {
  torch::manual_seed(11);
  return UnilmModel(tiny_config(dropout), pretrain_heads(o));
}

TEST(PretrainerTest, LossFalls) {
  TokenShard shard = learnable_shard();
  PretrainOptions o;
  o.data.max_len = 32;
  o.batch_size = 12;
  o.max_steps = 100;
  o.optim.lr = 3e-3;
  o.progress = false;
  UnilmModel m = fresh(o, 0.0);
  PretrainResult r = pretrain(m, shard, tiny_ids(), o, nullptr, false);
  ASSERT_EQ(r.losses.size(), 100u);
  double tail = 0;
  for (size_t i = 0; i < 5; ++i) tail += r.losses[r.losses.size() - 1 - i] / 5;
  // From ~log V + log 2 (untrained) to below the entropy of the corpus' unigram distribution
  // plus log 2 (~4.6): the model has learned at least which tokens occur.
  EXPECT_LT(tail, r.losses[0] * 0.9);
  for (const char* k : {"bidirectional", "seq2seq", "left-to-right", "right-to-left", "nsp"})
    EXPECT_TRUE(r.last_objective_loss.count(k)) << k;
}

TEST(PretrainerTest, ResumeEqualsUninterruptedRun) {
  TokenShard shard = learnable_shard();
  PretrainOptions o;
  o.data.max_len = 24;
  o.batch_size = 6;
  o.accum = 2;
  o.max_steps = 6;
  o.optim.lr = 1e-3;
  o.save_every = 0;
  o.progress = false;
  testing::TempDir tmp;
  RunDir full((tmp.path() / "full").string());
  full.create(o.to_json(), tiny_config(0.1), "v\n");
  UnilmModel a = fresh(o, 0.1);  // dropout on: its generator must resume too
  PretrainResult ra = pretrain(a, shard, tiny_ids(), o, &full, false);
  ASSERT_TRUE(ra.finished);

  RunDir part((tmp.path() / "part").string());
  part.create(o.to_json(), tiny_config(0.1), "v\n");
  PretrainOptions first = o;
  first.stop_after = 2;
  UnilmModel b = fresh(o, 0.1);
  PretrainResult rb = pretrain(b, shard, tiny_ids(), first, &part, false);
  EXPECT_FALSE(rb.finished);
  ASSERT_TRUE(part.has_checkpoint());
  torch::manual_seed(999);
  UnilmModel c = fresh(o, 0.1);
  {
    torch::NoGradGuard g;
    for (auto& p : c->parameters()) p.add_(torch::randn_like(p));
  }
  PretrainResult rc = pretrain(c, shard, tiny_ids(), o, &part, true);
  EXPECT_TRUE(rc.finished);
  ASSERT_EQ(rc.losses.size(), 4u);
  for (size_t i = 0; i < 2; ++i) EXPECT_EQ(rb.losses[i], ra.losses[i]);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(rc.losses[i], ra.losses[2 + i]) << "step " << 3 + i;
  auto pa = a->named_parameters();
  auto pc = c->named_parameters();
  for (const auto& item : pa) EXPECT_TRUE(torch::equal(item.value(), pc[item.key()])) << item.key();
  EXPECT_TRUE(pa.contains("cls.seq_relationship.weight"));
  std::ifstream log(part.file("log.jsonl"));
  std::string line;
  int64_t expect = 1;
  while (std::getline(log, line)) {
    auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["step"].get<int64_t>(), expect++);
    EXPECT_TRUE(j.contains("loss_seq2seq") && j.contains("nsp"));
  }
  EXPECT_EQ(expect, 7);

  // Resumed once more, the finished run runs no step: its last losses are its last step's logged
  // ones (they were 0, read as measured), and its log and weights stay as they were.
  UnilmModel d = fresh(o, 0.1);
  PretrainResult rd = pretrain(d, shard, tiny_ids(), o, &part, true);
  EXPECT_TRUE(rd.finished);
  EXPECT_TRUE(rd.losses.empty());
  EXPECT_EQ(rd.last_loss, ra.losses.back());
  EXPECT_EQ(rd.first_loss, ra.losses.back());
  EXPECT_EQ(rd.last_objective_loss, rc.last_objective_loss);
  EXPECT_TRUE(rd.last_objective_loss.count("seq2seq") && rd.last_objective_loss.count("nsp"));
  auto pd = d->named_parameters();
  for (const auto& item : pa) EXPECT_TRUE(torch::equal(item.value(), pd[item.key()])) << item.key();
  EXPECT_EQ(part.log_line(6)["loss"].get<double>(), ra.losses.back());
  EXPECT_TRUE(part.log_line(7).is_null());
}

TEST(PretrainerTest, SegmentIdsNeedTheTypeVocabulary) {
  TokenShard shard = learnable_shard();
  PretrainOptions o;
  o.data.max_len = 24;
  o.max_steps = 1;
  o.progress = false;
  torch::manual_seed(1);
  UnilmModel m(BertConfig::tiny(kVocab, 0.0), pretrain_heads(o));  // type_vocab_size 2
  EXPECT_THROW(pretrain(m, shard, tiny_ids(), o, nullptr, false), InputError);
  o.data.segments = "bert";
  EXPECT_NO_THROW(pretrain(m, shard, tiny_ids(), o, nullptr, false));
}

}  // namespace
}  // namespace unieval::models::pretrain_test
