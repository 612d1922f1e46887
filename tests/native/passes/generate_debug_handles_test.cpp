#include <doctest/doctest.h>

#include <memory>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_passes;

namespace {

/// Gives every node an origin as if read from "/graph_module/graph/nodes/<i>".
void set_origins(Graph& g) {
  auto ptr = std::make_shared<const std::string>("/graph_module/graph");
  int64_t i = 0;
  for (Node& n : g) {
    n.origin().graph_pointer = ptr;
    n.origin().index = i++;
  }
}

/// "name=handle" for every node in order.
std::string handles(const ExportedProgram& ep, const passes::MethodState& state) {
  std::string out;
  for (const Node& n : ep.graph()) {
    auto it = state.debug_handles.find(&n);
    out += n.name() + "=" +
           (it == state.debug_handles.end() ? std::string("-") : std::to_string(it->second)) + " ";
  }
  return out;
}

}  // namespace

TEST_CASE("generate_debug_handles: nodes made from one source node share its handle") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Int, {3});
  auto y = b.input("y", ScalarType::Float, {3});
  auto r = b.call("aten.relu.default", {arg_tensor(y)}, {ScalarType::Float, {3}});
  auto a = b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(r)}, {ScalarType::Float, {3}});
  auto m = b.call("aten.mul.Tensor", {arg_tensor(a), arg_float(2.0)}, {ScalarType::Float, {3}});
  b.output(m);
  ExportedProgram ep = b.build();
  set_origins(ep.graph());
  auto run = run_passes(ep, {"scalar_to_tensor", "remove_mixed_type_operators", "generate_debug_handles"});
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(run.report.passes[2].stats.at("handles") == 3);
  CHECK(handles(ep, run.state) == "relu=1 _to_copy=2 add=2 mul=3 ");
}

TEST_CASE("generate_debug_handles: from_node provenance decides the oldest ancestor") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", ScalarType::Float, {4, 4});
  auto x = b.input("x", ScalarType::Float, {2, 4});
  auto p = b.call("aten.permute.default", {arg_tensor(w), arg_ints({1, 0})}, {ScalarType::Float, {4, 4}});
  auto mm = b.call("aten.mm.default", {arg_tensor(x), arg_tensor(p)}, {ScalarType::Float, {2, 4}});
  auto t = b.call("aten.tanh.default", {arg_tensor(mm)}, {ScalarType::Float, {2, 4}});
  b.output(t);
  ExportedProgram ep = b.build();
  set_origins(ep.graph());
  // permute and mm were decomposed from one `linear` (nested provenance), tanh from itself.
  const std::string linear =
      R"([{"name": "permute", "target": "aten.permute.default", "graph_id": 7, "pass_name": "decompose", )"
      R"("action": "replace", "from_node": [{"name": "linear", "target": "aten.linear.default", "graph_id": 3, )"
      R"("pass_name": "", "action": "create", "from_node": []}]}])";
  const std::string linear_mm =
      R"([{"name": "linear", "target": "aten.linear.default", "graph_id": 3, "pass_name": "", "action": "create", "from_node": []}])";
  ep.graph().find_node(p)->metadata().other.emplace_back("from_node", linear);
  ep.graph().find_node(mm)->metadata().other.emplace_back("from_node", linear_mm);
  // Not JSON (here 200,000 open brackets: parsed without recursion): falls back to the origin.
  ep.graph().find_node(t)->metadata().other.emplace_back("from_node", std::string(200000, '['));
  auto run = run_passes(ep, {"generate_debug_handles"});
  REQUIRE(run.status.ok());
  CHECK(handles(ep, run.state) == "permute=1 mm=1 tanh=2 ");
}

TEST_CASE("generate_debug_handles: nested graphs are numbered after their parent (BFS)") {
  auto make_body = [](const std::string& op) {
    Graph g;
    g.set_inputs({arg_tensor("a")});
    g.set_tensor_meta("a", make_tensor_meta(ScalarType::Float, {2}));
    g.append(Node(OpTarget("torch.ops.aten." + op + ".default"), {positional("self", arg_tensor("a"))},
                  {arg_tensor(op)}, op));
    g.set_tensor_meta(op, make_tensor_meta(ScalarType::Float, {2}));
    g.set_outputs({arg_tensor(op)});
    return g;
  };
  ProgramBuilder b;
  auto p = b.input("p", ScalarType::Bool, {});
  auto x = b.input("x", ScalarType::Float, {2});
  b.output(x);
  ExportedProgram ep = b.build();
  Graph& g = ep.graph();
  g.append(Node(OpTarget("torch.ops.higher_order.cond"),
                {positional("pred", arg_tensor(p)),
                 positional("true_fn", Argument::make<ArgTag::Graph>(
                                           GraphArgument{"true_graph_0", GraphBox(make_body("neg"))})),
                 positional("false_fn", Argument::make<ArgTag::Graph>(
                                            GraphArgument{"false_graph_0", GraphBox(make_body("exp"))})),
                 positional("operands", arg_tensors({x}))},
                {arg_tensor("cond")}, "cond"));
  g.set_tensor_meta("cond", make_tensor_meta(ScalarType::Float, {2}));
  Node& after = g.append(Node(OpTarget("torch.ops.aten.relu.default"),
                              {positional("self", arg_tensor("cond"))}, {arg_tensor("relu")}, "relu"));
  g.set_tensor_meta("relu", make_tensor_meta(ScalarType::Float, {2}));
  g.set_output(0, arg_tensor("relu"));
  ep.signature().output_specs[0].arg = arg_tensor("relu");
  auto run = run_passes(ep, {"generate_debug_handles"});
  REQUIRE(run.status.ok());
  const auto& h = run.state.debug_handles;
  const Node& cond = *g.find_node("cond");
  CHECK(h.at(&cond) == 1);
  CHECK(h.at(&after) == 2);
  const Graph& t = *cond.inputs()[1].arg.get<ArgTag::Graph>().graph;
  const Graph& f = *cond.inputs()[2].arg.get<ArgTag::Graph>().graph;
  CHECK(h.at(t.find_node("neg")) == 3);
  CHECK(h.at(f.find_node("exp")) == 4);
  CHECK(h.size() == 4);
}

TEST_CASE("generate_debug_handles: an origin is its pointer text and node index") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {3});
  auto r = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {3}});
  auto n = b.call("aten.neg.default", {arg_tensor(r)}, {ScalarType::Float, {3}});
  auto e = b.call("aten.exp.default", {arg_tensor(n)}, {ScalarType::Float, {3}});
  auto t = b.call("aten.tanh.default", {arg_tensor(e)}, {ScalarType::Float, {3}});
  b.output(t);
  ExportedProgram ep = b.build();
  // relu and neg: the same text in two string objects, same index: one
  // ancestor. exp: same index, another graph. tanh: no origin, its own.
  auto set = [&](const std::string& name, const char* graph, int64_t index) {
    Node* node = ep.graph().find_node(name);
    REQUIRE(node != nullptr);
    node->origin().graph_pointer = std::make_shared<const std::string>(graph);
    node->origin().index = index;
  };
  set(r, "/graph_module/graph", 4);
  set(n, "/graph_module/graph", 4);
  set(e, "/graph_module/graph/nodes/0", 4);
  auto run = run_passes(ep, {"generate_debug_handles"});
  REQUIRE(run.status.ok());
  CHECK(handles(ep, run.state) == "relu=1 neg=1 exp=2 tanh=3 ");
  CHECK(run.report.passes[0].stats.at("handles") == 3);
}
