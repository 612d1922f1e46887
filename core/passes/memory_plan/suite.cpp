// Algorithm names, the algorithm suite and the planner entry point.

#include <string>

#include "passes/memory_plan/memory_plan.h"
#include "passes/memory_plan/prepare.h"

namespace pteforge::memplan {

namespace {

Error option_error(std::string message) {
  Location where;
  where.pass = "memory_planning";
  return make_error(ErrorCode::OPTION_INVALID, std::move(message), where);
}

uint64_t total_bytes(const MemoryPlan& plan) {
  uint64_t sum = 0;
  for (uint64_t s : plan.buffer_sizes) sum = s > UINT64_MAX - sum ? UINT64_MAX : sum + s;
  return sum;
}

}  // namespace

Result<Algorithm> parse_algorithm(std::string_view name) {
  if (name == "greedy") return Algorithm::Greedy;
  if (name == "naive") return Algorithm::Naive;
  if (name == "best_fit") return Algorithm::BestFit;
  if (name == "best") return Algorithm::Best;
  return option_error("unknown memory planning algorithm \"" + std::string(name) +
                      "\" (expected greedy, naive, best_fit or best)");
}

std::string_view algorithm_name(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::Greedy: return "greedy";
    case Algorithm::Naive: return "naive";
    case Algorithm::BestFit: return "best_fit";
    case Algorithm::Best: return "best";
  }
  return "greedy";
}

Result<MemoryPlan> run_suite(const std::vector<PlannedTensor>& tensors, const PlanOptions& options,
                             const std::vector<Algorithm>& algorithms) {
  if (algorithms.empty()) return option_error("the memory planning suite needs at least one algorithm");
  std::optional<MemoryPlan> best;
  for (Algorithm a : algorithms) {
    Result<MemoryPlan> r = make_error(ErrorCode::INTERNAL, "unreachable");
    switch (a) {
      case Algorithm::Greedy: r = plan_greedy(tensors, options); break;
      case Algorithm::Naive: r = plan_naive(tensors, options); break;
      case Algorithm::BestFit: r = plan_best_fit(tensors, options); break;
      case Algorithm::Best:
        return option_error("the memory planning suite cannot contain \"best\" (itself a suite)");
    }
    if (!r.ok()) return std::move(r).error();
    if (!best || total_bytes(*r) < total_bytes(*best)) best = std::move(r).value();
  }
  return std::move(*best);
}

Result<MemoryPlan> plan_memory(const std::vector<PlannedTensor>& tensors, const PlanOptions& options) {
  switch (options.algorithm) {
    case Algorithm::Greedy: return plan_greedy(tensors, options);
    case Algorithm::Naive: return plan_naive(tensors, options);
    case Algorithm::BestFit: return plan_best_fit(tensors, options);
    case Algorithm::Best: return run_suite(tensors, options, {Algorithm::Greedy, Algorithm::BestFit});
  }
  return option_error("invalid memory planning algorithm value");
}

}  // namespace pteforge::memplan
