// Every error of the module swap: outline preconditions, replacement
// mismatches, request problems, option parsing. Exact codes, messages and
// where keys.
#include <doctest/doctest.h>

#include "passes/swap_test_util.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::Out;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::kNested;

namespace {

const Out kT{ScalarType::Float, {2, 3}};

Error outline_error(ExportedProgram& ep, std::vector<std::string> fqns) {
  passes::PipelineOptions options;
  options.outline_modules = std::move(fqns);
  return testing::run_passes_error(ep, {"outline_modules"}, options);
}

Error swap_error(ExportedProgram& ep, std::vector<passes::SwapRequest> swaps) {
  passes::PipelineOptions options;
  options.swaps = std::move(swaps);
  return testing::run_passes_error(ep, {"swap_modules"}, options);
}

/// x[2,3] -> m: relu(x) -> out. Module "m" preserved.
ExportedProgram simple_module() {
  ProgramBuilder pb;
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto r = pb.call("aten.relu.default", {arg_tensor(x)}, kT);
  auto n = pb.call("aten.neg.default", {arg_tensor(r)}, kT);
  pb.output(n);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), r, {"m"});
  testing::preserve(ep, "m", {x}, {r}, testing::args_spec(1), testing::out_spec(1));
  return ep;
}

/// A replacement program: one input of `dtype`/`sizes`, relu, one output.
ExportedProgram relu_replacement(ScalarType dtype = ScalarType::Float, std::vector<int64_t> sizes = {2, 3}) {
  ProgramBuilder pb;
  auto x = pb.input("x", dtype, sizes);
  auto r = pb.call("aten.relu.default", {arg_tensor(x)}, Out{dtype, sizes});
  pb.output(r);
  ExportedProgram ep = pb.build();
  testing::set_root_signature(ep, testing::args_spec(1), testing::out_spec(1));
  return ep;
}

}  // namespace

// ---- outline preconditions

TEST_CASE("swap errors: a module that does not exist") {
  auto l = testing::load(kNested);
  Error e = outline_error(l.program, {"encoder.layer.5"});
  CHECK(e.code == ErrorCode::MODULE_SWAP);
  CHECK(e.message == "there is no module 'encoder.layer.5' in the program");
  REQUIRE(e.notes.size() == 1);
  CHECK(e.notes[0] == "modules with a preserved call signature: 'encoder', 'encoder.layer.0', 'encoder.layer.1'");
  CHECK(e.where.pass == "outline_modules");
  CHECK(e.where.method == "forward");
}

TEST_CASE("swap errors: a module without a preserved call signature") {
  auto l = testing::load(kNested);
  Error e = outline_error(l.program, {"head"});
  CHECK(e.code == ErrorCode::MODULE_SWAP);
  CHECK(e.message ==
        "module 'head' has no preserved call signature in module_call_graph, so its calling convention is unknown");
  REQUIRE(e.notes.size() == 1);
  CHECK(e.notes[0] ==
        "export with torch.export.export(..., preserve_module_call_signature=(\"head\",)) to make it swappable");
  // The same through swap_modules (the replacement is never looked at).
  Error s = swap_error(l.program, {{"head", testing::share(relu_replacement())}});
  CHECK(s.code == ErrorCode::MODULE_SWAP);
  CHECK(s.where.pass == "outline_modules");
}

TEST_CASE("swap errors: the root module") {
  ExportedProgram ep = simple_module();
  Error e = outline_error(ep, {""});
  CHECK(e.code == ErrorCode::MODULE_SWAP);
  CHECK(e.message == "the root module cannot be outlined or swapped; convert the replacement program instead");
}

TEST_CASE("swap errors: a module requested twice") {
  ExportedProgram ep = simple_module();
  Error e = outline_error(ep, {"m", "m"});
  CHECK(e.code == ErrorCode::OPTION_INVALID);
  CHECK(e.message == "module 'm' is requested more than once");
}

