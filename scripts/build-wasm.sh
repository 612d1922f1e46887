#!/usr/bin/env bash
# Fresh checkout -> WebAssembly build with Debian's Emscripten 3.1.6: runs
# setup, configures and builds one preset (the presets carry the toolchain,
# NODE_PATH and the Node emulator, so no emcmake/emsdk environment is needed).
# Outputs: build/<preset>/core/pteforge.js (the CLI as a Node program; runs as
# `build/<preset>/core/pteforge.js ARGS` or `node build/<preset>/core/pteforge.js ARGS`)
# and the npm package, assembled in build/<preset>/wasm/package/ (package.json,
# dist/ with the JS wrapper + pteforge.{mjs,wasm}, types/); `npm pack` there
# makes the tarball. Prints the .wasm size and its gzip size.
# Usage: scripts/build-wasm.sh [wasm-release|wasm-debug] [cmake --build args...]
#   PTEFORGE_JOBS=N  parallel jobs (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-wasm-release}"
case "$preset" in
  wasm-release|wasm-debug) ;;
  *) echo "usage: scripts/build-wasm.sh [wasm-release|wasm-debug] [cmake --build args...]" >&2; exit 2 ;;
esac
shift $(($# ? 1 : 0))
[[ -n "${PTEFORGE_SETUP_DONE:-}" ]] || bash scripts/setup.sh
export NODE_PATH=/usr/share/nodejs # E1 (the presets set it as well)
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "${PTEFORGE_JOBS:-$(nproc)}" "$@"
echo "built: build/$preset/core/pteforge.js"
pkg="build/$preset/wasm/package"
if [[ -f "$pkg/dist/pteforge.wasm" ]]; then
  echo "built: $pkg (npm package)"
  echo "  pteforge.wasm: $(stat -c %s "$pkg/dist/pteforge.wasm") bytes, gzip -9: $(gzip -9c "$pkg/dist/pteforge.wasm" | wc -c) bytes"
  echo "  pteforge.mjs (glue): $(stat -c %s "$pkg/dist/pteforge.mjs") bytes, gzip -9: $(gzip -9c "$pkg/dist/pteforge.mjs" | wc -c) bytes"
fi
