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
using pteforge::testing::expect_refused;
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

TEST_CASE("decompose prelu -> weight viewed to [1, C, 1, 1], _prelu_kernel -> gt, mul, where") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "act.weight", F, {3});
  auto x = b.input("x", F, {2, 3, 4, 4});
  auto v = b.input("v", F, {5});
  b.output(b.call("aten.prelu.default", {arg_tensor(x), arg_tensor(w)}, {F, {2, 3, 4, 4}}));
  b.output(b.call("aten._prelu_kernel.default", {arg_tensor(v), arg_tensor(v)}, {F, {5}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%p_w: float32[3], %x: float32[2, 3, 4, 4], %v: float32[5]):\n"
                    "  %view: float32[1, 3, 1, 1] = aten.view.default(%p_w, [1, 3, 1, 1])\n"
                    "  %gt: bool[2, 3, 4, 4] = aten.gt.Scalar(%x, 0)\n"
                    "  %mul: float32[2, 3, 4, 4] = aten.mul.Tensor(%view, %x)\n"
                    "  %where: float32[2, 3, 4, 4] = aten.where.self(%gt, %x, %mul)\n"
                    "  %gt_1: bool[5] = aten.gt.Scalar(%v, 0)\n"
                    "  %mul_1: float32[5] = aten.mul.Tensor(%v, %v)\n"
                    "  %where_1: float32[5] = aten.where.self(%gt_1, %v, %mul_1)\n"
                    "  return (%where, %where_1)\n");
}

TEST_CASE("decompose prelu: a weight of the input's rank is used as it is") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "act.weight", F, {1});
  auto x = b.input("x", F, {4});
  b.output(b.call("aten.prelu.default", {arg_tensor(x), arg_tensor(w)}, {F, {4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%p_w: float32[1], %x: float32[4]):\n"
                    "  %gt: bool[4] = aten.gt.Scalar(%x, 0)\n"
                    "  %mul: float32[4] = aten.mul.Tensor(%p_w, %x)\n"
                    "  %where: float32[4] = aten.where.self(%gt, %x, %mul)\n"
                    "  return (%where)\n");
}

TEST_CASE("decompose prelu: several weights must match the channels (dim 1, a 1-d input has one)") {
  auto check = [](std::vector<int64_t> x_sizes, int64_t weights, const std::string& text) {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "act.weight", F, {weights});
    auto x = b.input("x", F, x_sizes);
    b.output(b.call("aten.prelu.default", {arg_tensor(x), arg_tensor(w)}, {F, x_sizes}, {}, "prelu"));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "prelu", text);
  };
  check({4}, 4, "prelu: mismatch of parameter numbers and input channel size: 4 weights for 1 channels");
  check({2, 3, 5}, 5,
        "prelu: mismatch of parameter numbers and input channel size: 5 weights for 3 channels");
  check({}, 2, "prelu: a 0-d input takes a single weight");
}

// ---- reductions --------------------------------------------------------------------------------

