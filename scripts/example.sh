#!/usr/bin/env bash
# The main job on a bundled example: builds the CLI (release) and runs it on
# tests/fixtures/corpus/linear_tanh/linear_tanh.pt2.
# Usage: scripts/example.sh [FILE.pt2|FILE.json]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset native-release >/dev/null
cmake --build --preset native-release -j "$(nproc)" --target pteforge >/dev/null
input="${1:-tests/fixtures/corpus/linear_tanh/linear_tanh.pt2}"
build/native-release/core/pteforge inspect "$input"
