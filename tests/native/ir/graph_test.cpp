// Graph operations: value table, insertion, erasure, replace-all-uses, copies.
#include "ir/graph.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "ir/printer.h"
#include "ir/verifier.h"
#include "ir_builders.h"

using namespace pteforge;
using namespace pteforge::ir;

namespace {
std::vector<std::string> names(const std::vector<Node*>& nodes) {
  std::vector<std::string> out;
  for (const Node* n : nodes) out.push_back(n->name());
  return out;
}
}  // namespace

TEST_CASE("graph: the value table knows producers, users and metadata") {
  Graph g = test::make_chain();
  CHECK(g.num_nodes() == 3);
  CHECK(g.producer("x") == nullptr);
  CHECK(g.find_value("x")->input_index == 0);
  CHECK(g.find_value("w")->input_index == 1);
  CHECK(g.producer("relu") == g.find_node("relu"));
  CHECK(g.find_value("relu")->kind == ValueKind::Tensor);
  CHECK(names(g.users("x")) == std::vector<std::string>{"mm", "add"});
  CHECK(g.use_count("x") == 2);
  CHECK(g.use_count("add") == 1);  // the graph output
  CHECK(g.users("add").empty());
  CHECK(g.tensor_meta("mm")->dtype == ScalarType::Float);
  CHECK(g.tensor_meta("nope") == nullptr);
  CHECK(g.find_node("nope") == nullptr);
  Node* relu = g.find_node("relu");
  REQUIRE(relu != nullptr);
  CHECK(relu->graph() == &g);
  REQUIRE(relu->input("self") != nullptr);
  CHECK(relu->input("self")->tensor_name() == "mm");
  CHECK(relu->input("other") == nullptr);
  CHECK(relu->input_index("self") == 0);
  CHECK(*relu->single_output() == "relu");
  CHECK(relu->target().is("aten.relu.default"));
  CHECK(verify_graph(g).ok());
}

TEST_CASE("graph: insert before and after keep execution order") {
  Graph g = test::make_chain();
  Node* relu = g.find_node("relu");
  Node* add = g.find_node("add");
  Node& neg = g.insert_after(*relu, test::call("torch.ops.aten.neg.default", {positional("self", arg_tensor("relu"))}, "neg"));
  g.set_tensor_meta("neg", make_tensor_meta(ScalarType::Float, {2, 3}));
  Node& abs = g.insert_before(*relu, test::call("torch.ops.aten.abs.default", {positional("self", arg_tensor("mm"))}, "abs"));
  g.set_tensor_meta("abs", make_tensor_meta(ScalarType::Float, {2, 3}));
  CHECK(g.is_before(abs, *relu));
  CHECK(g.is_before(*relu, neg));
  CHECK(g.is_before(neg, *add));
  CHECK_FALSE(g.is_before(*add, abs));
  CHECK(g.next(*relu) == &neg);
  CHECK(g.prev(*relu) == &abs);
  CHECK(g.next(*add) == nullptr);
  CHECK(names(g.node_snapshot()) == std::vector<std::string>{"mm", "abs", "relu", "neg", "add"});
  CHECK(names(g.users("relu")) == std::vector<std::string>{"add", "neg"});
  // Many insertions at one spot exhaust the order gaps and force a renumbering.
  Node* pos = &neg;
  for (int i = 0; i < 70; ++i) {
    std::string name = "c" + std::to_string(i);
    pos = &g.insert_before(*pos, test::call("torch.ops.aten.clone.default", {positional("self", arg_tensor("x"))}, name));
    g.set_tensor_meta(name, make_tensor_meta(ScalarType::Float, {2, 3}));
  }
  CHECK(g.is_before(*relu, *pos));
  CHECK(g.is_before(*g.find_node("c0"), neg));
  CHECK(g.is_before(*g.find_node("c69"), *g.find_node("c68")));
  CHECK(verify_graph(g).ok());
}

