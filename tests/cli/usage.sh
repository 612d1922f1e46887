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
expect 2 "unknown command '-' (commands: inspect, decode, convert)" -
expect 2 "a command is required: pteforge COMMAND ... (commands: inspect, decode, convert)"
# An option before the command: the commands that take it.
expect 2 "options come after the command: pteforge COMMAND [options] (commands: inspect, decode, convert); --memory-planning is an option of: convert" \
  --memory-planning naive convert m.pt2 -o m.pte
expect 2 "options come after the command: pteforge COMMAND [options] (commands: inspect, decode, convert); --json is an option of: inspect, decode" \
  --json=1
expect 2 "options come after the command: pteforge COMMAND [options] (commands: inspect, decode, convert); -o is an option of: convert" \
  -ox.pte convert m.pt2
expect 2 "unknown option '--bogus': no command takes it (commands: inspect, decode, convert)" --bogus=1 convert
expect 2 "unknown option '--=x': no command takes it (commands: inspect, decode, convert)" --=x
expect 2 "a command is required before '--': pteforge COMMAND ... (commands: inspect, decode, convert)" -- convert
# CLI11's own errors echo what was typed: escaped, as every message is.
expect 2 "unexpected argument '--\\x07': a command takes one input, and each option value follows its own option name" inspect x.json $'--\a'
expect 2 "unknown command '\\xc2\\x9b31mX' (commands: inspect, decode, convert)" $'\xc2\x9b31mX'
expect 2 "--json excludes --flatc-json" decode x.pte --json --flatc-json
expect 2 "--json excludes --flatc-json" decode x.pte --flatc-json --json
# An option's value is never the next option (CLI11 would hand it over: a
# file named --emit-stacktrace, and no stack traces), nor empty.
m="$2/tests/fixtures/corpus/linear_tanh/linear_tanh.pt2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
expect 2 "--metadata: needs a value, but the next word is the option '--emit-stacktrace' (write ./--emit-stacktrace for a file of that name)" \
  convert "$m" -o m.pte --metadata --emit-stacktrace
expect 2 "--output: needs a value, but the next word is the option '--json' (write ./--json for a file of that name)" \
  convert "$m" --report r.json -o --json
expect 2 "--constant-method: needs a value, but the next word is the option '-o'" convert "$m" --constant-method -o x.pte
expect 2 "--metadata: needs a path, not an empty string" convert "$m" -o m.pte --metadata ''
expect 2 "--method: needs a value, not an empty string" inspect "$m" --method ''
# CLI11's value-count errors, in the words above.
expect 2 "--output: given 2 times, but it takes one value" convert "$m" -o a.pte -o b.pte
expect 2 "--metadata: given 2 times, but it takes one value" convert "$m" -o a.pte --metadata a --metadata b
expect 2 "--memory-planning: needs a value (one of greedy, naive, best_fit, best)" convert "$m" -o a.pte --memory-planning
expect 2 "--output: needs a value" convert "$m" -o
expect 2 "--memory-planning: 'foo' is not one of greedy, naive, best_fit, best" convert "$m" -o a.pte --memory-planning foo
expect 2 "--memory-planning: 'a\\x1b' is not one of greedy, naive, best_fit, best" convert "$m" -o a.pte --memory-planning $'a\e'
# A repeatable option takes one word: the next one is the input, or an error.
expect 2 "unexpected argument 'b=2': a command takes one input, and each option value follows its own option name" convert "$m" -o m.pte --constant-method a=1 b=2
# --bench runs at least once and writes only the .pte and --metadata.
expect 2 "--bench: '0' is not a whole number from 1 to 1000000" convert "$m" -o m.pte --bench 0
expect 2 "unexpected arguments 'b', 'c': a command takes one input, and each option value follows its own option name" decode a b c
expect 2 "--bench: 'x' is not a whole number from 1 to 1000000" convert "$m" -o m.pte --bench x
expect 2 "--json: 'foo' is not a value it takes (a switch: write --json alone)" decode x.pte --json=foo
expect 2 "--memory-planning: 'a\\x0ab' is not one of greedy, naive, best_fit, best" convert "$m" -o a.pte --memory-planning $'a\nb'
expect 2 "--report excludes --bench" convert "$m" -o m.pte --bench 1 --report r.json
[[ -z "$(ls -A)" ]] || { echo "usage errors left files: $(ls -A)" >&2; exit 1; }
"$bin" convert --constant-method a=1 --passes "$(printf '%s' "$("$bin" convert "$m" -o d.pte --report r.json >/dev/null && python3 -c "import json;print(','.join(p['name'] for p in json.load(open('r.json'))['passes']))")")" "$m" -o c.pte > out.txt
grep -qx "c.pte: [0-9]* bytes, 2 methods" out.txt || { echo "a repeatable option before the input: $(cat out.txt)" >&2; exit 1; }
echo "ok: usage errors"
