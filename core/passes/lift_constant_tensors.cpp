// lift_constant_tensors: turns the tensor constants that passes created
// (scalar_to_tensor's 0-d constants: CONSTANT_TENSOR inputs whose bytes are
// inline in the state binding) into persistent buffers, named and placed as
// ExecuTorch's lift_constant_tensor_pass does (executorch-pipeline.md §1.2
// step 9, AddModel in §7.1):
//   - they are lifted in the order of their first use in the graph (where
//     ExecuTorch's get_attr nodes sit), graph outputs last;
//   - each gets the FQN and placeholder name `_lifted_tensor_constant<N>`,
//     N = the number of BUFFER input specs at that moment (so it grows by one
//     per lifted constant); a name clash gets FX's `_1` suffix;
//   - the placeholders and their persistent BUFFER input specs go right
//     before the first user input, in lifting order (at the front when there
//     is no user input);
//   - the state binding entry follows (kind Buffer, new FQN), and the binding
//     is kept in signature order.
// A pass-created constant nothing uses any more is dropped (ExecuTorch's
// dead-code elimination removes its get_attr before lifting). Tensor
// constants of the exported program itself stay as they are.
// Preconditions: none.
//
// Before:  # input tensor_constant %_tensor_constant0 <- _tensor_constant0
//          # input user_input %x
// After:   # input buffer %_lifted_tensor_constant0 <- _lifted_tensor_constant0
//          # input user_input %x
#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "passes/edge_utils.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

class LiftConstantTensors final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"lift_constant_tensors",
                                "lift remaining tensor constants to buffer placeholders", "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    auto& specs = ep.signature().input_specs;
    if (specs.size() != graph.inputs().size()) {
      return make_error(ErrorCode::PASS_PRECONDITION,
                        "the signature and the graph disagree on the number of inputs");
    }
    // Pass-created constants, by placeholder name.
    std::vector<std::string> pending;
    // Most programs have no pass-created constant: then no index is built
    // (an index of every placeholder costs as much as the rest of the pass).
    const bool any_inline = std::any_of(ep.state.tensors.begin(), ep.state.tensors.end(),
                                        [](const ir::ConstantRef& t) { return t.is_inline(); });
    if (any_inline) {
      const auto bound = ep.state.placeholder_index();
      for (const auto& s : specs) {
        if (s.kind != ir::InputKind::TensorConstant) continue;
        const auto found = bound.find(s.name());
        if (found != bound.end() && found->second->is_inline()) pending.emplace_back(s.name());
      }
    }
    if (pending.empty()) return false;

    // Lifting order: first use in the graph, then graph outputs.
    std::vector<std::string> order;
    std::unordered_set<std::string_view> unvisited(pending.begin(), pending.end());
    auto visit = [&](const std::string& name, ir::ValueKind) {
      auto it = unvisited.find(name);
      if (it == unvisited.end()) return;
      unvisited.erase(it);
      order.push_back(name);
    };
    for (const ir::Node& node : graph) {
      for (const auto& in : node.inputs()) ir::for_each_value_name(in.arg, visit);
    }
    for (const auto& out : graph.outputs()) ir::for_each_value_name(out, visit);

    // Take every pending constant out of the inputs; keep the bindings of the used ones.
    std::vector<ir::ConstantRef> refs;
    std::vector<ir::TensorMeta> metas;
    {
      const auto bound = ep.state.placeholder_index();
      for (const std::string& name : order) {
        refs.push_back(*bound.at(name));
        metas.push_back(*graph.tensor_meta(name));
      }
    }
    // One pass each over the inputs and the bindings (erasing one constant at
    // a time was quadratic in the number of constants).
    int64_t dropped = 0;
    {
      std::unordered_map<std::string_view, size_t> position;  // first input spec of each name
      position.reserve(specs.size());
      for (size_t i = 0; i < specs.size(); ++i) position.emplace(specs[i].name(), i);
      std::vector<size_t> positions;
      positions.reserve(pending.size());
      for (const std::string& name : pending) positions.push_back(position.at(name));
      // Back to front, so each erase only moves the few inputs after it.
      std::sort(positions.begin(), positions.end(), std::greater<>());
      for (size_t i : positions) {
        graph.erase_input(i);
        specs.erase(specs.begin() + static_cast<std::ptrdiff_t>(i));
      }
      // Every pending constant's binding is inline (no storage to release):
      // drop the first binding of each name, as erase_placeholder would.
      std::unordered_set<std::string_view> unbound(pending.begin(), pending.end());
      auto& tensors = ep.state.tensors;
      size_t kept = 0;
      for (size_t i = 0; i < tensors.size(); ++i) {
        auto it = unbound.find(tensors[i].placeholder);
        if (it != unbound.end() && tensors[i].is_inline()) {
          unbound.erase(it);
          continue;
        }
        if (kept != i) tensors[kept] = std::move(tensors[i]);
        ++kept;
      }
      tensors.resize(kept);
      for (const std::string& name : pending) {
        if (unvisited.count(name) != 0) {  // never used: dropped
          graph.clear_meta(name);
          ++dropped;
        }
      }
    }

    size_t num_buffers = ep.signature().count(ir::InputKind::Buffer);
    size_t at = edge::first_user_input_index(ep).value_or(0);
    std::unordered_map<std::string, std::string> renames;  // outside the graph: one walk at the end
    for (size_t k = 0; k < order.size(); ++k) {
      const std::string& old_name = order[k];
      std::string fqn = "_lifted_tensor_constant" + std::to_string(num_buffers + k);
      std::string name = graph.unique_name(fqn);
      graph.insert_input(at + k, ir::arg_tensor(name));
      graph.set_tensor_meta(name, metas[k]);
      graph.replace_all_uses(old_name, name);
      renames.emplace(old_name, name);
      graph.clear_meta(old_name);

      ir::InputSpec spec;
      spec.kind = ir::InputKind::Buffer;
      spec.arg = ir::arg_tensor(name);
      spec.target = fqn;
      spec.persistent = true;
      specs.insert(specs.begin() + static_cast<std::ptrdiff_t>(at + k), std::move(spec));

      ir::ConstantRef ref = std::move(refs[k]);
      ref.fqn = fqn;
      ref.placeholder = name;
      ref.kind = ir::InputKind::Buffer;
      ep.state.tensors.push_back(std::move(ref));
    }
    ep.rename_outside_graph(renames);
    edge::sort_state_by_signature(ep);
    if (!order.empty()) ctx.stat("constants_lifted", static_cast<int64_t>(order.size()));
    if (dropped) ctx.stat("constants_dropped", dropped);
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> make_lift_constant_tensors_pass() { return std::make_unique<LiftConstantTensors>(); }

}  // namespace pteforge::passes
