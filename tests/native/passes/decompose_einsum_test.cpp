// The einsum rule (at::native::einsum): exact graphs for a matrix product, an
// attention score product with a sum over a dim only one side has, a single
// operand (transpose, sum), an ellipsis, three operands left to right and along
// a path; and the refusals with torch's messages.
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

/// A program calling einsum(equation, inputs) with the declared result shape.
ExportedProgram einsum_program(const std::string& equation, const std::vector<std::vector<int64_t>>& shapes,
                               std::vector<int64_t> out,
                               std::optional<std::vector<int64_t>> path = std::nullopt) {
  ProgramBuilder b;
  std::vector<std::string> names;
  for (size_t i = 0; i < shapes.size(); ++i) names.push_back(b.input("x" + std::to_string(i), F, shapes[i]));
  std::vector<std::pair<std::string, Argument>> kwargs;
  if (path) kwargs.emplace_back("path", arg_ints(*path));
  b.output(b.call("aten.einsum.default", {arg_string(equation), arg_tensors(names)}, {F, std::move(out)},
                  std::move(kwargs)));
  return b.build();
}

/// Symbol s0 with hint 2 (the einsum tests' dynamic batch).
SymInt einsum_s0() {
  SymExpr e;
  e.expr_str = "Symbol('s0', integer=True, positive=True)";
  e.hint = SymExprHint::of_int(2);
  return SymInt(std::move(e));
}

/// A float32 meta with the given sizes and strides.
TensorMeta einsum_meta(std::vector<SymInt> sizes, std::vector<SymInt> strides) {
  TensorMeta m;
  m.dtype = F;
  m.sizes = std::move(sizes);
  m.strides = std::move(strides);
  m.storage_offset = SymInt(0);
  return m;
}

}  // namespace

TEST_CASE("decompose einsum ij,jk->ik -> unsqueeze and permute each operand, then sumproduct_pair's bmm") {
  ExportedProgram ep = einsum_program("ij,jk->ik", {{2, 3}, {3, 4}}, {2, 4});
  expect_decomposed(ep,
                    "graph(%x0: float32[2, 3], %x1: float32[3, 4]):\n"
                    "  %unsqueeze: float32[2, 3, 1] = aten.unsqueeze.default(%x0, 2)\n"
                    "  %permute: float32[2, 1, 3] = aten.permute.default(%unsqueeze, [0, 2, 1])\n"
                    "  %unsqueeze_1: float32[3, 4, 1] = aten.unsqueeze.default(%x1, 2)\n"
                    "  %permute_1: float32[1, 4, 3] = aten.permute.default(%unsqueeze_1, [2, 1, 0])\n"
                    "  %permute_2: float32[2, 3, 1] = aten.permute.default(%permute, [0, 2, 1])\n"
                    "  %view: float32[1, 2, 3] = aten.view.default(%permute_2, [1, 2, 3])\n"
                    "  %permute_3: float32[3, 4, 1] = aten.permute.default(%permute_1, [2, 1, 0])\n"
                    "  %view_1: float32[1, 3, 4] = aten.view.default(%permute_3, [1, 3, 4])\n"
                    "  %bmm: float32[1, 2, 4] = aten.bmm.default(%view, %view_1)\n"
                    "  %view_2: float32[2, 1, 4] = aten.view.default(%bmm, [2, 1, 4])\n"
                    "  %permute_4: float32[2, 4, 1] = aten.permute.default(%view_2, [0, 2, 1])\n"
                    "  %view_3: float32[2, 4] = aten.view.default(%permute_4, [2, 4])\n"
                    "  return (%view_3)\n");
}

