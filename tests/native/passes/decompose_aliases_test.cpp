// Aliases and thin CompositeImplicitAutograd wrappers (aliases.cpp), plus meshgrid,
// cosine_similarity, pairwise_distance, linalg_cross, tensor_split, channel_shuffle, rrelu and
// argsort: every alias has its target's arguments; the graphs of the wrappers (fliplr, ravel,
// tile, hstack, vstack, atleast_3d, selu, log_sigmoid, std.dim, var.default), an alias passing
// a keyword, an alias whose target is decomposed in turn, and of the others; the refusals.
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

TEST_CASE("alias table: each alias is a non-core op with its target's arguments, and the target runs") {
  CHECK(passes::decomp::alias_table().size() == 45);
  for (const auto& [from, to] : passes::decomp::alias_table()) {
    const std::string alias(from);
    CAPTURE(alias);
    const ops::OpSchema* a = ops::op_table().find(alias);
    const ops::OpSchema* t = ops::op_table().find(std::string(to));
    REQUIRE(a != nullptr);
    REQUIRE(t != nullptr);
    CHECK_FALSE(ops::is_core_aten(*a));
    // The alias's arguments are the target's first ones; the target's others have
    // defaults (broadcast_to(self, size) calls expand(self, size, *, implicit=False)).
    REQUIRE(a->arguments.size() <= t->arguments.size());
    for (size_t i = 0; i < a->arguments.size(); ++i) {
      CHECK(a->arguments[i].name == t->arguments[i].name);
      // A positional alias argument stays positional in the target (special_log_softmax's
      // keyword-only dtype is log_softmax.int's positional one: passed by keyword, it fits).
      if (!a->arguments[i].kwarg_only) CHECK_FALSE(t->arguments[i].kwarg_only);
      CHECK(a->arguments[i].default_text == t->arguments[i].default_text);
    }
    for (size_t i = a->arguments.size(); i < t->arguments.size(); ++i) {
      CHECK(t->arguments[i].default_value.has_value());
    }
    // The target has an out variant (Core ATen; a view op through its _copy form) or is
    // decomposed itself.
    const ops::OpSchema* copy = ops::op_table().copy_variant(*t);
    CHECK((ops::op_table().out_variant(*t) != nullptr || (copy && ops::op_table().out_variant(*copy)) ||
           passes::decomp::find_decomposition(std::string(to)) != nullptr));
    const passes::decomp::Decomposition* d = passes::decomp::find_decomposition(alias);
    REQUIRE(d != nullptr);
    CHECK_FALSE(d->core);
  }
}

TEST_CASE("decompose subtract.Tensor with alpha -> sub.Tensor with the same keyword") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto y = b.input("y", F, {2, 3});
  b.output(
      b.call("aten.subtract.Tensor", {arg_tensor(x), arg_tensor(y)}, {F, {2, 3}}, {{"alpha", arg_int(2)}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3], %y: float32[2, 3]):\n"
                    "  %sub: float32[2, 3] = aten.sub.Tensor(%x, %y, alpha=2)\n"
                    "  return (%sub)\n");
}

TEST_CASE("decompose special_softmax -> softmax.int's own decomposition (_softmax), no node in between") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  b.output(b.call("aten.special_softmax.default", {arg_tensor(x), arg_int(1)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3]):\n"
                    "  %_softmax: float32[2, 3] = aten._softmax.default(%x, 1, False)\n"
                    "  return (%_softmax)\n");
}

TEST_CASE("decompose fliplr, flipud, ravel of a permuted tensor, tile with fewer reps than dims") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  b.output(b.call("aten.fliplr.default", {arg_tensor(x)}, {F, {2, 3}}));
  b.output(b.call("aten.flipud.default", {arg_tensor(x)}, {F, {2, 3}}));
  auto p = b.call("aten.permute.default", {arg_tensor(x), arg_ints({1, 0})}, {F, {3, 2}});
  b.output(b.call("aten.ravel.default", {arg_tensor(p)}, {F, {6}}));
  b.output(b.call("aten.tile.default", {arg_tensor(x), arg_ints({2})}, {F, {2, 6}}));
  ExportedProgram ep = b.build();
  // The permuted tensor's real strides: not contiguous, so ravel clones it first.
  TensorMeta pm = *ep.graph().tensor_meta(p);
  pm.strides = {SymInt(1), SymInt(3)};
  ep.graph().set_tensor_meta(p, pm);
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3]):\n"
      "  %flip: float32[2, 3] = aten.flip.default(%x, [1])\n"
      "  %flip_1: float32[2, 3] = aten.flip.default(%x, [0])\n"
      "  %permute: float32[3, 2] = aten.permute.default(%x, [1, 0])\n"
      "  %clone: float32[3, 2] = aten.clone.default(%permute, memory_format=torch.contiguous_format)\n"
      "  %view: float32[6] = aten.view.default(%clone, [-1])\n"
      "  %repeat: float32[2, 6] = aten.repeat.default(%x, [1, 2])\n"
      "  return (%flip, %flip_1, %view, %repeat)\n");
}

