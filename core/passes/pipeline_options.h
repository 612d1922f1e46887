// Options of the lowering pipeline (mirrors ExecuTorch's EdgeCompileConfig and
// ExecutorchBackendConfig defaults, executorch-pipeline.md §1.4).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pteforge::ir {
struct ExportedProgram;
}

namespace pteforge::passes {

/// One module swap (swap_modules, design.md pipeline step 3): replace the
/// preserved submodule `fqn` by `replacement`, a separately exported program
/// with the same call signature. The front door imports the replacement and
/// binds its state (serde::bind_state, e.g. through
/// passes::load_program in module_swap_api.h) with every PayloadStorage's
/// `source` set to the label of the input it came from, so the emitter can
/// read the replacement's weights from that input; it should also run the
/// pipeline's passes that precede swap_modules on it
/// (prepare_replacement in module_swap_api.h).
struct SwapRequest {
  SwapRequest() = default;
  SwapRequest(std::string fqn_, std::shared_ptr<const ir::ExportedProgram> replacement_, std::string method_ = {})
      : fqn(std::move(fqn_)), replacement(std::move(replacement_)), method(std::move(method_)) {}

  std::string fqn;
  std::shared_ptr<const ir::ExportedProgram> replacement;
  /// The method (execution plan) to swap in; "" = every method the pipeline runs on.
  std::string method;
  /// Where the replacement came from (the CLI's --swap path), named in a
  /// note of the swap's errors; "" names nothing.
  std::string source;
};

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
  /// Module swaps; swap_modules is a no-op when empty.
  std::vector<SwapRequest> swaps;
  /// Modules that outline_modules outlines when it runs on its own (an
  /// explicit pass list); when empty it outlines the modules of `swaps`.
  std::vector<std::string> outline_modules;
  /// Run the IR verifier after every pass (on in debug builds and tests).
  bool verify_each =
#ifdef NDEBUG
      false;
#else
      true;
#endif
};

}  // namespace pteforge::passes
