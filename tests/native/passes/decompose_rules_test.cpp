// One test per decomposition rule: a graph with the op, the exact node list after
// the pass, and the dtype/shape of every node (typed printer form).
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>

#include "common/program_builder.h"
#include "decompose_test_util.h"
#include "passes/decompositions/table.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::expect_decomposed;
using pteforge::testing::Out;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::F;

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

TEST_CASE("decompose: convolution and pooling shapes out of range are errors, never int64 overflow") {
  auto refused = [](ExportedProgram ep) {
    Status st = pteforge::testing::decompose(ep);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == ErrorCode::INVALID_GRAPH);
    CHECK(st.error().where.pass == std::optional<std::string>("decompose"));
    return st.error().message;
  };
  SUBCASE("a kernel larger than the padded input") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {2, 3, 5, 5});
    auto x = b.input("x", F, {1, 3, 4, 4});
    b.output(b.call("aten.conv2d.default", {arg_tensor(x), arg_tensor(w)}, {F, {1, 2, 1, 1}}));
    CHECK(refused(b.build()) == "node \"conv2d\" (aten.conv2d.default): aten::convolution: the window (kernel "
                                "size 5, dilation 1) is larger than the padded input size 4 + 2*0");
  }
  // conv_transpose2d of x (3 channels) with a 3x2x2x2 weight and the given stride and output_padding.
  auto transposed = [](std::vector<int64_t> x_sizes, std::vector<int64_t> stride, std::vector<int64_t> out_pad) {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {3, 2, 2, 2});
    auto x = b.input("x", F, x_sizes);
    b.output(b.call("aten.conv_transpose2d.input",
                    {arg_tensor(x), arg_tensor(w), arg_none(), arg_ints(stride), arg_ints({0, 0}), arg_ints(out_pad)},
                    {F, {1, 2, 8, 8}}));
    return b.build();
  };
  const std::string at_transposed = "node \"conv_transpose2d\" (aten.conv_transpose2d.input): aten::convolution: ";
  SUBCASE("a transposed convolution whose output size passes int64") {
    // Height 2^60: the input's own strides (3 * 2^60, ...) still fit int64; (2^60 - 1) * 16 does not.
    CHECK(refused(transposed({1, 3, int64_t{1} << 60, 1}, {16, 16}, {0, 0})) ==
          at_transposed + "calculated output size for input size 1152921504606846976 is past int64");
  }
  SUBCASE("a negative output_padding") {
    CHECK(refused(transposed({1, 3, 4, 4}, {2, 2}, {std::numeric_limits<int64_t>::min(), 0})) ==
          at_transposed + "output_padding must be non-negative");
  }
  SUBCASE("an output_padding not smaller than the stride or the dilation") {
    CHECK(refused(transposed({1, 3, 4, 4}, {2, 2}, {2, 0})) ==
          at_transposed + "output_padding 2 must be smaller than the stride (2) or the dilation (1)");
  }
  SUBCASE("a pooling window larger than the input") {
    ProgramBuilder b;
    auto x = b.input("x", F, {1, 3, 2, 2});
    b.output(b.call("aten.max_pool2d.default", {arg_tensor(x), arg_ints({3, 3})}, {F, {1, 3, 1, 1}}));
    CHECK(refused(b.build()) == "node \"max_pool2d\" (aten.max_pool2d.default): aten::max_pool2d_with_indices: "
                                "calculated output size 0 for input size 2 is too small (it must be at least 1)");
  }
}

TEST_CASE("decompose: ceil-mode pooling keeps a last window that overhangs the input (PyTorch's output size)") {
  // PyTorch: max_pool2d(zeros(1, 1, 2, 2), 3, stride=2, ceil_mode=True) has shape [1, 1, 1, 1];
  // a 1-high map with kernel 2, stride 2 gives height 1.
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 1, 2, 1});
  b.output(b.call("aten.max_pool2d.default",
                  {arg_tensor(x), arg_ints({3, 2}), arg_ints({2, 2}), arg_ints({0, 0}), arg_ints({1, 1}),
                   arg_bool(true)},
                  {F, {1, 1, 1, 1}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  REQUIRE_MESSAGE(st.ok(), st.error().to_string());
  const ir::Node* pool = ep.graph().find_node("max_pool2d_with_indices");
  REQUIRE(pool != nullptr);
  const ir::TensorMeta* m = ep.graph().tensor_meta(*pool->output_names().begin());
  REQUIRE(m != nullptr);
  CHECK(m->concrete_sizes() == std::optional<std::vector<int64_t>>({1, 1, 1, 1}));
}

// ---- normalization -----------------------------------------------------------------------------

TEST_CASE("decompose batch_norm (eval) -> _native_batch_norm_legit_no_training + getitem 0") {
  ProgramBuilder b;
  auto g = b.parameter("p_g", "bn.weight", F, {4});
  auto bb = b.parameter("p_b", "bn.bias", F, {4});
  auto rm = b.buffer("b_rm", "bn.running_mean", F, {4});
  auto rv = b.buffer("b_rv", "bn.running_var", F, {4});
  auto x = b.input("x", F, {2, 4, 3, 3});
  b.output(b.call("aten.batch_norm.default",
                  {arg_tensor(x), arg_tensor(g), arg_tensor(bb), arg_tensor(rm), arg_tensor(rv), arg_bool(false),
                   arg_float(0.1), arg_float(1e-5), arg_bool(true)},
                  {F, {2, 4, 3, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%p_g: float32[4], %p_b: float32[4], %b_rm: float32[4], %b_rv: float32[4], "
                    "%x: float32[2, 4, 3, 3]):\n"
                    "  %getitem: float32[2, 4, 3, 3], %_native_batch_norm_legit_no_training_unused_1: float32[0], "
                    "%_native_batch_norm_legit_no_training_unused_2: float32[0] = "
                    "aten._native_batch_norm_legit_no_training.default(%x, %p_g, %p_b, %b_rm, %b_rv, 0.1, 1e-05)"
                    "  # _native_batch_norm_legit_no_training\n"
                    "  return (%getitem)\n");
}

TEST_CASE("decompose batch_norm in training mode is refused with a clear error") {
  ProgramBuilder b;
  auto rm = b.buffer("b_rm", "bn.running_mean", F, {4});
  auto rv = b.buffer("b_rv", "bn.running_var", F, {4});
  auto x = b.input("x", F, {2, 4});
  b.output(b.call("aten.batch_norm.default",
                  {arg_tensor(x), arg_none(), arg_none(), arg_tensor(rm), arg_tensor(rv), arg_bool(true),
                   arg_float(0.1), arg_float(1e-5), arg_bool(true)},
                  {F, {2, 4}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(st.error().where.node == std::optional<std::string>("batch_norm"));
  CHECK(st.error().where.pass == std::optional<std::string>("decompose"));
  CHECK(st.error().message.find("model.eval()") != std::string::npos);
}

TEST_CASE("decompose layer_norm -> native_layer_norm + getitem 0") {
  ProgramBuilder b;
  auto g = b.parameter("p_g", "ln.weight", F, {8});
  auto bb = b.parameter("p_b", "ln.bias", F, {8});
  auto x = b.input("x", F, {2, 5, 8});
  b.output(b.call("aten.layer_norm.default", {arg_tensor(x), arg_ints({8}), arg_tensor(g), arg_tensor(bb)},
                  {F, {2, 5, 8}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%p_g: float32[8], %p_b: float32[8], %x: float32[2, 5, 8]):\n"
                    "  %getitem: float32[2, 5, 8], %native_layer_norm_unused_1: float32[2, 5, 1], "
                    "%native_layer_norm_unused_2: float32[2, 5, 1] = aten.native_layer_norm.default(%x, [8], %p_g, "
                    "%p_b, 1e-05)  # native_layer_norm\n"
                    "  return (%getitem)\n");
}

TEST_CASE("decompose group_norm -> native_group_norm(N, C, HxW, groups) + getitem 0") {
  ProgramBuilder b;
  auto g = b.parameter("p_g", "gn.weight", F, {6});
  auto bb = b.parameter("p_b", "gn.bias", F, {6});
  auto x = b.input("x", F, {2, 6, 4, 5});
  b.output(b.call("aten.group_norm.default", {arg_tensor(x), arg_int(3), arg_tensor(g), arg_tensor(bb)},
                  {F, {2, 6, 4, 5}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%p_g: float32[6], %p_b: float32[6], %x: float32[2, 6, 4, 5]):\n"
                    "  %getitem: float32[2, 6, 4, 5], %native_group_norm_unused_1: float32[2, 3], "
                    "%native_group_norm_unused_2: float32[2, 3] = aten.native_group_norm.default(%x, %p_g, %p_b, 2, 6, "
                    "20, 3, 1e-05)  # native_group_norm\n"
                    "  return (%getitem)\n");
}

TEST_CASE("decompose rms_norm -> pow, mean.dim, add.Scalar, rsqrt, mul, mul") {
  ProgramBuilder b;
  auto g = b.parameter("p_g", "norm.weight", F, {8});
  auto x = b.input("x", F, {2, 3, 8});
  auto y = b.input("y", F, {2, 8});
  b.output(b.call("aten.rms_norm.default", {arg_tensor(x), arg_ints({8}), arg_tensor(g), arg_float(1e-6)},
                  {F, {2, 3, 8}}));
  // eps None: float32 machine epsilon; no weight: no second mul.
  b.output(b.call("aten.rms_norm.default", {arg_tensor(y), arg_ints({8})}, {F, {2, 8}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    std::string("graph(%p_g: float32[8], %x: float32[2, 3, 8], %y: float32[2, 8]):\n"
                    "  %pow_1: float32[2, 3, 8] = aten.pow.Tensor_Scalar(%x, 2)\n"
                    "  %mean: float32[2, 3, 1] = aten.mean.dim(%pow_1, [2], True)\n"
                    "  %add: float32[2, 3, 1] = aten.add.Scalar(%mean, 1e-06)\n"
                    "  %rsqrt: float32[2, 3, 1] = aten.rsqrt.default(%add)\n"
                    "  %mul: float32[2, 3, 8] = aten.mul.Tensor(%x, %rsqrt)\n"
                    "  %mul_1: float32[2, 3, 8] = aten.mul.Tensor(%mul, %p_g)\n"
                    "  %pow_2: float32[2, 8] = aten.pow.Tensor_Scalar(%y, 2)\n"
                    "  %mean_1: float32[2, 1] = aten.mean.dim(%pow_2, [1], True)\n"
                    // 2^-23 = torch.finfo(torch.float32).eps, in the printer's float spelling.
                    "  %add_1: float32[2, 1] = aten.add.Scalar(%mean_1, ") +
                        print_argument(arg_float(1.1920928955078125e-07)) + ")\n"
                    "  %rsqrt_1: float32[2, 1] = aten.rsqrt.default(%add_1)\n"
                    "  %mul_2: float32[2, 8] = aten.mul.Tensor(%y, %rsqrt_1)\n"
                    "  return (%mul_1, %mul_2)\n");
  const Node* add1 = ep.graph().find_node("add_1");
  REQUIRE(add1);
  REQUIRE(add1->input("other"));
  CHECK(add1->input("other")->get<ArgTag::Float>() == 1.1920928955078125e-07);
}

// ---- activations, softmax, dropout -------------------------------------------------------------

TEST_CASE("decompose silu, hardswish, hardsigmoid, relu6") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  b.output(b.call("aten.silu.default", {arg_tensor(x)}, {F, {2, 3}}));
  b.output(b.call("aten.hardswish.default", {arg_tensor(x)}, {F, {2, 3}}));
  b.output(b.call("aten.hardsigmoid.default", {arg_tensor(x)}, {F, {2, 3}}));
  b.output(b.call("aten.relu6.default", {arg_tensor(x)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3]):\n"
                    "  %sigmoid: float32[2, 3] = aten.sigmoid.default(%x)\n"
                    "  %mul: float32[2, 3] = aten.mul.Tensor(%x, %sigmoid)\n"
                    "  %add: float32[2, 3] = aten.add.Tensor(%x, 3)\n"
                    "  %clamp: float32[2, 3] = aten.clamp.default(%add, 0)\n"
                    "  %clamp_1: float32[2, 3] = aten.clamp.default(%clamp, None, 6)\n"
                    "  %mul_1: float32[2, 3] = aten.mul.Tensor(%x, %clamp_1)\n"
                    "  %div: float32[2, 3] = aten.div.Tensor(%mul_1, 6)\n"
                    "  %add_1: float32[2, 3] = aten.add.Tensor(%x, 3)\n"
                    "  %clamp_2: float32[2, 3] = aten.clamp.default(%add_1, 0)\n"
                    "  %clamp_3: float32[2, 3] = aten.clamp.default(%clamp_2, None, 6)\n"
                    "  %div_1: float32[2, 3] = aten.div.Tensor(%clamp_3, 6)\n"
                    "  %hardtanh: float32[2, 3] = aten.hardtanh.default(%x, 0, 6)\n"
                    "  return (%mul, %div, %div_1, %hardtanh)\n");
}

TEST_CASE("decompose hardswish on float16 computes in float32 (pw_cast_for_opmath)") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Half, {4});
  b.output(b.call("aten.hardsigmoid.default", {arg_tensor(x)}, {ScalarType::Half, {4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float16[4]):\n"
                    "  %_to_copy: float32[4] = aten._to_copy.default(%x, dtype=torch.float32)\n"
                    "  %add: float32[4] = aten.add.Tensor(%_to_copy, 3)\n"
                    "  %clamp: float32[4] = aten.clamp.default(%add, 0)\n"
                    "  %clamp_1: float32[4] = aten.clamp.default(%clamp, None, 6)\n"
                    "  %div: float32[4] = aten.div.Tensor(%clamp_1, 6)\n"
                    "  %_to_copy_1: float16[4] = aten._to_copy.default(%div, dtype=torch.float16)\n"
                    "  return (%_to_copy_1)\n");
}

TEST_CASE("decompose softmax.int / log_softmax.int / _safe_softmax") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 5});
  b.output(b.call("aten.softmax.int", {arg_tensor(x), arg_int(-1)}, {F, {2, 5}}));
  b.output(b.call("aten.log_softmax.int", {arg_tensor(x), arg_int(1), arg_dtype(ScalarType::Double)},
                  {ScalarType::Double, {2, 5}}));
  b.output(b.call("aten._safe_softmax.default", {arg_tensor(x), arg_int(-1)}, {F, {2, 5}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 5]):\n"
                    "  %_softmax: float32[2, 5] = aten._softmax.default(%x, -1, False)\n"
                    "  %_to_copy: float64[2, 5] = aten._to_copy.default(%x, dtype=torch.float64)\n"
                    "  %_log_softmax: float64[2, 5] = aten._log_softmax.default(%_to_copy, 1, False)\n"
                    "  %_softmax_1: float32[2, 5] = aten._softmax.default(%x, -1, False)\n"
                    "  %eq: bool[2, 5] = aten.eq.Scalar(%x, -inf)\n"
                    "  %logical_not: bool[2, 5] = aten.logical_not.default(%eq)\n"
                    "  %any_1: bool[2, 1] = aten.any.dim(%logical_not, -1, True)\n"
                    "  %logical_not_1: bool[2, 1] = aten.logical_not.default(%any_1)\n"
                    "  %full_like: float32[2, 5] = aten.full_like.default(%_softmax_1, 0, pin_memory=False, "
                    "memory_format=torch.preserve_format)\n"
                    "  %where: float32[2, 5] = aten.where.self(%logical_not_1, %full_like, %_softmax_1)\n"
                    "  return (%_softmax, %_log_softmax, %where)\n");
}

TEST_CASE("decompose dropout: eval -> clone, train -> native_dropout + getitem 0") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3, 4});
  b.output(b.call("aten.dropout.default", {arg_tensor(x), arg_float(0.2), arg_bool(false)}, {F, {3, 4}}));
  b.output(b.call("aten.dropout.default", {arg_tensor(x), arg_float(0.5), arg_bool(true)}, {F, {3, 4}}));
  b.output(b.call("aten.feature_dropout.default", {arg_tensor(x), arg_float(0.5), arg_bool(false)}, {F, {3, 4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3, 4]):\n"
                    "  %clone: float32[3, 4] = aten.clone.default(%x)\n"
                    "  %getitem: float32[3, 4], %native_dropout_unused_1: bool[3, 4] = "
                    "aten.native_dropout.default(%x, 0.5, True)  # native_dropout\n"
                    "  return (%clone, %getitem, %x)\n");
}

// ---- pooling -----------------------------------------------------------------------------------

TEST_CASE("decompose adaptive_avg_pool2d: (1, 1) -> mean.dim, otherwise _adaptive_avg_pool2d") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 8, 8});
  b.output(b.call("aten.adaptive_avg_pool2d.default", {arg_tensor(x), arg_ints({1, 1})}, {F, {2, 3, 1, 1}}));
  b.output(b.call("aten.adaptive_avg_pool2d.default", {arg_tensor(x), arg_ints({2, 4})}, {F, {2, 3, 2, 4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3, 8, 8]):\n"
                    "  %mean: float32[2, 3, 1, 1] = aten.mean.dim(%x, [-1, -2], True)\n"
                    "  %_adaptive_avg_pool2d: float32[2, 3, 2, 4] = aten._adaptive_avg_pool2d.default(%x, [2, 4])\n"
                    "  return (%mean, %_adaptive_avg_pool2d)\n");
}

TEST_CASE("decompose max_pool2d -> max_pool2d_with_indices + getitem 0 (defaults stripped)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 3, 8, 8});
  b.output(b.call("aten.max_pool2d.default", {arg_tensor(x), arg_ints({2, 2}), arg_ints({2, 2})}, {F, {1, 3, 4, 4}}));
  b.output(b.call("aten.max_pool2d.default",
                  {arg_tensor(x), arg_ints({3, 3}), arg_ints({2, 2}), arg_ints({1, 1}), arg_ints({1, 1}),
                   arg_bool(true)},
                  {F, {1, 3, 5, 5}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[1, 3, 8, 8]):\n"
                    "  %getitem: float32[1, 3, 4, 4], %max_pool2d_with_indices_unused_1: int64[1, 3, 4, 4] = "
                    "aten.max_pool2d_with_indices.default(%x, [2, 2], [2, 2])  # max_pool2d_with_indices\n"
                    "  %getitem_1: float32[1, 3, 5, 5], %max_pool2d_with_indices_1_unused_1: int64[1, 3, 5, 5] = "
                    "aten.max_pool2d_with_indices.default(%x, [3, 3], [2, 2], [1, 1], [1, 1], True)  "
                    "# max_pool2d_with_indices_1\n"
                    "  return (%getitem, %getitem_1)\n");
}

// ---- shape ops ---------------------------------------------------------------------------------

TEST_CASE("decompose flatten / reshape / view_as / unflatten / contiguous") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 4});
  auto y = b.input("y", F, {4, 6});
  auto fl = b.call("aten.flatten.using_ints", {arg_tensor(x), arg_int(1)}, {F, {2, 12}});
  auto same = b.call("aten.flatten.using_ints", {arg_tensor(x), arg_int(2), arg_int(-1)}, {F, {2, 3, 4}});
  auto rs = b.call("aten.reshape.default", {arg_tensor(x), arg_ints({-1, 4})}, {F, {6, 4}});
  auto va = b.call("aten.view_as.default", {arg_tensor(x), arg_tensor(y)}, {F, {4, 6}});
  auto uf = b.call("aten.unflatten.int", {arg_tensor(y), arg_int(1), arg_ints({2, -1})}, {F, {4, 2, 3}});
  auto ct = b.call("aten.contiguous.default", {arg_tensor(x)}, {F, {2, 3, 4}});
  for (const auto& o : {fl, same, rs, va, uf, ct}) b.output(o);
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3, 4], %y: float32[4, 6]):\n"
                    "  %view: float32[2, 12] = aten.view.default(%x, [2, 12])\n"
                    "  %view_1: float32[6, 4] = aten.view.default(%x, [6, 4])\n"
                    "  %view_2: float32[4, 6] = aten.view.default(%x, [4, 6])\n"
                    "  %view_3: float32[4, 2, 3] = aten.view.default(%y, [4, 2, 3])\n"
                    "  return (%view, %x, %view_1, %view_2, %view_3, %x)\n");
}

