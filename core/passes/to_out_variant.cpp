// to_out_variant: functional operator calls become out-variant calls that
// write into `memory.alloc` outputs. Mirrors ExecuTorch's ToOutVarPass with
// ignore_to_out_var_failure=False (executorch-pipeline.md §1.3 B9, §4.1–§4.3):
//   - skipped: Python/builtin callables (getitem, symbolic arithmetic), the
//     memory.* nodes, higher-order ops (delegate calls, control flow), the
//     symbolic ops of §3.8, and in-place overloads (copy_);
//   - already out variants are kept; a stray `out` produced by a non-alloc
//     node with a single use gets a fresh alloc in its place;
//   - otherwise the out variant is the overload paired by signature
//     (ops::op_table().out_variant, §4.2). Positional arguments stay; keyword
//     arguments are kept only when the out variant has a non-out argument of
//     that name (so `_to_dim_order_copy` loses dtype/layout/device/pin_memory);
//   - one `memory.alloc` per out argument is inserted right before the node,
//     in out-argument order (lowering_util.h describes the node). A
//     `Tensor(a!)[] out` (split_copy.Tensor_out) gets one alloc defining the
//     whole list. For several out arguments the node's results must match
//     them one to one; a result the program left as None gets a None out;
//   - the node keeps its result value names, and each alloc value shares the
//     TensorSpec of the result it stands for (when spec_prop ran), so users
//     need no rewiring (ExecuTorch redirects users of no-return out variants
//     to the alloc; sharing the spec object is equivalent for planning and
//     emission);
//   - every op without an out variant is collected and the pass fails at the
//     end with one UNSUPPORTED_OPERATOR error naming each missing op, its
//     nodes and the nearest supported ops;
//   - with PipelineOptions::portable_only, every kernel the method would call
//     must be in ExecuTorch's portable (or prim) library, else
//     UNSUPPORTED_OPERATOR naming the offending ops.
//
// Before: %add = aten.add.Tensor(%x, %c)
// After:  %alloc = memory.alloc([3], torch.float32)
//         %add = aten.add.out(%x, %c, out=%alloc)
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "ops/op_table.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"
#include "passes/tensor_spec.h"

namespace pteforge::passes {
namespace {

/// Ops that failed a check, by op name, with the nodes that call them (first-use order).
struct OpFailures {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ir::Node*>> nodes;
  void add(const std::string& op, const ir::Node& node) {
    auto [it, inserted] = nodes.try_emplace(op);
    if (inserted) order.push_back(op);
    it->second.push_back(&node);
  }
  bool empty() const { return order.empty(); }
};

std::string node_list(const std::vector<const ir::Node*>& nodes) {
  std::string s;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i == 5) {
      s += ", ... (" + std::to_string(nodes.size()) + " nodes)";
      break;
    }
    s += (i ? ", %" : "%") + nodes[i]->name();
  }
  return s;
}

