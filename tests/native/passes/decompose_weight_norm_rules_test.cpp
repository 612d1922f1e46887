// Decomposition rules for _weight_norm (at::native::_weight_norm's fused path) and
// _weight_norm_interface (torch._decomp): the exact node list after the pass, the bfloat16 norm
// dtype, both outputs of the interface, and the refused unfused path.
#include <doctest/doctest.h>

#include <string>

#include "common/program_builder.h"
#include "decompose_test_util.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::expect_decomposed;
using pteforge::testing::expect_refused;
using pteforge::testing::F;
using pteforge::testing::ProgramBuilder;

TEST_CASE("decompose _weight_norm (dim 0) -> _weight_norm_interface -> pow, sum, pow, div, mul") {
  ProgramBuilder b;
  auto v = b.parameter("p_v", "conv.weight_v", F, {4, 3, 2});
  auto g = b.parameter("p_g", "conv.weight_g", F, {4, 1, 1});
  b.output(b.call("aten._weight_norm.default", {arg_tensor(v), arg_tensor(g)}, {F, {4, 3, 2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%p_v: float32[4, 3, 2], %p_g: float32[4, 1, 1]):\n"
                    "  %pow_1: float32[4, 3, 2] = aten.pow.Tensor_Scalar(%p_v, 2)\n"
                    "  %sum_1: float32[4, 1, 1] = aten.sum.dim_IntList(%pow_1, [1, 2], True)\n"
                    "  %pow_2: float32[4, 1, 1] = aten.pow.Tensor_Scalar(%sum_1, 0.5)\n"
                    "  %div: float32[4, 1, 1] = aten.div.Tensor(%p_g, %pow_2)\n"
                    "  %mul: float32[4, 3, 2] = aten.mul.Tensor(%p_v, %div)\n"
                    "  return (%mul)\n");
}

TEST_CASE("decompose _weight_norm_interface: both outputs, the norm in float32 for a bfloat16 g") {
  ProgramBuilder b;
  auto v = b.input("v", ScalarType::BFloat16, {2, 3});
  auto g = b.input("g", ScalarType::BFloat16, {1, 3});
  auto outs = b.call_multi("aten._weight_norm_interface.default", {arg_tensor(v), arg_tensor(g), arg_int(1)},
                           {{ScalarType::BFloat16, {2, 3}}, {F, {1, 3}}}, {"w", "norm"});
  b.output(outs[0]);
  b.output(outs[1]);
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  const std::string got = pteforge::testing::typed(ep.graph());
  // The norm over dim 0 is computed and returned in float32, cast to bfloat16 for the division.
  CHECK(got.find("float32[1, 3] = aten.sum.dim_IntList(") != std::string::npos);
  CHECK(got.find("bfloat16[1, 3] = aten._to_copy.default(") != std::string::npos);
  CHECK(got.find("bfloat16[2, 3] = aten.mul.Tensor(%v, ") != std::string::npos);
  CHECK(ep.graph().tensor_meta(ep.graph().outputs()[1].tensor_name())->dtype == ScalarType::Float);
  CHECK(pteforge::testing::non_core_ops(ep.graph()).empty());
}

TEST_CASE("decompose _weight_norm refuses the unfused path (a middle dim, float16)") {
  {
    ProgramBuilder b;
    auto v = b.input("v", F, {4, 3, 2});
    auto g = b.input("g", F, {1, 3, 1});
    b.output(b.call("aten._weight_norm.default", {arg_tensor(v), arg_tensor(g), arg_int(1)}, {F, {4, 3, 2}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "_weight_norm", "dim 1 (only 0 and the last");
  }
  {
    ProgramBuilder b;
    auto v = b.input("v", ScalarType::Half, {4, 3});
    auto g = b.input("g", ScalarType::Half, {4, 1});
    b.output(b.call("aten._weight_norm.default", {arg_tensor(v), arg_tensor(g)}, {ScalarType::Half, {4, 3}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "_weight_norm", "float16 operands");
  }
}
