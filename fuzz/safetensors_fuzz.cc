// Fuzz target: the safetensors header parser and validation (models/format/safetensors_header.h),
// the LibTorch-free half of every checkpoint read. The first byte picks how the rest is read:
//   * even: the rest is a whole file image (8-byte little-endian length, header, data);
//   * odd: the rest is "HEADER\0DATA" and the target writes the length prefix of HEADER itself,
//     so that mutations of the JSON reach the validation instead of failing the length check.
// On every input the parser returns or throws InputError. When it returns, the result must be
// what the format promises: the data section ends the image, every tensor's span lies inside it
// and holds numel x dtype size bytes, the spans tile it without overlap or gap, names are unique.
// Each span is then copied out of the image (ASan sees any read past it).
#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "models/format/safetensors_header.h"

namespace {

using unieval::models::parse_safetensors_header;
using unieval::models::safetensors_dtype_bytes;
using unieval::models::SafetensorsHeader;

void check(const SafetensorsHeader& h, const std::vector<unsigned char>& image) {
  UNIEVAL_FUZZ_CHECK(h.data_offset >= 8 && h.data_offset <= image.size());
  UNIEVAL_FUZZ_CHECK(h.data_offset + h.data_size == image.size());
  std::set<std::string> names;
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const auto& t : h.tensors) {
    UNIEVAL_FUZZ_CHECK(names.insert(t.name).second);
    UNIEVAL_FUZZ_CHECK(t.name != "__metadata__");
    const size_t elem = safetensors_dtype_bytes(t.dtype);
    UNIEVAL_FUZZ_CHECK(elem > 0);
    UNIEVAL_FUZZ_CHECK(t.begin <= t.end && t.end <= h.data_size);
    unsigned __int128 numel = 1;
    for (int64_t d : t.shape) {
      UNIEVAL_FUZZ_CHECK(d >= 0);
      numel *= static_cast<unsigned __int128>(d);
      if (numel > h.data_size) numel = h.data_size + 1;  // (stays comparable without overflow)
    }
    UNIEVAL_FUZZ_CHECK(numel * elem == t.end - t.begin);
    spans.emplace_back(t.begin, t.end);
    // Read the tensor's bytes the way SafetensorsFile::bytes hands them out.
    std::vector<unsigned char> copy(
        image.begin() + static_cast<std::ptrdiff_t>(h.data_offset + t.begin),
        image.begin() + static_cast<std::ptrdiff_t>(h.data_offset + t.end));
    UNIEVAL_FUZZ_CHECK(copy.size() == t.end - t.begin);
  }
  std::sort(spans.begin(), spans.end());
  uint64_t at = 0;
  for (const auto& [b, e] : spans) {
    UNIEVAL_FUZZ_CHECK(b == at);
    at = e;
  }
  UNIEVAL_FUZZ_CHECK(at == h.data_size);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto [mode, rest] = unieval::fuzz::split_mode(data, size);
  std::vector<unsigned char> image;
  if (mode % 2 == 0) {
    image.assign(rest.begin(), rest.end());
  } else {
    const size_t cut = rest.find('\0');
    const std::string_view header = rest.substr(0, cut);
    const std::string_view body =
        cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 1);
    const uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) image.push_back(static_cast<unsigned char>(n >> (8 * i)));
    image.insert(image.end(), header.begin(), header.end());
    image.insert(image.end(), body.begin(), body.end());
  }
  // An exactly sized heap copy: ASan reports any read past the image.
  std::unique_ptr<unsigned char[]> exact(new unsigned char[image.size()]);
  if (!image.empty()) std::memcpy(exact.get(), image.data(), image.size());
  try {
    SafetensorsHeader h = parse_safetensors_header(exact.get(), image.size(), "<fuzz>");
    check(h, image);
  } catch (const unieval::InputError&) {
  }
  return 0;
}
