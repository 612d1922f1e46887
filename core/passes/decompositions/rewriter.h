// Rewriter: what a decomposition rule sees and uses while it replaces one
// node with Core ATen calls.
//
// A rule reads the node's arguments by schema name (defaults filled in),
// emits calls with call()/call_multi()/call_list() — each new node is
// inserted before the rewritten node, named the way FX names it, gets its
// output metadata computed (shape_infer.h) and inherits the rewritten node's
// origin and metadata (nn_module_stack, stack_trace, debug-handle ancestry) —
// and finally says which values replace the node's outputs (set_outputs).
//
// Errors are sticky: the first failing accessor or call records an Error and
// later calls return empty values; the engine reports the recorded error at
// the node. Rules therefore read like the PyTorch code they mirror.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ops/op_schema.h"
#include "passes/decompositions/args.h"
#include "passes/decompositions/meta.h"
#include "support/error.h"

namespace pteforge::passes::decomp {

using KwArgs = std::vector<std::pair<std::string, ir::Argument>>;

/// Values known to the pass: SymInt values by polynomial (for size arguments).
class SymValues {
 public:
  /// Indexes every SymInt value of `graph`.
  void scan(ir::Graph& graph, SymbolTable& symbols);
  void add(const SymPoly& p, const std::string& name) { by_key_[p.key()].push_back(name); }
  const std::vector<std::string>* find(const SymPoly& p) const;

 private:
  std::map<std::string, std::vector<std::string>> by_key_;
};

class Rewriter {
 public:
  Rewriter(Env& env, SymValues& sym_values, ir::Node& node, const ops::OpSchema* schema);

  // ---- the node being rewritten -------------------------------------------------------------
  const ir::Node& node() const { return node_; }
  const ops::OpSchema* schema() const { return schema_; }
  const ArgView& args() const { return args_; }
  /// "aten.linear.default"
  std::string_view target() const { return node_.target().short_name(); }

  std::string tensor(std::string_view name);
  std::optional<std::string> opt_tensor(std::string_view name);
  std::vector<std::string> tensors(std::string_view name);
  std::vector<std::optional<std::string>> opt_tensors(std::string_view name);
  int64_t int_(std::string_view name);
  std::optional<int64_t> opt_int(std::string_view name);
  std::vector<int64_t> ints(std::string_view name);
  std::optional<std::vector<int64_t>> opt_ints(std::string_view name);
  SymPoly sym(std::string_view name);
  std::optional<SymPoly> opt_sym(std::string_view name);
  std::vector<SymPoly> syms(std::string_view name);
  std::optional<std::vector<SymPoly>> opt_syms(std::string_view name);
  double float_(std::string_view name);
  std::optional<double> opt_float(std::string_view name);
  bool bool_(std::string_view name);
  std::optional<bool> opt_bool(std::string_view name);
  std::string str(std::string_view name);
  std::optional<ir::ScalarType> dtype(std::string_view name);
  std::optional<ir::MemoryFormat> memory_format(std::string_view name);
  /// The argument as passed (or its default); None when absent.
  ir::Argument raw(std::string_view name) const;

  /// Meta of a tensor value (an input of the node or a value emitted earlier).
  Meta meta(const std::string& value);
  /// True when PipelineOptions::preserve_ops keeps `short_target` ("aten.matmul.default").
  bool preserved(std::string_view short_target) const { return env_.preserved(short_target); }
  /// Hint-based comparisons and display of sizes.
  const SymbolTable& symbols() const { return env_.symbols(); }

