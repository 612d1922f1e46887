// verify_shapes: re-infers the output dtype and sizes of every ATen call
// from its inputs and arguments, refuses calls whose arguments are out of
// range (a convolution stride of 0, 5 input channels for a 3-channel weight,
// a pooling window larger than its input, ...) and refuses nodes whose
// declared tensor metadata disagrees with what the operator computes.
//
// Why: ExecuTorch's to_edge re-traces the program (run_decompositions runs
// every operator's meta function on fake tensors), so such a program never
// reaches a .pte there; its kernels would reject the call at run time. The
// program file itself is not checked by torch.export.load either. pteforge
// keeps the declared metadata, so this pass is where a hand-edited or
// corrupted program is stopped, with the node that is wrong.
//
// Rules: decomp::infer_meta (PyTorch's meta functions for the ops it knows).
// An op it has no rule for, or whose shape it cannot compute (symbolic sizes
// it cannot reason about, data-dependent sizes), is skipped and counted.
// Symbolic sizes compare by polynomial. Two different polynomials over plain
// size symbols alone (s0, s1, or hand-written names like batch) are different
// sizes (export renames symbols it proves equal throughout); with opaque atoms
// (FloorDiv, Max) or unbacked symbols (u0) they are compared through the
// symbols' example values (hints), and accepted when a hint is unknown. Strides are not compared, nor are results on a
// device other than the CPU (the rules follow the CPU kernels). A node identical to one
// already checked (same operator, arguments and tensor metadata) is not
// checked again.
// The SymInt results of size queries (sym_size, sym_numel) and of symbolic
// arithmetic (_operator add/sub/mul/neg, floordiv/mod of constants) are
// compared the same way with what they compute from their inputs: sizes
// planned from them must follow the computation, as ExecuTorch's re-trace
// makes them.
// Preconditions: a verified IR (every tensor value has metadata). Changes
// nothing.
//
// Example (error):
//   %conv = aten.convolution.default(%x, %w, %b, [0, 0], ...)
//   -> INVALID_GRAPH at node "conv": aten.convolution.default: stride 0 is out
//      of range (it must be positive and at most 2^30)
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "ir/sym_expr.h"
#include "passes/decompositions/args.h"
#include "passes/decompositions/shape_infer.h"
#include "passes/edge_utils.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

using decomp::Meta;

constexpr const char* kNote =
    "pteforge re-infers each operator's output from its inputs, as ExecuTorch's to_edge does when it re-traces "
    "the program; a program exported by torch.export from a working model passes this check";

/// Byte key of everything a node's check depends on: the operator, each
/// argument (tensors by their dtype, sizes, strides, storage offset and
/// device, not by name) and the declared outputs. Nodes with equal keys pass or fail alike,
/// so a key that passed once is not checked again (models repeat their
/// layers). Returns false for a node with an argument kind the key does not
/// encode (such nodes are always checked).
class NodeKey {
 public:
  explicit NodeKey(const ir::Graph& graph) : graph_(graph) {}

  bool build(const ops::OpSchema* schema, const ir::Node& node, std::string& key) {
    key.clear();
    put(key, reinterpret_cast<uintptr_t>(schema));
    for (const ir::NamedArgument& in : node.inputs()) {
      put_text(key, in.name);
      if (!put_arg(key, in.arg)) return false;
    }
    key.push_back('|');
    for (const ir::Argument& out : node.outputs()) {
      if (!put_arg(key, out)) return false;
    }
    return true;
  }

