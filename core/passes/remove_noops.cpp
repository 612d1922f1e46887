// remove_noops: removes `aten.to.dtype`, `aten.dropout.default` and
// `aten.slice_copy.Tensor` nodes that do nothing, then dequantize → quantize
// pairs left with identical qparams, then dead code.
//
// Mirrors ExecuTorch's RemoveNoopPass (executorch-pipeline.md §1.2 step 6.6).
// ExecuTorch removes a node when its result is the very tensor object of its
// input; without fake tensors we derive when that happens from the op:
//   - `to.dtype` returns its input when the dtype is unchanged, copy=False, and
//     memory_format is absent/None/preserve_format or already satisfied;
//   - `dropout` returns its input when train=False or p == 0 (or the input is empty);
//   - `slice_copy.Tensor` is removed when input and result have the same static shape.
// Users of a removed node read its input instead. When that input is a
// `quantized_decomposed.dequantize_*` node, its `quantize_*` users with the
// same qparams are bypassed too. Like ExecuTorch, the pass ends with
// dead-code elimination of the top-level graph (which removes the bypassed
// nodes). Preconditions: none.
//
// Before:  %dropout = aten.dropout.default(%x, 0.5, False); %relu = aten.relu.default(%dropout)
// After:   %relu = aten.relu.default(%x)
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "passes/edge_utils.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

bool is_dequant(const ir::Node& n) {
  std::string_view t = n.target().short_name();
  return t == "quantized_decomposed.dequantize_per_tensor.default" ||
         t == "quantized_decomposed.dequantize_per_channel.default";
}
bool is_quant(const ir::Node& n) {
  std::string_view t = n.target().short_name();
  return t == "quantized_decomposed.quantize_per_tensor.default" ||
         t == "quantized_decomposed.quantize_per_channel.default";
}

/// The value of input `schema_name` (or of positional input `pos` when unnamed).
const ir::Argument* input_of(const ir::Node& n, std::string_view schema_name, size_t pos) {
  if (const ir::Argument* a = n.input(schema_name)) return a;
  if (pos < n.inputs().size() && n.inputs()[pos].name.empty()) return &n.inputs()[pos].arg;
  return nullptr;
}

bool arg_is_false(const ir::Argument* a) {
  return a && a->is<ir::ArgTag::Bool>() && !a->get<ir::ArgTag::Bool>();
}
bool arg_is_none_or_false(const ir::Argument* a) { return !a || a->is_none() || arg_is_false(a); }

/// True when the node returns its input tensor itself (see the header comment).
bool returns_input(const ir::Graph& g, const ir::Node& n, const ir::TensorMeta& in,
                   const ir::TensorMeta& out) {
  std::string_view t = n.target().short_name();
  if (t == "aten.to.dtype") {
    if (in.dtype != out.dtype) return false;
    const ir::Argument* dtype = input_of(n, "dtype", 1);
    if (dtype && dtype->is<ir::ArgTag::ScalarType>() && dtype->get<ir::ArgTag::ScalarType>() != in.dtype)
      return false;
    if (!arg_is_none_or_false(n.input("copy"))) return false;
    const ir::Argument* mf = n.input("memory_format");
    if (!mf || mf->is_none()) return true;
    if (!mf->is<ir::ArgTag::MemoryFormat>()) return false;
    switch (mf->get<ir::ArgTag::MemoryFormat>()) {
      case ir::MemoryFormat::PreserveFormat:
        return true;
      case ir::MemoryFormat::ContiguousFormat:
        return edge::is_contiguous_layout(in).value_or(false);
      case ir::MemoryFormat::ChannelsLast:
        return edge::is_channels_last_layout(in).value_or(false);
      default:
        return false;
    }
  }
  if (t == "aten.dropout.default") {
    (void)g;
    const ir::Argument* train = input_of(n, "train", 2);
    if (arg_is_false(train)) return true;
    const ir::Argument* p = input_of(n, "p", 1);
    if (p && p->is<ir::ArgTag::Float>() && p->get<ir::ArgTag::Float>() == 0.0) return true;
    auto numel = in.numel();
    return numel && *numel == 0;
  }
  return false;
}

