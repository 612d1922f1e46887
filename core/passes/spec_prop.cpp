// spec_prop: gives every tensor value of the method a TensorSpec
// (MethodState::specs), then marks the constant and the mutable placeholders.
// Mirrors ExecuTorch's SpecPropPass + update_placeholder_tensor_specs
// (executorch-pipeline.md §1.3 B3, §5.1–§5.3):
//   - each graph input and each tensor a node defines gets its own spec from
//     its traced metadata (dtype, symbolic and hinted sizes/strides, dim order
//     from the strides, STATIC or DYNAMIC_BOUND, requires_grad). SymInt /
//     SymFloat / SymBool values get no spec (ExecuTorch keeps Python scalars
//     and drops the rest);
//   - ExecuTorch re-traces the graph first. We cannot re-run shape functions,
//     so the one place where stale metadata is known to differ is patched:
//     the `_copy` twin of a view op (view_copy, permute_copy, expand_copy, …)
//     returns a fresh contiguous tensor, so its spec gets contiguous strides
//     whatever strides the view it replaced recorded;
//   - the result of an in-place op is the tensor it writes: the result value
//     shares the spec object of the argument in the same `(a!)` alias set
//     (ExecuTorch aliases these in memory planning, §6.7; doing it here gives
//     every later pass the one object);
//   - placeholders of parameters, non-mutated buffers and lifted tensor
//     constants become const, with `constant` pointing to their bound payload
//     in `ep.state` (when bound); mutated buffers are flagged
//     `is_mutable_buffer`; parameters listed in
//     MethodState::weights_with_gradient get `weight_has_gradient`.
// Precondition: no memory.alloc / memory.view nodes yet (run it before
// remove_view_copy and to_out_variant). Errors: PASS_PRECONDITION for those
// nodes; PASS_FAILED for an unbacked symbolic size or a zero stride.
//
// Example: graph(%c, %x): %add = aten.add.Tensor(%x, %c) gives
//   c: float32[] const, x: float32[3] dim_order [0], add: float32[3].
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "ir/state_binding.h"
#include "ops/op_table.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"
#include "passes/sym_bounds.h"
#include "passes/tensor_spec.h"
#include "support/name_map.h"

