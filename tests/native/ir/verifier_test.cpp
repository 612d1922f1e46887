// The IR verifier: each invariant violated once, with the exact error.
#include <doctest/doctest.h>

#include <functional>

#include "ir/printer.h"
#include "ir/verifier.h"
#include "ir_builders.h"

using namespace pteforge;
using namespace pteforge::ir;

namespace {

/// make_program() with origins, as if read from JSON: graph at /graph_module/graph,
/// node i at .../nodes/i with a one-frame stack trace.
ExportedProgram imported_program() {
  ExportedProgram ep = test::make_program();
  auto gp = std::make_shared<const std::string>("/graph_module/graph");
  ep.graph().set_json_pointer(gp);
  int64_t i = 0;
  for (Node& n : ep.graph()) {
    n.origin().graph_pointer = gp;
    n.origin().index = i;
    n.metadata().stack_trace = std::make_shared<const std::string>(
        "  File \"/m.py\", line " + std::to_string(10 + i) + ", in forward\n    y = f(x)\n");
    ++i;
  }
  return ep;
}

struct Case {
  const char* name;
  std::function<void(ExportedProgram&)> mutate;
  const char* message;
  const char* where;  // Location::to_string()
};

const Case kCases[] = {
    {"node without a name", [](ExportedProgram& ep) { ep.graph().find_node("relu")->set_name(""); },
     "node calling torch.ops.aten.relu.default has no name",
     "pointer=/graph_module/graph/nodes/1 source=/m.py:11 in forward"},
    {"target torch.export does not write",
     [](ExportedProgram& ep) { ep.graph().find_node("relu")->set_target(OpTarget("!!!")); },
     "node 'relu': target '!!!' is not a callable torch.export writes (expected "
     "torch.ops.<namespace>.<op>.<overload>, torch.ops.higher_order.<op>, a Python function <module>.<name>, "
     "or "
     "#<namespace>:<op>)",
     "pointer=/graph_module/graph/nodes/1/target node=relu source=/m.py:11 in forward"},
    {"duplicate node name",
     [](ExportedProgram& ep) {
       Node n(OpTarget("torch.ops.aten._assert_scalar.default"), {positional("self", arg_bool(true))}, {}, "relu");
       ep.graph().append(std::move(n));
     },
     "node name 'relu' is used by more than one node", "node=relu"},
    {"use before definition",
     [](ExportedProgram& ep) { ep.graph().find_node("mm")->set_input(1, arg_tensor("add")); },
     "node 'mm' uses 'add' before its definition by node 'add'",
     "pointer=/graph_module/graph/nodes/0/inputs/1/arg/as_tensor/name node=mm source=/m.py:10 in forward"},
    {"dangling name",
     [](ExportedProgram& ep) {
       ep.graph().find_node("add")->set_input(1, arg_tensors({"relu", "ghost"}));
     },
     "node 'add' uses 'ghost', which is not defined anywhere (dangling name)",
     "pointer=/graph_module/graph/nodes/2/inputs/1/arg/as_tensors/1/name node=add source=/m.py:12 in "
     "forward"},
    {"name with metadata only",
     [](ExportedProgram& ep) {
       ep.graph().set_tensor_meta("orphan", make_tensor_meta(ScalarType::Float, {1}));
       ep.graph().find_node("relu")->set_input(0, arg_tensor("orphan"));
     },
     "node 'relu' uses 'orphan', which has metadata but is defined by no graph input or node",
     "pointer=/graph_module/graph/nodes/1/inputs/0/arg/as_tensor/name node=relu source=/m.py:11 in forward"},
    {"value defined twice",
     [](ExportedProgram& ep) { ep.graph().find_node("relu")->set_outputs({arg_tensor("mm")}); },
     "value 'mm' is defined more than once",
     "pointer=/graph_module/graph/nodes/1/outputs/0/as_tensor/name node=relu source=/m.py:11 in forward"},
    {"value used as the wrong kind",
     [](ExportedProgram& ep) {
       ep.graph().find_node("add")->set_input(1, Argument::make<ArgTag::SymInt>(SymIntArgument{"mm", 0}));
     },
     "value 'mm' is a tensor but is used as a SymInt",
     "pointer=/graph_module/graph/nodes/2/inputs/1/arg/as_sym_int/as_name node=add source=/m.py:12 in "
     "forward"},
    {"graph output naming nothing",
     [](ExportedProgram& ep) {
       ep.graph().set_outputs({arg_tensor("missing")});
       ep.signature().output_specs[0].arg = arg_tensor("missing");
     },
     "graph output 0 names 'missing', which is not defined",
     "pointer=/graph_module/graph/outputs/0/as_tensor/name"},
    {"tensor without metadata", [](ExportedProgram& ep) { ep.graph().clear_meta("relu"); },
     "tensor value 'relu' has no metadata (no tensor_values entry)",
     "pointer=/graph_module/graph/nodes/1/outputs/0/as_tensor/name node=relu source=/m.py:11 in forward"},
    {"unknown dtype",
     [](ExportedProgram& ep) {
       TensorMeta m = *ep.graph().tensor_meta("mm");
       m.dtype = static_cast<ScalarType>(99);
       ep.graph().set_tensor_meta("mm", m);
     },
     "tensor value 'mm' has an unknown dtype (99)", "pointer=/graph_module/graph/tensor_values/mm/dtype"},
    {"negative size",
     [](ExportedProgram& ep) {
       TensorMeta m = *ep.graph().tensor_meta("w");
       m.sizes[1] = SymInt(int64_t{-3});
       ep.graph().set_tensor_meta("w", m);
     },
     "tensor value 'w' has a negative size -3", "pointer=/graph_module/graph/tensor_values/w/sizes/1"},
    {"invalid subgraph",
     [](ExportedProgram& ep) {
       Graph sub;
       sub.set_json_pointer(std::make_shared<const std::string>("/graph_module/graph/nodes/3/inputs/0/arg/as_graph/graph"));
       sub.set_tensor_meta("a", make_tensor_meta(ScalarType::Float, {2, 3}));
       sub.set_inputs({arg_tensor("a")});
       sub.set_outputs({arg_tensor("b")});
       GraphArgument ga{"body_0", GraphBox(std::move(sub))};
       Node n(OpTarget("torch.ops.higher_order.wrap"), {positional("", Argument::make<ArgTag::Graph>(std::move(ga)))},
              {}, "wrap");
       ep.graph().append(std::move(n));
     },
     "graph output 0 names 'b', which is not defined",
     "pointer=/graph_module/graph/nodes/3/inputs/0/arg/as_graph/graph/outputs/0/as_tensor/name"},
    {"signature input count", [](ExportedProgram& ep) { ep.signature().input_specs.pop_back(); },
     "the signature has 1 input specs but the graph has 2 inputs",
     "pointer=/graph_module/signature/input_specs"},
    {"signature output count",
     [](ExportedProgram& ep) { ep.signature().output_specs.push_back(ep.signature().output_specs[0]); },
     "the signature has 2 output specs but the graph has 1 outputs",
     "pointer=/graph_module/signature/output_specs"},
    {"input spec naming another value",
     [](ExportedProgram& ep) { ep.signature().input_specs[1].arg = arg_tensor("x"); },
     "input spec 1 (parameter 'x') does not match graph input 1 (%w)",
     "pointer=/graph_module/signature/input_specs/1"},
    {"constant input spec with another value",
     [](ExportedProgram& ep) {
       ep.graph().insert_input(2, arg_int(3));
       InputSpec c;
       c.kind = InputKind::ConstantInput;
       c.constant_name = "n";
       c.arg = arg_int(4);
       ep.signature().input_specs.push_back(c);
     },
     "input spec 2 (constant_input 'n') does not match graph input 2 (3)",
     "pointer=/graph_module/signature/input_specs/2"},
    {"state input that is not a tensor",
     [](ExportedProgram& ep) {
       ep.graph().insert_input(2, arg_sym_int("s"));
       ep.graph().set_sym_int("s", SymInt(int64_t{4}));
       InputSpec b;
       b.kind = InputKind::Buffer;
       b.arg = arg_sym_int("s");
       b.target = "steps";
       ep.signature().input_specs.push_back(b);
     },
     "input spec 2 (buffer 's') does not match graph input 2 (%s)",
     "pointer=/graph_module/signature/input_specs/2"},
    {"output spec naming another value",
     [](ExportedProgram& ep) {
       ep.signature().output_specs[0].kind = OutputKind::LossOutput;
       ep.signature().output_specs[0].arg = arg_tensor("relu");
     },
     "output spec 0 (loss_output %relu) does not match graph output 0 (%add)",
     "pointer=/graph_module/signature/output_specs/0"},
};

}  // namespace

TEST_CASE("verifier: a valid program passes, with and without the fast path") {
  ExportedProgram ep = imported_program();
  CHECK(verify_program(ep).ok());
  CHECK(verify_graph_detailed(ep.graph()).ok());
}

TEST_CASE("verifier: each invariant violated once") {
  for (const Case& c : kCases) {
    CAPTURE(c.name);
    ExportedProgram ep = imported_program();
    c.mutate(ep);
    Status st = verify_program(ep);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == ErrorCode::INVALID_GRAPH);
    CHECK(st.error().message == c.message);
    CHECK(st.error().where.to_string() == c.where);
  }
}

TEST_CASE("verifier: graphs without origins report node names only") {
  ExportedProgram ep = test::make_program();
  ep.graph().find_node("mm")->set_input(1, arg_tensor("add"));
  Status st = verify_graph(ep.graph());
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().where.to_string() == "node=mm");
  VerifyOptions lax;
  lax.require_tensor_meta = false;
  ExportedProgram ep2 = test::make_program();
  ep2.graph().clear_meta("relu");
  CHECK_FALSE(verify_graph(ep2.graph()).ok());
  CHECK(verify_graph(ep2.graph(), lax).ok());
}