TEST_CASE("decompose einsum bi,bj->b: dims only one side has are summed there first, then mul and a view") {
  ExportedProgram ep = einsum_program("bi,bj->b", {{2, 3}, {1, 4}}, {2});
  expect_decomposed(ep,
                    "graph(%x0: float32[2, 3], %x1: float32[1, 4]):\n"
                    "  %unsqueeze: float32[2, 3, 1] = aten.unsqueeze.default(%x0, 2)\n"
                    "  %permute: float32[2, 3, 1] = aten.permute.default(%unsqueeze, [0, 1, 2])\n"
                    "  %unsqueeze_1: float32[1, 4, 1] = aten.unsqueeze.default(%x1, 2)\n"
                    "  %permute_1: float32[1, 1, 4] = aten.permute.default(%unsqueeze_1, [0, 2, 1])\n"
                    "  %sum_1: float32[2, 1, 1] = aten.sum.dim_IntList(%permute, [1], True)\n"
                    "  %sum_2: float32[1, 1, 1] = aten.sum.dim_IntList(%permute_1, [2], True)\n"
                    "  %mul: float32[2, 1, 1] = aten.mul.Tensor(%sum_1, %sum_2)\n"
                    "  %view: float32[2] = aten.view.default(%mul, [2])\n"
                    "  return (%view)\n");
}

TEST_CASE("decompose einsum with one operand: a permute, and a sum of the dims not in the output") {
  ExportedProgram ep = einsum_program("ij->ji", {{2, 3}}, {3, 2});
  expect_decomposed(ep,
                    "graph(%x0: float32[2, 3]):\n"
                    "  %permute: float32[3, 2] = aten.permute.default(%x0, [1, 0])\n"
                    "  return (%permute)\n");
  ExportedProgram sum = einsum_program("ij", {{2, 3}}, {2, 3});
  expect_decomposed(sum,
                    "graph(%x0: float32[2, 3]):\n"
                    "  %permute: float32[2, 3] = aten.permute.default(%x0, [0, 1])\n"
                    "  return (%permute)\n");
  ExportedProgram all = einsum_program("ij->", {{2, 3}}, {});
  expect_decomposed(all,
                    "graph(%x0: float32[2, 3]):\n"
                    "  %permute: float32[2, 3] = aten.permute.default(%x0, [0, 1])\n"
                    "  %sum_1: float32[] = aten.sum.dim_IntList(%permute, [0, 1])\n"
                    "  return (%sum_1)\n");
}

TEST_CASE("decompose einsum ...ij,...jk->...ik: the ellipsis dims broadcast, right-aligned") {
  ExportedProgram ep = einsum_program("...ij,...jk->...ik", {{2, 2, 3}, {3, 4}}, {2, 2, 4});
  expect_decomposed(ep,
                    "graph(%x0: float32[2, 2, 3], %x1: float32[3, 4]):\n"
                    "  %unsqueeze: float32[2, 2, 3, 1] = aten.unsqueeze.default(%x0, 3)\n"
                    "  %permute: float32[2, 2, 1, 3] = aten.permute.default(%unsqueeze, [0, 1, 3, 2])\n"
                    "  %unsqueeze_1: float32[3, 4, 1] = aten.unsqueeze.default(%x1, 2)\n"
                    "  %unsqueeze_2: float32[3, 4, 1, 1] = aten.unsqueeze.default(%unsqueeze_1, 3)\n"
                    "  %permute_1: float32[1, 1, 4, 3] = aten.permute.default(%unsqueeze_2, [2, 3, 1, 0])\n"
                    "  %permute_2: float32[2, 2, 3, 1] = aten.permute.default(%permute, [0, 1, 3, 2])\n"
                    "  %view: float32[1, 4, 3] = aten.view.default(%permute_2, [1, 4, 3])\n"
                    "  %permute_3: float32[3, 4, 1, 1] = aten.permute.default(%permute_1, [3, 2, 0, 1])\n"
                    "  %view_1: float32[1, 3, 4] = aten.view.default(%permute_3, [1, 3, 4])\n"
                    "  %bmm: float32[1, 4, 4] = aten.bmm.default(%view, %view_1)\n"
                    "  %view_2: float32[2, 2, 1, 4] = aten.view.default(%bmm, [2, 2, 1, 4])\n"
                    "  %permute_4: float32[2, 2, 4, 1] = aten.permute.default(%view_2, [0, 1, 3, 2])\n"
                    "  %view_3: float32[2, 2, 4] = aten.view.default(%permute_4, [2, 2, 4])\n"
                    "  return (%view_3)\n");
}

