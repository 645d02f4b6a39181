// Follows CoQA (no licence header) and SQuAD (no licence header) behaviour only; no code taken; see
// THIRD_PARTY_NOTICES.md.
#include "metrics/coqa.h"

#include <cstdio>
#include <cstdlib>
#include <map>

#include "core/error.h"
#include "core/io.h"
#include "core/json_reader.h"
#include "metrics/squad.h"
#include "metrics/text/squad_normalize.h"

namespace unieval::metrics {

namespace {

// CoQAEvaluator.compute_exact / compute_f1 (= SQuAD 2.0).
double exact(const text::NormalizedAnswer& g, const text::NormalizedAnswer& p) {
  return g.norm == p.norm ? 1 : 0;
}
double f1(const text::NormalizedAnswer& g, const text::NormalizedAnswer& p) {
  return squad_token_f1(p.toks, g.toks, true);
}

const std::vector<std::pair<std::string, std::string>>& domains() {
  static const std::vector<std::pair<std::string, std::string>> d = {
      {"mctest", "children_stories"}, {"gutenberg", "literature"},
      {"race", "mid-high_school"},    {"cnn", "news"},
      {"wikipedia", "wikipedia"},     {"reddit", "reddit"},
      {"science", "science"}};
  return d;
}
constexpr size_t kInDomain = 5;  // the first five sources

}  // namespace

double python_round1(double x) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.1f", x);  // glibc: exact value, round-half-even
  return std::strtod(buf, nullptr);
}

CoqaTurnScore coqa_turn_score(const std::vector<std::string>& gold_answers, std::string_view pred) {
  // Normalised answers in buffers kept from turn to turn (set() after the resize: the token
  // views must not see a move).
  thread_local std::vector<text::NormalizedAnswer> golds;
  thread_local text::NormalizedAnswer p;
  golds.resize(gold_answers.size());
  for (size_t k = 0; k < gold_answers.size(); ++k) golds[k].set(gold_answers[k]);
  p.set(pred);
  double em_sum = 0.0, f1_sum = 0.0;
  size_t n = golds.size();
  if (n > 1) {
    for (size_t i = 0; i < n; ++i) {
      double best_em = 0, best_f1 = 0;
      bool first = true;
      for (size_t j = 0; j < n; ++j) {
        if (j == i) continue;
        double e = exact(golds[j], p), f = f1(golds[j], p);
        if (first || e > best_em) best_em = e;
        if (first || f > best_f1) best_f1 = f;
        first = false;
      }
      em_sum += best_em;
      f1_sum += best_f1;
    }
  } else if (n == 1) {
    em_sum += exact(golds[0], p);
    f1_sum += f1(golds[0], p);
  }
  double denom = static_cast<double>(std::max<size_t>(1, n));
  return {em_sum / denom, f1_sum / denom};
}

namespace {

CoqaDataset coqa_dataset_of(const core::JsonDocument& doc, const std::string& source) {
  core::JsonValue root = doc.root();
  CoqaDataset ds;
  ds.source = source;
  std::map<std::pair<std::string, long>, size_t> seen;
  for (core::JsonValue story : root["data"].array_items("'data'")) {
    std::string src(story["source"].as_string("'source'"));
    bool known = false;
    for (const auto& d : domains()) known = known || d.first == src;
    if (!known)
      story["source"].fail(
          "unknown CoQA source '" + src +
          "' (evaluate-v1.0.py knows mctest, gutenberg, race, cnn, wikipedia, reddit, science)");
    std::string sid(story["id"].as_string("story 'id'"));
    core::JsonValue questions = story["questions"];
    std::vector<core::JsonValue> answer_lists;
    answer_lists.push_back(story["answers"]);
    if (core::JsonValue add = story.find("additional_answers"); add.valid())
      for (core::JsonValue lst : add.object_items("'additional_answers'"))
        answer_lists.push_back(lst);
    std::vector<std::vector<core::JsonValue>> lists;
    for (auto& l : answer_lists) {
      std::vector<core::JsonValue> v;
      for (core::JsonValue a : l.array_items("answers")) v.push_back(a);
      lists.push_back(std::move(v));
    }
    long i = 0;
    for (core::JsonValue q : questions.array_items("'questions'")) {
      long qid = static_cast<long>(q["turn_id"].as_double("'turn_id'"));
      if (i + 1 != qid)
        ds.warnings.push_back("Turn id should match index " + std::to_string(i + 1) + ": " +
                              std::to_string(qid));
      CoqaTurn t;
      t.story_id = sid;
      t.turn_id = qid;
      t.source = src;
      for (const auto& l : lists) {
        if (static_cast<size_t>(i) >= l.size())
          q.fail("story '" + sid + "' turn " + std::to_string(qid) +
                 ": an answer list is shorter than the questions (evaluate-v1.0.py: IndexError)");
        core::JsonValue a = l[i];
        long atid = static_cast<long>(a["turn_id"].as_double("answer 'turn_id'"));
        if (qid != atid)
          ds.warnings.push_back("Question turn id does match answer: " + std::to_string(qid) + " " +
                                std::to_string(atid));
        t.golds.emplace_back(a["input_text"].as_string("answer 'input_text'"));
      }
      auto key = std::make_pair(sid, qid);
      auto it = seen.find(key);
      if (it != seen.end()) {
        ds.warnings.push_back("Gold file has duplicate stories: " + sid);
        ds.turns[it->second] = std::move(t);  // dict assignment keeps the first position
      } else {
        seen.emplace(key, ds.turns.size());
        ds.turns.push_back(std::move(t));
      }
      ++i;
    }
  }
  return ds;
}

CoqaPredictions coqa_predictions_of(const core::JsonDocument& doc, const std::string& source) {
  CoqaPredictions p;
  p.source = source;
  for (core::JsonValue pred :
       doc.root().array_items("a CoQA prediction file (a list of {id, turn_id, answer})")) {
    std::string id(pred["id"].as_string("'id'"));
    long tid = static_cast<long>(pred["turn_id"].as_double("'turn_id'"));
    p.answers[{id, tid}] = std::string(pred["answer"].as_string("'answer'"));
  }
  return p;
}

}  // namespace