/// slice_copy.Tensor whose input and result have the same static shape.
bool is_identity_slice(const ir::Node& n, const ir::TensorMeta& in, const ir::TensorMeta& out) {
  if (!n.target().is("aten.slice_copy.Tensor")) return false;
  auto a = in.concrete_sizes();
  auto b = out.concrete_sizes();
  return a && b && *a == *b;
}

class RemoveNoops final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"remove_noops", "remove identity to/dropout/slice nodes", "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    std::vector<std::string> dequant_inputs;  // node names: DCE may erase them
    int64_t removed = 0;
    for (ir::Node* node : graph.node_snapshot()) {
      std::string_view t = node->target().short_name();
      if (t != "aten.to.dtype" && t != "aten.dropout.default" && t != "aten.slice_copy.Tensor") continue;
      const std::string* out = node->single_output();
      const ir::Argument* self = node->inputs().empty() ? nullptr : &node->inputs()[0].arg;
      if (!out || !self || !self->is_tensor()) continue;
      const std::string in = self->tensor_name();
      const ir::TensorMeta* in_meta = graph.tensor_meta(in);
      const ir::TensorMeta* out_meta = graph.tensor_meta(*out);
      if (!in_meta || !out_meta) continue;
      if (!returns_input(graph, *node, *in_meta, *out_meta) && !is_identity_slice(*node, *in_meta, *out_meta))
        continue;
      if (ir::Node* producer = graph.producer(in); producer && is_dequant(*producer))
        dequant_inputs.push_back(producer->name());
      ep.replace_all_uses(*out, in);
      ++removed;
    }
    if (removed == 0) {
      PTEFORGE_ASSIGN_OR_RETURN(bool dce, run_dead_code_elimination(ep, ctx));
      return dce;
    }
    ctx.stat("noops_removed", removed);
    PTEFORGE_TRY(run_dead_code_elimination(ep, ctx));
    bypass_dq_q(ep, dequant_inputs);
    PTEFORGE_TRY(run_dead_code_elimination(ep, ctx));
    return true;
  }

 private:
  /// For each dequantize node, quantize users with the same qparams (positional
  /// arguments after the first) are replaced by the dequantize node's input.
  static void bypass_dq_q(ir::ExportedProgram& ep, const std::vector<std::string>& dequants) {
    ir::Graph& graph = ep.graph();
    for (const std::string& dq_name : dequants) {
      ir::Node* dq = graph.find_node(dq_name);
      if (!dq) continue;  // erased by dead-code elimination
      const std::string* dq_out = dq->single_output();
      if (!dq_out || dq->inputs().empty() || !dq->inputs()[0].arg.is_tensor()) continue;
      const std::string source = dq->inputs()[0].arg.tensor_name();
      for (ir::Node* user : graph.users(*dq_out)) {
        if (!is_quant(*user)) continue;
        if (!same_qparams(*dq, *user)) continue;
        if (const std::string* q_out = user->single_output()) ep.replace_all_uses(*q_out, source);
      }
    }
  }

  static bool same_qparams(const ir::Node& dq, const ir::Node& q) {
    auto positional = [](const ir::Node& n) {
      std::vector<const ir::Argument*> v;
      for (size_t i = 1; i < n.inputs().size(); ++i) {
        if (n.inputs()[i].kind != ir::ArgumentKind::Keyword) v.push_back(&n.inputs()[i].arg);
      }
      return v;
    };
    auto a = positional(dq);
    auto b = positional(q);
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(*a[i] == *b[i])) return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> make_remove_noops_pass() { return std::make_unique<RemoveNoops>(); }

}  // namespace pteforge::passes
