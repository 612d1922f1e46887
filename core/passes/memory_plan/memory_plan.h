// Memory-planning algorithms, independent of the graph IR.
//
// The `memory_planning` pass extracts one PlannedTensor per planned TensorSpec
// (executorch-pipeline.md §6.1) and hands the list to plan_memory(). The
// algorithms here only see sizes, lifetimes, pools and aliases:
//   - greedy   : ExecuTorch's default greedy (§6.2), offsets identical to ExecuTorch;
//   - naive    : ExecuTorch's bump allocator (§6.3), no reuse;
//   - best_fit : our offset-search planner (several orders, best-fit gaps);
//   - "best"   : a suite that runs greedy then best_fit and keeps the smaller
//                total, first wins on a tie (ExecuTorch's algorithm suite, §6.2).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace pteforge::memplan {

/// Default planning alignment in bytes (ExecuTorch MemoryPlanningPass default, §9).
inline constexpr uint64_t kDefaultAlignment = 16;
/// Pool a tensor without a preset mem_id goes to (§6.5: index 0 is reserved).
inline constexpr uint32_t kDefaultMemId = 1;
/// Largest mem_id accepted (buffer_sizes has max mem_id + 1 entries).
inline constexpr uint32_t kMaxMemId = 1024;

/// One storage to place: one ExecuTorch TensorSpec object. Values that share
/// the spec object (views, getitem, outputs, an out-variant and its alloc) are
/// one PlannedTensor; the caller maps them to it.
struct PlannedTensor {
  /// Caller's handle (e.g. the emitter's value index); only used in messages.
  uint64_t id = 0;
  /// Unaligned size in bytes: numel of the upper-bound shape × element size
  /// (0 if any dimension is 0). Rounded up to the alignment by the planner.
  uint64_t nbytes = 0;
  /// Lifetime in node indices, both ends inclusive (§6.1.2): first and last
  /// node that mentions the tensor. Must satisfy 0 <= first_use <= last_use.
  int64_t first_use = 0;
  int64_t last_use = 0;
  /// Preset pool (ExecuTorch `spec.mem_id`); 0 = not preset, planned in pool 1.
  uint32_t mem_id = 0;
  /// Index (into the same vector) of the tensor whose storage this one shares
  /// (ExecuTorch `inplace_base`, set by reinplacing). An aliasing tensor is not
  /// placed itself: it gets the mem_id, offset and object of the end of its
  /// alias chain (the root). Greedy, like ExecuTorch, plans the root with the
  /// root's own lifetime and size only; best_fit plans the whole group as the
  /// hull of its lifetimes and the largest size.
  std::optional<size_t> alias_of;
};

/// Which planner to run. `Best` is the suite {Greedy, BestFit}.
enum class Algorithm { Greedy, Naive, BestFit, Best };

/// Planner options; defaults are ExecuTorch's.
struct PlanOptions {
  Algorithm algorithm = Algorithm::Greedy;
  /// Every tensor takes round_up(nbytes, alignment) bytes; offsets are
  /// multiples of it (given aligned `reserved`). Must be > 0.
  uint64_t alignment = kDefaultAlignment;
  /// Greedy's sort key is round_up(nbytes, sort_alignment): ExecuTorch sorts on
  /// TensorSpec.allocated_memory before realigning the spec to `alignment`,
  /// and a fresh TensorSpec has alignment 16. Must be > 0.
  uint64_t sort_alignment = kDefaultAlignment;
  /// Bytes already used at the bottom of pool k by control-flow submodules
  /// (§6.8: the element-wise max of their buffer sizes); index = mem_id.
  std::vector<uint64_t> reserved;
  /// Added to the size of every pool greedy/best_fit fill: 64 when the graph
  /// holds an XNNPACK delegate (§6.2.6), else 0. Naive never adds it.
  uint64_t extra_padding = 0;
};

/// Where one tensor went.
struct Placement {
  uint32_t mem_id = 0;  ///< pool (>= 1)
  uint64_t offset = 0;  ///< bytes from the start of the pool (AllocationDetails offset)
  /// Greedy's shared-object index within the pool (ExecuTorch mem_obj_id);
  /// nullopt for naive and best_fit.
  std::optional<uint32_t> mem_obj_id;
};

/// A complete plan.
struct MemoryPlan {
  /// The algorithm that produced the placements (Greedy or BestFit for the suite).
  Algorithm algorithm = Algorithm::Greedy;
  /// One entry per input tensor, in input order.
  std::vector<Placement> placements;
  /// ExecutionPlan.non_const_buffer_sizes: entry 0 is always 0 (reserved),
  /// entry k is the size in bytes of pool k. [0, 0] when nothing is planned.
  std::vector<uint64_t> buffer_sizes;
};

/// "greedy" | "naive" | "best_fit" | "best" → Algorithm.
/// Errors: OPTION_INVALID naming the accepted values.
Result<Algorithm> parse_algorithm(std::string_view name);
/// The inverse of parse_algorithm.
std::string_view algorithm_name(Algorithm algorithm);

/// ExecuTorch's greedy (executorch-pipeline.md §6.2): tensors sorted by
/// aligned size descending (equal sizes in reverse input order); each goes to
/// the first shared object whose placements are all time-disjoint from it (at
/// offset 0), else stacks at the top of the overlapping placements of the first
/// object where it fits, else opens a new object. Objects are laid out back to
/// back from reserved[mem_id]; each pool gets + extra_padding.
/// `tensors` must be in ExecuTorch's collection order (§6.1.3).
/// Errors: OPTION_INVALID (alignment 0, mem_id or reserved too large),
/// PASS_FAILED (bad lifetime, alias chain out of range or circular, conflicting
/// pools in an alias chain, size overflow, the ExecuTorch sort assertion).
Result<MemoryPlan> plan_greedy(const std::vector<PlannedTensor>& tensors, const PlanOptions& options);

/// ExecuTorch's naive planner (§6.3): bump allocation in input order starting
/// from `reserved` (or [0, 0]); no reuse, no extra padding. Aliases take their
/// root's placement (ExecuTorch's naive ignores inplace_base; we keep the
/// aliasing correct instead). Errors: as plan_greedy.
Result<MemoryPlan> plan_naive(const std::vector<PlannedTensor>& tensors, const PlanOptions& options);

/// Our planner: per pool, places alias groups (hull lifetime, largest size) one
/// at a time at the lowest offset (first fit) or in the tightest gap (best fit)
/// among the time-overlapping tensors already placed, for several processing
/// orders (size, area, duration, start time), and keeps the smallest pool.
/// Each pool starts at round_up(reserved[mem_id], alignment) and gets
/// + extra_padding. Errors: as plan_greedy (without the sort assertion).
Result<MemoryPlan> plan_best_fit(const std::vector<PlannedTensor>& tensors, const PlanOptions& options);

/// Runs `algorithms` in order and keeps the plan with the smallest sum of
/// buffer sizes; the earliest wins a tie (ExecuTorch's MemoryPlanningAlgorithmSuite).
/// `Best` inside the list is not allowed. Errors: those of the algorithms;
/// OPTION_INVALID for an empty list or a nested Best.
Result<MemoryPlan> run_suite(const std::vector<PlannedTensor>& tensors, const PlanOptions& options,
                             const std::vector<Algorithm>& algorithms);

/// Entry point: runs options.algorithm (Best = run_suite({Greedy, BestFit})).
Result<MemoryPlan> plan_memory(const std::vector<PlannedTensor>& tensors, const PlanOptions& options);

}  // namespace pteforge::memplan