TEST_CASE("swap errors: a module called twice is not supported yet") {
  ProgramBuilder pb;
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto r1 = pb.call("aten.relu.default", {arg_tensor(x)}, kT);
  auto r2 = pb.call("aten.relu.default", {arg_tensor(r1)}, kT);
  pb.output(r2);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), r1, {"m"});
  testing::set_stack(ep.graph(), r2, {"m"});
  testing::preserve(ep, "m", {x}, {r1}, testing::args_spec(1), testing::out_spec(1));
  SUBCASE("two nn_module_stack keys for the same path") {
    ModuleStack st = *ep.graph().find_node(r2)->metadata().nn_module_stack;
    st.back().key = "L__self__m@1";
    ep.graph().find_node(r2)->metadata().nn_module_stack = std::make_shared<const ModuleStack>(st);
  }
  SUBCASE("a module_call_graph entry m@1") {
    testing::preserve(ep, "m@1", {r1}, {r2}, testing::args_spec(1), testing::out_spec(1));
  }
  Error e = outline_error(ep, {"m"});
  CHECK(e.code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(e.message ==
        "module 'm' is called 2 times; outlining or swapping a module that is called more than once is not "
        "supported yet");
}

TEST_CASE("swap errors: nodes that are not convex (fusing would create a cycle)") {
  ProgramBuilder pb;
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto r = pb.call("aten.relu.default", {arg_tensor(x)}, kT);
  auto n = pb.call("aten.neg.default", {arg_tensor(r)}, kT);
  auto a = pb.call("aten.add.Tensor", {arg_tensor(r), arg_tensor(n)}, kT);
  pb.output(a);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), r, {"m"});
  testing::set_stack(ep.graph(), a, {"m"});
  // The module "returns" relu and then goes on computing with a value from outside.
  testing::preserve(ep, "m", {x}, {r, a}, testing::args_spec(1), testing::out_spec(2));
  const ExportedProgram before = ep;
  Error e = outline_error(ep, {"m"});
  CHECK(e.code == ErrorCode::MODULE_SWAP);
  CHECK(e.message ==
        "the nodes of module 'm' are not convex: node 'add' of the module depends on node 'neg', which is outside "
        "the module but depends on its node 'relu'; fusing the module would create a cycle");
  CHECK(e.where.node == "add");
  // The API leaves the program as it was.
  ExportedProgram copy = before;
  CHECK_FALSE(passes::outline(copy, {"m"}).ok());
  testing::expect_same_program(copy, before);
}

TEST_CASE("swap errors: a value computed inside the module is used outside but is not an output") {
  ProgramBuilder pb;
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto r = pb.call("aten.relu.default", {arg_tensor(x)}, kT);
  auto n = pb.call("aten.neg.default", {arg_tensor(r)}, kT);
  auto a = pb.call("aten.add.Tensor", {arg_tensor(r), arg_tensor(n)}, kT);
  pb.output(a);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), r, {"m"});
  testing::set_stack(ep.graph(), n, {"m"});
  testing::preserve(ep, "m", {x}, {n}, testing::args_spec(1), testing::out_spec(1));
  Error e = outline_error(ep, {"m"});
  CHECK(e.code == ErrorCode::MODULE_SWAP);
  CHECK(e.message ==
        "value 'relu' computed inside module 'm' (by node 'relu') is used outside it (by node 'add') but is not one "
        "of the module's outputs in its call signature");
  CHECK(e.where.node == "relu");
}

TEST_CASE(
    "swap errors: a signature output naming a value the program does not have, while its result is used") {
  // A result nobody uses may be missing (see swap_replace_test); a used one
  // that the signature misnames is a value used outside, with a note.
  ExportedProgram ep = simple_module();
  ep.graph_module.module_call_graph.back().signature->outputs[0] = arg_tensor("nosuch");
  Error e = outline_error(ep, {"m"});
  CHECK(e.code == ErrorCode::MODULE_SWAP);
  CHECK(e.message ==
        "value 'relu' computed inside module 'm' (by node 'relu') is used outside it (by node 'neg') but is "
        "not one "
        "of the module's outputs in its call signature");
  CHECK(e.where.node == "relu");
  REQUIRE(e.notes.size() == 1);
  CHECK(e.notes[0] == "the call signature lists output 0 as 'nosuch', which the program does not define");
}

TEST_CASE("swap errors: an input of the signature computed inside the module") {
  ProgramBuilder pb;
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto r = pb.call("aten.relu.default", {arg_tensor(x)}, kT);
  auto n = pb.call("aten.neg.default", {arg_tensor(r)}, kT);
  pb.output(n);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), r, {"m"});
  testing::set_stack(ep.graph(), n, {"m"});
  testing::preserve(ep, "m", {r}, {n}, testing::args_spec(1), testing::out_spec(1));
  Error e = outline_error(ep, {"m"});
  CHECK(e.code == ErrorCode::MODULE_SWAP);
  CHECK(e.message == "input 0 ('relu') of module 'm' is computed inside the module itself");
  CHECK(e.where.node == "relu");
}