CoqaDataset parse_coqa_dataset(std::string text, const std::string& source) {
  return coqa_dataset_of(core::JsonDocument::parse(std::move(text), source), source);
}
CoqaDataset load_coqa_dataset(const std::string& path) {
  return coqa_dataset_of(core::JsonDocument::parse_file(path), path);
}

CoqaPredictions parse_coqa_predictions(std::string text, const std::string& source) {
  return coqa_predictions_of(core::JsonDocument::parse(std::move(text), source), source);
}
CoqaPredictions load_coqa_predictions(const std::string& path) {
  return coqa_predictions_of(core::JsonDocument::parse_file(path), path);
}

CoqaResult evaluate_coqa(const CoqaDataset& data, const CoqaPredictions& preds) {
  CoqaResult r;
  r.signature = "coqa|official:evaluate-v1.0.py@693d05b|missing:zero";
  // get_domain_scores: Counter per source, sums in gold order.
  struct Acc {
    double em = 0, f1 = 0;
    long turns = 0;
  };
  std::map<std::string, Acc> acc;
  for (const auto& t : data.turns) {
    auto it = preds.answers.find({t.story_id, t.turn_id});
    CoqaTurnScore s;
    if (it == preds.answers.end()) {
      r.missing.push_back(t.story_id + "|" + std::to_string(t.turn_id));
    } else {
      s = coqa_turn_score(t.golds, it->second);
    }
    Acc& a = acc[t.source];
    a.em += s.em;  // exact_scores.get(key, 0)
    a.f1 += s.f1;
    a.turns += 1;
    r.item_em.push_back(s.em);
    r.item_f1.push_back(s.f1);
  }
  double in_em = 0.0, in_f1 = 0.0, out_em = 0.0, out_f1 = 0.0;
  long in_n = 0, out_n = 0;
  for (size_t k = 0; k < domains().size(); ++k) {
    const Acc& a = acc[domains()[k].first];
    double d = static_cast<double>(std::max<long>(1, a.turns));
    r.rows.push_back({domains()[k].second, a.em / d * 100, a.f1 / d * 100, a.turns});
    if (k < kInDomain) {
      in_em += a.em, in_f1 += a.f1, in_n += a.turns;
    } else {
      out_em += a.em, out_f1 += a.f1, out_n += a.turns;
    }
  }
  double din = static_cast<double>(std::max<long>(1, in_n));
  double dout = static_cast<double>(std::max<long>(1, out_n));
  r.rows.push_back({"in_domain", in_em / din * 100, in_f1 / din * 100, in_n});
  r.rows.push_back({"out_domain", out_em / dout * 100, out_f1 / dout * 100, out_n});
  double em_total = in_em + out_em, f1_total = in_f1 + out_f1;
  long n = in_n + out_n;
  double dn = static_cast<double>(std::max<long>(1, n));
  r.rows.push_back({"overall", em_total / dn * 100, f1_total / dn * 100, n});
  return r;
}

nlohmann::ordered_json CoqaResult::to_json(bool rounded) const {
  nlohmann::ordered_json j;
  for (const auto& row : rows) {
    nlohmann::ordered_json o;
    o["em"] = rounded ? python_round1(row.em) : row.em;
    o["f1"] = rounded ? python_round1(row.f1) : row.f1;
    o["turns"] = row.turns;
    j[row.name] = o;
  }
  return j;
}

std::string CoqaResult::table() const {
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-18s %6s %6s %7s\n", "domain", "em", "f1", "turns");
  out += buf;
  for (const auto& row : rows) {
    std::snprintf(buf, sizeof buf, "%-18s %6.1f %6.1f %7ld\n", row.name.c_str(),
                  python_round1(row.em), python_round1(row.f1), row.turns);
    out += buf;
  }
  return out;
}

}  // namespace unieval::metrics
