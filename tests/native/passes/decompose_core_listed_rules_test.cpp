// Rules for Core ATen ops that PyTorch's default decomposition table (core_aten_decompositions())
// still rewrites: reflection_pad{1,2,3}d and replication_pad{1,2,3}d (torch._decomp _reflection_pad /
// _replication_pad into arange, abs/sub or clamp, and index), squeeze.dim (squeeze.dims),
// select_scatter (where), fill.Scalar (full_like; and the non-core fill.Tensor); the float16 opmath
// form, --preserve-ops keeping them, and the refused cases.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/program_builder.h"
#include "decompose_test_util.h"
#include "ops/op_table.h"
#include "passes/decompositions/table.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::expect_decomposed;
using pteforge::testing::expect_refused;
using pteforge::testing::F;
using pteforge::testing::ProgramBuilder;

namespace {

const std::string kPadCpu = "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n";

SymInt pad_sym(const std::string& expr, int64_t hint) {
  SymExpr e;
  e.expr_str = expr;
  e.hint = SymExprHint::of_int(hint);
  return SymInt(std::move(e));
}

}  // namespace

TEST_CASE(
    "pad rules: five of the six pad ops are Core ATen and marked core in the table, all with out variants") {
  for (const char* op : {"aten.reflection_pad1d.default", "aten.reflection_pad2d.default",
                         "aten.reflection_pad3d.default", "aten.replication_pad1d.default",
                         "aten.replication_pad2d.default", "aten.replication_pad3d.default"}) {
    CAPTURE(op);
    const ops::OpSchema* s = ops::op_table().find(op);
    REQUIRE(s != nullptr);
    // native_functions.yaml tags all but replication_pad1d `core`.
    const bool core = std::string(op) != "aten.replication_pad1d.default";
    CHECK(ops::is_core_aten(*s) == core);
    CHECK(ops::op_table().out_variant(*s) != nullptr);
    const passes::decomp::Decomposition* d = passes::decomp::find_decomposition(op);
    REQUIRE(d != nullptr);
    CHECK(d->core == core);
  }
  // The other rules are for non-core ops (the table test checks each against its flag).
  const passes::decomp::Decomposition* linear = passes::decomp::find_decomposition("aten.linear.default");
  REQUIRE(linear != nullptr);
  CHECK_FALSE(linear->core);
}

TEST_CASE("decompose reflection_pad2d -> per padded dim (H, then W) arange, abs, sub, abs, sub, index") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 2, 3, 4});
  // padding (left, right, top, bottom) = (1, 2, 2, 1): H 3 -> 6, W 4 -> 7.
  b.output(
      b.call("aten.reflection_pad2d.default", {arg_tensor(x), arg_ints({1, 2, 2, 1})}, {F, {1, 2, 6, 7}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[1, 2, 3, 4]):\n"
      "  %arange: int64[6] = aten.arange.start_step(-2, 4, " +
          kPadCpu +
          "  %abs_1: int64[6] = aten.abs.default(%arange)\n"
          "  %sub: int64[6] = aten.sub.Tensor(2, %abs_1)\n"
          "  %abs_2: int64[6] = aten.abs.default(%sub)\n"
          "  %sub_1: int64[6] = aten.sub.Tensor(2, %abs_2)\n"
          "  %index: float32[1, 2, 6, 4] = aten.index.Tensor(%x, [None, None, %sub_1, None])\n"
          "  %arange_1: int64[7] = aten.arange.start_step(-1, 6, " +
          kPadCpu +
          "  %abs_3: int64[7] = aten.abs.default(%arange_1)\n"
          "  %sub_2: int64[7] = aten.sub.Tensor(3, %abs_3)\n"
          "  %abs_4: int64[7] = aten.abs.default(%sub_2)\n"
          "  %sub_3: int64[7] = aten.sub.Tensor(3, %abs_4)\n"
          "  %index_1: float32[1, 2, 6, 7] = aten.index.Tensor(%index, [None, None, None, %sub_3])\n"
          "  return (%index_1)\n");
}