TEST_CASE("swap errors: a module that mutates a buffer is not supported yet") {
  ProgramBuilder pb;
  auto b = pb.buffer("b_acc", "acc", ScalarType::Float, {2, 3});
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto r = pb.call("aten.relu.default", {arg_tensor(x)}, kT);
  auto nb = pb.call("aten.add.Tensor", {arg_tensor(b), arg_tensor(r)}, kT);
  auto n = pb.call("aten.neg.default", {arg_tensor(r)}, kT);
  pb.output(nb, OutputKind::BufferMutation, "acc");
  pb.output(n);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), r, {"m"});
  testing::set_stack(ep.graph(), nb, {"m"});
  testing::preserve(ep, "m", {x}, {r}, testing::args_spec(1), testing::out_spec(1));
  Error e = outline_error(ep, {"m"});
  CHECK(e.code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(e.message ==
        "module 'm' mutates state: its value 'add' (node 'add') is written back as a buffer_mutation output; "
        "outlining or swapping a module that mutates buffers or inputs is not supported yet");
}

TEST_CASE("swap errors: a module that returns the value it writes into its own buffer") {
  // The write-back value is a module output, so it is not "used outside but
  // not an output": it must still be refused, or a replacement's output would
  // be written into the module's buffer.
  auto build = [](const std::string& buffer_fqn) {
    ProgramBuilder pb;
    auto b = pb.buffer("b_acc", buffer_fqn, ScalarType::Float, {2, 3});
    auto x = pb.input("x", ScalarType::Float, {2, 3});
    auto nb = pb.call("aten.add.Tensor", {arg_tensor(b), arg_tensor(x)}, kT);
    pb.output(nb, OutputKind::BufferMutation, buffer_fqn);
    pb.output(nb);
    ExportedProgram ep = pb.build();
    testing::set_stack(ep.graph(), nb, {"m"});
    testing::preserve(ep, "m", {x}, {nb}, testing::args_spec(1), testing::out_spec(1));
    return ep;
  };
  ExportedProgram own = build("m.acc");
  Error e = outline_error(own, {"m"});
  CHECK(e.code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(e.message ==
        "module 'm' mutates state: its value 'add' (node 'add') is written back as a buffer_mutation output; "
        "outlining or swapping a module that mutates buffers or inputs is not supported yet");
  CHECK(e.where.node == "add");
  // A buffer outside the module ("mm.acc" only shares the prefix) that gets
  // the module's output is the caller's write: outlining is fine.
  ExportedProgram outer = build("mm.acc");
  passes::PipelineOptions options;
  options.outline_modules = {"m"};
  testing::run_passes(outer, {"outline_modules"}, options);
}

TEST_CASE("swap errors: a module of a joint (training) graph") {
  // The gradient of m.w was traced through m's nodes: a replacement would
  // leave it computed for the old module, or pair it with new parameters.
  ProgramBuilder pb;
  auto w = pb.parameter("p_m_w", "m.w", ScalarType::Float, {2, 3});
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto loss = pb.call("aten.mul.Tensor", {arg_tensor(x), arg_tensor(w)}, kT);
  auto grad = pb.call("aten.neg.default", {arg_tensor(x)}, kT);
  pb.output(loss, OutputKind::LossOutput);
  pb.output(grad, OutputKind::GradientToParameter, "m.w");
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), loss, {"m"});
  testing::preserve(ep, "m", {x}, {loss}, testing::args_spec(1), testing::out_spec(1));
  ExportedProgram copy = ep;
  Error e = outline_error(ep, {"m"});
  CHECK(e.code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(e.message ==
        "module 'm' is in a joint (training) graph: output 1 is the gradient_to_parameter for 'm.w', traced "
        "through "
        "the modules as exported; outlining or swapping modules of a joint graph is not supported");
  CHECK(e.where.pointer == "/graph_module/signature/output_specs/1");
  REQUIRE(e.notes.size() == 1);
  CHECK(e.notes[0].rfind("swap the module in the inference program", 0) == 0);
  Error s = swap_error(copy, {{"m", testing::share(relu_replacement())}});
  CHECK(s.message == e.message);
}

