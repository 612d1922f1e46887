# Removes the files of DIR that match GLOB but are not named in KEEP (names
# separated by '|'): a module dropped from wasm/js/ must not stay behind in an
# incrementally rebuilt npm package (npm pack would ship it).
# Usage: cmake -DDIR=<dir> -DGLOB=<pattern> -DKEEP=<a|b|c> -P prune_stale.cmake
cmake_policy(SET CMP0057 NEW)  # if(IN_LIST) in script mode
string(REPLACE "|" ";" _keep "${KEEP}")
file(GLOB _found RELATIVE "${DIR}" "${DIR}/${GLOB}")
foreach(_f IN LISTS _found)
  if(NOT _f IN_LIST _keep)
    file(REMOVE "${DIR}/${_f}")
    message(STATUS "removed stale ${DIR}/${_f}")
  endif()
endforeach()
