# Compile-time measures for the Debug builds that CI runs twice (native-debug
# with g++ 12, native-asan with clang 14), the largest part of its budget.
# Measured 2026-12-02 on the 2-core CI-like machine, native-debug (-O0 -g1):
# 248 steps, 13.8 min wall, 1,518 s of compiler time (core 744 s, tests 870 s).
#
# PTEFORGE_UNITY_BUILD (default: on for Debug builds): pteforge_core and the
# CLI compile as unity batches of 8 sources (CMake's UNITY_BUILD). Most of a
# core source's time is the headers it shares with the others (ir/graph.h,
# passes/pass.h, the standard library) and the inline code they instantiate;
# a batch does that once. Core: 744 s -> about 270 s of compiler time.
# Release builds (native-release, wasm-release: what ships) stay one object per
# source; CI's wasm stage builds wasm-release, so a core source (other than the
# *_native.cpp ones) that forgets an #include still fails CI. In a batch, the
# names in one source's anonymous namespace are visible to the sources after
# it, and batches cross area folders: file-local helpers in core/ need names
# unique across core/. Two helpers of the same name and signature are a
# compile error; with different signatures they would silently become
# overloads (archive_dir.cpp's io_error became folder_error for this), and a
# std:: function can win by argument-dependent lookup (archive_zip.cpp's
# quoted(), now quoted_entry, lost to std::quoted).
# The tests are grouped where their sources can share a batch
# (pteforge_unity_test_groups below); a grouped test source is then never
# compiled alone in CI (configure with -DPTEFORGE_UNITY_BUILD=OFF to check).
#
# PTEFORGE_PCH (default: on for Clang, i.e. native-asan): the test binaries
# share one precompiled header (the standard library, our common headers,
# doctest). With clang 14 a precompiled header is loaded lazily (a core source
# went from 7.0 s to 2.9 s); with g++ 12 the 119 MB .gch cost about as much to
# load as it saved (native-debug 13.8 -> 13.5 min), so it is off there.
# tests/native/test_main.cpp defines DOCTEST_CONFIG_IMPLEMENT before including
# doctest and is left out (tests/CMakeLists.txt).
# The default is decided at the first configure of a build folder (cached).
if(CMAKE_BUILD_TYPE MATCHES "^[Dd][Ee][Bb][Uu][Gg]$")
  set(_pf_unity_default ON)
else()
  set(_pf_unity_default OFF)
endif()
option(PTEFORGE_UNITY_BUILD "Compile the core, the CLI and the grouped tests in unity batches (default: Debug builds)"
       ${_pf_unity_default})
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND NOT EMSCRIPTEN)
  set(_pf_pch_default ON)
else()
  set(_pf_pch_default OFF)
endif()
option(PTEFORGE_PCH "Precompile the tests' common headers (default: native Clang builds)" ${_pf_pch_default})

# pteforge_unity_build(TARGET): unity batches for TARGET when PTEFORGE_UNITY_BUILD is on.
function(pteforge_unity_build target)
  if(PTEFORGE_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
endfunction()

# pteforge_precompile_test(TARGET): the first test binary builds the tests'
# precompiled header, the others reuse it (REUSE_FROM). That needs every test
# binary compiled with the same flags and definitions (tests/CMakeLists.txt
# gives them the same ones): a per-folder definition or option would break it.
function(pteforge_precompile_test target)
  if(NOT PTEFORGE_PCH)
    return()
  endif()
  get_property(_first GLOBAL PROPERTY PTEFORGE_PCH_TEST_TARGET)
  if(_first)
    target_precompile_headers(${target} REUSE_FROM ${_first})
  else()
    target_precompile_headers(${target} PRIVATE
      <algorithm> <cstdint> <functional> <map> <memory> <optional> <string> <string_view>
      <unordered_map> <utility> <variant> <vector> <doctest/doctest.h>
      ${PROJECT_SOURCE_DIR}/core/support/error.h ${PROJECT_SOURCE_DIR}/core/ir/graph.h
      ${PROJECT_SOURCE_DIR}/core/ir/exported_program.h ${PROJECT_SOURCE_DIR}/core/ir/printer.h
      ${PROJECT_SOURCE_DIR}/core/passes/pass.h)
    set_property(GLOBAL PROPERTY PTEFORGE_PCH_TEST_TARGET ${target})
  endif()
endfunction()

# pteforge_unity_test_groups(TARGET DIR SOURCES...): unity batches for the
# test sources that can share one (CMake's UNITY_BUILD_MODE GROUP; a source
# without a group compiles alone). In tests/native/passes/ a group is the
# sources that include the same helper header (edge_, et_, decompose_ or
# swap_test_util.h: each defines its own run_passes); a source that includes
# two of them, or none, compiles alone. In ir/, memplan/, ops/, serde/ and
# support/ the whole folder is one group. The other folders' sources share
# helper names or `using namespace` directives and compile alone.
function(pteforge_unity_test_groups target dir)
  if(NOT PTEFORGE_UNITY_BUILD)
    return()
  endif()
  set(_grouped FALSE)
  foreach(_src ${ARGN})
    set(_group "")
    if(dir STREQUAL "passes")
      # The group comes from the source's includes: configure again when they change.
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_src})
      file(STRINGS ${_src} _helpers REGEX "^#include \"(passes/)?(edge|et|decompose|swap)_test_util\\.h\"")
      list(LENGTH _helpers _n)
      if(_n EQUAL 1)
        string(REGEX REPLACE "^#include \"(passes/)?([a-z]+)_test_util\\.h\".*" "\\2" _group "${_helpers}")
      endif()
    elseif(dir MATCHES "^(ir|memplan|ops|serde|support)$")
      set(_group "${dir}")
    endif()
    if(_group)
      set_source_files_properties(${_src} PROPERTIES UNITY_GROUP "${_group}")
      set(_grouped TRUE)
    endif()
  endforeach()
  if(_grouped)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  endif()
endfunction()