TEST_CASE("decompose reshape / contiguous of a transposed tensor -> clone(contiguous_format) (+ view)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 4});
  auto tr = b.call("aten.transpose.int", {arg_tensor(x), arg_int(1), arg_int(2)}, {F, {2, 4, 3}});
  auto rs = b.call("aten.reshape.default", {arg_tensor(tr), arg_ints({2, 12})}, {F, {2, 12}});
  auto ct = b.call("aten.contiguous.default", {arg_tensor(tr)}, {F, {2, 4, 3}});
  b.output(rs);
  b.output(ct);
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3, 4]):\n"
                    "  %permute: float32[2, 4, 3] = aten.permute.default(%x, [0, 2, 1])\n"
                    "  %clone: float32[2, 4, 3] = aten.clone.default(%permute, memory_format=torch.contiguous_format)\n"
                    "  %view: float32[2, 12] = aten.view.default(%clone, [2, 12])\n"
                    "  %clone_1: float32[2, 4, 3] = aten.clone.default(%permute, "
                    "memory_format=torch.contiguous_format)\n"
                    "  return (%view, %clone_1)\n");
  const TensorMeta* p = ep.graph().tensor_meta("permute");
  const TensorMeta* c = ep.graph().tensor_meta("clone");
  REQUIRE(p);
  REQUIRE(c);
  CHECK(p->concrete_strides() == std::vector<int64_t>{12, 1, 4});
  CHECK(c->concrete_strides() == std::vector<int64_t>{12, 3, 1});
}

TEST_CASE("decompose chunk of a zero-size dim: `chunks` empty pieces, as at::native::chunk") {
  ProgramBuilder b;
  auto x = b.input("x", F, {0, 4});
  ExportedProgram& ep0 = b.program();
  Node ch(
      OpTarget("torch.ops.aten.chunk.default"),
      {positional("self", arg_tensor(x)), positional("chunks", arg_int(3)), positional("dim", arg_int(0))},
      {arg_tensors({"c0", "c1", "c2"})}, "chunk");
  ep0.graph().append(std::move(ch));
  for (const char* n : {"c0", "c1", "c2"})
    ep0.graph().set_tensor_meta(n, pteforge::testing::make_meta({F, {0, 4}}));
  b.output("c2");
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[0, 4]):\n"
                    "  [%getitem: float32[0, 4], %getitem_1: float32[0, 4], %getitem_2: float32[0, 4]] = "
                    "aten.split_with_sizes.default(%x, [0, 0, 0])  # split_with_sizes\n"
                    "  return (%getitem_2)\n");
}

TEST_CASE("decompose chunk / split.Tensor -> split_with_sizes, unbind -> slices + squeeze.dims") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 10});
  ExportedProgram& ep0 = b.program();
  // chunk(x, 3, 1): pieces of ceil(10 / 3) = 4 -> [4, 4, 2].
  Node ch(OpTarget("torch.ops.aten.chunk.default"),
          {positional("self", arg_tensor(x)), positional("chunks", arg_int(3)), positional("dim", arg_int(1))},
          {arg_tensors({"c0", "c1", "c2"})}, "chunk");
  ep0.graph().append(std::move(ch));
  for (auto [n, w] : {std::pair<const char*, int64_t>{"c0", 4}, {"c1", 4}, {"c2", 2}}) {
    ep0.graph().set_tensor_meta(n, pteforge::testing::make_meta({F, {2, w}}));
  }
  Node sp(OpTarget("torch.ops.aten.split.Tensor"),
          {positional("self", arg_tensor(x)), positional("split_size", arg_int(6)), positional("dim", arg_int(-1))},
          {arg_tensors({"s0", "s1"})}, "split");
  ep0.graph().append(std::move(sp));
  ep0.graph().set_tensor_meta("s0", pteforge::testing::make_meta({F, {2, 6}}));
  ep0.graph().set_tensor_meta("s1", pteforge::testing::make_meta({F, {2, 4}}));
  Node ub(OpTarget("torch.ops.aten.unbind.int"), {positional("self", arg_tensor(x))}, {arg_tensors({"u0", "u1"})},
          "unbind");
  ep0.graph().append(std::move(ub));
  ep0.graph().set_tensor_meta("u0", pteforge::testing::make_meta({F, {10}}));
  ep0.graph().set_tensor_meta("u1", pteforge::testing::make_meta({F, {10}}));
  for (const char* o : {"c2", "s1", "u1"}) b.output(o);
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 10]):\n"
                    "  [%getitem: float32[2, 4], %getitem_1: float32[2, 4], %getitem_2: float32[2, 2]] = "
                    "aten.split_with_sizes.default(%x, [4, 4, 2], 1)  # split_with_sizes\n"
                    "  [%getitem_3: float32[2, 6], %getitem_4: float32[2, 4]] = "
                    "aten.split_with_sizes.default(%x, [6, 4], -1)  # split_with_sizes_1\n"
                    // unbind's unused first element (slice_1, squeeze) is dead code,
                    // which the re-trace of run_decompositions drops.
                    "  %slice_2: float32[1, 10] = aten.slice.Tensor(%x, 0, 1, 2)\n"
                    "  %squeeze_1: float32[10] = aten.squeeze.dims(%slice_2, [0])\n"
                    "  return (%getitem_2, %getitem_4, %squeeze_1)\n");
  const TensorMeta* g2 = ep.graph().tensor_meta("getitem_2");
  REQUIRE(g2);
  CHECK(g2->concrete_sizes() == std::vector<int64_t>{2, 2});
  CHECK(g2->concrete_strides() == std::vector<int64_t>{10, 1});
  const TensorMeta* s2 = ep.graph().tensor_meta("slice_2");
  REQUIRE(s2);
  CHECK(s2->storage_offset == SymInt(10));
}

TEST_CASE("decompose stack (cat + view, or unsqueeze + cat for the last dim), movedim, narrow, detach") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto y = b.input("y", F, {2, 3});
  b.output(b.call("aten.stack.default", {arg_tensors({x, y})}, {F, {2, 2, 3}}));
  b.output(b.call("aten.stack.default", {arg_tensors({x, y}), arg_int(-1)}, {F, {2, 3, 2}}));
  b.output(b.call("aten.movedim.int", {arg_tensor(x), arg_int(0), arg_int(1)}, {F, {3, 2}}));
  b.output(b.call("aten.narrow.default", {arg_tensor(x), arg_int(1), arg_int(1), arg_int(2)}, {F, {2, 2}}));
  b.output(b.call("aten.detach.default", {arg_tensor(x)}, {F, {2, 3}}));
  b.output(b.call("aten.lift_fresh_copy.default", {arg_tensor(y)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3], %y: float32[2, 3]):\n"
                    "  %cat: float32[4, 3] = aten.cat.default([%x, %y])\n"
                    "  %view: float32[2, 2, 3] = aten.view.default(%cat, [2, 2, 3])\n"
                    "  %unsqueeze: float32[2, 3, 1] = aten.unsqueeze.default(%x, 2)\n"
                    "  %unsqueeze_1: float32[2, 3, 1] = aten.unsqueeze.default(%y, 2)\n"
                    "  %cat_1: float32[2, 3, 2] = aten.cat.default([%unsqueeze, %unsqueeze_1], -1)\n"
                    "  %permute: float32[3, 2] = aten.permute.default(%x, [1, 0])\n"
                    "  %slice_1: float32[2, 2] = aten.slice.Tensor(%x, 1, 1, 3)\n"
                    "  %alias: float32[2, 3] = aten.alias.default(%x)\n"
                    "  %clone: float32[2, 3] = aten.clone.default(%y)\n"
                    "  return (%view, %cat_1, %permute, %slice_1, %alias, %clone)\n");
}

// ---- creation ----------------------------------------------------------------------------------