TEST_CASE("swap errors: a replacement's state would take the name of a weight tied to the outside") {
  ProgramBuilder pb;
  const Out t{ScalarType::Float, {2, 3}};
  auto w = pb.parameter("p_m_w", "m.w", ScalarType::Float, {2, 3});  // used inside and outside m
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto a = pb.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(w)}, t);
  auto c = pb.call("aten.mul.Tensor", {arg_tensor(a), arg_tensor(w)}, t);
  pb.output(c);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), a, {"m"});
  testing::preserve(ep, "m", {x}, {a}, testing::args_spec(1), testing::out_spec(1));
  ProgramBuilder rb;
  auto k = rb.parameter("p_w", "w", ScalarType::Float, {2, 3});  // m.w once under the module's prefix
  auto y = rb.input("y", ScalarType::Float, {2, 3});
  rb.output(rb.call("aten.sub.Tensor", {arg_tensor(y), arg_tensor(k)}, t));
  ExportedProgram rep = rb.build();
  testing::set_root_signature(rep, testing::args_spec(1), testing::out_spec(1));
  Error e = swap_error(ep, {{"m", testing::share(rep)}});
  CHECK(e.code == ErrorCode::MODULE_SWAP);
  CHECK(e.message ==
        "the replacement's parameter 'w' would become 'm.w', a name the program keeps for state that is also "
        "used outside module 'm' (a tied weight)");
  CHECK(e.where.node == "p_m_w");
}

TEST_CASE("swap errors: a replacement's state would take the name of state written into from outside") {
  // m.b is read only inside m, but a node outside writes a value back into it,
  // so it stays; the replacement's own buffer b cannot become m.b too.
  ProgramBuilder pb;
  const Out t{ScalarType::Float, {2, 3}};
  auto b = pb.buffer("b_m_b", "m.b", ScalarType::Float, {2, 3});
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto a = pb.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(b)}, t);
  auto w = pb.call("aten.neg.default", {arg_tensor(x)}, t);
  pb.output(w, OutputKind::BufferMutation, "m.b");
  pb.output(a);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), a, {"m"});
  testing::preserve(ep, "m", {x}, {a}, testing::args_spec(1), testing::out_spec(1));
  ProgramBuilder rb;
  auto k = rb.buffer("b_b", "b", ScalarType::Float, {2, 3});
  auto y = rb.input("y", ScalarType::Float, {2, 3});
  rb.output(rb.call("aten.sub.Tensor", {arg_tensor(y), arg_tensor(k)}, t));
  ExportedProgram rep = rb.build();
  testing::set_root_signature(rep, testing::args_spec(1), testing::out_spec(1));
  Error e = swap_error(ep, {{"m", testing::share(rep)}});
  CHECK(e.code == ErrorCode::MODULE_SWAP);
  CHECK(e.message ==
        "the replacement's buffer 'b' would become 'm.b', a name the program keeps for state that it writes "
        "a value "
        "back into (a mutation output), although module 'm' was its only reader");
  CHECK(e.where.node == "b_m_b");
}

TEST_CASE("swap errors: malformed call signatures") {
  SUBCASE("in_spec is not (args, kwargs)") {
    ExportedProgram ep = simple_module();
    ep.graph_module.module_call_graph.back().signature->in_spec = testing::out_spec(1);
    Error e = outline_error(ep, {"m"});
    CHECK(e.code == ErrorCode::MODULE_SWAP);
    CHECK(e.message == "the in_spec of module 'm' is *; expected ((args...), {kwargs...})");
  }
  SUBCASE("a kwargs key that is not a string") {
    ExportedProgram ep = simple_module();
    ep.graph_module.module_call_graph.back().signature->in_spec.root.children[1].context = "[1]";
    Error e = outline_error(ep, {"m"});
    CHECK(e.code == ErrorCode::MODULE_SWAP);
    CHECK(e.message == "the in_spec of module 'm': dict treespec has a non-string key: [1]");
    CHECK(e.where.pointer == "/graph_module/module_call_graph/" +
                                 std::to_string(ep.graph_module.module_call_graph.size() - 1) +
                                 "/signature/in_spec");
  }
  SUBCASE("more inputs than in_spec leaves") {
    ExportedProgram ep = simple_module();
    ep.graph_module.module_call_graph.back().signature->inputs.push_back(arg_tensor("x"));
    Error e = outline_error(ep, {"m"});
    CHECK(e.code == ErrorCode::MODULE_SWAP);
    CHECK(e.message == "the call signature of module 'm' lists 2 inputs but its in_spec ((*,), {}) has 1 leaves");
  }
}

