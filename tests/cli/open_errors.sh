#!/usr/bin/env bash
# An input that cannot be opened gets the same one line from every command:
# IO_ERROR: cannot open "PATH": <why> (entry=PATH), exit 1.
# Usage: open_errors.sh <pteforge binary> <source dir>
set -euo pipefail
bin="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
ln -s "$work/loop2" "$work/loop1"
ln -s "$work/loop1" "$work/loop2"
printf '{}' > "$work/file.json"
check() {  # check PATH WHY
  local path="$1" why="$2" want rc err
  want="IO_ERROR: cannot open \"$path\": $why (entry=$path)"
  for cmd in inspect decode "convert -o $work/out.pte"; do
    rc=0
    # shellcheck disable=SC2086
    err="$("$bin" $cmd "$path" 2>&1 >/dev/null)" || rc=$?
    [[ "$rc" == 1 ]] || { echo "pteforge $cmd $path: exit $rc, expected 1" >&2; exit 1; }
    [[ "$err" == "$want" ]] || { echo "pteforge $cmd $path said: $err"$'\n'"expected: $want" >&2; exit 1; }
  done
  [[ ! -e "$work/out.pte" ]] || { echo "convert left $work/out.pte behind" >&2; exit 1; }
}
check "$work/missing.pt2" "no such file or folder"
check "$work/loop1" "too many levels of symbolic links"
check "$work/file.json/model.pt2" "a part of the path is not a folder"
echo "ok: open errors"