TEST_CASE("graph: replace_all_uses rewrites node inputs and graph outputs") {
  Graph g = test::make_chain();
  Node& neg = g.insert_after(*g.find_node("add"), test::call("torch.ops.aten.neg.default", {positional("self", arg_tensor("add"))}, "neg"));
  g.set_tensor_meta("neg", make_tensor_meta(ScalarType::Float, {2, 3}));
  // Uses of x become uses of w (inputs of mm and add); the graph output is untouched.
  CHECK(g.replace_all_uses("x", "w") == 2);
  CHECK(g.users("x").empty());
  CHECK(names(g.users("w")) == std::vector<std::string>{"mm", "add"});
  CHECK(g.use_count("w") == 3);
  // Route the output through neg: replace uses of add (the output), then re-point neg at add.
  CHECK(g.replace_all_uses("add", "neg") == 2);  // neg's own input and the graph output
  neg.set_input(0, arg_tensor("add"));
  CHECK(g.outputs()[0].tensor_name() == "neg");
  CHECK(print_graph(g) ==
        "graph(%x, %w):\n"
        "  %mm = aten.mm.default(%w, %w)\n"
        "  %relu = aten.relu.default(%mm)\n"
        "  %add = aten.add.Tensor(%relu, %w)\n"
        "  %neg = aten.neg.default(%add)\n"
        "  return (%neg)\n");
  CHECK(verify_graph(g).ok());
  CHECK(g.replace_all_uses("nothing", "x") == 0);
  CHECK(g.replace_all_uses("x", "x") == 0);
}

TEST_CASE("graph: erase refuses a node whose value is still used, then removes it and its metadata") {
  Graph g = test::make_chain();
  Node* relu = g.find_node("relu");
  Status st = g.erase(*relu);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::INVALID_GRAPH);
  CHECK(st.error().message == "cannot erase node 'relu': its value 'relu' is still used by node 'add'");
  CHECK(st.error().where.node == "relu");
  CHECK(g.num_nodes() == 3);
  Status out = g.erase(*g.find_node("add"));
  REQUIRE_FALSE(out.ok());
  CHECK(out.error().message == "cannot erase node 'add': its value 'add' is a graph output");
  // Bypass relu, then erase it.
  CHECK(g.replace_all_uses("relu", "mm") == 1);
  REQUIRE(g.erase(*relu).ok());
  CHECK(g.num_nodes() == 2);
  CHECK(g.find_node("relu") == nullptr);
  CHECK(g.find_value("relu") == nullptr);
  CHECK(g.tensor_meta("relu") == nullptr);
  CHECK(names(g.users("mm")) == std::vector<std::string>{"add"});
  CHECK(verify_graph(g).ok());
}

