#!/usr/bin/env bash
# Fresh checkout -> native build: runs setup, configures and builds one preset.
# The CLI ends up in build/<preset>/core/pteforge.
# Usage: scripts/build-native.sh [native-release|native-debug|native-asan] [cmake --build args...]
#   (default native-release; e.g. `scripts/build-native.sh native-debug --target pteforge`)
#   PTEFORGE_JOBS=N  parallel jobs (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-native-release}"
case "$preset" in
  native-release|native-debug|native-asan) ;;
  *) echo "usage: scripts/build-native.sh [native-release|native-debug|native-asan] [cmake --build args...]" >&2; exit 2 ;;
esac
shift $(($# ? 1 : 0))
[[ -n "${PTEFORGE_SETUP_DONE:-}" ]] || bash scripts/setup.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "${PTEFORGE_JOBS:-$(nproc)}" "$@"
echo "built: build/$preset/core/pteforge"