// ---- replacement mismatches

TEST_CASE("swap errors: replacement fixtures with another calling convention or output shape") {
  for (const char* name : {"two_inputs", "bad_shape"}) {
    CAPTURE(name);
    auto base = testing::load(kNested);
    auto rep = testing::load(std::string("fixtures/swap/") + name, passes::swap_source_label("encoder.layer.1"));
    rapidjson::Document io;
    std::string text = testing::read_text(std::string("fixtures/swap/") + name + ".io.json");
    io.Parse(text.c_str());
    REQUIRE(io.HasMember("error"));
    const ExportedProgram before = base.program;
    Error e = swap_error(base.program, {{"encoder.layer.1", testing::share(rep.program)}});
    CHECK(error_code_name(e.code) == io["error"]["code"].GetString());
    CHECK(e.message.find(io["error"]["contains"].GetString()) != std::string::npos);
    CHECK(e.message.rfind("the replacement for module 'encoder.layer.1' does not match its call signature: ", 0) == 0);
    CHECK(e.where.pass == "replace_modules");
    CHECK(e.notes.empty());  // the request names no source
    passes::SwapRequest named("encoder.layer.1", testing::share(rep.program));
    named.source = std::string("/models/") + name + ".pt2";
    Error with_source = swap_error(base.program, {named});
    CHECK(with_source.message == e.message);
    REQUIRE(with_source.notes.size() == 1);
    CHECK(with_source.notes[0] == "while swapping in the replacement for module 'encoder.layer.1' (/models/" +
                                      std::string(name) + ".pt2)");
    // The API is atomic.
    ExportedProgram copy = before;
    CHECK_FALSE(passes::swap(copy, {{"encoder.layer.1", testing::share(rep.program)}}).ok());
    testing::expect_same_program(copy, before);
  }
}

TEST_CASE("swap errors: out_spec, dtype and shape mismatches name what differs") {
  SUBCASE("input count (a replacement whose in_spec does not count its user inputs)") {
    ProgramBuilder pb;
    auto x = pb.input("x", ScalarType::Float, {2, 3});
    auto y = pb.input("y", ScalarType::Float, {2, 3});
    auto a = pb.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(y)}, kT);
    pb.output(a);
    ExportedProgram rep = pb.build();
    testing::set_root_signature(rep, testing::args_spec(1), testing::out_spec(1));
    ExportedProgram ep = simple_module();
    Error e = swap_error(ep, {{"m", testing::share(rep)}});
    CHECK(e.code == ErrorCode::MODULE_SWAP);
    CHECK(e.message ==
          "the replacement for module 'm' does not match its call signature: the module takes 1 flat input "
          "but the "
          "replacement has 2 user inputs");
  }
  SUBCASE("out_spec") {
    ProgramBuilder pb;
    auto x = pb.input("x", ScalarType::Float, {2, 3});
    auto r = pb.call("aten.relu.default", {arg_tensor(x)}, kT);
    auto n = pb.call("aten.neg.default", {arg_tensor(x)}, kT);
    pb.output(r);
    pb.output(n);
    ExportedProgram rep = pb.build();
    testing::set_root_signature(rep, testing::args_spec(1), testing::out_spec(2));
    ExportedProgram ep = simple_module();
    Error e = swap_error(ep, {{"m", testing::share(rep)}});
    CHECK(e.code == ErrorCode::MODULE_SWAP);
    CHECK(e.message ==
          "the replacement for module 'm' does not match its call signature: out_spec differs: the module returns * "
          "but the replacement returns (*, *)");
  }
  SUBCASE("input dtype") {
    ExportedProgram ep = simple_module();
    Error e = swap_error(ep, {{"m", testing::share(relu_replacement(ScalarType::Double))}});
    CHECK(e.message ==
          "the replacement for module 'm' does not match its call signature: input 0 ('x'): the module receives "
          "float32[2, 3] but the replacement expects float64[2, 3]");
  }
  SUBCASE("input shape") {
    ExportedProgram ep = simple_module();
    Error e = swap_error(ep, {{"m", testing::share(relu_replacement(ScalarType::Float, {2, 4}))}});
    CHECK(e.message ==
          "the replacement for module 'm' does not match its call signature: input 0 ('x'): the module receives "
          "float32[2, 3] but the replacement expects float32[2, 4] (dimension 1: size 3 in the program but 4 in the "
          "replacement)");
  }
  SUBCASE("no root signature") {
    ExportedProgram rep = relu_replacement();
    rep.graph_module.module_call_graph.front().signature.reset();
    ExportedProgram ep = simple_module();
    Error e = swap_error(ep, {{"m", testing::share(rep)}});
    CHECK(e.code == ErrorCode::MODULE_SWAP);
    CHECK(e.message ==
          "the replacement for module 'm' has no root entry (fqn '') with a signature in its module_call_graph, so "
          "its calling convention is unknown");
  }
  SUBCASE("a replacement that mutates a buffer") {
    ProgramBuilder pb;
    auto b = pb.buffer("b_acc", "acc", ScalarType::Float, {2, 3});
    auto x = pb.input("x", ScalarType::Float, {2, 3});
    auto nb = pb.call("aten.add.Tensor", {arg_tensor(b), arg_tensor(x)}, kT);
    auto r = pb.call("aten.relu.default", {arg_tensor(nb)}, kT);
    pb.output(nb, OutputKind::BufferMutation, "acc");
    pb.output(r);
    ExportedProgram rep = pb.build();
    testing::set_root_signature(rep, testing::args_spec(1), testing::out_spec(1));
    ExportedProgram ep = simple_module();
    Error e = swap_error(ep, {{"m", testing::share(rep)}});
    CHECK(e.code == ErrorCode::UNSUPPORTED_FEATURE);
    CHECK(e.message ==
          "the replacement for module 'm' has a buffer_mutation output (%add); replacements that mutate state or "
          "return gradients are not supported yet");
  }
}

