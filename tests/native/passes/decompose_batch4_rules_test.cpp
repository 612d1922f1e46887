// Decomposition rules for sinc, heaviside, index_fill, binary_cross_entropy, trace and nll_loss_forward: the
// exact node list after the pass (typed printer form), the float16 opmath forms, and the refused cases.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/program_builder.h"
#include "decompose_test_util.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::expect_decomposed;
using pteforge::testing::expect_refused;
using pteforge::testing::F;
using pteforge::testing::ProgramBuilder;

namespace {

constexpr ScalarType kB4Half = ScalarType::Half;
constexpr ScalarType kB4Long = ScalarType::Long;

const std::string kB4Cpu = "layout=torch.strided, device=device(type='cpu'))\n";
const std::string kB4Full =
    "aten.full.default([], -100, dtype=torch.float32, layout=torch.strided, device=device(type='cpu'), "
    "pin_memory=False)\n";

}  // namespace

// ---- sinc ----------------------------------------------------------------------------------------

TEST_CASE("decompose sinc -> mul(pi), eq, sin, div, where(1) (float16 and int64 in float32)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto h = b.input("h", kB4Half, {2});
  auto i = b.input("i", kB4Long, {2});
  b.output(b.call("aten.sinc.default", {arg_tensor(x)}, {F, {3}}));
  b.output(b.call("aten.sinc.default", {arg_tensor(h)}, {kB4Half, {2}}));
  b.output(b.call("aten.sinc.default", {arg_tensor(i)}, {F, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[3], %h: float16[2], %i: int64[2]):\n"
      "  %mul: float32[3] = aten.mul.Tensor(%x, 3.141592653589793)\n"
      "  %eq: bool[3] = aten.eq.Scalar(%mul, 0)\n"
      "  %sin: float32[3] = aten.sin.default(%mul)\n"
      "  %div: float32[3] = aten.div.Tensor(%sin, %mul)\n"
      "  %scalar_tensor: float32[] = aten.scalar_tensor.default(1, dtype=torch.float32, " +
          kB4Cpu +
          "  %where: float32[3] = aten.where.self(%eq, %scalar_tensor, %div)\n"
          "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
          "  %mul_1: float32[2] = aten.mul.Tensor(%_to_copy, 3.141592653589793)\n"
          "  %eq_1: bool[2] = aten.eq.Scalar(%mul_1, 0)\n"
          "  %sin_1: float32[2] = aten.sin.default(%mul_1)\n"
          "  %div_1: float32[2] = aten.div.Tensor(%sin_1, %mul_1)\n"
          "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(1, dtype=torch.float32, " +
          kB4Cpu +
          "  %where_1: float32[2] = aten.where.self(%eq_1, %scalar_tensor_1, %div_1)\n"
          "  %_to_copy_1: float16[2] = aten._to_copy.default(%where_1, dtype=torch.float16)\n"
          "  %_to_copy_2: float32[2] = aten._to_copy.default(%i, dtype=torch.float32)\n"
          "  %mul_2: float32[2] = aten.mul.Tensor(%_to_copy_2, 3.141592653589793)\n"
          "  %eq_2: bool[2] = aten.eq.Scalar(%mul_2, 0)\n"
          "  %sin_2: float32[2] = aten.sin.default(%mul_2)\n"
          "  %div_2: float32[2] = aten.div.Tensor(%sin_2, %mul_2)\n"
          "  %scalar_tensor_2: float32[] = aten.scalar_tensor.default(1, dtype=torch.float32, " +
          kB4Cpu +
          "  %where_2: float32[2] = aten.where.self(%eq_2, %scalar_tensor_2, %div_2)\n"
          "  return (%where, %_to_copy_1, %where_2)\n");
}

TEST_CASE("decompose sinc: a complex input is refused") {
  ProgramBuilder b;
  auto c = b.input("c", ScalarType::ComplexFloat, {2});
  b.output(b.call("aten.sinc.default", {arg_tensor(c)}, {ScalarType::ComplexFloat, {2}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "sinc", "complex");
}

// ---- heaviside -----------------------------------------------------------------------------------

TEST_CASE("decompose heaviside -> eq, lt, isnan, logical_or, where(0, 1), where (broadcast by expand)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto v = b.input("v", F, {3});
  auto h = b.input("h", kB4Half, {2});
  auto g = b.input("g", kB4Half, {});
  b.output(b.call("aten.heaviside.default", {arg_tensor(x), arg_tensor(v)}, {F, {2, 3}}));
  // A 0-d CPU values tensor is not expanded; float16 is computed in float32.
  b.output(b.call("aten.heaviside.default", {arg_tensor(h), arg_tensor(g)}, {kB4Half, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3], %v: float32[3], %h: float16[2], %g: float16[]):\n"
      "  %expand: float32[2, 3] = aten.expand.default(%v, [2, 3])\n"
      "  %eq: bool[2, 3] = aten.eq.Scalar(%x, 0)\n"
      "  %lt: bool[2, 3] = aten.lt.Scalar(%x, 0)\n"
      "  %isnan: bool[2, 3] = aten.isnan.default(%x)\n"
      "  %logical_or: bool[2, 3] = aten.logical_or.default(%lt, %isnan)\n"
      "  %scalar_tensor: int64[] = aten.scalar_tensor.default(1, dtype=torch.int64, " +
          kB4Cpu + "  %scalar_tensor_1: int64[] = aten.scalar_tensor.default(0, dtype=torch.int64, " +
          kB4Cpu +
          "  %where: int64[2, 3] = aten.where.self(%logical_or, %scalar_tensor_1, %scalar_tensor)\n"
          "  %where_1: float32[2, 3] = aten.where.self(%eq, %expand, %where)\n"
          "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
          "  %_to_copy_1: float32[] = aten._to_copy.default(%g, dtype=torch.float32)\n"
          "  %eq_1: bool[2] = aten.eq.Scalar(%_to_copy, 0)\n"
          "  %lt_1: bool[2] = aten.lt.Scalar(%_to_copy, 0)\n"
          "  %isnan_1: bool[2] = aten.isnan.default(%_to_copy)\n"
          "  %logical_or_1: bool[2] = aten.logical_or.default(%lt_1, %isnan_1)\n"
          "  %scalar_tensor_2: int64[] = aten.scalar_tensor.default(1, dtype=torch.int64, " +
          kB4Cpu + "  %scalar_tensor_3: int64[] = aten.scalar_tensor.default(0, dtype=torch.int64, " +
          kB4Cpu +
          "  %where_2: int64[2] = aten.where.self(%logical_or_1, %scalar_tensor_3, %scalar_tensor_2)\n"
          "  %where_3: float32[2] = aten.where.self(%eq_1, %_to_copy_1, %where_2)\n"
          "  %_to_copy_2: float16[2] = aten._to_copy.default(%where_3, dtype=torch.float16)\n"
          "  return (%where_1, %_to_copy_2)\n");
}

TEST_CASE("decompose heaviside: different dtypes and complex operands are refused") {
  SUBCASE("different dtypes") {
    ProgramBuilder b;
    auto x = b.input("x", F, {2});
    auto v = b.input("v", kB4Long, {2});
    b.output(b.call("aten.heaviside.default", {arg_tensor(x), arg_tensor(v)}, {F, {2}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "heaviside", "different dtypes");
  }
  SUBCASE("complex") {
    ProgramBuilder b;
    auto c = b.input("c", ScalarType::ComplexFloat, {2});
    b.output(
        b.call("aten.heaviside.default", {arg_tensor(c), arg_tensor(c)}, {ScalarType::ComplexFloat, {2}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "heaviside", "complex");
  }
}

// ---- index_fill ----------------------------------------------------------------------------------

TEST_CASE("decompose index_fill.int_Scalar / int_Tensor -> scalar_tensor, expand, index_copy -> index_put") {
  ProgramBuilder b;
  auto x = b.input("x", F, {4, 3});
  auto i = b.input("i", kB4Long, {2});
  auto v = b.input("v", F, {});
  auto z = b.input("z", F, {});
  auto j = b.input("j", kB4Long, {});
  b.output(b.call("aten.index_fill.int_Scalar", {arg_tensor(x), arg_int(1), arg_tensor(i), arg_float(2.5)},
                  {F, {4, 3}}));
  b.output(b.call("aten.index_fill.int_Tensor", {arg_tensor(x), arg_int(-2), arg_tensor(i), arg_tensor(v)},
                  {F, {4, 3}}));
  // 0-d self and 0-d index: unsqueeze, then squeeze.dims [0] and clone.
  b.output(
      b.call("aten.index_fill.int_Scalar", {arg_tensor(z), arg_int(0), arg_tensor(j), arg_int(7)}, {F, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[4, 3], %i: int64[2], %v: float32[], %z: float32[], %j: int64[]):\n"
      "  %scalar_tensor: float32[] = aten.scalar_tensor.default(2.5, dtype=torch.float32, " +
          kB4Cpu +
          "  %expand: float32[4, 2] = aten.expand.default(%scalar_tensor, [4, 2])\n"
          "  %index_put: float32[4, 3] = aten.index_put.default(%x, [None, %i], %expand)\n"
          "  %expand_1: float32[2, 3] = aten.expand.default(%v, [2, 3])\n"
          "  %index_put_1: float32[4, 3] = aten.index_put.default(%x, [%i], %expand_1)\n"
          "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(7, dtype=torch.float32, " +
          kB4Cpu +
          "  %unsqueeze: float32[1] = aten.unsqueeze.default(%z, 0)\n"
          "  %expand_2: float32[1] = aten.expand.default(%scalar_tensor_1, [1])\n"
          "  %unsqueeze_1: int64[1] = aten.unsqueeze.default(%j, 0)\n"
          "  %index_put_2: float32[1] = aten.index_put.default(%unsqueeze, [%unsqueeze_1], %expand_2)\n"
          "  %squeeze: float32[] = aten.squeeze.dims(%index_put_2, [0])\n"
          "  %clone: float32[] = aten.clone.default(%squeeze)\n"
          "  return (%index_put, %index_put_1, %clone)\n");
}

TEST_CASE("decompose index_fill: index rank, value rank and dtype, dim and layout are refused") {
  auto refused = [](std::vector<int64_t> index_sizes, std::vector<int64_t> value_sizes,
                    ScalarType value_dtype, int64_t dim, ErrorCode code, const std::string& text,
                    bool transposed = false) {
    ProgramBuilder b;
    auto x = b.input("x", F, {3, 3});
    auto i = b.input("i", kB4Long, index_sizes);
    auto v = b.input("v", value_dtype, value_sizes);
    std::string in = x;
    if (transposed) in = b.call("aten.transpose.int", {arg_tensor(x), arg_int(0), arg_int(1)}, {F, {3, 3}});
    b.output(b.call("aten.index_fill.int_Tensor",
                    {arg_tensor(in), arg_int(dim), arg_tensor(i), arg_tensor(v)}, {F, {3, 3}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, code, "index_fill", text);
  };
  SUBCASE("2-d index") {
    refused({1, 2}, {}, F, 0, ErrorCode::INVALID_GRAPH, "Index should have dimension 1 or 0 (got 2)");
  }
  SUBCASE("1-d value") {
    refused({2}, {1}, F, 0, ErrorCode::INVALID_GRAPH, "Only supports 0-dimensional value tensor");
  }
  SUBCASE("value of another dtype") {
    refused({2}, {}, kB4Long, 0, ErrorCode::UNSUPPORTED_FEATURE, "dtype int64");
  }
  SUBCASE("dim out of range") { refused({2}, {}, F, 2, ErrorCode::INVALID_GRAPH, "out of range"); }
  SUBCASE("non-contiguous self") {
    refused({2}, {}, F, 0, ErrorCode::UNSUPPORTED_FEATURE, "non-contiguous", true);
  }
}

// ---- binary_cross_entropy ------------------------------------------------------------------------

TEST_CASE("decompose binary_cross_entropy -> log1p / log clamped at -100 by maximum, weight, reduction") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto y = b.input("y", F, {3});
  auto w = b.input("w", F, {3});
  auto h = b.input("h", kB4Half, {2});
  auto g = b.input("g", kB4Half, {2});
  b.output(b.call("aten.binary_cross_entropy.default", {arg_tensor(x), arg_tensor(y)}, {F, {}}));
  b.output(b.call("aten.binary_cross_entropy.default",
                  {arg_tensor(x), arg_tensor(y), arg_tensor(w), arg_int(0)}, {F, {3}}));
  b.output(b.call("aten.binary_cross_entropy.default", {arg_tensor(h), arg_tensor(g), arg_none(), arg_int(2)},
                  {kB4Half, {}}));
  ExportedProgram ep = b.build();
  // new_full((), -100) is decomposed in turn into full.default.
  expect_decomposed(ep,
                    "graph(%x: float32[3], %y: float32[3], %w: float32[3], %h: float16[2], %g: float16[2]):\n"
                    "  %sub: float32[3] = aten.sub.Tensor(%y, 1)\n"
                    "  %neg: float32[3] = aten.neg.default(%x)\n"
                    "  %log1p: float32[3] = aten.log1p.default(%neg)\n"
                    "  %full: float32[] = " +
                        kB4Full +
                        "  %maximum: float32[3] = aten.maximum.default(%log1p, %full)\n"
                        "  %mul: float32[3] = aten.mul.Tensor(%sub, %maximum)\n"
                        "  %log: float32[3] = aten.log.default(%x)\n"
                        "  %full_1: float32[] = " +
                        kB4Full +
                        "  %maximum_1: float32[3] = aten.maximum.default(%log, %full_1)\n"
                        "  %mul_1: float32[3] = aten.mul.Tensor(%y, %maximum_1)\n"
                        "  %sub_1: float32[3] = aten.sub.Tensor(%mul, %mul_1)\n"
                        "  %mean: float32[] = aten.mean.default(%sub_1)\n"
                        "  %sub_2: float32[3] = aten.sub.Tensor(%y, 1)\n"
                        "  %neg_1: float32[3] = aten.neg.default(%x)\n"
                        "  %log1p_1: float32[3] = aten.log1p.default(%neg_1)\n"
                        "  %full_2: float32[] = " +
                        kB4Full +
                        "  %maximum_2: float32[3] = aten.maximum.default(%log1p_1, %full_2)\n"
                        "  %mul_2: float32[3] = aten.mul.Tensor(%sub_2, %maximum_2)\n"
                        "  %log_1: float32[3] = aten.log.default(%x)\n"
                        "  %full_3: float32[] = " +
                        kB4Full +
                        "  %maximum_3: float32[3] = aten.maximum.default(%log_1, %full_3)\n"
                        "  %mul_3: float32[3] = aten.mul.Tensor(%y, %maximum_3)\n"
                        "  %sub_3: float32[3] = aten.sub.Tensor(%mul_2, %mul_3)\n"
                        "  %mul_4: float32[3] = aten.mul.Tensor(%sub_3, %w)\n"
                        "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                        "  %_to_copy_1: float32[2] = aten._to_copy.default(%g, dtype=torch.float32)\n"
                        "  %sub_4: float32[2] = aten.sub.Tensor(%_to_copy_1, 1)\n"
                        "  %neg_2: float32[2] = aten.neg.default(%_to_copy)\n"
                        "  %log1p_2: float32[2] = aten.log1p.default(%neg_2)\n"
                        "  %full_4: float32[] = " +
                        kB4Full +
                        "  %maximum_4: float32[2] = aten.maximum.default(%log1p_2, %full_4)\n"
                        "  %mul_5: float32[2] = aten.mul.Tensor(%sub_4, %maximum_4)\n"
                        "  %log_2: float32[2] = aten.log.default(%_to_copy)\n"
                        "  %full_5: float32[] = " +
                        kB4Full +
                        "  %maximum_5: float32[2] = aten.maximum.default(%log_2, %full_5)\n"
                        "  %mul_6: float32[2] = aten.mul.Tensor(%_to_copy_1, %maximum_5)\n"
                        "  %sub_5: float32[2] = aten.sub.Tensor(%mul_5, %mul_6)\n"
                        "  %sum_1: float32[] = aten.sum.dim_IntList(%sub_5, [])\n"
                        "  %_to_copy_2: float16[] = aten._to_copy.default(%sum_1, dtype=torch.float16)\n"
                        "  return (%mean, %mul_4, %_to_copy_2)\n");
}

TEST_CASE("decompose binary_cross_entropy: bad reduction, integer operands and a size mismatch are refused") {
  SUBCASE("reduction 3") {
    ProgramBuilder b;
    auto x = b.input("x", F, {2});
    b.output(b.call("aten.binary_cross_entropy.default",
                    {arg_tensor(x), arg_tensor(x), arg_none(), arg_int(3)}, {F, {2}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "binary_cross_entropy", "not a valid value for reduction");
  }
  SUBCASE("int64") {
    ProgramBuilder b;
    auto i = b.input("i", kB4Long, {2});
    b.output(b.call("aten.binary_cross_entropy.default", {arg_tensor(i), arg_tensor(i)}, {kB4Long, {}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "binary_cross_entropy", "floating-point");
  }
  SUBCASE("target size") {
    ProgramBuilder b;
    auto x = b.input("x", F, {2});
    auto y = b.input("y", F, {3});
    b.output(b.call("aten.binary_cross_entropy.default", {arg_tensor(x), arg_tensor(y)}, {F, {}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "binary_cross_entropy", "different to the input size");
  }
}

// ---- trace ---------------------------------------------------------------------------------------

TEST_CASE("decompose trace -> diagonal_copy, sum.dim_IntList (int64 sums to int64)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3, 4});
  auto i = b.input("i", kB4Long, {2, 2});
  b.output(b.call("aten.trace.default", {arg_tensor(x)}, {F, {}}));
  b.output(b.call("aten.trace.default", {arg_tensor(i)}, {kB4Long, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3, 4], %i: int64[2, 2]):\n"
                    "  %diagonal_copy: float32[3] = aten.diagonal_copy.default(%x)\n"
                    "  %sum_1: float32[] = aten.sum.dim_IntList(%diagonal_copy, [])\n"
                    "  %diagonal_copy_1: int64[2] = aten.diagonal_copy.default(%i)\n"
                    "  %sum_2: int64[] = aten.sum.dim_IntList(%diagonal_copy_1, [])\n"
                    "  return (%sum_1, %sum_2)\n");
}

TEST_CASE("decompose trace: a self that is not 2-d is refused") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  b.output(b.call("aten.trace.default", {arg_tensor(x)}, {F, {}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::INVALID_GRAPH, "trace", "expected a matrix, but got tensor with dim 1");
}

// ---- nll_loss_forward ----------------------------------------------------------------------------

namespace {

/// A program of one nll_loss_forward call (outputs `out` and a 0-d total_weight) returning both.
ExportedProgram nll_program(std::vector<int64_t> self_sizes, std::vector<int64_t> target_sizes, bool weight,
                            int64_t reduction, std::vector<int64_t> out) {
  ProgramBuilder b;
  auto x = b.input("x", F, self_sizes);
  auto t = b.input("t", kB4Long, target_sizes);
  Argument w = arg_none();
  if (weight) w = arg_tensor(b.input("w", F, {self_sizes.back()}));
  auto r = b.call_multi("aten.nll_loss_forward.default",
                        {arg_tensor(x), arg_tensor(t), w, arg_int(reduction), arg_int(-100)},
                        {{F, out}, {F, {}}}, {"getitem", "getitem_1"});
  b.output(r[0]);
  b.output(r[1]);
  return b.build();
}

}  // namespace

TEST_CASE("decompose nll_loss_forward, mean without weight -> ne, where, gather, neg, sum, _to_copy, div") {
  ExportedProgram ep = nll_program({2, 3}, {2}, false, 1, {});
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3], %t: int64[2]):\n"
      "  %ne: bool[2] = aten.ne.Scalar(%t, -100)\n"
      "  %scalar_tensor: int64[] = aten.scalar_tensor.default(0, dtype=torch.int64, " +
          kB4Cpu +
          "  %where: int64[2] = aten.where.self(%ne, %t, %scalar_tensor)\n"
          "  %unsqueeze: int64[2, 1] = aten.unsqueeze.default(%where, 1)\n"
          "  %gather: float32[2, 1] = aten.gather.default(%x, 1, %unsqueeze)\n"
          "  %squeeze: float32[2] = aten.squeeze.dims(%gather, [1])\n"
          "  %neg: float32[2] = aten.neg.default(%squeeze)\n"
          "  %ne_1: bool[2] = aten.ne.Scalar(%t, -100)\n"
          "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, " +
          kB4Cpu +
          "  %where_1: float32[2] = aten.where.self(%ne_1, %neg, %scalar_tensor_1)\n"
          "  %ne_2: bool[2] = aten.ne.Scalar(%t, -100)\n"
          "  %sum_1: int64[] = aten.sum.dim_IntList(%ne_2, [])\n"
          "  %_to_copy: float32[] = aten._to_copy.default(%sum_1, dtype=torch.float32, layout=torch.strided, "
          "device=device(type='cpu'), pin_memory=False)\n"
          "  %sum_2: float32[] = aten.sum.dim_IntList(%where_1, [])\n"
          "  %div: float32[] = aten.div.Tensor(%sum_2, %_to_copy)\n"
          "  return (%div, %_to_copy)\n");
}

TEST_CASE("decompose nll_loss_forward, sum with weight -> view, mul, expand, gather of the weights") {
  ExportedProgram ep = nll_program({2, 3}, {2}, true, 2, {});
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3], %t: int64[2], %w: float32[3]):\n"
      "  %view: float32[1, 3] = aten.view.default(%w, [1, 3])\n"
      "  %mul: float32[2, 3] = aten.mul.Tensor(%x, %view)\n"
      "  %ne: bool[2] = aten.ne.Scalar(%t, -100)\n"
      "  %scalar_tensor: int64[] = aten.scalar_tensor.default(0, dtype=torch.int64, " +
          kB4Cpu +
          "  %where: int64[2] = aten.where.self(%ne, %t, %scalar_tensor)\n"
          "  %unsqueeze: int64[2, 1] = aten.unsqueeze.default(%where, 1)\n"
          "  %gather: float32[2, 1] = aten.gather.default(%mul, 1, %unsqueeze)\n"
          "  %squeeze: float32[2] = aten.squeeze.dims(%gather, [1])\n"
          "  %neg: float32[2] = aten.neg.default(%squeeze)\n"
          "  %ne_1: bool[2] = aten.ne.Scalar(%t, -100)\n"
          "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, " +
          kB4Cpu +
          "  %where_1: float32[2] = aten.where.self(%ne_1, %neg, %scalar_tensor_1)\n"
          "  %expand: float32[2, 3] = aten.expand.default(%view, [2, 3])\n"
          "  %gather_1: float32[2, 1] = aten.gather.default(%expand, 1, %unsqueeze)\n"
          "  %squeeze_1: float32[2] = aten.squeeze.dims(%gather_1, [1])\n"
          "  %ne_2: bool[2] = aten.ne.Scalar(%t, -100)\n"
          "  %scalar_tensor_2: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, " +
          kB4Cpu +
          "  %where_2: float32[2] = aten.where.self(%ne_2, %squeeze_1, %scalar_tensor_2)\n"
          "  %sum_1: float32[] = aten.sum.dim_IntList(%where_2, [])\n"
          "  %sum_2: float32[] = aten.sum.dim_IntList(%where_1, [])\n"
          "  return (%sum_2, %sum_1)\n");
}

TEST_CASE("decompose nll_loss_forward, none -> total_weight new_full(0.0) for a 2-d self") {
  ExportedProgram ep = nll_program({2, 3}, {2}, false, 0, {2});
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3], %t: int64[2]):\n"
      "  %ne: bool[2] = aten.ne.Scalar(%t, -100)\n"
      "  %scalar_tensor: int64[] = aten.scalar_tensor.default(0, dtype=torch.int64, " +
          kB4Cpu +
          "  %where: int64[2] = aten.where.self(%ne, %t, %scalar_tensor)\n"
          "  %unsqueeze: int64[2, 1] = aten.unsqueeze.default(%where, 1)\n"
          "  %gather: float32[2, 1] = aten.gather.default(%x, 1, %unsqueeze)\n"
          "  %squeeze: float32[2] = aten.squeeze.dims(%gather, [1])\n"
          "  %neg: float32[2] = aten.neg.default(%squeeze)\n"
          "  %ne_1: bool[2] = aten.ne.Scalar(%t, -100)\n"
          "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, " +
          kB4Cpu +
          "  %where_1: float32[2] = aten.where.self(%ne_1, %neg, %scalar_tensor_1)\n"
          "  %full: float32[] = aten.full.default([], 0.0, dtype=torch.float32, layout=torch.strided, "
          "device=device(type='cpu'), pin_memory=False)\n"
          "  return (%where_1, %full)\n");
}

TEST_CASE("decompose nll_loss_forward, none with a 1-d self and 0-d target still computes total_weight") {
  ExportedProgram ep = nll_program({3}, {}, false, 0, {});
  expect_decomposed(
      ep,
      "graph(%x: float32[3], %t: int64[]):\n"
      "  %ne: bool[] = aten.ne.Scalar(%t, -100)\n"
      "  %scalar_tensor: int64[] = aten.scalar_tensor.default(0, dtype=torch.int64, " +
          kB4Cpu +
          "  %where: int64[] = aten.where.self(%ne, %t, %scalar_tensor)\n"
          "  %unsqueeze: int64[1] = aten.unsqueeze.default(%where, 0)\n"
          "  %gather: float32[1] = aten.gather.default(%x, 0, %unsqueeze)\n"
          "  %squeeze: float32[] = aten.squeeze.dims(%gather, [0])\n"
          "  %neg: float32[] = aten.neg.default(%squeeze)\n"
          "  %ne_1: bool[] = aten.ne.Scalar(%t, -100)\n"
          "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, " +
          kB4Cpu +
          "  %where_1: float32[] = aten.where.self(%ne_1, %neg, %scalar_tensor_1)\n"
          "  %ne_2: bool[] = aten.ne.Scalar(%t, -100)\n"
          "  %sum_1: int64[] = aten.sum.dim_IntList(%ne_2, [])\n"
          "  %_to_copy: float32[] = aten._to_copy.default(%sum_1, dtype=torch.float32, layout=torch.strided, "
          "device=device(type='cpu'), pin_memory=False)\n"
          "  return (%where_1, %_to_copy)\n");
}

TEST_CASE("decompose nll_loss_forward: ranks, batch size, weight size and reduction are refused") {
  auto refused = [](std::vector<int64_t> self_sizes, std::vector<int64_t> target_sizes,
                    std::vector<int64_t> weight_sizes, int64_t reduction, const std::string& text) {
    ProgramBuilder b;
    auto x = b.input("x", F, self_sizes);
    auto t = b.input("t", kB4Long, target_sizes);
    Argument w = weight_sizes.empty() ? arg_none() : arg_tensor(b.input("w", F, weight_sizes));
    auto r = b.call_multi("aten.nll_loss_forward.default",
                          {arg_tensor(x), arg_tensor(t), w, arg_int(reduction), arg_int(-100)},
                          {{F, {}}, {F, {}}}, {"getitem", "getitem_1"});
    b.output(r[0]);
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "nll_loss_forward", text);
  };
  SUBCASE("3-d self") { refused({2, 3, 4}, {2}, {}, 1, "input tensor should be 1D or 2D"); }
  SUBCASE("2-d target") { refused({2, 3}, {2, 1}, {}, 1, "multi-target not supported"); }
  SUBCASE("batch size") { refused({2, 3}, {3}, {}, 1, "size mismatch"); }
  SUBCASE("weight size") {
    refused({2, 3}, {2}, {4}, 1, "weight tensor should be defined either for all 3 classes");
  }
  SUBCASE("reduction") { refused({2, 3}, {2}, {}, 5, "not a valid value for reduction"); }
}
