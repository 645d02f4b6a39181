#pragma once
// The c10d half of models/nn/torch_compat.h: which LibTorch's distributed headers we compile
// against. Only models/dist/distributed.cc includes it, and only when CMake found the c10d headers and
// at least one backend (UNIEVAL_HAVE_C10D; UNIEVAL_HAVE_GLOO and/or UNIEVAL_C10D_NCCL,
// models/CMakeLists.txt). The 2.x column is written from the 2.x header API (read); the NCCL row
// has not been compiled yet (no GPU session since it was written).
//
// | name                | LibTorch 1.13 (Debian, CI)           | LibTorch 2.x (GPU machine)            |
// |---------------------|--------------------------------------|---------------------------------------|
// | Group               | c10d::ProcessGroup (Gloo derives it) | c10d::Backend (Gloo/NCCL derive it)   |
// | kHaveGloo           | true when Gloo's headers were found   | the same (the wheels may lack them)   |
// | kHaveNccl           | false unless UNIEVAL_C10D_NCCL        | the same (-DUNIEVAL_C10D_NCCL=ON)     |
// | make_group(...)     | ProcessGroupGloo(store, rank, size, Options{timeout, devices}) / ProcessGroupNCCL |
//
// The headers guard ProcessGroupGloo / ProcessGroupNCCL with USE_C10D_GLOO / USE_C10D_NCCL, which
// LibTorch's CMake config may not export (Debian's exports USE_C10D_GLOO): we define them when
// absent (the symbols are in libtorch_cpu / libtorch_cuda).
#include <torch/torch.h>
#include <torch/version.h>

#if defined(UNIEVAL_HAVE_GLOO) && !defined(USE_C10D_GLOO)
#define USE_C10D_GLOO 1
#endif
#if defined(UNIEVAL_C10D_NCCL) && !defined(USE_C10D_NCCL)
#define USE_C10D_NCCL 1
#endif

#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef UNIEVAL_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef UNIEVAL_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace unieval::models::dist::compat {

#if TORCH_VERSION_MAJOR >= 2
using Group = c10d::Backend;
#else
using Group = c10d::ProcessGroup;
#endif

#ifdef UNIEVAL_HAVE_GLOO
inline constexpr bool kHaveGloo = true;
#else
inline constexpr bool kHaveGloo = false;
#endif
#ifdef UNIEVAL_C10D_NCCL
inline constexpr bool kHaveNccl = true;
#else
inline constexpr bool kHaveNccl = false;
#endif

// c10::Error messages carry a C++ backtrace after the first line.
inline std::string first_line(const std::string& what) { return what.substr(0, what.find('\n')); }

inline c10::intrusive_ptr<Group> make_group(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                            int size, const std::string& backend,
                                            const std::string& master_addr,
                                            std::chrono::milliseconds timeout) {
#ifdef UNIEVAL_C10D_NCCL
  if (backend == "nccl") {
    auto o = c10d::ProcessGroupNCCL::Options::create();
    o->timeout = timeout;
    return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, o);
  }
#endif
#ifdef UNIEVAL_HAVE_GLOO
  (void)backend;
  auto o = c10d::ProcessGroupGloo::Options::create(timeout);
  if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname) {
    o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
  } else if (master_addr.rfind("127.", 0) == 0 || master_addr == "localhost") {
    o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  } else {
    o->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  }
  o->threads = 1;  // one rank per core here; collectives are not the bottleneck
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, o);
#else
  (void)store, (void)rank, (void)size, (void)master_addr, (void)timeout;
  throw std::logic_error("make_group: backend '" + backend +
                         "' is not in this build (resolve_backend refuses it)");
#endif
}

}  // namespace unieval::models::dist::compat