TEST_CASE("decompose zeros / ones / zeros_like / ones_like / new_zeros / new_ones / arange") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Long, {2, 3});
  b.output(b.call("aten.zeros.default", {arg_ints({2, 3})}, {F, {2, 3}},
                  {{"device", arg_device(Device{})}, {"pin_memory", arg_bool(false)}}));
  b.output(b.call("aten.ones.default", {arg_ints({4})}, {ScalarType::Bool, {4}},
                  {{"dtype", arg_dtype(ScalarType::Bool)}}));
  b.output(b.call("aten.zeros_like.default", {arg_tensor(x)}, {ScalarType::Long, {2, 3}}));
  b.output(b.call("aten.ones_like.default", {arg_tensor(x)}, {F, {2, 3}}, {{"dtype", arg_dtype(F)}}));
  b.output(b.call("aten.new_zeros.default", {arg_tensor(x), arg_ints({5})}, {ScalarType::Long, {5}}));
  b.output(b.call("aten.new_ones.default", {arg_tensor(x), arg_ints({2})}, {F, {2}}, {{"dtype", arg_dtype(F)}}));
  b.output(b.call("aten.arange.default", {arg_int(6)}, {ScalarType::Long, {6}},
                  {{"device", arg_device(Device{})}, {"pin_memory", arg_bool(false)}}));
  b.output(b.call("aten.arange.start", {arg_int(2), arg_int(5)}, {ScalarType::Long, {3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: int64[2, 3]):\n"
      "  %full: float32[2, 3] = aten.full.default([2, 3], 0, dtype=torch.float32, layout=torch.strided, "
      "device=device(type='cpu'), pin_memory=False)\n"
      "  %full_1: bool[4] = aten.full.default([4], True, dtype=torch.bool, layout=torch.strided, pin_memory=False)\n"
      "  %full_like: int64[2, 3] = aten.full_like.default(%x, 0, pin_memory=False, "
      "memory_format=torch.preserve_format)\n"
      "  %full_like_1: float32[2, 3] = aten.full_like.default(%x, 1, dtype=torch.float32, pin_memory=False, "
      "memory_format=torch.preserve_format)\n"
      "  %full_2: int64[5] = aten.full.default([5], 0, dtype=torch.int64, layout=torch.strided, "
      "device=device(type='cpu'), pin_memory=False)\n"
      "  %full_3: float32[2] = aten.full.default([2], 1, dtype=torch.float32, layout=torch.strided, "
      "device=device(type='cpu'), pin_memory=False)\n"
      // The training-IR nodes were named arange and arange_1 when the first rewrite ran.
      "  %arange_2: int64[6] = aten.arange.start_step(0, 6, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %arange: int64[3] = aten.arange.start_step(2, 5, layout=torch.strided, pin_memory=False)\n"
      "  return (%full, %full_1, %full_like, %full_like_1, %full_2, %full_3, %arange_2, %arange)\n");
}

TEST_CASE("decompose tril (float: where with scalar_tensor 0) and triu (bool: logical_and)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3, 4});
  auto m = b.input("m", ScalarType::Bool, {4, 4});
  b.output(b.call("aten.tril.default", {arg_tensor(x)}, {F, {3, 4}}));
  b.output(b.call("aten.triu.default", {arg_tensor(m), arg_int(1)}, {ScalarType::Bool, {4, 4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[3, 4], %m: bool[4, 4]):\n"
      "  %arange: int64[4] = aten.arange.start_step(0, 4, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %unsqueeze: int64[1, 4] = aten.unsqueeze.default(%arange, -2)\n"
      "  %arange_1: int64[3] = aten.arange.start_step(0, 3, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %unsqueeze_1: int64[3, 1] = aten.unsqueeze.default(%arange_1, -1)\n"
      "  %sub: int64[3, 4] = aten.sub.Tensor(%unsqueeze, %unsqueeze_1)\n"
      "  %le: bool[3, 4] = aten.le.Scalar(%sub, 0)\n"
      "  %scalar_tensor: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, layout=torch.strided, "
      "device=device(type='cpu'))\n"
      "  %where: float32[3, 4] = aten.where.self(%le, %x, %scalar_tensor)\n"
      "  %arange_2: int64[4] = aten.arange.start_step(0, 4, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %unsqueeze_2: int64[1, 4] = aten.unsqueeze.default(%arange_2, -2)\n"
      "  %arange_3: int64[4] = aten.arange.start_step(0, 4, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %unsqueeze_3: int64[4, 1] = aten.unsqueeze.default(%arange_3, -1)\n"
      "  %sub_1: int64[4, 4] = aten.sub.Tensor(%unsqueeze_2, %unsqueeze_3)\n"
      "  %ge: bool[4, 4] = aten.ge.Scalar(%sub_1, 1)\n"
      "  %logical_and: bool[4, 4] = aten.logical_and.default(%ge, %m)\n"
      "  return (%where, %logical_and)\n");
}

// ---- elementwise helpers, dtype conversion, indexing --------------------------------------------

TEST_CASE("decompose rsub / masked_fill / clamp_min / square / floor_divide / where.ScalarOther") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto m = b.input("m", ScalarType::Bool, {2, 3});
  b.output(b.call("aten.rsub.Scalar", {arg_tensor(x), arg_int(1)}, {F, {2, 3}}));
  b.output(b.call("aten.masked_fill.Scalar",
                  {arg_tensor(x), arg_tensor(m), arg_float(-std::numeric_limits<double>::infinity())}, {F, {2, 3}}));
  b.output(b.call("aten.clamp_min.default", {arg_tensor(x), arg_float(0.5)}, {F, {2, 3}}));
  b.output(b.call("aten.square.default", {arg_tensor(x)}, {F, {2, 3}}));
  b.output(b.call("aten.floor_divide.default", {arg_tensor(x), arg_tensor(x)}, {F, {2, 3}}));
  b.output(b.call("aten.where.ScalarOther", {arg_tensor(m), arg_tensor(x), arg_float(0.0)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3], %m: bool[2, 3]):\n"
      "  %sub: float32[2, 3] = aten.sub.Tensor(1, %x)\n"
      "  %full: float32[] = aten.full.default([], -inf, dtype=torch.float32, layout=torch.strided, "
      "device=device(type='cpu'), pin_memory=False)\n"
      "  %where_1: float32[2, 3] = aten.where.self(%m, %full, %x)\n"
      "  %clamp: float32[2, 3] = aten.clamp.default(%x, 0.5)\n"
      "  %pow_1: float32[2, 3] = aten.pow.Tensor_Scalar(%x, 2)\n"
      "  %div: float32[2, 3] = aten.div.Tensor_mode(%x, %x, rounding_mode='floor')\n"
      "  %scalar_tensor: float32[] = aten.scalar_tensor.default(0.0, dtype=torch.float32, layout=torch.strided, "
      "device=device(type='cpu'))\n"
      "  %where_2: float32[2, 3] = aten.where.self(%m, %x, %scalar_tensor)\n"
      "  return (%sub, %where_1, %clamp, %pow_1, %div, %where_2)\n");
}

TEST_CASE("decompose to.dtype / type_as: _to_copy when the dtype changes, the input itself otherwise") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto i = b.input("i", ScalarType::Long, {3});
  b.output(b.call("aten.to.dtype", {arg_tensor(x), arg_dtype(F)}, {F, {3}}));
  b.output(b.call("aten.to.dtype", {arg_tensor(x), arg_dtype(ScalarType::Half)}, {ScalarType::Half, {3}}));
  b.output(b.call("aten.type_as.default", {arg_tensor(i), arg_tensor(x)}, {F, {3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3], %i: int64[3]):\n"
                    "  %_to_copy: float16[3] = aten._to_copy.default(%x, dtype=torch.float16)\n"
                    "  %_to_copy_1: float32[3] = aten._to_copy.default(%i, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'))\n"  // other.options(): no pin_memory
                    "  return (%x, %_to_copy, %_to_copy_1)\n");
}

TEST_CASE("decompose index_copy -> index_put with None for the leading dims") {
  ProgramBuilder b;
  auto cache = b.input("cache", F, {1, 2, 8, 4});
  auto pos = b.input("pos", ScalarType::Long, {3});
  auto k = b.input("k", F, {1, 2, 3, 4});
  b.output(b.call("aten.index_copy.default", {arg_tensor(cache), arg_int(2), arg_tensor(pos), arg_tensor(k)},
                  {F, {1, 2, 8, 4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%cache: float32[1, 2, 8, 4], %pos: int64[3], %k: float32[1, 2, 3, 4]):\n"
                    "  %index_put: float32[1, 2, 8, 4] = aten.index_put.default(%cache, [None, None, %pos], %k)\n"
                    "  return (%index_put)\n");
}

TEST_CASE("decompose index_copy with a 0-d index: the index is unsqueezed, as torch's _index_copy does") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 4});
  auto i = b.input("i", ScalarType::Long, {});
  auto s = b.input("s", F, {2, 1, 4});
  b.output(b.call("aten.index_copy.default", {arg_tensor(x), arg_int(1), arg_tensor(i), arg_tensor(s)},
                  {F, {2, 3, 4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3, 4], %i: int64[], %s: float32[2, 1, 4]):\n"
                    "  %unsqueeze: int64[1] = aten.unsqueeze.default(%i, 0)\n"
                    "  %index_put: float32[2, 3, 4] = aten.index_put.default(%x, [None, %unsqueeze], %s)\n"
                    "  return (%index_put)\n");
}

TEST_CASE("decompose baddbmm") {
  ProgramBuilder b;
  auto s = b.input("s", F, {2, 3, 5});
  auto x = b.input("x", F, {2, 3, 4});
  auto y = b.input("y", F, {2, 4, 5});
  b.output(b.call("aten.baddbmm.default", {arg_tensor(s), arg_tensor(x), arg_tensor(y)}, {F, {2, 3, 5}},
                  {{"alpha", arg_float(0.5)}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%s: float32[2, 3, 5], %x: float32[2, 3, 4], %y: float32[2, 4, 5]):\n"
                    "  %bmm: float32[2, 3, 5] = aten.bmm.default(%x, %y)\n"
                    "  %mul: float32[2, 3, 5] = aten.mul.Tensor(%bmm, 0.5)\n"
                    "  %add: float32[2, 3, 5] = aten.add.Tensor(%s, %mul)\n"
                    "  return (%add)\n");
}

TEST_CASE("decompose baddbmm of int32: alpha and beta made ints first, as torch's int(alpha) / int(beta)") {
  // beta 0.5 -> 0 drops self; alpha 2.5 -> 2 multiplies by an int (the result stays int32).
  ProgramBuilder b;
  auto s = b.input("s", ScalarType::Int, {2, 3, 5});
  auto x = b.input("x", ScalarType::Int, {2, 3, 4});
  auto y = b.input("y", ScalarType::Int, {2, 4, 5});
  b.output(b.call("aten.baddbmm.default", {arg_tensor(s), arg_tensor(x), arg_tensor(y)},
                  {ScalarType::Int, {2, 3, 5}}, {{"beta", arg_float(0.5)}, {"alpha", arg_float(2.5)}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%s: int32[2, 3, 5], %x: int32[2, 3, 4], %y: int32[2, 4, 5]):\n"
                    "  %bmm: int32[2, 3, 5] = aten.bmm.default(%x, %y)\n"
                    "  %mul: int32[2, 3, 5] = aten.mul.Tensor(%bmm, 2)\n"
                    "  return (%mul)\n");
}

TEST_CASE("decompose baddbmm in float16 / bfloat16: computed in float32, as torch's pw_cast_for_opmath") {
  // torch/_decomp/decompositions.py wraps baddbmm in @pw_cast_for_opmath: self,
  // batch1 and batch2 are cast to float32 in that order and the result back.
  SUBCASE("float16, alpha and beta") {
    ProgramBuilder b;
    auto s = b.input("s", ScalarType::Half, {2, 3, 5});
    auto x = b.input("x", ScalarType::Half, {2, 3, 4});
    auto y = b.input("y", ScalarType::Half, {2, 4, 5});
    b.output(b.call("aten.baddbmm.default", {arg_tensor(s), arg_tensor(x), arg_tensor(y)},
                    {ScalarType::Half, {2, 3, 5}}, {{"beta", arg_float(2.0)}, {"alpha", arg_float(0.5)}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%s: float16[2, 3, 5], %x: float16[2, 3, 4], %y: float16[2, 4, 5]):\n"
                      "  %_to_copy: float32[2, 3, 5] = aten._to_copy.default(%s, dtype=torch.float32)\n"
                      "  %_to_copy_1: float32[2, 3, 4] = aten._to_copy.default(%x, dtype=torch.float32)\n"
                      "  %_to_copy_2: float32[2, 4, 5] = aten._to_copy.default(%y, dtype=torch.float32)\n"
                      "  %bmm: float32[2, 3, 5] = aten.bmm.default(%_to_copy_1, %_to_copy_2)\n"
                      "  %mul: float32[2, 3, 5] = aten.mul.Tensor(%bmm, 0.5)\n"
                      "  %mul_1: float32[2, 3, 5] = aten.mul.Tensor(%_to_copy, 2.0)\n"
                      "  %add: float32[2, 3, 5] = aten.add.Tensor(%mul_1, %mul)\n"
                      "  %_to_copy_3: float16[2, 3, 5] = aten._to_copy.default(%add, dtype=torch.float16)\n"
                      "  return (%_to_copy_3)\n");
  }
  SUBCASE("bfloat16, beta 0: self takes no part, and is not cast") {
    ProgramBuilder b;
    auto s = b.input("s", ScalarType::BFloat16, {2, 3, 5});
    auto x = b.input("x", ScalarType::BFloat16, {2, 3, 4});
    auto y = b.input("y", ScalarType::BFloat16, {2, 4, 5});
    b.output(b.call("aten.baddbmm.default", {arg_tensor(s), arg_tensor(x), arg_tensor(y)},
                    {ScalarType::BFloat16, {2, 3, 5}}, {{"beta", arg_int(0)}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%s: bfloat16[2, 3, 5], %x: bfloat16[2, 3, 4], %y: bfloat16[2, 4, 5]):\n"
                      "  %_to_copy: float32[2, 3, 4] = aten._to_copy.default(%x, dtype=torch.float32)\n"
                      "  %_to_copy_1: float32[2, 4, 5] = aten._to_copy.default(%y, dtype=torch.float32)\n"
                      "  %bmm: float32[2, 3, 5] = aten.bmm.default(%_to_copy, %_to_copy_1)\n"
                      "  %_to_copy_2: bfloat16[2, 3, 5] = aten._to_copy.default(%bmm, dtype=torch.bfloat16)\n"
                      "  return (%_to_copy_2)\n");
  }
}

// ---- attention ---------------------------------------------------------------------------------

TEST_CASE("decompose scaled_dot_product_attention: 4-d, no mask (CPU flash path: math form + permute/clone/permute)") {
  ProgramBuilder b;
  auto q = b.input("q", F, {1, 2, 3, 4});
  auto k = b.input("k", F, {1, 2, 5, 4});
  auto v = b.input("v", F, {1, 2, 5, 4});
  b.output(b.call("aten.scaled_dot_product_attention.default", {arg_tensor(q), arg_tensor(k), arg_tensor(v)},
                  {F, {1, 2, 3, 4}}));
  ExportedProgram ep = b.build();
  // scale = 1/sqrt(4); q and k^T are each multiplied by sqrt(scale) = 0.7071067811865476.
  expect_decomposed(
      ep,
      "graph(%q: float32[1, 2, 3, 4], %k: float32[1, 2, 5, 4], %v: float32[1, 2, 5, 4]):\n"
      "  %mul: float32[1, 2, 3, 4] = aten.mul.Scalar(%q, 0.7071067811865476)\n"
      "  %permute: float32[1, 2, 4, 5] = aten.permute.default(%k, [0, 1, 3, 2])\n"
      "  %mul_1: float32[1, 2, 4, 5] = aten.mul.Scalar(%permute, 0.7071067811865476)\n"
      "  %expand: float32[1, 2, 3, 4] = aten.expand.default(%mul, [1, 2, 3, 4])\n"
      "  %view: float32[2, 3, 4] = aten.view.default(%expand, [2, 3, 4])\n"
      "  %expand_1: float32[1, 2, 4, 5] = aten.expand.default(%mul_1, [1, 2, 4, 5])\n"
      "  %view_1: float32[2, 4, 5] = aten.view.default(%expand_1, [2, 4, 5])\n"
      "  %bmm: float32[2, 3, 5] = aten.bmm.default(%view, %view_1)\n"
      "  %view_2: float32[1, 2, 3, 5] = aten.view.default(%bmm, [1, 2, 3, 5])\n"
      "  %_softmax: float32[1, 2, 3, 5] = aten._softmax.default(%view_2, -1, False)\n"
      "  %eq: bool[1, 2, 3, 5] = aten.eq.Scalar(%view_2, -inf)\n"
      "  %logical_not: bool[1, 2, 3, 5] = aten.logical_not.default(%eq)\n"
      "  %any_1: bool[1, 2, 3, 1] = aten.any.dim(%logical_not, -1, True)\n"
      "  %logical_not_1: bool[1, 2, 3, 1] = aten.logical_not.default(%any_1)\n"
      "  %full_like: float32[1, 2, 3, 5] = aten.full_like.default(%_softmax, 0, pin_memory=False, "
      "memory_format=torch.preserve_format)\n"
      "  %where: float32[1, 2, 3, 5] = aten.where.self(%logical_not_1, %full_like, %_softmax)\n"
      "  %expand_2: float32[1, 2, 3, 5] = aten.expand.default(%where, [1, 2, 3, 5])\n"
      "  %view_3: float32[2, 3, 5] = aten.view.default(%expand_2, [2, 3, 5])\n"
      "  %expand_3: float32[1, 2, 5, 4] = aten.expand.default(%v, [1, 2, 5, 4])\n"
      "  %view_4: float32[2, 5, 4] = aten.view.default(%expand_3, [2, 5, 4])\n"
      "  %bmm_1: float32[2, 3, 4] = aten.bmm.default(%view_3, %view_4)\n"
      "  %view_5: float32[1, 2, 3, 4] = aten.view.default(%bmm_1, [1, 2, 3, 4])\n"
      "  %permute_1: float32[3, 1, 2, 4] = aten.permute.default(%view_5, [2, 0, 1, 3])\n"
      "  %clone: float32[3, 1, 2, 4] = aten.clone.default(%permute_1, memory_format=torch.contiguous_format)\n"
      "  %permute_2: float32[1, 2, 3, 4] = aten.permute.default(%clone, [1, 2, 0, 3])\n"
      "  return (%permute_2)\n");
  // The result keeps the flash kernel's layout: (N, H, L, E) over an (L, N, H, E) buffer.
  const TensorMeta* out = ep.graph().tensor_meta("permute_2");
  REQUIRE(out);
  CHECK(out->concrete_strides() == std::vector<int64_t>{8, 4, 8, 1});
  const TensorMeta* kt = ep.graph().tensor_meta("mul_1");
  REQUIRE(kt);
  CHECK(kt->concrete_strides() == std::vector<int64_t>{40, 20, 1, 4});
}

TEST_CASE("decompose scaled_dot_product_attention: is_causal builds ones().tril() and an additive mask") {
  ProgramBuilder b;
  auto q = b.input("q", F, {1, 1, 2, 4});
  b.output(b.call("aten.scaled_dot_product_attention.default",
                  {arg_tensor(q), arg_tensor(q), arg_tensor(q), arg_none(), arg_float(0.0), arg_bool(true)},
                  {F, {1, 1, 2, 4}}, {{"scale", arg_float(0.25)}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%q: float32[1, 1, 2, 4]):\n"
      "  %mul: float32[1, 1, 2, 4] = aten.mul.Scalar(%q, 0.5)\n"
      "  %full: bool[2, 2] = aten.full.default([2, 2], True, dtype=torch.bool, layout=torch.strided, "
      "device=device(type='cpu'), pin_memory=False)\n"
      "  %arange: int64[2] = aten.arange.start_step(0, 2, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %unsqueeze: int64[1, 2] = aten.unsqueeze.default(%arange, -2)\n"
      "  %arange_1: int64[2] = aten.arange.start_step(0, 2, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %unsqueeze_1: int64[2, 1] = aten.unsqueeze.default(%arange_1, -1)\n"
      "  %sub: int64[2, 2] = aten.sub.Tensor(%unsqueeze, %unsqueeze_1)\n"
      "  %le: bool[2, 2] = aten.le.Scalar(%sub, 0)\n"
      "  %logical_and: bool[2, 2] = aten.logical_and.default(%le, %full)\n"
      "  %scalar_tensor: float32[] = aten.scalar_tensor.default(-inf, dtype=torch.float32, "
      "device=device(type='cpu'))\n"
      "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(0.0, dtype=torch.float32, layout=torch.strided, "
      "device=device(type='cpu'))\n"
      "  %where: float32[2, 2] = aten.where.self(%logical_and, %scalar_tensor_1, %scalar_tensor)\n"
      "  %permute: float32[1, 1, 4, 2] = aten.permute.default(%q, [0, 1, 3, 2])\n"
      "  %mul_1: float32[1, 1, 4, 2] = aten.mul.Scalar(%permute, 0.5)\n"
      "  %expand: float32[1, 1, 2, 4] = aten.expand.default(%mul, [1, 1, 2, 4])\n"
      "  %view: float32[1, 2, 4] = aten.view.default(%expand, [1, 2, 4])\n"
      "  %expand_1: float32[1, 1, 4, 2] = aten.expand.default(%mul_1, [1, 1, 4, 2])\n"
      "  %view_1: float32[1, 4, 2] = aten.view.default(%expand_1, [1, 4, 2])\n"
      "  %bmm: float32[1, 2, 2] = aten.bmm.default(%view, %view_1)\n"
      "  %view_2: float32[1, 1, 2, 2] = aten.view.default(%bmm, [1, 1, 2, 2])\n"
      "  %add: float32[1, 1, 2, 2] = aten.add.Tensor(%view_2, %where)\n"
      "  %_softmax: float32[1, 1, 2, 2] = aten._softmax.default(%add, -1, False)\n"
      "  %eq: bool[1, 1, 2, 2] = aten.eq.Scalar(%add, -inf)\n"
      "  %logical_not: bool[1, 1, 2, 2] = aten.logical_not.default(%eq)\n"
      "  %any_1: bool[1, 1, 2, 1] = aten.any.dim(%logical_not, -1, True)\n"
      "  %logical_not_1: bool[1, 1, 2, 1] = aten.logical_not.default(%any_1)\n"
      "  %full_like: float32[1, 1, 2, 2] = aten.full_like.default(%_softmax, 0, pin_memory=False, "
      "memory_format=torch.preserve_format)\n"
      "  %where_1: float32[1, 1, 2, 2] = aten.where.self(%logical_not_1, %full_like, %_softmax)\n"
      "  %expand_2: float32[1, 1, 2, 2] = aten.expand.default(%where_1, [1, 1, 2, 2])\n"
      "  %view_3: float32[1, 2, 2] = aten.view.default(%expand_2, [1, 2, 2])\n"
      "  %expand_3: float32[1, 1, 2, 4] = aten.expand.default(%q, [1, 1, 2, 4])\n"
      "  %view_4: float32[1, 2, 4] = aten.view.default(%expand_3, [1, 2, 4])\n"
      "  %bmm_1: float32[1, 2, 4] = aten.bmm.default(%view_3, %view_4)\n"
      "  %view_5: float32[1, 1, 2, 4] = aten.view.default(%bmm_1, [1, 1, 2, 4])\n"
      // N = H = 1: the (L, N, H, E) permutation is already contiguous, so .contiguous() adds nothing.
      "  %permute_1: float32[2, 1, 1, 4] = aten.permute.default(%view_5, [2, 0, 1, 3])\n"
      "  %permute_2: float32[1, 1, 2, 4] = aten.permute.default(%permute_1, [1, 2, 0, 3])\n"
      "  return (%permute_2)\n");
}

TEST_CASE("decompose scaled_dot_product_attention: 3-d inputs take the math path only, dropout is refused") {
  ProgramBuilder b;
  auto q = b.input("q", F, {2, 3, 4});
  b.output(b.call("aten.scaled_dot_product_attention.default", {arg_tensor(q), arg_tensor(q), arg_tensor(q)},
                  {F, {2, 3, 4}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  auto t = pteforge::testing::targets(ep.graph());
  CHECK(t.back() == "aten.view.default");
  CHECK(std::count(t.begin(), t.end(), "aten.bmm.default") == 2);
  CHECK(std::count(t.begin(), t.end(), "aten.clone.default") == 0);

  ProgramBuilder d;
  auto x = d.input("x", F, {1, 1, 2, 4});
  d.output(d.call("aten.scaled_dot_product_attention.default",
                  {arg_tensor(x), arg_tensor(x), arg_tensor(x), arg_none(), arg_float(0.1)}, {F, {1, 1, 2, 4}}));
  ExportedProgram ep2 = d.build();
  Status st2 = pteforge::testing::decompose(ep2);
  REQUIRE_FALSE(st2.ok());
  CHECK(st2.error().code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(st2.error().message.find("dropout_p") != std::string::npos);
}

TEST_CASE("decompose scaled_dot_product_attention: GQA repeats key/value heads (unsqueeze, expand, clone, view)") {
  ProgramBuilder b;
  auto q = b.input("q", F, {1, 4, 2, 8});
  auto k = b.input("k", F, {1, 2, 2, 8});
  b.output(b.call("aten.scaled_dot_product_attention.default", {arg_tensor(q), arg_tensor(k), arg_tensor(k)},
                  {F, {1, 4, 2, 8}}, {{"enable_gqa", arg_bool(true)}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  std::string text = pteforge::testing::typed(ep.graph());
  CHECK(text.find("%unsqueeze: float32[1, 2, 1, 2, 8] = aten.unsqueeze.default(%k, 2)") != std::string::npos);
  CHECK(text.find("%expand: float32[1, 2, 2, 2, 8] = aten.expand.default(%unsqueeze, [1, 2, 2, 2, 8])") !=
        std::string::npos);
  CHECK(text.find("%view: float32[1, 4, 2, 8] = aten.view.default(%clone, [1, 4, 2, 8])") != std::string::npos);
  CHECK(pteforge::testing::non_core_ops(ep.graph()).empty());
}

// ---- recurrent layers --------------------------------------------------------------------------

TEST_CASE("decompose lstm.input: one layer, one step, unrolled into linear + gates") {
  ProgramBuilder b;
  auto wih = b.parameter("p_wih", "lstm.weight_ih_l0", F, {8, 3});
  auto whh = b.parameter("p_whh", "lstm.weight_hh_l0", F, {8, 2});
  auto bih = b.parameter("p_bih", "lstm.bias_ih_l0", F, {8});
  auto bhh = b.parameter("p_bhh", "lstm.bias_hh_l0", F, {8});
  auto x = b.input("x", F, {1, 1, 3});
  auto h0 = b.input("h0", F, {1, 1, 2});
  auto c0 = b.input("c0", F, {1, 1, 2});
  b.call_multi("aten.lstm.input",
               {arg_tensor(x), arg_tensors({h0, c0}), arg_tensors({wih, whh, bih, bhh}), arg_bool(true), arg_int(1),
                arg_float(0.0), arg_bool(false), arg_bool(false), arg_bool(false)},
               {{F, {1, 1, 2}}, {F, {1, 1, 2}}, {F, {1, 1, 2}}}, {"out", "hn", "cn"});
  for (const char* o : {"out", "hn", "cn"}) b.output(o);
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%p_wih: float32[8, 3], %p_whh: float32[8, 2], %p_bih: float32[8], %p_bhh: float32[8], "
      "%x: float32[1, 1, 3], %h0: float32[1, 1, 2], %c0: float32[1, 1, 2]):\n"
      "  %slice_1: float32[1, 1, 2] = aten.slice.Tensor(%h0, 0, 0, 1)\n"
      "  %squeeze: float32[1, 2] = aten.squeeze.dims(%slice_1, [0])\n"
      "  %slice_2: float32[1, 1, 2] = aten.slice.Tensor(%c0, 0, 0, 1)\n"
      "  %squeeze_1: float32[1, 2] = aten.squeeze.dims(%slice_2, [0])\n"
      "  %unsqueeze: float32[1, 1, 2] = aten.unsqueeze.default(%squeeze, 0)\n"
      "  %unsqueeze_1: float32[1, 1, 2] = aten.unsqueeze.default(%squeeze_1, 0)\n"
      "  %view: float32[1, 3] = aten.view.default(%x, [1, 3])\n"
      "  %permute: float32[3, 8] = aten.permute.default(%p_wih, [1, 0])\n"
      "  %addmm: float32[1, 8] = aten.addmm.default(%p_bih, %view, %permute)\n"
      "  %view_1: float32[1, 1, 8] = aten.view.default(%addmm, [1, 1, 8])\n"
      "  %slice_3: float32[1, 1, 8] = aten.slice.Tensor(%view_1, 0, 0, 1)\n"
      "  %squeeze_2: float32[1, 8] = aten.squeeze.dims(%slice_3, [0])\n"
      "  %view_2: float32[1, 2] = aten.view.default(%unsqueeze, [1, 2])\n"
      "  %permute_1: float32[2, 8] = aten.permute.default(%p_whh, [1, 0])\n"
      "  %addmm_1: float32[1, 8] = aten.addmm.default(%p_bhh, %view_2, %permute_1)\n"
      "  %view_3: float32[1, 1, 8] = aten.view.default(%addmm_1, [1, 1, 8])\n"
      "  %add: float32[1, 1, 8] = aten.add.Tensor(%view_3, %squeeze_2)\n"
      "  [%getitem: float32[1, 1, 2], %getitem_1: float32[1, 1, 2], %getitem_2: float32[1, 1, 2], "
      "%getitem_3: float32[1, 1, 2]] = aten.split_with_sizes.default(%add, [2, 2, 2, 2], 2)  # split_with_sizes\n"
      "  %sigmoid: float32[1, 1, 2] = aten.sigmoid.default(%getitem)\n"
      "  %sigmoid_1: float32[1, 1, 2] = aten.sigmoid.default(%getitem_1)\n"
      "  %tanh: float32[1, 1, 2] = aten.tanh.default(%getitem_2)\n"
      "  %sigmoid_2: float32[1, 1, 2] = aten.sigmoid.default(%getitem_3)\n"
      "  %mul: float32[1, 1, 2] = aten.mul.Tensor(%sigmoid_1, %unsqueeze_1)\n"
      "  %mul_1: float32[1, 1, 2] = aten.mul.Tensor(%sigmoid, %tanh)\n"
      "  %add_1: float32[1, 1, 2] = aten.add.Tensor(%mul, %mul_1)\n"
      "  %tanh_1: float32[1, 1, 2] = aten.tanh.default(%add_1)\n"
      "  %mul_2: float32[1, 1, 2] = aten.mul.Tensor(%sigmoid_2, %tanh_1)\n"
      "  %cat: float32[1, 1, 2] = aten.cat.default([%mul_2])\n"
      "  %squeeze_3: float32[1, 2] = aten.squeeze.dims(%mul_2, [1])\n"
      "  %squeeze_4: float32[1, 2] = aten.squeeze.dims(%add_1, [1])\n"
      "  %cat_1: float32[1, 2] = aten.cat.default([%squeeze_3])\n"
      "  %view_4: float32[1, 1, 2] = aten.view.default(%cat_1, [1, 1, 2])\n"
      "  %cat_2: float32[1, 2] = aten.cat.default([%squeeze_4])\n"
      "  %view_5: float32[1, 1, 2] = aten.view.default(%cat_2, [1, 1, 2])\n"
      "  return (%cat, %view_4, %view_5)\n");
}

TEST_CASE("decompose gru.input (bidirectional) leaves only core ops with the node's output shapes") {
  ProgramBuilder b;
  std::vector<std::string> params;
  for (const char* sfx : {"l0", "l0_reverse"}) {
    params.push_back(b.parameter(std::string("p_wih_") + sfx, std::string("gru.weight_ih_") + sfx, F, {6, 3}));
    params.push_back(b.parameter(std::string("p_whh_") + sfx, std::string("gru.weight_hh_") + sfx, F, {6, 2}));
    params.push_back(b.parameter(std::string("p_bih_") + sfx, std::string("gru.bias_ih_") + sfx, F, {6}));
    params.push_back(b.parameter(std::string("p_bhh_") + sfx, std::string("gru.bias_hh_") + sfx, F, {6}));
  }
  auto x = b.input("x", F, {4, 1, 3});
  auto h0 = b.input("h0", F, {2, 1, 2});
  b.call_multi("aten.gru.input",
               {arg_tensor(x), arg_tensor(h0), arg_tensors(params), arg_bool(true), arg_int(1), arg_float(0.0),
                arg_bool(false), arg_bool(true), arg_bool(false)},
               {{F, {4, 1, 4}}, {F, {2, 1, 2}}}, {"out", "hn"});
  b.output("out");
  b.output("hn");
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(pteforge::testing::non_core_ops(ep.graph()).empty());
  const auto& outs = ep.graph().outputs();
  REQUIRE(outs.size() == 2);
  const TensorMeta* o = ep.graph().tensor_meta(outs[0].tensor_name());
  const TensorMeta* h = ep.graph().tensor_meta(outs[1].tensor_name());
  REQUIRE(o);
  REQUIRE(h);
  CHECK(o->concrete_sizes() == std::vector<int64_t>{4, 1, 4});
  CHECK(h->concrete_sizes() == std::vector<int64_t>{2, 1, 2});
  auto t = pteforge::testing::targets(ep.graph());
  CHECK(std::count(t.begin(), t.end(), "aten.flip.default") == 1);
  CHECK(std::count(t.begin(), t.end(), "aten.tanh.default") == 8);
}

// ---- the table ---------------------------------------------------------------------------------

TEST_CASE("decomposition table: the supported set (README list), every entry non-core unless marked core") {
  std::vector<std::string> got;
  for (const auto& d : passes::decomp::decompositions()) got.emplace_back(d.target);
  // clang-format off
  CHECK(got == std::vector<std::string>{
      "aten._batch_norm_no_update.default", "aten._convolution.default", "aten._prelu_kernel.default",
      "aten._reshape_alias.default", "aten._safe_softmax.default", "aten._unsafe_index.Tensor",
      "aten._unsafe_index_put.default", "aten._unsafe_view.default", "aten._upsample_nearest_exact1d.default",
      "aten._upsample_nearest_exact2d.default", "aten._upsample_nearest_exact3d.default", "aten._weight_norm.default",
      "aten._weight_norm_interface.default", "aten.absolute.default", "aten.adaptive_avg_pool2d.default",
      "aten.adaptive_avg_pool3d.default", "aten.adaptive_max_pool2d.default", "aten.addcdiv.default",
      "aten.addcmul.default", "aten.addr.default", "aten.all.default", "aten.all.dim", "aten.all.dims",
      "aten.alpha_dropout.default", "aten.aminmax.default", "aten.arange.default", "aten.arange.start",
      "aten.arccos.default", "aten.arccosh.default", "aten.arcsin.default", "aten.arcsinh.default",
      "aten.arctan.default", "aten.arctan2.default", "aten.arctanh.default", "aten.argsort.default",
      "aten.atleast_1d.default", "aten.atleast_2d.default", "aten.atleast_3d.default", "aten.baddbmm.default",
      "aten.batch_norm.default", "aten.binary_cross_entropy.default", "aten.binary_cross_entropy_with_logits.default",
      "aten.broadcast_to.default", "aten.celu.default", "aten.channel_shuffle.default", "aten.chunk.default",
      "aten.clamp_max.Tensor", "aten.clamp_max.default", "aten.clamp_min.Tensor", "aten.clamp_min.default",
      "aten.clip.Tensor", "aten.clip.default", "aten.concat.default", "aten.concatenate.default",
      "aten.contiguous.default", "aten.conv1d.default", "aten.conv1d.padding", "aten.conv2d.default",
      "aten.conv2d.padding", "aten.conv3d.default", "aten.conv3d.padding", "aten.conv_transpose1d.default",
      "aten.conv_transpose2d.input", "aten.conv_transpose3d.input", "aten.cosine_similarity.default",
      "aten.count_nonzero.default", "aten.count_nonzero.dim_IntList", "aten.cross.default",
      "aten.cross_entropy_loss.default", "aten.deg2rad.default", "aten.detach.default", "aten.divide.Scalar",
      "aten.divide.Scalar_mode", "aten.divide.Tensor", "aten.divide.Tensor_mode", "aten.dot.default",
      "aten.dropout.default", "aten.einsum.default", "aten.elu.default", "aten.expand_as.default", "aten.eye.default",
      "aten.eye.m", "aten.feature_alpha_dropout.default", "aten.feature_dropout.default", "aten.fill.Scalar",
      "aten.fill.Tensor", "aten.fix.default", "aten.flatten.using_ints", "aten.fliplr.default", "aten.flipud.default",
      "aten.floor_divide.Scalar", "aten.floor_divide.default", "aten.frac.default", "aten.glu.default",
      "aten.greater.Scalar", "aten.greater.Tensor", "aten.greater_equal.Scalar", "aten.greater_equal.Tensor",
      "aten.group_norm.default", "aten.gru.input", "aten.gru_cell.default", "aten.hardshrink.default",
      "aten.hardsigmoid.default", "aten.hardswish.default", "aten.heaviside.default", "aten.hstack.default",
      "aten.huber_loss.default", "aten.im2col.default", "aten.index_add.default", "aten.index_copy.default",
      "aten.index_fill.int_Scalar", "aten.index_fill.int_Tensor", "aten.instance_norm.default", "aten.isneginf.default",
      "aten.isposinf.default", "aten.kl_div.default", "aten.l1_loss.default", "aten.layer_norm.default",
      "aten.lerp.Scalar", "aten.lerp.Tensor", "aten.less.Scalar", "aten.less.Tensor", "aten.less_equal.Scalar",
      "aten.less_equal.Tensor", "aten.lift_fresh.default", "aten.lift_fresh_copy.default", "aten.linalg_cross.default",
      "aten.linalg_vector_norm.default", "aten.linear.default", "aten.linspace.default", "aten.log_sigmoid.default",
      "aten.log_sigmoid_forward.default", "aten.log_softmax.int", "aten.logaddexp.default", "aten.logit.default",
      "aten.logspace.default", "aten.logsumexp.default", "aten.lstm.input", "aten.lstm_cell.default",
      "aten.margin_ranking_loss.default", "aten.masked_fill.Scalar", "aten.masked_fill.Tensor", "aten.matmul.default",
      "aten.max_pool1d.default", "aten.max_pool2d.default", "aten.max_pool3d.default", "aten.meshgrid.default",
      "aten.meshgrid.indexing", "aten.mish.default", "aten.moveaxis.int", "aten.movedim.int", "aten.mse_loss.default",
      "aten.multiply.Scalar", "aten.multiply.Tensor", "aten.mv.default", "aten.nan_to_num.default",
      "aten.nansum.default", "aten.narrow.default", "aten.native_batch_norm.default", "aten.negative.default",
      "aten.new_full.default", "aten.new_ones.default", "aten.new_zeros.default", "aten.nll_loss.default",
      "aten.nll_loss2d.default", "aten.nll_loss2d_forward.default", "aten.nll_loss_forward.default",
      "aten.nll_loss_nd.default", "aten.norm.ScalarOpt_dim", "aten.not_equal.Scalar", "aten.not_equal.Tensor",
      "aten.ones.default", "aten.ones_like.default", "aten.outer.default", "aten.pad.default",
      "aten.pairwise_distance.default", "aten.pixel_shuffle.default", "aten.pixel_unshuffle.default",
      "aten.prelu.default", "aten.rad2deg.default", "aten.ravel.default", "aten.reflection_pad1d.default",
      "aten.reflection_pad2d.default", "aten.reflection_pad3d.default", "aten.relu6.default",
      "aten.repeat_interleave.self_int", "aten.replication_pad1d.default", "aten.replication_pad2d.default",
      "aten.replication_pad3d.default", "aten.reshape.default", "aten.reshape_as.default", "aten.rms_norm.default",
      "aten.rnn_relu.input", "aten.rnn_relu_cell.default", "aten.rnn_tanh.input", "aten.rnn_tanh_cell.default",
      "aten.roll.default", "aten.rot90.default", "aten.round.decimals", "aten.row_stack.default", "aten.rrelu.default",
      "aten.rsub.Scalar", "aten.rsub.Tensor", "aten.scaled_dot_product_attention.default",
      "aten.select_scatter.default", "aten.selu.default", "aten.sgn.default", "aten.silu.default", "aten.sinc.default",
      "aten.smooth_l1_loss.default", "aten.soft_margin_loss.default", "aten.softmax.int", "aten.softplus.default",
      "aten.softshrink.default", "aten.special_erf.default", "aten.special_expit.default", "aten.special_expm1.default",
      "aten.special_log1p.default", "aten.special_log_softmax.default", "aten.special_logit.default",
      "aten.special_logsumexp.default", "aten.special_sinc.default", "aten.special_softmax.default",
      "aten.special_xlog1py.default", "aten.special_xlogy.default", "aten.split.Tensor", "aten.split.sizes",
      "aten.square.default", "aten.squeeze.default", "aten.squeeze.dim", "aten.stack.default", "aten.std.correction",
      "aten.std.default", "aten.std.dim", "aten.std_mean.correction", "aten.subtract.Scalar", "aten.subtract.Tensor",
      "aten.sum.default", "aten.swapaxes.default", "aten.swapdims.default", "aten.t.default",
      "aten.tensor_split.indices", "aten.tensor_split.sections", "aten.threshold.default", "aten.tile.default",
      "aten.to.device", "aten.to.dtype", "aten.to.dtype_layout", "aten.to.other", "aten.trace.default",
      "aten.transpose.int", "aten.tril.default", "aten.triu.default", "aten.true_divide.Scalar",
      "aten.true_divide.Tensor", "aten.type_as.default", "aten.unbind.int", "aten.unflatten.int",
      "aten.unsafe_chunk.default", "aten.unsafe_split.Tensor", "aten.unsafe_split_with_sizes.default",
      "aten.upsample_bilinear2d.default", "aten.upsample_linear1d.default", "aten.upsample_nearest1d.default",
      "aten.upsample_nearest2d.default", "aten.upsample_nearest3d.default", "aten.upsample_trilinear3d.default",
      "aten.var.default", "aten.var_mean.correction", "aten.vdot.default", "aten.view_as.default",
      "aten.vstack.default", "aten.where.Scalar", "aten.where.ScalarOther", "aten.where.ScalarSelf",
      "aten.xlogy.Tensor", "aten.zeros.default", "aten.zeros_like.default"});
  // clang-format on
  for (const auto& d : passes::decomp::decompositions()) {
    CAPTURE(std::string(d.target));
    const ops::OpSchema* s = ops::op_table().find(d.target);
    REQUIRE(s != nullptr);
    // Core ATen only where marked (fill.Scalar, the pads, select_scatter and squeeze.dim,
    // which core_aten_decompositions() lists).
    CHECK(ops::is_core_aten(*s) == d.core);
    CHECK_FALSE(std::string(d.mirrors).empty());
    CHECK(passes::decomp::find_decomposition(d.target) == &d);
  }
  CHECK(passes::decomp::find_decomposition("aten.relu.default") == nullptr);
}

TEST_CASE("decompose batch_norm without running statistics -> _native_batch_norm_legit.no_stats") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 4, 3});
  b.output(b.call("aten.batch_norm.default",
                  {arg_tensor(x), arg_none(), arg_none(), arg_none(), arg_none(), arg_bool(true), arg_float(0.1),
                   arg_float(1e-5), arg_bool(false)},
                  {F, {2, 4, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 4, 3]):\n"
                    "  %getitem: float32[2, 4, 3], %_native_batch_norm_legit_unused_1: float32[4], "
                    "%_native_batch_norm_legit_unused_2: float32[4] = aten._native_batch_norm_legit.no_stats(%x, "
                    "None, None, True, 0.1, 1e-05)  # _native_batch_norm_legit\n"
                    "  return (%getitem)\n");
}

TEST_CASE("decompose pad / sum / std / outer / repeat_interleave") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 2, 3, 4});
  auto v = b.input("v", F, {3});
  auto w = b.input("w", F, {2});
  auto y = b.input("y", F, {2, 3, 4});
  b.output(b.call("aten.pad.default", {arg_tensor(x), arg_ints({1, 1, 0, 2})}, {F, {1, 2, 5, 6}}));
  b.output(b.call("aten.pad.default", {arg_tensor(y), arg_ints({1, 1}), arg_string("reflect")}, {F, {2, 3, 6}}));
  b.output(b.call("aten.sum.default", {arg_tensor(x)}, {F, {}}));
  b.output(b.call("aten.std.correction", {arg_tensor(x), arg_ints({3})}, {F, {1, 2, 3, 1}},
                  {{"keepdim", arg_bool(true)}}));
  b.output(b.call("aten.outer.default", {arg_tensor(v), arg_tensor(w)}, {F, {3, 2}}));
  b.output(b.call("aten.repeat_interleave.self_int", {arg_tensor(v), arg_int(2), arg_int(0)}, {F, {6}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[1, 2, 3, 4], %v: float32[3], %w: float32[2], %y: float32[2, 3, 4]):\n"
      "  %constant_pad_nd: float32[1, 2, 5, 6] = aten.constant_pad_nd.default(%x, [1, 1, 0, 2], 0.0)\n"
      "  %arange: int64[6] = aten.arange.start_step(-1, 5, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %abs_1: int64[6] = aten.abs.default(%arange)\n"
      "  %sub: int64[6] = aten.sub.Tensor(3, %abs_1)\n"
      "  %abs_2: int64[6] = aten.abs.default(%sub)\n"
      "  %sub_1: int64[6] = aten.sub.Tensor(3, %abs_2)\n"
      "  %index: float32[2, 3, 6] = aten.index.Tensor(%y, [None, None, %sub_1])\n"
      "  %sum_1: float32[] = aten.sum.dim_IntList(%x, [])\n"
      "  %var: float32[1, 2, 3, 1] = aten.var.correction(%x, [3], keepdim=True)\n"
      "  %sqrt: float32[1, 2, 3, 1] = aten.sqrt.default(%var)\n"
      "  %view: float32[3, 1] = aten.view.default(%v, [3, 1])\n"
      "  %mul: float32[3, 2] = aten.mul.Tensor(%view, %w)\n"
      "  %unsqueeze: float32[3, 1] = aten.unsqueeze.default(%v, 1)\n"
      "  %expand: float32[3, 2] = aten.expand.default(%unsqueeze, [3, 2])\n"
      "  %clone: float32[3, 2] = aten.clone.default(%expand, memory_format=torch.contiguous_format)\n"
      "  %view_1: float32[6] = aten.view.default(%clone, [6])\n"
      "  return (%constant_pad_nd, %index, %sum_1, %sqrt, %mul, %view_1)\n");
}

TEST_CASE("functionalize: zero_ becomes zeros_like -> full_like 0") {
  ProgramBuilder b;
  auto buf = b.buffer("b_acc", "acc", F, {4});
  auto x = b.input("x", F, {4});
  b.call("aten.zero_.default", {arg_tensor(buf)}, {F, {4}});
  b.output(b.call("aten.add.Tensor", {arg_tensor(buf), arg_tensor(x)}, {F, {4}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(pteforge::testing::typed(ep.graph()) ==
        "graph(%b_acc: float32[4], %x: float32[4]):\n"
        "  %full_like: float32[4] = aten.full_like.default(%b_acc, 0, pin_memory=False, "
        "memory_format=torch.preserve_format)\n"
        "  %add: float32[4] = aten.add.Tensor(%full_like, %x)\n"
        "  return (%full_like, %add)\n");
  CHECK(ep.signature().output_specs[0].kind == OutputKind::BufferMutation);
}

// ---- rules reached less often (one SUBCASE each) ------------------------------------------------

TEST_CASE("decompose _convolution / conv1d.padding / conv_transpose1d -> convolution") {
  SUBCASE("_convolution: the backend flags are dropped, the geometry kept") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {4, 2, 3, 3});
    auto bias = b.parameter("p_b", "b", F, {4});
    auto x = b.input("x", F, {1, 4, 7, 7});
    b.output(b.call("aten._convolution.default",
                    {arg_tensor(x), arg_tensor(w), arg_tensor(bias), arg_ints({2, 2}), arg_ints({1, 1}),
                     arg_ints({1, 1}), arg_bool(false), arg_ints({0, 0}), arg_int(2), arg_bool(false), arg_bool(false),
                     arg_bool(true), arg_bool(true)},
                    {F, {1, 4, 4, 4}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%p_w: float32[4, 2, 3, 3], %p_b: float32[4], %x: float32[1, 4, 7, 7]):\n"
                      "  %convolution: float32[1, 4, 4, 4] = aten.convolution.default(%x, %p_w, %p_b, [2, 2], [1, "
                      "1], [1, 1], False, [0, 0], 2)\n"
                      "  return (%convolution)\n");
  }
  SUBCASE("conv1d.padding 'valid' -> padding 0") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {3, 2, 4});
    auto x = b.input("x", F, {1, 2, 9});
    b.output(b.call("aten.conv1d.padding",
                    {arg_tensor(x), arg_tensor(w), arg_none(), arg_ints({1}), arg_string("valid")}, {F, {1, 3, 6}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%p_w: float32[3, 2, 4], %x: float32[1, 2, 9]):\n"
                      "  %convolution: float32[1, 3, 6] = aten.convolution.default(%x, %p_w, None, [1], [0], [1], "
                      "False, [0], 1)\n"
                      "  return (%convolution)\n");
  }
  SUBCASE("conv1d.padding 'same', dilation 2, unbatched input") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {3, 2, 4});
    auto x = b.input("x", F, {2, 9});
    b.output(b.call("aten.conv1d.padding",
                    {arg_tensor(x), arg_tensor(w), arg_none(), arg_ints({1}), arg_string("same"), arg_ints({2})},
                    {F, {3, 9}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%p_w: float32[3, 2, 4], %x: float32[2, 9]):\n"
                      "  %unsqueeze: float32[1, 2, 9] = aten.unsqueeze.default(%x, 0)\n"
                      "  %convolution: float32[1, 3, 9] = aten.convolution.default(%unsqueeze, %p_w, None, [1], "
                      "[3], [2], False, [0], 1)\n"
                      "  %squeeze: float32[3, 9] = aten.squeeze.dims(%convolution, [0])\n"
                      "  return (%squeeze)\n");
  }
  SUBCASE("conv_transpose1d: stride, padding, output_padding, bias") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {4, 2, 3});
    auto bias = b.parameter("p_b", "b", F, {2});
    auto x = b.input("x", F, {1, 4, 5});
    b.output(b.call("aten.conv_transpose1d.default",
                    {arg_tensor(x), arg_tensor(w), arg_tensor(bias), arg_ints({2}), arg_ints({1}), arg_ints({1})},
                    {F, {1, 2, 10}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%p_w: float32[4, 2, 3], %p_b: float32[2], %x: float32[1, 4, 5]):\n"
                      "  %convolution: float32[1, 2, 10] = aten.convolution.default(%x, %p_w, %p_b, [2], [1], [1], "
                      "True, [1], 1)\n"
                      "  return (%convolution)\n");
  }
}

TEST_CASE("decompose native_batch_norm / _batch_norm_no_update (eval) -> _native_batch_norm_legit_no_training") {
  SUBCASE("native_batch_norm, all three outputs used") {
    ProgramBuilder b;
    auto g = b.parameter("p_g", "bn.weight", F, {4});
    auto bb = b.parameter("p_b", "bn.bias", F, {4});
    auto rm = b.buffer("b_rm", "bn.running_mean", F, {4});
    auto rv = b.buffer("b_rv", "bn.running_var", F, {4});
    auto x = b.input("x", F, {2, 4, 3});
    auto outs = b.call_multi("aten.native_batch_norm.default",
                             {arg_tensor(x), arg_tensor(g), arg_tensor(bb), arg_tensor(rm), arg_tensor(rv),
                              arg_bool(false), arg_float(0.1), arg_float(1e-5)},
                             {{F, {2, 4, 3}}, {F, {0}}, {F, {0}}}, {"y", "save_mean", "save_invstd"});
    for (const auto& o : outs) b.output(o);
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%p_g: float32[4], %p_b: float32[4], %b_rm: float32[4], %b_rv: float32[4], "
                      "%x: float32[2, 4, 3]):\n"
                      "  %getitem: float32[2, 4, 3], %getitem_1: float32[0], "
                      "%getitem_2: float32[0] = aten._native_batch_norm_legit_no_training.default(%x, %p_g, %p_b, "
                      "%b_rm, %b_rv, 0.1, 1e-05)  # _native_batch_norm_legit_no_training\n"
                      "  return (%getitem, %getitem_1, %getitem_2)\n");
  }
  SUBCASE("_batch_norm_no_update, the output only") {
    ProgramBuilder b;
    auto rm = b.buffer("b_rm", "bn.running_mean", F, {3});
    auto rv = b.buffer("b_rv", "bn.running_var", F, {3});
    auto x = b.input("x", F, {1, 3, 2, 2});
    auto outs = b.call_multi("aten._batch_norm_no_update.default",
                             {arg_tensor(x), arg_none(), arg_none(), arg_tensor(rm), arg_tensor(rv), arg_float(0.1),
                              arg_float(1e-3)},
                             {{F, {1, 3, 2, 2}}, {F, {0}}, {F, {0}}, {ScalarType::Byte, {0}}},
                             {"y", "m", "s", "reserve"});
    b.output(outs[0]);
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%b_rm: float32[3], %b_rv: float32[3], %x: float32[1, 3, 2, 2]):\n"
                      "  %getitem: float32[1, 3, 2, 2], %getitem_1: float32[0], "
                      "%getitem_2: float32[0] = aten._native_batch_norm_legit_no_training.default(%x, None, None, "
                      "%b_rm, %b_rv, 0.1, 0.001)  # _native_batch_norm_legit_no_training\n"
                      "  return (%getitem)\n");
  }
}

TEST_CASE("decompose _unsafe_view / _reshape_alias / reshape_as / expand_as / swapaxes / squeeze.default") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 1, 6});
  auto o = b.input("o", F, {3, 4});
  auto e = b.input("e", F, {5, 2, 1, 6});
  b.output(b.call("aten._unsafe_view.default", {arg_tensor(x), arg_ints({12})}, {F, {12}}));
  b.output(b.call("aten._reshape_alias.default", {arg_tensor(x), arg_ints({2, 6}), arg_ints({6, 1})}, {F, {2, 6}}));
  b.output(b.call("aten.reshape_as.default", {arg_tensor(x), arg_tensor(o)}, {F, {3, 4}}));
  b.output(b.call("aten.expand_as.default", {arg_tensor(x), arg_tensor(e)}, {F, {5, 2, 1, 6}}));
  b.output(b.call("aten.swapaxes.default", {arg_tensor(x), arg_int(0), arg_int(-1)}, {F, {6, 1, 2}}));
  b.output(b.call("aten.squeeze.default", {arg_tensor(x)}, {F, {2, 6}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 1, 6], %o: float32[3, 4], %e: float32[5, 2, 1, 6]):\n"
                    "  %view: float32[12] = aten.view.default(%x, [12])\n"
                    "  %view_1: float32[2, 6] = aten.view.default(%x, [2, 6])\n"
                    "  %view_2: float32[3, 4] = aten.view.default(%x, [3, 4])\n"
                    "  %expand: float32[5, 2, 1, 6] = aten.expand.default(%x, [5, 2, 1, 6])\n"
                    "  %permute: float32[6, 1, 2] = aten.permute.default(%x, [2, 1, 0])\n"
                    "  %squeeze_1: float32[2, 6] = aten.squeeze.dims(%x, [0, 1, 2])\n"
                    "  return (%view, %view_1, %view_2, %expand, %permute, %squeeze_1)\n");
  // expand broadcasts with stride 0; permute swaps the strides of dims 0 and 2.
  const TensorMeta* ex = ep.graph().tensor_meta("expand");
  REQUIRE(ex);
  CHECK(ex->concrete_strides() == std::vector<int64_t>{0, 6, 6, 1});
  const TensorMeta* pm = ep.graph().tensor_meta("permute");
  REQUIRE(pm);
  CHECK(pm->concrete_strides() == std::vector<int64_t>{1, 6, 6});
}

TEST_CASE("decompose split.sizes -> split_with_sizes") {
  ProgramBuilder b;
  auto x = b.input("x", F, {7, 3});
  ExportedProgram& ep0 = b.program();
  Node sp(OpTarget("torch.ops.aten.split.sizes"),
          {positional("self", arg_tensor(x)), positional("split_size", arg_ints({2, 5}))},
          {arg_tensors({"s0", "s1"})}, "split");
  ep0.graph().append(std::move(sp));
  ep0.graph().set_tensor_meta("s0", pteforge::testing::make_meta({F, {2, 3}}));
  ep0.graph().set_tensor_meta("s1", pteforge::testing::make_meta({F, {5, 3}}));
  b.output("s0");
  b.output("s1");
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[7, 3]):\n"
                    "  [%getitem: float32[2, 3], %getitem_1: float32[5, 3]] = aten.split_with_sizes.default(%x, [2, "
                    "5])  # split_with_sizes\n"
                    "  return (%getitem, %getitem_1)\n");
}

