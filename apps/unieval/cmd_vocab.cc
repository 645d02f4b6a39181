// `unieval vocab`: a small WordPiece vocabulary for a from-scratch model, the entries of an
// existing vocabulary that a corpus uses most (models/tokenizer/vocab_subset.h; ICU only, no
// LibTorch).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apps/unieval/commands.h"
#include "core/error.h"
#include "core/io.h"
#include "models/tokenizer/vocab_subset.h"

namespace unieval::cli {

namespace {

const char* kUsage =
    "usage: unieval vocab --base VOCAB.txt --corpus FILE [FILE ...] --size N --out OUT.txt\n"
    "                     [--lowercase|--no-lowercase] [--threads N] [--json]\n"
    "\n"
    "Builds an N-entry WordPiece vocabulary for a model trained from scratch, as a "
    "frequency-chosen\n"
    "subset of the base vocabulary: every corpus line (one text per line, plain or gzip) is\n"
    "tokenised with the base vocabulary's BERT WordPiece tokenizer (the one the models use) and "
    "the\n"
    "pieces counted. Kept: the special tokens [PAD] [UNK] [CLS] [SEP] [MASK] (and any other\n"
    "[BRACKETED] base entry the tokenised corpus holds, not the [unusedN] placeholders), every\n"
    "single-character entry (\"c\" and \"##c\"), then the most frequent other pieces (ties: lower\n"
    "base id first) up to N. OUT lists them in the base's order (written atomically).\n"
    "The corpus is then tokenised with OUT to report what the choice costs: pieces per word with\n"
    "the base and with OUT, [UNK] with both (growth = the difference; its rate per 1,000 pieces "
    "of\n"
    "the new tokenisation), coverage (share of the base tokenisation's pieces that are in OUT).\n"
    "The report goes to stderr, or with --json as one JSON object, the last line of stdout.\n"
    "Case: --lowercase / --no-lowercase; without either, as `unieval tokenize`: lower-casing\n"
    "unless the base has upper-case entries other than [BRACKETED] specials (a cased vocab).\n"
    "Bad input (a missing or empty file, a base without a special token, N below the minimum,\n"
    "an unwritable OUT) exits 2 and writes nothing.\n"
    "\n"
    "example: unieval vocab --base ../shared/data/vocab/bert-uncased-vocab.txt \\\n"
    "           --corpus ../shared/data/squad_qg/src-train.txt.gz "
    "../shared/data/squad_qg/tgt-train.txt.gz \\\n"
    "           --size 8000 --out vocab-8k.txt";

// Fails early (before the corpus is read) when OUT cannot be written.
void check_writable(const std::string& out) {
  namespace fs = std::filesystem;
  if (out == "-") return;
  const fs::path p(out);
  if (fs::is_directory(p)) throw InputError(out, 0, "is a directory, not a file to write");
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  if (!fs::is_directory(dir))
    throw InputError(out, 0, "cannot write: no directory " + dir.string());
  if (::access(dir.c_str(), W_OK) != 0)
    throw InputError(out, 0, "cannot write: directory " + dir.string() + " is not writable");
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

int cmd_vocab(const Args& args) {
  po::options_description desc("vocab options");
  desc.add_options()("base", po::value<std::string>(),
                     "the base WordPiece vocab.txt (one token per line) to choose from")(
      "corpus", po::value<std::vector<std::string>>()->multitoken()->composing(),
      "corpus files, one text per line, plain or gzip (several after one --corpus, or --corpus "
      "again)")("size", po::value<int64_t>(), "entries of the new vocabulary")(
      "out", po::value<std::string>(),
      "the new vocab.txt to write (atomically; '-' = stdout, not with --json)")(
      "lowercase", po::bool_switch(),
      "lower-case and strip accents (uncased; default for an uncased base)")(
      "no-lowercase", po::bool_switch(), "keep case and accents (cased; default for a cased base)")(
      "threads", po::value<int>()->default_value(0),
      "tokenising threads (0: all cores, at most 8; same result)")(
      "json", po::bool_switch(), "the report as one JSON object, the last line of stdout");
  auto vm = parse(args, desc, kUsage);
  if (!vm.count("base")) throw InputError("--base VOCAB.txt is required (see --help)");
  if (!vm.count("corpus")) throw InputError("--corpus FILE is required (see --help)");
  if (!vm.count("size")) throw InputError("--size N is required (see --help)");
  if (!vm.count("out")) throw InputError("--out OUT.txt is required (see --help)");
  if (vm["lowercase"].as<bool>() && vm["no-lowercase"].as<bool>())
    throw InputError("--lowercase and --no-lowercase exclude each other");
  const bool json = vm["json"].as<bool>();
  const std::string base_path = vm["base"].as<std::string>();
  const std::string out = vm["out"].as<std::string>();
  const auto corpus = vm["corpus"].as<std::vector<std::string>>();
  if (out == "-" && json)
    throw InputError("--out - and --json would both write to standard output");
  check_writable(out);

  models::Vocab base = models::Vocab::from_file(base_path);
  const bool lower =
      models::choose_lowercase(vm["lowercase"].as<bool>(), vm["no-lowercase"].as<bool>(), base);

  models::VocabSubsetOptions o;
  const int64_t size = vm["size"].as<int64_t>();
  if (size <= 0) throw InputError("--size must be positive");
  o.size = static_cast<size_t>(size);
  o.threads = vm["threads"].as<int>();
  o.progress = [](int pass, const std::string& file, uint64_t lines) {
    std::cerr << "unieval vocab: " << (pass == 1 ? "counting pieces" : "tokenising again") << ": "
              << lines << " lines (" << file << ")\n";
  };
  const models::VocabSubset v =
      models::build_vocab_subset(base, base_path, models::TokenizerOptions::bert(lower), corpus, o);
  core::write_file_atomic(out, v.text());

  if (json) {
    nlohmann::ordered_json j;
    j["out"] = out;
    j["base"] = base_path;
    j["corpus"] = corpus;
    j["lowercase"] = lower;
    j["size"] = v.tokens.size();
    j["base_size"] = v.base_size;
    j["specials"] = v.specials;
    j["characters"] = v.characters;
    j["frequent"] = v.frequent;
    j["unseen"] = v.unseen;
    j["lines"] = v.base.lines;
    j["words"] = v.base.words;
    j["pieces_base"] = v.base.pieces;
    j["pieces_new"] = v.subset.pieces;
    j["pieces_per_word_base"] = v.pieces_per_word_base();
    j["pieces_per_word_new"] = v.pieces_per_word_new();
    j["unk_base"] = v.base.unk;
    j["unk_new"] = v.subset.unk;
    j["unk_growth"] = v.unk_growth();
    j["unk_growth_per_1000"] = v.unk_growth_per_1000();
    j["coverage"] = v.coverage();
    print_json(j);
  } else {
    std::cerr << "unieval vocab: " << v.tokens.size() << " of the " << v.base_size << " entries of "
              << base_path << " (" << (lower ? "uncased" : "cased") << "): " << v.specials
              << " special tokens, " << v.characters << " single characters, " << v.frequent
              << " by frequency (" << v.unseen << " unseen in the corpus)\n"
              << "  corpus: " << corpus.size() << " file(s), " << v.base.lines << " lines, "
              << v.base.words << " words\n"
              << "  pieces: " << v.base.pieces << " with the base ("
              << fixed(v.pieces_per_word_base(), 4) << " per word), " << v.subset.pieces
              << " with the new vocab (" << fixed(v.pieces_per_word_new(), 4) << " per word)\n"
              << "  [UNK]: " << v.base.unk << " with the base, " << v.subset.unk
              << " with the new vocab: growth " << v.unk_growth() << " ("
              << fixed(v.unk_growth_per_1000(), 4) << " per 1,000 pieces)\n"
              << "  coverage: " << fixed(100.0 * v.coverage(), 2)
              << "% of the base tokenisation's pieces are entries of the new vocab\n";
    if (out != "-") std::cerr << "  wrote " << out << "\n";
  }
  return kExitOk;
}

}  // namespace unieval::cli