TEST_CASE("decompose logsumexp -> amax, masked_fill(|max| == inf), sub, exp, sum, log, add") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 5});
  b.output(b.call("aten.logsumexp.default", {arg_tensor(x), arg_ints({1})}, {F, {2}}));
  b.output(b.call("aten.logsumexp.default", {arg_tensor(x), arg_ints({-1}), arg_bool(true)}, {F, {2, 1}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 5]):\n"
                    "  %amax: float32[2, 1] = aten.amax.default(%x, [1], True)\n"
                    "  %abs_1: float32[2, 1] = aten.abs.default(%amax)\n"
                    "  %eq: bool[2, 1] = aten.eq.Scalar(%abs_1, inf)\n"
                    "  %full: float32[] = aten.full.default([], 0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'), "
                    "pin_memory=False)\n"
                    "  %where: float32[2, 1] = aten.where.self(%eq, %full, %amax)\n"
                    "  %squeeze: float32[2] = aten.squeeze.dims(%where, [1])\n"
                    "  %sub: float32[2, 5] = aten.sub.Tensor(%x, %where)\n"
                    "  %exp: float32[2, 5] = aten.exp.default(%sub)\n"
                    "  %sum_1: float32[2] = aten.sum.dim_IntList(%exp, [1])\n"
                    "  %log: float32[2] = aten.log.default(%sum_1)\n"
                    "  %add: float32[2] = aten.add.Tensor(%log, %squeeze)\n"
                    "  %amax_1: float32[2, 1] = aten.amax.default(%x, [-1], True)\n"
                    "  %abs_2: float32[2, 1] = aten.abs.default(%amax_1)\n"
                    "  %eq_1: bool[2, 1] = aten.eq.Scalar(%abs_2, inf)\n"
                    "  %full_1: float32[] = aten.full.default([], 0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'), "
                    "pin_memory=False)\n"
                    "  %where_1: float32[2, 1] = aten.where.self(%eq_1, %full_1, %amax_1)\n"
                    "  %sub_1: float32[2, 5] = aten.sub.Tensor(%x, %where_1)\n"
                    "  %exp_1: float32[2, 5] = aten.exp.default(%sub_1)\n"
                    "  %sum_2: float32[2, 1] = aten.sum.dim_IntList(%exp_1, [-1], True)\n"
                    "  %log_1: float32[2, 1] = aten.log.default(%sum_2)\n"
                    "  %add_1: float32[2, 1] = aten.add.Tensor(%log_1, %where_1)\n"
                    "  return (%add, %add_1)\n");
}