TEST_CASE("decompose einsum of three operands: left to right without a path, in the path's order with one") {
  ExportedProgram ep = einsum_program("ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 2}}, {2, 2});
  expect_decomposed(ep,
                    "graph(%x0: float32[2, 3], %x1: float32[3, 4], %x2: float32[4, 2]):\n"
                    "  %unsqueeze: float32[2, 3, 1] = aten.unsqueeze.default(%x0, 2)\n"
                    "  %unsqueeze_1: float32[2, 3, 1, 1] = aten.unsqueeze.default(%unsqueeze, 3)\n"
                    "  %permute: float32[2, 1, 3, 1] = aten.permute.default(%unsqueeze_1, [0, 2, 1, 3])\n"
                    "  %unsqueeze_2: float32[3, 4, 1] = aten.unsqueeze.default(%x1, 2)\n"
                    "  %unsqueeze_3: float32[3, 4, 1, 1] = aten.unsqueeze.default(%unsqueeze_2, 3)\n"
                    "  %permute_1: float32[1, 1, 3, 4] = aten.permute.default(%unsqueeze_3, [2, 3, 0, 1])\n"
                    "  %unsqueeze_4: float32[4, 2, 1] = aten.unsqueeze.default(%x2, 2)\n"
                    "  %unsqueeze_5: float32[4, 2, 1, 1] = aten.unsqueeze.default(%unsqueeze_4, 3)\n"
                    "  %permute_2: float32[1, 2, 1, 4] = aten.permute.default(%unsqueeze_5, [2, 1, 3, 0])\n"
                    "  %permute_3: float32[2, 3, 1, 1] = aten.permute.default(%permute, [0, 2, 1, 3])\n"
                    "  %view: float32[1, 2, 3] = aten.view.default(%permute_3, [1, 2, 3])\n"
                    "  %permute_4: float32[3, 1, 4, 1] = aten.permute.default(%permute_1, [2, 1, 3, 0])\n"
                    "  %view_1: float32[1, 3, 4] = aten.view.default(%permute_4, [1, 3, 4])\n"
                    "  %bmm: float32[1, 2, 4] = aten.bmm.default(%view, %view_1)\n"
                    "  %view_2: float32[2, 1, 1, 4] = aten.view.default(%bmm, [2, 1, 1, 4])\n"
                    "  %permute_5: float32[2, 1, 1, 4] = aten.permute.default(%view_2, [0, 2, 1, 3])\n"
                    "  %permute_6: float32[2, 4, 1, 1] = aten.permute.default(%permute_5, [0, 3, 1, 2])\n"
                    "  %view_3: float32[1, 2, 4] = aten.view.default(%permute_6, [1, 2, 4])\n"
                    "  %permute_7: float32[4, 2, 1, 1] = aten.permute.default(%permute_2, [3, 1, 2, 0])\n"
                    "  %view_4: float32[1, 4, 2] = aten.view.default(%permute_7, [1, 4, 2])\n"
                    "  %bmm_1: float32[1, 2, 2] = aten.bmm.default(%view_3, %view_4)\n"
                    "  %view_5: float32[2, 1, 2, 1] = aten.view.default(%bmm_1, [2, 1, 2, 1])\n"
                    "  %permute_8: float32[2, 2, 1, 1] = aten.permute.default(%view_5, [0, 2, 3, 1])\n"
                    "  %view_6: float32[2, 2] = aten.view.default(%permute_8, [2, 2])\n"
                    "  return (%view_6)\n");
  ExportedProgram pathed =
      einsum_program("ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 2}}, {2, 2}, std::vector<int64_t>{1, 2, 0, 1});
  expect_decomposed(pathed,
                    "graph(%x0: float32[2, 3], %x1: float32[3, 4], %x2: float32[4, 2]):\n"
                    "  %unsqueeze: float32[2, 3, 1] = aten.unsqueeze.default(%x0, 2)\n"
                    "  %unsqueeze_1: float32[2, 3, 1, 1] = aten.unsqueeze.default(%unsqueeze, 3)\n"
                    "  %permute: float32[2, 1, 3, 1] = aten.permute.default(%unsqueeze_1, [0, 2, 1, 3])\n"
                    "  %unsqueeze_2: float32[3, 4, 1] = aten.unsqueeze.default(%x1, 2)\n"
                    "  %unsqueeze_3: float32[3, 4, 1, 1] = aten.unsqueeze.default(%unsqueeze_2, 3)\n"
                    "  %permute_1: float32[1, 1, 3, 4] = aten.permute.default(%unsqueeze_3, [2, 3, 0, 1])\n"
                    "  %unsqueeze_4: float32[4, 2, 1] = aten.unsqueeze.default(%x2, 2)\n"
                    "  %unsqueeze_5: float32[4, 2, 1, 1] = aten.unsqueeze.default(%unsqueeze_4, 3)\n"
                    "  %permute_2: float32[1, 2, 1, 4] = aten.permute.default(%unsqueeze_5, [2, 1, 3, 0])\n"
                    "  %permute_3: float32[3, 4, 1, 1] = aten.permute.default(%permute_1, [2, 3, 0, 1])\n"
                    "  %view: float32[1, 3, 4] = aten.view.default(%permute_3, [1, 3, 4])\n"
                    "  %permute_4: float32[4, 1, 2, 1] = aten.permute.default(%permute_2, [3, 0, 1, 2])\n"
                    "  %view_1: float32[1, 4, 2] = aten.view.default(%permute_4, [1, 4, 2])\n"
                    "  %bmm: float32[1, 3, 2] = aten.bmm.default(%view, %view_1)\n"
                    "  %view_2: float32[3, 1, 1, 2] = aten.view.default(%bmm, [3, 1, 1, 2])\n"
                    "  %permute_5: float32[1, 2, 3, 1] = aten.permute.default(%view_2, [2, 3, 0, 1])\n"
                    "  %permute_6: float32[2, 3, 1, 1] = aten.permute.default(%permute, [0, 2, 1, 3])\n"
                    "  %view_3: float32[1, 2, 3] = aten.view.default(%permute_6, [1, 2, 3])\n"
                    "  %permute_7: float32[3, 2, 1, 1] = aten.permute.default(%permute_5, [2, 1, 3, 0])\n"
                    "  %view_4: float32[1, 3, 2] = aten.view.default(%permute_7, [1, 3, 2])\n"
                    "  %bmm_1: float32[1, 2, 2] = aten.bmm.default(%view_3, %view_4)\n"
                    "  %view_5: float32[2, 1, 2, 1] = aten.view.default(%bmm_1, [2, 1, 2, 1])\n"
                    "  %permute_8: float32[2, 2, 1, 1] = aten.permute.default(%view_5, [0, 2, 1, 3])\n"
                    "  %view_6: float32[2, 2] = aten.view.default(%permute_8, [2, 2])\n"
                    "  return (%view_6)\n");
}

TEST_CASE("decompose einsum refusals: torch's equation checks, a diagonal, mixed dtypes") {
  ExportedProgram a = einsum_program("ij,jk->ik", {{2, 3}}, {2, 4});
  expect_refused(a, ErrorCode::INVALID_GRAPH, "einsum",
                 "einsum(): fewer operands were provided than specified in the equation");
  ExportedProgram b = einsum_program("ij->ik", {{2, 3}}, {2, 3});
  expect_refused(b, ErrorCode::INVALID_GRAPH, "einsum",
                 "einsum(): output subscript k does not appear in the equation for any input operand");
  ExportedProgram c = einsum_program("ijk->i", {{2, 3}}, {2});
  expect_refused(
      c, ErrorCode::INVALID_GRAPH, "einsum",
      "einsum(): the number of subscripts in the equation (3) does not match the number of dimensions "
      "(2) for operand 0 and no ellipsis was given");
  ExportedProgram d = einsum_program("ij,jk->ik", {{2, 3}, {4, 4}}, {2, 4});
  expect_refused(
      d, ErrorCode::INVALID_GRAPH, "einsum",
      "einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3");
  ExportedProgram e = einsum_program("i1->i", {{2, 3}}, {2});
  expect_refused(
      e, ErrorCode::INVALID_GRAPH, "einsum",
      "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be in [a-zA-Z]");
  ExportedProgram f = einsum_program("ii->i", {{3, 3}}, {3});
  expect_refused(f, ErrorCode::UNSUPPORTED_FEATURE, "einsum",
                 "the subscript i repeated in operand 0 (a diagonal)");
  ExportedProgram g =
      einsum_program("ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 2}}, {2, 2}, std::vector<int64_t>{1, 2});
  expect_refused(g, ErrorCode::INVALID_GRAPH, "einsum",
                 "einsum(): expected contraction path given in path parameter to have size 4 but got 2");
  ExportedProgram h =
      einsum_program("ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 2}}, {2, 2}, std::vector<int64_t>{1, 1, 0, 1});
  expect_refused(h, ErrorCode::INVALID_GRAPH, "einsum",
                 "einsum(): invalid contraction (1, 1) cannot contract an operand with itself");
  ProgramBuilder mb;
  auto x = mb.input("x", F, {2, 3});
  auto y = mb.input("y", ScalarType::Double, {3, 4});
  mb.output(mb.call("aten.einsum.default", {arg_string("ij,jk->ik"), arg_tensors({x, y})}, {F, {2, 4}}));
  ExportedProgram m = mb.build();
  expect_refused(m, ErrorCode::UNSUPPORTED_FEATURE, "einsum",
                 "operands of different dtypes (float32 and float64)");
}

TEST_CASE("decompose einsum bij,bjk->bik with a symbolic batch: it is the bmm's batch, read by sym_size") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 2, 3});
  auto y = b.input("y", F, {2, 3, 4});
  auto r = b.call("aten.einsum.default", {arg_string("bij,bjk->bik"), arg_tensors({x, y})}, {F, {2, 2, 4}});
  b.output(r);
  ExportedProgram ep = b.build();
  ep.graph().set_tensor_meta(
      x, einsum_meta({einsum_s0(), SymInt(2), SymInt(3)}, {SymInt(6), SymInt(3), SymInt(1)}));
  ep.graph().set_tensor_meta(
      y, einsum_meta({einsum_s0(), SymInt(3), SymInt(4)}, {SymInt(12), SymInt(4), SymInt(1)}));
  ep.graph().set_tensor_meta(
      r, einsum_meta({einsum_s0(), SymInt(2), SymInt(4)}, {SymInt(8), SymInt(4), SymInt(1)}));
  expect_decomposed(ep,
                    "graph(%x: float32[s0, 2, 3], %y: float32[s0, 3, 4]):\n"
                    "  %unsqueeze: float32[s0, 2, 3, 1] = aten.unsqueeze.default(%x, 3)\n"
                    "  %permute: float32[s0, 2, 1, 3] = aten.permute.default(%unsqueeze, [0, 1, 3, 2])\n"
                    "  %unsqueeze_1: float32[s0, 3, 4, 1] = aten.unsqueeze.default(%y, 3)\n"
                    "  %permute_1: float32[s0, 1, 4, 3] = aten.permute.default(%unsqueeze_1, [0, 3, 2, 1])\n"
                    "  %permute_2: float32[s0, 2, 3, 1] = aten.permute.default(%permute, [0, 1, 3, 2])\n"
                    "  %sym_size_int_1: SymInt(s0) = aten.sym_size.int(%x, 0)\n"
                    "  %view: float32[s0, 2, 3] = aten.view.default(%permute_2, [%sym_size_int_1, 2, 3])\n"
                    "  %permute_3: float32[s0, 3, 4, 1] = aten.permute.default(%permute_1, [0, 3, 2, 1])\n"
                    "  %view_1: float32[s0, 3, 4] = aten.view.default(%permute_3, [%sym_size_int_1, 3, 4])\n"
                    "  %bmm: float32[s0, 2, 4] = aten.bmm.default(%view, %view_1)\n"
                    "  %view_2: float32[s0, 2, 1, 4] = aten.view.default(%bmm, [%sym_size_int_1, 2, 1, 4])\n"
                    "  %permute_4: float32[s0, 2, 4, 1] = aten.permute.default(%view_2, [0, 1, 3, 2])\n"
                    "  %view_3: float32[s0, 2, 4] = aten.view.default(%permute_4, [%sym_size_int_1, 2, 4])\n"
                    "  return (%view_3)\n");
}
