// Decomposition rules for celu, threshold, sgn, isposinf, isneginf, special_xlog1py, log_sigmoid_forward,
// soft_margin_loss and binary_cross_entropy_with_logits: the exact node list after the pass (typed printer
// form), the float16 opmath forms, and the refused cases.
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

constexpr ScalarType kB6Half = ScalarType::Half;
constexpr ScalarType kB6Long = ScalarType::Long;

const std::string kB6Cpu = "layout=torch.strided, device=device(type='cpu'))\n";
const std::string kB6Bool = "dtype=torch.bool, pin_memory=False, memory_format=torch.preserve_format)\n";

}  // namespace

// ---- celu ----------------------------------------------------------------------------------------

TEST_CASE("decompose celu -> expm1, gt, where without alpha (left out or the dropped 1.0)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  b.output(b.call("aten.celu.default", {arg_tensor(x)}, {F, {2, 3}}));
  b.output(b.call("aten.celu.default", {arg_tensor(x), arg_float(1.0)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3]):\n"
                    "  %expm1: float32[2, 3] = aten.expm1.default(%x)\n"
                    "  %gt: bool[2, 3] = aten.gt.Scalar(%x, 0)\n"
                    "  %where: float32[2, 3] = aten.where.self(%gt, %x, %expm1)\n"
                    "  %expm1_1: float32[2, 3] = aten.expm1.default(%x)\n"
                    "  %gt_1: bool[2, 3] = aten.gt.Scalar(%x, 0)\n"
                    "  %where_1: float32[2, 3] = aten.where.self(%gt_1, %x, %expm1_1)\n"
                    "  return (%where, %where_1)\n");
}

TEST_CASE("decompose celu with alpha -> div, expm1, mul, gt, where (the int 1 is kept, float16 in float32)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto h = b.input("h", kB6Half, {2});
  b.output(b.call("aten.celu.default", {arg_tensor(x), arg_float(0.5)}, {F, {3}}));
  // The int 1 is not the schema's float default 1.0: the dispatcher passes it on.
  b.output(b.call("aten.celu.default", {arg_tensor(h), arg_int(1)}, {kB6Half, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3], %h: float16[2]):\n"
                    "  %div: float32[3] = aten.div.Tensor(%x, 0.5)\n"
                    "  %expm1: float32[3] = aten.expm1.default(%div)\n"
                    "  %mul: float32[3] = aten.mul.Tensor(%expm1, 0.5)\n"
                    "  %gt: bool[3] = aten.gt.Scalar(%x, 0)\n"
                    "  %where: float32[3] = aten.where.self(%gt, %x, %mul)\n"
                    "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %div_1: float32[2] = aten.div.Tensor(%_to_copy, 1)\n"
                    "  %expm1_1: float32[2] = aten.expm1.default(%div_1)\n"
                    "  %mul_1: float32[2] = aten.mul.Tensor(%expm1_1, 1)\n"
                    "  %gt_1: bool[2] = aten.gt.Scalar(%_to_copy, 0)\n"
                    "  %where_1: float32[2] = aten.where.self(%gt_1, %_to_copy, %mul_1)\n"
                    "  %_to_copy_1: float16[2] = aten._to_copy.default(%where_1, dtype=torch.float16)\n"
                    "  return (%where, %_to_copy_1)\n");
}

