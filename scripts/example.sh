#!/usr/bin/env bash
# The main job on a bundled example: builds the CLI (release), converts
# tests/fixtures/corpus/linear_tanh/linear_tanh.pt2 (Linear -> tanh -> Linear)
# into an ExecuTorch program, and shows where the .pte went, what is in it, and
# that ExecuTorch's runtime would load it (`decode --check`).
# Usage: scripts/example.sh [IN.pt2|IN.json|FOLDER] [OUT.pte]
set -euo pipefail
# IN and OUT given relative to where the script is run from, not the repository.
caller="$PWD"
from_caller() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$caller/$1" ;; esac; }
in_arg="${1:+$(from_caller "$1")}"
out_arg="${2:+$(from_caller "$2")}"
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "building the CLI (native-release; the first run takes about 10 minutes on 2 idle cores, longer on a busy machine)..."
# The build's output goes to a log, shown (its end) when a step fails; the
# terminal gets one line per tenth of the build's steps.
mkdir -p build
log=build/example-build.log
progress() {
  local line shown=0 step total
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    if [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
      step=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
      if ((step * 10 / total > shown)); then
        shown=$((step * 10 / total))
        echo "  built $step of $total steps"
      fi
    fi
  done
}
if ! { cmake --preset native-release >"$log" 2>&1 &&
  cmake --build --preset native-release -j "$(nproc)" --target pteforge 2>&1 | progress; }; then
  tail -n 40 "$log" >&2
  echo "example.sh: building the CLI failed; the whole log is $log" >&2
  exit 1
fi
cli=build/native-release/core/pteforge
echo "the CLI is $cli"
input="${in_arg:-tests/fixtures/corpus/linear_tanh/linear_tanh.pt2}"
output="${out_arg:-out/$(basename "${input%.*}").pte}"
mkdir -p "$(dirname "$output")"
"$cli" inspect "$input"
"$cli" convert "$input" -o "$output" --metadata "${output%.pte}.metadata.json"
echo
echo "wrote $output ($(wc -c <"$output") bytes) and ${output%.pte}.metadata.json"
echo
"$cli" decode "$output"
echo
"$cli" decode --check "$output"
