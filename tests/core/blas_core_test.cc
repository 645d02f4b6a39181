// The OpenBLAS kernel override of a model process (core/blas_core.h): only OpenBLAS's pre-AVX2
// fallback is replaced, by what the CPU and OS can run; a recognised core, a CPU without
// AVX2+FMA, or a user's OPENBLAS_CORETYPE stay as they are.
#include "core/blas_core.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

namespace unieval::core {
namespace {

TEST(BlasCoreTest, OnlyAFallbackOnAVectorCpuIsReplaced) {
  const CpuVectorSupport none{}, avx2{true, false}, avx512{true, true};
  EXPECT_EQ(choose_openblas_coretype("Prescott", avx512),
            "SkylakeX");  // Intel family 6 model 207 here
  EXPECT_EQ(choose_openblas_coretype("Prescott", avx2), "Haswell");
  EXPECT_EQ(choose_openblas_coretype("Nehalem", avx2), "Haswell");
  EXPECT_EQ(choose_openblas_coretype("Sandybridge", avx512), "SkylakeX");
  EXPECT_FALSE(choose_openblas_coretype("Prescott", none));  // an old CPU keeps its kernels
  for (const char* known : {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids"})
    EXPECT_FALSE(choose_openblas_coretype(known, avx512)) << known;
  EXPECT_FALSE(choose_openblas_coretype("", avx512));
}

TEST(BlasCoreTest, AnySettingOfTheUserWins) {
  const char* saved = getenv("OPENBLAS_CORETYPE");
  const std::string keep = saved ? saved : "";
  setenv("OPENBLAS_CORETYPE", "Haswell", 1);
  EXPECT_FALSE(openblas_coretype_override());
  unsetenv("OPENBLAS_CORETYPE");
  setenv("UNIEVAL_OPENBLAS_CORETYPE", "0", 1);
  EXPECT_FALSE(openblas_coretype_override());
  unsetenv("UNIEVAL_OPENBLAS_CORETYPE");
  // Unset: whatever this machine's libblas.so.3 and CPU give, only SkylakeX or Haswell can come out.
  if (auto c = openblas_coretype_override()) {
    EXPECT_TRUE(*c == "SkylakeX" || *c == "Haswell") << *c;
  }
  if (saved) setenv("OPENBLAS_CORETYPE", keep.c_str(), 1);
}

TEST(BlasCoreTest, AvxFiveTwelveImpliesAvxTwo) {
  const CpuVectorSupport s = cpu_vector_support();
  if (s.avx512) {
    EXPECT_TRUE(s.avx2_fma);
  }
}

}  // namespace
}  // namespace unieval::core