TEST_CASE("decompose logsumexp: float16 computes in float32, int64 in float32 (INT_TO_FLOAT)") {
  ProgramBuilder b;
  auto h = b.input("h", H, {3, 4});
  auto i = b.input("i", ScalarType::Long, {3});
  b.output(b.call("aten.logsumexp.default", {arg_tensor(h), arg_ints({0}), arg_bool(true)}, {H, {1, 4}}));
  b.output(b.call("aten.logsumexp.default", {arg_tensor(i), arg_ints({0}), arg_bool(true)}, {F, {1}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%h: float16[3, 4], %i: int64[3]):\n"
                    "  %_to_copy: float32[3, 4] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %amax: float32[1, 4] = aten.amax.default(%_to_copy, [0], True)\n"
                    "  %abs_1: float32[1, 4] = aten.abs.default(%amax)\n"
                    "  %eq: bool[1, 4] = aten.eq.Scalar(%abs_1, inf)\n"
                    "  %full: float32[] = aten.full.default([], 0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'), "
                    "pin_memory=False)\n"
                    "  %where: float32[1, 4] = aten.where.self(%eq, %full, %amax)\n"
                    "  %sub: float32[3, 4] = aten.sub.Tensor(%_to_copy, %where)\n"
                    "  %exp: float32[3, 4] = aten.exp.default(%sub)\n"
                    "  %sum_1: float32[1, 4] = aten.sum.dim_IntList(%exp, [0], True)\n"
                    "  %log: float32[1, 4] = aten.log.default(%sum_1)\n"
                    "  %add: float32[1, 4] = aten.add.Tensor(%log, %where)\n"
                    "  %_to_copy_1: float16[1, 4] = aten._to_copy.default(%add, dtype=torch.float16)\n"
                    "  %_to_copy_2: float32[3] = aten._to_copy.default(%i, dtype=torch.float32)\n"
                    "  %amax_1: float32[1] = aten.amax.default(%_to_copy_2, [0], True)\n"
                    "  %abs_2: float32[1] = aten.abs.default(%amax_1)\n"
                    "  %eq_1: bool[1] = aten.eq.Scalar(%abs_2, inf)\n"
                    "  %full_1: float32[] = aten.full.default([], 0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'), "
                    "pin_memory=False)\n"
                    "  %where_1: float32[1] = aten.where.self(%eq_1, %full_1, %amax_1)\n"
                    "  %sub_1: float32[3] = aten.sub.Tensor(%_to_copy_2, %where_1)\n"
                    "  %exp_1: float32[3] = aten.exp.default(%sub_1)\n"
                    "  %sum_2: float32[1] = aten.sum.dim_IntList(%exp_1, [0], True)\n"
                    "  %log_1: float32[1] = aten.log.default(%sum_2)\n"
                    "  %add_1: float32[1] = aten.add.Tensor(%log_1, %where_1)\n"
                    "  return (%_to_copy_1, %add_1)\n");
}

TEST_CASE("decompose logsumexp of an empty tensor -> exp, sum, log") {
  ProgramBuilder b;
  auto x = b.input("x", F, {0, 3});
  b.output(b.call("aten.logsumexp.default", {arg_tensor(x), arg_ints({0})}, {F, {3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[0, 3]):\n"
                    "  %exp: float32[0, 3] = aten.exp.default(%x)\n"
                    "  %sum_1: float32[3] = aten.sum.dim_IntList(%exp, [0])\n"
                    "  %log: float32[3] = aten.log.default(%sum_1)\n"
                    "  return (%log)\n");
}

TEST_CASE("decompose std_mean.correction -> var.correction, mean.dim, sqrt (float16 in float32)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 5});
  auto h = b.input("h", H, {2, 5});
  auto o1 = b.call_multi("aten.std_mean.correction", {arg_tensor(x), arg_ints({1})}, {{F, {2}}, {F, {2}}},
                         {"std_mean_0", "std_mean_1"});
  auto o2 =
      b.call_multi("aten.std_mean.correction", {arg_tensor(h), arg_ints({0})}, {{H, {1, 5}}, {H, {1, 5}}},
                   {"std_mean_2", "std_mean_3"}, {{"correction", arg_int(0)}, {"keepdim", arg_bool(true)}});
  for (const auto& o : {o1[0], o1[1], o2[0], o2[1]}) b.output(o);
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 5], %h: float16[2, 5]):\n"
      "  %var: float32[2] = aten.var.correction(%x, [1], correction=1.0)\n"
      "  %mean: float32[2] = aten.mean.dim(%x, [1])\n"
      "  %sqrt: float32[2] = aten.sqrt.default(%var)\n"
      "  %_to_copy: float32[2, 5] = aten._to_copy.default(%h, dtype=torch.float32)\n"
      "  %var_1: float32[1, 5] = aten.var.correction(%_to_copy, [0], correction=0.0, keepdim=True)\n"
      "  %mean_1: float32[1, 5] = aten.mean.dim(%_to_copy, [0], True)\n"
      "  %sqrt_1: float32[1, 5] = aten.sqrt.default(%var_1)\n"
      "  %_to_copy_1: float16[1, 5] = aten._to_copy.default(%sqrt_1, dtype=torch.float16)\n"
      "  %_to_copy_2: float16[1, 5] = aten._to_copy.default(%mean_1, dtype=torch.float16)\n"
      "  return (%sqrt, %mean, %_to_copy_1, %_to_copy_2)\n");
}

TEST_CASE("decompose std_mean refuses an integer input") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Long, {4});
  auto o = b.call_multi("aten.std_mean.correction", {arg_tensor(x)}, {{F, {}}, {F, {}}}, {"sm_0", "sm_1"});
  b.output(o[0]);
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "std_mean", "int64");
}

// ---- normalization -----------------------------------------------------------------------------