TEST_CASE("graph: replacing one node by several (the usual pass pattern)") {
  // linear(x, w, b) → permute(w, [1, 0]) + addmm(b, x, permute)
  Graph g;
  g.set_tensor_meta("x", make_tensor_meta(ScalarType::Float, {4, 8}));
  g.set_tensor_meta("w", make_tensor_meta(ScalarType::Float, {2, 8}));
  g.set_tensor_meta("b", make_tensor_meta(ScalarType::Float, {2}));
  g.set_inputs({arg_tensor("x"), arg_tensor("w"), arg_tensor("b")});
  Node& linear = g.append(test::call("torch.ops.aten.linear.default",
                                     {positional("input", arg_tensor("x")), positional("weight", arg_tensor("w")),
                                      positional("bias", arg_tensor("b"))},
                                     "linear"));
  linear.origin().graph_pointer = std::make_shared<const std::string>("/graph_module/graph");
  linear.origin().index = 0;
  g.set_tensor_meta("linear", make_tensor_meta(ScalarType::Float, {4, 2}));
  g.append(test::call("torch.ops.aten.tanh.default", {positional("self", arg_tensor("linear"))}, "tanh"));
  g.set_tensor_meta("tanh", make_tensor_meta(ScalarType::Float, {4, 2}));
  g.set_outputs({arg_tensor("tanh")});

  const Argument* weight = linear.input("weight");
  const Argument* bias = linear.input("bias");
  const Argument* input = linear.input("input");
  std::string permute_name = g.unique_name("permute");
  Node& permute = g.insert_before(
      linear, test::call("torch.ops.aten.permute.default",
                         {positional("self", *weight), positional("dims", arg_ints({1, 0}))}, permute_name));
  permute.inherit_from(linear);
  g.set_tensor_meta(permute_name, make_tensor_meta(ScalarType::Float, {8, 2}));
  std::string addmm_name = g.unique_name("addmm");
  Node& addmm = g.insert_before(linear, test::call("torch.ops.aten.addmm.default",
                                                   {positional("self", *bias), positional("mat1", *input),
                                                    positional("mat2", arg_tensor(permute_name))},
                                                   addmm_name));
  addmm.inherit_from(linear);
  g.set_tensor_meta(addmm_name, *g.tensor_meta("linear"));
  CHECK(g.replace_all_uses("linear", addmm_name) == 1);
  REQUIRE(g.erase(linear).ok());
  CHECK(print_graph(g, PrintOptions{true}) ==
        "graph(%x: float32[4, 8], %w: float32[2, 8], %b: float32[2]):\n"
        "  %permute: float32[8, 2] = aten.permute.default(%w, [1, 0])\n"
        "  %addmm: float32[4, 2] = aten.addmm.default(%b, %x, %permute)\n"
        "  %tanh: float32[4, 2] = aten.tanh.default(%addmm)\n"
        "  return (%tanh)\n");
  CHECK(addmm.origin().pointer() == "/graph_module/graph/nodes/0");
  CHECK(verify_graph(g).ok());
}

TEST_CASE("graph: set_input and set_outputs keep users current") {
  Graph g = test::make_chain();
  Node* add = g.find_node("add");
  add->set_input(1, arg_tensor("mm"));
  CHECK(names(g.users("x")) == std::vector<std::string>{"mm"});
  CHECK(names(g.users("mm")) == std::vector<std::string>{"relu", "add"});
  add->set_input("alpha", arg_int(2));
  CHECK(add->inputs().size() == 3);
  CHECK(add->inputs()[2].kind == ArgumentKind::Keyword);
  add->erase_input(2);
  CHECK(add->inputs().size() == 2);
  g.set_outputs({arg_tensor("relu"), arg_tensor("add")});
  CHECK(g.use_count("relu") == 2);
  g.set_outputs({arg_tensor("add")});
  CHECK(g.use_count("relu") == 1);
  CHECK(verify_graph(g).ok());
}

TEST_CASE("graph: copies are deep and equal, moves keep node pointers valid") {
  Graph g = test::make_chain();
  Graph copy = g;
  CHECK(copy == g);
  CHECK(copy.find_node("relu") != g.find_node("relu"));
  CHECK(copy.find_node("relu")->graph() == &copy);
  CHECK(copy.find_node("relu")->id() == g.find_node("relu")->id());
  copy.find_node("relu")->set_input(0, arg_tensor("x"));
  CHECK_FALSE(copy == g);
  CHECK(names(g.users("mm")) == std::vector<std::string>{"relu"});

  Node* relu = g.find_node("relu");
  Graph moved = std::move(g);
  CHECK(moved.find_node("relu") == relu);
  CHECK(relu->graph() == &moved);
  CHECK(g.num_nodes() == 0);  // NOLINT: a moved-from graph is empty and usable
  CHECK(verify_graph(moved).ok());

  GraphBox box(std::move(moved));
  GraphBox box2 = box;
  CHECK(box2 == box);
  CHECK(box2->find_node("relu") != box->find_node("relu"));
}

