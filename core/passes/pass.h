// The pass contract (design.md "Passes", engineering-notes D5).
//
// A pass has a stable snake_case name (= file name = registry key = what
// users type in --passes), a one-line summary, and run(), which transforms
// one method (an ExportedProgram plus its MethodState) and says whether it
// changed anything. Passes report warnings through ctx.warn() and counters
// through ctx.stat(); an Error ends the pipeline.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <tsl/robin_map.h>

#include "ir/exported_program.h"
#include "passes/pipeline_options.h"
#include "passes/tensor_spec.h"
#include "support/error.h"
#include "support/name_map.h"

namespace pteforge::passes {

/// A warning or remark raised by a pass (or the importer): support/error.h.
using Diagnostic = pteforge::Diagnostic;

/// Per-method lowering state that is not part of the exported program:
/// tensor specs, debug handles, and what the emitter needs from the passes.
struct MethodState {
  std::string method;
  /// Value name → TensorSpec (filled by spec_prop, extended by remove_view_copy
  /// and to_out_variant; planned by memory_planning; read by the emitter).
  /// See tensor_spec.h for which names share a spec object.
  SpecTable specs;
  /// Node → debug handle (generate_debug_handles, §1.2 step 11). Open
  /// addressing (one entry per node, no allocation per entry).
  PtrMap<const ir::Node, int64_t> debug_handles;
  /// Arena sizes per mem_id (index 0 reserved), set by memory_planning (§6.5):
  /// ExecutionPlan.non_const_buffer_sizes, e.g. {0, 32}; {0, 0} when nothing is planned.
  std::vector<uint64_t> non_const_buffer_sizes;
  /// Lower bound of the arena (peak live bytes per mem_id), set by memory_planning.
  std::vector<uint64_t> live_bytes_lower_bound;
  /// The memory-planning algorithm that produced the plan ("greedy", "naive",
  /// "best_fit"; for "best" the suite member that won).
  std::string planning_algorithm;
  /// True once weights_to_outputs appended parameter outputs (joint graphs).
  bool weights_appended = false;
  /// Placeholder names of the parameters that have a gradient (joint graphs),
  /// in placeholder order; set by weights_to_outputs, copied into
  /// TensorSpec::weight_has_gradient by spec_prop (seed 000, §6.1.3).
  std::vector<std::string> weights_with_gradient;
  /// ir::Graph::revision() of the method's graph when eliminate_dead_code
  /// last left it with no dead node (0: never); it skips the walk while the
  /// graph still has that revision (most passes that end with a DCE change nothing).
  uint64_t dead_code_free_revision = 0;
};

/// What a pass sees besides the program: options, state, diagnostics, stats.
class PassContext {
 public:
  PassContext(const PipelineOptions& options, MethodState& state) : options_(options), state_(state) {}

  const PipelineOptions& options() const { return options_; }
  MethodState& state() { return state_; }
  const std::string& method() const { return state_.method; }
  /// Name of the pass now running (set by the PassManager).
  const std::string& pass_name() const { return pass_name_; }
  void set_pass_name(std::string name) { pass_name_ = std::move(name); }

  /// Records a warning; `where.method` and `where.pass` are filled in.
  void warn(std::string message, Location where = {});
  /// Adds `n` to counter `key` of the running pass (reported per pass).
  void stat(const std::string& key, int64_t n = 1) { stats_[key] += n; }
  /// An Error located at `node` (pointer, node name, source frame, method, pass).
  Error error_at(ErrorCode code, std::string message, const ir::Node& node) const;
  /// The location of `node` (pointer, node, source) plus method and pass.
  Location where_node(const ir::Node& node) const;

  std::vector<Diagnostic>& diagnostics() { return diagnostics_; }
  /// Counters of the running pass; the manager takes and clears them after each pass.
  std::map<std::string, int64_t> take_stats();

 private:
  const PipelineOptions& options_;
  MethodState& state_;
  std::string pass_name_;
  std::vector<Diagnostic> diagnostics_;
  std::map<std::string, int64_t> stats_;
};

/// Registry facts about a pass.
struct PassInfo {
  std::string_view name;     ///< snake_case registry key
  std::string_view summary;  ///< one line, shown by `pteforge passes` and the web page
  std::string_view group;    ///< "to_edge", "to_executorch", "decompose", "swap", ...
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual const PassInfo& info() const = 0;
  /// Transforms `ep`; returns true when something changed.
  virtual Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) = 0;
};

/// Creates a fresh instance of a pass.
using PassFactory = std::unique_ptr<Pass> (*)();

}  // namespace pteforge::passes
