// sym_to_tensor: a SymInt, SymFloat or SymBool value passed to an operator
// argument whose schema type is exactly `Tensor` gets an
// `aten.scalar_tensor.default` node in front of it, with dtype int32, float32
// or bool respectively, in the graph and in nested graphs.
//
// Mirrors ExecuTorch's SymToTensorPass (executorch-pipeline.md §1.2 step
// 6.5): the dispatcher would convert the symbolic scalar implicitly, which
// does not match the schema the runtime relies on. The new node takes the
// consumer's origin and metadata (so it shares its debug handle), is inserted
// right before it, and defines a 0-d tensor. Literal scalars are
// scalar_to_tensor's job. Preconditions: none.
//
// Before:  %mul = aten.mul.Tensor(%x, %sym_size_int)
// After:   %scalar_tensor = aten.scalar_tensor.default(%sym_size_int, dtype=torch.int32)
//          %mul = aten.mul.Tensor(%x, %scalar_tensor)
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ops/op_table.h"
#include "passes/edge_utils.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

/// The dtype scalar_tensor gets for a named symbolic scalar; nullopt for anything else.
std::optional<ir::ScalarType> symbolic_dtype(const ir::Argument& a) {
  if (const auto* s = a.get_if<ir::ArgTag::SymInt>(); s && s->is_name()) return ir::ScalarType::Int;
  if (const auto* s = a.get_if<ir::ArgTag::SymFloat>(); s && s->is_name()) return ir::ScalarType::Float;
  if (const auto* s = a.get_if<ir::ArgTag::SymBool>(); s && s->is_name()) return ir::ScalarType::Bool;
  return std::nullopt;
}

class SymToTensor final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"sym_to_tensor",
                                "wrap SymInt/SymFloat/SymBool passed to Tensor arguments in scalar_tensor",
                                "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    int64_t inserted = 0;
    for (ir::Graph* graph : edge::graphs_bfs(ep.graph())) {
      for (ir::Node* node : graph->node_snapshot()) {
        const ops::OpSchema* op = node_schema(*node);
        if (!op) continue;
        for (const auto& arg : op->arguments) {
          if (arg.type.base != ops::BaseType::Tensor || arg.type.is_list || arg.type.optional) continue;
          int idx = node->input_index(arg.name);
          if (idx < 0) continue;
          const ir::Argument& value = node->inputs()[static_cast<size_t>(idx)].arg;
          auto dtype = symbolic_dtype(value);
          if (!dtype) continue;
          std::string name = graph->unique_name("scalar_tensor");
          std::vector<ir::NamedArgument> inputs;
          inputs.push_back(ir::positional("s", value));
          inputs.push_back(ir::keyword("dtype", ir::arg_dtype(*dtype)));
          ir::Node& st = graph->insert_before(
              *node, edge::make_call("aten.scalar_tensor.default", std::move(inputs), name));
          st.inherit_from(*node);
          graph->set_tensor_meta(name, edge::scalar_meta(*dtype));
          node->set_input(static_cast<size_t>(idx), ir::arg_tensor(name));
          ++inserted;
        }
      }
    }
    if (inserted) ctx.stat("scalar_tensors_inserted", inserted);
    return inserted > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> make_sym_to_tensor_pass() { return std::make_unique<SymToTensor>(); }

}  // namespace pteforge::passes