class ToOutVariant final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"to_out_variant", "convert functional ops into out variants with memory.alloc outputs",
                                "to_executorch"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    const ops::OpTable& table = ops::op_table();
    OpFailures missing;
    OpFailures not_portable;
    int64_t converted = 0;
    int64_t allocs = 0;
    std::unordered_map<const ops::OpSchema*, ir::OpTarget> out_targets;  // interned once per out variant

    for (ir::Node* node : graph.node_snapshot()) {
      const ir::OpTarget& target = node->target();
      if (target.kind() != ir::TargetKind::Operator) continue;
      const ops::OpSchema* schema = target_schema(target);  // memoized per interned target
      if (is_symbolic_op(target)) {
        if (ctx.options().portable_only && (!schema || !table.is_supported(*schema))) {
          not_portable.add(std::string(target.short_name()), *node);
        }
        continue;
      }
      if (!schema) {
        missing.add(std::string(target.short_name()), *node);
        continue;
      }
      if (schema->is_inplace() || schema->is_out_variant()) {
        if (schema->is_out_variant()) {
          PTEFORGE_ASSIGN_OR_RETURN(bool replaced, replace_stray_out(graph, *node, ctx));
          if (replaced) ++allocs;
        }
        if (ctx.options().portable_only && !table.is_supported(*schema)) {
          not_portable.add(schema->full_name(), *node);
        }
        continue;
      }
      const ops::OpSchema* out = table.out_variant(*schema);
      if (!out) {
        missing.add(schema->full_name(), *node);
        continue;
      }
      if (ctx.options().portable_only && !table.is_supported(*out)) {
        not_portable.add(out->full_name(), *node);
      }
      auto [target_it, new_target] = out_targets.try_emplace(out);
      if (new_target) target_it->second = ir::OpTarget(out->torch_name());
      PTEFORGE_ASSIGN_OR_RETURN(int64_t n, rewrite(graph, *node, *schema, *out, target_it->second, ctx));
      allocs += n;
      ++converted;
    }

    if (!missing.empty()) return missing_error(missing, ctx);
    if (!not_portable.empty()) return not_portable_error(not_portable, ctx);
    if (converted) ctx.stat("out_variants", converted);
    if (allocs) ctx.stat("allocs", allocs);
    return converted > 0 || allocs > 0;
  }

 private:
  /// The result values an alloc stands for: names inside the node's outputs
  /// (which the rewrite never changes, so the pointers stay valid).
  using Results = std::vector<const std::string*>;

  /// What an alloc copies from the result value it stands for: its TensorSpec
  /// (shared, when spec_prop ran) and graph metadata, and the alloc's size
  /// argument (the spec's sizes, else the metadata's size hints).
  struct ResultShape {
    TensorSpecPtr spec;
    const ir::TensorMeta* meta = nullptr;
    std::vector<int64_t> sizes;
    std::optional<ir::ScalarType> dtype;
  };

  static ResultShape shape_of(const ir::Graph& graph, const SpecTable& specs, const std::string& result) {
    ResultShape r;
    r.spec = specs.get(result);
    // Value metadata lives in the graph's value table, whose entries keep
    // their address while the value lives (the results stay defined).
    r.meta = graph.tensor_meta(result);
    if (r.spec) {
      r.sizes = r.spec->sizes;
      r.dtype = r.spec->dtype;
    } else if (r.meta) {
      r.sizes.reserve(r.meta->sizes.size());
      for (const ir::SymInt& d : r.meta->sizes) r.sizes.push_back(sym_hint(d).value_or(0));
      r.dtype = r.meta->dtype;
    }
    return r;
  }

  /// Gives the alloc value `name` the metadata and spec of its result.
  static void adopt(ir::Graph& graph, SpecTable& specs, const std::string& name, ResultShape& r) {
    if (r.meta) graph.set_tensor_meta(name, *r.meta);
    if (r.spec) specs.set(name, std::move(r.spec));
  }

  /// Inserts one memory.alloc before `node` for the result values `results`
  /// (one value, or a list when `as_list`); returns the argument to pass as out.
  /// The alloc's dtype is the first result's (Float when it has none).
  /// `results` holds at least one value and no null (the callers check).
  static ir::Argument insert_alloc(ir::Graph& graph, ir::Node& node, const Results& results, bool as_list,
                                   PassContext& ctx) {
    SpecTable& specs = ctx.state().specs;
    std::string node_name = graph.unique_name("alloc");
    std::vector<ir::NamedArgument> inputs;
    inputs.reserve(2);
    if (!as_list) {  // the usual case: one tensor
      ResultShape r = shape_of(graph, specs, *results.front());
      inputs.push_back(ir::positional("size", ir::arg_ints(std::move(r.sizes))));
      inputs.push_back(ir::positional("dtype", ir::arg_dtype(r.dtype.value_or(ir::ScalarType::Float))));
      std::vector<ir::Argument> outputs;
      outputs.push_back(ir::arg_tensor(node_name));
      ir::Node alloc(memory_alloc_target(), std::move(inputs), std::move(outputs), node_name);
      alloc.inherit_from(node);
      graph.insert_before(node, std::move(alloc));
      adopt(graph, specs, node_name, r);
      return ir::arg_tensor(std::move(node_name));
    }
    std::vector<std::string> names;
    for (size_t i = 0; i < results.size(); ++i) {
      std::string n = graph.unique_name(node_name + "_" + std::to_string(i));
      if (n == node_name) n = graph.unique_name(node_name + "_" + std::to_string(i) + "_");
      names.push_back(n);
    }
    std::vector<ResultShape> shapes;
    std::vector<std::vector<int64_t>> sizes;
    shapes.reserve(results.size());
    for (const std::string* result : results) {
      ResultShape& r = shapes.emplace_back(shape_of(graph, specs, *result));
      sizes.push_back(std::move(r.sizes));
    }
    const ir::ScalarType dtype = shapes.front().dtype.value_or(ir::ScalarType::Float);
    inputs.push_back(ir::positional("size", ir::Argument::make<ir::ArgTag::IntLists>(std::move(sizes))));
    inputs.push_back(ir::positional("dtype", ir::arg_dtype(dtype)));
    std::vector<ir::Argument> outputs;
    outputs.push_back(ir::arg_tensors(names));
    ir::Node alloc(memory_alloc_target(), std::move(inputs), std::move(outputs), std::move(node_name));
    alloc.inherit_from(node);
    graph.insert_before(node, std::move(alloc));
    for (size_t i = 0; i < shapes.size(); ++i) adopt(graph, specs, names[i], shapes[i]);
    return ir::arg_tensors(names);
  }

  /// Rewrites a functional call into `out` (whose target is `out_target`);
  /// returns the number of allocs inserted.
  static Result<int64_t> rewrite(ir::Graph& graph, ir::Node& node, const ops::OpSchema& schema,
                                 const ops::OpSchema& out, const ir::OpTarget& out_target, PassContext& ctx) {
    std::vector<size_t> out_idx = out.out_argument_indices();

    // The node's results, flattened (None results, and unnamed ones, are null).
    Results results;
    for (const ir::Argument& o : node.outputs()) {
      if (o.is_none()) {
        results.push_back(nullptr);
        continue;
      }
      for_each_tensor_name(o,
                           [&results](const std::string& n) { results.push_back(n.empty() ? nullptr : &n); });
    }

    if (out_idx.size() == 1) {
      bool any = false;
      for (const std::string* r : results) any = any || r != nullptr;
      if (!any) {
        return ctx.error_at(ErrorCode::PASS_FAILED,
                            "cannot convert " + schema.full_name() + " to " + out.full_name() +
                                ": the node defines no tensor result to allocate",
                            node);
      }
    } else if (results.size() != out_idx.size()) {
      return ctx.error_at(ErrorCode::PASS_FAILED,
                          "cannot convert " + schema.full_name() + " to " + out.full_name() + ": it has " +
                              std::to_string(out_idx.size()) + " out arguments but the node has " +
                              std::to_string(results.size()) + " results",
                          node);
    }

    // The out arguments, each with the alloc(s) inserted before the node.
    std::vector<ir::NamedArgument> outs;
    if (out_idx.size() == 1) {
      const ops::Argument& arg = out.arguments[out_idx[0]];
      Results values;
      for (const std::string* r : results) {
        if (r) values.push_back(r);
      }
      bool as_list = arg.type.is_tensor_list();
      if (!as_list) values.resize(1);
      outs.push_back(ir::keyword(arg.name, insert_alloc(graph, node, values, as_list, ctx)));
    } else {
      for (size_t i = 0; i < out_idx.size(); ++i) {
        const ops::Argument& arg = out.arguments[out_idx[i]];
        outs.push_back(ir::keyword(
            arg.name, results[i] ? insert_alloc(graph, node, {results[i]}, false, ctx) : ir::arg_none()));
      }
    }
    int64_t allocs = 0;
    for (const ir::NamedArgument& o : outs) allocs += o.arg.is_none() ? 0 : 1;

    // The node's inputs, moved out and back: keyword arguments the out variant
    // has no (non-out) argument for are dropped, the out arguments appended.
    std::vector<ir::NamedArgument> inputs = node.take_inputs();
    std::erase_if(inputs, [&](const ir::NamedArgument& in) {
      if (!passed_by_keyword(in, &schema)) return false;
      const ops::Argument* a = out.find_argument(in.name);
      return !a || a->is_out();
    });
    for (ir::NamedArgument& o : outs) inputs.push_back(std::move(o));
    node.set_inputs(std::move(inputs));
    node.set_target(out_target);
    return allocs;
  }

  /// ExecuTorch's handling of a program that already calls an out variant:
  /// an `out` tensor made by a non-alloc node and used only there is replaced
  /// by a fresh alloc.
  static Result<bool> replace_stray_out(ir::Graph& graph, ir::Node& node, PassContext& ctx) {
    int idx = node.input_index("out");
    if (idx < 0) return false;
    const ir::Argument& a = node.inputs()[static_cast<size_t>(idx)].arg;
    if (!a.is_tensor()) return false;
    const std::string out_name = a.tensor_name();
    ir::Node* producer = graph.producer(out_name);
    if (!producer || is_memory_alloc(*producer) || graph.use_count(out_name) != 1) return false;
    const std::string* result = node.single_output();
    if (!result || !graph.tensor_meta(*result)) return false;
    ir::Argument alloc = insert_alloc(graph, node, {result}, false, ctx);
    node.set_input(static_cast<size_t>(idx), std::move(alloc));
    if (graph.use_count(out_name) == 0 && producer->output_names().size() == 1) {
      // The producer (and an alloc it wrote into, now unused) go: ExecuTorch
      // leaves that alloc behind without a spec, which plans and emits nothing.
      std::vector<std::string> inputs;
      for (const ir::NamedArgument& in : producer->inputs()) {
        for (const std::string& n : tensor_names(in.arg)) inputs.push_back(n);
      }
      PTEFORGE_TRY(graph.erase(*producer));
      for (const std::string& n : inputs) {
        ir::Node* p = graph.producer(n);
        if (p && is_memory_alloc(*p) && graph.use_count(n) == 0) PTEFORGE_TRY(graph.erase(*p));
      }
    }
    return true;
  }

  static Error missing_error(const OpFailures& missing, PassContext& ctx) {
    std::string msg = "missing out variants: ";
    for (size_t i = 0; i < missing.order.size(); ++i) {
      const std::string& op = missing.order[i];
      msg += (i ? "; " : "") + op + " (" + node_list(missing.nodes.at(op)) + ")";
    }
    msg += ". ExecuTorch's runtime only runs out-variant kernels (ToOutVarPass); decompose these ops or add kernels";
    Error e = ctx.error_at(ErrorCode::UNSUPPORTED_OPERATOR, msg, *missing.nodes.at(missing.order.front()).front());
    for (const std::string& op : missing.order) {
      std::string note = op + ": ";
      const ops::OpSchema* schema = ops::op_table().find(op);
      const ops::OpSchema* copy = schema ? ops::op_table().copy_variant(*schema) : nullptr;
      if (copy && ops::op_table().out_variant(*copy)) {
        // A view op (an explicit pass list that leaves out the view pass).
        note += "a view op: the pass replace_view_ops_with_copy turns it into " + copy->full_name() +
                ", which has an out variant (run it before to_out_variant)";
        e.notes.push_back(std::move(note));
        continue;
      }
      std::vector<const ops::OpSchema*> near = ops::op_table().nearest_supported(op);
      // The op itself (another overload's name can read the same) is no suggestion.
      std::erase_if(near, [&op](const ops::OpSchema* s) { return s->full_name() == op; });
      if (near.empty()) {
        note += "no similar supported operator";
      } else {
        note += "nearest supported: ";
        for (size_t i = 0; i < near.size(); ++i) note += (i ? ", " : "") + near[i]->full_name();
      }
      e.notes.push_back(std::move(note));
    }
    return e;
  }

  static Error not_portable_error(const OpFailures& ops, PassContext& ctx) {
    std::string msg = "operators outside ExecuTorch's portable kernel library (portable_only): ";
    for (size_t i = 0; i < ops.order.size(); ++i) {
      const std::string& op = ops.order[i];
      msg += (i ? "; " : "") + op + " (" + node_list(ops.nodes.at(op)) + ")";
    }
    return ctx.error_at(ErrorCode::UNSUPPORTED_OPERATOR, msg, *ops.nodes.at(ops.order.front()).front());
  }
};

}  // namespace

std::unique_ptr<Pass> make_to_out_variant_pass() { return std::make_unique<ToOutVariant>(); }

}  // namespace pteforge::passes