TEST_CASE("decompose masked_fill.Tensor / rsub.Tensor / where.Scalar / where.ScalarSelf / true_divide / clamp_max / "
          "floor_divide.Scalar") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto y = b.input("y", F, {2, 3});
  auto m = b.input("m", ScalarType::Bool, {2, 3});
  auto v = b.input("v", ScalarType::Double, {});
  auto i = b.input("i", ScalarType::Long, {2, 3});
  b.output(b.call("aten.masked_fill.Tensor", {arg_tensor(x), arg_tensor(m), arg_tensor(v)}, {F, {2, 3}}));
  b.output(b.call("aten.rsub.Tensor", {arg_tensor(x), arg_tensor(y)}, {F, {2, 3}}, {{"alpha", arg_int(2)}}));
  b.output(b.call("aten.where.Scalar", {arg_tensor(m), arg_float(1.5), arg_int(0)}, {F, {2, 3}}));
  b.output(b.call("aten.where.ScalarSelf", {arg_tensor(m), arg_float(0.5), arg_tensor(i)}, {F, {2, 3}}));
  b.output(b.call("aten.true_divide.Tensor", {arg_tensor(x), arg_tensor(y)}, {F, {2, 3}}));
  b.output(b.call("aten.clamp_max.default", {arg_tensor(x), arg_float(6.0)}, {F, {2, 3}}));
  b.output(b.call("aten.floor_divide.Scalar", {arg_tensor(i), arg_int(4)}, {ScalarType::Long, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3], %y: float32[2, 3], %m: bool[2, 3], %v: float64[], %i: int64[2, 3]):\n"
      "  %_to_copy: float32[] = aten._to_copy.default(%v, dtype=torch.float32)\n"
      "  %where_2: float32[2, 3] = aten.where.self(%m, %_to_copy, %x)\n"
      "  %sub: float32[2, 3] = aten.sub.Tensor(%y, %x, alpha=2)\n"
      "  %scalar_tensor: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, "
      "layout=torch.strided, device=device(type='cpu'))\n"
      "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(1.5, dtype=torch.float32, "
      "layout=torch.strided, device=device(type='cpu'))\n"
      "  %where_3: float32[2, 3] = aten.where.self(%m, %scalar_tensor_1, %scalar_tensor)\n"
      // at::native::where: the scalar tensor first, then other.to(result_type).
      "  %scalar_tensor_2: float32[] = aten.scalar_tensor.default(0.5, dtype=torch.float32, "
      "layout=torch.strided, device=device(type='cpu'))\n"
      "  %_to_copy_1: float32[2, 3] = aten._to_copy.default(%i, dtype=torch.float32)\n"
      "  %where: float32[2, 3] = aten.where.self(%m, %scalar_tensor_2, %_to_copy_1)\n"
      "  %div: float32[2, 3] = aten.div.Tensor(%x, %y)\n"
      "  %clamp: float32[2, 3] = aten.clamp.default(%x, None, 6.0)\n"
      "  %div_1: int64[2, 3] = aten.div.Tensor_mode(%i, 4, rounding_mode='floor')\n"
      "  return (%where_2, %sub, %where_3, %where, %div, %clamp, %div_1)\n");
}

