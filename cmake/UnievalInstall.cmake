# Install rules, the CMake package and unieval.pc (docs/install.md). Included last by the top
# level, once every target exists.
#
#   cmake --install build --prefix P     installs, under P:
#     bin/unieval, bin/unieval-model            the CLI and its LibTorch sibling (found next to it)
#     include/unieval/{core,metrics,results,tasks}/*.h, include/unieval/unieval_version.h
#     lib/libunieval_{core,metrics_text,meteor,metrics,results,task_files,tasks}.a   (.so with
#                                               -DBUILD_SHARED_LIBS=ON)
#     lib/cmake/unieval/unievalConfig.cmake ... find_package(unieval): unieval::core, ::metrics, ...
#     lib/pkgconfig/unieval.pc
#     share/unieval/{paper,schema,scratch}/     paper tables, JSON schemas, from-scratch configs
#     share/bash-completion/completions/unieval, share/man/man1/unieval.1   (generated at build)
#
# Install components (CPack turns them into packages, cmake/UnievalPackage.cmake):
#   full   the CLI with unieval-model, completion, man page, data        -> unieval
#   score  the same without unieval-model (no LibTorch)                  -> unieval-score
#   dev    headers, libraries, CMake package, unieval.pc (no LibTorch)    -> unieval-dev
# `full` and `score` install the same files; a plain `cmake --install` installs all three.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(UNIEVAL_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/unieval CACHE STRING
    "Where the CMake package (unievalConfig.cmake) is installed, relative to the prefix")
set(UNIEVAL_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/unieval)

# ---- generated at build time: bash completion and man page, from the binary's --help texts ----
find_package(Python3 COMPONENTS Interpreter QUIET)
set(UNIEVAL_CLI_DOCS OFF)
if(Python3_Interpreter_FOUND AND NOT CMAKE_CROSSCOMPILING)
  set(UNIEVAL_CLI_DOCS ON)
  set(unieval_docs_dir ${PROJECT_BINARY_DIR}/share)
  set(unieval_docs_deps unieval)
  if(TARGET unieval-model)
    list(APPEND unieval_docs_deps unieval-model)
  endif()
  add_custom_command(
    OUTPUT ${unieval_docs_dir}/bash-completion/unieval ${unieval_docs_dir}/man/unieval.1
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/cmake/unieval_cli_docs.py
            --unieval $<TARGET_FILE:unieval> --version ${PROJECT_VERSION}
            --completion ${unieval_docs_dir}/bash-completion/unieval
            --man ${unieval_docs_dir}/man/unieval.1
    DEPENDS ${unieval_docs_deps} ${PROJECT_SOURCE_DIR}/cmake/unieval_cli_docs.py
    COMMENT "Generating the bash completion and unieval.1 from the --help texts")
  add_custom_target(unieval_cli_docs ALL
    DEPENDS ${unieval_docs_dir}/bash-completion/unieval ${unieval_docs_dir}/man/unieval.1)
else()
  message(STATUS "unieval: no Python 3 interpreter: the bash completion and man page are not generated")
endif()

# ---- the CLI and its run-time files: once per runtime component (full, score) ----
function(unieval_install_runtime component)
  install(TARGETS unieval RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ${component})
  if(BUILD_SHARED_LIBS)
    foreach(lib ${unieval_cli_libs})
      install(TARGETS ${lib} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${component}
              NAMELINK_SKIP)
    endforeach()
  endif()
  # The paper tables are compiled into the binary (results/embed_paper.cmake); the installed
  # copies are for reading and for UNIEVAL_PAPER_DIR. The schemas document the result files.
  install(FILES ${PROJECT_SOURCE_DIR}/results/paper/README.md ${unieval_paper_files}
          DESTINATION ${UNIEVAL_INSTALL_DATADIR}/paper COMPONENT ${component})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/results/schema/ DESTINATION ${UNIEVAL_INSTALL_DATADIR}/schema
          COMPONENT ${component} FILES_MATCHING PATTERN "*.json")
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/tasks/scratch/ DESTINATION ${UNIEVAL_INSTALL_DATADIR}/scratch
          COMPONENT ${component} FILES_MATCHING PATTERN "*.json")
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/THIRD_PARTY_NOTICES.md
          DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT ${component})
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSES/LGPL-2.1.txt
          DESTINATION ${CMAKE_INSTALL_DOCDIR}/LICENSES COMPONENT ${component})
  if(UNIEVAL_CLI_DOCS)
    install(FILES ${PROJECT_BINARY_DIR}/share/bash-completion/unieval
            DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT ${component})
    install(FILES ${PROJECT_BINARY_DIR}/share/man/unieval.1
            DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT ${component})
  endif()
endfunction()