TEST_CASE("swap errors: an input without a value that the replacement reads") {
  // m(x, None): the second input has no value in the program.
  ProgramBuilder pb;
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto r = pb.call("aten.relu.default", {arg_tensor(x)}, kT);
  auto n = pb.call("aten.neg.default", {arg_tensor(r)}, kT);
  pb.output(n);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), r, {"m"});
  testing::preserve(ep, "m", {x, ""}, {r}, testing::args_spec(2), testing::out_spec(1));

  ProgramBuilder rb;
  auto a = rb.input("a", ScalarType::Float, {2, 3});
  auto b = rb.input("b", ScalarType::Float, {2, 3});
  SUBCASE("it reads it") {
    auto s = rb.call("aten.add.Tensor", {arg_tensor(a), arg_tensor(b)}, kT);
    rb.output(s);
    ExportedProgram rep = rb.build();
    testing::set_root_signature(rep, testing::args_spec(2), testing::out_spec(1));
    Error e = swap_error(ep, {{"m", testing::share(rep)}});
    CHECK(e.code == ErrorCode::MODULE_SWAP);
    CHECK(e.message ==
          "input 1 of module 'm' has no value in the program (it was unused or None when exported), but the "
          "replacement uses it ('b')");
  }
  SUBCASE("it ignores it: fine") {
    auto s = rb.call("aten.sigmoid.default", {arg_tensor(a)}, kT);
    rb.output(s);
    ExportedProgram rep = rb.build();
    testing::set_root_signature(rep, testing::args_spec(2), testing::out_spec(1));
    REQUIRE(passes::swap(ep, {{"m", testing::share(rep)}}).ok());
    CHECK(print_graph(ep.graph()) ==
          "graph(%x):\n"
          "  %relu = aten.sigmoid.default(%x)\n"
          "  %neg = aten.neg.default(%relu)\n"
          "  return (%neg)\n");
  }
}

TEST_CASE("swap errors: a module that returns its input unchanged cannot be swapped") {
  ProgramBuilder pb;
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto r = pb.call("aten.relu.default", {arg_tensor(x)}, kT);
  auto a = pb.call("aten.add.Tensor", {arg_tensor(r), arg_tensor(x)}, kT);
  pb.output(a);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), r, {"m"});
  testing::preserve(ep, "m", {x}, {r, x}, testing::args_spec(1), testing::out_spec(2));
  ProgramBuilder rb;
  auto y = rb.input("y", ScalarType::Float, {2, 3});
  rb.output(rb.call("aten.relu.default", {arg_tensor(y)}, kT));
  rb.output(rb.call("aten.neg.default", {arg_tensor(y)}, kT));
  ExportedProgram rep = rb.build();
  testing::set_root_signature(rep, testing::args_spec(1), testing::out_spec(2));
  Error e = swap_error(ep, {{"m", testing::share(rep)}});
  CHECK(e.code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(e.message ==
        "output 1 of module 'm' is 'x', which the module does not compute (an input or a value from outside passed "
        "through); its uses cannot be told apart from other uses of that value, so swapping this module is not "
        "supported");
}