TEST_CASE(
    "decompose where.ScalarOther with a tensor to convert: the scalar tensor first, as at::native::where") {
  ProgramBuilder b;
  auto m = b.input("m", ScalarType::Bool, {2});
  auto i = b.input("i", ScalarType::Long, {2});
  b.output(b.call("aten.where.ScalarOther", {arg_tensor(m), arg_tensor(i), arg_float(0.5)}, {F, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%m: bool[2], %i: int64[2]):\n"
                    "  %scalar_tensor: float32[] = aten.scalar_tensor.default(0.5, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %_to_copy: float32[2] = aten._to_copy.default(%i, dtype=torch.float32)\n"
                    // where_1: named while the node it replaces is still called where
                    "  %where_1: float32[2] = aten.where.self(%m, %_to_copy, %scalar_tensor)\n"
                    "  return (%where_1)\n");
}

TEST_CASE("decompose to.dtype_layout / to.other / new_full") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto h = b.input("h", ScalarType::Half, {2});
  auto f = b.input("f", F, {2});
  b.output(b.call("aten.to.dtype_layout", {arg_tensor(x)}, {ScalarType::Half, {3}},
                  {{"dtype", arg_dtype(ScalarType::Half)}}));
  b.output(b.call("aten.to.dtype_layout", {arg_tensor(x)}, {F, {3}}, {{"dtype", arg_dtype(F)}}));
  b.output(b.call("aten.to.other", {arg_tensor(x), arg_tensor(h)}, {ScalarType::Half, {3}}));
  b.output(b.call("aten.to.other", {arg_tensor(x), arg_tensor(f)}, {F, {3}}));
  b.output(b.call("aten.new_full.default", {arg_tensor(h), arg_ints({2, 2}), arg_float(7.0)},
                  {ScalarType::Half, {2, 2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3], %h: float16[2], %f: float32[2]):\n"
                    "  %_to_copy: float16[3] = aten._to_copy.default(%x, dtype=torch.float16)\n"
                    "  %_to_copy_1: float16[3] = aten._to_copy.default(%x, dtype=torch.float16, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %full: float16[2, 2] = aten.full.default([2, 2], 7.0, dtype=torch.float16, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  return (%_to_copy, %x, %_to_copy_1, %x, %full)\n");
}

TEST_CASE("decompose to.device / to.dtype_layout pass the device, layout and pin_memory they are given") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  const Device cpu;
  // to.device(x, cpu, float16): the device goes on; to.device(x, cpu) alone aliases x.
  b.output(b.call("aten.to.device", {arg_tensor(x), arg_device(cpu), arg_dtype(ScalarType::Half)},
                  {ScalarType::Half, {3}}));
  b.output(b.call("aten.to.device", {arg_tensor(x), arg_device(cpu), arg_dtype(F)}, {F, {3}}));
  b.output(b.call("aten.to.dtype_layout", {arg_tensor(x)}, {ScalarType::Half, {3}},
                  {{"dtype", arg_dtype(ScalarType::Half)},
                   {"layout", arg_layout(Layout::Strided)},
                   {"device", arg_device(cpu)},
                   {"pin_memory", arg_bool(false)}}));
  // Another device never aliases.
  Device other;
  other.type = "meta";
  b.output(b.call("aten.to.dtype_layout", {arg_tensor(x)}, {F, {3}}, {{"device", arg_device(other)}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3]):\n"
                    "  %_to_copy: float16[3] = aten._to_copy.default(%x, dtype=torch.float16, "
                    "device=device(type='cpu'))\n"
                    "  %_to_copy_1: float16[3] = aten._to_copy.default(%x, dtype=torch.float16, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %_to_copy_2: float32[3] = aten._to_copy.default(%x, device=device(type='meta'))\n"
                    "  return (%_to_copy, %x, %_to_copy_1, %_to_copy_2)\n");
}

