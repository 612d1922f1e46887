// Decomposition rules for all (default / dim / dims) and count_nonzero (default / dim_IntList):
// the exact node list after the pass, including which any / sum overload torch's Python overloads
// record (an int dim is any.dim, None or a list any.dims; sum.dim_IntList keeps a None dim).
#include <doctest/doctest.h>

#include <string>

#include "common/program_builder.h"
#include "decompose_test_util.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::expect_decomposed;
using pteforge::testing::F;
using pteforge::testing::ProgramBuilder;

TEST_CASE("decompose all -> logical_not, any.dims / any.dim, logical_not (uint8 cast back)") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Bool, {2, 3});
  auto u = b.input("u", ScalarType::Byte, {4});
  b.output(b.call("aten.all.default", {arg_tensor(x)}, {ScalarType::Bool, {}}));
  b.output(b.call("aten.all.dim", {arg_tensor(x), arg_int(1)}, {ScalarType::Bool, {2}}));
  b.output(
      b.call("aten.all.dims", {arg_tensor(x), arg_ints({0}), arg_bool(true)}, {ScalarType::Bool, {1, 3}}));
  b.output(b.call("aten.all.default", {arg_tensor(u)}, {ScalarType::Byte, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: bool[2, 3], %u: uint8[4]):\n"
                    "  %logical_not: bool[2, 3] = aten.logical_not.default(%x)\n"
                    "  %any_1: bool[] = aten.any.dims(%logical_not)\n"
                    "  %logical_not_1: bool[] = aten.logical_not.default(%any_1)\n"
                    "  %logical_not_2: bool[2, 3] = aten.logical_not.default(%x)\n"
                    "  %any_2: bool[2] = aten.any.dim(%logical_not_2, 1)\n"
                    "  %logical_not_3: bool[2] = aten.logical_not.default(%any_2)\n"
                    "  %logical_not_4: bool[2, 3] = aten.logical_not.default(%x)\n"
                    "  %any_3: bool[1, 3] = aten.any.dims(%logical_not_4, [0], True)\n"
                    "  %logical_not_5: bool[1, 3] = aten.logical_not.default(%any_3)\n"
                    "  %logical_not_6: bool[4] = aten.logical_not.default(%u)\n"
                    "  %any_4: bool[] = aten.any.dims(%logical_not_6)\n"
                    "  %logical_not_7: bool[] = aten.logical_not.default(%any_4)\n"
                    "  %_to_copy: uint8[] = aten._to_copy.default(%logical_not_7, dtype=torch.uint8)\n"
                    "  return (%logical_not_1, %logical_not_3, %logical_not_5, %_to_copy)\n");
}

TEST_CASE("decompose count_nonzero -> ne.Scalar(x, 0), sum.dim_IntList with None, [d] or the list") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  b.output(b.call("aten.count_nonzero.default", {arg_tensor(x)}, {ScalarType::Long, {}}));
  b.output(b.call("aten.count_nonzero.default", {arg_tensor(x), arg_int(1)}, {ScalarType::Long, {2}}));
  b.output(b.call("aten.count_nonzero.dim_IntList", {arg_tensor(x), arg_ints({0})}, {ScalarType::Long, {3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3]):\n"
                    "  %ne: bool[2, 3] = aten.ne.Scalar(%x, 0)\n"
                    "  %sum_1: int64[] = aten.sum.dim_IntList(%ne, None)\n"
                    "  %ne_1: bool[2, 3] = aten.ne.Scalar(%x, 0)\n"
                    "  %sum_2: int64[2] = aten.sum.dim_IntList(%ne_1, [1])\n"
                    "  %ne_2: bool[2, 3] = aten.ne.Scalar(%x, 0)\n"
                    "  %sum_3: int64[3] = aten.sum.dim_IntList(%ne_2, [0])\n"
                    "  return (%sum_1, %sum_2, %sum_3)\n");
}
