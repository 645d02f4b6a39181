// bleu_consumer HYP REF...: sacreBLEU corpus BLEU (default options) of HYP against the reference
// files, computed by an installed unieval::metrics; prints the score (17 digits) and the signature.
#include <unieval/metrics/bleu.h>

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

static std::vector<std::string> read_lines(const char* path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: bleu_consumer HYP REF...\n";
    return 2;
  }
  std::vector<std::vector<std::string>> refs;
  for (int i = 2; i < argc; ++i) refs.push_back(read_lines(argv[i]));
  unieval::metrics::BleuScore s = unieval::metrics::corpus_bleu(read_lines(argv[1]), refs, {});
  std::cout.precision(17);
  std::cout << s.score << "\n" << s.signature << "\n";
  return 0;
}
