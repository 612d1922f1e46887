// Options of the lowering pipeline (mirrors ExecuTorch's EdgeCompileConfig and
// ExecutorchBackendConfig defaults, executorch-pipeline.md §1.4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pteforge::passes {

struct PipelineOptions {
  /// Pass names to run, in order; empty = the default pipeline (pass_registry.h).
  std::vector<std::string> passes;
  /// Memory planning algorithm: "greedy" (ExecuTorch's default), "naive", "best".
  std::string memory_planning = "greedy";
  /// Alignment of planned tensors in bytes (MemoryPlanningPass default 16).
  uint64_t alignment = 16;
  /// Plan graph inputs / outputs into the arena (ExecuTorch defaults: true).
  bool alloc_graph_input = true;
  bool alloc_graph_output = true;
  /// Ops to keep undecomposed (ExecuTorch preserve_ops), as exported targets.
  std::vector<std::string> preserve_ops;
  /// Reject ops outside ExecuTorch's portable kernel library.
  bool portable_only = false;
  /// Run the IR verifier after every pass (on in debug builds and tests).
  bool verify_each =
#ifdef NDEBUG
      false;
#else
      true;
#endif
};

}  // namespace pteforge::passes