TEST_CASE("decompose dot / mv -> mul.Tensor + sum.dim_IntList") {
  ProgramBuilder b;
  auto a = b.input("a", F, {4});
  auto c = b.input("c", F, {4});
  auto m = b.input("m", F, {3, 4});
  b.output(b.call("aten.dot.default", {arg_tensor(a), arg_tensor(c)}, {F, {}}));
  b.output(b.call("aten.mv.default", {arg_tensor(m), arg_tensor(a)}, {F, {3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%a: float32[4], %c: float32[4], %m: float32[3, 4]):\n"
                    "  %mul: float32[4] = aten.mul.Tensor(%a, %c)\n"
                    "  %sum_1: float32[] = aten.sum.dim_IntList(%mul, [])\n"
                    "  %mul_1: float32[3, 4] = aten.mul.Tensor(%m, %a)\n"
                    "  %sum_2: float32[3] = aten.sum.dim_IntList(%mul_1, [1])\n"
                    "  return (%sum_1, %sum_2)\n");
}

TEST_CASE("decompose mv in float16: products and sum in float32, as torch's pw_cast_for_opmath") {
  ProgramBuilder b;
  auto m = b.input("m", ScalarType::Half, {3, 4});
  auto v = b.input("v", ScalarType::Half, {4});
  b.output(b.call("aten.mv.default", {arg_tensor(m), arg_tensor(v)}, {ScalarType::Half, {3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%m: float16[3, 4], %v: float16[4]):\n"
                    "  %_to_copy: float32[3, 4] = aten._to_copy.default(%m, dtype=torch.float32)\n"
                    "  %_to_copy_1: float32[4] = aten._to_copy.default(%v, dtype=torch.float32)\n"
                    "  %mul: float32[3, 4] = aten.mul.Tensor(%_to_copy, %_to_copy_1)\n"
                    "  %sum_1: float32[3] = aten.sum.dim_IntList(%mul, [1])\n"
                    "  %_to_copy_2: float16[3] = aten._to_copy.default(%sum_1, dtype=torch.float16)\n"
                    "  return (%_to_copy_2)\n");
}

TEST_CASE("decompose conv3d.padding 'same' (even kernel) / conv_transpose3d") {
  SUBCASE("conv3d.padding 'same', kernel 2: constant_pad_nd on the right of each spatial dim") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {2, 1, 2, 2, 2});
    auto x = b.input("x", F, {1, 1, 3, 3, 3});
    b.output(b.call("aten.conv3d.padding",
                    {arg_tensor(x), arg_tensor(w), arg_none(), arg_ints({1, 1, 1}), arg_string("same")},
                    {F, {1, 2, 3, 3, 3}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%p_w: float32[2, 1, 2, 2, 2], %x: float32[1, 1, 3, 3, 3]):\n"
                      "  %constant_pad_nd: float32[1, 1, 4, 4, 4] = aten.constant_pad_nd.default(%x, [0, 1, 0, 1, "
                      "0, 1], 0.0)\n"
                      "  %convolution: float32[1, 2, 3, 3, 3] = aten.convolution.default(%constant_pad_nd, %p_w, "
                      "None, [1, 1, 1], [0, 0, 0], [1, 1, 1], False, [0, 0, 0], 1)\n"
                      "  return (%convolution)\n");
  }
  SUBCASE("conv_transpose3d: stride 2, groups 2") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {4, 1, 2, 2, 2});
    auto x = b.input("x", F, {1, 4, 2, 2, 2});
    b.output(b.call("aten.conv_transpose3d.input",
                    {arg_tensor(x), arg_tensor(w), arg_none(), arg_ints({2, 2, 2}), arg_ints({0, 0, 0}),
                     arg_ints({0, 0, 0}), arg_int(2)},
                    {F, {1, 2, 4, 4, 4}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%p_w: float32[4, 1, 2, 2, 2], %x: float32[1, 4, 2, 2, 2]):\n"
                      "  %convolution: float32[1, 2, 4, 4, 4] = aten.convolution.default(%x, %p_w, None, [2, 2, 2], "
                      "[0, 0, 0], [1, 1, 1], True, [0, 0, 0], 2)\n"
                      "  return (%convolution)\n");
  }
}

TEST_CASE("decompose _unsafe_index / _unsafe_index_put -> index.Tensor / index_put") {
  ProgramBuilder b;
  auto x = b.input("x", F, {4, 5});
  auto idx = b.input("idx", ScalarType::Long, {3});
  auto v = b.input("v", F, {3, 5});
  std::vector<OptionalTensorArgument> none_idx{{std::nullopt}, {idx}};
  std::vector<OptionalTensorArgument> row_idx{{idx}};
  b.output(b.call("aten._unsafe_index.Tensor",
                  {arg_tensor(x), Argument::make<ArgTag::OptionalTensors>(none_idx)}, {F, {4, 3}}));
  b.output(b.call("aten._unsafe_index_put.default",
                  {arg_tensor(x), Argument::make<ArgTag::OptionalTensors>(row_idx), arg_tensor(v), arg_bool(true)},
                  {F, {4, 5}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[4, 5], %idx: int64[3], %v: float32[3, 5]):\n"
                    "  %index: float32[4, 3] = aten.index.Tensor(%x, [None, %idx])\n"
                    "  %index_put: float32[4, 5] = aten.index_put.default(%x, [%idx], %v, True)\n"
                    "  return (%index, %index_put)\n");
}

TEST_CASE("decompose adaptive_avg_pool3d (1, 1, 1) / eval alpha dropouts / lift_fresh / swapdims / "
          "true_divide.Scalar") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 2, 3, 4, 5});
  auto y = b.input("y", F, {2, 3});
  b.output(b.call("aten.adaptive_avg_pool3d.default", {arg_tensor(x), arg_ints({1, 1, 1})}, {F, {1, 2, 1, 1, 1}}));
  b.output(b.call("aten.alpha_dropout.default", {arg_tensor(y), arg_float(0.5), arg_bool(false)}, {F, {2, 3}}));
  b.output(
      b.call("aten.feature_alpha_dropout.default", {arg_tensor(y), arg_float(0.2), arg_bool(false)}, {F, {2, 3}}));
  b.output(b.call("aten.lift_fresh.default", {arg_tensor(y)}, {F, {2, 3}}));
  b.output(b.call("aten.swapdims.default", {arg_tensor(y), arg_int(0), arg_int(1)}, {F, {3, 2}}));
  b.output(b.call("aten.true_divide.Scalar", {arg_tensor(y), arg_int(2)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[1, 2, 3, 4, 5], %y: float32[2, 3]):\n"
                    "  %mean: float32[1, 2, 1, 1, 1] = aten.mean.dim(%x, [-1, -2, -3], True)\n"
                    "  %alias: float32[2, 3] = aten.alias.default(%y)\n"
                    "  %permute: float32[3, 2] = aten.permute.default(%y, [1, 0])\n"
                    "  %div: float32[2, 3] = aten.div.Tensor(%y, 2)\n"
                    "  return (%mean, %y, %y, %alias, %permute, %div)\n");
}

TEST_CASE("decompose alpha_dropout in training mode is refused") {
  ProgramBuilder b;
  auto y = b.input("y", F, {2, 3});
  b.output(b.call("aten.alpha_dropout.default", {arg_tensor(y), arg_float(0.5), arg_bool(true)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(st.error().where.node == std::optional<std::string>("alpha_dropout"));
  CHECK(st.error().message.find("model.eval()") != std::string::npos);
}

TEST_CASE("decompose unsafe_chunk / unsafe_split.Tensor / unsafe_split_with_sizes -> split_with_sizes") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 10});
  ExportedProgram& ep0 = b.program();
  auto add_list_node = [&](const char* target, std::vector<NamedArgument> args, const char* name,
                           std::vector<std::pair<std::string, int64_t>> outs) {
    std::vector<std::string> names;
    for (const auto& o : outs) names.push_back(o.first);
    ep0.graph().append(Node(OpTarget(target), std::move(args), {arg_tensors(names)}, name));
    for (const auto& [n, w] : outs) ep0.graph().set_tensor_meta(n, pteforge::testing::make_meta({F, {2, w}}));
  };
  add_list_node("torch.ops.aten.unsafe_chunk.default",
                {positional("self", arg_tensor(x)), positional("chunks", arg_int(4)), positional("dim", arg_int(1))},
                "unsafe_chunk", {{"c0", 3}, {"c1", 3}, {"c2", 3}, {"c3", 1}});
  add_list_node("torch.ops.aten.unsafe_split.Tensor",
                {positional("self", arg_tensor(x)), positional("split_size", arg_int(4)),
                 positional("dim", arg_int(1))},
                "unsafe_split", {{"s0", 4}, {"s1", 4}, {"s2", 2}});
  add_list_node("torch.ops.aten.unsafe_split_with_sizes.default",
                {positional("self", arg_tensor(x)), positional("split_sizes", arg_ints({3, 7})),
                 positional("dim", arg_int(-1))},
                "unsafe_split_with_sizes", {{"w0", 3}, {"w1", 7}});
  for (const char* o : {"c3", "s2", "w1"}) b.output(o);
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 10]):\n"
                    "  [%getitem: float32[2, 3], %getitem_1: float32[2, 3], %getitem_2: float32[2, 3], "
                    "%getitem_3: float32[2, 1]] = aten.split_with_sizes.default(%x, [3, 3, 3, 1], "
                    "1)  # split_with_sizes\n"
                    "  [%getitem_4: float32[2, 4], %getitem_5: float32[2, 4], %getitem_6: float32[2, "
                    "2]] = aten.split_with_sizes.default(%x, [4, 4, 2], 1)  # split_with_sizes_1\n"
                    "  [%getitem_7: float32[2, 3], %getitem_8: float32[2, 7]] = aten.split_with_sizes.default(%x, "
                    "[3, 7], -1)  # split_with_sizes_2\n"
                    "  return (%getitem_3, %getitem_6, %getitem_8)\n");
}

