#!/usr/bin/env bash
# WASM ÷ native benchmark (scripts/bench_wasm.mjs): builds the native CLI
# (native-release) and the npm package (wasm-release), then times both on the
# synthetic 1k / 10k / 100k-node programs (generated once into build/bench/).
# Usage: scripts/bench_wasm.sh [bench_wasm.mjs args: --runs N --warmup N --warmup-ms MS --op convert|inspect --sizes 1000,10000]
#   PTEFORGE_JOBS=N  parallel build jobs (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -n "${PTEFORGE_SETUP_DONE:-}" ]] || bash scripts/setup.sh
export NODE_PATH=/usr/share/nodejs # E1
jobs="${PTEFORGE_JOBS:-$(nproc)}"
cmake --preset native-release >/dev/null
cmake --build --preset native-release -j "$jobs" --target pteforge
cmake --preset wasm-release >/dev/null
cmake --build --preset wasm-release -j "$jobs" --target pteforge_package
exec node scripts/bench_wasm.mjs "$@"