TEST_CASE(
    "decompose replication_pad1d / replication_pad3d -> arange, clamp, index (int64 input, unbatched 3d)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 4});
  auto y = b.input("y", ScalarType::Long, {2, 2, 2, 3});
  b.output(b.call("aten.replication_pad1d.default", {arg_tensor(x), arg_ints({3, 5})}, {F, {2, 3, 12}}));
  // padding pairs innermost first: W (1, 0), H (2, 1), D (0, 3) on the unbatched [C, D, H, W].
  b.output(b.call("aten.replication_pad3d.default", {arg_tensor(y), arg_ints({1, 0, 2, 1, 0, 3})},
                  {ScalarType::Long, {2, 5, 5, 4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3, 4], %y: int64[2, 2, 2, 3]):\n"
      "  %arange: int64[12] = aten.arange.start_step(-3, 9, " +
          kPadCpu +
          "  %clamp: int64[12] = aten.clamp.default(%arange, 0, 3)\n"
          "  %index: float32[2, 3, 12] = aten.index.Tensor(%x, [None, None, %clamp])\n"
          "  %arange_1: int64[5] = aten.arange.start_step(0, 5, " +
          kPadCpu +
          "  %clamp_1: int64[5] = aten.clamp.default(%arange_1, 0, 1)\n"
          "  %index_1: int64[2, 5, 2, 3] = aten.index.Tensor(%y, [None, %clamp_1, None, None])\n"
          "  %arange_2: int64[5] = aten.arange.start_step(-2, 3, " +
          kPadCpu +
          "  %clamp_2: int64[5] = aten.clamp.default(%arange_2, 0, 1)\n"
          "  %index_2: int64[2, 5, 5, 3] = aten.index.Tensor(%index_1, [None, None, %clamp_2, None])\n"
          "  %arange_3: int64[4] = aten.arange.start_step(-1, 3, " +
          kPadCpu +
          "  %clamp_3: int64[4] = aten.clamp.default(%arange_3, 0, 2)\n"
          "  %index_3: int64[2, 5, 5, 4] = aten.index.Tensor(%index_2, [None, None, None, %clamp_3])\n"
          "  return (%index, %index_3)\n");
}

TEST_CASE("decompose reflection_pad1d on float16: pw_cast_for_opmath computes in float32 and casts back") {
  ProgramBuilder b;
  auto h = b.input("h", ScalarType::Half, {1, 3});
  b.output(
      b.call("aten.reflection_pad1d.default", {arg_tensor(h), arg_ints({1, 1})}, {ScalarType::Half, {1, 5}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%h: float16[1, 3]):\n"
                    "  %_to_copy: float32[1, 3] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %arange: int64[5] = aten.arange.start_step(-1, 4, " +
                        kPadCpu +
                        "  %abs_1: int64[5] = aten.abs.default(%arange)\n"
                        "  %sub: int64[5] = aten.sub.Tensor(2, %abs_1)\n"
                        "  %abs_2: int64[5] = aten.abs.default(%sub)\n"
                        "  %sub_1: int64[5] = aten.sub.Tensor(2, %abs_2)\n"
                        "  %index: float32[1, 5] = aten.index.Tensor(%_to_copy, [None, %sub_1])\n"
                        "  %_to_copy_1: float16[1, 5] = aten._to_copy.default(%index, dtype=torch.float16)\n"
                        "  return (%_to_copy_1)\n");
}

TEST_CASE("decompose keeps reflection_pad2d listed in preserve_ops") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 1, 3, 3});
  b.output(
      b.call("aten.reflection_pad2d.default", {arg_tensor(x), arg_ints({1, 1, 1, 1})}, {F, {1, 1, 5, 5}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep, {"aten.reflection_pad2d.default"});
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(pteforge::testing::typed(ep.graph()) ==
        "graph(%x: float32[1, 1, 3, 3]):\n"
        "  %reflection_pad2d: float32[1, 1, 5, 5] = aten.reflection_pad2d.default(%x, [1, 1, 1, 1])\n"
        "  return (%reflection_pad2d)\n");
}

TEST_CASE(
    "decompose pad rules: torch's rank check is an error, symbolic sizes and non-contiguous input refused") {
  SUBCASE("a 2-d input to reflection_pad2d") {
    ProgramBuilder b;
    auto x = b.input("x", F, {3, 3});
    b.output(b.call("aten.reflection_pad2d.default", {arg_tensor(x), arg_ints({1, 1, 1, 1})}, {F, {5, 5}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "reflection_pad2d",
                   "reflection_pad2d requires 3D or 4D input");
  }
  SUBCASE("a 5-d input to replication_pad1d (torch's message names reflection_pad)") {
    ProgramBuilder b;
    auto x = b.input("x", F, {1, 1, 1, 1, 3});
    b.output(
        b.call("aten.replication_pad1d.default", {arg_tensor(x), arg_ints({1, 1})}, {F, {1, 1, 1, 1, 5}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "replication_pad1d",
                   "reflection_pad1d requires 2D or 3D input");
  }
  SUBCASE("a symbolic padded size") {
    ProgramBuilder b;
    auto x = b.input("x", F, {2, 4});
    b.output(b.call("aten.reflection_pad1d.default", {arg_tensor(x), arg_ints({1, 1})}, {F, {2, 6}}));
    ExportedProgram& p = b.program();
    const std::string s0 = "Symbol('s0', integer=True, positive=True)";
    TensorMeta in = *p.graph().tensor_meta("x");
    in.sizes[1] = pad_sym(s0, 4);
    p.graph().set_tensor_meta("x", in);
    TensorMeta out = *p.graph().tensor_meta("reflection_pad1d");
    out.sizes[1] = pad_sym("Add(Integer(2), " + s0 + ")", 6);
    p.graph().set_tensor_meta("reflection_pad1d", out);
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "reflection_pad1d",
                   "a symbolic size of a padded dimension");
  }
  SUBCASE("a non-contiguous input") {
    ProgramBuilder b;
    auto x = b.input("x", F, {4, 3});
    auto t = b.call("aten.transpose.int", {arg_tensor(x), arg_int(0), arg_int(1)}, {F, {3, 4}});
    b.output(b.call("aten.replication_pad1d.default", {arg_tensor(t), arg_ints({2, 0})}, {F, {3, 6}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "replication_pad1d", "non-contiguous");
  }
}

TEST_CASE("decompose squeeze.dim -> squeeze.dims with the dim as given") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 1, 3, 1});
  auto s1 = b.call("aten.squeeze.dim", {arg_tensor(x), arg_int(1)}, {F, {2, 3, 1}});
  b.output(b.call("aten.squeeze.dim", {arg_tensor(s1), arg_int(-1)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  // Names: a new node is named while the node it replaces still holds its name (torch.export's
  // re-trace naming is not reproduced), so the first becomes squeeze_2 and the second takes the
  // freed "squeeze". Names do not reach the .pte.
  expect_decomposed(ep,
                    "graph(%x: float32[2, 1, 3, 1]):\n"
                    "  %squeeze_2: float32[2, 3, 1] = aten.squeeze.dims(%x, [1])\n"
                    "  %squeeze: float32[2, 3] = aten.squeeze.dims(%squeeze_2, [-1])\n"
                    "  return (%squeeze)\n");
}

TEST_CASE("decompose squeeze.dim in a mutated view chain: the in-place add is written back to the buffer") {
  ProgramBuilder b;
  auto buf = b.buffer("b_state", "state", F, {1, 4});
  auto x = b.input("x", F, {4});
  auto v = b.call("aten.squeeze.dim", {arg_tensor(buf), arg_int(0)}, {F, {4}});
  b.call("aten.add_.Tensor", {arg_tensor(v), arg_tensor(x)}, {F, {4}});
  b.output(b.call("aten.mul.Tensor", {arg_tensor(buf), arg_float(2.0)}, {F, {1, 4}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  // The squeeze's inverse (a view back to [1, 4]) is the buffer's new value, a BUFFER_MUTATION output.
  CHECK(pteforge::testing::typed(ep.graph()) ==
        "graph(%b_state: float32[1, 4], %x: float32[4]):\n"
        "  %squeeze_1: float32[4] = aten.squeeze.dims(%b_state, [0])\n"
        "  %add: float32[4] = aten.add.Tensor(%squeeze_1, %x)\n"
        "  %view: float32[1, 4] = aten.view.default(%add, [1, 4])\n"
        "  %mul: float32[1, 4] = aten.mul.Tensor(%view, 2.0)\n"
        "  return (%view, %mul)\n");
  REQUIRE(ep.signature().output_specs.size() == 2);
  CHECK(ep.signature().output_specs[0].kind == OutputKind::BufferMutation);
}

TEST_CASE(
    "decompose select_scatter -> arange, view (-1 at dim), eq, unsqueeze, expand, where with dim and index "
    "wrapped") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 4});
  auto s = b.input("s", F, {2, 3});
  b.output(b.call("aten.select_scatter.default", {arg_tensor(x), arg_tensor(s), arg_int(-1), arg_int(-1)},
                  {F, {2, 3, 4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3, 4], %s: float32[2, 3]):\n"
                    "  %arange: int64[4] = aten.arange.start_step(0, 4, " +
                        kPadCpu +
                        "  %view: int64[1, 1, 4] = aten.view.default(%arange, [1, 1, -1])\n"
                        "  %eq: bool[1, 1, 4] = aten.eq.Scalar(%view, 3)\n"
                        "  %unsqueeze: float32[2, 3, 1] = aten.unsqueeze.default(%s, 2)\n"
                        "  %expand: float32[2, 3, 4] = aten.expand.default(%unsqueeze, [2, 3, 4])\n"
                        "  %where: float32[2, 3, 4] = aten.where.self(%eq, %expand, %x)\n"
                        "  return (%where)\n");
}

TEST_CASE("decompose select_scatter refuses a src of another dtype (the reference's where would promote)") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Long, {3, 2});
  auto s = b.input("s", F, {2});
  b.output(b.call("aten.select_scatter.default", {arg_tensor(x), arg_tensor(s), arg_int(0), arg_int(1)},
                  {ScalarType::Long, {3, 2}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "select_scatter",
                 "src of dtype float32 for a int64 self");
}

TEST_CASE(
    "decompose fill: x.fill_(v) on a buffer functionalizes to fill.Scalar, then "
    "full_like(pin_memory=False)") {
  ProgramBuilder b;
  auto buf = b.buffer("b_acc", "acc", F, {2, 3});
  auto x = b.input("x", F, {2, 3});
  b.call("aten.fill_.Scalar", {arg_tensor(buf), arg_float(0.5)}, {F, {2, 3}});
  b.output(b.call("aten.add.Tensor", {arg_tensor(buf), arg_tensor(x)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(pteforge::testing::typed(ep.graph()) ==
        "graph(%b_acc: float32[2, 3], %x: float32[2, 3]):\n"
        "  %full_like: float32[2, 3] = aten.full_like.default(%b_acc, 0.5, pin_memory=False)\n"
        "  %add: float32[2, 3] = aten.add.Tensor(%full_like, %x)\n"
        "  return (%full_like, %add)\n");
  REQUIRE(ep.signature().output_specs.size() == 2);
  CHECK(ep.signature().output_specs[0].kind == OutputKind::BufferMutation);
}

TEST_CASE("decompose fill.Tensor -> copy for a 0-d value, torch's error for another") {
  {
    ProgramBuilder b;
    auto x = b.input("x", F, {2, 3});
    auto v = b.input("v", F, {});
    b.output(b.call("aten.fill.Tensor", {arg_tensor(x), arg_tensor(v)}, {F, {2, 3}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%x: float32[2, 3], %v: float32[]):\n"
                      "  %copy: float32[2, 3] = aten.copy.default(%x, %v)\n"
                      "  return (%copy)\n");
  }
  {
    ProgramBuilder b;
    auto x = b.input("x", F, {2, 3});
    auto v = b.input("v", F, {3});
    b.output(b.call("aten.fill.Tensor", {arg_tensor(x), arg_tensor(v)}, {F, {2, 3}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "fill",
                   "fill only supports 0-dimension value tensor but got tensor with 1 dimensions");
  }
}

// ---- eye --------------------------------------------------------------------------------------------

TEST_CASE(
    "decompose eye -> two ranges in the smallest integer type, eq of [n, 1] and [m], cast to the dtype") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3, 3});
  auto e = b.call("aten.eye.default", {arg_int(3)}, {F, {3, 3}});
  b.output(b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(e)}, {F, {3, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3, 3]):\n"
                    "  %arange: uint8[3] = aten.arange.start_step(0, 3, dtype=torch.uint8, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %arange_1: uint8[3] = aten.arange.start_step(0, 3, dtype=torch.uint8, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %unsqueeze: uint8[3, 1] = aten.unsqueeze.default(%arange, -1)\n"
                    "  %eq: bool[3, 3] = aten.eq.Tensor(%unsqueeze, %arange_1)\n"
                    "  %_to_copy: float32[3, 3] = aten._to_copy.default(%eq, dtype=torch.float32)\n"
                    "  %add: float32[3, 3] = aten.add.Tensor(%x, %_to_copy)\n"
                    "  return (%add)\n");
}

TEST_CASE("decompose eye.m: sizes past 255 take uint16 ranges, and a bool eye is the comparison itself") {
  ProgramBuilder b;
  auto e = b.call("aten.eye.m", {arg_int(2), arg_int(300)}, {ScalarType::Bool, {2, 300}},
                  {{"dtype", arg_dtype(ScalarType::Bool)}, {"device", arg_device(Device{})}});
  b.output(e);
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph():\n"
                    "  %arange: uint16[2] = aten.arange.start_step(0, 2, dtype=torch.uint16, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %arange_1: uint16[300] = aten.arange.start_step(0, 300, dtype=torch.uint16, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %unsqueeze: uint16[2, 1] = aten.unsqueeze.default(%arange, -1)\n"
                    "  %eq: bool[2, 300] = aten.eq.Tensor(%unsqueeze, %arange_1)\n"
                    "  return (%eq)\n");
}

TEST_CASE("decompose eye: a negative size is torch's error") {
  ProgramBuilder b;
  b.output(b.call("aten.eye.m", {arg_int(2), arg_int(-1)}, {F, {2, 0}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::INVALID_GRAPH, "eye", "m must be greater or equal to 0, got -1");
}

// ---- aminmax, logaddexp, vdot, addr -----------------------------------------------------------------

TEST_CASE("decompose aminmax -> amin + amax over [dim], or every dim when dim is None") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto d = b.call_multi("aten.aminmax.default", {arg_tensor(x)}, {{F, {2, 1}}, {F, {2, 1}}}, {"lo", "hi"},
                        {{"dim", arg_int(1)}, {"keepdim", arg_bool(true)}});
  auto all = b.call_multi("aten.aminmax.default", {arg_tensor(x)}, {{F, {}}, {F, {}}}, {"lo2", "hi2"});
  for (const auto& o : {d[0], d[1], all[0], all[1]}) b.output(o);
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3]):\n"
                    "  %amin: float32[2, 1] = aten.amin.default(%x, [1], True)\n"
                    "  %amax: float32[2, 1] = aten.amax.default(%x, [1], True)\n"
                    "  %amin_1: float32[] = aten.amin.default(%x)\n"
                    "  %amax_1: float32[] = aten.amax.default(%x)\n"
                    "  return (%amin, %amax, %amin_1, %amax_1)\n");
}

TEST_CASE("decompose logaddexp -> torch._refs.logaddexp (isfinite as eq, abs, ne, mul), float16 in float32") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Half, {2, 3});
  auto y = b.input("y", ScalarType::Half, {3});
  b.output(b.call("aten.logaddexp.default", {arg_tensor(x), arg_tensor(y)}, {ScalarType::Half, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float16[2, 3], %y: float16[3]):\n"
                    "  %_to_copy: float32[2, 3] = aten._to_copy.default(%x, dtype=torch.float32)\n"
                    "  %_to_copy_1: float32[3] = aten._to_copy.default(%y, dtype=torch.float32)\n"
                    "  %ge: bool[2, 3] = aten.ge.Tensor(%_to_copy, %_to_copy_1)\n"
                    "  %where: float32[2, 3] = aten.where.self(%ge, %_to_copy, %_to_copy_1)\n"
                    "  %where_1: float32[2, 3] = aten.where.self(%ge, %_to_copy_1, %_to_copy)\n"
                    "  %eq: bool[2, 3] = aten.eq.Tensor(%_to_copy, %_to_copy)\n"
                    "  %abs_1: float32[2, 3] = aten.abs.default(%_to_copy)\n"
                    "  %ne: bool[2, 3] = aten.ne.Scalar(%abs_1, inf)\n"
                    "  %mul: bool[2, 3] = aten.mul.Tensor(%eq, %ne)\n"
                    "  %logical_not: bool[2, 3] = aten.logical_not.default(%mul)\n"
                    "  %eq_1: bool[2, 3] = aten.eq.Tensor(%_to_copy, %_to_copy_1)\n"
                    "  %logical_and: bool[2, 3] = aten.logical_and.default(%logical_not, %eq_1)\n"
                    "  %sub: float32[2, 3] = aten.sub.Tensor(%where_1, %where)\n"
                    "  %exp: float32[2, 3] = aten.exp.default(%sub)\n"
                    "  %log1p: float32[2, 3] = aten.log1p.default(%exp)\n"
                    "  %add: float32[2, 3] = aten.add.Tensor(%where, %log1p)\n"
                    "  %where_2: float32[2, 3] = aten.where.self(%logical_and, %_to_copy, %add)\n"
                    "  %_to_copy_2: float16[2, 3] = aten._to_copy.default(%where_2, dtype=torch.float16)\n"
                    "  return (%_to_copy_2)\n");
  ProgramBuilder bi;
  auto i = bi.input("i", ScalarType::Long, {3});
  bi.output(bi.call("aten.logaddexp.default", {arg_tensor(i), arg_tensor(i)}, {ScalarType::Long, {3}}));
  ExportedProgram epi = bi.build();
  expect_refused(epi, ErrorCode::UNSUPPORTED_FEATURE, "logaddexp",
                 "operands of dtype int64 (the kernel takes floating-point tensors only)");
}

TEST_CASE("decompose vdot -> dot of real vectors (float16 in float32), dtypes must match") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Half, {3});
  auto y = b.input("y", ScalarType::Half, {3});
  b.output(b.call("aten.vdot.default", {arg_tensor(x), arg_tensor(y)}, {ScalarType::Half, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float16[3], %y: float16[3]):\n"
                    "  %_to_copy: float32[3] = aten._to_copy.default(%x, dtype=torch.float32)\n"
                    "  %_to_copy_1: float32[3] = aten._to_copy.default(%y, dtype=torch.float32)\n"
                    "  %mul: float32[3] = aten.mul.Tensor(%_to_copy, %_to_copy_1)\n"
                    "  %sum_1: float32[] = aten.sum.dim_IntList(%mul, [])\n"
                    "  %_to_copy_2: float16[] = aten._to_copy.default(%sum_1, dtype=torch.float16)\n"
                    "  return (%_to_copy_2)\n");
  ProgramBuilder bm;
  auto f = bm.input("f", F, {3});
  auto g = bm.input("g", ScalarType::Double, {3});
  bm.output(bm.call("aten.vdot.default", {arg_tensor(f), arg_tensor(g)}, {F, {}}));
  ExportedProgram epm = bm.build();
  expect_refused(epm, ErrorCode::INVALID_GRAPH, "vdot",
                 "dot : expected both vectors to have same dtype, but found torch.float32 and torch.float64");
  ProgramBuilder bl;
  auto s1 = bl.input("s1", F, {1});
  auto s3 = bl.input("s3", F, {3});
  bl.output(bl.call("aten.vdot.default", {arg_tensor(s1), arg_tensor(s3)}, {F, {}}));
  ExportedProgram epl = bl.build();
  expect_refused(
      epl, ErrorCode::INVALID_GRAPH, "vdot",
      "inconsistent tensor size, expected tensor [1] and src [3] to have the same number of elements, "
      "but got 1 and 3 elements respectively");
}

TEST_CASE(
    "decompose dot of int32 vectors: the int64 sum is cast back to int32, as the reference's wrapper does") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Int, {3});
  auto y = b.input("y", ScalarType::Int, {3});
  b.output(b.call("aten.dot.default", {arg_tensor(x), arg_tensor(y)}, {ScalarType::Int, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: int32[3], %y: int32[3]):\n"
                    "  %mul: int32[3] = aten.mul.Tensor(%x, %y)\n"
                    "  %sum_1: int64[] = aten.sum.dim_IntList(%mul, [])\n"
                    "  %_to_copy: int32[] = aten._to_copy.default(%sum_1, dtype=torch.int32)\n"
                    "  return (%_to_copy)\n");
}

TEST_CASE("decompose addr -> beta * expand(self) + alpha * outer, beta 0 drops self, bool by logical_or") {
  ProgramBuilder b;
  auto m = b.input("m", F, {3});
  auto v1 = b.input("v1", F, {2});
  auto v2 = b.input("v2", F, {3});
  b.output(b.call("aten.addr.default", {arg_tensor(m), arg_tensor(v1), arg_tensor(v2)}, {F, {2, 3}},
                  {{"beta", arg_float(0.5)}}));
  b.output(b.call("aten.addr.default", {arg_tensor(m), arg_tensor(v1), arg_tensor(v2)}, {F, {2, 3}},
                  {{"beta", arg_int(0)}, {"alpha", arg_int(2)}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%m: float32[3], %v1: float32[2], %v2: float32[3]):\n"
                    "  %expand: float32[2, 3] = aten.expand.default(%m, [2, 3])\n"
                    "  %mul: float32[2, 3] = aten.mul.Tensor(%expand, 0.5)\n"
                    "  %view: float32[2, 1] = aten.view.default(%v1, [2, 1])\n"
                    "  %mul_1: float32[2, 3] = aten.mul.Tensor(%view, %v2)\n"
                    "  %mul_2: float32[2, 3] = aten.mul.Tensor(%mul_1, 1)\n"
                    "  %add: float32[2, 3] = aten.add.Tensor(%mul, %mul_2)\n"
                    "  %view_1: float32[2, 1] = aten.view.default(%v1, [2, 1])\n"
                    "  %mul_3: float32[2, 3] = aten.mul.Tensor(%view_1, %v2)\n"
                    "  %mul_4: float32[2, 3] = aten.mul.Tensor(%mul_3, 2)\n"
                    "  return (%add, %mul_4)\n");
  ProgramBuilder bb;
  auto bm = bb.input("bm", ScalarType::Bool, {2, 3});
  auto b1 = bb.input("b1", ScalarType::Bool, {2});
  auto b2 = bb.input("b2", ScalarType::Bool, {3});
  bb.output(bb.call("aten.addr.default", {arg_tensor(bm), arg_tensor(b1), arg_tensor(b2)},
                    {ScalarType::Bool, {2, 3}}));
  ExportedProgram epb = bb.build();
  expect_decomposed(epb,
                    "graph(%bm: bool[2, 3], %b1: bool[2], %b2: bool[3]):\n"
                    "  %expand: bool[2, 3] = aten.expand.default(%bm, [2, 3])\n"
                    "  %view: bool[2, 1] = aten.view.default(%b1, [2, 1])\n"
                    "  %mul: bool[2, 3] = aten.mul.Tensor(%view, %b2)\n"
                    "  %logical_or: bool[2, 3] = aten.logical_or.default(%expand, %mul)\n"
                    "  return (%logical_or)\n");
  ProgramBuilder bi;
  auto im = bi.input("im", ScalarType::Long, {2, 3});
  auto i1 = bi.input("i1", ScalarType::Long, {2});
  auto i2 = bi.input("i2", ScalarType::Long, {3});
  bi.output(bi.call("aten.addr.default", {arg_tensor(im), arg_tensor(i1), arg_tensor(i2)},
                    {ScalarType::Long, {2, 3}}, {{"alpha", arg_float(0.5)}}));
  ExportedProgram epi = bi.build();
  expect_refused(epi, ErrorCode::INVALID_GRAPH, "addr",
                 "addr: a float alpha for int64 tensors (torch: cannot safely convert float to it)");
  ProgramBuilder b2d;
  auto s = b2d.input("s", F, {2, 3});
  auto w = b2d.input("w", F, {2, 1});
  b2d.output(b2d.call("aten.addr.default", {arg_tensor(s), arg_tensor(w), arg_tensor(w)}, {F, {2, 3}}));
  ExportedProgram ep2 = b2d.build();
  expect_refused(ep2, ErrorCode::INVALID_GRAPH, "addr", "addr: Expected 1-D argument vec1, but got 2-D");
}

TEST_CASE("decompose nansum -> where(isnan(x), 0, x) then sum.dim_IntList with dim, keepdim and dtype") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  b.output(b.call("aten.nansum.default", {arg_tensor(x)}, {F, {}}));
  b.output(b.call("aten.nansum.default", {arg_tensor(x), arg_ints({1}), arg_bool(true)},
                  {ScalarType::Double, {2, 1}}, {{"dtype", arg_dtype(ScalarType::Double)}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3]):\n"
      "  %isnan: bool[2, 3] = aten.isnan.default(%x)\n"
      "  %scalar_tensor: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, "
      "layout=torch.strided, device=device(type='cpu'))\n"
      "  %where: float32[2, 3] = aten.where.self(%isnan, %scalar_tensor, %x)\n"
      "  %sum_1: float32[] = aten.sum.dim_IntList(%where, None)\n"
      "  %isnan_1: bool[2, 3] = aten.isnan.default(%x)\n"
      "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, "
      "layout=torch.strided, device=device(type='cpu'))\n"
      "  %where_1: float32[2, 3] = aten.where.self(%isnan_1, %scalar_tensor_1, %x)\n"
      "  %sum_2: float64[2, 1] = aten.sum.dim_IntList(%where_1, [1], True, dtype=torch.float64)\n"
      "  return (%sum_1, %sum_2)\n");
}

// ---- im2col -----------------------------------------------------------------------------------------

TEST_CASE(
    "decompose im2col (F.unfold) -> block index ranges, constant_pad_nd, index.Tensor, permute, reshape") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 4, 5});
  // Unbatched [C=2, 4, 5], kernel 2x3, dilation 1, padding [1, 0], stride [2, 1]: 3 x 3 blocks.
  b.output(b.call("aten.im2col.default",
                  {arg_tensor(x), arg_ints({2, 3}), arg_ints({1, 1}), arg_ints({1, 0}), arg_ints({2, 1})},
                  {F, {12, 9}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 4, 5]):\n"
      "  %unsqueeze: float32[1, 2, 4, 5] = aten.unsqueeze.default(%x, 0)\n"
      "  %arange: int64[3] = aten.arange.start_step(0, 5, 2, dtype=torch.int64, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %unsqueeze_1: int64[1, 3] = aten.unsqueeze.default(%arange, 0)\n"
      "  %arange_1: int64[2] = aten.arange.start_step(0, 2, dtype=torch.int64, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %unsqueeze_2: int64[2, 1] = aten.unsqueeze.default(%arange_1, -1)\n"
      "  %add: int64[2, 3] = aten.add.Tensor(%unsqueeze_1, %unsqueeze_2)\n"
      "  %arange_2: int64[3] = aten.arange.start_step(0, 3, dtype=torch.int64, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %unsqueeze_3: int64[1, 3] = aten.unsqueeze.default(%arange_2, 0)\n"
      "  %arange_3: int64[3] = aten.arange.start_step(0, 3, dtype=torch.int64, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %unsqueeze_4: int64[3, 1] = aten.unsqueeze.default(%arange_3, -1)\n"
      "  %add_1: int64[3, 3] = aten.add.Tensor(%unsqueeze_3, %unsqueeze_4)\n"
      "  %constant_pad_nd: float32[1, 2, 6, 5] = aten.constant_pad_nd.default(%unsqueeze, [0, 0, 1, 1], "
      "0.0)\n"
      "  %unsqueeze_5: int64[2, 3, 1] = aten.unsqueeze.default(%add, -1)\n"
      "  %unsqueeze_6: int64[2, 3, 1, 1] = aten.unsqueeze.default(%unsqueeze_5, -1)\n"
      "  %index: float32[1, 2, 2, 3, 3, 3] = aten.index.Tensor(%constant_pad_nd, [None, None, %unsqueeze_6, "
      "%add_1])\n"
      "  %permute: float32[1, 2, 2, 3, 3, 3] = aten.permute.default(%index, [0, 1, 2, 4, 3, 5])\n"
      "  %clone: float32[1, 2, 2, 3, 3, 3] = aten.clone.default(%permute, "
      "memory_format=torch.contiguous_format)\n"
      "  %view: float32[1, 12, 9] = aten.view.default(%clone, [1, 12, 9])\n"
      "  %squeeze_1: float32[12, 9] = aten.squeeze.dims(%view, [0])\n"
      "  return (%squeeze_1)\n");
}