TEST_CASE("decompose hstack, vstack, atleast_3d: atleast_1d/2d/3d, then cat") {
  ProgramBuilder b;
  auto v = b.input("v", F, {3});
  auto m = b.input("m", F, {2, 3});
  b.output(b.call("aten.hstack.default", {arg_tensors({m, m})}, {F, {2, 6}}));
  b.output(b.call("aten.hstack.default", {arg_tensors({v, v})}, {F, {6}}));
  b.output(b.call("aten.vstack.default", {arg_tensors({v, m})}, {F, {3, 3}}));
  b.output(b.call("aten.atleast_3d.default", {arg_tensor(v)}, {F, {1, 3, 1}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%v: float32[3], %m: float32[2, 3]):\n"
                    "  %cat: float32[2, 6] = aten.cat.default([%m, %m], 1)\n"
                    "  %cat_1: float32[6] = aten.cat.default([%v, %v])\n"
                    "  %unsqueeze: float32[1, 3] = aten.unsqueeze.default(%v, 0)\n"
                    "  %cat_2: float32[3, 3] = aten.cat.default([%unsqueeze, %m])\n"
                    "  %unsqueeze_1: float32[1, 3] = aten.unsqueeze.default(%v, 0)\n"
                    "  %unsqueeze_2: float32[1, 3, 1] = aten.unsqueeze.default(%unsqueeze_1, -1)\n"
                    "  return (%cat, %cat_1, %cat_2, %unsqueeze_2)\n");
}

TEST_CASE("decompose selu -> elu with SELU's constants, log_sigmoid -> log_sigmoid_forward's output") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  b.output(b.call("aten.selu.default", {arg_tensor(x)}, {F, {2, 3}}));
  b.output(b.call("aten.log_sigmoid.default", {arg_tensor(x)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3]):\n"
                    "  %gt: bool[2, 3] = aten.gt.Scalar(%x, 0)\n"
                    "  %mul: float32[2, 3] = aten.mul.Tensor(%x, 1.0507009873554805)\n"
                    "  %mul_1: float32[2, 3] = aten.mul.Tensor(%x, 1.0)\n"
                    "  %expm1: float32[2, 3] = aten.expm1.default(%mul_1)\n"
                    "  %mul_2: float32[2, 3] = aten.mul.Tensor(%expm1, 1.7580993408473766)\n"
                    "  %where: float32[2, 3] = aten.where.self(%gt, %mul, %mul_2)\n"
                    "  %full: float32[] = aten.full.default([], 0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %minimum: float32[2, 3] = aten.minimum.default(%full, %x)\n"
                    "  %abs_1: float32[2, 3] = aten.abs.default(%x)\n"
                    "  %neg: float32[2, 3] = aten.neg.default(%abs_1)\n"
                    "  %exp: float32[2, 3] = aten.exp.default(%neg)\n"
                    "  %log1p: float32[2, 3] = aten.log1p.default(%exp)\n"
                    "  %sub: float32[2, 3] = aten.sub.Tensor(%minimum, %log1p)\n"
                    "  return (%where, %sub)\n");
}

