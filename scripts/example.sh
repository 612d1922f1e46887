#!/usr/bin/env bash
# The main job on a bundled example: builds the CLI (release), converts
# tests/fixtures/corpus/linear_tanh/linear_tanh.pt2 (Linear -> tanh -> Linear)
# into an ExecuTorch program, and shows where the .pte went and what is in it.
# Usage: scripts/example.sh [IN.pt2|IN.json|FOLDER] [OUT.pte]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "building the CLI (native-release; the first run takes about 10 minutes on 2 cores)..."
# The build's output goes to a log, shown (its end) when a step fails.
mkdir -p build
log=build/example-build.log
if ! { cmake --preset native-release && cmake --build --preset native-release -j "$(nproc)" --target pteforge; } >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "example.sh: building the CLI failed; the whole log is $log" >&2
  exit 1
fi
cli=build/native-release/core/pteforge
echo "the CLI is $cli"
input="${1:-tests/fixtures/corpus/linear_tanh/linear_tanh.pt2}"
output="${2:-out/$(basename "${input%.*}").pte}"
mkdir -p "$(dirname "$output")"
"$cli" inspect "$input"
"$cli" convert "$input" -o "$output" --metadata "${output%.pte}.metadata.json"
echo
echo "wrote $output ($(wc -c <"$output") bytes) and ${output%.pte}.metadata.json"
echo
"$cli" decode "$output"
