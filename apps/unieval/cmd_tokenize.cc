// `unieval tokenize`: BERT WordPiece or GPT BPE tokens (and ids) of text, as a model sees it.
// The tokenizers are models/tokenizer/wordpiece.h and bpe.h (ICU only: work without LibTorch).
#include <cstdio>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "apps/unieval/commands.h"
#include "core/error.h"
#include "core/io.h"
#include "models/tokenizer/bpe.h"
#include "models/tokenizer/vocab_subset.h"
#include "models/tokenizer/wordpiece.h"

namespace unieval::cli {

namespace {

const char* kUsage =
    "usage: unieval tokenize (--vocab FILE [--lowercase|--no-lowercase] [--hf] | --bpe DIR)\n"
    "                        [--text STR | --input FILE] [--json] [--ids]\n"
    "\n"
    "WordPiece-tokenizes each line of --input (plain or gzip; '-' or no --input/--text: standard\n"
    "input), or the single string --text, exactly as google-research/bert's FullTokenizer does.\n"
    "Prints the tokens of each input space-separated on one line, or with --json one object per\n"
    "input: {\"tokens\": [...], \"ids\": [...]}.\n"
    "Case: --lowercase / --no-lowercase; without either, the vocab decides: lower-casing unless\n"
    "the vocab has entries with upper-case ASCII letters other than [BRACKETED] specials (a cased\n"
    "vocab). --hf switches to Hugging Face BertTokenizer behaviour (100-character words, NFC,\n"
    "[CLS] [SEP] [MASK] [UNK] [PAD] kept whole).\n"
    "--bpe DIR: GPT's 40,000-merge BPE instead (DIR holds encoder_bpe_40000.json + "
    "vocab_40000.bpe,\n"
    "plain or .gz, or HF's vocab.json + merges.txt): HF OpenAIGPTTokenizer without spaCy/ftfy, "
    "i.e.\n"
    "BERT's BasicTokenizer (lower-cased) then BPE with word-final </w> pieces; unknown pieces are\n"
    "<unk>; the special tokens _start_ _delimiter_ _classify_ follow the encoder's ids\n"
    "(40478, 40479, 40480 for GPT).\n"
    "\n"
    "example: unieval tokenize --vocab vocab.txt --text 'UNwant\\u00e9d,running' --json\n"
    "         unieval tokenize --bpe ../shared/data/vocab/gpt --text 'Hello, world!' --json";

void append_line(std::string& out, const models::Encoding& enc, bool json, bool ids_only) {
  if (json) {
    nlohmann::ordered_json j;
    j["tokens"] = enc.tokens;
    j["ids"] = enc.ids;
    out += j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::strict);
  } else if (ids_only) {
    for (size_t i = 0; i < enc.ids.size(); ++i) {
      if (i) out += ' ';
      out += std::to_string(enc.ids[i]);
    }
  } else {
    for (size_t i = 0; i < enc.tokens.size(); ++i) {
      if (i) out += ' ';
      out += enc.tokens[i];
    }
  }
  out += '\n';
}

}  // namespace

int cmd_tokenize(const Args& args) {
  po::options_description desc("tokenize options");
  desc.add_options()("vocab", po::value<std::string>(),
                     "vocab.txt (one token per line; id = line number from 0)")(
      "bpe", po::value<std::string>(),
      "GPT BPE directory (encoder_bpe_40000.json + vocab_40000.bpe) instead of --vocab")(
      "lowercase", po::bool_switch(), "lower-case and strip accents (uncased models)")(
      "no-lowercase", po::bool_switch(), "keep case and accents (cased models)")(
      "text", po::value<std::string>(), "tokenize this string (one input; may contain newlines)")(
      "input", po::value<std::string>(), "tokenize each line of FILE ('-' = standard input)")(
      "json", po::bool_switch(), "one JSON object per input: {\"tokens\": [...], \"ids\": [...]}")(
      "ids", po::bool_switch(), "print ids instead of tokens (plain output)")(
      "hf", po::bool_switch(), "Hugging Face BertTokenizer behaviour instead of the original BERT")(
      "max-chars", po::value<size_t>(),
      "words longer than this many code points become [UNK] (BERT 200, --hf 100)");
  auto vm = parse(args, desc, kUsage);
  if (vm["lowercase"].as<bool>() && vm["no-lowercase"].as<bool>())
    throw InputError("--lowercase and --no-lowercase exclude each other");
  if (vm.count("text") && vm.count("input"))
    throw InputError("--text and --input exclude each other");

  if (vm.count("vocab") == vm.count("bpe"))
    throw InputError("give exactly one of --vocab FILE and --bpe DIR");
  std::function<models::Encoding(const std::string&)> encode;
  std::optional<models::WordPieceTokenizer> wp;
  std::optional<models::BpeTokenizer> bpe;
  if (vm.count("bpe")) {
    if (vm["hf"].as<bool>() || vm.count("max-chars") || vm["no-lowercase"].as<bool>())
      throw InputError(
          "--bpe takes none of --hf, --max-chars, --no-lowercase (GPT's BPE is uncased)");
    bpe.emplace(models::BpeTokenizer::from_dir(vm["bpe"].as<std::string>()));
    encode = [&](const std::string& text) { return bpe->encode(text); };
  } else {
    const std::string vocab_path = vm["vocab"].as<std::string>();
    models::Vocab vocab = models::Vocab::from_file(vocab_path);
    const bool lower =
        models::choose_lowercase(vm["lowercase"].as<bool>(), vm["no-lowercase"].as<bool>(), vocab);
    auto opts = vm["hf"].as<bool>() ? models::TokenizerOptions::hugging_face(lower)
                                    : models::TokenizerOptions::bert(lower);
    if (vm.count("max-chars")) {
      opts.max_input_chars_per_word = vm["max-chars"].as<size_t>();
      if (opts.max_input_chars_per_word == 0) throw InputError("--max-chars must be positive");
    }
    if (!vocab.contains(opts.unk_token))
      throw InputError(vocab_path, 0, "vocabulary has no unknown token '" + opts.unk_token + "'");
    wp.emplace(std::move(vocab), opts);
    encode = [&](const std::string& text) { return wp->encode(text); };
  }
  const bool json = vm["json"].as<bool>();
  const bool ids_only = vm["ids"].as<bool>();

  std::string out;
  if (vm.count("text")) {
    append_line(out, encode(vm["text"].as<std::string>()), json, ids_only);
  } else {
    std::string path = vm.count("input") ? vm["input"].as<std::string>() : std::string("-");
    std::vector<std::string> lines;
    if (path == "-") {
      std::string data((std::istreambuf_iterator<char>(std::cin)),
                       std::istreambuf_iterator<char>());
      lines = core::split_lines(data, "<stdin>");
    } else {
      lines = core::read_lines(path);
    }
    out.reserve(lines.size() * 64);
    for (const auto& line : lines) {
      append_line(out, encode(line), json, ids_only);
      if (out.size() > (1u << 20)) {
        std::fwrite(out.data(), 1, out.size(), stdout);
        out.clear();
      }
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace unieval::cli