file(GLOB unieval_paper_files ${PROJECT_SOURCE_DIR}/results/paper/*.json
     ${PROJECT_SOURCE_DIR}/results/paper/*.jsonl)
# The libraries of ours that `unieval` loads in a shared build (from PREFIX/lib; unieval-model
# also loads model_format, models and model_pipelines, installed with it below).
set(unieval_cli_libs)
foreach(part core metrics_text meteor metrics results task_files tasks tokenizer pipelines)
  if(TARGET unieval_${part})
    list(APPEND unieval_cli_libs unieval_${part})
  endif()
endforeach()
if(BUILD_SHARED_LIBS)
  file(RELATIVE_PATH unieval_bin_to_lib /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_LIBDIR})
  set_target_properties(unieval PROPERTIES INSTALL_RPATH "$ORIGIN/${unieval_bin_to_lib}")
  if(TARGET unieval-model)
    set_target_properties(unieval-model PROPERTIES INSTALL_RPATH "$ORIGIN/${unieval_bin_to_lib}")
  endif()
  # The linker writes RUNPATH, which serves only the object's own NEEDED entries: each library
  # finds the others beside itself.
  foreach(part core metrics_text meteor metrics results task_files tasks tokenizer pipelines model_format
          models model_pipelines)
    if(TARGET unieval_${part})
      set_target_properties(unieval_${part} PROPERTIES INSTALL_RPATH "$ORIGIN")
    endif()
  endforeach()
endif()

unieval_install_runtime(score)
unieval_install_runtime(full)
if(TARGET unieval-model)
  install(TARGETS unieval-model RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT full)
  if(BUILD_SHARED_LIBS)
    foreach(lib unieval_model_format unieval_models unieval_model_pipelines)
      if(TARGET ${lib})
        install(TARGETS ${lib} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT full NAMELINK_SKIP)
      endif()
    endforeach()
  endif()
endif()

# ---- the scoring libraries for C++ users: headers, archives, CMake package, pkg-config ----
# Installed headers keep the repository's include paths (#include "metrics/bleu.h" inside them):
# they live in PREFIX/include/unieval/<part>/, and the targets put PREFIX/include (for
# <unieval/metrics/bleu.h>) and PREFIX/include/unieval (for the headers' own includes) on the path.
set(unieval_export_parts core metrics_text meteor metrics results task_files tasks)
foreach(part ${unieval_export_parts})
  set_target_properties(unieval_${part} PROPERTIES EXPORT_NAME ${part})
  target_compile_features(unieval_${part} INTERFACE cxx_std_17)  # the headers are C++17
  target_include_directories(unieval_${part} INTERFACE
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/unieval>)
  install(TARGETS unieval_${part} EXPORT unievalTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
endforeach()
foreach(dir core metrics results tasks)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/unieval/${dir}
          COMPONENT dev FILES_MATCHING PATTERN "*.h" PATTERN "*_internal.h" EXCLUDE
          PATTERN "scratch" EXCLUDE PATTERN "paper" EXCLUDE PATTERN "schema" EXCLUDE
          PATTERN "experiments" EXCLUDE)
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/generated/unieval_version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/unieval COMPONENT dev)
# The archives include libunieval_meteor (LGPL-2.1): the licence texts travel with them.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/THIRD_PARTY_NOTICES.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSES/LGPL-2.1.txt
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/LICENSES COMPONENT dev)

install(EXPORT unievalTargets NAMESPACE unieval:: FILE unievalTargets.cmake
        DESTINATION ${UNIEVAL_INSTALL_CMAKEDIR} COMPONENT dev)
# The build tree as a package too: find_package(unieval) with unieval_DIR=build/.
export(EXPORT unievalTargets NAMESPACE unieval:: FILE ${PROJECT_BINARY_DIR}/unievalTargets.cmake)

# What unievalConfig.cmake must find again: a static archive's private dependencies are link
# items of whoever links it.
set(UNIEVAL_CONFIG_STATIC ON)
if(BUILD_SHARED_LIBS)
  set(UNIEVAL_CONFIG_STATIC OFF)
endif()
set(UNIEVAL_CONFIG_LIBDEFLATE OFF)
if(LIBDEFLATE_FOUND)
  set(UNIEVAL_CONFIG_LIBDEFLATE ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/unievalConfig.cmake.in
  ${PROJECT_BINARY_DIR}/unievalConfig.cmake INSTALL_DESTINATION ${UNIEVAL_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/unievalConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/unievalConfig.cmake ${PROJECT_BINARY_DIR}/unievalConfigVersion.cmake
        DESTINATION ${UNIEVAL_INSTALL_CMAKEDIR} COMPONENT dev)

# unieval.pc: relocatable (prefix from the file's own place), so that the same file serves
# /usr (the Debian package) and any --prefix.
file(RELATIVE_PATH unieval_pc_to_prefix /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" unieval_pc_to_prefix "${unieval_pc_to_prefix}")
set(UNIEVAL_PC_REQUIRES "nlohmann_json")
set(UNIEVAL_PC_REQUIRES_PRIVATE "icu-uc icu-i18n re2 zlib")
set(UNIEVAL_PC_LIBS_STATIC "")
set(UNIEVAL_PC_LIBS_PRIVATE "-pthread")
foreach(lib ${CMAKE_DL_LIBS})
  string(APPEND UNIEVAL_PC_LIBS_PRIVATE " -l${lib}")
endforeach()
if(LIBDEFLATE_FOUND)
  string(APPEND UNIEVAL_PC_REQUIRES_PRIVATE " libdeflate")
endif()
if(UNIEVAL_CONFIG_STATIC)
  # Static archives: their dependencies must be linked by whoever links them, with or without
  # `pkg-config --static`.
  set(UNIEVAL_PC_REQUIRES "${UNIEVAL_PC_REQUIRES} ${UNIEVAL_PC_REQUIRES_PRIVATE}")
  set(UNIEVAL_PC_REQUIRES_PRIVATE "")
  set(UNIEVAL_PC_LIBS_STATIC " ${UNIEVAL_PC_LIBS_PRIVATE}")
  set(UNIEVAL_PC_LIBS_PRIVATE "")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/unieval.pc.in ${PROJECT_BINARY_DIR}/unieval.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/unieval.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
