# Debian packages with CPack (docs/install.md):
#
#   cmake --build build && (cd build && cpack -G DEB)
#
# gives, from the install components of cmake/UnievalInstall.cmake:
#   unieval_<version>_amd64.deb        unieval + unieval-model (LibTorch), completion, man, data
#   unieval-score_<version>_amd64.deb  the same without unieval-model: no LibTorch dependency
#   unieval-dev_<version>_amd64.deb    headers, libraries, CMake package, unieval.pc
# Depends: from the binaries' shared libraries (dpkg-shlibdeps: libtorch1.13 for unieval-model,
# libc6 for the statically linked unieval), and for unieval-dev the -dev packages of what the
# archives link. unieval and unieval-score hold the same /usr/bin/unieval: they conflict.
set(CPACK_PACKAGE_NAME unieval)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "unieval")
set(CPACK_PACKAGE_CONTACT "unieval maintainers <maintainers@unieval.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "official NLG/QA/GLUE metrics and paper reproduction for UniLM, ERNIE-GEN and GPT")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING IGNORE)  # one package per component
set(CPACK_COMPONENTS_ALL score dev)
if(TARGET unieval-model)
  list(PREPEND CPACK_COMPONENTS_ALL full)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # NAME_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS OFF)

set(CPACK_DEBIAN_FULL_PACKAGE_NAME unieval)
set(CPACK_DEBIAN_FULL_DESCRIPTION "official metrics, paper reproduction and the LibTorch model commands\nOfficial metrics (ROUGE-1.5.5, sacreBLEU, METEOR 1.5, NIST, SQuAD, CoQA, GLUE) with the official scripts' numbers, task evaluation, leaderboards and regression gates, and the LibTorch model commands (finetune, pretrain, decode, demo, run) in unieval-model.")
set(CPACK_DEBIAN_FULL_PACKAGE_CONFLICTS unieval-score)
set(CPACK_DEBIAN_FULL_PACKAGE_REPLACES unieval-score)
set(CPACK_DEBIAN_FULL_PACKAGE_PROVIDES unieval-score)

set(CPACK_DEBIAN_SCORE_PACKAGE_NAME unieval-score)
set(CPACK_DEBIAN_SCORE_DESCRIPTION "official metrics and evaluation, scoring only (no LibTorch)\nThe unieval CLI without the model commands: score, eval, tokenize, vocab, reproduce, table, compare, plot. Statically linked; no LibTorch. For machines that only evaluate.")
set(CPACK_DEBIAN_SCORE_PACKAGE_CONFLICTS unieval)

set(CPACK_DEBIAN_DEV_PACKAGE_NAME unieval-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_DESCRIPTION "C++ libraries of the unieval metrics (no LibTorch)\nHeaders, libraries, CMake package (find_package(unieval): unieval::metrics, ...) and unieval.pc of unieval's scoring libraries: core, metrics, results, tasks. No LibTorch.")
set(unieval_dev_depends "nlohmann-json3-dev, libicu-dev, libre2-dev, zlib1g-dev, pkg-config")
if(LIBDEFLATE_FOUND)
  string(APPEND unieval_dev_depends ", libdeflate-dev")
endif()
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${unieval_dev_depends}")

include(CPack)
cpack_add_component(full DISPLAY_NAME "unieval (with the LibTorch model commands)")
cpack_add_component(score DISPLAY_NAME "unieval-score (scoring only)")
cpack_add_component(dev DISPLAY_NAME "unieval-dev (C++ libraries)")
