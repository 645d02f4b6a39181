# unieval_target_defaults(target): warnings, includes rooted at the repository. (An installed
# library's includes are rooted at PREFIX/include/unieval instead: cmake/UnievalInstall.cmake.)
function(unieval_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                             $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>)
endfunction()

# unieval_library(name dir...): a library from every .cc under the given folders: static, or
# shared with -DBUILD_SHARED_LIBS=ON.
function(unieval_library name)
  set(srcs)
  foreach(dir ${ARGN})
    file(GLOB part CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*.cc)
    list(APPEND srcs ${part})
  endforeach()
  unieval_library_from(${name} ${srcs})
endfunction()

# unieval_library_from(name srcs...): as unieval_library, from an explicit source list; an empty
# list still yields a (source-less) library so that dependants link while it grows.
function(unieval_library_from name)
  set(srcs ${ARGN})
  if(NOT srcs)
    set(stub ${PROJECT_BINARY_DIR}/generated/empty_${name}.cc)
    file(WRITE ${stub} "// ${name} has no sources yet\n")
    set(srcs ${stub})
  endif()
  add_library(unieval_${name} ${srcs})
  add_library(unieval::${name} ALIAS unieval_${name})
  unieval_target_defaults(unieval_${name})
endfunction()

# unieval_torch_pch(target): a LibTorch target reuses unieval::models' precompiled <torch/torch.h>
# (UNIEVAL_PCH). Its sources see torch/torch.h before their own includes.
function(unieval_torch_pch target)
  if(UNIEVAL_PCH)
    target_precompile_headers(${target} REUSE_FROM unieval_models)
  endif()
  unieval_torch_unity(${target})
endfunction()

# unieval_torch_unity(target): with UNIEVAL_UNITY, the target's sources are compiled in batches of
# 8 (CMake's UNITY_BUILD): LibTorch's templates are instantiated and compiled once per batch
# instead of once per source.
function(unieval_torch_unity target)
  if(UNIEVAL_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
endfunction()
