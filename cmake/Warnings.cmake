# Per-target defaults, applied with pteforge_target_defaults(<target>) to every
# target we compile (never to third-party code):
#  - warnings (-Wall -Wextra), -Werror when PTEFORGE_WERROR is on;
#  - sanitizers when PTEFORGE_SANITIZE is set (native only, checked at top level);
#  - the exception policy: libraries (the core) are compiled with -fno-exceptions
#    on both toolchains, so a `throw`/`try` in core code fails the native build
#    already and the WASM build never needs exception support (design.md,
#    engineering-notes E4). Executables keep exceptions (CLI11, doctest);
#  - under Emscripten, executables become Node programs (pteforge_node_program,
#    cmake/Emscripten.cmake).
function(pteforge_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  # Clang (native-asan, Emscripten) flags every ranged for over a RapidJSON
  # object under C++20: its member iterators declare operator!= in a way the
  # reversed-operator rule finds ambiguous (RapidJSON's headers, not our code).
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -Wno-ambiguous-reversed-operator)
  endif()
  if(PTEFORGE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

function(pteforge_target_defaults target)
  pteforge_target_warnings(${target})
  if(PTEFORGE_SANITIZE)
    string(REPLACE ";" "," _san "${PTEFORGE_SANITIZE}")
    target_compile_options(${target} PRIVATE -fsanitize=${_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    if(CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND "undefined" IN_LIST PTEFORGE_SANITIZE)
      # Recoverable only so that tests/ubsan.supp can silence RapidJSON's
      # null-base stack arithmetic; halt_on_error=1 (test preset) still stops on any other.
      target_compile_options(${target} PRIVATE -fsanitize-recover=pointer-overflow)
    endif()
    target_link_options(${target} PRIVATE -fsanitize=${_san})
  endif()
  get_target_property(_type ${target} TYPE)
  if(_type MATCHES "^(STATIC|SHARED|OBJECT)_LIBRARY$")
    target_compile_options(${target} PRIVATE -fno-exceptions)
  elseif(_type STREQUAL "EXECUTABLE" AND EMSCRIPTEN)
    pteforge_node_program(${target})
  endif()
endfunction()
