// ExportedProgram (schema §3.2) and Program (several named methods).
//
// ExportedProgram mirrors the JSON document models/<model>.json: a
// GraphModule (graph, signature, module call graph), range constraints,
// versions. `state` is not part of the JSON: it is filled by
// serde::bind_state from the payload configs and says where each
// parameter/buffer/constant's bytes are.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/argument.h"
#include "ir/graph.h"
#include "ir/signature.h"
#include "ir/state_binding.h"
#include "ir/treespec.h"

namespace pteforge::ir {

/// Export-schema version {major, minor} (schema_version).
struct SchemaVersion {
  int64_t major = 8;
  int64_t minor = 20;
  bool operator==(const SchemaVersion&) const = default;
};

/// Inclusive value range of a symbol (§9.3); nullopt = unbounded on that side.
struct RangeConstraint {
  std::optional<int64_t> min_val;
  std::optional<int64_t> max_val;
  /// The upper bound, treating values >= 2^62 (old "infinity" encodings) as unbounded.
  std::optional<int64_t> upper() const;
  /// The lower bound, treating values <= -2^62 as unbounded.
  std::optional<int64_t> lower() const;
  bool operator==(const RangeConstraint&) const = default;
};

/// Call signature of a module preserved by export (§3.7, §8.1).
struct ModuleCallSignature {
  std::vector<Argument> inputs;   ///< flattened inputs (graph values by name)
  std::vector<Argument> outputs;  ///< flattened outputs
  TreeSpec in_spec;               ///< structure of (args, kwargs)
  TreeSpec out_spec;              ///< structure of the return value
  std::optional<std::vector<std::string>> forward_arg_names;
  bool operator==(const ModuleCallSignature&) const = default;
};

/// One module_call_graph entry: module path and (when preserved) its signature.
struct ModuleCallEntry {
  std::string fqn;  ///< "" for the root
  std::optional<ModuleCallSignature> signature;
  bool operator==(const ModuleCallEntry&) const = default;
};

struct GraphModule {
  Graph graph;
  GraphSignature signature;
  std::vector<ModuleCallEntry> module_call_graph;
  /// Graph-module metadata (currently only "custom"), input order.
  std::vector<std::pair<std::string, std::string>> metadata;
  /// Named-tuple type name → field names, input order.
  std::vector<std::pair<std::string, std::vector<std::string>>> treespec_namedtuple_fields;
  bool operator==(const GraphModule&) const = default;
};

/// The `verifiers` name of ExecuTorch's edge dialect (EXIREdgeDialectVerifier):
/// a program that went through to_edge (and maybe to_executorch), as
/// PassManager::run marks it and `convert --export-program` writes it.
/// torch-export-format.md §3.2.
inline constexpr std::string_view kEdgeDialect = "EDGE";

struct ExportedProgram {
  GraphModule graph_module;
  /// Operator-set versions by namespace, input order.
  std::vector<std::pair<std::string, int64_t>> opset_version;
  /// Symbol name → range, input order.
  std::vector<std::pair<std::string, RangeConstraint>> range_constraints;
  SchemaVersion schema_version;
  std::vector<std::string> verifiers;
  std::string torch_version = "<=2.4";
  std::vector<std::string> guards_code;
  /// Bound weights and constants (not serialized; empty until bound).
  StateBinding state;

  Graph& graph() { return graph_module.graph; }
  const Graph& graph() const { return graph_module.graph; }
  GraphSignature& signature() { return graph_module.signature; }
  const GraphSignature& signature() const { return graph_module.signature; }
  /// Whether `verifiers` names the edge dialect (kEdgeDialect): a lowered program.
  bool is_edge_dialect() const;
  /// The range of symbol `symbol`, or nullptr when unconstrained.
  const RangeConstraint* range_for(std::string_view symbol) const;
  /// The root module_call_graph entry's signature (fqn ""), or nullptr.
  const ModuleCallSignature* root_call_signature() const;
  /// Graph::replace_all_uses plus the output specs and preserved module call
  /// signatures that name `from`. Returns the number of references rewritten.
  size_t replace_all_uses(std::string_view from, std::string_view to);
  /// The part of replace_all_uses outside the graph (output specs, preserved
  /// module call signatures) for many values in one walk, where one
  /// replace_all_uses per value would walk them all each time. `renames`
  /// maps old → new names; no new name may itself be renamed (no chains).
  /// Returns the number of references rewritten.
  size_t rename_outside_graph(const std::unordered_map<std::string, std::string>& renames);

  bool operator==(const ExportedProgram&) const = default;
};

/// A program with several methods (ExecuTorch execution plans), sorted by name.
struct Program {
  std::map<std::string, ExportedProgram> methods;
  bool operator==(const Program&) const = default;
};

/// Symbol -> range lookups over a program's range_constraints in constant
/// time (ExportedProgram::range_for scans the list: fine for the usual
/// handful of symbols, quadratic for a pass that looks up every symbol of a
/// program with thousands). Same answers as range_for (the first entry of a
/// repeated name). Valid while the program's range_constraints are unchanged.
class RangeIndex {
 public:
  explicit RangeIndex(const ExportedProgram& ep);
  /// The range of `symbol`, or nullptr when unconstrained.
  const RangeConstraint* find(std::string_view symbol) const;

 private:
  std::unordered_map<std::string_view, const RangeConstraint*> ranges_;
};

}  // namespace pteforge::ir