TEST_CASE("graph: unique_name, move_before and graph inputs") {
  Graph g = test::make_chain();
  CHECK(g.unique_name("fresh") == "fresh");
  CHECK(g.unique_name("relu") == "relu_1");
  CHECK(g.unique_name("x") == "x_1");
  Node* add = g.find_node("add");
  Node* mm = g.find_node("mm");
  g.move_before(*add, *mm);  // now add uses relu before its definition
  CHECK(names(g.node_snapshot()) == std::vector<std::string>{"add", "mm", "relu"});
  CHECK_FALSE(verify_graph(g).ok());
  g.move_after(*add, *g.find_node("relu"));
  CHECK(verify_graph(g).ok());
  g.insert_input(1, arg_tensor("y"));
  g.set_tensor_meta("y", make_tensor_meta(ScalarType::Long, {}));
  CHECK(g.find_value("y")->input_index == 1);
  CHECK(g.find_value("w")->input_index == 2);
  g.erase_input(1);
  CHECK(g.find_value("w")->input_index == 1);
  CHECK(g.find_value("y") != nullptr);  // its metadata stays until cleared
  g.clear_meta("y");
  CHECK(g.find_value("y") == nullptr);
}

TEST_CASE("graph: node_snapshot follows every insertion, move and erasure after an earlier snapshot") {
  Graph g = test::make_chain();
  CHECK(names(g.node_snapshot()) == std::vector<std::string>{"mm", "relu", "add"});
  CHECK(names(g.node_snapshot()) ==
        std::vector<std::string>{"mm", "relu", "add"});  // unchanged: the kept copy
  Node* relu = g.find_node("relu");
  g.insert_after(*relu,
                 test::call("torch.ops.aten.neg.default", {positional("self", arg_tensor("relu"))}, "neg"));
  CHECK(names(g.node_snapshot()) == std::vector<std::string>{"mm", "relu", "neg", "add"});
  g.insert_before(*relu,
                  test::call("torch.ops.aten.abs.default", {positional("self", arg_tensor("mm"))}, "abs"));
  CHECK(names(g.node_snapshot()) == std::vector<std::string>{"mm", "abs", "relu", "neg", "add"});
  g.append(test::call("torch.ops.aten.exp.default", {positional("self", arg_tensor("add"))}, "exp"));
  CHECK(names(g.node_snapshot()) == std::vector<std::string>{"mm", "abs", "relu", "neg", "add", "exp"});
  g.move_before(*g.find_node("neg"), *g.find_node("abs"));
  CHECK(names(g.node_snapshot()) == std::vector<std::string>{"mm", "neg", "abs", "relu", "add", "exp"});
  g.move_after(*g.find_node("neg"), *g.find_node("add"));
  CHECK(names(g.node_snapshot()) == std::vector<std::string>{"mm", "abs", "relu", "add", "neg", "exp"});
  REQUIRE(g.erase(*g.find_node("exp")).ok());
  REQUIRE(g.erase(*g.find_node("neg")).ok());
  REQUIRE(g.erase(*g.find_node("abs")).ok());
  CHECK(names(g.node_snapshot()) == std::vector<std::string>{"mm", "relu", "add"});
  // A rename changes no order; the snapshot's pointers see the new name.
  g.find_node("relu")->set_name("relu_renamed");
  CHECK(names(g.node_snapshot()) == std::vector<std::string>{"mm", "relu_renamed", "add"});
}

TEST_CASE("graph: revision changes with the structure, not with value metadata") {
  Graph g = test::make_chain();
  const uint64_t r0 = g.revision();
  CHECK(g.revision() == r0);  // asking draws no new number
  g.set_tensor_meta("relu", make_tensor_meta(ScalarType::Float, {2, 3}));
  CHECK(g.revision() == r0);
  Graph copy = g;
  CHECK(copy.revision() != r0);  // another graph: another number
  CHECK(g.revision() == r0);
  std::vector<uint64_t> seen{r0};
  // Each structural change gives a number no state of this graph had before.
  auto changed = [&](const char* what) {
    CAPTURE(what);
    const uint64_t r = g.revision();
    CHECK(std::find(seen.begin(), seen.end(), r) == seen.end());
    seen.push_back(r);
  };
  Node* relu = g.find_node("relu");
  Node& neg = g.insert_after(
      *relu, test::call("torch.ops.aten.neg.default", {positional("self", arg_tensor("relu"))}, "neg"));
  changed("insert");
  neg.set_input(0, arg_tensor("mm"));
  changed("set_input");
  neg.set_target(OpTarget("torch.ops.aten.abs.default"));
  changed("set_target");
  g.move_before(neg, *relu);
  changed("move");
  neg.set_name("abs");
  changed("rename");
  g.set_outputs({arg_tensor("abs")});
  changed("graph outputs");
  g.insert_input(2, arg_tensor("z"));
  changed("graph inputs");
  REQUIRE(g.erase(*g.find_node("add")).ok());
  changed("erase");
}