// ---- requests

TEST_CASE("swap errors: requests that overlap, repeat or lack a program") {
  auto l = testing::load(kNested);
  auto rep = testing::share(relu_replacement());
  Error overlap = swap_error(l.program, {{"encoder", rep}, {"encoder.layer.1", rep}});
  CHECK(overlap.code == ErrorCode::MODULE_SWAP);
  CHECK(overlap.message ==
        "swap requests overlap: module 'encoder.layer.1' is inside module 'encoder', whose replacement replaces it "
        "too");
  Error twice = swap_error(l.program, {{"encoder", rep}, {"encoder", rep}});
  CHECK(twice.code == ErrorCode::OPTION_INVALID);
  CHECK(twice.message == "module 'encoder' is swapped more than once");
  Error none = swap_error(l.program, {{"encoder", nullptr}});
  CHECK(none.code == ErrorCode::OPTION_INVALID);
  CHECK(none.message == "the swap of module 'encoder' has no replacement program");
  CHECK(none.where.pass == "swap_modules");
}

TEST_CASE("swap errors: the program's weights are bound but the replacement's are not") {
  auto base = testing::load(kNested);
  auto rep = testing::load("fixtures/swap/layer1_gelu");
  rep.program.state = StateBinding{};
  Error e = swap_error(base.program, {{"encoder.layer.1", testing::share(rep.program)}});
  CHECK(e.code == ErrorCode::WEIGHTS_MISSING);
  CHECK(e.message ==
        "the replacement for module 'encoder.layer.1' has parameter 'fc.weight' but its weights are not bound; load "
        "the replacement from its .pt2 archive");
}

// ---- the --swap option

TEST_CASE("parse_swap_option: FQN=PATH") {
  auto ok = passes::parse_swap_option("encoder.layer.1=replacement.pt2");
  REQUIRE(ok.ok());
  CHECK(ok->fqn == "encoder.layer.1");
  CHECK(ok->path == "replacement.pt2");
  auto eq = passes::parse_swap_option("1=dir/a=b.pt2");  // split at the first '='
  REQUIRE(eq.ok());
  CHECK(eq->fqn == "1");
  CHECK(eq->path == "dir/a=b.pt2");
  struct Bad {
    const char* text;
    const char* message;
  };
  const Bad bad[] = {
      {"encoder", "--swap expects MODULE=REPLACEMENT (e.g. encoder.layer.1=block.pt2), got 'encoder'"},
      {"=x.pt2", "--swap '=x.pt2' names no module before '='"},
      {"encoder=", "--swap 'encoder=' names no replacement file after '='"},
      {"enc..layer=x.pt2",
       "--swap 'enc..layer=x.pt2': 'enc..layer' is not a module path (non-empty module names separated by "
       "single "
       "dots, without control characters)"},
      {".enc=x.pt2",
       "--swap '.enc=x.pt2': '.enc' is not a module path (non-empty module names separated by single dots, "
       "without "
       "control characters)"},
      {"enc\x01=x.pt2",
       "--swap 'enc\x01=x.pt2': 'enc\x01' is not a module path (non-empty module names separated by single "
       "dots, "
       "without control characters)"},
  };
  // torch names ModuleDict entries by their keys: any name without a '.'.
  for (const char* good : {"blk-1=x.pt2", "layers.0.attn proj=x.pt2"}) {
    CAPTURE(good);
    auto r = passes::parse_swap_option(good);
    REQUIRE(r.ok());
    CHECK(r->fqn == std::string(good).substr(0, std::string(good).find('=')));
  }
  for (const Bad& b : bad) {
    auto r = passes::parse_swap_option(b.text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::OPTION_INVALID);
    CHECK(r.error().message == b.message);
  }
  auto dup = passes::parse_swap_options({"a=x.pt2", "b=y.pt2", "a=z.pt2"});
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().message == "--swap names module 'a' more than once");
  auto two = passes::parse_swap_options({"a=x.pt2", "b.c=y.pt2"});
  REQUIRE(two.ok());
  CHECK(two->size() == 2);
  CHECK((*two)[1].fqn == "b.c");
}