 private:
  static void put(std::string& key, uint64_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); }
  static void put_text(std::string& key, std::string_view s) {
    put(key, s.size());
    key.append(s);
  }
  static void put_sym(std::string& key, const ir::SymInt& s) {
    if (s.is_concrete()) {
      key.push_back('c');
      put(key, static_cast<uint64_t>(s.value()));
    } else {
      key.push_back('s');
      put_text(key, s.expr().expr_str);
    }
  }
  bool put_tensor(std::string& key, const std::string& name) const {
    const ir::TensorMeta* tm = graph_.tensor_meta(name);
    if (!tm) return false;
    key.push_back('t');
    key.push_back(static_cast<char>(tm->dtype));
    put(key, tm->sizes.size());
    for (const auto& d : tm->sizes) put_sym(key, d);
    put(key, tm->strides.size());
    for (const auto& d : tm->strides) put_sym(key, d);
    put_sym(key, tm->storage_offset);
    key.push_back(tm->requires_grad ? 'g' : '-');
    put_text(key, tm->device.type);  // outputs off the CPU are not compared
    return true;
  }
  bool put_arg(std::string& key, const ir::Argument& a) const {
    key.push_back(static_cast<char>(a.tag()));
    switch (a.tag()) {
      case ir::ArgTag::None: return true;
      case ir::ArgTag::Tensor: return put_tensor(key, a.tensor_name());
      case ir::ArgTag::OptionalTensor: {
        const auto& t = a.get<ir::ArgTag::OptionalTensor>();
        return t.is_none() || put_tensor(key, *t.name);
      }
      case ir::ArgTag::Tensors: {
        const auto& list = a.get<ir::ArgTag::Tensors>();
        put(key, list.size());
        for (const auto& t : list) {
          if (!put_tensor(key, t.name)) return false;
        }
        return true;
      }
      case ir::ArgTag::Int: put(key, static_cast<uint64_t>(a.get<ir::ArgTag::Int>())); return true;
      case ir::ArgTag::Ints: {
        const auto& v = a.get<ir::ArgTag::Ints>();
        put(key, v.size());
        for (int64_t x : v) put(key, static_cast<uint64_t>(x));
        return true;
      }
      case ir::ArgTag::Float: {
        uint64_t bits;
        const double d = a.get<ir::ArgTag::Float>();
        std::memcpy(&bits, &d, sizeof bits);
        put(key, bits);
        return true;
      }
      case ir::ArgTag::Bool: key.push_back(a.get<ir::ArgTag::Bool>() ? '1' : '0'); return true;
      case ir::ArgTag::ScalarType: put(key, static_cast<uint64_t>(a.get<ir::ArgTag::ScalarType>())); return true;
      case ir::ArgTag::MemoryFormat: put(key, static_cast<uint64_t>(a.get<ir::ArgTag::MemoryFormat>())); return true;
      case ir::ArgTag::SymInt: {
        const auto& v = a.get<ir::ArgTag::SymInt>();
        if (v.is_name()) return false;
        put(key, static_cast<uint64_t>(v.value));
        return true;
      }
      default: return false;
    }
  }

  const ir::Graph& graph_;
};

class ShapeChecker {
 public:
  ShapeChecker(decomp::SymbolTable& symbols, PassContext& ctx) : symbols_(symbols), ctx_(ctx) {}

  Status run_graph(ir::Graph& graph) {
    decomp::Env env(graph, symbols_);
    NodeKey keys(graph);
    std::unordered_set<std::string> passed;
    std::string key;
    for (ir::Node* node = graph.first_node(); node; node = graph.next(*node)) {
      const ir::OpTarget& target = node->target();
      if (target.kind() == ir::TargetKind::PythonOperator) {
        PTEFORGE_TRY(check_scalar_node(graph, *node));
        continue;
      }
      // Size queries: the dimension is checked below (an out-of-range dim first).
      const bool size_query = target.is("aten.sym_size.int") || target.is("aten.sym_numel.default");
      if (target.kind() != ir::TargetKind::Operator || target.ns() != "aten") continue;
      const ops::OpSchema* schema = target_schema(target);
      if (!schema) continue;
      const bool keyed = keys.build(schema, *node, key);
      if (keyed && passed.count(key)) {
        ++checked_;
        continue;
      }
      PTEFORGE_ASSIGN_OR_RETURN(bool ok, check_node(env, graph, *node, *schema));
      if (size_query) PTEFORGE_TRY(check_scalar_node(graph, *node));
      if (ok && keyed) passed.insert(key);
    }
    return Status::Ok();
  }

