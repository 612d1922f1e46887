// contiguous_constants: tensor constants and buffers whose strides are
// neither contiguous nor channels-last get contiguous strides; their state
// binding is flagged `make_contiguous` so the emitter writes the elements in
// row-major order.
//
// Mirrors ExecuTorch's convert_constant_dim_order_pass (executorch-pipeline.md
// §1.2 step 10, §5.2): the runtime rebuilds strides from sizes and dim order,
// so a constant's bytes must be in the physical order its dim order says; for
// any other layout the tensor is made contiguous. Contiguity follows torch
// (dims of size 1 are ignored). Like ExecuTorch, parameters are not touched.
// Unlike ExecuTorch, the placeholder metadata of non-persistent buffers is
// updated too (ExecuTorch makes their bytes contiguous but leaves the old
// strides on the placeholder, which would describe the bytes wrongly).
// Preconditions: none.
//
// Before:  # input buffer %b_t <- t           (float32[2, 3], strides [1, 2])
// After:   # input buffer %b_t <- t           (float32[2, 3], strides [3, 1]; binding make_contiguous)
#include <string>

#include "ir/graph.h"
#include "passes/edge_utils.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

class ContiguousConstants final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"contiguous_constants",
                                "make constants that are neither contiguous nor channels-last contiguous",
                                "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    int64_t converted = 0;
    for (const ir::InputSpec& spec : ep.signature().input_specs) {
      if (spec.kind != ir::InputKind::TensorConstant && spec.kind != ir::InputKind::Buffer) continue;
      const std::string name(spec.name());
      const ir::TensorMeta* meta = graph.tensor_meta(name);
      if (!meta || !meta->is_static()) continue;
      if (edge::is_contiguous_layout(*meta).value_or(true) ||
          edge::is_channels_last_layout(*meta).value_or(true)) {
        continue;
      }
      ir::TensorMeta fixed = *meta;
      fixed.strides.clear();
      for (int64_t s : ir::contiguous_strides(*meta->concrete_sizes())) fixed.strides.emplace_back(s);
      fixed.storage_offset = ir::SymInt(int64_t{0});
      graph.set_tensor_meta(name, std::move(fixed));
      if (ir::ConstantRef* ref = ep.state.find_placeholder(name)) ref->make_contiguous = true;
      ++converted;
    }
    if (converted) ctx.stat("constants_made_contiguous", converted);
    return converted > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> make_contiguous_constants_pass() { return std::make_unique<ContiguousConstants>(); }

}  // namespace pteforge::passes
