// Training-IR fixtures end to end: every folder of tests/fixtures/tir/
// (programs as torch.export.export returns them, before run_decompositions)
// converts with the default pipeline; the .pte decodes, and its operator table
// is exactly the golden list below: only out variants, prim ops, and
// aten::copy_ (the buffer write-back ExecuTorch inserts for a mutated buffer,
// llama's KV cache), each with a kernel in ExecuTorch's portable runtime
// (portable + prim libraries, as ops::OpTable::runtime_op says).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "ops/op_table.h"

using namespace pteforge;
using pteforge::testing::convert_path;
using pteforge::testing::test_path;

namespace fs = std::filesystem;

namespace {

using OpList = std::vector<std::string>;

/// The operator table of `forward` after conversion, in emission order.
const std::map<std::string, OpList>& expected_operators() {
  static const std::map<std::string, OpList> table = {
      {"tir_dynamic_batch",
       {"aten::sym_size.int", "executorch_prim::mul.Scalar", "executorch_prim::et_view.default",
        "aten::permute_copy.out", "aten::addmm.out", "aten::relu.out", "aten::mm.out",
        "aten::view_copy.out"}},
      {"tir_efficientnet_block",
       {"aten::convolution.out", "aten::_native_batch_norm_legit_no_training.out", "aten::sigmoid.out",
        "aten::mul.out", "aten::mean.out", "aten::add.out", "dim_order_ops::_clone_dim_order.out",
        "aten::permute_copy.out", "aten::addmm.out"}},
      {"tir_gpt2_block",
       {"aten::native_layer_norm.out",
        "aten::permute_copy.out",
        "aten::addmm.out",
        "aten::split_with_sizes_copy.out",
        "aten::mul.Scalar_out",
        "aten::full.out",
        "aten::arange.start_out",
        "aten::unsqueeze_copy.out",
        "aten::sub.out",
        "aten::le.Scalar_out",
        "aten::logical_and.out",
        "aten::scalar_tensor.out",
        "aten::where.self_out",
        "aten::expand_copy.out",
        "aten::bmm.out",
        "aten::add.out",
        "aten::_softmax.out",
        "aten::eq.Scalar_out",
        "aten::logical_not.out",
        "aten::any.out",
        "aten::full_like.out",
        "dim_order_ops::_clone_dim_order.out",
        "aten::gelu.out"}},
      {"tir_llama_decoder",
       {"aten::embedding.out",
        "aten::pow.Tensor_Scalar_out",
        "aten::mean.out",
        "aten::add.Scalar_out",
        "aten::rsqrt.out",
        "aten::mul.out",
        "aten::permute_copy.out",
        "aten::mm.out",
        "aten::index.Tensor_out",
        "aten::slice_copy.Tensor_out",
        "aten::neg.out",
        "aten::cat.out",
        "aten::add.out",
        "aten::index_put.out",
        "aten::copy.out",
        "aten::slice_scatter.out",
        "aten::scalar_tensor.out",
        "aten::where.self_out",
        "aten::mul.Scalar_out",
        "aten::expand_copy.out",
        "aten::bmm.out",
        "aten::_softmax.out",
        "aten::eq.Scalar_out",
        "aten::logical_not.out",
        "aten::any.out",
        "aten::full_like.out",
        "dim_order_ops::_clone_dim_order.out",
        "aten::sigmoid.out",
        "aten::copy_"}},
      {"tir_lstm_cell",
       {"aten::permute_copy.out", "aten::addmm.out", "aten::slice_copy.Tensor_out",
        "aten::squeeze_copy.dims_out", "aten::add.out", "aten::split_with_sizes_copy.out",
        "aten::sigmoid.out", "aten::mul.out", "aten::tanh.out", "aten::cat.out", "aten::view_copy.out"}},
      {"tir_mobilenet_v3_block",
       {"aten::convolution.out", "aten::_native_batch_norm_legit_no_training.out",
        "dim_order_ops::_to_dim_order_copy.out", "aten::add.out", "aten::clamp.out", "aten::mul.out",
        "aten::div.out", "aten::relu.out", "aten::mean.out", "aten::permute_copy.out", "aten::addmm.out",
        "dim_order_ops::_clone_dim_order.out"}},
      {"tir_resnet_block",
       {"aten::convolution.out", "aten::_native_batch_norm_legit_no_training.out", "aten::relu.out",
        "aten::max_pool2d_with_indices.out", "aten::add.out", "aten::mean.out", "aten::permute_copy.out",
        "aten::addmm.out"}},
      {"tir_rnn_ops",
       {"aten::squeeze_copy.dims_out", "aten::permute_copy.out", "aten::unsqueeze_copy.out",
        "aten::addmm.out", "aten::slice_copy.Tensor_out", "aten::add.out", "aten::split_with_sizes_copy.out",
        "aten::sigmoid.out", "aten::tanh.out", "aten::mul.out", "aten::cat.out", "aten::view_copy.out",
        "aten::sub.out", "aten::flip.out"}},
      {"tir_vit_block",
       {"aten::convolution.out",
        "aten::permute_copy.out",
        "aten::expand_copy.out",
        "aten::cat.out",
        "aten::add.out",
        "aten::native_layer_norm.out",
        "aten::addmm.out",
        "aten::slice_copy.Tensor_out",
        "aten::squeeze_copy.dims_out",
        "aten::mul.Scalar_out",
        "aten::bmm.out",
        "aten::_softmax.out",
        "aten::eq.Scalar_out",
        "aten::logical_not.out",
        "aten::any.out",
        "aten::full_like.out",
        "aten::where.self_out",
        "dim_order_ops::_clone_dim_order.out",
        "aten::gelu.out",
        "aten::select_copy.int_out"}},
  };
  return table;
}

OpList operator_names(const emit::ExecutionPlan& plan) {
  OpList out;
  for (const emit::Operator& op : plan.operators) out.push_back(emit::operator_qualified_name(op));
  return out;
}

std::string joined(const OpList& ops) {
  std::string out;
  for (const auto& s : ops) out += "    \"" + s + "\",\n";
  return out;
}

}  // namespace

TEST_CASE("tir fixtures: each converts, operators are exactly the golden out variants, all in the portable runtime") {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(test_path("fixtures/tir"))) {
    if (e.is_directory()) dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  REQUIRE(dirs.size() == expected_operators().size());
  for (const fs::path& d : dirs) {
    const std::string name = d.filename().string();
    CAPTURE(name);
    auto c = convert_path(d.string());
    REQUIRE_MESSAGE(c.ok(), c.error().to_string());
    REQUIRE(c->decoded.program.execution_plan.size() == 1);
    const emit::ExecutionPlan& plan = c->decoded.program.execution_plan[0];
    CHECK(plan.name == "forward");
    const OpList got = operator_names(plan);
    auto it = expected_operators().find(name);
    REQUIRE_MESSAGE(it != expected_operators().end(), "no golden for " << name << ", got:\n" << joined(got));
    CHECK_MESSAGE(got == it->second, "got:\n" << joined(got));
    for (const std::string& op : got) {
      CAPTURE(op);
      const ops::OpSchema* s = ops::op_table().find(op);
      REQUIRE(s != nullptr);
      const bool prim = ops::op_table().has_kernel(*s, ops::KernelLibrary::Prim);
      const bool write_back = op == "aten::copy_" && name == "tir_llama_decoder";
      CHECK((s->is_out_variant() || prim || write_back));
      CHECK(ops::op_table().runtime_op(*s) == s);
    }
  }
}
