// One test per decomposition rule: a graph with the op, the exact node list after
// the pass, and the dtype/shape of every node (typed printer form).
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "decompose_test_util.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::expect_decomposed;
using pteforge::testing::Out;
using pteforge::testing::ProgramBuilder;

namespace {
constexpr ScalarType F = ScalarType::Float;
}

// ---- linear / matmul ---------------------------------------------------------------------------

TEST_CASE("decompose linear: 2-d input with bias -> permute + addmm") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", F, {3, 4});
  auto bias = b.parameter("p_b", "b", F, {3});
  auto x = b.input("x", F, {2, 4});
  b.output(b.call("aten.linear.default", {arg_tensor(x), arg_tensor(w), arg_tensor(bias)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%p_w: float32[3, 4], %p_b: float32[3], %x: float32[2, 4]):\n"
                    "  %permute: float32[4, 3] = aten.permute.default(%p_w, [1, 0])\n"
                    "  %addmm: float32[2, 3] = aten.addmm.default(%p_b, %x, %permute)\n"
                    "  return (%addmm)\n");
  // permute is a view: strides swapped.
  const TensorMeta* pm = ep.graph().tensor_meta("permute");
  REQUIRE(pm);
  CHECK(pm->concrete_strides() == std::vector<int64_t>{1, 4});
}

TEST_CASE("decompose linear: 3-d contiguous input -> view + permute + addmm + view") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", F, {6, 8});
  auto bias = b.parameter("p_b", "b", F, {6});
  auto x = b.input("x", F, {2, 5, 8});
  b.output(b.call("aten.linear.default", {arg_tensor(x), arg_tensor(w), arg_tensor(bias)}, {F, {2, 5, 6}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%p_w: float32[6, 8], %p_b: float32[6], %x: float32[2, 5, 8]):\n"
                    "  %view: float32[10, 8] = aten.view.default(%x, [10, 8])\n"
                    "  %permute: float32[8, 6] = aten.permute.default(%p_w, [1, 0])\n"
                    "  %addmm: float32[10, 6] = aten.addmm.default(%p_b, %view, %permute)\n"
                    "  %view_1: float32[2, 5, 6] = aten.view.default(%addmm, [2, 5, 6])\n"
                    "  return (%view_1)\n");
}

TEST_CASE("decompose linear: no bias, 3-d input -> permute + matmul folded into view + mm + view") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", F, {6, 8});
  auto x = b.input("x", F, {2, 5, 8});
  b.output(b.call("aten.linear.default", {arg_tensor(x), arg_tensor(w)}, {F, {2, 5, 6}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%p_w: float32[6, 8], %x: float32[2, 5, 8]):\n"
                    "  %permute: float32[8, 6] = aten.permute.default(%p_w, [1, 0])\n"
                    "  %view: float32[10, 8] = aten.view.default(%x, [10, 8])\n"
                    "  %mm: float32[10, 6] = aten.mm.default(%view, %permute)\n"
                    "  %view_1: float32[2, 5, 6] = aten.view.default(%mm, [2, 5, 6])\n"
                    "  return (%view_1)\n");
}

TEST_CASE("decompose linear: no bias, 2-d input -> permute + mm") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", F, {6, 8});
  auto x = b.input("x", F, {3, 8});
  b.output(b.call("aten.linear.default", {arg_tensor(x), arg_tensor(w)}, {F, {3, 6}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%p_w: float32[6, 8], %x: float32[3, 8]):\n"
                    "  %permute: float32[8, 6] = aten.permute.default(%p_w, [1, 0])\n"
                    "  %mm: float32[3, 6] = aten.mm.default(%x, %permute)\n"
                    "  return (%mm)\n");
}

