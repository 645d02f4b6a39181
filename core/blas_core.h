#pragma once
// The OpenBLAS kernels of a model process. Debian bookworm's OpenBLAS 0.3.21 is built with
// DYNAMIC_ARCH and picks its kernels from the CPU's family and model number; a CPU newer than the
// library (measured: Intel family 6 model 207, a Xeon with AVX-512) is not in its table and gets
// the generic SSE3 "Prescott" kernels. Every LibTorch matrix product then runs without AVX: a
// 4-layer, hidden-256 fine-tuning step on 2 cores took 5.0 s instead of 1.7 s (SkylakeX kernels,
// same loss to the last printed digit). OpenBLAS reads OPENBLAS_CORETYPE once, when it loads, so
// `unieval` decides before it execs `unieval-model` (apps/unieval/main.cc):
//
//   if (auto core = unieval::core::openblas_coretype_override()) setenv("OPENBLAS_CORETYPE", core->c_str(), 0);
//
// The rule only replaces a fallback: OPENBLAS_CORETYPE already set (by the user, or by a machine
// whose OpenBLAS is known to misbehave) or UNIEVAL_OPENBLAS_CORETYPE=0 leaves everything as it is;
// so does a BLAS that is not OpenBLAS (no openblas_get_corename), a core OpenBLAS recognised
// (Haswell, Zen, SkylakeX, ...), and a CPU or OS without AVX2+FMA. Otherwise the kernels the CPU
// and the OS (XSAVE state) can run: SkylakeX with AVX-512 F/CD/BW/DQ/VL, else Haswell.
#include <optional>
#include <string>

namespace unieval::core {

struct CpuVectorSupport {
  bool avx2_fma = false;  // AVX2 and FMA, with the OS saving YMM state
  bool avx512 = false;    // AVX-512 F, CD, BW, DQ and VL, with the OS saving ZMM state
};

// What this CPU and OS support (cpuid + xgetbv; all false off x86-64).
CpuVectorSupport cpu_vector_support();

// The decision itself, for a core name as openblas_get_corename() returns it: the kernels to
// force, or nothing when OpenBLAS's own choice stands.
std::optional<std::string> choose_openblas_coretype(const std::string& corename,
                                                    const CpuVectorSupport& cpu);

// The override for this machine: nothing when OPENBLAS_CORETYPE is set, UNIEVAL_OPENBLAS_CORETYPE
// is "0", the process's libblas.so.3 is not OpenBLAS, or choose_openblas_coretype says so.
// Loads libblas.so.3 (as LibTorch will) to ask it.
std::optional<std::string> openblas_coretype_override();

}  // namespace unieval::core