  // ---- emitting Core ATen calls -------------------------------------------------------------
  /// Emits `target` ("aten.view.default") with positional `args` (schema order)
  /// and keyword `kwargs`; trailing positional arguments equal to their default
  /// and keyword arguments equal to their default are dropped, as the tracer
  /// does. Returns the single tensor it defines.
  std::string call(std::string_view target, std::vector<ir::Argument> args, KwArgs kwargs = {});
  /// Emits a call returning a tuple of tensors; `used[i]` names output i
  /// "getitem..." (an FX getitem user) or "<node>_unused_<i>".
  std::vector<std::string> call_multi(std::string_view target, std::vector<ir::Argument> args, KwArgs kwargs,
                                      const std::vector<bool>& used);
  /// Emits a call returning Tensor[] (split_with_sizes, ...).
  std::vector<std::string> call_list(std::string_view target, std::vector<ir::Argument> args, KwArgs kwargs = {});

  /// A SymInt argument for `p`: a literal, or the name of a SymInt value
  /// (reusing one defined earlier; else emitting sym_size.int on a tensor
  /// that has the symbol, and _operator.mul/add for products and sums).
  ir::Argument size(const SymPoly& p);
  /// A SymInt[] argument: as_ints when every size is concrete, else as_sym_ints.
  ir::Argument sizes(const std::vector<SymPoly>& ps);

  // ---- results ------------------------------------------------------------------------------
  /// The values replacing the node's outputs, one per name in output_names()
  /// order ("" for an output nobody uses).
  void set_outputs(std::vector<std::string> values);
  const std::optional<std::vector<std::string>>& outputs() const { return outputs_; }

  // ---- errors -------------------------------------------------------------------------------
  /// Records an error (the first one wins); `where` is filled in by the engine.
  void fail(ErrorCode code, std::string message);
  /// UNSUPPORTED_FEATURE "<op>: <what>".
  void unsupported(const std::string& what);
  bool ok() const { return !error_.has_value(); }
  const std::optional<Error>& error() const { return error_; }
  /// Unwraps a Result, recording its error; returns a default value on error.
  template <typename T>
  T take(Result<T> r) {
    if (r.ok()) return std::move(r).value();
    if (!error_) error_ = std::move(r).error();
    return T{};
  }

  /// The first node this rewrite inserted (nullptr when none).
  ir::Node* first_new() const { return first_new_; }

 private:
  ir::Node* insert(ir::Node n);
  std::string fresh(std::string_view base, int start) const;
  std::optional<std::string> available_sym(const SymPoly& p) const;
  std::string sym_value(const SymPoly& p);
  /// Inserts `name` = _operator.<op>(a, b), a SymInt holding `result`, and
  /// records it as the value of `result`; returns its name.
  std::string emit_sym_op(const char* op, ir::Argument a, ir::Argument b, const SymPoly& result);
  /// Tensors whose sizes a new SymInt may be read from: graph inputs first
  /// (where export binds symbols), then this node's tensor arguments.
  std::vector<std::string> size_sources(bool node_args_only) const;
  /// The SymInt `p` read off a tensor size: sym_size.int when some source
  /// tensor has a dimension equal to `p`, else c * size + k or
  /// c * size_a * size_b + k over the sources' sizes (a derived dim such as
  /// s0 + 1 whose symbol no tensor carries alone); nullopt when neither fits.
  std::optional<std::string> sym_from_sizes(const SymPoly& p);
  /// Whether every symbol of `p` is a SymInt value already or some source
  /// tensor's size.
  bool atoms_readable(const SymPoly& p) const;
  std::vector<ir::NamedArgument> name_args(const ops::OpSchema& schema, std::vector<ir::Argument> args,
                                           KwArgs kwargs) const;
  std::vector<Meta> infer(const ops::OpSchema& schema, const std::vector<ir::NamedArgument>& inputs, size_t expected);
  const ops::OpSchema* lookup(std::string_view target);

  Env& env_;
  SymValues& sym_values_;
  ir::Node& node_;
  const ops::OpSchema* schema_;
  ArgView args_;
  std::optional<std::vector<std::string>> outputs_;
  std::optional<Error> error_;
  ir::Node* first_new_ = nullptr;
};

/// FX's base name for a node calling `op_name` ("aten.sym_size.int" → "sym_size_int").
std::string fx_base_name(std::string_view short_target);

}  // namespace pteforge::passes::decomp