TEST_CASE("decompose matmul: rank cases") {
  SUBCASE("2-d x 2-d -> mm") {
    ProgramBuilder b;
    auto x = b.input("x", F, {3, 4});
    auto y = b.input("y", F, {4, 5});
    b.output(b.call("aten.matmul.default", {arg_tensor(x), arg_tensor(y)}, {F, {3, 5}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%x: float32[3, 4], %y: float32[4, 5]):\n"
                      "  %mm: float32[3, 5] = aten.mm.default(%x, %y)\n"
                      "  return (%mm)\n");
  }
  SUBCASE("1-d x 1-d -> dot -> mul + sum") {
    ProgramBuilder b;
    auto x = b.input("x", F, {4});
    auto y = b.input("y", F, {4});
    b.output(b.call("aten.matmul.default", {arg_tensor(x), arg_tensor(y)}, {F, {}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%x: float32[4], %y: float32[4]):\n"
                      "  %mul: float32[4] = aten.mul.Tensor(%x, %y)\n"
                      "  %sum_1: float32[] = aten.sum.dim_IntList(%mul, [])\n"
                      "  return (%sum_1)\n");
  }
  SUBCASE("2-d x 1-d -> mv -> mul + sum(dim 1)") {
    ProgramBuilder b;
    auto x = b.input("x", F, {3, 4});
    auto y = b.input("y", F, {4});
    b.output(b.call("aten.matmul.default", {arg_tensor(x), arg_tensor(y)}, {F, {3}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%x: float32[3, 4], %y: float32[4]):\n"
                      "  %mul: float32[3, 4] = aten.mul.Tensor(%x, %y)\n"
                      "  %sum_1: float32[3] = aten.sum.dim_IntList(%mul, [1])\n"
                      "  return (%sum_1)\n");
  }
  SUBCASE("1-d x 2-d -> unsqueeze + mm + squeeze") {
    ProgramBuilder b;
    auto x = b.input("x", F, {4});
    auto y = b.input("y", F, {4, 5});
    b.output(b.call("aten.matmul.default", {arg_tensor(x), arg_tensor(y)}, {F, {5}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%x: float32[4], %y: float32[4, 5]):\n"
                      "  %unsqueeze: float32[1, 4] = aten.unsqueeze.default(%x, 0)\n"
                      "  %mm: float32[1, 5] = aten.mm.default(%unsqueeze, %y)\n"
                      "  %squeeze: float32[5] = aten.squeeze.dims(%mm, [0])\n"
                      "  return (%squeeze)\n");
  }
  SUBCASE("3-d x 2-d (contiguous) folds into view + mm + view") {
    ProgramBuilder b;
    auto x = b.input("x", F, {2, 3, 4});
    auto y = b.input("y", F, {4, 5});
    b.output(b.call("aten.matmul.default", {arg_tensor(x), arg_tensor(y)}, {F, {2, 3, 5}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%x: float32[2, 3, 4], %y: float32[4, 5]):\n"
                      "  %view: float32[6, 4] = aten.view.default(%x, [6, 4])\n"
                      "  %mm: float32[6, 5] = aten.mm.default(%view, %y)\n"
                      "  %view_1: float32[2, 3, 5] = aten.view.default(%mm, [2, 3, 5])\n"
                      "  return (%view_1)\n");
  }
  SUBCASE("4-d x 4-d -> expand + view + bmm + view") {
    ProgramBuilder b;
    auto x = b.input("x", F, {2, 3, 4, 5});
    auto y = b.input("y", F, {2, 3, 5, 6});
    b.output(b.call("aten.matmul.default", {arg_tensor(x), arg_tensor(y)}, {F, {2, 3, 4, 6}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%x: float32[2, 3, 4, 5], %y: float32[2, 3, 5, 6]):\n"
                      "  %expand: float32[2, 3, 4, 5] = aten.expand.default(%x, [2, 3, 4, 5])\n"
                      "  %view: float32[6, 4, 5] = aten.view.default(%expand, [6, 4, 5])\n"
                      "  %expand_1: float32[2, 3, 5, 6] = aten.expand.default(%y, [2, 3, 5, 6])\n"
                      "  %view_1: float32[6, 5, 6] = aten.view.default(%expand_1, [6, 5, 6])\n"
                      "  %bmm: float32[6, 4, 6] = aten.bmm.default(%view, %view_1)\n"
                      "  %view_2: float32[2, 3, 4, 6] = aten.view.default(%bmm, [2, 3, 4, 6])\n"
                      "  return (%view_2)\n");
  }
  SUBCASE("broadcast batch: a broadcast operand is cloned before the reshape") {
    ProgramBuilder b;
    auto x = b.input("x", F, {2, 4, 5});
    auto y = b.input("y", F, {3, 1, 5, 6});
    b.output(b.call("aten.matmul.default", {arg_tensor(x), arg_tensor(y)}, {F, {3, 2, 4, 6}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%x: float32[2, 4, 5], %y: float32[3, 1, 5, 6]):\n"
                      "  %expand: float32[3, 2, 4, 5] = aten.expand.default(%x, [3, 2, 4, 5])\n"
                      "  %clone: float32[3, 2, 4, 5] = aten.clone.default(%expand, "
                      "memory_format=torch.contiguous_format)\n"
                      "  %view: float32[6, 4, 5] = aten.view.default(%clone, [6, 4, 5])\n"
                      "  %expand_1: float32[3, 2, 5, 6] = aten.expand.default(%y, [3, 2, 5, 6])\n"
                      "  %clone_1: float32[3, 2, 5, 6] = aten.clone.default(%expand_1, "
                      "memory_format=torch.contiguous_format)\n"
                      "  %view_1: float32[6, 5, 6] = aten.view.default(%clone_1, [6, 5, 6])\n"
                      "  %bmm: float32[6, 4, 6] = aten.bmm.default(%view, %view_1)\n"
                      "  %view_2: float32[3, 2, 4, 6] = aten.view.default(%bmm, [3, 2, 4, 6])\n"
                      "  return (%view_2)\n");
    const TensorMeta* e = ep.graph().tensor_meta("expand");
    REQUIRE(e);
    CHECK(e->concrete_strides() == std::vector<int64_t>{0, 20, 5, 1});
  }
}

TEST_CASE("decompose t / transpose.int -> permute") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 4});
  auto y = b.input("y", F, {5, 6});
  auto tr = b.call("aten.transpose.int", {arg_tensor(x), arg_int(-1), arg_int(0)}, {F, {4, 3, 2}});
  auto tt = b.call("aten.t.default", {arg_tensor(y)}, {F, {6, 5}});
  b.output(tr);
  b.output(tt);
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3, 4], %y: float32[5, 6]):\n"
                    "  %permute: float32[4, 3, 2] = aten.permute.default(%x, [2, 1, 0])\n"
                    "  %permute_1: float32[6, 5] = aten.permute.default(%y, [1, 0])\n"
                    "  return (%permute, %permute_1)\n");
}

// ---- convolution -------------------------------------------------------------------------------

TEST_CASE("decompose conv2d -> convolution with all nine arguments") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", F, {4, 3, 3, 3});
  auto bias = b.parameter("p_b", "b", F, {4});
  auto x = b.input("x", F, {2, 3, 9, 9});
  b.output(b.call("aten.conv2d.default", {arg_tensor(x), arg_tensor(w), arg_tensor(bias), arg_ints({2, 2})},
                  {F, {2, 4, 4, 4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%p_w: float32[4, 3, 3, 3], %p_b: float32[4], %x: float32[2, 3, 9, 9]):\n"
                    "  %convolution: float32[2, 4, 4, 4] = aten.convolution.default(%x, %p_w, %p_b, [2, 2], "
                    "[0, 0], [1, 1], False, [0, 0], 1)\n"
                    "  return (%convolution)\n");
}

TEST_CASE("decompose conv1d / conv3d / depthwise / unbatched") {
  SUBCASE("conv1d without bias") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {4, 2, 3});
    auto x = b.input("x", F, {1, 2, 10});
    b.output(b.call("aten.conv1d.default", {arg_tensor(x), arg_tensor(w)}, {F, {1, 4, 8}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%p_w: float32[4, 2, 3], %x: float32[1, 2, 10]):\n"
                      "  %convolution: float32[1, 4, 8] = aten.convolution.default(%x, %p_w, None, [1], [0], [1], "
                      "False, [0], 1)\n"
                      "  return (%convolution)\n");
  }
  SUBCASE("conv3d with padding") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {2, 1, 3, 3, 3});
    auto x = b.input("x", F, {1, 1, 4, 4, 4});
    b.output(b.call("aten.conv3d.default",
                    {arg_tensor(x), arg_tensor(w), arg_none(), arg_ints({1, 1, 1}), arg_ints({1, 1, 1})},
                    {F, {1, 2, 4, 4, 4}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%p_w: float32[2, 1, 3, 3, 3], %x: float32[1, 1, 4, 4, 4]):\n"
                      "  %convolution: float32[1, 2, 4, 4, 4] = aten.convolution.default(%x, %p_w, None, [1, 1, 1], "
                      "[1, 1, 1], [1, 1, 1], False, [0, 0, 0], 1)\n"
                      "  return (%convolution)\n");
  }
  SUBCASE("depthwise conv2d (groups)") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {8, 1, 3, 3});
    auto x = b.input("x", F, {1, 8, 6, 6});
    b.output(b.call("aten.conv2d.default",
                    {arg_tensor(x), arg_tensor(w), arg_none(), arg_ints({1, 1}), arg_ints({1, 1}), arg_ints({1, 1}),
                     arg_int(8)},
                    {F, {1, 8, 6, 6}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%p_w: float32[8, 1, 3, 3], %x: float32[1, 8, 6, 6]):\n"
                      "  %convolution: float32[1, 8, 6, 6] = aten.convolution.default(%x, %p_w, None, [1, 1], [1, 1], "
                      "[1, 1], False, [0, 0], 8)\n"
                      "  return (%convolution)\n");
  }
  SUBCASE("unbatched conv2d: unsqueeze + convolution + squeeze") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {4, 3, 3, 3});
    auto x = b.input("x", F, {3, 5, 5});
    b.output(b.call("aten.conv2d.default", {arg_tensor(x), arg_tensor(w)}, {F, {4, 3, 3}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%p_w: float32[4, 3, 3, 3], %x: float32[3, 5, 5]):\n"
                      "  %unsqueeze: float32[1, 3, 5, 5] = aten.unsqueeze.default(%x, 0)\n"
                      "  %convolution: float32[1, 4, 3, 3] = aten.convolution.default(%unsqueeze, %p_w, None, [1, 1], "
                      "[0, 0], [1, 1], False, [0, 0], 1)\n"
                      "  %squeeze: float32[4, 3, 3] = aten.squeeze.dims(%convolution, [0])\n"
                      "  return (%squeeze)\n");
  }
}