TEST_CASE("decompose std.dim, std.default, var.default -> the correction overloads (1 unbiased, 0 biased)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  b.output(
      b.call("aten.std.dim", {arg_tensor(x), arg_ints({1}), arg_bool(false), arg_bool(true)}, {F, {2, 1}}));
  b.output(b.call("aten.std.default", {arg_tensor(x)}, {F, {}}));
  b.output(b.call("aten.var.default", {arg_tensor(x), arg_bool(false)}, {F, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3]):\n"
                    "  %var_1: float32[2, 1] = aten.var.correction(%x, [1], correction=0, keepdim=True)\n"
                    "  %sqrt: float32[2, 1] = aten.sqrt.default(%var_1)\n"
                    "  %var_2: float32[] = aten.var.correction(%x, correction=1)\n"
                    "  %sqrt_1: float32[] = aten.sqrt.default(%var_2)\n"
                    "  %var_3: float32[] = aten.var.correction(%x, correction=0)\n"
                    "  return (%sqrt, %sqrt_1, %var_3)\n");
}

TEST_CASE("decompose fliplr / flipud / hstack refusals with torch's messages") {
  ProgramBuilder b;
  auto v = b.input("v", F, {3});
  b.output(b.call("aten.fliplr.default", {arg_tensor(v)}, {F, {3}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::INVALID_GRAPH, "fliplr", "Input must be >= 2-d.");
  ProgramBuilder bs;
  auto s = bs.input("s", F, {});
  bs.output(bs.call("aten.flipud.default", {arg_tensor(s)}, {F, {}}));
  ExportedProgram eps = bs.build();
  expect_refused(eps, ErrorCode::INVALID_GRAPH, "flipud", "Input must be >= 1-d.");
  ProgramBuilder bh;
  bh.input("u", F, {3});
  bh.output(bh.call("aten.hstack.default", {arg_tensors({})}, {F, {0}}));
  ExportedProgram eph = bh.build();
  expect_refused(eph, ErrorCode::INVALID_GRAPH, "hstack", "hstack expects a non-empty TensorList");
}

TEST_CASE("decompose meshgrid (xy swaps the first two) -> view with -1 at i, expand to the numels") {
  ProgramBuilder b;
  auto u = b.input("u", F, {2});
  auto v = b.input("v", F, {3});
  ExportedProgram& ep0 = b.program();
  Node mg(OpTarget("torch.ops.aten.meshgrid.indexing"),
          {positional("tensors", arg_tensors({u, v})), keyword("indexing", arg_string("xy"))},
          {arg_tensors({"g0", "g1"})}, "meshgrid");
  ep0.graph().append(std::move(mg));
  ep0.graph().set_tensor_meta("g0", pteforge::testing::make_meta({F, {3, 2}}));
  ep0.graph().set_tensor_meta("g1", pteforge::testing::make_meta({F, {3, 2}}));
  b.output("g0");
  b.output("g1");
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%u: float32[2], %v: float32[3]):\n"
                    "  %view: float32[3, 1] = aten.view.default(%v, [-1, 1])\n"
                    "  %expand: float32[3, 2] = aten.expand.default(%view, [3, 2])\n"
                    "  %view_1: float32[1, 2] = aten.view.default(%u, [1, -1])\n"
                    "  %expand_1: float32[3, 2] = aten.expand.default(%view_1, [3, 2])\n"
                    "  return (%expand_1, %expand)\n");
}

TEST_CASE("decompose cosine_similarity -> norms (cloned, clamped to eps), divide, multiply, sum") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto y = b.input("y", F, {1, 3});
  b.output(b.call("aten.cosine_similarity.default", {arg_tensor(x), arg_tensor(y)}, {F, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3], %y: float32[1, 3]):\n"
                    "  %expand: float32[2, 3] = aten.expand.default(%x, [2, 3])\n"
                    "  %expand_1: float32[2, 3] = aten.expand.default(%y, [2, 3])\n"
                    "  %pow_1: float32[2, 3] = aten.pow.Tensor_Scalar(%expand, 2)\n"
                    "  %sum_1: float32[2, 1] = aten.sum.dim_IntList(%pow_1, [1], True)\n"
                    "  %pow_2: float32[2, 1] = aten.pow.Tensor_Scalar(%sum_1, 0.5)\n"
                    "  %clone: float32[2, 1] = aten.clone.default(%pow_2)\n"
                    "  %pow_3: float32[2, 3] = aten.pow.Tensor_Scalar(%expand_1, 2)\n"
                    "  %sum_2: float32[2, 1] = aten.sum.dim_IntList(%pow_3, [1], True)\n"
                    "  %pow_4: float32[2, 1] = aten.pow.Tensor_Scalar(%sum_2, 0.5)\n"
                    "  %clone_1: float32[2, 1] = aten.clone.default(%pow_4)\n"
                    "  %clamp: float32[2, 1] = aten.clamp.default(%clone, 1e-08)\n"
                    "  %clamp_1: float32[2, 1] = aten.clamp.default(%clone_1, 1e-08)\n"
                    "  %div: float32[2, 3] = aten.div.Tensor(%expand, %clamp)\n"
                    "  %div_1: float32[2, 3] = aten.div.Tensor(%expand_1, %clamp_1)\n"
                    "  %mul: float32[2, 3] = aten.mul.Tensor(%div, %div_1)\n"
                    "  %sum_3: float32[2] = aten.sum.dim_IntList(%mul, [1])\n"
                    "  return (%sum_3)\n");
  ProgramBuilder bi;
  auto i = bi.input("i", ScalarType::Long, {2, 3});
  auto j = bi.input("j", ScalarType::Int, {2, 3});
  bi.output(
      bi.call("aten.cosine_similarity.default", {arg_tensor(i), arg_tensor(j)}, {ScalarType::Long, {2}}));
  ExportedProgram epi = bi.build();
  expect_refused(epi, ErrorCode::INVALID_GRAPH, "cosine_similarity",
                 "expected common dtype to be floating point, yet common dtype is int64");
}