TEST_CASE("decompose celu: an integer input and alpha 0 are refused") {
  {
    ProgramBuilder b;
    auto i = b.input("i", kB6Long, {2});
    b.output(b.call("aten.celu.default", {arg_tensor(i)}, {kB6Long, {2}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "celu", "int64");
  }
  {
    ProgramBuilder b;
    auto x = b.input("x", F, {2});
    b.output(b.call("aten.celu.default", {arg_tensor(x), arg_float(0.0)}, {F, {2}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "celu", "alpha cannot be 0");
  }
}

// ---- threshold -----------------------------------------------------------------------------------

TEST_CASE("decompose threshold -> le, where(value) (float16 in float32, int64 cast back)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto h = b.input("h", kB6Half, {2});
  auto i = b.input("i", kB6Long, {2});
  b.output(b.call("aten.threshold.default", {arg_tensor(x), arg_float(0.5), arg_int(-1)}, {F, {2, 3}}));
  b.output(b.call("aten.threshold.default", {arg_tensor(h), arg_int(0), arg_float(2.5)}, {kB6Half, {2}}));
  b.output(b.call("aten.threshold.default", {arg_tensor(i), arg_int(1), arg_float(0.5)}, {kB6Long, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3], %h: float16[2], %i: int64[2]):\n"
      "  %le: bool[2, 3] = aten.le.Scalar(%x, 0.5)\n"
      "  %scalar_tensor: float32[] = aten.scalar_tensor.default(-1, dtype=torch.float32, " +
          kB6Cpu +
          "  %where: float32[2, 3] = aten.where.self(%le, %scalar_tensor, %x)\n"
          "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
          "  %le_1: bool[2] = aten.le.Scalar(%_to_copy, 0)\n"
          "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(2.5, dtype=torch.float32, " +
          kB6Cpu +
          "  %where_1: float32[2] = aten.where.self(%le_1, %scalar_tensor_1, %_to_copy)\n"
          "  %_to_copy_1: float16[2] = aten._to_copy.default(%where_1, dtype=torch.float16)\n"
          "  %le_2: bool[2] = aten.le.Scalar(%i, 1)\n"
          "  %scalar_tensor_2: float32[] = aten.scalar_tensor.default(0.5, dtype=torch.float32, " +
          kB6Cpu +
          "  %_to_copy_2: float32[2] = aten._to_copy.default(%i, dtype=torch.float32)\n"
          "  %where_2: float32[2] = aten.where.self(%le_2, %scalar_tensor_2, %_to_copy_2)\n"
          "  %_to_copy_3: int64[2] = aten._to_copy.default(%where_2, dtype=torch.int64)\n"
          "  return (%where, %_to_copy_1, %_to_copy_3)\n");
}

TEST_CASE("decompose threshold: a bool input is refused") {
  ProgramBuilder b;
  auto m = b.input("m", ScalarType::Bool, {2});
  b.output(
      b.call("aten.threshold.default", {arg_tensor(m), arg_int(0), arg_int(1)}, {ScalarType::Bool, {2}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "threshold", "bool");
}

// ---- sgn -----------------------------------------------------------------------------------------

TEST_CASE("decompose sgn -> sign (float16 in float32, int64 as is)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto h = b.input("h", kB6Half, {2});
  auto i = b.input("i", kB6Long, {2});
  b.output(b.call("aten.sgn.default", {arg_tensor(x)}, {F, {3}}));
  b.output(b.call("aten.sgn.default", {arg_tensor(h)}, {kB6Half, {2}}));
  b.output(b.call("aten.sgn.default", {arg_tensor(i)}, {kB6Long, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3], %h: float16[2], %i: int64[2]):\n"
                    "  %sign: float32[3] = aten.sign.default(%x)\n"
                    "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %sign_1: float32[2] = aten.sign.default(%_to_copy)\n"
                    "  %_to_copy_1: float16[2] = aten._to_copy.default(%sign_1, dtype=torch.float16)\n"
                    "  %sign_2: int64[2] = aten.sign.default(%i)\n"
                    "  return (%sign, %_to_copy_1, %sign_2)\n");
}

TEST_CASE("decompose sgn: a complex input is refused") {
  ProgramBuilder b;
  auto c = b.input("c", ScalarType::ComplexFloat, {2});
  b.output(b.call("aten.sgn.default", {arg_tensor(c)}, {ScalarType::ComplexFloat, {2}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "sgn", "complex");
}

// ---- isposinf / isneginf -------------------------------------------------------------------------

TEST_CASE("decompose isposinf and isneginf -> eq(inf / -inf), float16 in float32, zeros_like for int64") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto h = b.input("h", kB6Half, {2});
  auto i = b.input("i", kB6Long, {2});
  b.output(b.call("aten.isposinf.default", {arg_tensor(x)}, {ScalarType::Bool, {3}}));
  b.output(b.call("aten.isneginf.default", {arg_tensor(h)}, {ScalarType::Bool, {2}}));
  b.output(b.call("aten.isneginf.default", {arg_tensor(i)}, {ScalarType::Bool, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3], %h: float16[2], %i: int64[2]):\n"
                    "  %eq: bool[3] = aten.eq.Scalar(%x, inf)\n"
                    "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %eq_1: bool[2] = aten.eq.Scalar(%_to_copy, -inf)\n"
                    "  %full_like: bool[2] = aten.full_like.default(%i, 0, " +
                        kB6Bool + "  return (%eq, %eq_1, %full_like)\n");
}

TEST_CASE("decompose isposinf: a complex input is refused") {
  ProgramBuilder b;
  auto c = b.input("c", ScalarType::ComplexFloat, {2});
  b.output(b.call("aten.isposinf.default", {arg_tensor(c)}, {ScalarType::Bool, {2}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::INVALID_GRAPH, "isposinf", "Complex dtype is not supported for isposinf");
}

// ---- special_xlog1py -----------------------------------------------------------------------------

TEST_CASE("decompose special_xlog1py -> eq, log1p, mul, where(0), isnan, where(nan) (int64 in float32)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto y = b.input("y", F, {3});
  auto i = b.input("i", kB6Long, {3});
  b.output(b.call("aten.special_xlog1py.default", {arg_tensor(x), arg_tensor(y)}, {F, {3}}));
  b.output(b.call("aten.special_xlog1py.default", {arg_tensor(i), arg_tensor(y)}, {F, {3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[3], %y: float32[3], %i: int64[3]):\n"
      "  %eq: bool[3] = aten.eq.Scalar(%x, 0)\n"
      "  %log1p: float32[3] = aten.log1p.default(%y)\n"
      "  %mul: float32[3] = aten.mul.Tensor(%x, %log1p)\n"
      "  %scalar_tensor: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, " +
          kB6Cpu +
          "  %where: float32[3] = aten.where.self(%eq, %scalar_tensor, %mul)\n"
          "  %isnan: bool[3] = aten.isnan.default(%y)\n"
          "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(nan, dtype=torch.float32, " +
          kB6Cpu +
          "  %where_1: float32[3] = aten.where.self(%isnan, %scalar_tensor_1, %where)\n"
          "  %_to_copy: float32[3] = aten._to_copy.default(%i, dtype=torch.float32)\n"
          "  %eq_1: bool[3] = aten.eq.Scalar(%_to_copy, 0)\n"
          "  %log1p_1: float32[3] = aten.log1p.default(%y)\n"
          "  %mul_1: float32[3] = aten.mul.Tensor(%_to_copy, %log1p_1)\n"
          "  %scalar_tensor_2: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, " +
          kB6Cpu +
          "  %where_2: float32[3] = aten.where.self(%eq_1, %scalar_tensor_2, %mul_1)\n"
          "  %isnan_1: bool[3] = aten.isnan.default(%y)\n"
          "  %scalar_tensor_3: float32[] = aten.scalar_tensor.default(nan, dtype=torch.float32, " +
          kB6Cpu +
          "  %where_3: float32[3] = aten.where.self(%isnan_1, %scalar_tensor_3, %where_2)\n"
          "  return (%where_1, %where_3)\n");
}

TEST_CASE("decompose special_xlog1py: a complex operand is refused") {
  ProgramBuilder b;
  auto c = b.input("c", ScalarType::ComplexFloat, {2});
  b.output(b.call("aten.special_xlog1py.default", {arg_tensor(c), arg_tensor(c)},
                  {ScalarType::ComplexFloat, {2}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "special_xlog1py", "complex");
}

// ---- log_sigmoid_forward -------------------------------------------------------------------------

TEST_CASE(
    "decompose log_sigmoid_forward -> full, minimum, abs, neg, exp, log1p, sub (buffer exp on the CPU)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto h = b.input("h", kB6Half, {2});
  auto o1 = b.call_multi("aten.log_sigmoid_forward.default", {arg_tensor(x)}, {{F, {2, 3}}, {F, {2, 3}}},
                         {"lsf_0", "lsf_1"});
  auto o2 = b.call_multi("aten.log_sigmoid_forward.default", {arg_tensor(h)},
                         {{kB6Half, {2}}, {kB6Half, {2}}}, {"lsf_2", "lsf_3"});
  for (const auto& o : {o1[0], o1[1], o2[0], o2[1]}) b.output(o);
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3], %h: float16[2]):\n"
      "  %full: float32[] = aten.full.default([], 0, dtype=torch.float32, layout=torch.strided, "
      "device=device(type='cpu'), pin_memory=False)\n"
      "  %minimum: float32[2, 3] = aten.minimum.default(%full, %x)\n"
      "  %abs_1: float32[2, 3] = aten.abs.default(%x)\n"
      "  %neg: float32[2, 3] = aten.neg.default(%abs_1)\n"
      "  %exp: float32[2, 3] = aten.exp.default(%neg)\n"
      "  %log1p: float32[2, 3] = aten.log1p.default(%exp)\n"
      "  %sub: float32[2, 3] = aten.sub.Tensor(%minimum, %log1p)\n"
      "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
      "  %full_1: float32[] = aten.full.default([], 0, dtype=torch.float32, layout=torch.strided, "
      "device=device(type='cpu'), pin_memory=False)\n"
      "  %minimum_1: float32[2] = aten.minimum.default(%full_1, %_to_copy)\n"
      "  %abs_2: float32[2] = aten.abs.default(%_to_copy)\n"
      "  %neg_1: float32[2] = aten.neg.default(%abs_2)\n"
      "  %exp_1: float32[2] = aten.exp.default(%neg_1)\n"
      "  %log1p_1: float32[2] = aten.log1p.default(%exp_1)\n"
      "  %sub_1: float32[2] = aten.sub.Tensor(%minimum_1, %log1p_1)\n"
      "  %_to_copy_1: float16[2] = aten._to_copy.default(%sub_1, dtype=torch.float16)\n"
      "  %_to_copy_2: float16[2] = aten._to_copy.default(%exp_1, dtype=torch.float16)\n"
      "  return (%sub, %exp, %_to_copy_1, %_to_copy_2)\n");
}

TEST_CASE("decompose log_sigmoid_forward: an integer input is refused") {
  ProgramBuilder b;
  auto i = b.input("i", kB6Long, {2});
  auto o = b.call_multi("aten.log_sigmoid_forward.default", {arg_tensor(i)}, {{kB6Long, {2}}, {kB6Long, {2}}},
                        {"lsf_0", "lsf_1"});
  b.output(o[0]);
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "log_sigmoid_forward", "int64");
}

// ---- soft_margin_loss ----------------------------------------------------------------------------

TEST_CASE("decompose soft_margin_loss -> neg, mul, exp, log1p, mean / sum / none (float16 in float32)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto y = b.input("y", F, {2, 3});
  auto h = b.input("h", kB6Half, {2});
  auto g = b.input("g", kB6Half, {2});
  b.output(b.call("aten.soft_margin_loss.default", {arg_tensor(x), arg_tensor(y)}, {F, {}}));
  b.output(b.call("aten.soft_margin_loss.default", {arg_tensor(x), arg_tensor(y), arg_int(2)}, {F, {}}));
  b.output(
      b.call("aten.soft_margin_loss.default", {arg_tensor(h), arg_tensor(g), arg_int(0)}, {kB6Half, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3], %y: float32[2, 3], %h: float16[2], %g: float16[2]):\n"
                    "  %neg: float32[2, 3] = aten.neg.default(%x)\n"
                    "  %mul: float32[2, 3] = aten.mul.Tensor(%neg, %y)\n"
                    "  %exp: float32[2, 3] = aten.exp.default(%mul)\n"
                    "  %log1p: float32[2, 3] = aten.log1p.default(%exp)\n"
                    "  %mean: float32[] = aten.mean.default(%log1p)\n"
                    "  %neg_1: float32[2, 3] = aten.neg.default(%x)\n"
                    "  %mul_1: float32[2, 3] = aten.mul.Tensor(%neg_1, %y)\n"
                    "  %exp_1: float32[2, 3] = aten.exp.default(%mul_1)\n"
                    "  %log1p_1: float32[2, 3] = aten.log1p.default(%exp_1)\n"
                    "  %sum_1: float32[] = aten.sum.dim_IntList(%log1p_1, [])\n"
                    "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %_to_copy_1: float32[2] = aten._to_copy.default(%g, dtype=torch.float32)\n"
                    "  %neg_2: float32[2] = aten.neg.default(%_to_copy)\n"
                    "  %mul_2: float32[2] = aten.mul.Tensor(%neg_2, %_to_copy_1)\n"
                    "  %exp_2: float32[2] = aten.exp.default(%mul_2)\n"
                    "  %log1p_2: float32[2] = aten.log1p.default(%exp_2)\n"
                    "  %_to_copy_2: float16[2] = aten._to_copy.default(%log1p_2, dtype=torch.float16)\n"
                    "  return (%mean, %sum_1, %_to_copy_2)\n");
}

TEST_CASE("decompose soft_margin_loss: int64 operands and a bad reduction are refused") {
  {
    ProgramBuilder b;
    auto i = b.input("i", kB6Long, {2});
    b.output(b.call("aten.soft_margin_loss.default", {arg_tensor(i), arg_tensor(i)}, {kB6Long, {}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "soft_margin_loss", "int64");
  }
  {
    ProgramBuilder b;
    auto x = b.input("x", F, {2});
    b.output(b.call("aten.soft_margin_loss.default", {arg_tensor(x), arg_tensor(x), arg_int(5)}, {F, {}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "soft_margin_loss", "5 is not a valid value for reduction");
  }
}

// ---- binary_cross_entropy_with_logits ------------------------------------------------------------

TEST_CASE("decompose binary_cross_entropy_with_logits -> sub(1, t), mul, log_sigmoid_forward, sub, mean") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto t = b.input("t", F, {2, 3});
  b.output(b.call("aten.binary_cross_entropy_with_logits.default", {arg_tensor(x), arg_tensor(t)}, {F, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3], %t: float32[2, 3]):\n"
      "  %sub: float32[2, 3] = aten.sub.Tensor(1, %t)\n"
      "  %mul: float32[2, 3] = aten.mul.Tensor(%sub, %x)\n"
      "  %full: float32[] = aten.full.default([], 0, dtype=torch.float32, layout=torch.strided, "
      "device=device(type='cpu'), pin_memory=False)\n"
      "  %minimum: float32[2, 3] = aten.minimum.default(%full, %x)\n"
      "  %abs_1: float32[2, 3] = aten.abs.default(%x)\n"
      "  %neg: float32[2, 3] = aten.neg.default(%abs_1)\n"
      "  %exp: float32[2, 3] = aten.exp.default(%neg)\n"
      "  %log1p: float32[2, 3] = aten.log1p.default(%exp)\n"
      "  %sub_1: float32[2, 3] = aten.sub.Tensor(%minimum, %log1p)\n"
      "  %sub_2: float32[2, 3] = aten.sub.Tensor(%mul, %sub_1)\n"
      "  %mean: float32[] = aten.mean.default(%sub_2)\n"
      "  return (%mean)\n");
}

TEST_CASE("decompose binary_cross_entropy_with_logits with weight and pos_weight, reduction none") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto t = b.input("t", F, {2, 3});
  auto w = b.input("w", F, {3});
  auto p = b.input("p", F, {3});
  b.output(b.call("aten.binary_cross_entropy_with_logits.default",
                  {arg_tensor(x), arg_tensor(t), arg_tensor(w), arg_tensor(p), arg_int(0)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3], %t: float32[2, 3], %w: float32[3], %p: float32[3]):\n"
      "  %sub: float32[3] = aten.sub.Tensor(%p, 1)\n"
      "  %mul: float32[2, 3] = aten.mul.Tensor(%sub, %t)\n"
      "  %add: float32[2, 3] = aten.add.Tensor(%mul, 1)\n"
      "  %sub_1: float32[2, 3] = aten.sub.Tensor(1, %t)\n"
      "  %mul_1: float32[2, 3] = aten.mul.Tensor(%sub_1, %x)\n"
      "  %full: float32[] = aten.full.default([], 0, dtype=torch.float32, layout=torch.strided, "
      "device=device(type='cpu'), pin_memory=False)\n"
      "  %minimum: float32[2, 3] = aten.minimum.default(%full, %x)\n"
      "  %abs_1: float32[2, 3] = aten.abs.default(%x)\n"
      "  %neg: float32[2, 3] = aten.neg.default(%abs_1)\n"
      "  %exp: float32[2, 3] = aten.exp.default(%neg)\n"
      "  %log1p: float32[2, 3] = aten.log1p.default(%exp)\n"
      "  %sub_2: float32[2, 3] = aten.sub.Tensor(%minimum, %log1p)\n"
      "  %mul_2: float32[2, 3] = aten.mul.Tensor(%add, %sub_2)\n"
      "  %sub_3: float32[2, 3] = aten.sub.Tensor(%mul_1, %mul_2)\n"
      "  %mul_3: float32[2, 3] = aten.mul.Tensor(%sub_3, %w)\n"
      "  return (%mul_3)\n");
}

TEST_CASE("decompose binary_cross_entropy_with_logits: an int64 input is refused") {
  ProgramBuilder b;
  auto i = b.input("i", kB6Long, {2});
  b.output(
      b.call("aten.binary_cross_entropy_with_logits.default", {arg_tensor(i), arg_tensor(i)}, {kB6Long, {}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "binary_cross_entropy_with_logits", "int64");
}
