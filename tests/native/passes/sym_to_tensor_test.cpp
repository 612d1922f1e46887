#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;

namespace {

/// x[s0, 4]; %n = sym_size.int(x, 0); then `use` builds the rest.
ExportedProgram with_sym_size(bool use_sym) {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {3, 4});
  ExportedProgram& ep = b.program();
  ep.graph().append(Node(OpTarget("torch.ops.aten.sym_size.int"),
                         {positional("self", arg_tensor(x)), positional("dim", arg_int(0))},
                         {arg_sym_int("n")}, "n"));
  ep.graph().set_sym_int("n", SymInt(SymExpr{"s0", SymExprHint::of_int(3)}));
  Argument other = use_sym ? arg_sym_int("n") : arg_tensor(x);
  auto m = b.call("aten.mul.Tensor", {arg_tensor(x), other}, {ScalarType::Float, {3, 4}});
  auto d = b.call("aten.div.Tensor", {arg_tensor(m), use_sym ? arg_sym_int("n") : arg_tensor(x)},
                  {ScalarType::Float, {3, 4}});
  b.output(d);
  return b.build();
}

}  // namespace

TEST_CASE("sym_to_tensor: SymInt operands of Tensor arguments get scalar_tensor(int32) in front") {
  ExportedProgram ep = with_sym_size(true);
  auto run = run_pass(ep, "sym_to_tensor");
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(run.report.passes[0].stats.at("scalar_tensors_inserted") == 2);
  CHECK(print_graph(ep.graph(), {true}) ==
        "graph(%x: float32[3, 4]):\n"
        "  %n: SymInt(s0) = aten.sym_size.int(%x, 0)\n"
        "  %scalar_tensor: int32[] = aten.scalar_tensor.default(%n, dtype=torch.int32)\n"
        "  %mul: float32[3, 4] = aten.mul.Tensor(%x, %scalar_tensor)\n"
        "  %scalar_tensor_1: int32[] = aten.scalar_tensor.default(%n, dtype=torch.int32)\n"
        "  %div: float32[3, 4] = aten.div.Tensor(%mul, %scalar_tensor_1)\n"
        "  return (%div)\n");
  // The new nodes carry their consumer's metadata and origin.
  CHECK(ep.graph().find_node("scalar_tensor")->metadata() == ep.graph().find_node("mul")->metadata());
}

TEST_CASE("sym_to_tensor: SymFloat and SymBool get float32 and bool") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2});
  ExportedProgram& ep = b.program();
  Graph& g = ep.graph();
  g.append(Node(OpTarget("torch.ops.aten.sym_size.int"),
                {positional("self", arg_tensor(x)), positional("dim", arg_int(0))}, {arg_sym_int("n")}, "n"));
  g.set_sym_int("n", SymInt(SymExpr{"s0", SymExprHint::of_int(2)}));
  g.append(Node(OpTarget("torch.sym_float"), {positional("a", arg_sym_int("n"))}, {arg_sym_float("f")}, "f"));
  g.set_sym_float("f", SymFloat(SymExpr{"s0", SymExprHint::of_float(2.0)}));
  g.append(Node(OpTarget("_operator.gt"), {positional("a", arg_sym_int("n")), positional("b", arg_int(1))},
                {arg_sym_bool("p")}, "p"));
  g.set_sym_bool("p", SymBool(SymExpr{"s0 > 1", SymExprHint::of_bool(true)}));
  auto a = b.call("aten.add.Tensor", {arg_tensor(x), arg_sym_float("f")}, {ScalarType::Float, {2}});
  auto w =
      b.call("aten.where.self", {arg_sym_bool("p"), arg_tensor(a), arg_tensor(x)}, {ScalarType::Float, {2}});
  b.output(w);
  ExportedProgram built = b.build();
  auto run = run_pass(built, "sym_to_tensor");
  REQUIRE(run.status.ok());
  CHECK(print_graph(built.graph()) ==
        "graph(%x):\n"
        "  %n = aten.sym_size.int(%x, 0)\n"
        "  %f = torch.sym_float(%n)\n"
        "  %p = _operator.gt(%n, 1)\n"
        "  %scalar_tensor = aten.scalar_tensor.default(%f, dtype=torch.float32)\n"
        "  %add = aten.add.Tensor(%x, %scalar_tensor)\n"
        "  %scalar_tensor_1 = aten.scalar_tensor.default(%p, dtype=torch.bool)\n"
        "  %where = aten.where.self(%scalar_tensor_1, %add, %x)\n"
        "  return (%where)\n");
}

TEST_CASE("sym_to_tensor: no symbolic operand, no change") {
  ExportedProgram ep = with_sym_size(false);
  const std::string before = print_exported_program(ep, {true});
  auto run = run_pass(ep, "sym_to_tensor");
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.changed());
  CHECK(print_exported_program(ep, {true}) == before);
}
