// Decomposition rules for mish, glu, logsumexp, std_mean, instance_norm, prelu,
// max_pool1d, adaptive_max_pool2d (and the ones after them): the exact node list
// after the pass, with the dtype/shape of every node (typed printer form), and
// the refused cases.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/program_builder.h"
#include "decompose_test_util.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::expect_decomposed;
using pteforge::testing::F;
using pteforge::testing::ProgramBuilder;

namespace {

constexpr ScalarType H = ScalarType::Half;

const std::string kMoreS0 = "Symbol('s0', integer=True, positive=True)";

SymInt sym_int(const std::string& expr, int64_t hint) {
  SymExpr e;
  e.expr_str = expr;
  e.hint = SymExprHint::of_int(hint);
  return SymInt(std::move(e));
}

/// A float32 meta with the given (possibly symbolic) sizes and strides.
TensorMeta sym_meta(std::vector<SymInt> sizes, std::vector<SymInt> strides) {
  TensorMeta m;
  m.dtype = F;
  m.sizes = std::move(sizes);
  m.strides = std::move(strides);
  m.storage_offset = SymInt(0);
  return m;
}

/// Runs decompose keeping `preserve` (ops another rule decomposes) and checks the typed graph.
void expect_decomposed_keeping(ExportedProgram& ep, const std::string& preserve, const std::string& want) {
  Status st = pteforge::testing::decompose(ep, {"torch.ops." + preserve});
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(pteforge::testing::typed(ep.graph()) == want);
}

/// Runs decompose expecting it to fail at `node` with `code` and a message containing `text`.
void expect_refused(ExportedProgram& ep, ErrorCode code, const std::string& node, const std::string& text) {
  Status st = pteforge::testing::decompose(ep);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == code);
  CHECK(st.error().where.node == std::optional<std::string>(node));
  CHECK_MESSAGE(st.error().message.find(text) != std::string::npos, st.error().message);
}

}  // namespace

// ---- activations -------------------------------------------------------------------------------

TEST_CASE("decompose mish -> softplus, tanh, mul (float16 computes in float32)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto h = b.input("h", H, {4});
  b.output(b.call("aten.mish.default", {arg_tensor(x)}, {F, {2, 3}}));
  b.output(b.call("aten.mish.default", {arg_tensor(h)}, {H, {4}}));
  ExportedProgram ep = b.build();
  expect_decomposed_keeping(ep, "aten.softplus.default",
                            "graph(%x: float32[2, 3], %h: float16[4]):\n"
                            "  %softplus: float32[2, 3] = aten.softplus.default(%x)\n"
                            "  %tanh: float32[2, 3] = aten.tanh.default(%softplus)\n"
                            "  %mul: float32[2, 3] = aten.mul.Tensor(%x, %tanh)\n"
                            "  %_to_copy: float32[4] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                            "  %softplus_1: float32[4] = aten.softplus.default(%_to_copy)\n"
                            "  %tanh_1: float32[4] = aten.tanh.default(%softplus_1)\n"
                            "  %mul_1: float32[4] = aten.mul.Tensor(%_to_copy, %tanh_1)\n"
                            "  %_to_copy_1: float16[4] = aten._to_copy.default(%mul_1, dtype=torch.float16)\n"
                            "  return (%mul, %_to_copy_1)\n");
}

TEST_CASE("decompose glu -> two slices (dim wrapped), sigmoid, mul (float16 in float32)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 6});
  auto h = b.input("h", H, {4, 3});
  b.output(b.call("aten.glu.default", {arg_tensor(x)}, {F, {2, 3}}));
  b.output(b.call("aten.glu.default", {arg_tensor(h), arg_int(0)}, {H, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 6], %h: float16[4, 3]):\n"
                    "  %slice_1: float32[2, 3] = aten.slice.Tensor(%x, 1, 0, 3)\n"
                    "  %slice_2: float32[2, 3] = aten.slice.Tensor(%x, 1, 3, 6)\n"
                    "  %sigmoid: float32[2, 3] = aten.sigmoid.default(%slice_2)\n"
                    "  %mul: float32[2, 3] = aten.mul.Tensor(%slice_1, %sigmoid)\n"
                    "  %_to_copy: float32[4, 3] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %slice_3: float32[2, 3] = aten.slice.Tensor(%_to_copy, 0, 0, 2)\n"
                    "  %slice_4: float32[2, 3] = aten.slice.Tensor(%_to_copy, 0, 2, 4)\n"
                    "  %sigmoid_1: float32[2, 3] = aten.sigmoid.default(%slice_4)\n"
                    "  %mul_1: float32[2, 3] = aten.mul.Tensor(%slice_3, %sigmoid_1)\n"
                    "  %_to_copy_1: float16[2, 3] = aten._to_copy.default(%mul_1, dtype=torch.float16)\n"
                    "  return (%mul, %_to_copy_1)\n");
}

TEST_CASE("decompose glu refuses an odd halving dimension") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 5});
  b.output(b.call("aten.glu.default", {arg_tensor(x)}, {F, {2, 2}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::INVALID_GRAPH, "glu", "must be even");
}

TEST_CASE("decompose glu refuses halving a dimension of symbolic size") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 4});
  b.output(b.call("aten.glu.default", {arg_tensor(x)}, {F, {2, 2}}));
  ExportedProgram& p = b.program();
  SymInt s0 = sym_int(kMoreS0, 4);
  p.graph().set_tensor_meta("x", sym_meta({SymInt(2), s0}, {s0, SymInt(1)}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "glu", "symbolic size");
}
