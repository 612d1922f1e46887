#!/usr/bin/env bash
# `pteforge --version`: the project version (CMakeLists.txt project()), exit 0,
# with or without a subcommand after it.
# Usage: version.sh <pteforge binary> <source dir>
set -euo pipefail
bin="$1"
src="$2"
want="pteforge $(sed -n 's/^project(pteforge VERSION \([0-9.]*\) .*/\1/p' "$src/CMakeLists.txt")"
[[ "$want" != "pteforge " ]]
got="$("$bin" --version)"
[[ "$got" == "$want" ]] || { echo "--version printed '$got', expected '$want'" >&2; exit 1; }
echo "ok: $got"