TEST_CASE("decompose channel_shuffle -> view, permute, clone + view back, and rrelu in eval -> leaky_relu") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 6, 2});
  auto h = b.input("h", ScalarType::Half, {4});
  b.output(b.call("aten.channel_shuffle.default", {arg_tensor(x), arg_int(2)}, {F, {1, 6, 2}}));
  b.output(
      b.call("aten.rrelu.default", {arg_tensor(h), arg_float(0.1), arg_float(0.3)}, {ScalarType::Half, {4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[1, 6, 2], %h: float16[4]):\n"
      "  %view: float32[1, 2, 3, 2] = aten.view.default(%x, [1, 2, 3, 2])\n"
      "  %permute: float32[1, 3, 2, 2] = aten.permute.default(%view, [0, 2, 1, 3])\n"
      "  %clone: float32[1, 3, 2, 2] = aten.clone.default(%permute, memory_format=torch.contiguous_format)\n"
      "  %view_1: float32[1, 6, 2] = aten.view.default(%clone, [1, 6, 2])\n"
      "  %_to_copy: float32[4] = aten._to_copy.default(%h, dtype=torch.float32)\n"
      "  %leaky_relu: float32[4] = aten.leaky_relu.default(%_to_copy, 0.2)\n"
      "  %_to_copy_1: float16[4] = aten._to_copy.default(%leaky_relu, dtype=torch.float16)\n"
      "  return (%view_1, %_to_copy_1)\n");
}

TEST_CASE("decompose channel_shuffle / rrelu refusals: torch's checks, training-mode rrelu") {
  auto one = [](const char* op, std::vector<int64_t> shape, std::vector<Argument> extra) {
    ProgramBuilder b;
    auto x = b.input("x", F, shape);
    std::vector<Argument> args{arg_tensor(x)};
    for (Argument& a : extra) args.push_back(std::move(a));
    b.output(b.call(op, std::move(args), {F, shape}));
    return b.build();
  };
  ExportedProgram a = one("aten.channel_shuffle.default", {2, 6}, {arg_int(2)});
  expect_refused(a, ErrorCode::INVALID_GRAPH, "channel_shuffle",
                 "channel_shuffle expects input with > 2 dims, but got input with sizes [2, 6]");
  ExportedProgram c = one("aten.channel_shuffle.default", {1, 6, 2}, {arg_int(4)});
  expect_refused(c, ErrorCode::INVALID_GRAPH, "channel_shuffle",
                 "Number of channels must be divisible by groups. Got 6 channels and 4 groups.");
  ExportedProgram r = one("aten.rrelu.default", {4}, {arg_float(0.1), arg_float(0.3), arg_bool(true)});
  expect_refused(r, ErrorCode::UNSUPPORTED_FEATURE, "rrelu", "training mode");
  ExportedProgram l = one("aten.rrelu.default", {4}, {arg_float(0.5), arg_float(0.3)});
  expect_refused(l, ErrorCode::INVALID_GRAPH, "rrelu",
                 "Lower bound should be less than or equal to the upper bound");
}

TEST_CASE("decompose argsort -> sort's indices (dim -1 and ascending left out, as recorded)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  b.output(b.call("aten.argsort.default", {arg_tensor(x)}, {ScalarType::Long, {2, 3}}));
  b.output(b.call("aten.argsort.default", {arg_tensor(x), arg_int(0), arg_bool(true)},
                  {ScalarType::Long, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3]):\n"
                    "  %sort_unused_0: float32[2, 3], %getitem: int64[2, 3] = aten.sort.default(%x)  # sort\n"
                    "  %sort_1_unused_0: float32[2, 3], %getitem_1: int64[2, 3] = aten.sort.default(%x, 0, "
                    "True)  # sort_1\n"
                    "  return (%getitem, %getitem_1)\n");
}

TEST_CASE("decompose pairwise_distance -> norm(x1 - x2 + eps) over the last dim of the higher rank") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto y = b.input("y", F, {3});
  b.output(
      b.call("aten.pairwise_distance.default", {arg_tensor(x), arg_tensor(y), arg_float(1.0)}, {F, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3], %y: float32[3]):\n"
                    "  %sub: float32[2, 3] = aten.sub.Tensor(%x, %y)\n"
                    "  %add: float32[2, 3] = aten.add.Scalar(%sub, 1e-06)\n"
                    "  %abs_1: float32[2, 3] = aten.abs.default(%add)\n"
                    "  %pow_1: float32[2, 3] = aten.pow.Tensor_Scalar(%abs_1, 1.0)\n"
                    "  %sum_1: float32[2] = aten.sum.dim_IntList(%pow_1, [1])\n"
                    "  %pow_2: float32[2] = aten.pow.Tensor_Scalar(%sum_1, 1.0)\n"
                    "  return (%pow_2)\n");
}

