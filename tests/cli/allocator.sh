#!/usr/bin/env bash
# The native CLI's mimalloc options (core/cli/main.cpp): freed pages stay
# committed (allow_decommit 0), the heap asks for 2 MiB pages
# (large_os_pages 1) and commits its first segment at once
# (eager_commit_delay 0), all set before any allocation; the MIMALLOC_*
# environment variables still decide. mimalloc prints its options with
# MIMALLOC_VERBOSE=1, from its own initialization: options set any later
# than .preinit_array would show mimalloc's defaults here.
# CTest sets PTEFORGE_EXPECT_MIMALLOC=1 when the CLI links mimalloc
# (core/CMakeLists.txt); elsewhere (sanitizer builds, -DPTEFORGE_MIMALLOC=OFF,
# WebAssembly) the test is skipped (77). The option names and the output
# format are those of Debian 12's mimalloc 2.0.9 (later versions rename
# options).
# An allocation that fails is one OUT_OF_MEMORY line and exit status 1.
# Usage: allocator.sh <pteforge binary> <source dir>
set -euo pipefail
bin="$1"
if [[ "${PTEFORGE_EXPECT_MIMALLOC:-0}" != 1 ]]; then
  echo "skip: this build's CLI does not link mimalloc"
  exit 77
fi
options() {  # the three options' lines as mimalloc reports them, caller's MIMALLOC_* unset
  env -u MIMALLOC_LARGE_OS_PAGES -u MIMALLOC_ALLOW_DECOMMIT -u MIMALLOC_EAGER_COMMIT_DELAY "$@" MIMALLOC_VERBOSE=1 \
    "$bin" --version 2>&1 >/dev/null |
    grep -E "^mimalloc: option '(large_os_pages|eager_commit_delay|allow_decommit)'" || true
}
check() {  # check WANT [VAR=VALUE...]
  local want="$1"
  shift
  local got
  got="$(options "$@")"
  [[ "$got" == "$want" ]] || { printf 'with [%s]:\n%s\nexpected:\n%s\n' "$*" "$got" "$want" >&2; exit 1; }
}
check "mimalloc: option 'large_os_pages': 1
mimalloc: option 'eager_commit_delay': 0
mimalloc: option 'allow_decommit': 0"
check "mimalloc: option 'large_os_pages': 0
mimalloc: option 'eager_commit_delay': 1
mimalloc: option 'allow_decommit': 1" MIMALLOC_LARGE_OS_PAGES=0 MIMALLOC_ALLOW_DECOMMIT=1 MIMALLOC_EAGER_COMMIT_DELAY=1
# mimalloc matches its variables' names in any case, and so does the CLI.
check "mimalloc: option 'large_os_pages': 0
mimalloc: option 'eager_commit_delay': 0
mimalloc: option 'allow_decommit': 0" mimalloc_large_os_pages=0
# An allocation that fails ends the run with one OUT_OF_MEMORY line and exit
# status 1 (mimalloc's error hook), not an abort: decode must read this sparse
# 1 GiB file whole, and the address space is capped at 400 MB.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
truncate -s 1G "$work/big.pte"
printf '\000\000\000\000ET12' | dd of="$work/big.pte" conv=notrunc status=none
set +e
(ulimit -v 400000 && exec "$bin" decode "$work/big.pte") >"$work/out.txt" 2>"$work/err.txt"
rc=$?
set -e
[[ $rc == 1 ]] || { echo "out of memory: exit status $rc, expected 1" >&2; cat "$work/err.txt" >&2; exit 1; }
want="OUT_OF_MEMORY: the command needed more memory than the system gave it; free some memory, or run it on a machine with more"
[[ "$(cat "$work/err.txt")" == "$want" ]] || { echo "out of memory: stderr was:" >&2; cat "$work/err.txt" >&2; exit 1; }
[[ ! -s "$work/out.txt" ]] || { echo "out of memory: something was printed" >&2; exit 1; }
echo "ok"