TEST_CASE("decompose instance_norm -> view [1, N*C, ...], _native_batch_norm_legit.no_stats, view back") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 4, 4});
  b.output(b.call("aten.instance_norm.default",
                  {arg_tensor(x), arg_none(), arg_none(), arg_none(), arg_none(), arg_bool(true),
                   arg_float(0.1), arg_float(1e-5), arg_bool(false)},
                  {F, {2, 3, 4, 4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3, 4, 4]):\n"
      "  %view: float32[1, 6, 4, 4] = aten.view.default(%x, [1, 6, 4, 4])\n"
      "  %getitem: float32[1, 6, 4, 4], %_native_batch_norm_legit_unused_1: float32[6], "
      "%_native_batch_norm_legit_unused_2: float32[6] = aten._native_batch_norm_legit.no_stats(%view, "
      "None, None, True, 0.1, 1e-05)  # _native_batch_norm_legit\n"
      "  %view_1: float32[2, 3, 4, 4] = aten.view.default(%getitem, [2, 3, 4, 4])\n"
      "  return (%view_1)\n");
}

TEST_CASE("decompose instance_norm with affine weight and bias -> repeat(w, [N]), repeat(b, [N])") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "norm.weight", F, {3});
  auto bias = b.parameter("p_b", "norm.bias", F, {3});
  auto x = b.input("x", F, {2, 3, 5});
  b.output(b.call("aten.instance_norm.default",
                  {arg_tensor(x), arg_tensor(w), arg_tensor(bias), arg_none(), arg_none(), arg_bool(true),
                   arg_float(0.1), arg_float(1e-5), arg_bool(false)},
                  {F, {2, 3, 5}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%p_w: float32[3], %p_b: float32[3], %x: float32[2, 3, 5]):\n"
      "  %repeat: float32[6] = aten.repeat.default(%p_w, [2])\n"
      "  %repeat_1: float32[6] = aten.repeat.default(%p_b, [2])\n"
      "  %view: float32[1, 6, 5] = aten.view.default(%x, [1, 6, 5])\n"
      "  %getitem: float32[1, 6, 5], %_native_batch_norm_legit_unused_1: float32[6], "
      "%_native_batch_norm_legit_unused_2: float32[6] = aten._native_batch_norm_legit.no_stats(%view, "
      "%repeat, %repeat_1, True, 0.1, 1e-05)  # _native_batch_norm_legit\n"
      "  %view_1: float32[2, 3, 5] = aten.view.default(%getitem, [2, 3, 5])\n"
      "  return (%view_1)\n");
}

TEST_CASE("decompose instance_norm with a symbolic batch: repeat and views take SymInt sizes") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "norm.weight", F, {3});
  auto x = b.input("x", F, {2, 3, 5});
  b.output(b.call("aten.instance_norm.default",
                  {arg_tensor(x), arg_tensor(w), arg_none(), arg_none(), arg_none(), arg_bool(true),
                   arg_float(0.1), arg_float(1e-5), arg_bool(false)},
                  {F, {2, 3, 5}}));
  ExportedProgram& p = b.program();
  SymInt s0 = sym_int(kMoreS0, 2);
  p.graph().set_tensor_meta("x", sym_meta({s0, SymInt(3), SymInt(5)}, {SymInt(15), SymInt(5), SymInt(1)}));
  p.graph().set_tensor_meta("instance_norm",
                            sym_meta({s0, SymInt(3), SymInt(5)}, {SymInt(15), SymInt(5), SymInt(1)}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%p_w: float32[3], %x: float32[s0, 3, 5]):\n"
      "  %sym_size_int_1: SymInt(s0) = aten.sym_size.int(%x, 0)\n"
      "  %repeat: float32[3*s0] = aten.repeat.default(%p_w, [%sym_size_int_1])\n"
      "  %mul: SymInt(3*s0) = _operator.mul(%sym_size_int_1, 3)\n"
      "  %view: float32[1, 3*s0, 5] = aten.view.default(%x, [1, %mul, 5])\n"
      "  %getitem: float32[1, 3*s0, 5], %_native_batch_norm_legit_unused_1: float32[3*s0], "
      "%_native_batch_norm_legit_unused_2: float32[3*s0] = aten._native_batch_norm_legit.no_stats(%view, "
      "%repeat, None, True, 0.1, 1e-05)  # _native_batch_norm_legit\n"
      "  %view_1: float32[s0, 3, 5] = aten.view.default(%getitem, [%sym_size_int_1, 3, 5])\n"
      "  return (%view_1)\n");
}