TEST_CASE("decompose linalg_cross -> arange, shifted index_select products, sub, and cross without a dim") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto y = b.input("y", F, {1, 3});
  b.output(b.call("aten.linalg_cross.default", {arg_tensor(x), arg_tensor(y)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3], %y: float32[1, 3]):\n"
                    "  %expand: float32[2, 3] = aten.expand.default(%y, [2, 3])\n"
                    "  %arange: int64[3] = aten.arange.start_step(0, 3, layout=torch.strided, "
                    "device=device(type='cpu'), pin_memory=False)\n"
                    "  %add: int64[3] = aten.add.Tensor(%arange, 1)\n"
                    "  %remainder: int64[3] = aten.remainder.Scalar(%add, 3)\n"
                    "  %index_select: float32[2, 3] = aten.index_select.default(%x, 1, %remainder)\n"
                    "  %add_1: int64[3] = aten.add.Tensor(%arange, 2)\n"
                    "  %remainder_1: int64[3] = aten.remainder.Scalar(%add_1, 3)\n"
                    "  %index_select_1: float32[2, 3] = aten.index_select.default(%expand, 1, %remainder_1)\n"
                    "  %mul: float32[2, 3] = aten.mul.Tensor(%index_select, %index_select_1)\n"
                    "  %add_2: int64[3] = aten.add.Tensor(%arange, 2)\n"
                    "  %remainder_2: int64[3] = aten.remainder.Scalar(%add_2, 3)\n"
                    "  %index_select_2: float32[2, 3] = aten.index_select.default(%x, 1, %remainder_2)\n"
                    "  %add_3: int64[3] = aten.add.Tensor(%arange, 1)\n"
                    "  %remainder_3: int64[3] = aten.remainder.Scalar(%add_3, 3)\n"
                    "  %index_select_3: float32[2, 3] = aten.index_select.default(%expand, 1, %remainder_3)\n"
                    "  %mul_1: float32[2, 3] = aten.mul.Tensor(%index_select_2, %index_select_3)\n"
                    "  %sub: float32[2, 3] = aten.sub.Tensor(%mul, %mul_1)\n"
                    "  return (%sub)\n");
  ProgramBuilder bc;
  auto u = bc.input("u", F, {3, 2});
  auto v = bc.input("v", F, {3, 2});
  bc.output(bc.call("aten.cross.default", {arg_tensor(u), arg_tensor(v)}, {F, {3, 2}}));
  ExportedProgram epc = bc.build();
  Status st = pteforge::testing::decompose(epc);
  REQUIRE(st.ok());
  // The first dim of size 3 (dim 0) is the one crossed.
  const std::string g = pteforge::testing::typed(epc.graph());
  CHECK(g.find("aten.index_select.default(%u, 0, %remainder)") != std::string::npos);
  ProgramBuilder bb;
  auto p = bb.input("p", F, {2, 4});
  auto q = bb.input("q", F, {2, 4});
  bb.output(bb.call("aten.linalg_cross.default", {arg_tensor(p), arg_tensor(q)}, {F, {2, 4}}));
  ExportedProgram epb = bb.build();
  expect_refused(epb, ErrorCode::INVALID_GRAPH, "linalg_cross",
                 "linalg.cross: inputs dim -1 must have length 3, got 4 and 4");
}