// ---- rules mirroring torch._refs / torch._decomp references (elementwise, shape, reductions) ---

TEST_CASE("decompose elu -> gt, mul, mul, expm1, mul, where (torch._refs elu)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  // Left out: the reference's own defaults, 1.0 each (alpha * scale = 1.0).
  b.output(b.call("aten.elu.default", {arg_tensor(x)}, {F, {2, 3}}));
  // alpha 0.5, scale 2 (int), input_scale 1.5: alpha * scale = 1.0.
  b.output(
      b.call("aten.elu.default", {arg_tensor(x), arg_float(0.5), arg_int(2), arg_float(1.5)}, {F, {2, 3}}));
  // alpha the int default 1 before a non-default scale: the dispatcher keeps it, so
  // alpha * scale is the int 2 (input_scale, left out, is the reference's 1.0).
  b.output(b.call("aten.elu.default", {arg_tensor(x), arg_int(1), arg_int(2)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3]):\n"
                    "  %gt: bool[2, 3] = aten.gt.Scalar(%x, 0)\n"
                    "  %mul: float32[2, 3] = aten.mul.Tensor(%x, 1.0)\n"
                    "  %mul_1: float32[2, 3] = aten.mul.Tensor(%x, 1.0)\n"
                    "  %expm1: float32[2, 3] = aten.expm1.default(%mul_1)\n"
                    "  %mul_2: float32[2, 3] = aten.mul.Tensor(%expm1, 1.0)\n"
                    "  %where: float32[2, 3] = aten.where.self(%gt, %mul, %mul_2)\n"
                    "  %gt_1: bool[2, 3] = aten.gt.Scalar(%x, 0)\n"
                    "  %mul_3: float32[2, 3] = aten.mul.Tensor(%x, 2)\n"
                    "  %mul_4: float32[2, 3] = aten.mul.Tensor(%x, 1.5)\n"
                    "  %expm1_1: float32[2, 3] = aten.expm1.default(%mul_4)\n"
                    "  %mul_5: float32[2, 3] = aten.mul.Tensor(%expm1_1, 1.0)\n"
                    "  %where_1: float32[2, 3] = aten.where.self(%gt_1, %mul_3, %mul_5)\n"
                    "  %gt_2: bool[2, 3] = aten.gt.Scalar(%x, 0)\n"
                    "  %mul_6: float32[2, 3] = aten.mul.Tensor(%x, 2)\n"
                    "  %mul_7: float32[2, 3] = aten.mul.Tensor(%x, 1.0)\n"
                    "  %expm1_2: float32[2, 3] = aten.expm1.default(%mul_7)\n"
                    "  %mul_8: float32[2, 3] = aten.mul.Tensor(%expm1_2, 2)\n"
                    "  %where_2: float32[2, 3] = aten.where.self(%gt_2, %mul_6, %mul_8)\n"
                    "  return (%where, %where_1, %where_2)\n");
}

TEST_CASE("decompose elu on float16 computes in float32, an int tensor is refused") {
  SUBCASE("float16") {
    ProgramBuilder b;
    auto x = b.input("x", ScalarType::Half, {4});
    b.output(b.call("aten.elu.default", {arg_tensor(x), arg_int(2)}, {ScalarType::Half, {4}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%x: float16[4]):\n"
                      "  %_to_copy: float32[4] = aten._to_copy.default(%x, dtype=torch.float32)\n"
                      "  %gt: bool[4] = aten.gt.Scalar(%_to_copy, 0)\n"
                      "  %mul: float32[4] = aten.mul.Tensor(%_to_copy, 1.0)\n"
                      "  %mul_1: float32[4] = aten.mul.Tensor(%_to_copy, 1.0)\n"
                      "  %expm1: float32[4] = aten.expm1.default(%mul_1)\n"
                      "  %mul_2: float32[4] = aten.mul.Tensor(%expm1, 2.0)\n"
                      "  %where: float32[4] = aten.where.self(%gt, %mul, %mul_2)\n"
                      "  %_to_copy_1: float16[4] = aten._to_copy.default(%where, dtype=torch.float16)\n"
                      "  return (%_to_copy_1)\n");
  }
  SUBCASE("int64 input") {
    ProgramBuilder b;
    auto x = b.input("x", ScalarType::Long, {4});
    b.output(b.call("aten.elu.default", {arg_tensor(x)}, {ScalarType::Long, {4}}));
    ExportedProgram ep = b.build();
    Status st = pteforge::testing::decompose(ep);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == ErrorCode::UNSUPPORTED_FEATURE);
    CHECK(st.error().where.node == std::optional<std::string>("elu"));
    CHECK(st.error().message.find("floating-point") != std::string::npos);
  }
}

TEST_CASE("decompose softplus: without beta exp, log1p, gt, where, with beta mul first and div after") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  b.output(b.call("aten.softplus.default", {arg_tensor(x)}, {F, {2, 3}}));
  b.output(b.call("aten.softplus.default", {arg_tensor(x), arg_float(2.0), arg_float(10.0)}, {F, {2, 3}}));
  // beta given as the int default 1 before a non-default threshold: the dispatcher keeps
  // it, the beta form; alone (trailing) it is dropped, the no-beta form.
  b.output(b.call("aten.softplus.default", {arg_tensor(x), arg_int(1), arg_int(5)}, {F, {2, 3}}));
  b.output(b.call("aten.softplus.default", {arg_tensor(x), arg_int(1)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3]):\n"
                    "  %exp: float32[2, 3] = aten.exp.default(%x)\n"
                    "  %log1p: float32[2, 3] = aten.log1p.default(%exp)\n"
                    "  %gt: bool[2, 3] = aten.gt.Scalar(%x, 20)\n"
                    "  %where: float32[2, 3] = aten.where.self(%gt, %x, %log1p)\n"
                    "  %mul: float32[2, 3] = aten.mul.Tensor(%x, 2.0)\n"
                    "  %exp_1: float32[2, 3] = aten.exp.default(%mul)\n"
                    "  %log1p_1: float32[2, 3] = aten.log1p.default(%exp_1)\n"
                    "  %div: float32[2, 3] = aten.div.Tensor(%log1p_1, 2.0)\n"
                    "  %gt_1: bool[2, 3] = aten.gt.Scalar(%mul, 10.0)\n"
                    "  %where_1: float32[2, 3] = aten.where.self(%gt_1, %x, %div)\n"
                    "  %mul_1: float32[2, 3] = aten.mul.Tensor(%x, 1)\n"
                    "  %exp_2: float32[2, 3] = aten.exp.default(%mul_1)\n"
                    "  %log1p_2: float32[2, 3] = aten.log1p.default(%exp_2)\n"
                    "  %div_1: float32[2, 3] = aten.div.Tensor(%log1p_2, 1)\n"
                    "  %gt_2: bool[2, 3] = aten.gt.Scalar(%mul_1, 5)\n"
                    "  %where_2: float32[2, 3] = aten.where.self(%gt_2, %x, %div_1)\n"
                    "  %exp_3: float32[2, 3] = aten.exp.default(%x)\n"
                    "  %log1p_3: float32[2, 3] = aten.log1p.default(%exp_3)\n"
                    "  %gt_3: bool[2, 3] = aten.gt.Scalar(%x, 20)\n"
                    "  %where_3: float32[2, 3] = aten.where.self(%gt_3, %x, %log1p_3)\n"
                    "  return (%where, %where_1, %where_2, %where_3)\n");
}

TEST_CASE("decompose softplus on bfloat16 computes in float32") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::BFloat16, {4});
  b.output(b.call("aten.softplus.default", {arg_tensor(x), arg_float(0.5)}, {ScalarType::BFloat16, {4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: bfloat16[4]):\n"
                    "  %_to_copy: float32[4] = aten._to_copy.default(%x, dtype=torch.float32)\n"
                    "  %mul: float32[4] = aten.mul.Tensor(%_to_copy, 0.5)\n"
                    "  %exp: float32[4] = aten.exp.default(%mul)\n"
                    "  %log1p: float32[4] = aten.log1p.default(%exp)\n"
                    "  %div: float32[4] = aten.div.Tensor(%log1p, 0.5)\n"
                    "  %gt: bool[4] = aten.gt.Scalar(%mul, 20)\n"
                    "  %where: float32[4] = aten.where.self(%gt, %_to_copy, %div)\n"
                    "  %_to_copy_1: bfloat16[4] = aten._to_copy.default(%where, dtype=torch.bfloat16)\n"
                    "  return (%_to_copy_1)\n");
}

TEST_CASE("decompose pixel_shuffle -> view, permute, clone + view (reshape), clone(contiguous_format)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 8, 3, 5});
  auto y = b.input("y", F, {4, 2, 2});
  b.output(b.call("aten.pixel_shuffle.default", {arg_tensor(x), arg_int(2)}, {F, {2, 2, 6, 10}}));
  // Upscale factor 1: the permuted tensor is viewable, reshape is a view.
  b.output(b.call("aten.pixel_shuffle.default", {arg_tensor(y), arg_int(1)}, {F, {4, 2, 2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 8, 3, 5], %y: float32[4, 2, 2]):\n"
      "  %view: float32[2, 2, 2, 2, 3, 5] = aten.view.default(%x, [2, 2, 2, 2, 3, 5])\n"
      "  %permute: float32[2, 2, 3, 2, 5, 2] = aten.permute.default(%view, [0, 1, 4, 2, 5, 3])\n"
      "  %clone: float32[2, 2, 3, 2, 5, 2] = aten.clone.default(%permute, "
      "memory_format=torch.contiguous_format)\n"
      "  %view_1: float32[2, 2, 6, 10] = aten.view.default(%clone, [2, 2, 6, 10])\n"
      "  %clone_1: float32[2, 2, 6, 10] = aten.clone.default(%view_1, "
      "memory_format=torch.contiguous_format)\n"
      "  %view_2: float32[4, 1, 1, 2, 2] = aten.view.default(%y, [4, 1, 1, 2, 2])\n"
      "  %permute_1: float32[4, 2, 1, 2, 1] = aten.permute.default(%view_2, [0, 3, 1, 4, 2])\n"
      "  %view_3: float32[4, 2, 2] = aten.view.default(%permute_1, [4, 2, 2])\n"
      "  %clone_2: float32[4, 2, 2] = aten.clone.default(%view_3, memory_format=torch.contiguous_format)\n"
      "  return (%clone_1, %clone_2)\n");
}

TEST_CASE("decompose pixel_shuffle: float16 is not cast, bad channels, rank and layout are refused") {
  SUBCASE("float16") {
    ProgramBuilder b;
    auto x = b.input("x", ScalarType::Half, {4, 1, 1});
    b.output(
        b.call("aten.pixel_shuffle.default", {arg_tensor(x), arg_int(2)}, {ScalarType::Half, {1, 2, 2}}));
    ExportedProgram ep = b.build();
    expect_decomposed(
        ep,
        "graph(%x: float16[4, 1, 1]):\n"
        "  %view: float16[1, 2, 2, 1, 1] = aten.view.default(%x, [1, 2, 2, 1, 1])\n"
        "  %permute: float16[1, 1, 2, 1, 2] = aten.permute.default(%view, [0, 3, 1, 4, 2])\n"
        // Size-1 dims: the permuted tensor is viewable, reshape is a view.
        "  %view_1: float16[1, 2, 2] = aten.view.default(%permute, [1, 2, 2])\n"
        "  %clone: float16[1, 2, 2] = aten.clone.default(%view_1, memory_format=torch.contiguous_format)\n"
        "  return (%clone)\n");
  }
  auto refused = [](std::vector<int64_t> sizes, int64_t r, std::vector<int64_t> out, ErrorCode code,
                    const std::string& text, bool transposed = false) {
    ProgramBuilder b;
    auto x = b.input("x", F, sizes);
    std::string in = x;
    if (transposed) {
      in = b.call("aten.transpose.int", {arg_tensor(x), arg_int(1), arg_int(2)},
                  {F, {sizes[0], sizes[2], sizes[1]}});
    }
    b.output(b.call("aten.pixel_shuffle.default", {arg_tensor(in), arg_int(r)}, {F, out}));
    ExportedProgram ep = b.build();
    Status st = pteforge::testing::decompose(ep);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == code);
    CHECK(st.error().where.node == std::optional<std::string>("pixel_shuffle"));
    CHECK_MESSAGE(st.error().message.find(text) != std::string::npos, st.error().message);
  };
  SUBCASE("channels not divisible by r squared") {
    refused({6, 2, 2}, 2, {1, 4, 4}, ErrorCode::INVALID_GRAPH, "divisible by the square of upscale_factor");
  }
  SUBCASE("rank 2") { refused({4, 4}, 2, {4, 4}, ErrorCode::INVALID_GRAPH, "at least 3 dimensions"); }
  SUBCASE("non-positive factor") { refused({4, 2, 2}, 0, {4, 2, 2}, ErrorCode::INVALID_GRAPH, "positive"); }
  SUBCASE("non-contiguous input") {
    refused({4, 3, 2}, 2, {1, 4, 6}, ErrorCode::UNSUPPORTED_FEATURE, "non-contiguous", true);
  }
}

TEST_CASE("decompose roll: one dim -> arange, add, fmod, index_select, several dims one after another") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3, 4});
  b.output(b.call("aten.roll.default", {arg_tensor(x), arg_ints({1}), arg_ints({-1})}, {F, {3, 4}}));
  // Two pairs: dim 0 first, then dim 1; a negative shift and one past the size.
  b.output(b.call("aten.roll.default", {arg_tensor(x), arg_ints({-1, 6}), arg_ints({0, 1})}, {F, {3, 4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[3, 4]):\n"
      "  %arange: int64[4] = aten.arange.start_step(0, 4, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %add: int64[4] = aten.add.Tensor(%arange, 3)\n"
      "  %fmod: int64[4] = aten.fmod.Scalar(%add, 4)\n"
      "  %index_select: float32[3, 4] = aten.index_select.default(%x, 1, %fmod)\n"
      "  %arange_1: int64[3] = aten.arange.start_step(0, 3, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %add_1: int64[3] = aten.add.Tensor(%arange_1, 1)\n"
      "  %fmod_1: int64[3] = aten.fmod.Scalar(%add_1, 3)\n"
      "  %index_select_1: float32[3, 4] = aten.index_select.default(%x, 0, %fmod_1)\n"
      "  %arange_2: int64[4] = aten.arange.start_step(0, 4, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %add_2: int64[4] = aten.add.Tensor(%arange_2, 2)\n"
      "  %fmod_2: int64[4] = aten.fmod.Scalar(%add_2, 4)\n"
      "  %index_select_2: float32[3, 4] = aten.index_select.default(%index_select_1, 1, %fmod_2)\n"
      "  return (%index_select, %index_select_2)\n");
}

TEST_CASE("decompose roll without dims: flatten (view), roll dim 0, view back, empty input: clone") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Half, {2, 3});
  auto e = b.input("e", F, {0, 3});
  b.output(b.call("aten.roll.default", {arg_tensor(x), arg_ints({2})}, {ScalarType::Half, {2, 3}}));
  b.output(b.call("aten.roll.default", {arg_tensor(e), arg_ints({1}), arg_ints({1})}, {F, {0, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float16[2, 3], %e: float32[0, 3]):\n"
      "  %view: float16[6] = aten.view.default(%x, [6])\n"
      "  %arange: int64[6] = aten.arange.start_step(0, 6, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %add: int64[6] = aten.add.Tensor(%arange, 4)\n"
      "  %fmod: int64[6] = aten.fmod.Scalar(%add, 6)\n"
      "  %index_select: float16[6] = aten.index_select.default(%view, 0, %fmod)\n"
      "  %view_1: float16[2, 3] = aten.view.default(%index_select, [2, 3])\n"
      "  %clone: float32[0, 3] = aten.clone.default(%e)\n"
      "  return (%view_1, %clone)\n");
}

TEST_CASE("decompose roll: misaligned shifts/dims and a 0-d input with dims are refused") {
  auto refused = [](std::vector<int64_t> sizes, std::vector<int64_t> shifts, std::vector<int64_t> dims,
                    ErrorCode code, const std::string& text) {
    ProgramBuilder b;
    auto x = b.input("x", F, sizes);
    b.output(b.call("aten.roll.default", {arg_tensor(x), arg_ints(shifts), arg_ints(dims)}, {F, sizes}));
    ExportedProgram ep = b.build();
    Status st = pteforge::testing::decompose(ep);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == code);
    CHECK(st.error().where.node == std::optional<std::string>("roll"));
    CHECK_MESSAGE(st.error().message.find(text) != std::string::npos, st.error().message);
  };
  SUBCASE("misaligned") { refused({3, 4}, {1, 2}, {0}, ErrorCode::INVALID_GRAPH, "must align"); }
  SUBCASE("0-d with a dim") { refused({}, {1}, {0}, ErrorCode::INVALID_GRAPH, "no dimensions"); }
}

