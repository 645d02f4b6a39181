#pragma once
// Exact n-gram keys over interned token ids, for the counting metrics (Distinct-n, Entropy-n).
//
// Tokens are interned once (first-seen order) into 32-bit ids; an n-gram of order <= 4 packs
// into two 64-bit words without loss, so hashing it is cheap and two different n-grams never
// share a key (unlike a hash of the strings). Orders above 4 use the ids' byte string.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace unieval::metrics::internal {

// Interns every token of every segment; ids[i] are the ids of segment i.
inline std::vector<std::vector<uint32_t>> intern_segments(
    const std::vector<std::vector<std::string>>& segments) {
  std::unordered_map<std::string_view, uint32_t> ids;
  std::vector<std::vector<uint32_t>> out(segments.size());
  for (size_t s = 0; s < segments.size(); ++s) {
    out[s].reserve(segments[s].size());
    for (const auto& tok : segments[s]) {
      auto [it, fresh] = ids.emplace(tok, static_cast<uint32_t>(ids.size()));
      out[s].push_back(it->second);
    }
  }
  return out;
}

struct PackedNgram {
  uint64_t a = 0, b = 0;
  std::string rest;  // ids beyond the 4th (orders > 4 only)
  bool operator==(const PackedNgram& o) const { return a == o.a && b == o.b && rest == o.rest; }
};

struct PackedNgramHash {
  size_t operator()(const PackedNgram& k) const {
    uint64_t h = k.a * 0x9E3779B97F4A7C15ULL;
    h ^= (k.b + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 29;
    if (!k.rest.empty()) h ^= std::hash<std::string>()(k.rest);
    return static_cast<size_t>(h);
  }
};

// The n-gram ids[i .. i+n) as a key. Ids are offset by one so that order is encoded too.
inline PackedNgram pack_ngram(const uint32_t* ids, int n) {
  PackedNgram k;
  uint64_t w[4] = {0, 0, 0, 0};
  for (int j = 0; j < n && j < 4; ++j) w[j] = static_cast<uint64_t>(ids[j]) + 1;
  k.a = (w[0] << 32) | w[1];
  k.b = (w[2] << 32) | w[3];
  if (n > 4) k.rest.assign(reinterpret_cast<const char*>(ids + 4), sizeof(uint32_t) * (n - 4));
  return k;
}

}  // namespace unieval::metrics::internal