TEST_CASE("decompose im2col: PyTorch's refusals (kernel, padding, rank, no block)") {
  auto refused = [](std::vector<int64_t> shape, std::vector<int64_t> k, std::vector<int64_t> p,
                    const std::string& msg) {
    ProgramBuilder b;
    auto x = b.input("x", F, shape);
    b.output(b.call("aten.im2col.default",
                    {arg_tensor(x), arg_ints(k), arg_ints({1, 1}), arg_ints(p), arg_ints({1, 1})},
                    {F, {1, 1, 1}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "im2col", msg);
  };
  refused({1, 1, 4, 4}, {2}, {0, 0}, "im2col(): only 2D kernel supported");
  refused({1, 1, 4, 4}, {0, 2}, {0, 0}, "kernel_size should be greater than zero, but got [0, 2]");
  refused({1, 1, 4, 4}, {2, 2}, {-1, 0}, "padding should be non-negative, but got [-1, 0]");
  refused({4, 4}, {2, 2}, {0, 0},
          "Expected 3D or 4D (batch mode) tensor for input with possible 0 batch size and non-zero "
          "dimensions, but "
          "got: [4, 4]");
  refused(
      {1, 1, 4, 4}, {5, 2}, {0, 0},
      "Given an input with spatial size [4, 4], kernel_size=[5, 2], dilation=[1, 1], padding=[0, 0], "
      "stride=[1, 1], the calculated shape of the array of sliding blocks is [0, 3], but its components must "
      "be at least one.");
}

// ---- linspace ---------------------------------------------------------------------------------------

TEST_CASE(
    "decompose linspace -> torch._refs.linspace from both ends (where of start + step * i and end - step * "
    "j)") {
  ProgramBuilder b;
  b.output(b.call("aten.linspace.default", {arg_int(0), arg_int(1), arg_int(5)}, {F, {5}}));
  b.output(b.call("aten.linspace.default", {arg_float(2.5), arg_int(7), arg_int(1)}, {F, {1}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph():\n"
                    "  %arange: int64[5] = aten.arange.start_step(0, 5, layout=torch.strided, "
                    "device=device(type='cpu'), pin_memory=False)\n"
                    "  %lt: bool[5] = aten.lt.Scalar(%arange, 2.5)\n"
                    "  %_to_copy: float32[5] = aten._to_copy.default(%arange, dtype=torch.float32)\n"
                    "  %mul: float32[5] = aten.mul.Tensor(%_to_copy, 0.25)\n"
                    "  %add: float32[5] = aten.add.Tensor(%mul, 0)\n"
                    "  %sub: int64[5] = aten.sub.Tensor(4, %arange)\n"
                    "  %_to_copy_1: float32[5] = aten._to_copy.default(%sub, dtype=torch.float32)\n"
                    "  %mul_1: float32[5] = aten.mul.Tensor(%_to_copy_1, 0.25)\n"
                    "  %sub_1: float32[5] = aten.sub.Tensor(1, %mul_1)\n"
                    "  %where: float32[5] = aten.where.self(%lt, %add, %sub_1)\n"
                    "  %full: float32[1] = aten.full.default([1], 2.5, dtype=torch.float32, "
                    "layout=torch.strided, pin_memory=False)\n"
                    "  return (%where, %full)\n");
  ProgramBuilder bn;
  bn.output(bn.call("aten.linspace.default", {arg_int(0), arg_int(1), arg_int(-1)}, {F, {0}}));
  ExportedProgram epn = bn.build();
  expect_refused(epn, ErrorCode::INVALID_GRAPH, "linspace", "number of steps must be non-negative");
}

TEST_CASE(
    "decompose linspace with an integer dtype: int64 ranges, the float32 products truncated by the cast") {
  ProgramBuilder b;
  b.output(b.call("aten.linspace.default", {arg_int(-7), arg_int(7), arg_int(4)}, {ScalarType::Long, {4}},
                  {{"dtype", arg_dtype(ScalarType::Long)}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph():\n"
                    "  %arange: int64[4] = aten.arange.start_step(0, 4, layout=torch.strided, "
                    "device=device(type='cpu'), pin_memory=False)\n"
                    "  %lt: bool[4] = aten.lt.Scalar(%arange, 2.0)\n"
                    "  %mul: float32[4] = aten.mul.Tensor(%arange, 4.666666666666667)\n"
                    "  %add: float32[4] = aten.add.Tensor(%mul, -7)\n"
                    "  %sub: int64[4] = aten.sub.Tensor(3, %arange)\n"
                    "  %mul_1: float32[4] = aten.mul.Tensor(%sub, 4.666666666666667)\n"
                    "  %sub_1: float32[4] = aten.sub.Tensor(7, %mul_1)\n"
                    "  %where: float32[4] = aten.where.self(%lt, %add, %sub_1)\n"
                    "  %_to_copy: int64[4] = aten._to_copy.default(%where, dtype=torch.int64)\n"
                    "  return (%_to_copy)\n");
}

TEST_CASE(
    "decompose logspace -> linspace in float64, pow.Scalar(base, it), cast (integer dtypes truncate float "
    "bounds)") {
  ProgramBuilder b;
  b.output(b.call("aten.logspace.default", {arg_float(0.9), arg_float(2.7), arg_int(3), arg_float(2.0)},
                  {ScalarType::Long, {3}}, {{"dtype", arg_dtype(ScalarType::Long)}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph():\n"
                    "  %arange: int64[3] = aten.arange.start_step(0, 3, layout=torch.strided, "
                    "device=device(type='cpu'), pin_memory=False)\n"
                    "  %lt: bool[3] = aten.lt.Scalar(%arange, 1.5)\n"
                    "  %_to_copy: float64[3] = aten._to_copy.default(%arange, dtype=torch.float64)\n"
                    "  %mul: float64[3] = aten.mul.Tensor(%_to_copy, 1.0)\n"
                    "  %add: float64[3] = aten.add.Tensor(%mul, 0)\n"
                    "  %sub: int64[3] = aten.sub.Tensor(2, %arange)\n"
                    "  %_to_copy_1: float64[3] = aten._to_copy.default(%sub, dtype=torch.float64)\n"
                    "  %mul_1: float64[3] = aten.mul.Tensor(%_to_copy_1, 1.0)\n"
                    "  %sub_1: float64[3] = aten.sub.Tensor(2, %mul_1)\n"
                    "  %where: float64[3] = aten.where.self(%lt, %add, %sub_1)\n"
                    "  %pow_1: float64[3] = aten.pow.Scalar(2.0, %where)\n"
                    "  %_to_copy_2: int64[3] = aten._to_copy.default(%pow_1, dtype=torch.int64)\n"
                    "  return (%_to_copy_2)\n");
  ProgramBuilder bn;
  bn.output(
      bn.call("aten.logspace.default", {arg_int(0), arg_int(1), arg_int(3), arg_float(-2.0)}, {F, {3}}));
  ExportedProgram epn = bn.build();
  expect_refused(epn, ErrorCode::UNSUPPORTED_FEATURE, "logspace",
                 "a negative base (torch._refs.logspace raises NotImplementedError)");
}
