// openblas_coretype_override: OpenBLAS's kernel fallback on CPUs newer than the library
// (core/blas_core.h).
#include "core/blas_core.h"

#include <dlfcn.h>

#include <array>
#include <cstdlib>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace unieval::core {

CpuVectorSupport cpu_vector_support() {
  CpuVectorSupport s;
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return s;
  const bool fma = c & (1u << 12), osxsave = c & (1u << 27), avx = c & (1u << 28);
  if (!osxsave || !avx) return s;
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  const bool ymm = (lo & 0x6u) == 0x6u;    // SSE and AVX state
  const bool zmm = (lo & 0xE6u) == 0xE6u;  // and opmask, ZMM_Hi256, Hi16_ZMM
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return s;
  const bool avx2 = b & (1u << 5);
  s.avx2_fma = ymm && avx2 && fma;
  const bool f = b & (1u << 16), dq = b & (1u << 17), cd = b & (1u << 28), bw = b & (1u << 30),
             vl = b & (1u << 31);
  s.avx512 = s.avx2_fma && zmm && f && dq && cd && bw && vl;
#endif
  return s;
}

std::optional<std::string> choose_openblas_coretype(const std::string& corename,
                                                    const CpuVectorSupport& cpu) {
  // OpenBLAS's x86-64 cores without AVX2 kernels: what it falls back to, or an old CPU's own.
  static const std::array<const char*, 10> kPreAvx2 = {
      "Prescott", "Core2",   "Penryn",    "Dunnington", "Nehalem",
      "Atom",     "Opteron", "Barcelona", "Bobcat",     "Sandybridge"};
  if (!cpu.avx2_fma) return std::nullopt;  // the CPU has nothing better
  bool fallback = false;
  for (const char* n : kPreAvx2)
    if (corename == n) fallback = true;
  if (!fallback) return std::nullopt;
  return std::string(cpu.avx512 ? "SkylakeX" : "Haswell");
}

std::optional<std::string> openblas_coretype_override() {
  const char* set = std::getenv("OPENBLAS_CORETYPE");
  if (set && *set) return std::nullopt;
  const char* off = std::getenv("UNIEVAL_OPENBLAS_CORETYPE");
  if (off && std::string(off) == "0") return std::nullopt;
  void* lib = dlopen("libblas.so.3", RTLD_LAZY | RTLD_LOCAL);
  if (!lib) return std::nullopt;
  using CoreName = char* (*)();
  auto fn = reinterpret_cast<CoreName>(dlsym(lib, "openblas_get_corename"));
  std::optional<std::string> out;
  if (fn) {
    const char* name = fn();
    if (name) out = choose_openblas_coretype(name, cpu_vector_support());
  }
  dlclose(lib);
  return out;
}

}  // namespace unieval::core
