// ArgView: the arguments of one operator call by schema name, with omitted
// arguments filled from the schema defaults (torch.export leaves trailing
// defaults out, corpus README "Arguments are encoded ...").
//
// Used both for the node a decomposition rewrites and for the calls it emits
// (shape inference reads the latter).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ir/argument.h"
#include "ir/graph.h"
#include "ops/op_schema.h"
#include "passes/decompositions/meta.h"
#include "support/error.h"

namespace pteforge::passes::decomp {

/// A Python number passed as a Scalar.
struct Number {
  enum class Kind : uint8_t { Bool, Int, Float };
  Kind kind = Kind::Int;
  int64_t i = 0;
  double d = 0.0;
  bool is_float() const { return kind == Kind::Float; }
  double as_double() const { return kind == Kind::Float ? d : static_cast<double>(i); }
  static Number of_int(int64_t v) { return {Kind::Int, v, static_cast<double>(v)}; }
  static Number of_float(double v) { return {Kind::Float, 0, v}; }
  static Number of_bool(bool v) { return {Kind::Bool, v ? 1 : 0, v ? 1.0 : 0.0}; }
};

/// Metadata lookups shared by every ArgView of one pass run.
class Env {
 public:
  Env(ir::Graph& graph, SymbolTable& symbols) : graph_(graph), symbols_(symbols) {}
  ir::Graph& graph() { return graph_; }
  SymbolTable& symbols() { return symbols_; }
  /// Meta of tensor value `name`. INVALID_GRAPH when it has no tensor metadata.
  Result<Meta> meta(const std::string& name);
  /// Polynomial of SymInt value `name`. INVALID_GRAPH when it is not a SymInt value.
  Result<SymPoly> sym_value(const std::string& name);
  /// Records the meta of a value created by a decomposition (also writes the IR metadata).
  void set_meta(const std::string& name, const Meta& m);
  /// Ops to keep undecomposed (PipelineOptions::preserve_ops, as "torch.ops.aten.x.y").
  void set_preserved(std::set<std::string> ops) { preserved_ = std::move(ops); }
  /// True when `short_target` ("aten.matmul.default") is preserved.
  bool preserved(std::string_view short_target) const {
    return preserved_.count("torch.ops." + std::string(short_target)) > 0;
  }

 private:
  ir::Graph& graph_;
  SymbolTable& symbols_;
  std::map<std::string, Meta, std::less<>> cache_;
  std::set<std::string> preserved_;
};

/// Converts a schema default to the argument torch.export would write for it.
ir::Argument default_argument(const ops::Argument& arg);

class ArgView {
 public:
  /// `schema` may be null (operator unknown to the table): then only passed
  /// arguments are visible. The view refers to `inputs`, which must outlive it
  /// unchanged.
  ArgView(const ops::OpSchema* schema, const std::vector<ir::NamedArgument>& inputs, Env& env);

  const ops::OpSchema* schema() const { return schema_; }
  /// The argument passed for `name`, else its default; nullptr when neither.
  const ir::Argument* find(std::string_view name) const;
  /// True when the call passed `name` explicitly.
  bool passed(std::string_view name) const;
  /// True when `name` is absent or None.
  bool is_none(std::string_view name) const;

  Result<std::string> tensor(std::string_view name) const;
  Result<std::optional<std::string>> opt_tensor(std::string_view name) const;
  Result<std::vector<std::string>> tensors(std::string_view name) const;
  Result<std::vector<std::optional<std::string>>> opt_tensors(std::string_view name) const;
  Result<Meta> meta(std::string_view name) const;
  /// Meta of any tensor value by name.
  Result<Meta> env_meta(const std::string& value) const;
  /// Metas of a Tensor[] argument.
  Result<std::vector<Meta>> metas(std::string_view name) const;
  Result<std::optional<Meta>> opt_meta(std::string_view name) const;
  Result<int64_t> int_(std::string_view name) const;
  Result<std::optional<int64_t>> opt_int(std::string_view name) const;
  Result<std::vector<int64_t>> ints(std::string_view name) const;
  Result<std::optional<std::vector<int64_t>>> opt_ints(std::string_view name) const;
  Result<SymPoly> sym(std::string_view name) const;
  Result<std::optional<SymPoly>> opt_sym(std::string_view name) const;
  Result<std::vector<SymPoly>> syms(std::string_view name) const;
  Result<std::optional<std::vector<SymPoly>>> opt_syms(std::string_view name) const;
  Result<double> float_(std::string_view name) const;
  Result<std::optional<double>> opt_float(std::string_view name) const;
  Result<std::vector<double>> floats(std::string_view name) const;
  Result<bool> bool_(std::string_view name) const;
  Result<std::optional<bool>> opt_bool(std::string_view name) const;
  Result<std::string> str(std::string_view name) const;
  Result<std::optional<ir::ScalarType>> dtype(std::string_view name) const;
  Result<std::optional<ir::MemoryFormat>> memory_format(std::string_view name) const;
  /// A Scalar argument given as a literal. UNSUPPORTED_FEATURE for a symbolic value.
  Result<Number> number(std::string_view name) const;

 private:
  /// "argument X of op: expected E, found T": INVALID_GRAPH for a wrong
  /// argument, UNSUPPORTED_FEATURE for a symbolic one whose value is needed.
  Error bad(std::string_view name, std::string_view expected, ErrorCode code = ErrorCode::INVALID_GRAPH) const;
  const ops::OpSchema* schema_;
  // Passed arguments (pointing into the call's inputs), then the defaults of
  // the others (pointing into a per-thread cache); names point into the
  // inputs or the operator table.
  std::vector<std::pair<std::string_view, const ir::Argument*>> values_;
  size_t num_passed_ = 0;
  Env& env_;
};

}  // namespace pteforge::passes::decomp