  int64_t checked() const { return checked_; }
  int64_t skipped() const { return skipped_; }

 private:
  /// Checks one call. True when it was checked and passed, false when it was
  /// skipped (no rule, or nothing to compare); an error when it is wrong.
  Result<bool> check_node(decomp::Env& env, const ir::Graph& graph, const ir::Node& node,
                          const ops::OpSchema& op) {
    decomp::ArgView args(&op, node.inputs(), env);
    Result<std::vector<Meta>> metas = decomp::infer_meta(op, args, symbols_);
    if (!metas.ok()) {
      if (metas.error().code != ErrorCode::INVALID_GRAPH) {
        ++skipped_;
        return false;
      }
      return refuse("node \"" + node.name() + "\": " + metas.error().message, node);
    }
    std::vector<decomp::NodeOutputMeta> declared = decomp::pair_outputs(node, metas->size());
    if (declared.empty()) {
      ++skipped_;
      return false;
    }
    for (const decomp::NodeOutputMeta& d : declared) {
      const ir::TensorMeta* tm = graph.tensor_meta(d.name);
      if (!tm) continue;  // the IR verifier reports it
      auto mismatch = decomp::declared_mismatch(*tm, (*metas)[d.meta_index], symbols_);
      if (mismatch) {
        std::string which = declared.size() > 1 || d.name != node.name() ? " output \"" + d.name + "\"" : "";
        return refuse("node \"" + node.name() + "\":" + which + " declared as " + mismatch->first + ", but " +
                          op.full_name() + " of its inputs gives " + mismatch->second,
                      node);
      }
    }
    ++checked_;
    return true;
  }

  /// The polynomial of a SymInt (or int) argument; nullopt for anything else
  /// or a value without SymInt metadata.
  std::optional<decomp::SymPoly> scalar_poly(const ir::Graph& graph, const ir::Argument& a) {
    if (a.is<ir::ArgTag::Int>()) return decomp::SymPoly(a.get<ir::ArgTag::Int>());
    if (!a.is<ir::ArgTag::SymInt>()) return std::nullopt;
    const ir::SymIntArgument& s = a.get<ir::ArgTag::SymInt>();
    if (!s.is_name()) return decomp::SymPoly(s.value);
    const ir::Value* v = graph.find_value(*s.name);
    const ir::SymInt* meta = v ? v->sym_int() : nullptr;
    if (!meta) return std::nullopt;
    Result<decomp::SymPoly> p = symbols_.to_poly(*meta);
    if (!p.ok()) return std::nullopt;
    return std::move(p).value();
  }

