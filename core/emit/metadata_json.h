// The metadata JSON written beside a .pte (`pteforge convert --metadata`):
// what ExecuTorch's emitter returns next to the program (debug-handle map,
// delegate map, §3.15) plus what pteforge knows about the lowering (memory
// plan, arena sizes and their lower bound, operators, training metadata,
// constant methods, the pass report). Deterministic: same input, same text
// (pass times aside, see MetadataOptions::with_times).
//
// {
//   "format": "pteforge-metadata", "version": 1,
//   "file": {"size", "program_size", "segment_base_offset", "segment_data_size", "segments": [{offset, size}]},
//   "constants": {"count", "bytes"},          // distinct constant tensors (reserved entry 0 not counted)
//   "mutable_data": {"count", "bytes"},
//   "methods": [{
//     "name", "values", "instructions", "inputs", "outputs",
//     "operators": ["aten::add.out", ...],
//     "debug_handle_map": {"<instruction>": handle | null, ...},
//     "delegate_map": {},
//     "memory_plan": {"algorithm", "non_const_buffer_sizes": [...], "lower_bound": [...],
//                     "tensors": [{"value", "names", "mem_id", "offset", "size", "lifetime": [first, last]}]},
//     "training": {"gradients_index", "parameters_index", "fqns"},     // joint graphs only
//     "relaid_out_constants": [fqn, ...]                               // made contiguous here
//   }],
//   "constant_methods": [{"name", "values"}],   // getters, training metadata first
//   "pass_report": { PassReport::to_json }
// }
#pragma once

#include <map>
#include <string>

#include "emit/emit_program.h"
#include "emit/pte_writer.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"

namespace pteforge::emit {

struct MetadataOptions {
  /// Write pass times (false: 0, for byte-stable output in tests).
  bool with_times = true;
};

/// Builds the metadata JSON (2-space indented, trailing newline) of an
/// emitted and serialized program. The methods are read from pte.program
/// (emitted.program may have been moved into the serializer); `emitted`
/// gives the debug maps, payload pools and training metadata. `states` gives
/// each method's lowering state (arena sizes, lower bound, algorithm);
/// `report` may be null.
std::string metadata_to_json(const EmitterOutput& emitted, const PteOutput& pte,
                             const std::map<std::string, const passes::MethodState*>& states,
                             const passes::PassReport* report, const MetadataOptions& options = {});

// The same text in three steps, so that nearly all of it (the methods: debug
// maps and memory plans) is written on a second thread while the program
// serializes; only the "file" member needs the serialized layout:
//   facts = plan_facts(emitted.program, emitted.debug);   // before the program moves
//   draft = draft_metadata_json(facts, emitted, ...);     // may run alongside serialize_program
//   text  = finish_metadata_json(std::move(draft), pte);

/// What the metadata reads from one execution plan, copied so that the
/// program can move into the serializer meanwhile.
struct PlanFacts {
  std::string name;
  size_t num_values = 0;
  size_t num_instructions = 0;  ///< in the first chain
  std::vector<int32_t> inputs, outputs;
  std::vector<std::string> operators;  ///< qualified names ("aten::add.out")
  std::vector<int64_t> non_const_buffer_sizes;
  bool constant_method = false;       ///< a getter: no debug info of its own
  std::vector<EValue> getter_values;  ///< a constant method's values (else empty)
};

/// The facts of each plan of `program`, in order; `debug` tells methods
/// (which have debug info) from constant methods.
std::vector<PlanFacts> plan_facts(const Program& program,
                                  const std::map<std::string, MethodDebugInfo>& debug);

/// The metadata JSON without its "file" member, and where that goes.
struct MetadataDraft {
  std::string text;
  size_t file_at = 0;  ///< offset just past the "version" value
};

/// Writes everything but "file". Reads `plans`, emitted.data (sizes),
/// emitted.debug, emitted.training and `states`, never emitted.program, so
/// it may run while that program serializes. `report_json` is the pass
/// report as PassReport::to_json wrote it (embedded as "pass_report"), or
/// null for none.
MetadataDraft draft_metadata_json(const std::vector<PlanFacts>& plans, const EmitterOutput& emitted,
                                  const std::map<std::string, const passes::MethodState*>& states,
                                  const std::string* report_json);

/// Completes a draft with the layout of the serialized file (the "file"
/// member, after "version"): the text metadata_to_json returns.
std::string finish_metadata_json(MetadataDraft draft, const PteOutput& pte);

}  // namespace pteforge::emit
