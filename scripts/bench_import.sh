#!/usr/bin/env bash
# Import speed vs. a plain RapidJSON DOM Parse of the same bytes, on synthetic
# transformer programs of ~1k, 10k and 100k nodes (scripts/gen_synthetic.py).
# Usage: scripts/bench_import.sh [WORKDIR]   (default /tmp/pteforge-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
work="${1:-/tmp/pteforge-bench}"
mkdir -p "$work"
cmake --preset native-release >/dev/null
cmake --build --preset native-release -j "$(nproc)" --target bench_import >/dev/null
programs=()
for n in 1000 10000 100000; do
  [[ -f "$work/n$n/models/model.json" ]] || python3 scripts/gen_synthetic.py --nodes "$n" --no-metadata "$work/n$n" >/dev/null
  programs+=("$work/n$n/models/model.json")
done
build/native-release/scripts/bench/bench_import -n 5 "${programs[@]}"
