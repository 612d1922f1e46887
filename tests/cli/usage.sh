#!/usr/bin/env bash
# Usage errors: exit status 2 and one message naming the mistake.
# Usage: usage.sh <pteforge binary> <source dir>
set -euo pipefail
bin="$1"
expect() {  # expect WANTED_STATUS WANTED_FIRST_LINE ARGS...
  local want_rc="$1" want="$2"
  shift 2
  local rc=0 err
  err="$("$bin" "$@" 2>&1 >/dev/null)" || rc=$?
  [[ "$rc" == "$want_rc" ]] || { echo "pteforge $*: exit $rc, expected $want_rc" >&2; exit 1; }
  [[ "${err%%$'\n'*}" == "$want" ]] || { echo "pteforge $*: said '${err%%$'\n'*}', expected '$want'" >&2; exit 1; }
}
expect 2 "unknown command 'bogus' (commands: inspect, decode, convert)" bogus
expect 2 "unknown command 'model.pt2' (commands: inspect, decode, convert)" model.pt2 -o out.pte
expect 2 "unknown command 'a\\x1b[31mb' (commands: inspect, decode, convert)" $'a\e[31mb'
expect 2 "A subcommand is required"
expect 2 "--json excludes --flatc-json" decode x.pte --json --flatc-json
expect 2 "--json excludes --flatc-json" decode x.pte --flatc-json --json
echo "ok: usage errors"