TEST_CASE("decompose var_mean.correction -> var.correction + mean.dim (float16 as it is)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 4});
  auto h = b.input("h", ScalarType::Half, {2, 3});
  auto outs = b.call_multi("aten.var_mean.correction", {arg_tensor(x), arg_ints({2})},
                           {{F, {2, 3, 1}}, {F, {2, 3, 1}}}, {"v", "m"},
                           {{"correction", arg_int(0)}, {"keepdim", arg_bool(true)}});
  b.output(outs[0]);
  b.output(outs[1]);
  // No dim, no correction: over every dim, the default correction.
  auto hs = b.call_multi("aten.var_mean.correction", {arg_tensor(h)},
                         {{ScalarType::Half, {}}, {ScalarType::Half, {}}}, {"hv", "hm"});
  b.output(hs[0]);
  b.output(hs[1]);
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3, 4], %h: float16[2, 3]):\n"
                    "  %var: float32[2, 3, 1] = aten.var.correction(%x, [2], correction=0, keepdim=True)\n"
                    "  %mean: float32[2, 3, 1] = aten.mean.dim(%x, [2], True)\n"
                    "  %var_1: float16[] = aten.var.correction(%h)\n"
                    "  %mean_1: float16[] = aten.mean.dim(%h, None)\n"
                    "  return (%var, %mean, %var_1, %mean_1)\n");
}

TEST_CASE("decompose linalg_vector_norm: ord 2, odd ord (abs), 0, inf") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  b.output(b.call("aten.linalg_vector_norm.default", {arg_tensor(x)}, {F, {}}));
  b.output(b.call("aten.linalg_vector_norm.default",
                  {arg_tensor(x), arg_float(3.0), arg_ints({1}), arg_bool(true)}, {F, {2, 1}}));
  b.output(b.call("aten.linalg_vector_norm.default", {arg_tensor(x), arg_int(0), arg_ints({1})}, {F, {2}}));
  b.output(b.call("aten.linalg_vector_norm.default",
                  {arg_tensor(x), arg_float(std::numeric_limits<double>::infinity()), arg_ints({0})},
                  {F, {3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3]):\n"
                    "  %pow_1: float32[2, 3] = aten.pow.Tensor_Scalar(%x, 2)\n"
                    "  %sum_1: float32[] = aten.sum.dim_IntList(%pow_1, None)\n"
                    "  %pow_2: float32[] = aten.pow.Tensor_Scalar(%sum_1, 0.5)\n"
                    "  %abs_1: float32[2, 3] = aten.abs.default(%x)\n"
                    "  %pow_3: float32[2, 3] = aten.pow.Tensor_Scalar(%abs_1, 3.0)\n"
                    "  %sum_2: float32[2, 1] = aten.sum.dim_IntList(%pow_3, [1], True)\n"
                    "  %pow_4: float32[2, 1] = aten.pow.Tensor_Scalar(%sum_2, " +
                        print_argument(arg_float(1.0 / 3.0)) +
                        ")\n"
                        "  %ne: bool[2, 3] = aten.ne.Scalar(%x, 0.0)\n"
                        "  %sum_3: float32[2] = aten.sum.dim_IntList(%ne, [1], dtype=torch.float32)\n"
                        "  %abs_2: float32[2, 3] = aten.abs.default(%x)\n"
                        "  %amax: float32[3] = aten.amax.default(%abs_2, [0])\n"
                        "  return (%pow_2, %pow_4, %sum_3, %amax)\n");
}

TEST_CASE("decompose linalg_vector_norm on float16 computes in float32, bad inputs are refused") {
  SUBCASE("float16, result float16") {
    ProgramBuilder b;
    auto x = b.input("x", ScalarType::Half, {4});
    b.output(b.call("aten.linalg_vector_norm.default", {arg_tensor(x)}, {ScalarType::Half, {}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%x: float16[4]):\n"
                      "  %_to_copy: float32[4] = aten._to_copy.default(%x, dtype=torch.float32)\n"
                      "  %pow_1: float32[4] = aten.pow.Tensor_Scalar(%_to_copy, 2)\n"
                      "  %sum_1: float32[] = aten.sum.dim_IntList(%pow_1, None)\n"
                      "  %pow_2: float32[] = aten.pow.Tensor_Scalar(%sum_1, 0.5)\n"
                      "  %_to_copy_1: float16[] = aten._to_copy.default(%pow_2, dtype=torch.float16)\n"
                      "  return (%_to_copy_1)\n");
  }
  SUBCASE("float16 with dtype=float32: no cast back") {
    ProgramBuilder b;
    auto x = b.input("x", ScalarType::Half, {4});
    b.output(b.call("aten.linalg_vector_norm.default", {arg_tensor(x), arg_int(1)}, {F, {}},
                    {{"dtype", arg_dtype(F)}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%x: float16[4]):\n"
                      "  %_to_copy: float32[4] = aten._to_copy.default(%x, dtype=torch.float32)\n"
                      "  %abs_1: float32[4] = aten.abs.default(%_to_copy)\n"
                      "  %pow_1: float32[4] = aten.pow.Tensor_Scalar(%abs_1, 1)\n"
                      "  %sum_1: float32[] = aten.sum.dim_IntList(%pow_1, None)\n"
                      "  %pow_2: float32[] = aten.pow.Tensor_Scalar(%sum_1, 1.0)\n"
                      "  return (%pow_2)\n");
  }
  auto refused = [](ScalarType in, std::vector<ir::Argument> args,
                    std::vector<std::pair<std::string, ir::Argument>> kw, ErrorCode code,
                    const std::string& text) {
    ProgramBuilder b;
    auto x = b.input("x", in, {4});
    args.insert(args.begin(), arg_tensor(x));
    b.output(b.call("aten.linalg_vector_norm.default", std::move(args), {F, {}}, std::move(kw)));
    ExportedProgram ep = b.build();
    Status st = pteforge::testing::decompose(ep);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == code);
    CHECK(st.error().where.node == std::optional<std::string>("linalg_vector_norm"));
    CHECK_MESSAGE(st.error().message.find(text) != std::string::npos, st.error().message);
  };
  SUBCASE("int input") { refused(ScalarType::Long, {}, {}, ErrorCode::INVALID_GRAPH, "floating point"); }
  SUBCASE("narrowing dtype") {
    refused(F, {}, {{"dtype", arg_dtype(ScalarType::Half)}}, ErrorCode::INVALID_GRAPH, "without narrowing");
  }
  SUBCASE("inf without dim") {
    refused(F, {arg_float(std::numeric_limits<double>::infinity())}, {}, ErrorCode::UNSUPPORTED_FEATURE,
            "without dim");
  }
}

TEST_CASE("decompose logit: lt, gt, where (scalar_tensor + where.self) twice, sub, div, log") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  b.output(b.call("aten.logit.default", {arg_tensor(x), arg_float(0.25)}, {F, {3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3]):\n"
                    "  %lt: bool[3] = aten.lt.Scalar(%x, 0.25)\n"
                    "  %gt: bool[3] = aten.gt.Scalar(%x, 0.75)\n"
                    "  %scalar_tensor: float32[] = aten.scalar_tensor.default(0.75, dtype=torch.float32, "
                    "layout=torch.strided, "
                    "device=device(type='cpu'))\n"
                    "  %where: float32[3] = aten.where.self(%gt, %scalar_tensor, %x)\n"
                    "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(0.25, dtype=torch.float32, "
                    "layout=torch.strided, "
                    "device=device(type='cpu'))\n"
                    "  %where_1: float32[3] = aten.where.self(%lt, %scalar_tensor_1, %where)\n"
                    "  %sub: float32[3] = aten.sub.Tensor(1, %where_1)\n"
                    "  %div: float32[3] = aten.div.Tensor(%where_1, %sub)\n"
                    "  %log: float32[3] = aten.log.default(%div)\n"
                    "  return (%log)\n");
}

TEST_CASE("decompose logit: eps None is -1.0, float16 computed in float32, int64 returned as float32") {
  ProgramBuilder b;
  auto h = b.input("h", ScalarType::Half, {2});
  auto i = b.input("i", ScalarType::Long, {2});
  b.output(b.call("aten.logit.default", {arg_tensor(h)}, {ScalarType::Half, {2}}));
  b.output(b.call("aten.logit.default", {arg_tensor(i)}, {F, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%h: float16[2], %i: int64[2]):\n"
                    "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %lt: bool[2] = aten.lt.Scalar(%_to_copy, -1.0)\n"
                    "  %gt: bool[2] = aten.gt.Scalar(%_to_copy, 2.0)\n"
                    "  %scalar_tensor: float32[] = aten.scalar_tensor.default(2.0, dtype=torch.float32, "
                    "layout=torch.strided, "
                    "device=device(type='cpu'))\n"
                    "  %where: float32[2] = aten.where.self(%gt, %scalar_tensor, %_to_copy)\n"
                    "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(-1.0, dtype=torch.float32, "
                    "layout=torch.strided, "
                    "device=device(type='cpu'))\n"
                    "  %where_1: float32[2] = aten.where.self(%lt, %scalar_tensor_1, %where)\n"
                    "  %sub: float32[2] = aten.sub.Tensor(1, %where_1)\n"
                    "  %div: float32[2] = aten.div.Tensor(%where_1, %sub)\n"
                    "  %log: float32[2] = aten.log.default(%div)\n"
                    "  %_to_copy_1: float16[2] = aten._to_copy.default(%log, dtype=torch.float16)\n"
                    "  %_to_copy_2: float32[2] = aten._to_copy.default(%i, dtype=torch.float32)\n"
                    "  %lt_1: bool[2] = aten.lt.Scalar(%_to_copy_2, -1.0)\n"
                    "  %gt_1: bool[2] = aten.gt.Scalar(%_to_copy_2, 2.0)\n"
                    "  %scalar_tensor_2: float32[] = aten.scalar_tensor.default(2.0, dtype=torch.float32, "
                    "layout=torch.strided, "
                    "device=device(type='cpu'))\n"
                    "  %where_2: float32[2] = aten.where.self(%gt_1, %scalar_tensor_2, %_to_copy_2)\n"
                    "  %scalar_tensor_3: float32[] = aten.scalar_tensor.default(-1.0, dtype=torch.float32, "
                    "layout=torch.strided, "
                    "device=device(type='cpu'))\n"
                    "  %where_3: float32[2] = aten.where.self(%lt_1, %scalar_tensor_3, %where_2)\n"
                    "  %sub_1: float32[2] = aten.sub.Tensor(1, %where_3)\n"
                    "  %div_1: float32[2] = aten.div.Tensor(%where_3, %sub_1)\n"
                    "  %log_1: float32[2] = aten.log.default(%div_1)\n"
                    "  return (%_to_copy_1, %log_1)\n");
}

TEST_CASE("decompose norm.ScalarOpt_dim -> linalg.vector_norm's form (p None is the int 2)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto h = b.input("h", ScalarType::Half, {2, 3});
  b.output(b.call("aten.norm.ScalarOpt_dim", {arg_tensor(x), arg_none(), arg_ints({1})}, {F, {2}}));
  b.output(b.call("aten.norm.ScalarOpt_dim", {arg_tensor(h), arg_float(1.0), arg_ints({1}), arg_bool(true)},
                  {ScalarType::Half, {2, 1}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3], %h: float16[2, 3]):\n"
                    "  %pow_1: float32[2, 3] = aten.pow.Tensor_Scalar(%x, 2)\n"
                    "  %sum_1: float32[2] = aten.sum.dim_IntList(%pow_1, [1])\n"
                    "  %pow_2: float32[2] = aten.pow.Tensor_Scalar(%sum_1, 0.5)\n"
                    "  %_to_copy: float32[2, 3] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %abs_1: float32[2, 3] = aten.abs.default(%_to_copy)\n"
                    "  %pow_3: float32[2, 3] = aten.pow.Tensor_Scalar(%abs_1, 1.0)\n"
                    "  %sum_2: float32[2, 1] = aten.sum.dim_IntList(%pow_3, [1], True)\n"
                    "  %pow_4: float32[2, 1] = aten.pow.Tensor_Scalar(%sum_2, 1.0)\n"
                    "  %_to_copy_1: float16[2, 1] = aten._to_copy.default(%pow_4, dtype=torch.float16)\n"
                    "  return (%pow_2, %_to_copy_1)\n");
}

TEST_CASE("decompose round.decimals -> mul, round, mul (float16 in float32), decimals 0 -> round") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto h = b.input("h", ScalarType::Half, {3});
  // Named apart from the round nodes the rule emits (a node's own name is taken while it is rewritten).
  b.output(b.call("aten.round.decimals", {arg_tensor(x)}, {F, {3}}, {{"decimals", arg_int(2)}}, "r2"));
  b.output(b.call("aten.round.decimals", {arg_tensor(x)}, {F, {3}}, {{"decimals", arg_int(-1)}}, "rm1"));
  b.output(b.call("aten.round.decimals", {arg_tensor(h)}, {ScalarType::Half, {3}}, {{"decimals", arg_int(0)}},
                  "r0"));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3], %h: float16[3]):\n"
                    "  %mul: float32[3] = aten.mul.Tensor(%x, 100)\n"
                    "  %round_1: float32[3] = aten.round.default(%mul)\n"
                    "  %mul_1: float32[3] = aten.mul.Tensor(%round_1, 0.01)\n"
                    "  %mul_2: float32[3] = aten.mul.Tensor(%x, 0.1)\n"
                    "  %round_2: float32[3] = aten.round.default(%mul_2)\n"
                    "  %mul_3: float32[3] = aten.mul.Tensor(%round_2, 10)\n"
                    "  %_to_copy: float32[3] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %round_3: float32[3] = aten.round.default(%_to_copy)\n"
                    "  %_to_copy_1: float16[3] = aten._to_copy.default(%round_3, dtype=torch.float16)\n"
                    "  return (%mul_1, %mul_3, %_to_copy_1)\n");
}

TEST_CASE("decompose round.decimals: an int tensor and a huge decimals are refused") {
  auto refused = [](ScalarType t, int64_t decimals, const std::string& text) {
    ProgramBuilder b;
    auto x = b.input("x", t, {3});
    b.output(
        b.call("aten.round.decimals", {arg_tensor(x)}, {t, {3}}, {{"decimals", arg_int(decimals)}}, "r"));
    ExportedProgram ep = b.build();
    Status st = pteforge::testing::decompose(ep);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == ErrorCode::UNSUPPORTED_FEATURE);
    CHECK(st.error().where.node == std::optional<std::string>("r"));
    CHECK_MESSAGE(st.error().message.find(text) != std::string::npos, st.error().message);
  };
  SUBCASE("int64") { refused(ScalarType::Long, 1, "floating-point"); }
  SUBCASE("decimals 19") { refused(F, 19, "past int64"); }
}

TEST_CASE("decompose clamp_min.Tensor / clamp_max.Tensor -> clamp.Tensor (None for the other bound)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto lo = b.input("lo", F, {3});
  auto hi = b.input("hi", F, {2, 1});
  b.output(b.call("aten.clamp_min.Tensor", {arg_tensor(x), arg_tensor(lo)}, {F, {2, 3}}));
  b.output(b.call("aten.clamp_max.Tensor", {arg_tensor(x), arg_tensor(hi)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3], %lo: float32[3], %hi: float32[2, 1]):\n"
                    "  %clamp: float32[2, 3] = aten.clamp.Tensor(%x, %lo)\n"
                    "  %clamp_1: float32[2, 3] = aten.clamp.Tensor(%x, None, %hi)\n"
                    "  return (%clamp, %clamp_1)\n");
}
