// Program summary for `pteforge inspect` (and later the WASM inspect()):
// methods, inputs/outputs with dtype and shape, symbolic dimensions with
// their ranges, node counts by operator, state counts and bytes, module
// hierarchy (from nn_module_stack) and preserved module call signatures.
// The CLI only prints; text and JSON forms are produced here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "serde/import_exported_program.h"

namespace pteforge::serde {

/// One dimension: a concrete size or a symbolic expression (display form).
struct DimSummary {
  std::optional<int64_t> value;
  std::string expr;  ///< e.g. "s53", "8*s53" when symbolic
};

/// One graph input or output.
struct IoSummary {
  std::string name;    ///< placeholder / value name ("" for literal outputs)
  std::string kind;    ///< input or output kind ("parameter", "user_input", "buffer_mutation", ...)
  std::string target;  ///< state FQN / buffer / parameter / user-input name; "" when none
  std::optional<std::string> dtype;          ///< tensors only
  std::optional<std::vector<DimSummary>> shape;  ///< tensors only
  std::string type;    ///< non-tensors: "SymInt", "SymFloat", "SymBool", a class name, or "constant <value>"
};

struct SymbolSummary {
  std::string name;
  std::optional<int64_t> min;  ///< nullopt = unbounded
  std::optional<int64_t> max;
};

struct OpCount {
  std::string target;  ///< short form, e.g. "aten.addmm.default"
  size_t count = 0;
};

struct StateSummary {
  size_t count = 0;
  uint64_t bytes = 0;
  bool bytes_known = true;  ///< false when a size is symbolic
};

struct ModuleSummary {
  std::string path;  ///< "" for the root
  std::string type;
  size_t depth = 0;
  size_t nodes = 0;  ///< nodes inside this module (inclusive)
};

struct CallSignatureSummary {
  std::string fqn;
  std::vector<std::string> inputs;   ///< printer form of each flattened input
  std::vector<std::string> outputs;
};

struct MethodSummary {
  std::string name;
  ir::SchemaVersion schema_version;
  std::string torch_version;
  std::vector<std::string> verifiers;
  std::vector<std::string> forward_arg_names;
  std::vector<IoSummary> inputs;
  std::vector<IoSummary> outputs;
  std::vector<SymbolSummary> symbols;
  size_t node_count = 0;           ///< nodes of the top-level graph
  size_t subgraph_node_count = 0;  ///< nodes inside higher-order-op subgraphs
  std::vector<OpCount> ops;        ///< every graph; by count (descending), then name
  StateSummary parameters, buffers, constants;
  size_t custom_objects = 0;
  bool bytes_from_payloads = false;  ///< state bytes come from bound payloads, not TensorMeta
  std::vector<ModuleSummary> modules;  ///< pre-order
  std::vector<CallSignatureSummary> preserved_calls;
  std::vector<ImportWarning> warnings;
};

struct ProgramSummary {
  std::vector<MethodSummary> methods;  ///< sorted by name
};

MethodSummary summarize_method(const std::string& name, const ir::ExportedProgram& ep,
                               std::vector<ImportWarning> warnings = {});
/// Summary of every method; `warnings` maps method name → its import warnings.
ProgramSummary summarize_program(const ir::Program& program,
                                 const std::vector<std::pair<std::string, std::vector<ImportWarning>>>& warnings = {});

/// Human-readable text (aligned columns, one section per method).
std::string summary_to_text(const ProgramSummary& s);
/// The same as indented JSON with a fixed key order.
std::string summary_to_json(const ProgramSummary& s);

}  // namespace pteforge::serde
