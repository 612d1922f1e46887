#!/usr/bin/env bash
# Memory planning quality: arena ÷ lower bound per algorithm (greedy = ExecuTorch's
# default, naive, best = suite of greedy and best-fit) on transformer-like lifetime
# sets and on every Core ATen fixture. Usage: scripts/bench_memory_plan.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset native-release >/dev/null
cmake --build --preset native-release -j "$(nproc)" --target bench_memory_plan >/dev/null
programs=(tests/fixtures/programs/*/models/*.json)
for c in linear_tanh conv_avgpool layernorm_residual buffer_running_sum dynamic_seq joint_linear_mse modules_preserved; do
  programs+=("tests/fixtures/corpus/$c/json/models/model.json")
done
build/native-release/scripts/bench/bench_memory_plan "${programs[@]}"
