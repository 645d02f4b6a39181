# UNIEVAL_SANITIZE and UNIEVAL_FUZZ (top-level CMakeLists.txt): flags for every target.
#
# UNIEVAL_SANITIZE=address,undefined compiles and links everything with -fsanitize=<list>, keeps
# frame pointers (readable ASan stacks) and makes UBSan halt on its first report, so that a test
# or a fuzz run fails instead of printing and going on.
# UNIEVAL_FUZZ=ON instruments every library for libFuzzer's coverage (-fsanitize=fuzzer-no-link);
# the fuzz/ targets link libFuzzer's main. libFuzzer ships with clang only.
if(UNIEVAL_FUZZ AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "UNIEVAL_FUZZ=ON needs clang (libFuzzer); this build uses "
    "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER}. Configure a fresh build directory with "
    "-DCMAKE_CXX_COMPILER=clang++ (Debian: apt-get install clang libfuzzer-<clang major>-dev).")
endif()
if(UNIEVAL_SANITIZE)
  if(UNIEVAL_SANITIZE MATCHES "[^a-z,_-]")
    message(FATAL_ERROR "UNIEVAL_SANITIZE='${UNIEVAL_SANITIZE}': expected a comma-separated list "
      "such as address,undefined")
  endif()
  # Line tables only: sanitizer reports name the function, file and line; full debug info made
  # the ASan build of the metrics about a third slower to compile (ci/harden --quick builds it
  # inside .ci/run's 30 minutes).
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    add_compile_options(-fsanitize=${UNIEVAL_SANITIZE} -fno-omit-frame-pointer -gline-tables-only)
  else()
    add_compile_options(-fsanitize=${UNIEVAL_SANITIZE} -fno-omit-frame-pointer -g1)
  endif()
  add_link_options(-fsanitize=${UNIEVAL_SANITIZE})
  if(UNIEVAL_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=all)
  endif()
  message(STATUS "unieval: sanitizers ${UNIEVAL_SANITIZE} on every target")
endif()
if(UNIEVAL_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
  message(STATUS "unieval: libFuzzer instrumentation on, fuzz/ targets built")
endif()
