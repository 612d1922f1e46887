// memory_format_to_dim_order: replaces the memory-format ops with ExecuTorch's
// dim-order ops, in the graph and in nested graphs:
//   aten._to_copy.default      → dim_order_ops._to_dim_order_copy.default
//   aten.clone.default         → dim_order_ops._clone_dim_order.default
//   aten.empty.memory_format   → dim_order_ops._empty_dim_order.default
// The `memory_format` keyword is removed and a `dim_order` keyword is appended:
//   - absent, None or preserve_format: the input tensor's dim order (torch's
//     Tensor.dim_order()), or 0..n-1 when the first argument is a size list;
//   - contiguous_format: [0, 1, ..., n-1];
//   - channels_last: [0, 2, 3, 1] (rank 4 only).
//
// Mirrors ExecuTorch's MemoryFormatOpsPass (executorch-pipeline.md §1.2 step
// 8, §4.4; on by default since _skip_dim_order is False). The dim-order ops
// run as their memory-format twins, so a dim order that is neither contiguous
// nor channels-last, channels_last on another rank, and other memory formats
// are UNSUPPORTED_FEATURE naming the node. The result's TensorMeta gets the
// strides of that dim order (static shapes). Preconditions: none.
//
// Before:  %clone = aten.clone.default(%x, memory_format=torch.contiguous_format)
// After:   %clone = dim_order_ops._clone_dim_order.default(%x, dim_order=[0, 1])
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "passes/edge_utils.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"
#include "support/list_text.h"

namespace pteforge::passes {
namespace {

/// The dim-order twin of a memory-format op; "" when the node is not one.
std::string_view dim_order_twin(const ir::OpTarget& t) {
  std::string_view n = t.short_name();
  if (n == "aten._to_copy.default") return "torch.ops.dim_order_ops._to_dim_order_copy.default";
  if (n == "aten.clone.default") return "torch.ops.dim_order_ops._clone_dim_order.default";
  if (n == "aten.empty.memory_format") return "torch.ops.dim_order_ops._empty_dim_order.default";
  return {};
}

std::vector<int64_t> iota(size_t n) {
  std::vector<int64_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>(i);
  return v;
}

bool is_channels_last_order(const std::vector<int64_t>& order) {
  return order == std::vector<int64_t>{0, 2, 3, 1};
}

class MemoryFormatToDimOrder final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"memory_format_to_dim_order",
                                "replace _to_copy/clone/empty with dim_order_ops equivalents", "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    int64_t replaced = 0;
    for (ir::Graph* graph : edge::graphs_bfs(ep.graph())) {
      for (ir::Node& node : *graph) {
        std::string_view twin = dim_order_twin(node.target());
        if (twin.empty()) continue;
        PTEFORGE_TRY(rewrite(*graph, node, twin, ctx));
        ++replaced;
      }
    }
    if (replaced) ctx.stat("ops_replaced", replaced);
    return replaced > 0;
  }

 private:
  static Status rewrite(ir::Graph& graph, ir::Node& node, std::string_view twin, const PassContext& ctx) {
    if (node.inputs().empty()) {
      return ctx.error_at(ErrorCode::PASS_PRECONDITION, "expected a first argument", node);
    }
    // Rank and (for tensor inputs) layout of the first argument.
    const ir::Argument& first = node.inputs()[0].arg;
    const ir::TensorMeta* input = nullptr;
    size_t rank = 0;
    if (first.is_tensor()) {
      input = graph.tensor_meta(first.tensor_name());
      if (!input) {
        return ctx.error_at(ErrorCode::PASS_PRECONDITION,
                            "input %" + first.tensor_name() + " has no tensor metadata", node);
      }
      rank = input->rank();
    } else if (const auto* ints = first.get_if<ir::ArgTag::Ints>()) {
      rank = ints->size();
    } else if (const auto* syms = first.get_if<ir::ArgTag::SymInts>()) {
      rank = syms->size();
    } else {
      return ctx.error_at(
          ErrorCode::PASS_PRECONDITION,
          "expected a tensor or a size list as first argument, found " + std::string(first.tag_name()), node);
    }

    ir::MemoryFormat format = ir::MemoryFormat::PreserveFormat;
    int mf_index = node.input_index("memory_format");
    if (mf_index >= 0) {
      const ir::Argument& mf = node.inputs()[static_cast<size_t>(mf_index)].arg;
      if (mf.is<ir::ArgTag::MemoryFormat>()) {
        format = mf.get<ir::ArgTag::MemoryFormat>();
      } else if (!mf.is_none()) {
        return ctx.error_at(
            ErrorCode::PASS_PRECONDITION,
            "expected memory_format to be a memory format or None, found " + std::string(mf.tag_name()),
            node);
      }
    }

    std::vector<int64_t> order;
    switch (format) {
      case ir::MemoryFormat::PreserveFormat:
        if (input) {
          auto o = edge::torch_dim_order(*input);
          if (!o) {
            return ctx.error_at(
                ErrorCode::UNSUPPORTED_FEATURE,
                "the dim order of %" + first.tensor_name() + " depends on unknown symbolic strides", node);
          }
          order = *o;
        } else {
          order = iota(rank);
        }
        break;
      case ir::MemoryFormat::ContiguousFormat:
        order = iota(rank);
        break;
      case ir::MemoryFormat::ChannelsLast:
        if (rank != 4) {
          return ctx.error_at(ErrorCode::UNSUPPORTED_FEATURE,
                              "torch.channels_last needs a rank-4 tensor, found rank " + std::to_string(rank),
                              node);
        }
        order = {0, 2, 3, 1};
        break;
      default:
        return ctx.error_at(
            ErrorCode::UNSUPPORTED_FEATURE,
            std::string("memory format ") + std::string(ir::memory_format_name(format)) + " has no dim order",
            node);
    }
    const bool contiguous = order == iota(rank);
    if (!contiguous && !is_channels_last_order(order)) {
      return ctx.error_at(ErrorCode::UNSUPPORTED_FEATURE,
                          "dim order " + list_text(order) + " of %" + first.tensor_name() +
                              " is neither contiguous nor channels-last",
                          node);
    }

    std::vector<ir::NamedArgument> inputs;
    for (const auto& in : node.inputs()) {
      if (in.name != "memory_format") inputs.push_back(in);
    }
    inputs.push_back(ir::keyword("dim_order", ir::arg_ints(order)));
    node.set_inputs(std::move(inputs));
    node.set_target(ir::OpTarget(twin));

    if (const std::string* out = node.single_output()) {
      if (const ir::TensorMeta* m = graph.tensor_meta(*out)) {
        ir::TensorMeta meta = *m;
        if (contiguous) {
          meta = edge::with_contiguous_strides(std::move(meta));
        } else if (auto sizes = meta.concrete_sizes()) {
          meta.strides.clear();
          for (int64_t s : edge::channels_last_strides(*sizes)) meta.strides.emplace_back(s);
          meta.storage_offset = ir::SymInt(int64_t{0});
        }
        graph.set_tensor_meta(*out, std::move(meta));
      }
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> make_memory_format_to_dim_order_pass() {
  return std::make_unique<MemoryFormatToDimOrder>();
}

}  // namespace pteforge::passes