TEST_CASE("exported program: replace_all_uses also updates output specs and call signatures") {
  ExportedProgram ep = test::make_program();
  ModuleCallEntry entry;
  entry.fqn = "lin";
  entry.signature = ModuleCallSignature{};
  entry.signature->inputs = {arg_tensor("x")};
  entry.signature->outputs = {arg_tensor("add")};
  ep.graph_module.module_call_graph.push_back(entry);
  Node& neg = ep.graph().append(test::call("torch.ops.aten.neg.default", {positional("self", arg_tensor("add"))}, "neg"));
  ep.graph().set_tensor_meta("neg", make_tensor_meta(ScalarType::Float, {2, 3}));
  CHECK(ep.replace_all_uses("add", "neg") == 4);  // neg's input, graph output, output spec, call signature
  neg.set_input(0, arg_tensor("add"));
  CHECK(ep.signature().output_specs[0].name() == "neg");
  CHECK(ep.graph_module.module_call_graph[0].signature->outputs[0].tensor_name() == "neg");
  CHECK(verify_program(ep).ok());
}

TEST_CASE("exported program: rename_outside_graph renames output specs and call signatures only, in one walk") {
  ExportedProgram ep = test::make_program();
  ModuleCallEntry entry;
  entry.fqn = "lin";
  entry.signature = ModuleCallSignature{};
  entry.signature->inputs = {arg_tensor("x"), arg_tensor("x")};
  entry.signature->outputs = {arg_tensor("add")};
  ep.graph_module.module_call_graph.push_back(entry);
  ep.graph_module.module_call_graph.push_back(ModuleCallEntry{"no_signature", std::nullopt});
  CHECK(ep.rename_outside_graph({}) == 0);
  // output spec + call signature output, and both call signature inputs.
  CHECK(ep.rename_outside_graph({{"add", "sum"}, {"x", "x2"}, {"absent", "y"}}) == 4);
  CHECK(ep.signature().output_specs[0].name() == "sum");
  const ModuleCallSignature& sig = *ep.graph_module.module_call_graph[0].signature;
  CHECK(sig.inputs[0].tensor_name() == "x2");
  CHECK(sig.inputs[1].tensor_name() == "x2");
  CHECK(sig.outputs[0].tensor_name() == "sum");
  // The graph is not touched.
  CHECK(ep.graph().use_count("add") == 1);
  CHECK(ep.graph().find_value("sum") == nullptr);
}

TEST_CASE("graph: has_nested_graphs follows the nodes with a graph-valued input") {
  Graph g = test::make_chain();
  CHECK_FALSE(g.has_nested_graphs());
  auto wrap = [] {
    Graph body;
    body.set_tensor_meta("a", make_tensor_meta(ScalarType::Float, {2}));
    body.set_inputs({arg_tensor("a")});
    body.set_outputs({arg_tensor("a")});
    GraphArgument ga{"body_0", GraphBox(std::move(body))};
    return Node(OpTarget("torch.ops.higher_order.wrap"), {positional("", Argument::make<ArgTag::Graph>(std::move(ga)))},
                {}, "wrap");
  };
  Node& w = g.append(wrap());
  CHECK(g.has_nested_graphs());
  Graph copy(g);
  CHECK(copy.has_nested_graphs());
  // Replacing the body argument by a plain one, then back.
  w.set_inputs({positional("", arg_int(1))});
  CHECK_FALSE(g.has_nested_graphs());
  w.set_inputs(wrap().inputs());
  CHECK(g.has_nested_graphs());
  REQUIRE(g.erase(w).ok());
  CHECK_FALSE(g.has_nested_graphs());
  CHECK(copy.has_nested_graphs());
}
