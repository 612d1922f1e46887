# Third-party dependencies. Natively they come from Debian packages through
# find_package. Under Emscripten the toolchain hides /usr/include (and adding
# -I/usr/include breaks libc headers, engineering-notes E15), so the header-only
# libraries are staged into the build tree and added as SYSTEM includes.

find_program(FLATC flatc REQUIRED)
find_package(Python3 COMPONENTS Interpreter REQUIRED)

set(PTEFORGE_STAGED_INCLUDE ${CMAKE_BINARY_DIR}/third_party/include)
file(MAKE_DIRECTORY ${PTEFORGE_STAGED_INCLUDE})
foreach(_dep rapidjson flatbuffers CLI)
  if(NOT EXISTS ${PTEFORGE_STAGED_INCLUDE}/${_dep})
    if(NOT EXISTS /usr/include/${_dep})
      message(FATAL_ERROR "/usr/include/${_dep} missing: run scripts/setup.sh")
    endif()
    file(CREATE_LINK /usr/include/${_dep} ${PTEFORGE_STAGED_INCLUDE}/${_dep} SYMBOLIC)
  endif()
endforeach()

add_library(pteforge_third_party INTERFACE)
target_include_directories(pteforge_third_party SYSTEM INTERFACE ${PTEFORGE_STAGED_INCLUDE})
# RapidJSON: use std::string and 64-bit sizes consistently on both toolchains.
target_compile_definitions(pteforge_third_party INTERFACE RAPIDJSON_HAS_STDSTRING=1)

if(NOT EMSCRIPTEN)
  # Debian's libzip CMake config demands the zipcmp/zipmerge tools; pkg-config does not.
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)
  find_package(doctest REQUIRED)
endif()
