#pragma once
// Follows ROUGE-1.5.5 (research release, no OSI licence) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
// The WordNet 2.0 morphological exception table that ROUGE-1.5.5's `-m` consults before Porter
// stemming (`MorphStem` in ROUGE-1.5.5.pl: a token longer than 3 characters that is a key of the
// table is replaced by its value and not stemmed further).
//
//   auto exc = unieval::metrics::text::WordNetExceptions::load_dir("/path/ROUGE-1.5.5/data/WordNet-2.0-Exceptions");
//   exc.lookup("went");    // "go"
//   exc.lookup("better");  // "well" (adv.exc read after adj.exc, as in the shipped DB)
//
// ROUGE-1.5.5 ships the table as a Berkeley DB built by buildExeptionDB.pl from adj.exc, adv.exc,
// noun.exc and verb.exc. The DB the original release shipped corresponds to loading the files in
// the order adj, adv, noun, verb with later keys overwriting earlier ones (5,930 keys; best ->
// well, better -> well); that is the order used here. Each line is "inflected base [base ...]";
// the first base is the value. We read the plain-text .exc files (the DB files in circulation are
// either unreadable by current libdb or empty), so no Berkeley DB is needed.
#include <string>
#include <string_view>
#include <unordered_map>

namespace unieval::metrics::text {

class WordNetExceptions {
 public:
  WordNetExceptions() = default;
  // Loads DIR/{adj,adv,noun,verb}.exc in that order (later keys win). Missing files or a line
  // without a base form are unieval::InputError naming the file and line.
  static WordNetExceptions load_dir(const std::string& dir);
  // Adds the entries of one .exc text (later lines overwrite earlier keys); `name` names errors.
  void add_exc_text(std::string_view text, const std::string& name);

  // The base form for an inflected token, or nullptr when the token is not in the table.
  const std::string* lookup(std::string_view token) const;
  size_t size() const { return table_.size(); }
  bool empty() const { return table_.empty(); }

 private:
  std::unordered_map<std::string, std::string> table_;
};

}  // namespace unieval::metrics::text
