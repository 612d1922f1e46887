// insert_write_back_for_buffers: makes buffer and user-input mutations
// explicit. For every BUFFER_MUTATION and USER_INPUT_MUTATION output, an
// `aten.copy_.default(<placeholder>, <new value>)` is appended just before
// the graph output, and the copy's result replaces the new value in the
// outputs. Mirrors ExecuTorch's insert_write_back_for_buffers_pass
// (executorch-pipeline.md §1.3 A5, §3.11):
//   - no copy when the output value already IS the placeholder through a
//     chain of in-place ops (`_inplace_lineage`): a buffer mutation must reach
//     a buffer placeholder, a user-input mutation a user-input placeholder;
//   - the outputs are reordered: the copies first (in output order), then the
//     other outputs in their order. ExecuTorch keeps its output-spec list in
//     place and renames the mutation specs positionally; here the specs are
//     reordered with the outputs so that spec i still names output i. The two
//     agree whenever every mutation output gets a copy (torch.export lists
//     mutations first), which is the case for functional (exported) graphs;
//   - dead code is removed afterwards.
// The emitter later drops BUFFER_MUTATION outputs but keeps the copy_ calls;
// memory planning gives the copy_ result the buffer's spec (§6.7).
//
// Before: graph(%b_total, %x): %add = aten.add.Tensor(%b_total, %x)
//                              %mul = aten.mul.Tensor(%add, 2) ; return (%add, %mul)
// After:  ... %copy_ = aten.copy_.default(%b_total, %add) ; return (%copy_, %mul)
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

/// True when `value` is (through in-place ops only) the placeholder of the
/// kind the mutation needs (ExecuTorch `_inplace_lineage`).
bool inplace_lineage(const ir::ExportedProgram& ep, std::string value, ir::OutputKind kind) {
  const ir::Graph& graph = ep.graph();
  for (size_t guard = 0; guard <= graph.num_nodes(); ++guard) {
    const ir::Value* v = graph.find_value(value);
    if (!v) return false;
    if (v->input_index >= 0) {
      int idx = ep.signature().find_input(value);
      if (idx < 0) return false;
      ir::InputKind k = ep.signature().input_specs[static_cast<size_t>(idx)].kind;
      return kind == ir::OutputKind::BufferMutation ? k == ir::InputKind::Buffer : k == ir::InputKind::UserInput;
    }
    const ir::Node* producer = v->producer;
    if (!producer || !is_inplace_node(*producer) || producer->inputs().empty()) return false;
    // In-place ops write their first argument (`self`).
    const ir::Argument& self = producer->inputs().front().arg;
    if (!self.is_tensor()) return false;
    value = self.tensor_name();
  }
  return false;
}

class InsertWriteBackForBuffers final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"insert_write_back_for_buffers",
                                "copy_ mutated buffers back in place before the output", "to_executorch"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    ir::GraphSignature& sig = ep.signature();

    // Mutation target (buffer FQN or user-input name) -> placeholder name.
    std::unordered_map<std::string, std::string> placeholder_of;
    for (const ir::InputSpec& in : sig.input_specs) {
      std::string_view name = in.name();
      if (name.empty()) continue;
      switch (in.kind) {
        case ir::InputKind::Buffer:
        case ir::InputKind::TensorConstant:
        case ir::InputKind::Parameter:
        case ir::InputKind::CustomObj:
          placeholder_of.emplace(in.target, std::string(name));
          break;
        case ir::InputKind::UserInput:
          if (in.arg.is_tensor()) placeholder_of.emplace(std::string(name), std::string(name));
          break;
        default:
          break;
      }
    }

    const std::vector<ir::Argument> outputs = graph.outputs();
    if (outputs.size() != sig.output_specs.size()) {
      return make_error(ErrorCode::PASS_PRECONDITION,
                        "the graph has " + std::to_string(outputs.size()) + " outputs but the signature lists " +
                            std::to_string(sig.output_specs.size()));
    }

    std::vector<ir::Argument> new_outputs;
    std::vector<ir::OutputSpec> new_specs;
    std::vector<ir::Argument> rest_outputs;
    std::vector<ir::OutputSpec> rest_specs;
    int64_t copies = 0;
    for (size_t i = 0; i < outputs.size(); ++i) {
      const ir::OutputSpec& spec = sig.output_specs[i];
      const ir::Argument& out = outputs[i];
      bool mutation =
          spec.kind == ir::OutputKind::BufferMutation || spec.kind == ir::OutputKind::UserInputMutation;
      auto ph = placeholder_of.find(spec.target);
      if (!mutation || ph == placeholder_of.end() || !out.is_tensor() ||
          inplace_lineage(ep, out.tensor_name(), spec.kind)) {
        rest_outputs.push_back(out);
        rest_specs.push_back(spec);
        continue;
      }
      const std::string& placeholder = ph->second;
      std::string name = graph.unique_name("copy_");
      std::vector<ir::NamedArgument> inputs = {ir::positional("self", ir::arg_tensor(placeholder)),
                                               ir::positional("src", out)};
      graph.append(ir::Node(ir::OpTarget("torch.ops.aten.copy_.default"), std::move(inputs),
                            {ir::arg_tensor(name)}, name));
      if (const ir::TensorMeta* meta = graph.tensor_meta(placeholder)) graph.set_tensor_meta(name, *meta);
      new_outputs.push_back(ir::arg_tensor(name));
      ir::OutputSpec renamed = spec;
      renamed.arg = ir::arg_tensor(name);
      new_specs.push_back(std::move(renamed));
      ++copies;
    }
    if (copies == 0) return false;
    for (auto& o : rest_outputs) new_outputs.push_back(std::move(o));
    for (auto& s : rest_specs) new_specs.push_back(std::move(s));
    graph.set_outputs(std::move(new_outputs));
    sig.output_specs = std::move(new_specs);
    ctx.stat("copies_inserted", copies);

    PTEFORGE_TRY(run_dead_code_elimination(ep, ctx));
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> make_insert_write_back_for_buffers_pass() {
  return std::make_unique<InsertWriteBackForBuffers>();
}

}  // namespace pteforge::passes