TEST_CASE("decompose conv2d.padding 'same' and conv_transpose2d") {
  SUBCASE("same, odd kernel: symmetric padding") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {2, 3, 3, 3});
    auto x = b.input("x", F, {1, 3, 5, 5});
    b.output(b.call("aten.conv2d.padding",
                    {arg_tensor(x), arg_tensor(w), arg_none(), arg_ints({1, 1}), arg_string("same")},
                    {F, {1, 2, 5, 5}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%p_w: float32[2, 3, 3, 3], %x: float32[1, 3, 5, 5]):\n"
                      "  %convolution: float32[1, 2, 5, 5] = aten.convolution.default(%x, %p_w, None, [1, 1], [1, 1], "
                      "[1, 1], False, [0, 0], 1)\n"
                      "  return (%convolution)\n");
  }
  SUBCASE("same, even kernel: constant_pad_nd on the right first") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {2, 3, 2, 2});
    auto x = b.input("x", F, {1, 3, 5, 5});
    b.output(b.call("aten.conv2d.padding",
                    {arg_tensor(x), arg_tensor(w), arg_none(), arg_ints({1, 1}), arg_string("same")},
                    {F, {1, 2, 5, 5}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%p_w: float32[2, 3, 2, 2], %x: float32[1, 3, 5, 5]):\n"
                      "  %constant_pad_nd: float32[1, 3, 6, 6] = aten.constant_pad_nd.default(%x, [0, 1, 0, 1], 0.0)\n"
                      "  %convolution: float32[1, 2, 5, 5] = aten.convolution.default(%constant_pad_nd, %p_w, None, "
                      "[1, 1], [0, 0], [1, 1], False, [0, 0], 1)\n"
                      "  return (%convolution)\n");
  }
  SUBCASE("conv_transpose2d: transposed convolution") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {3, 2, 2, 2});
    auto x = b.input("x", F, {1, 3, 4, 4});
    b.output(b.call("aten.conv_transpose2d.input", {arg_tensor(x), arg_tensor(w), arg_none(), arg_ints({2, 2})},
                    {F, {1, 2, 8, 8}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%p_w: float32[3, 2, 2, 2], %x: float32[1, 3, 4, 4]):\n"
                      "  %convolution: float32[1, 2, 8, 8] = aten.convolution.default(%x, %p_w, None, [2, 2], [0, 0], "
                      "[1, 1], True, [0, 0], 1)\n"
                      "  return (%convolution)\n");
  }
}
