#include "passes/legalize.h"

#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::Out;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;

namespace {

/// linear -> tanh -> linear (corpus linear_tanh in core ATen form).
ExportedProgram two_linears() {
  ProgramBuilder b;
  auto w1 = b.parameter("p_w1", "w1", ScalarType::Float, {8, 8});
  auto b1 = b.parameter("p_b1", "b1", ScalarType::Float, {8});
  auto w2 = b.parameter("p_w2", "w2", ScalarType::Float, {2, 8});
  auto b2 = b.parameter("p_b2", "b2", ScalarType::Float, {2});
  auto x = b.input("x", ScalarType::Float, {4, 8});
  auto p1 = b.call("aten.permute.default", {arg_tensor(w1), arg_ints({1, 0})}, {ScalarType::Float, {8, 8}});
  auto a1 = b.call("aten.addmm.default", {arg_tensor(b1), arg_tensor(x), arg_tensor(p1)},
                   {ScalarType::Float, {4, 8}});
  auto t = b.call("aten.tanh.default", {arg_tensor(a1)}, {ScalarType::Float, {4, 8}});
  auto p2 = b.call("aten.permute.default", {arg_tensor(w2), arg_ints({1, 0})}, {ScalarType::Float, {8, 2}});
  auto a2 = b.call("aten.addmm.default", {arg_tensor(b2), arg_tensor(t), arg_tensor(p2)},
                   {ScalarType::Float, {4, 2}});
  b.output(a2);
  return b.build();
}

std::string order(const Graph& g) {
  std::string out;
  for (const Node& n : g) out += n.name() + " ";
  return out;
}

}  // namespace

TEST_CASE("legalize: the pass follows torch.fx legalize_graph (breadth first, not stable)") {
  ExportedProgram ep = two_linears();
  auto run = run_pass(ep, "legalize");
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(order(ep.graph()) == "permute permute_1 addmm tanh addmm_1 ");
  // Already in that order: a second run changes nothing.
  auto again = run_pass(ep, "legalize");
  REQUIRE(again.status.ok());
  CHECK_FALSE(again.changed());
}

TEST_CASE("legalize: Stable keeps a valid order and repairs an invalid one minimally") {
  ExportedProgram ep = two_linears();
  auto same = passes::legalize_graph(ep.graph(), passes::LegalizeOrder::Stable);
  REQUIRE(same.ok());
  CHECK_FALSE(*same);
  CHECK(order(ep.graph()) == "permute addmm tanh permute_1 addmm_1 ");

  Graph& g = ep.graph();
  g.move_before(*g.find_node("addmm_1"), *g.find_node("permute"));  // uses before definitions
  g.move_after(*g.find_node("addmm"), *g.find_node("tanh"));
  REQUIRE(order(g) == "addmm_1 permute tanh addmm permute_1 ");
  auto fixed = passes::legalize_graph(g, passes::LegalizeOrder::Stable);
  REQUIRE(fixed.ok());
  CHECK(*fixed);
  CHECK(order(g) == "permute addmm tanh permute_1 addmm_1 ");
  CHECK(ir::verify_program(ep).ok());
}

TEST_CASE("legalize: Fx order puts prioritized ops first and reads multi-output nodes through getitems") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto y = b.input("y", ScalarType::Float, {2, 3});
  auto parts = b.call_multi("aten.split_copy.Tensor", {arg_tensor(x), arg_int(1)},
                            {Out{ScalarType::Float, {1, 3}}, Out{ScalarType::Float, {1, 3}}},
                            {"getitem", "getitem_1"});
  auto r = b.call("aten.relu.default", {arg_tensor(y)}, {ScalarType::Float, {2, 3}});
  auto n = b.call("aten.neg.default", {arg_tensor(parts[0])}, {ScalarType::Float, {1, 3}});
  auto st = b.call("aten.scalar_tensor.default", {arg_float(1.0)}, {ScalarType::Float, {}});
  auto e = b.call("aten.exp.default", {arg_tensor(r)}, {ScalarType::Float, {2, 3}});
  auto m = b.call("aten.mul.Tensor", {arg_tensor(n), arg_tensor(st)}, {ScalarType::Float, {1, 3}});
  b.output(m);
  b.output(e);
  ExportedProgram ep = b.build();
  REQUIRE(order(ep.graph()) == "split_copy relu neg scalar_tensor exp mul ");
  // Queue: x, y, scalar_tensor (no inputs) -> split, relu -> getitem, exp -> neg -> mul.
  auto run = run_pass(ep, "legalize");
  REQUIRE(run.status.ok());
  CHECK(order(ep.graph()) == "scalar_tensor split_copy relu exp neg mul ");
}

TEST_CASE("legalize: a node whose input was set comes after the other users of its inputs, as in torch.fx") {
  // c = where(p, x, 0.0) and a = add(x, x) both become ready when x is
  // placed; torch.fx visits x's users in their dict order, where changing
  // c's args re-inserted c behind a.
  ProgramBuilder b;
  auto p = b.input("p", ScalarType::Bool, {2});
  auto x = b.input("x", ScalarType::Float, {2});
  auto c = b.call("aten.where.ScalarOther", {arg_tensor(p), arg_tensor(x), arg_float(0.0)},
                  {ScalarType::Float, {2}});
  auto a = b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(x)}, {ScalarType::Float, {2}});
  b.output(c);
  b.output(a);
  ExportedProgram ep = b.build();
  Graph& g = ep.graph();
  REQUIRE(order(g) == "where add ");
  auto before = passes::legalize_graph(g, passes::LegalizeOrder::Fx);
  REQUIRE(before.ok());
  CHECK(order(g) == "where add ");
  g.find_node("where")->set_input(2, arg_float(1.0));  // no value changes: only the users order does
  auto after = passes::legalize_graph(g, passes::LegalizeOrder::Fx);
  REQUIRE(after.ok());
  CHECK(order(g) == "add where ");
}

TEST_CASE("legalize: a dependency cycle is INVALID_GRAPH naming a node on it, nothing moves") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2});
  auto r = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {2}});
  b.output(r);
  ExportedProgram ep = b.build();
  Graph& g = ep.graph();
  g.append(Node(OpTarget("torch.ops.aten.add.Tensor"),
                {positional("self", arg_tensor("b")), positional("other", arg_tensor(x))}, {arg_tensor("a")},
                "a"));
  g.append(Node(OpTarget("torch.ops.aten.neg.default"), {positional("self", arg_tensor("a"))},
                {arg_tensor("b")}, "b"));
  const std::string before = order(g);
  auto res = passes::legalize_graph(g);
  REQUIRE_FALSE(res.ok());
  CHECK(res.error().code == ErrorCode::INVALID_GRAPH);
  CHECK(res.error().where.node == "a");
  CHECK(res.error().message == "the graph has a dependency cycle through node a");
  CHECK(order(g) == before);
}
