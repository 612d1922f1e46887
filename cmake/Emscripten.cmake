# Emscripten 3.1.6 (Debian 12) specifics. Natively this file only defines
# pteforge_node_program() as a no-op. Every flag below carries the reason it
# is there (engineering-notes part E).

if(NOT EMSCRIPTEN)
  function(pteforge_node_program target)
  endfunction()
  return()
endif()

# E14: emcmake (without presets) sets the emulator to
# "node;--experimental-wasm-threads", which Node 20 rejects ("bad option"), so
# ctest and doctest_discover_tests could not run anything. Plain node works.
if(CMAKE_CROSSCOMPILING_EMULATOR MATCHES "--experimental-wasm-threads")
  list(GET CMAKE_CROSSCOMPILING_EMULATOR 0 _pf_node)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${_pf_node}" CACHE FILEPATH "Runs WASM programs (node)" FORCE)
  message(STATUS "pteforge: CMAKE_CROSSCOMPILING_EMULATOR reset to ${_pf_node} (E14)")
endif()
if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
  message(FATAL_ERROR "CMAKE_CROSSCOMPILING_EMULATOR is empty: configure with a wasm-* preset "
                      "or -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node")
endif()
list(GET CMAKE_CROSSCOMPILING_EMULATOR 0 PTEFORGE_NODE)

# E1: emcc's JS optimizer needs `acorn`, which Debian ships in /usr/share/nodejs,
# a directory NodeSource's Node 20 does not search. The presets put NODE_PATH in
# the configure and build environment; the linker launcher below makes every
# link get it too, however the build is started (ninja directly, an IDE, ...).
set(PTEFORGE_NODE_PATH /usr/share/nodejs CACHE PATH "NODE_PATH for emcc (where Debian's node-acorn lives)")
execute_process(COMMAND ${CMAKE_COMMAND} -E env NODE_PATH=${PTEFORGE_NODE_PATH}
                        ${PTEFORGE_NODE} -e "require('acorn')"
                RESULT_VARIABLE _pf_acorn_rc OUTPUT_QUIET ERROR_QUIET)
if(NOT _pf_acorn_rc EQUAL 0)
  message(FATAL_ERROR "${PTEFORGE_NODE} cannot load acorn from NODE_PATH=${PTEFORGE_NODE_PATH}: "
                      "run scripts/setup.sh (node-acorn comes with the emscripten package)")
endif()
set(CMAKE_C_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=${PTEFORGE_NODE_PATH})
set(CMAKE_CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=${PTEFORGE_NODE_PATH})

# The workspace package.json says "type": "module", which would make Node load
# the build tree's classic-script glue (*.js) as ES modules ("__dirname is not
# defined in ES module scope"). This file scopes the build tree back to CommonJS.
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/package.json CONTENT "{ \"type\": \"commonjs\" }\n")

message(STATUS "pteforge: Emscripten ${EMSCRIPTEN_VERSION}, emulator ${CMAKE_CROSSCOMPILING_EMULATOR}, "
               "NODE_PATH ${PTEFORGE_NODE_PATH}")

set(_pf_node_pre_js ${CMAKE_CURRENT_LIST_DIR}/node_program.pre.js)
# A shebang makes the .js runnable like the native binary ("$pteforge" args),
# so shell tests (tests/cli/*.sh) and scripts need not know which build they got.
set(_pf_node_shebang ${CMAKE_BINARY_DIR}/node_shebang.js)
file(CONFIGURE OUTPUT ${_pf_node_shebang} CONTENT "#!${PTEFORGE_NODE}\n")

# Makes `target` (an executable: the CLI or a doctest binary) a plain Node
# program that behaves like its native build: same arguments, same files, same
# stdout/stderr bytes and exit code.
function(pteforge_node_program target)
  # CLI11 and doctest report through exceptions; without -fexceptions at compile
  # AND link, catch blocks never run (E4). Only this target's own objects get it:
  # pteforge_core is built with -fno-exceptions and never has an exception pass
  # through it, so mixing is safe (an exception could only skip destructors in
  # core frames, and none unwinds through them).
  target_compile_options(${target} PRIVATE -fexceptions)
  target_link_options(${target} PRIVATE
    -fexceptions
    # Real files through Node's fs (relative paths resolve against the cwd),
    # stdout/stderr bytes written as-is with fs.writeSync. FORCE_FILESYSTEM:
    # without it a program that opens no file gets the console.log fallback,
    # which decodes stdout as UTF-8 and appends newlines.
    -sNODERAWFS=1
    -sFORCE_FILESYSTEM=1
    # isatty() as Node sees it, not always 1 (see the file).
    "SHELL:--pre-js ${_pf_node_pre_js}"
    "SHELL:--extern-pre-js ${_pf_node_shebang}"
    -sENVIRONMENT=node
    # The .wasm embedded in the .js: Node 20's global fetch() cannot load a
    # file path (E2), and one file is easy to copy and run.
    -sSINGLE_FILE=1
    # Flush stdio and return main's exit code to the shell.
    -sEXIT_RUNTIME=1
    # The default heap is a fixed 16 MiB (E5).
    -sALLOW_MEMORY_GROWTH=1
    -sMAXIMUM_MEMORY=4GB
    # Debug builds: checked runtime (E10); -sASSERTIONS=2 also checks for
    # stack overflow.
    $<$<CONFIG:Debug>:-sASSERTIONS=2>
    $<$<CONFIG:Debug>:-sSAFE_HEAP=1>)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${_pf_node_pre_js} ${_pf_node_shebang})
  add_custom_command(TARGET ${target} POST_BUILD COMMAND chmod +x $<TARGET_FILE:${target}> VERBATIM)
endfunction()