TEST_CASE("decompose instance_norm refuses running statistics (they are written back)") {
  ProgramBuilder b;
  auto rm = b.buffer("b_rm", "norm.running_mean", F, {3});
  auto rv = b.buffer("b_rv", "norm.running_var", F, {3});
  auto x = b.input("x", F, {2, 3, 5});
  b.output(b.call("aten.instance_norm.default",
                  {arg_tensor(x), arg_none(), arg_none(), arg_tensor(rm), arg_tensor(rv), arg_bool(false),
                   arg_float(0.1), arg_float(1e-5), arg_bool(false)},
                  {F, {2, 3, 5}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "instance_norm", "track_running_stats=True");
}

// ---- pooling -----------------------------------------------------------------------------------

TEST_CASE("decompose max_pool1d -> unsqueeze(-2), max_pool2d_with_indices, getitem 0, squeeze.dims [-2]") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 8});
  auto y = b.input("y", F, {3, 9});
  b.output(b.call("aten.max_pool1d.default", {arg_tensor(x), arg_ints({2})}, {F, {2, 3, 4}}));
  b.output(b.call("aten.max_pool1d.default", {arg_tensor(y), arg_ints({3}), arg_ints({2}), arg_ints({1})},
                  {F, {3, 5}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3, 8], %y: float32[3, 9]):\n"
      "  %unsqueeze: float32[2, 3, 1, 8] = aten.unsqueeze.default(%x, -2)\n"
      "  %getitem: float32[2, 3, 1, 4], %max_pool2d_with_indices_unused_1: int64[2, 3, 1, 4] = "
      "aten.max_pool2d_with_indices.default(%unsqueeze, [1, 2], [1, 2])  # max_pool2d_with_indices\n"
      "  %squeeze: float32[2, 3, 4] = aten.squeeze.dims(%getitem, [-2])\n"
      "  %unsqueeze_1: float32[3, 1, 9] = aten.unsqueeze.default(%y, -2)\n"
      "  %getitem_1: float32[3, 1, 5], %max_pool2d_with_indices_1_unused_1: int64[3, 1, 5] = "
      "aten.max_pool2d_with_indices.default(%unsqueeze_1, [1, 3], [1, 2], [0, 1])  "
      "# max_pool2d_with_indices_1\n"
      "  %squeeze_1: float32[3, 5] = aten.squeeze.dims(%getitem_1, [-2])\n"
      "  return (%squeeze, %squeeze_1)\n");
}

TEST_CASE("decompose adaptive_max_pool2d with dividing output sizes -> max_pool2d_with_indices") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 3, 8, 6});
  auto o = b.call_multi("aten.adaptive_max_pool2d.default", {arg_tensor(x), arg_ints({2, 3})},
                        {{F, {1, 3, 2, 3}}, {ScalarType::Long, {1, 3, 2, 3}}}, {"amp_0", "amp_1"});
  b.output(o[0]);
  b.output(o[1]);
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[1, 3, 8, 6]):\n"
                    "  %getitem: float32[1, 3, 2, 3], %getitem_1: int64[1, 3, 2, 3] = "
                    "aten.max_pool2d_with_indices.default(%x, [4, 2])  # max_pool2d_with_indices\n"
                    "  return (%getitem, %getitem_1)\n");
}

TEST_CASE("decompose adaptive_max_pool2d refuses output sizes that do not divide the input") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 3, 7, 6});
  auto o = b.call_multi("aten.adaptive_max_pool2d.default", {arg_tensor(x), arg_ints({2, 3})},
                        {{F, {1, 3, 2, 3}}, {ScalarType::Long, {1, 3, 2, 3}}}, {"amp_0", "amp_1"});
  b.output(o[0]);
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "adaptive_max_pool2d", "does not divide");
}

