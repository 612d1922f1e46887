#!/usr/bin/env bash
# Ctrl-C during convert leaves nothing behind: SIGINT delivered right after
# each write(2) and rename(2) the CLI makes (strace's signal injection, so
# every point of the output sequence is hit, not a lucky timing). After each
# run the output folder holds either nothing (interrupted before the outputs
# were in place; exit 130) or the finished .pte and metadata, byte-identical to
# an uninterrupted run. Never a temporary file, never metadata without its .pte.
# Run again over an earlier run's outputs, an interrupted run leaves those as
# they were: never new metadata beside the old .pte, or the reverse.
# Exit 77 (skipped) where ptrace is not permitted (strace cannot run), and
# for the WebAssembly CLI (it cannot catch signals).
# Usage: interrupt.sh <pteforge binary> <source dir>
set -euo pipefail
bin="$1"
src="$2"
input="$src/tests/fixtures/corpus/linear_tanh/linear_tanh.pt2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ "$bin" == *.js ]]; then
  # The WASM CLI runs synchronously inside Node: Emscripten's signal functions
  # are stubs and Node's JavaScript SIGINT listeners only run once main has
  # returned, so Ctrl-C ends it where it is (README: "The WASM CLI").
  echo "skipped: the WebAssembly CLI cannot catch signals"
  exit 77
fi
if ! strace -o /dev/null true 2>/dev/null; then
  echo "skipped: strace cannot trace here (ptrace not permitted)"
  exit 77
fi
mkdir "$work/ref" "$work/out"
"$bin" convert "$input" -o "$work/ref/m.pte" --metadata "$work/ref/m.json" >/dev/null
no_times() { sed -E 's/"ms": ?[0-9.eE+-]+//g' "$1"; }
grep -q '"ms"' "$work/ref/m.json" || { echo "the metadata has no pass times: update no_times" >&2; exit 1; }
# Converts into $work/out with SIGINT injected after the n-th call of kind $1;
# sets rc (exit status) and left (the folder's names, space-separated).
interrupted_run() {
  rc=0
  # LeakSanitizer cannot run under ptrace (the ASan build's finished runs would abort at exit).
  # SIGINT is reset to its default for the run: a background job inherits it ignored (and the CLI keeps it so).
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" env --default-signal=INT strace -f -o /dev/null -e trace="$1" -e inject="$1:signal=SIGINT:when=$2" \
    "$bin" convert "$input" -o "$work/out/m.pte" --metadata "$work/out/m.json" >/dev/null 2>&1 || rc=$?
  left="$(ls -A "$work/out" | tr '\n' ' ')"
}
# True when $work/out holds the outputs of an uninterrupted run.
finished_outputs() {
  cmp -s "$work/ref/m.pte" "$work/out/m.pte" || { echo "$1: the .pte differs from an uninterrupted run" >&2; return 1; }
  # The pass report in the metadata times each pass ("ms"): compared without those.
  [[ "$(no_times "$work/ref/m.json")" == "$(no_times "$work/out/m.json")" ]] ||
    { echo "$1: the metadata differs from an uninterrupted run" >&2; return 1; }
}
# Every point is tried twice: into an empty folder (left: nothing, or the new
# outputs) and over an earlier run's outputs (left: that pair as it was, or
# the new pair; never a mix).
mkdir "$work/old"
printf 'old pte' >"$work/old/m.pte"
printf 'old json' >"$work/old/m.json"
removed=0
kept=0
old=0
new=0
for start in empty earlier; do
  for call in write rename; do
    for n in 1 2 3 4 5 6; do
      at="$start folder, SIGINT after $call #$n"
      [[ "$start" == empty ]] || cp "$work/old/m.pte" "$work/old/m.json" "$work/out/"
      interrupted_run "$call" "$n"
      case "$left" in
        "")
          [[ "$start" == empty ]] || { echo "$at: the earlier outputs were removed (exit $rc)" >&2; exit 1; }
          [[ "$rc" == 130 ]] || { echo "$at: nothing written but exit $rc (expected 130)" >&2; exit 1; }
          removed=$((removed + 1)) ;;
        "m.json m.pte ")
          if [[ "$start" == earlier ]] && cmp -s "$work/old/m.pte" "$work/out/m.pte"; then
            cmp -s "$work/old/m.json" "$work/out/m.json" || { echo "$at: new metadata beside the old .pte" >&2; exit 1; }
            [[ "$rc" == 130 ]] || { echo "$at: the earlier outputs kept but exit $rc (expected 130)" >&2; exit 1; }
            old=$((old + 1))
          else
            # A new .pte beside old metadata fails here too (the metadata differs).
            [[ "$rc" == 0 || "$rc" == 130 ]] || { echo "$at: exit $rc" >&2; exit 1; }
            finished_outputs "$at" || exit 1
            if [[ "$start" == empty ]]; then kept=$((kept + 1)); else new=$((new + 1)); fi
          fi ;;
        *)
          echo "$at (exit $rc) left: $left" >&2
          exit 1 ;;
      esac
      rm -f "$work/out/"*
    done
  done
done
# The metadata's and the .pte's writes come before the outputs are in place.
((removed >= 3 && old >= 3)) ||
  { echo "interrupted runs: $removed left nothing, $old kept the earlier outputs (expected >= 3 each)" >&2; exit 1; }
((kept >= 1 && new >= 1)) || { echo "finished runs: $kept into an empty folder, $new over earlier outputs (expected >= 1 each)" >&2; exit 1; }
echo "ok: interrupt (empty folder: $removed interrupted runs left nothing, $kept finished; over earlier outputs: $old kept them, $new finished)"
