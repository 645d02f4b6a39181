// Follows ROUGE-1.5.5 (research release, no OSI licence) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
#include "metrics/text/wordnet_exceptions.h"

#include <filesystem>

#include "core/error.h"
#include "core/io.h"

namespace unieval::metrics::text {

WordNetExceptions WordNetExceptions::load_dir(const std::string& dir) {
  WordNetExceptions out;
  // Order of the DB the ROUGE-1.5.5 release shipped (see header): adj, adv, noun, verb.
  for (const char* name : {"adj.exc", "adv.exc", "noun.exc", "verb.exc"}) {
    std::string path = (std::filesystem::path(dir) / name).string();
    if (!std::filesystem::exists(path))
      throw InputError(path, 0,
                       "WordNet 2.0 exception list not found (expected the ROUGE-1.5.5 "
                       "data/WordNet-2.0-Exceptions directory)");
    out.add_exc_text(core::read_file(path), path);
  }
  return out;
}

void WordNetExceptions::add_exc_text(std::string_view text, const std::string& name) {
  size_t pos = 0;
  long line_no = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    // Perl's split(/\s+/) on the line: fields separated by whitespace.
    auto is_space = [](char c) {
      return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
    };
    size_t i = 0;
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size()) continue;  // blank line
    size_t j = i;
    while (j < line.size() && !is_space(line[j])) ++j;
    std::string key(line.substr(i, j - i));
    size_t k = j;
    while (k < line.size() && is_space(line[k])) ++k;
    size_t l = k;
    while (l < line.size() && !is_space(line[l])) ++l;
    if (k == l) throw InputError(name, line_no, "exception line has no base form: '" + key + "'");
    table_[key] = std::string(line.substr(k, l - k));
  }
}

const std::string* WordNetExceptions::lookup(std::string_view token) const {
  auto it = table_.find(std::string(token));
  return it == table_.end() ? nullptr : &it->second;
}

}  // namespace unieval::metrics::text
