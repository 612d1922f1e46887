// prune_empty_tensors: drops zero-element inputs of `aten.cat.default`; a cat
// left with no input becomes `aten.full.default(<cat shape>, 0, dtype=<cat dtype>)`.
// Ends with dead-code elimination of the top-level graph.
//
// Mirrors ExecuTorch's PruneEmptyTensorsPass (executorch-pipeline.md §1.2
// step 6.7): concatenating an empty tensor changes nothing, and the portable
// kernels need not see one. The `full` node takes the cat's origin, metadata
// and TensorMeta. Inputs whose element count is symbolic are kept.
// Preconditions: none.
//
// Before:  %cat = aten.cat.default([%x, %empty], 1)
// After:   %cat = aten.cat.default([%x], 1)
#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/edge_utils.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

bool is_empty_tensor(const ir::Graph& g, const std::string& name) {
  const ir::TensorMeta* m = g.tensor_meta(name);
  if (!m) return false;
  auto n = m->numel();
  return n && *n == 0;
}

/// The cat shape as the `size` argument of full: Ints, or SymInts when symbolic.
ir::Argument size_argument(const ir::Graph& g, const ir::TensorMeta& m) {
  if (auto sizes = m.concrete_sizes()) return ir::arg_ints(*sizes);
  std::vector<ir::SymIntArgument> syms;
  for (const ir::SymInt& s : m.sizes) {
    if (s.is_concrete()) {
      syms.push_back(ir::SymIntArgument{std::nullopt, s.value()});
      continue;
    }
    // A symbolic size is referenced through a SymInt value holding the same expression.
    std::optional<std::string> named;
    g.for_each_value([&](const ir::Value& v) {
      if (!named && v.sym_int() && v.defined() && *v.sym_int() == s) named = v.name;
    });
    syms.push_back(named ? ir::SymIntArgument{named, 0}
                         : ir::SymIntArgument{std::nullopt, s.hint().value_or(0)});
  }
  return ir::Argument::make<ir::ArgTag::SymInts>(std::move(syms));
}

class PruneEmptyTensors final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"prune_empty_tensors", "drop zero-element inputs of cat", "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    int64_t pruned = 0;
    int64_t replaced = 0;
    for (ir::Node* node : graph.node_snapshot()) {
      if (!node->target().is("aten.cat.default") || node->inputs().empty()) continue;
      const auto* list = node->inputs()[0].arg.get_if<ir::ArgTag::Tensors>();
      if (!list) continue;
      std::vector<std::string> kept;
      for (const auto& t : *list) {
        if (!is_empty_tensor(graph, t.name)) kept.push_back(t.name);
      }
      if (kept.size() == list->size()) continue;
      pruned += static_cast<int64_t>(list->size() - kept.size());
      node->set_input(0, ir::arg_tensors(kept));
      if (!kept.empty()) continue;
      const std::string* out = node->single_output();
      const ir::TensorMeta* meta = out ? graph.tensor_meta(*out) : nullptr;
      if (!meta) {
        return ctx.error_at(ErrorCode::PASS_PRECONDITION, "cat node has no tensor metadata for its result",
                            *node);
      }
      ir::TensorMeta cat_meta = *meta;
      std::vector<ir::NamedArgument> inputs;
      inputs.push_back(ir::positional("size", size_argument(graph, cat_meta)));
      inputs.push_back(ir::positional("fill_value", ir::arg_int(0)));
      inputs.push_back(ir::keyword("dtype", ir::arg_dtype(cat_meta.dtype)));
      std::string name = graph.unique_name("full");
      ir::Node& full =
          graph.insert_after(*node, edge::make_call("aten.full.default", std::move(inputs), name));
      full.inherit_from(*node);
      graph.set_tensor_meta(name, cat_meta);
      ep.replace_all_uses(*out, name);
      ++replaced;
    }
    if (pruned) ctx.stat("inputs_pruned", pruned);
    if (replaced) ctx.stat("cats_replaced", replaced);
    PTEFORGE_ASSIGN_OR_RETURN(bool dce, run_dead_code_elimination(ep, ctx));
    return pruned > 0 || dce;
  }
};

}  // namespace

std::unique_ptr<Pass> make_prune_empty_tensors_pass() { return std::make_unique<PruneEmptyTensors>(); }

}  // namespace pteforge::passes