// ---- shrink, addcmul / addcdiv -----------------------------------------------------------------

// The where.self node is where_1: the where.ScalarSelf node it replaces held "where" when it was named.
TEST_CASE("decompose hardshrink -> abs, le, where.ScalarSelf (scalar_tensor + where.self)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {4});
  b.output(b.call("aten.hardshrink.default", {arg_tensor(x)}, {F, {4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[4]):\n"
                    "  %abs_1: float32[4] = aten.abs.default(%x)\n"
                    "  %le: bool[4] = aten.le.Scalar(%abs_1, 0.5)\n"
                    "  %scalar_tensor: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where_1: float32[4] = aten.where.self(%le, %scalar_tensor, %x)\n"
                    "  return (%where_1)\n");
}

TEST_CASE("decompose softshrink -> where(abs > l, x - sign(x) * l, x * 0) (float16 stays float16)") {
  ProgramBuilder b;
  auto h = b.input("h", H, {4});
  b.output(b.call("aten.softshrink.default", {arg_tensor(h), arg_float(0.25)}, {H, {4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%h: float16[4]):\n"
                    "  %abs_1: float16[4] = aten.abs.default(%h)\n"
                    "  %gt: bool[4] = aten.gt.Scalar(%abs_1, 0.25)\n"
                    "  %sign: float16[4] = aten.sign.default(%h)\n"
                    "  %mul: float16[4] = aten.mul.Tensor(%sign, 0.25)\n"
                    "  %sub: float16[4] = aten.sub.Tensor(%h, %mul)\n"
                    "  %mul_1: float16[4] = aten.mul.Tensor(%h, 0)\n"
                    "  %where: float16[4] = aten.where.self(%gt, %sub, %mul_1)\n"
                    "  return (%where)\n");
}

TEST_CASE("decompose softshrink refuses a negative lambda") {
  ProgramBuilder b;
  auto x = b.input("x", F, {4});
  b.output(b.call("aten.softshrink.default", {arg_tensor(x), arg_float(-1.0)}, {F, {4}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::INVALID_GRAPH, "softshrink", "greater or equal to 0");
}

TEST_CASE("decompose addcmul (float16 in float32) and addcdiv -> mul(t1, value), mul/div, add") {
  ProgramBuilder b;
  auto s = b.input("s", H, {3});
  auto t1 = b.input("t1", H, {3});
  auto t2 = b.input("t2", H, {3});
  auto x = b.input("x", F, {2, 3});
  auto y = b.input("y", F, {3});
  b.output(b.call("aten.addcmul.default", {arg_tensor(s), arg_tensor(t1), arg_tensor(t2)}, {H, {3}}));
  b.output(b.call("aten.addcdiv.default", {arg_tensor(x), arg_tensor(y), arg_tensor(x)}, {F, {2, 3}},
                  {{"value", arg_float(0.5)}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%s: float16[3], %t1: float16[3], %t2: float16[3], %x: float32[2, 3], %y: float32[3]):\n"
      "  %_to_copy: float32[3] = aten._to_copy.default(%s, dtype=torch.float32)\n"
      "  %_to_copy_1: float32[3] = aten._to_copy.default(%t1, dtype=torch.float32)\n"
      "  %_to_copy_2: float32[3] = aten._to_copy.default(%t2, dtype=torch.float32)\n"
      "  %mul: float32[3] = aten.mul.Tensor(%_to_copy_1, 1)\n"
      "  %mul_1: float32[3] = aten.mul.Tensor(%mul, %_to_copy_2)\n"
      "  %add: float32[3] = aten.add.Tensor(%_to_copy, %mul_1)\n"
      "  %_to_copy_3: float16[3] = aten._to_copy.default(%add, dtype=torch.float16)\n"
      "  %mul_2: float32[3] = aten.mul.Tensor(%y, 0.5)\n"
      "  %div: float32[2, 3] = aten.div.Tensor(%mul_2, %x)\n"
      "  %add_1: float32[2, 3] = aten.add.Tensor(%x, %div)\n"
      "  return (%_to_copy_3, %add_1)\n");
}

// ---- lerp --------------------------------------------------------------------------------------

TEST_CASE("decompose lerp.Scalar -> new_full (full) weight, abs, ge, where, where, sub, mul, add") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto y = b.input("y", F, {3});
  b.output(b.call("aten.lerp.Scalar", {arg_tensor(x), arg_tensor(y), arg_float(0.3)}, {F, {3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[3], %y: float32[3]):\n"
      "  %full: float32[] = aten.full.default([], 0.3, dtype=torch.float32, layout=torch.strided, "
      "device=device(type='cpu'), pin_memory=False)\n"
      "  %abs_1: float32[] = aten.abs.default(%full)\n"
      "  %ge: bool[] = aten.ge.Scalar(%abs_1, 0.5)\n"
      "  %sub: float32[] = aten.sub.Tensor(%full, 1)\n"
      "  %where: float32[] = aten.where.self(%ge, %sub, %full)\n"
      "  %where_1: float32[3] = aten.where.self(%ge, %y, %x)\n"
      "  %sub_1: float32[3] = aten.sub.Tensor(%y, %x)\n"
      "  %mul: float32[3] = aten.mul.Tensor(%where, %sub_1)\n"
      "  %add: float32[3] = aten.add.Tensor(%mul, %where_1)\n"
      "  return (%add)\n");
}

TEST_CASE("decompose lerp.Tensor on float16 computes in float32") {
  ProgramBuilder b;
  auto x = b.input("x", H, {2});
  auto y = b.input("y", H, {2});
  auto w = b.input("w", H, {2});
  b.output(b.call("aten.lerp.Tensor", {arg_tensor(x), arg_tensor(y), arg_tensor(w)}, {H, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float16[2], %y: float16[2], %w: float16[2]):\n"
                    "  %_to_copy: float32[2] = aten._to_copy.default(%x, dtype=torch.float32)\n"
                    "  %_to_copy_1: float32[2] = aten._to_copy.default(%y, dtype=torch.float32)\n"
                    "  %_to_copy_2: float32[2] = aten._to_copy.default(%w, dtype=torch.float32)\n"
                    "  %abs_1: float32[2] = aten.abs.default(%_to_copy_2)\n"
                    "  %ge: bool[2] = aten.ge.Scalar(%abs_1, 0.5)\n"
                    "  %sub: float32[2] = aten.sub.Tensor(%_to_copy_2, 1)\n"
                    "  %where: float32[2] = aten.where.self(%ge, %sub, %_to_copy_2)\n"
                    "  %where_1: float32[2] = aten.where.self(%ge, %_to_copy_1, %_to_copy)\n"
                    "  %sub_1: float32[2] = aten.sub.Tensor(%_to_copy_1, %_to_copy)\n"
                    "  %mul: float32[2] = aten.mul.Tensor(%where, %sub_1)\n"
                    "  %add: float32[2] = aten.add.Tensor(%mul, %where_1)\n"
                    "  %_to_copy_3: float16[2] = aten._to_copy.default(%add, dtype=torch.float16)\n"
                    "  return (%_to_copy_3)\n");
}

TEST_CASE("decompose lerp refuses a non-contiguous operand") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto t = b.call("aten.transpose.int", {arg_tensor(x), arg_int(0), arg_int(1)}, {F, {3, 2}});
  auto y = b.input("y", F, {3, 2});
  b.output(b.call("aten.lerp.Scalar", {arg_tensor(t), arg_tensor(y), arg_float(0.5)}, {F, {3, 2}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "lerp", "non-contiguous");
}