  /// Checks the declared value of a SymInt-valued size query (sym_size,
  /// sym_numel) or symbolic arithmetic node (_operator add, sub, mul, neg;
  /// floordiv and mod of constants) against what it computes from its
  /// inputs: ExecuTorch re-runs these nodes when it re-traces, so the sizes
  /// planned from them follow the computation, not the file. Nodes of other
  /// kinds, or whose inputs or result have no readable SymInt, are skipped.
  Status check_scalar_node(const ir::Graph& graph, const ir::Node& node) {
    const auto& outs = node.outputs();
    if (outs.size() != 1 || !outs[0].is<ir::ArgTag::SymInt>()) return Status::Ok();
    const ir::SymIntArgument& out = outs[0].get<ir::ArgTag::SymInt>();
    if (!out.is_name()) return Status::Ok();
    const ir::Value* result = graph.find_value(*out.name);
    const ir::SymInt* declared_meta = result ? result->sym_int() : nullptr;
    if (!declared_meta) return Status::Ok();
    Result<decomp::SymPoly> declared = symbols_.to_poly(*declared_meta);
    if (!declared.ok()) return Status::Ok();

    const ir::OpTarget& target = node.target();
    std::optional<decomp::SymPoly> expected;
    if (target.kind() == ir::TargetKind::Operator) {  // sym_size.int(self, dim), sym_numel(self)
      const ir::Argument* self = node.input("self");
      const ir::TensorMeta* tm = self && self->is_tensor() ? graph.tensor_meta(self->tensor_name()) : nullptr;
      if (!tm) return Status::Ok();
      if (target.is("aten.sym_numel.default")) {
        decomp::SymPoly n(1);
        for (const ir::SymInt& d : tm->sizes) {
          Result<decomp::SymPoly> p = symbols_.to_poly(d);
          if (!p.ok()) return Status::Ok();
          n = n * *p;
        }
        expected = n;
      } else {
        const ir::Argument* dim = node.input("dim");
        if (!dim || !dim->is<ir::ArgTag::Int>()) return Status::Ok();
        Result<int64_t> d = decomp::normalize_dim(dim->get<ir::ArgTag::Int>(), tm->sizes.size());
        if (!d.ok()) return Status::Ok();  // the operator's own check reports it
        Result<decomp::SymPoly> p = symbols_.to_poly(tm->sizes[static_cast<size_t>(*d)]);
        if (!p.ok()) return Status::Ok();
        expected = std::move(p).value();
      }
    } else {
      std::vector<decomp::SymPoly> v;
      for (const ir::NamedArgument& in : node.inputs()) {
        std::optional<decomp::SymPoly> p = scalar_poly(graph, in.arg);
        if (!p) return Status::Ok();
        v.push_back(std::move(*p));
      }
      const std::string_view f = target.op();
      if (v.size() == 2 && f == "add") expected = v[0] + v[1];
      if (v.size() == 2 && f == "sub") expected = v[0] - v[1];
      if (v.size() == 2 && f == "mul") expected = v[0] * v[1];
      if (v.size() == 1 && f == "neg") expected = decomp::SymPoly(0) - v[0];
      if (v.size() == 2 && (f == "floordiv" || f == "mod") && v[0].is_constant() && v[1].is_constant() &&
          v[1].value() != 0 && !(v[0].value() == std::numeric_limits<int64_t>::min() && v[1].value() == -1)) {
        // Python's floor division and modulo (the sign of the divisor).
        const int64_t a = v[0].value(), b = v[1].value();
        expected = decomp::SymPoly(f == "floordiv" ? ir::python_floor_div(a, b) : ir::python_mod(a, b));
      }
    }
    if (!expected || decomp::same_sizes({*declared}, {*expected}, symbols_)) return Status::Ok();
    return refuse("node \"" + node.name() + "\": declared as " + symbols_.display(*declared) + ", but " +
                      std::string(target.short_name()) + " of its inputs gives " +
                      symbols_.display(*expected),
                  node);
  }

  Error refuse(std::string message, const ir::Node& node) const {
    Error e = ctx_.error_at(ErrorCode::INVALID_GRAPH, std::move(message), node);
    e.notes.push_back(kNote);
    return e;
  }

  decomp::SymbolTable& symbols_;
  PassContext& ctx_;
  int64_t checked_ = 0;
  int64_t skipped_ = 0;
};

class VerifyShapes final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"verify_shapes",
                                "re-infer each ATen call's output dtype and sizes; refuse wrong arguments and metadata",
                                "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    decomp::SymbolTable symbols;
    symbols.scan(ep);
    ShapeChecker checker(symbols, ctx);
    for (ir::Graph* graph : edge::graphs_bfs(ep.graph())) PTEFORGE_TRY(checker.run_graph(*graph));
    ctx.stat("nodes_checked", checker.checked());
    ctx.stat("nodes_skipped", checker.skipped());
    return false;
  }
};

}  // namespace

std::unique_ptr<Pass> make_verify_shapes_pass() { return std::make_unique<VerifyShapes>(); }

}  // namespace pteforge::passes
