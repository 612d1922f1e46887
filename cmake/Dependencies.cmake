# Third-party dependencies, all from Debian 12 packages (scripts/setup.sh).
#
# Host tools (flatc, python3) are found the same way natively and under the
# Emscripten toolchain (its CMAKE_FIND_ROOT_PATH_MODE_PROGRAM is NEVER).
# Headers are a different story: under Emscripten find_path/find_package cannot
# see /usr/include (root path mode ONLY), and adding -I/usr/include breaks the
# libc headers (engineering-notes E15). So the header-only libraries are staged
# into the build tree as symlinks and added as SYSTEM includes on both
# toolchains; SYSTEM also silences RapidJSON 1.1.0's deprecation warnings under
# Emscripten's libc++ (F2), which -Werror would otherwise turn fatal.

# --- host tools ---------------------------------------------------------------
find_program(FLATC flatc REQUIRED)
find_package(Python3 COMPONENTS Interpreter REQUIRED)

# Generated code static_asserts the flatbuffers header version (F4): flatc and
# the staged headers must come from the same release.
execute_process(COMMAND ${FLATC} --version OUTPUT_VARIABLE _flatc_out
                RESULT_VARIABLE _flatc_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" PTEFORGE_FLATC_VERSION "${_flatc_out}")
if(NOT _flatc_rc EQUAL 0 OR NOT PTEFORGE_FLATC_VERSION)
  message(FATAL_ERROR "${FLATC} --version failed: '${_flatc_out}'")
endif()
file(STRINGS /usr/include/flatbuffers/base.h _fb_ver REGEX "#define FLATBUFFERS_VERSION_(MAJOR|MINOR|REVISION) ")
string(REGEX REPLACE "[^0-9;]*([0-9]+)" "\\1." _fb_ver "${_fb_ver}")
string(REPLACE ";" "" _fb_ver "${_fb_ver}")
string(REGEX REPLACE "\\.$" "" _fb_ver "${_fb_ver}")
if(NOT _fb_ver STREQUAL PTEFORGE_FLATC_VERSION)
  message(FATAL_ERROR "flatc ${PTEFORGE_FLATC_VERSION} (${FLATC}) does not match the flatbuffers "
                      "headers ${_fb_ver} in /usr/include; put Debian's /usr/bin/flatc first in PATH")
endif()

# Code generators in scripts/ use the standard library plus PyYAML only.
execute_process(COMMAND ${Python3_EXECUTABLE} -c "import yaml" RESULT_VARIABLE _yaml_rc
                OUTPUT_QUIET ERROR_QUIET)
if(NOT _yaml_rc EQUAL 0)
  message(FATAL_ERROR "${Python3_EXECUTABLE} cannot import yaml: run scripts/setup.sh (python3-yaml), "
                      "or configure with -DPython3_EXECUTABLE=/usr/bin/python3")
endif()
message(STATUS "pteforge: flatc ${PTEFORGE_FLATC_VERSION} (${FLATC}), python ${Python3_VERSION} (${Python3_EXECUTABLE})")

# --- header-only libraries, staged --------------------------------------------
set(PTEFORGE_STAGED_INCLUDE ${CMAKE_BINARY_DIR}/third_party/include)
set(_pf_staged rapidjson flatbuffers CLI xxhash.h tsl)
if(EMSCRIPTEN AND PTEFORGE_BUILD_TESTS)
  list(APPEND _pf_staged doctest)
endif()
file(MAKE_DIRECTORY ${PTEFORGE_STAGED_INCLUDE})
foreach(_dep ${_pf_staged})
  if(NOT EXISTS /usr/include/${_dep})
    message(FATAL_ERROR "/usr/include/${_dep} missing: run scripts/setup.sh")
  endif()
  if(NOT EXISTS ${PTEFORGE_STAGED_INCLUDE}/${_dep})
    file(CREATE_LINK /usr/include/${_dep} ${PTEFORGE_STAGED_INCLUDE}/${_dep} SYMBOLIC)
  endif()
endforeach()

add_library(pteforge_third_party INTERFACE)
target_include_directories(pteforge_third_party SYSTEM INTERFACE ${PTEFORGE_STAGED_INCLUDE})
# RapidJSON: accept std::string on both toolchains.
target_compile_definitions(pteforge_third_party INTERFACE RAPIDJSON_HAS_STDSTRING=1)

# --- libraries that differ per toolchain ---------------------------------------
if(NOT EMSCRIPTEN)
  # Debian's libzip CMake config demands the zipcmp/zipmerge tools; pkg-config does not.
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)
  # libdeflate for CRC-32 (core/serde/crc32_native.cpp): its carry-less
  # multiply CRC is ~6x zlib's on the program entry, which is checked before
  # the import can start.
  pkg_check_modules(LIBDEFLATE REQUIRED IMPORTED_TARGET libdeflate)
  # mimalloc replaces glibc's malloc in the native CLI: the passes make and drop
  # many small objects, and with glibc's allocator a convert of the 10k-node
  # synthetic program spent about a third of its time in malloc/free
  # (README "Performance"). Sanitizer builds keep their own allocator.
  option(PTEFORGE_MIMALLOC "Link the native CLI against mimalloc (Debian's libmimalloc-dev)" ON)
  if(PTEFORGE_MIMALLOC AND NOT PTEFORGE_SANITIZE)
    find_package(mimalloc CONFIG QUIET)
    if(NOT TARGET mimalloc)
      message(FATAL_ERROR "mimalloc not found: run scripts/setup.sh (libmimalloc-dev), or configure with -DPTEFORGE_MIMALLOC=OFF")
    endif()
    message(STATUS "pteforge: mimalloc is the CLI's allocator")
  endif()
  if(PTEFORGE_BUILD_TESTS)
    find_package(doctest REQUIRED)
  endif()
elseif(PTEFORGE_BUILD_TESTS)
  # doctest under Emscripten: the staged header plus doctest's own CMake module
  # (doctest_discover_tests runs the test binaries through the emulator, node).
  add_library(pteforge_doctest INTERFACE)
  target_include_directories(pteforge_doctest SYSTEM INTERFACE ${PTEFORGE_STAGED_INCLUDE})
  add_library(doctest::doctest ALIAS pteforge_doctest)
  if(NOT EXISTS /usr/lib/cmake/doctest/doctest.cmake)
    message(FATAL_ERROR "/usr/lib/cmake/doctest/doctest.cmake missing: run scripts/setup.sh (doctest-dev)")
  endif()
  list(APPEND CMAKE_MODULE_PATH /usr/lib/cmake/doctest)
endif()
