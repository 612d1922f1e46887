#!/usr/bin/env bash
# The native CLI's mimalloc options (core/cli/main.cpp): freed pages stay
# committed (allow_decommit 0) and heap segments ask for transparent huge
# pages (large_os_pages 1), set before any allocation; the MIMALLOC_*
# environment variables still decide. mimalloc prints its options with
# MIMALLOC_VERBOSE=1. Skipped (77) where the binary does not use mimalloc
# (sanitizer builds, -DPTEFORGE_MIMALLOC=OFF, WebAssembly).
# Usage: allocator.sh <pteforge binary> <source dir>
set -euo pipefail
bin="$1"
libs="$(ldd "$bin" 2>/dev/null || true)"
if [[ "$libs" != *libmimalloc* ]]; then
  echo "skip: $bin does not link mimalloc"
  exit 77
fi
options() {  # the two options' lines, in mimalloc's order
  env "$@" MIMALLOC_VERBOSE=1 "$bin" --version 2>&1 >/dev/null |
    grep -E "^mimalloc: option '(large_os_pages|allow_decommit)'"
}
want_default="mimalloc: option 'large_os_pages': 1
mimalloc: option 'allow_decommit': 0"
got="$(options)"
[[ "$got" == "$want_default" ]] || { printf 'defaults:\n%s\nexpected:\n%s\n' "$got" "$want_default" >&2; exit 1; }
want_env="mimalloc: option 'large_os_pages': 0
mimalloc: option 'allow_decommit': 1"
got="$(options MIMALLOC_LARGE_OS_PAGES=0 MIMALLOC_ALLOW_DECOMMIT=1)"
[[ "$got" == "$want_env" ]] || { printf 'with the variables set:\n%s\nexpected:\n%s\n' "$got" "$want_env" >&2; exit 1; }
echo "ok"
