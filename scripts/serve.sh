#!/usr/bin/env bash
# Serves the pteforge web page (web/ + the built npm package) on
# http://127.0.0.1:8080/ with the page's Content-Security-Policy header on
# every response. Build the package first: scripts/build-wasm.sh.
#
# Usage: scripts/serve.sh [--port N] [--host H] [--package DIR]
#        scripts/serve.sh --export DIR   (write the site as static files)
set -euo pipefail
cd "$(dirname "$0")/.."
exec node scripts/serve.mjs "$@"