namespace pteforge::passes {
namespace {

/// `schema` is the `_copy` twin of an aliasing view op (its output is a new
/// contiguous tensor).
bool is_view_copy_twin(const ops::OpSchema& schema) {
  static constexpr std::string_view kSuffix = "_copy";
  const std::string& n = schema.name;
  if (n.size() <= kSuffix.size() || n.compare(n.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) return false;
  const ops::OpSchema* view =
      ops::op_table().find(schema.ns, n.substr(0, n.size() - kSuffix.size()), schema.overload);
  if (!view || !view->is_view()) return false;
  return ops::op_table().copy_variant(*view) == &schema;
}

/// Index (into node.inputs()) of the argument an in-place result aliases, by
/// the `(a!)` alias set of return `ret`; -1 when none.
int aliased_input(const ir::Node& node, const ops::OpSchema& schema, size_t ret) {
  if (ret >= schema.returns.size()) return -1;
  const auto& alias = schema.returns[ret].type.alias;
  if (!alias || !alias->is_write) return -1;
  for (const ops::Argument& a : schema.arguments) {
    if (a.type.alias && a.type.alias->set == alias->set && a.type.is_write()) {
      return node.input_index(a.name);
    }
  }
  return -1;
}

class SpecProp final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"spec_prop", "attach a TensorSpec to every tensor value", "to_executorch"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    for (const ir::Node& node : graph) {
      if (is_memory_alloc(node) || is_memory_view(node)) {
        return ctx.error_at(ErrorCode::PASS_PRECONDITION,
                            "spec_prop must run before remove_view_copy and to_out_variant, but the graph already "
                            "has a " + std::string(node.target().str()) + " node",
                            node);
      }
    }

    // An unbacked (data-dependent) size has no trace-time hint: its upper
    // bound from range_constraints stands in (sym_shape_eval gives every
    // symbolic size its bound anyway), as ExecuTorch's specs of such sizes
    // get their bound from bound_sympy (executorch-pipeline.md §5.3).
    ProgramSymBounds bounds(ep);
    const UnhintedValue upper_bound = [&bounds](const ir::SymInt& s) -> std::optional<int64_t> {
      Result<const ir::SymNode*> e = bounds.parse(s.expr().expr_str);
      if (!e.ok()) return std::nullopt;  // spec_from_meta then reports the size
      const SymInterval r = bounds.bound(**e);
      if (r.has_upper() && r.hi >= 0) return r.hi;
      return std::nullopt;
    };

    SpecTable& specs = ctx.state().specs;
    specs.clear();
    // One spec per tensor value at most, and memory planning later adds the
    // alloc nodes' names: room for both, so the table never rehashes.
    specs.reserve(graph.value_slots() + graph.value_slots() / 2);
    int64_t created = 0;

    // Graph inputs (placeholders).
    for (const ir::Argument& in : graph.inputs()) {
      if (!in.is_tensor()) continue;
      const std::string& name = in.tensor_name();
      const ir::TensorMeta* meta = graph.tensor_meta(name);
      if (!meta) continue;
      auto spec = spec_from_meta(*meta, upper_bound);
      if (!spec.ok()) {
        Error e = std::move(spec).error();
        e.message = "placeholder '" + name + "': " + e.message;
        e.where.node = name;
        return e;
      }
      specs.set(name, std::make_shared<TensorSpec>(std::move(spec).value()));
      ++created;
    }

    // Node results.
    // is_view_copy_twin looks the schema's view twin up by name: once per
    // operator, not per node.
    PtrMap<const ops::OpSchema, bool> view_copy_twin;
    std::vector<const std::string*> names;
    for (const ir::Node& node : graph) {
      const ops::OpSchema* schema = node_schema(node);
      bool contiguous_result = false;
      if (schema) {
        auto [twin, inserted] = view_copy_twin.try_emplace(schema, false);
        if (inserted) twin.value() = is_view_copy_twin(*schema);
        contiguous_result = twin->second;
      }
      const bool inplace = schema && schema->is_inplace();
      size_t ret = 0;
      for (const ir::Argument& out : node.outputs()) {
        names.clear();
        for_each_tensor_name(out, [&names](const std::string& n) { names.push_back(&n); });
        for (const std::string* name_ptr : names) {
          const std::string& name = *name_ptr;
          if (inplace && names.size() == 1) {
            int idx = aliased_input(node, *schema, ret);
            if (idx >= 0 && node.inputs()[static_cast<size_t>(idx)].arg.is_tensor()) {
              if (TensorSpecPtr written = specs.get(node.inputs()[static_cast<size_t>(idx)].arg.tensor_name())) {
                specs.set(name, written);
                continue;
              }
            }
          }
          const ir::TensorMeta* meta = graph.tensor_meta(name);
          if (!meta) continue;
          auto spec = spec_from_meta(*meta, upper_bound);
          if (!spec.ok()) {
            return ctx.error_at(spec.error().code, "value '" + name + "': " + spec.error().message, node);
          }
          TensorSpec s = std::move(spec).value();
          if (contiguous_result) {
            s.strides = contiguous_strides(s.sizes);
            s.sym_strides.clear();
            s.dim_order = dim_order_from_strides(s.strides);
          }
          specs.set(name, std::make_shared<TensorSpec>(std::move(s)));
          ++created;
        }
        ++ret;
      }
    }

    // Constants and mutable buffers (update_placeholder_tensor_specs).
    const ir::GraphSignature& sig = ep.signature();
    // Sets: a model may have tens of thousands of buffers or trainable weights.
    std::unordered_set<std::string_view> mutated;
    for (const ir::OutputSpec& o : sig.output_specs) {
      if (o.kind == ir::OutputKind::BufferMutation) mutated.insert(o.target);
    }
    const std::unordered_set<std::string_view> grads(ctx.state().weights_with_gradient.begin(),
                                                     ctx.state().weights_with_gradient.end());
    const auto bound = ep.state.placeholder_index();
    int64_t consts = 0;
    for (const ir::InputSpec& in : sig.input_specs) {
      std::string_view name = in.name();
      if (name.empty()) continue;
      TensorSpecPtr spec = specs.get(name);
      if (!spec) continue;
      bool is_const = false;
      switch (in.kind) {
        case ir::InputKind::Parameter:
        case ir::InputKind::TensorConstant:
          is_const = true;
          break;
        case ir::InputKind::Buffer:
          if (mutated.count(in.target)) {
            spec->is_mutable_buffer = true;
          } else {
            is_const = true;
          }
          break;
        default:
          break;
      }
      if (is_const) {
        spec->is_const = true;
        const auto found = bound.find(name);
        spec->constant = found == bound.end() ? nullptr : found->second;
        ++consts;
      }
      if (in.kind == ir::InputKind::Parameter && grads.count(name)) {
        spec->weight_has_gradient = true;
      }
    }
    ctx.stat("specs", created);
    if (consts) ctx.stat("const_specs", consts);
    return created > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> make_spec_prop_pass() { return std::make_unique<SpecProp>(); }

}  // namespace pteforge::passes
