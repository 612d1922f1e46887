#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;

namespace {

/// One binary op `target` on inputs of the given dtypes and shapes; returns the program.
ExportedProgram binary(const std::string& target, ScalarType a, std::vector<int64_t> sa, ScalarType b_type,
                       std::vector<int64_t> sb, ScalarType out,
                       std::vector<std::pair<std::string, Argument>> kwargs = {}) {
  ProgramBuilder b;
  auto x = b.input("x", a, sa);
  auto y = b.input("y", b_type, sb);
  auto r = b.call(target, {arg_tensor(x), arg_tensor(y)}, {out, sa.size() >= sb.size() ? sa : sb},
                  std::move(kwargs), "r");
  b.output(r);
  return b.build();
}

/// The dtype the pass casts operands to, or "" when it inserts nothing.
std::string promoted(ExportedProgram ep) {
  auto run = run_pass(ep, "remove_mixed_type_operators");
  REQUIRE(run.status.ok());
  const Node* r = ep.graph().find_node("r");
  std::string dtype;
  for (const Node& n : ep.graph()) {
    if (&n == r) break;
    const Argument* d = n.input("dtype");
    REQUIRE(d != nullptr);
    std::string name(scalar_type_name(d->get<ArgTag::ScalarType>()));
    if (!dtype.empty()) CHECK(dtype == name);
    dtype = name;
  }
  return dtype;
}

}  // namespace

TEST_CASE("remove_mixed_type_operators: casts operands to the promoted dtype in front of the op") {
  ExportedProgram ep = binary("aten.add.Tensor", ScalarType::Int, {2, 3}, ScalarType::Float, {2, 3},
                              ScalarType::Float, {{"alpha", arg_int(2)}});
  auto run = run_pass(ep, "remove_mixed_type_operators");
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(run.report.passes[0].stats.at("casts_inserted") == 1);
  CHECK(print_graph(ep.graph(), {true}) ==
        "graph(%x: int32[2, 3], %y: float32[2, 3]):\n"
        "  %_to_copy: float32[2, 3] = aten._to_copy.default(%x, dtype=torch.float32)\n"
        "  %r: float32[2, 3] = aten.add.Tensor(%_to_copy, %y, alpha=2)\n"
        "  return (%r)\n");
  CHECK(ep.graph().find_node("_to_copy")->metadata() == ep.graph().find_node("r")->metadata());
}

TEST_CASE("remove_mixed_type_operators: torch's elementwise promotion rules") {
  using S = ScalarType;
  // Same dtype: nothing.
  CHECK(promoted(binary("aten.mul.Tensor", S::Float, {3}, S::Float, {3}, S::Float)) == "");
  // Higher category wins; within a category the higher dtype.
  CHECK(promoted(binary("aten.mul.Tensor", S::Long, {3}, S::Half, {3}, S::Half)) == "float16");
  CHECK(promoted(binary("aten.sub.Tensor", S::Short, {3}, S::Long, {3}, S::Long)) == "int64");
  CHECK(promoted(binary("aten.minimum.default", S::Bool, {3}, S::Byte, {3}, S::Byte)) == "uint8");
  // One tier, two dtypes: the next tier.
  CHECK(promoted(binary("aten.add.Tensor", S::Byte, {3}, S::Char, {3}, S::Short)) == "int16");
  CHECK(promoted(binary("aten.add.Tensor", S::Half, {3}, S::BFloat16, {3}, S::Float)) == "float32");
  // 0-d tensors only decide when no dimensioned tensor has the category.
  CHECK(promoted(binary("aten.add.Tensor", S::Int, {3}, S::Long, {}, S::Int)) == "int32");
  CHECK(promoted(binary("aten.add.Tensor", S::Int, {3}, S::Double, {}, S::Double)) == "float64");
  CHECK(promoted(binary("aten.add.Tensor", S::Half, {3}, S::Double, {}, S::Half)) ==
        "float16");  // the 0-d one is cast
  // div without rounding mode: int to float.
  CHECK(promoted(binary("aten.div.Tensor", S::Long, {3}, S::Long, {3}, S::Float)) == "float32");
  CHECK(promoted(binary("aten.div.Tensor_mode", S::Int, {3}, S::Int, {3}, S::Float,
                        {{"rounding_mode", arg_none()}})) == "float32");
  CHECK(promoted(binary("aten.div.Tensor_mode", S::Int, {3}, S::Int, {3}, S::Int,
                        {{"rounding_mode", arg_string("floor")}})) == "");
  CHECK(promoted(binary("aten.div.Tensor", S::Float, {3}, S::Double, {3}, S::Double)) == "float64");
}

TEST_CASE("remove_mixed_type_operators: a 0-d constant of another dtype gets its own cast") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Int, {3});
  auto r = b.call("aten.add.Tensor", {arg_tensor(x), arg_int(2)}, {ScalarType::Int, {3}}, {}, "r");
  b.output(r);
  ExportedProgram ep = b.build();
  auto run = pteforge::testing::run_passes(ep, {"scalar_to_tensor", "remove_mixed_type_operators"});
  REQUIRE(run.status.ok());
  CHECK(print_graph(ep.graph(), {true}) ==
        "graph(%_tensor_constant0: int64[], %x: int32[3]):\n"
        "  %_to_copy: int32[] = aten._to_copy.default(%_tensor_constant0, dtype=torch.int32)\n"
        "  %r: int32[3] = aten.add.Tensor(%x, %_to_copy)\n"
        "  return (%r)\n");
}

TEST_CASE("remove_mixed_type_operators: other ops are not touched") {
  ExportedProgram ep = binary("aten.bmm.default", ScalarType::Float, {1, 2, 2}, ScalarType::Half, {1, 2, 2},
                              ScalarType::Float);
  const std::string before = print_exported_program(ep, {true});
  auto run = run_pass(ep, "remove_mixed_type_operators");
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.changed());
  CHECK(print_exported_program(ep, {true}) == before);
}

TEST_CASE("remove_mixed_type_operators: dtypes outside torch's order are an error naming the node") {
  ExportedProgram ep =
      binary("aten.add.Tensor", ScalarType::UInt16, {3}, ScalarType::Int, {3}, ScalarType::Int);
  auto run = run_pass(ep, "remove_mixed_type_operators");
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(run.status.error().where.node == "r");
  CHECK(run.status.error().message ==
        "cannot promote the operand dtypes of aten.add.Tensor: a dtype is outside torch's promotion order "
        "(uint16/32/64, float8)");
}