TEST_CASE("decompose tensor_split by sections (the first ones one longer) and by indices -> slices") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 7});
  ExportedProgram& ep0 = b.program();
  Node ts(
      OpTarget("torch.ops.aten.tensor_split.sections"),
      {positional("self", arg_tensor(x)), positional("sections", arg_int(3)), positional("dim", arg_int(1))},
      {arg_tensors({"s0", "s1", "s2"})}, "tensor_split");
  ep0.graph().append(std::move(ts));
  ep0.graph().set_tensor_meta("s0", pteforge::testing::make_meta({F, {2, 3}}));
  ep0.graph().set_tensor_meta("s1", pteforge::testing::make_meta({F, {2, 2}}));
  ep0.graph().set_tensor_meta("s2", pteforge::testing::make_meta({F, {2, 2}}));
  Node ti(OpTarget("torch.ops.aten.tensor_split.indices"),
          {positional("self", arg_tensor(x)), positional("indices", arg_ints({1, 5})),
           positional("dim", arg_int(-1))},
          {arg_tensors({"i0", "i1", "i2"})}, "tensor_split_1");
  ep0.graph().append(std::move(ti));
  ep0.graph().set_tensor_meta("i0", pteforge::testing::make_meta({F, {2, 1}}));
  ep0.graph().set_tensor_meta("i1", pteforge::testing::make_meta({F, {2, 4}}));
  ep0.graph().set_tensor_meta("i2", pteforge::testing::make_meta({F, {2, 2}}));
  for (const char* o : {"s0", "s2", "i1"}) b.output(o);
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 7]):\n"
                    "  %slice_1: float32[2, 3] = aten.slice.Tensor(%x, 1, 0, 3)\n"
                    "  %slice_3: float32[2, 2] = aten.slice.Tensor(%x, 1, 5, 7)\n"
                    "  %slice_5: float32[2, 4] = aten.slice.Tensor(%x, 1, 1, 5)\n"
                    "  return (%slice_1, %slice_3, %slice_5)\n");
}

TEST_CASE(
    "decompose arccos (an alias of a float unary op, int input made float) and moveaxis of a 0-d tensor") {
  ProgramBuilder b;
  auto i = b.input("i", ScalarType::Long, {3});
  auto s = b.input("s", F, {});
  b.output(b.call("aten.arccos.default", {arg_tensor(i)}, {F, {3}}));
  b.output(b.call("aten.moveaxis.int", {arg_tensor(s), arg_int(0), arg_int(-1)}, {F, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%i: int64[3], %s: float32[]):\n"
                    "  %acos: float32[3] = aten.acos.default(%i)\n"
                    "  %alias: float32[] = aten.alias.default(%s)\n"
                    "  return (%acos, %alias)\n");
}

TEST_CASE(
    "decompose subtract of integer tensors with a float alpha is refused, as torch's alpha_check does") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Long, {3});
  auto y = b.input("y", ScalarType::Long, {3});
  b.output(b.call("aten.subtract.Tensor", {arg_tensor(x), arg_tensor(y)}, {ScalarType::Long, {3}},
                  {{"alpha", arg_float(0.5)}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::INVALID_GRAPH, "subtract",
                 "For integral input tensors, argument alpha must not be a floating point number.");
}

TEST_CASE("decompose tile with a negative repeat is refused as ATen's repeat refuses it") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  b.output(b.call("aten.tile.default", {arg_tensor(x), arg_ints({-2})}, {F, {2, 6}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::INVALID_GRAPH, "tile",
                 "Trying to create tensor with negative dimension -6: [2, -6]");
}
