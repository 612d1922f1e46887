// Emitter unit tests on hand-lowered methods: graphs built with
// ProgramBuilder (memory.* nodes included), TensorSpecs and constant
// bindings set by the test. Each test asserts the exact values table and
// instructions (executorch-pipeline.md §3).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "emit/emitter_constants.h"
#include "emit/pte_decode.h"
#include "emitter_test_util.h"
#include "pte_test_util.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::alloc;
using pteforge::testing::bind_inline;
using pteforge::testing::bind_payload;
using pteforge::testing::describe_instructions;
using pteforge::testing::describe_values;
using pteforge::testing::emit_lowered;
using pteforge::testing::f32_bytes;
using pteforge::testing::Out;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::set_spec;
using pteforge::testing::share_spec;

namespace {

/// Specs for every tensor value of `ep` without one yet (unplanned, from metadata).
void default_specs(const ExportedProgram& ep, passes::MethodState& state) {
  auto add = [&](const std::string& name) {
    if (state.specs.get(name)) return;
    const TensorMeta* meta = ep.graph().tensor_meta(name);
    REQUIRE_MESSAGE(meta, name);
    auto spec = passes::spec_from_meta(*meta);
    REQUIRE(spec.ok());
    state.specs.set(name, std::make_shared<passes::TensorSpec>(std::move(spec).value()));
  };
  for (const Argument& in : ep.graph().inputs()) {
    for (const auto& n : passes::tensor_names(in)) add(n);
  }
  for (const Node& node : ep.graph()) {
    for (const Argument& o : node.outputs()) {
      for (const auto& n : passes::tensor_names(o)) add(n);
    }
  }
}

/// Appends a node with explicit inputs / outputs (for sym outputs and list outs).
void append(ProgramBuilder& b, const std::string& target, std::vector<NamedArgument> inputs,
            std::vector<Argument> outputs, const std::string& name) {
  b.program().graph().append(Node(OpTarget(target), std::move(inputs), std::move(outputs), name));
}

emit::ExecutionPlan emit_ok(const ExportedProgram& ep, const passes::MethodState& state,
                            emit::ProgramState& program, const emit::EmitOptions& options = {}) {
  auto r = emit_lowered(ep, state, program, options);
  if (!r.ok()) FAIL(r.error().to_string());
  return std::move(r).value().plan;
}

Error emit_error(const ExportedProgram& ep, const passes::MethodState& state) {
  emit::ProgramState program;
  auto r = emit_lowered(ep, state, program);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

/// r = relu.out(x, out=a) on float32[2], for tests that add graph inputs to it.
ExportedProgram relu_out_program() {
  ProgramBuilder b;
  b.input("x", ScalarType::Float, {2});
  alloc(b, "a", ScalarType::Float, {2});
  b.call("aten.relu.out", {arg_tensor("x")}, {ScalarType::Float, {2}}, {{"out", arg_tensor("a")}}, "r");
  b.output("r");
  return b.build();
}

/// The plan of a relu_out_program() `ep` (inputs may have been added): verified,
/// specs from the metadata, r sharing a's spec.
emit::ExecutionPlan emit_relu_out(const ExportedProgram& ep) {
  REQUIRE(verify_program(ep).ok());
  passes::MethodState state;
  default_specs(ep, state);
  share_spec(state, "r", "a");
  emit::ProgramState program;
  return emit_ok(ep, state, program);
}

}  // namespace

TEST_CASE("emitter: x + 1.0 lowered by hand gives arduino_add_model.pte's plan exactly (§7.1)") {
  ProgramBuilder b;
  b.buffer("c", "_lifted_tensor_constant0", ScalarType::Float, {});
  b.input("x", ScalarType::Float, {3});
  alloc(b, "alloc", ScalarType::Float, {3});
  b.call("aten.add.out", {arg_tensor("x"), arg_tensor("c")}, {ScalarType::Float, {3}}, {{"out", arg_tensor("alloc")}},
         "add");
  b.output("add");
  ExportedProgram ep = b.build();
  bind_inline(ep, "c", "_lifted_tensor_constant0", InputKind::Buffer, ScalarType::Float, {}, f32_bytes({1.0f}));
  passes::MethodState state;
  set_spec(state, "c", ScalarType::Float, {})->is_const = true;
  set_spec(state, "x", ScalarType::Float, {3}, 16);
  set_spec(state, "alloc", ScalarType::Float, {3}, 0);
  share_spec(state, "add", "alloc");
  state.non_const_buffer_sizes = {0, 32};
  state.debug_handles[ep.graph().find_node("add")] = 1;

  emit::ProgramState program;
  auto r = emit_lowered(ep, state, program);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  const emit::ExecutionPlan& plan = r->plan;
  CHECK(describe_values(plan) ==
        "0: Tensor FLOAT [] dim_order [] data 1\n"
        "1: Tensor FLOAT [3] dim_order [0] mem 1@16 data 0\n"
        "2: Tensor FLOAT [3] dim_order [0] mem 1@0 data 0\n"
        "3: Int 1\n");
  CHECK(describe_instructions(plan) == "aten::add.out(%1, %0, %3, %2, %2)\n");

  // Field by field against ExecuTorch's own file.
  std::string ref = emit::testing::read_file(emit::testing::reference_path("arduino_add_model.pte"));
  auto decoded = emit::decode_pte(ref);
  REQUIRE(decoded.ok());
  const emit::ExecutionPlan& want = decoded->program.execution_plan.at(0);
  CHECK(plan.values == want.values);
  CHECK(plan.inputs == want.inputs);
  CHECK(plan.outputs == want.outputs);
  CHECK(plan.chains == want.chains);
  CHECK(plan.operators == want.operators);
  CHECK(plan.delegates == want.delegates);
  CHECK(plan.non_const_buffer_sizes == want.non_const_buffer_sizes);
  CHECK(plan.container_meta_type.encoded_inp_str.empty());  // the builder has no call signature

  REQUIRE(program.constants.size() == 2);
  CHECK(program.constants.entries()[0].size() == 0);
  CHECK(program.constants.entries()[1] == emit::Chunk::from_bytes(f32_bytes({1.0f})));
  CHECK(program.mutable_data.size() == 1);
  REQUIRE(r->debug.debug_handles.size() == 1);
  CHECK(r->debug.debug_handles[0] == std::make_pair(int32_t{0}, int64_t{1}));
  REQUIRE(r->debug.planned.size() == 2);
  CHECK(r->debug.planned[0].value == 1);
  CHECK(r->debug.planned[0].names == std::vector<std::string>{"x"});
  CHECK(r->debug.planned[1].names == std::vector<std::string>{"alloc", "add"});
  CHECK(r->debug.planned[1].nbytes == 12);
}

TEST_CASE("emitter: every argument kind, defaults filled in, values in schema order (§3.5, §3.6)") {
  ProgramBuilder b;
  b.input("x", ScalarType::Float, {2, 3});
  b.input("i", ScalarType::Long, {2});
  b.input("c", ScalarType::Bool, {2, 3});
  b.input("x4", ScalarType::Float, {1, 1, 2, 3});
  // int[] → boxed IntList (Ints first)
  alloc(b, "a1", ScalarType::Float, {3, 2});
  b.call("aten.view_copy.out", {arg_tensor("x"), arg_ints({3, 2})}, {ScalarType::Float, {3, 2}},
         {{"out", arg_tensor("a1")}}, "view");
  // None for a non-optional Tensor → the empty tensor
  alloc(b, "a2", ScalarType::Float, {2, 3});
  b.call("aten.where.self_out", {arg_tensor("c"), arg_tensor("x"), arg_none()}, {ScalarType::Float, {2, 3}},
         {{"out", arg_tensor("a2")}}, "where");
  // str given, str default
  alloc(b, "a3", ScalarType::Float, {2, 3});
  b.call("aten.gelu.out", {arg_tensor("x")}, {ScalarType::Float, {2, 3}},
         {{"approximate", arg_string("tanh")}, {"out", arg_tensor("a3")}}, "gelu");
  alloc(b, "a4", ScalarType::Float, {2, 3});
  b.call("aten.gelu.out", {arg_tensor("x")}, {ScalarType::Float, {2, 3}}, {{"out", arg_tensor("a4")}}, "gelu_1");
  // memory_format → Int
  alloc(b, "a5", ScalarType::Float, {2, 3});
  b.call("aten.clone.out", {arg_tensor("x")}, {ScalarType::Float, {2, 3}},
         {{"memory_format", arg_memory_format(MemoryFormat::ContiguousFormat)}, {"out", arg_tensor("a5")}}, "clone");
  // Tensor?[] → OptionalTensorList with -1
  alloc(b, "a6", ScalarType::Float, {2, 2});
  std::vector<OptionalTensorArgument> indices = {OptionalTensorArgument{std::nullopt}, OptionalTensorArgument{"i"}};
  b.call("aten.index.Tensor_out", {arg_tensor("x"), Argument::make<ArgTag::OptionalTensors>(indices)},
         {ScalarType::Float, {2, 2}}, {{"out", arg_tensor("a6")}}, "index");
  // Tensor[] → TensorList; int default
  alloc(b, "a7", ScalarType::Float, {4, 3});
  b.call("aten.cat.out", {arg_tensors({"x", "x"})}, {ScalarType::Float, {4, 3}}, {{"out", arg_tensor("a7")}}, "cat");
  // int[1]? given, bool default, dtype → Int(ScalarType code)
  alloc(b, "a8", ScalarType::Float, {2});
  b.call("aten.sum.IntList_out", {arg_tensor("x"), arg_ints({1})}, {ScalarType::Float, {2}},
         {{"dtype", arg_dtype(ScalarType::Float)}, {"out", arg_tensor("a8")}}, "sum");
  // -inf as a Scalar
  alloc(b, "a9", ScalarType::Float, {2, 3});
  b.call("aten.full.out", {arg_ints({2, 3}), arg_float(-std::numeric_limits<double>::infinity())},
         {ScalarType::Float, {2, 3}}, {{"out", arg_tensor("a9")}}, "full");
  // float[] → DoubleList inline; None for SymInt[]? → Null; a functional op returns its spec's value
  b.call("aten.upsample_nearest2d.vec", {arg_tensor("x4"), arg_none(), arg_floats({2.0, 2.0})},
         {ScalarType::Float, {1, 1, 4, 6}}, {}, "up");
  // bool[3] → BoolList inline; Tensor? None → Null; three results → TensorList return slot
  b.call_multi("aten.native_layer_norm_backward.default",
               {arg_tensor("x"), arg_tensor("x"), arg_ints({3}), arg_tensor("x"), arg_tensor("x"), arg_none(),
                arg_none(), Argument::make<ArgTag::Bools>(std::vector<bool>{true, false, true})},
               {Out{ScalarType::Float, {2, 3}}, Out{ScalarType::Float, {3}}, Out{ScalarType::Float, {3}}},
               {"g0", "g1", "g2"});
  b.output("up");
  ExportedProgram ep = b.build();
  passes::MethodState state;
  default_specs(ep, state);
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"view", "a1"}, {"where", "a2"}, {"gelu", "a3"}, {"gelu_1", "a4"}, {"clone", "a5"},
      {"index", "a6"}, {"cat", "a7"},  {"sum", "a8"},  {"full", "a9"}};
  for (const auto& [result, a] : pairs) share_spec(state, result, a);

  emit::ProgramState program;
  emit::ExecutionPlan plan = emit_ok(ep, state, program);
  CHECK(describe_values(plan) ==
        "0: Tensor FLOAT [2, 3] dim_order [0, 1] data 0\n"
        "1: Tensor LONG [2] dim_order [0] data 0\n"
        "2: Tensor BOOL [2, 3] dim_order [0, 1] data 0\n"
        "3: Tensor FLOAT [1, 1, 2, 3] dim_order [0, 1, 2, 3] data 0\n"
        "4: Tensor FLOAT [3, 2] dim_order [0, 1] data 0\n"
        "5: Int 3\n"
        "6: Int 2\n"
        "7: IntList [5, 6]\n"
        "8: Tensor FLOAT [2, 3] dim_order [0, 1] data 0\n"
        "9: Tensor BYTE [0] dim_order [0] data 0\n"
        "10: Tensor FLOAT [2, 3] dim_order [0, 1] data 0\n"
        "11: String tanh\n"
        "12: Tensor FLOAT [2, 3] dim_order [0, 1] data 0\n"
        "13: String none\n"
        "14: Tensor FLOAT [2, 3] dim_order [0, 1] data 0\n"
        "15: Int 0\n"
        "16: Tensor FLOAT [2, 2] dim_order [0, 1] data 0\n"
        "17: OptionalTensorList [-1, 1]\n"
        "18: Tensor FLOAT [4, 3] dim_order [0, 1] data 0\n"
        "19: TensorList [0, 0]\n"
        "20: Int 0\n"
        "21: Tensor FLOAT [2] dim_order [0] data 0\n"
        "22: Int 1\n"
        "23: IntList [22]\n"
        "24: Bool false\n"
        "25: Int 6\n"
        "26: Tensor FLOAT [2, 3] dim_order [0, 1] data 0\n"
        "27: Int 2\n"
        "28: Int 3\n"
        "29: IntList [27, 28]\n"
        "30: Double -inf\n"
        "31: Null\n"
        "32: DoubleList [2, 2]\n"
        "33: Tensor FLOAT [1, 1, 4, 6] dim_order [0, 1, 2, 3] data 0\n"
        "34: Int 3\n"
        "35: IntList [34]\n"
        "36: Null\n"
        "37: Null\n"
        "38: BoolList [true, false, true]\n"
        "39: Tensor FLOAT [2, 3] dim_order [0, 1] data 0\n"
        "40: Tensor FLOAT [3] dim_order [0] data 0\n"
        "41: Tensor FLOAT [3] dim_order [0] data 0\n"
        "42: TensorList [39, 40, 41]\n");
  CHECK(describe_instructions(plan) ==
        "aten::view_copy.out(%0, %7, %4, %4)\n"
        "aten::where.self_out(%2, %0, %9, %8, %8)\n"
        "aten::gelu.out(%0, %11, %10, %10)\n"
        "aten::gelu.out(%0, %13, %12, %12)\n"
        "aten::clone.out(%0, %15, %14, %14)\n"
        "aten::index.Tensor_out(%0, %17, %16, %16)\n"
        "aten::cat.out(%19, %20, %18, %18)\n"
        "aten::sum.IntList_out(%0, %23, %24, %25, %21, %21)\n"
        "aten::full.out(%29, %30, %26, %26)\n"
        "aten::upsample_nearest2d.vec(%3, %31, %32, %33)\n"
        "aten::native_layer_norm_backward(%0, %0, %35, %0, %0, %36, %37, %38, %42)\n");
  // Operators deduplicated in first-use order; the default overload is "".
  REQUIRE(plan.operators.size() == 10);
  CHECK(plan.operators[2] == emit::Operator{"aten::gelu", "out"});
  CHECK(plan.operators[9] == emit::Operator{"aten::native_layer_norm_backward", ""});
  CHECK(plan.inputs == std::vector<int32_t>{0, 1, 2, 3});
  CHECK(plan.outputs == std::vector<int32_t>{33});
  CHECK(plan.non_const_buffer_sizes == std::vector<int64_t>{0});
}

TEST_CASE("emitter: several outs return through a TensorList, a Tensor(a!)[] out is repeated as a new list (§3.5)") {
  ProgramBuilder b;
  b.input("x", ScalarType::Float, {4, 2});
  alloc(b, "am", ScalarType::Float, {4});
  alloc(b, "ai", ScalarType::Long, {4});
  b.call_multi("aten.max.dim_max", {arg_tensor("x"), arg_int(1)},
               {Out{ScalarType::Float, {4}}, Out{ScalarType::Long, {4}}}, {"values", "indices"},
               {{"max", arg_tensor("am")}, {"max_values", arg_tensor("ai")}});
  // memory.alloc defining a list (split_copy.Tensor_out's Tensor(a!)[] out).
  b.program().graph().append(Node(passes::memory_alloc_target(),
                                  {positional("size", Argument::make<ArgTag::IntLists>(
                                                          std::vector<std::vector<int64_t>>{{2, 2}, {2, 2}})),
                                   positional("dtype", arg_dtype(ScalarType::Float))},
                                  {arg_tensors({"s0", "s1"})}, "alloc_split"));
  b.program().graph().set_tensor_meta("s0", testing::make_meta(Out{ScalarType::Float, {2, 2}}));
  b.program().graph().set_tensor_meta("s1", testing::make_meta(Out{ScalarType::Float, {2, 2}}));
  append(b, "torch.ops.aten.split_copy.Tensor_out",
         {positional("self", arg_tensor("x")), positional("split_size", arg_int(2)), keyword("out", arg_tensors({"s0", "s1"}))},
         {}, "split");
  b.output("values");
  b.output("s1");
  ExportedProgram ep = b.build();
  passes::MethodState state;
  default_specs(ep, state);
  share_spec(state, "values", "am");
  share_spec(state, "indices", "ai");
  emit::ProgramState program;
  emit::ExecutionPlan plan = emit_ok(ep, state, program);
  CHECK(describe_values(plan) ==
        "0: Tensor FLOAT [4, 2] dim_order [0, 1] data 0\n"
        "1: Tensor FLOAT [4] dim_order [0] data 0\n"
        "2: Tensor LONG [4] dim_order [0] data 0\n"
        "3: Int 1\n"
        "4: Bool false\n"
        "5: TensorList [1, 2]\n"
        "6: Tensor FLOAT [2, 2] dim_order [0, 1] data 0\n"
        "7: Tensor FLOAT [2, 2] dim_order [0, 1] data 0\n"
        "8: Int 2\n"
        "9: Int 0\n"
        "10: TensorList [6, 7]\n"
        "11: TensorList [6, 7]\n");
  CHECK(describe_instructions(plan) ==
        "aten::max.dim_max(%0, %3, %4, %1, %2, %5)\n"
        "aten::split_copy.Tensor_out(%0, %8, %9, %10, %11)\n");
  CHECK(plan.outputs == std::vector<int32_t>{1, 7});
}

TEST_CASE("emitter: symbolic ops return a new Int(0), SymInts are reused inside int lists, prim ops (§3.8)") {
  ProgramBuilder b;
  b.input("x", ScalarType::Float, {2, 3});
  append(b, "torch.ops.aten.sym_size.int", {positional("self", arg_tensor("x")), positional("dim", arg_int(1))},
         {arg_sym_int("s")}, "s");
  b.program().graph().set_sym_int("s", SymInt(int64_t{3}));
  append(b, "torch.ops.executorch_prim.mul.Scalar", {positional("a", arg_sym_int("s")), positional("b", arg_int(2))},
         {arg_sym_int("m")}, "m");
  b.program().graph().set_sym_int("m", SymInt(int64_t{6}));
  alloc(b, "a", ScalarType::Float, {3, 2});
  std::vector<SymIntArgument> size = {SymIntArgument{std::string("s"), 0}, SymIntArgument{std::nullopt, 2}};
  b.call("aten.view_copy.out", {arg_tensor("x"), Argument::make<ArgTag::SymInts>(size)}, {ScalarType::Float, {3, 2}},
         {{"out", arg_tensor("a")}}, "v");
  b.output("v");
  ExportedProgram ep = b.build();
  ep.graph_module.graph.add_output(arg_sym_int("m"));
  OutputSpec o;
  o.arg = arg_sym_int("m");
  ep.signature().output_specs.push_back(o);
  passes::MethodState state;
  default_specs(ep, state);
  share_spec(state, "v", "a");
  emit::ProgramState program;
  emit::ExecutionPlan plan = emit_ok(ep, state, program);
  CHECK(describe_values(plan) ==
        "0: Tensor FLOAT [2, 3] dim_order [0, 1] data 0\n"
        "1: Int 1\n"
        "2: Int 0\n"
        "3: Int 2\n"
        "4: Int 0\n"
        "5: Tensor FLOAT [3, 2] dim_order [0, 1] data 0\n"
        "6: Int 2\n"
        "7: IntList [2, 6]\n");
  CHECK(describe_instructions(plan) ==
        "aten::sym_size.int(%0, %1, %2)\n"
        "executorch_prim::mul.Scalar(%2, %3, %4)\n"
        "aten::view_copy.out(%0, %7, %5, %5)\n");
  CHECK(plan.outputs == std::vector<int32_t>{5, 4});
}

TEST_CASE(
    "emitter: constant inputs keep an int or float or bool and a string or None becomes Null (SpecPropPass "
    "§1.3 B3)") {
  ExportedProgram ep = relu_out_program();
  const std::vector<std::pair<std::string, Argument>> constants = {{"i", arg_int(3)},
                                                                   {"f", arg_float(0.5)},
                                                                   {"t", arg_bool(true)},
                                                                   {"s", arg_string("hi")},
                                                                   {"n", arg_none()}};
  for (const auto& [name, value] : constants) {
    ep.graph().insert_input(ep.graph().inputs().size(), value);
    InputSpec spec;
    spec.kind = InputKind::ConstantInput;
    spec.arg = value;
    spec.constant_name = name;
    ep.signature().input_specs.push_back(spec);
  }
  emit::ExecutionPlan plan = emit_relu_out(ep);
  CHECK(describe_values(plan).rfind("0: Tensor FLOAT [2] dim_order [0] data 0\n"
                                    "1: Int 3\n"
                                    "2: Double 0.5\n"
                                    "3: Bool true\n"
                                    "4: Null\n"
                                    "5: Null\n",
                                    0) == 0);
  CHECK(plan.inputs == std::vector<int32_t>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("emitter: a SymInt user input is Null, or its Int when the program gives it a concrete value") {
  for (bool concrete : {false, true}) {
    CAPTURE(concrete);
    ExportedProgram ep = relu_out_program();
    ep.graph().set_sym_int("n",
                           concrete ? SymInt(int64_t{3}) : SymInt(SymExpr{"s0", SymExprHint::of_int(3)}));
    ep.graph().insert_input(1, arg_sym_int("n"));
    InputSpec spec;
    spec.kind = InputKind::UserInput;
    spec.arg = arg_sym_int("n");
    ep.signature().input_specs.push_back(spec);
    emit::ExecutionPlan plan = emit_relu_out(ep);
    CHECK(describe_values(plan).rfind(std::string("0: Tensor FLOAT [2] dim_order [0] data 0\n") +
                                          (concrete ? "1: Int 3\n" : "1: Null\n"),
                                      0) == 0);
    CHECK(plan.inputs == std::vector<int32_t>{0, 1});
  }
}

TEST_CASE("emitter: buffer mutation is copy_(buf, src, false, buf), not an output, --init-buffers stores its data (§3.11, §2.6)") {
  for (bool init : {false, true}) {
    CAPTURE(init);
    ProgramBuilder b;
    b.buffer("b_total", "total", ScalarType::Float, {3});
    b.input("x", ScalarType::Float, {3});
    alloc(b, "a", ScalarType::Float, {3});
    b.call("aten.add.out", {arg_tensor("b_total"), arg_tensor("x")}, {ScalarType::Float, {3}},
           {{"out", arg_tensor("a")}}, "add");
    b.call("aten.copy_.default", {arg_tensor("b_total"), arg_tensor("add")}, {ScalarType::Float, {3}}, {}, "copy_");
    b.output("copy_", OutputKind::BufferMutation, "total");
    b.output("add");
    ExportedProgram ep = b.build();
    bind_inline(ep, "b_total", "total", InputKind::Buffer, ScalarType::Float, {3}, f32_bytes({1, 2, 3}));
    passes::MethodState state;
    set_spec(state, "b_total", ScalarType::Float, {3}, 0)->is_mutable_buffer = true;
    set_spec(state, "x", ScalarType::Float, {3}, 16);
    set_spec(state, "a", ScalarType::Float, {3}, 32);
    share_spec(state, "add", "a");
    share_spec(state, "copy_", "b_total");
    state.non_const_buffer_sizes = {0, 48};
    CHECK(emit::user_outputs(ep).size() == 1);
    emit::ProgramState program;
    emit::EmitOptions options;
    options.init_buffers = init;
    emit::ExecutionPlan plan = emit_ok(ep, state, program, options);
    CHECK(describe_values(plan) == std::string("0: Tensor FLOAT [3] dim_order [0] mem 1@0 data ") + (init ? "1" : "0") +
                                       "\n"
                                       "1: Tensor FLOAT [3] dim_order [0] mem 1@16 data 0\n"
                                       "2: Tensor FLOAT [3] dim_order [0] mem 1@32 data 0\n"
                                       "3: Int 1\n"
                                       "4: Bool false\n");
    CHECK(describe_instructions(plan) ==
          "aten::add.out(%0, %1, %3, %2, %2)\n"
          "aten::copy_(%0, %2, %4, %0)\n");
    CHECK(plan.inputs == std::vector<int32_t>{1});
    CHECK(plan.outputs == std::vector<int32_t>{2});
    CHECK(program.constants.size() == 1);
    REQUIRE(program.mutable_data.size() == (init ? 2u : 1u));
    if (init) CHECK(program.mutable_data.entries()[1] == emit::Chunk::from_bytes(f32_bytes({1, 2, 3})));
  }
}

TEST_CASE("emitter: a static planned memory.view is elided, a dynamic one calls et_view (§3.7)") {
  for (bool dynamic : {false, true}) {
    CAPTURE(dynamic);
    ProgramBuilder b;
    b.input("x", ScalarType::Float, {2, 3});
    alloc(b, "a", ScalarType::Float, {2, 3});
    b.call("aten.relu.out", {arg_tensor("x")}, {ScalarType::Float, {2, 3}}, {{"out", arg_tensor("a")}}, "r");
    b.program().graph().append(Node(passes::memory_view_target(),
                                    {positional("self", arg_tensor("r")), positional("size", arg_ints({6}))},
                                    {arg_tensor("v")}, "v"));
    b.program().graph().set_tensor_meta("v", testing::make_meta(Out{ScalarType::Float, {6}}));
    alloc(b, "a2", ScalarType::Float, {6});
    b.call("aten.relu.out", {arg_tensor("v")}, {ScalarType::Float, {6}}, {{"out", arg_tensor("a2")}}, "r2");
    b.output("r2");
    ExportedProgram ep = b.build();
    passes::MethodState state;
    set_spec(state, "x", ScalarType::Float, {2, 3}, 32);
    auto base = set_spec(state, "a", ScalarType::Float, {2, 3}, 0);
    share_spec(state, "r", "a");
    auto view = set_spec(state, "v", ScalarType::Float, {6}, 0);
    view->base = base;
    if (dynamic) view->dynamism = passes::ShapeDynamism::DynamicBound;
    set_spec(state, "a2", ScalarType::Float, {6}, 32);
    share_spec(state, "r2", "a2");
    emit::ProgramState program;
    emit::ExecutionPlan plan = emit_ok(ep, state, program);
    if (!dynamic) {
      CHECK(describe_values(plan) ==
            "0: Tensor FLOAT [2, 3] dim_order [0, 1] mem 1@32 data 0\n"
            "1: Tensor FLOAT [2, 3] dim_order [0, 1] mem 1@0 data 0\n"
            "2: Tensor FLOAT [6] dim_order [0] mem 1@0 data 0\n"
            "3: Tensor FLOAT [6] dim_order [0] mem 1@32 data 0\n");
      CHECK(describe_instructions(plan) ==
            "aten::relu.out(%0, %1, %1)\n"
            "aten::relu.out(%2, %3, %3)\n");
    } else {
      CHECK(describe_values(plan) ==
            "0: Tensor FLOAT [2, 3] dim_order [0, 1] mem 1@32 data 0\n"
            "1: Tensor FLOAT [2, 3] dim_order [0, 1] mem 1@0 data 0\n"
            "2: Int 6\n"
            "3: IntList [2]\n"
            "4: Tensor FLOAT [6] dim_order [0] mem 1@0 data 0 dynamic\n"
            "5: Tensor FLOAT [6] dim_order [0] mem 1@32 data 0\n");
      CHECK(describe_instructions(plan) ==
            "aten::relu.out(%0, %1, %1)\n"
            "executorch_prim::et_view.default(%1, %3, %4)\n"
            "aten::relu.out(%4, %5, %5)\n");
    }
  }
}

TEST_CASE("emitter: constants dedup by bytes program-wide, dense payloads are referenced, others made contiguous (§2.5, §3.4)") {
  // Payloads: w0 and w1 hold the same 16 bytes, w2 holds 0,1,2,3, w3 is 8 floats.
  std::vector<std::pair<std::string, std::string>> inputs = {
      {"data/weights/w0", emit::testing::to_string(f32_bytes({3, 3, 3, 3}))},
      {"data/weights/w1", emit::testing::to_string(f32_bytes({3, 3, 3, 3}))},
      {"data/weights/w2", emit::testing::to_string(f32_bytes({0, 1, 2, 3}))},
      {"data/weights/w3", emit::testing::to_string(f32_bytes({0, 1, 2, 3, 4, 5, 6, 7}))}};
  ProgramBuilder b;
  b.parameter("p0", "p0", ScalarType::Float, {2, 2});
  b.parameter("p1", "p1", ScalarType::Float, {4});
  b.parameter("p2", "p2", ScalarType::Float, {2, 2});
  b.parameter("p3", "p3", ScalarType::Float, {2, 2});
  b.parameter("p4", "p4", ScalarType::Float, {1, 2, 2, 2});
  b.input("x", ScalarType::Float, {2, 2});
  b.output("x");
  ExportedProgram ep = b.build();
  bind_payload(ep, "p0", "p0", InputKind::Parameter, ScalarType::Float, {2, 2}, {2, 1}, "w0", 16);
  bind_payload(ep, "p1", "p1", InputKind::Parameter, ScalarType::Float, {4}, {1}, "w1", 16);
  bind_payload(ep, "p2", "p2", InputKind::Parameter, ScalarType::Float, {2, 2}, {2, 1}, "w2", 16);
  bind_payload(ep, "p3", "p3", InputKind::Parameter, ScalarType::Float, {2, 2}, {1, 2}, "w2", 16);  // transposed
  bind_payload(ep, "p4", "p4", InputKind::Parameter, ScalarType::Float, {1, 2, 2, 2}, {8, 1, 4, 2}, "w3", 32);
  passes::MethodState state;
  for (const char* p : {"p0", "p2", "p3"}) set_spec(state, p, ScalarType::Float, {2, 2})->is_const = true;
  set_spec(state, "p1", ScalarType::Float, {4})->is_const = true;
  set_spec(state, "p4", ScalarType::Float, {1, 2, 2, 2})->is_const = true;
  set_spec(state, "x", ScalarType::Float, {2, 2});

  emit::ProgramState program(emit::testing::memory_reader(&inputs));
  auto r = emit_lowered(ep, state, program);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  CHECK(describe_values(r->plan) ==
        "0: Tensor FLOAT [2, 2] dim_order [0, 1] data 1\n"
        "1: Tensor FLOAT [4] dim_order [0] data 1\n"
        "2: Tensor FLOAT [2, 2] dim_order [0, 1] data 2\n"
        "3: Tensor FLOAT [2, 2] dim_order [0, 1] data 3\n"
        "4: Tensor FLOAT [1, 2, 2, 2] dim_order [0, 2, 3, 1] data 4\n"
        "5: Tensor FLOAT [2, 2] dim_order [0, 1] data 0\n");
  const auto& e = program.constants.entries();
  REQUIRE(e.size() == 5);
  CHECK(e[1] == emit::Chunk::from_range("data/weights/w0", 0, 16));
  CHECK(e[2] == emit::Chunk::from_range("data/weights/w2", 0, 16));
  CHECK(e[3] == emit::Chunk::from_bytes(f32_bytes({0, 2, 1, 3})));  // row-major copy of the transpose
  CHECK(e[4] == emit::Chunk::from_range("data/weights/w3", 0, 32));
  CHECK(r->debug.relaid_out_constants == std::vector<std::string>{"p3"});
  CHECK(r->plan.inputs == std::vector<int32_t>{5});
}

TEST_CASE("emitter: errors name the node and method") {
  SUBCASE("a weight the input cannot give") {
    ProgramBuilder b;
    b.parameter("p0", "p0", ScalarType::Float, {4});
    b.input("x", ScalarType::Float, {4});
    b.output("x");
    ExportedProgram ep = b.build();
    bind_payload(ep, "p0", "p0", InputKind::Parameter, ScalarType::Float, {4}, {1}, "w0", 16);
    passes::MethodState state;
    set_spec(state, "p0", ScalarType::Float, {4})->is_const = true;
    set_spec(state, "x", ScalarType::Float, {4});
    const std::vector<std::pair<std::string, std::string>> no_inputs;
    emit::ProgramState program(emit::testing::memory_reader(&no_inputs));
    auto r = emit_lowered(ep, state, program);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == "unknown source data/weights/w0");  // the reader's own words
    CHECK(r.error().where.node == "p0");
    CHECK(r.error().where.method == "forward");
  }
  SUBCASE("device argument") {
    ProgramBuilder b;
    b.call("aten.full.default", {arg_ints({2}), arg_float(1.0)}, {ScalarType::Float, {2}},
           {{"device", arg_device(Device{})}}, "full");
    b.output("full");
    ExportedProgram ep = b.build();
    passes::MethodState state;
    default_specs(ep, state);
    Error e = emit_error(ep, state);
    CHECK(e.code == ErrorCode::UNSUPPORTED_FEATURE);
    CHECK(e.where.node == "full");
    CHECK(e.where.method == "forward");
  }
  SUBCASE("higher-order ops, by torch.ops.higher_order and by module path; other Python callables") {
    const std::pair<const char*, const char*> cases[] = {
        {"torch.ops.higher_order.cond",
         "higher-order op torch.ops.higher_order.cond (delegate calls and control flow) cannot be emitted "
         "yet"},
        {"torch._higher_order_ops.with_effects.with_effects",
         "higher-order op torch._higher_order_ops.with_effects.with_effects (delegate calls and control "
         "flow) "
         "cannot be emitted yet"},
        {"torch.sym_max",
         "call of torch.sym_max cannot be emitted: only operator calls reach a .pte (symbolic arithmetic "
         "needs "
         "edge_to_backend_ops)"},
        {"mylib.helpers.fn",
         "call of mylib.helpers.fn cannot be emitted: only operator calls reach a .pte (symbolic arithmetic "
         "needs "
         "edge_to_backend_ops)"},
    };
    for (const auto& c : cases) {
      const std::string target = c.first;  // not a structured binding: clang 14 cannot capture one
      const std::string message = c.second;
      CAPTURE(target);
      ProgramBuilder b;
      b.input("x", ScalarType::Float, {2});
      b.call("aten.relu.default", {arg_tensor("x")}, {ScalarType::Float, {2}}, {}, "op");
      b.output("op");
      ExportedProgram ep = b.build();
      for (ir::Node& n : ep.graph()) n.set_target(ir::OpTarget(target));
      passes::MethodState state;
      default_specs(ep, state);
      Error e = emit_error(ep, state);
      CHECK(e.code == ErrorCode::UNSUPPORTED_FEATURE);
      CHECK(e.message == message);
      CHECK(e.where.node == "op");
    }
  }
  SUBCASE("channels_last memory format") {
    ProgramBuilder b;
    b.input("x", ScalarType::Float, {1, 2, 2, 2});
    b.call("aten.clone.default", {arg_tensor("x")}, {ScalarType::Float, {1, 2, 2, 2}},
           {{"memory_format", arg_memory_format(MemoryFormat::ChannelsLast)}}, "clone");
    b.output("clone");
    ExportedProgram ep = b.build();
    passes::MethodState state;
    default_specs(ep, state);
    Error e = emit_error(ep, state);
    CHECK(e.code == ErrorCode::UNSUPPORTED_FEATURE);
    CHECK(e.where.node == "clone");
  }
  SUBCASE("a dtype the .pte schema lacks (complex): at the node, not by the serializer") {
    ProgramBuilder b;
    b.input("x", ScalarType::ComplexFloat, {2});
    b.call("aten.relu.default", {arg_tensor("x")}, {ScalarType::Float, {2}}, {}, "relu");
    b.output("relu");
    ExportedProgram ep = b.build();
    passes::MethodState state;
    default_specs(ep, state);
    Error e = emit_error(ep, state);
    CHECK(e.code == ErrorCode::UNSUPPORTED_FEATURE);
    CHECK(e.message == "tensors of dtype complex64 cannot be written to a .pte (ExecuTorch has no mapping)");
    CHECK(e.where.node == "x");
    CHECK(e.where.method == "forward");
    CHECK_FALSE(e.where.pointer.has_value());
  }
  SUBCASE("rank above 16") {
    for (size_t rank : {size_t{16}, size_t{17}}) {
      CAPTURE(rank);
      ProgramBuilder b;
      b.input("x", ScalarType::Float, std::vector<int64_t>(rank, 1));
      b.call("aten.relu.default", {arg_tensor("x")}, {ScalarType::Float, std::vector<int64_t>(rank, 1)}, {}, "relu");
      b.output("relu");
      ExportedProgram ep = b.build();
      passes::MethodState state;
      default_specs(ep, state);
      emit::ProgramState program;
      auto r = emit_lowered(ep, state, program);
      if (rank == 16) {
        CHECK((r.ok() || r.error().code != ErrorCode::EMIT_LIMIT));
        continue;
      }
      REQUIRE_FALSE(r.ok());
      const Error& e = r.error();
      CHECK(e.code == ErrorCode::EMIT_LIMIT);
      CHECK(e.message == "a tensor of rank 17: ExecuTorch tensors have at most 16 dimensions");
      CHECK(e.where.method == "forward");
    }
  }
  SUBCASE("no spec") {
    ProgramBuilder b;
    b.input("x", ScalarType::Float, {2});
    b.output("x");
    ExportedProgram ep = b.build();
    passes::MethodState state;
    CHECK(emit_error(ep, state).code == ErrorCode::PASS_PRECONDITION);
  }
  SUBCASE("constant without bound bytes") {
    ProgramBuilder b;
    b.parameter("p_w", "w", ScalarType::Float, {2});
    b.input("x", ScalarType::Float, {2});
    b.output("x");
    ExportedProgram ep = b.build();
    passes::MethodState state;
    default_specs(ep, state);
    Error e = emit_error(ep, state);
    CHECK(e.code == ErrorCode::WEIGHTS_MISSING);
    CHECK(e.where.node == "p_w");
  }
  SUBCASE("unplanned mutable buffer") {
    ProgramBuilder b;
    b.buffer("b_n", "n", ScalarType::Float, {2});
    b.call("aten.copy_.default", {arg_tensor("b_n"), arg_tensor("b_n")}, {ScalarType::Float, {2}}, {}, "copy_");
    b.output("copy_", OutputKind::BufferMutation, "n");
    ExportedProgram ep = b.build();
    passes::MethodState state;
    default_specs(ep, state);
    Error e = emit_error(ep, state);
    CHECK(e.code == ErrorCode::UNSUPPORTED_FEATURE);
    CHECK(e.where.node == "b_n");
  }
  SUBCASE("python callable left in the graph") {
    ProgramBuilder b;
    b.input("x", ScalarType::Float, {2});
    append(b, "torch.ops.aten.sym_size.int", {positional("self", arg_tensor("x")), positional("dim", arg_int(0))},
           {arg_sym_int("s")}, "s");
    b.program().graph().set_sym_int("s", SymInt(int64_t{2}));
    append(b, "_operator.mul", {positional("", arg_sym_int("s")), positional("", arg_int(2))}, {arg_sym_int("m")}, "m");
    b.program().graph().set_sym_int("m", SymInt(int64_t{4}));
    b.output("x");
    ExportedProgram ep = b.build();
    passes::MethodState state;
    default_specs(ep, state);
    Error e = emit_error(ep, state);
    CHECK(e.code == ErrorCode::UNSUPPORTED_FEATURE);
    CHECK(e.where.node == "m");
  }
}

TEST_CASE("emitter: user_outputs flattens like pytree and zips with the output specs (seed 001)") {
  ProgramBuilder b;
  b.buffer("b_n", "n", ScalarType::Float, {2});
  b.input("x", ScalarType::Float, {2});
  b.output("b_n", OutputKind::BufferMutation, "n");
  b.output("x");
  ExportedProgram ep = b.build();
  std::vector<Argument> user = emit::user_outputs(ep);
  REQUIRE(user.size() == 1);
  CHECK(user[0] == arg_tensor("x"));
  // A None output disappears in the flatten, which shifts the pairing: the
  // buffer-mutation spec now pairs with x, and b_n becomes a user output,
  // exactly as ExecuTorch's _remove_non_user_outputs computes it.
  ep.graph().set_outputs({arg_none(), arg_tensor("b_n"), arg_tensor("x")});
  OutputSpec none_spec;
  none_spec.arg = arg_none();
  ep.signature().output_specs.insert(ep.signature().output_specs.begin(), none_spec);
  user = emit::user_outputs(ep);
  REQUIRE(user.size() == 1);
  CHECK(user[0] == arg_tensor("b_n"));
}

TEST_CASE("emitter: stack traces become frames, a trace per kernel call with --emit-stacktrace (§3.15)") {
  emit::FrameList f = emit::stacktrace_to_frames(
      "  File \"/m/model.py\", line 12, in forward\n"
      "    return x + 1.0\n"
      "  File \"/m/lib.py\", line 3, in helper\n"
      "  File \"/m/lib.py\", line 9, in inner\n"
      "    y = f(x)  \n");
  REQUIRE(f.items.size() == 3);
  CHECK(f.items[0] == emit::Frame{"/m/model.py", 12, "forward", "return x + 1.0"});
  CHECK(f.items[1] == emit::Frame{"/m/lib.py", 3, "helper", ""});
  CHECK(f.items[2] == emit::Frame{"/m/lib.py", 9, "inner", "y = f(x)"});
  CHECK(emit::stacktrace_to_frames("").items.empty());
  // As ExecuTorch's pattern File "(.*?)", line (\d+), in (.*?)\n: a frame line
  // needs its newline, the name is kept as written, the match may start
  // anywhere in the line, and the file name is the shortest that fits.
  CHECK(emit::stacktrace_to_frames("  File \"a.py\", line 3, in forward").items.empty());
  f = emit::stacktrace_to_frames("x File \"a\", line z\", line 3, in f  \n");
  REQUIRE(f.items.size() == 1);
  CHECK(f.items[0] == emit::Frame{"a\", line z", 3, "f  ", ""});
  // Python 3.11 marker lines between frames: each frame keeps its own source
  // line (ExecuTorch's emitter would take every second line; README).
  f = emit::stacktrace_to_frames(
      "  File \"/m/model.py\", line 12, in forward\n"
      "    return torch.tanh(x)\n"
      "           ^^^^^^^^^^^^^\n"
      "  File \"/m/b.py\", line 9, in f\n"
      "    return g(x)\n");
  REQUIRE(f.items.size() == 2);
  CHECK(f.items[0] == emit::Frame{"/m/model.py", 12, "forward", "return torch.tanh(x)"});
  CHECK(f.items[1] == emit::Frame{"/m/b.py", 9, "f", "return g(x)"});

  ProgramBuilder b;
  b.input("x", ScalarType::Float, {2});
  alloc(b, "a", ScalarType::Float, {2});
  b.call("aten.relu.out", {arg_tensor("x")}, {ScalarType::Float, {2}}, {{"out", arg_tensor("a")}}, "r");
  // A node without a stack trace (like an inserted buffer write-back): an
  // empty frame list keeps one entry per instruction (README).
  alloc(b, "a2", ScalarType::Float, {2});
  b.call("aten.relu.out", {arg_tensor("r")}, {ScalarType::Float, {2}}, {{"out", arg_tensor("a2")}}, "r2");
  b.output("r2");
  ExportedProgram ep = b.build();
  ep.graph().find_node("r")->metadata().stack_trace =
      std::make_shared<const std::string>("File \"a.py\", line 1, in f\n    relu(x)\n");
  passes::MethodState state;
  default_specs(ep, state);
  share_spec(state, "r", "a");
  share_spec(state, "r2", "a2");
  emit::ProgramState program;
  emit::EmitOptions options;
  options.emit_stacktrace = true;
  emit::ExecutionPlan plan = emit_ok(ep, state, program, options);
  REQUIRE(plan.chains[0].instructions.size() == 2);
  REQUIRE(plan.chains[0].stacktrace.has_value());
  REQUIRE(plan.chains[0].stacktrace->size() == 2);
  CHECK((*plan.chains[0].stacktrace)[0].items == std::vector<emit::Frame>{emit::Frame{"a.py", 1, "f", "relu(x)"}});
  CHECK((*plan.chains[0].stacktrace)[1].items.empty());
  emit::ProgramState program2;
  CHECK_FALSE(emit_ok(ep, state, program2).chains[0].stacktrace.has_value());
}

TEST_CASE("emitter: a view of a constant shares its data entry, without an instruction (§3.7)") {
  ProgramBuilder b;
  b.parameter("p_w", "w", ScalarType::Float, {2, 3});
  b.input("x", ScalarType::Float, {6});
  b.program().graph().append(Node(passes::memory_view_target(),
                                  {positional("self", arg_tensor("p_w")), positional("size", arg_ints({6}))},
                                  {arg_tensor("v")}, "v"));
  b.program().graph().set_tensor_meta("v", testing::make_meta(Out{ScalarType::Float, {6}}));
  alloc(b, "a", ScalarType::Float, {6});
  b.call("aten.add.out", {arg_tensor("x"), arg_tensor("v")}, {ScalarType::Float, {6}}, {{"out", arg_tensor("a")}},
         "add");
  b.output("add");
  ExportedProgram ep = b.build();
  bind_inline(ep, "p_w", "w", InputKind::Parameter, ScalarType::Float, {2, 3}, f32_bytes({1, 2, 3, 4, 5, 6}));
  passes::MethodState state;
  auto w = set_spec(state, "p_w", ScalarType::Float, {2, 3});
  w->is_const = true;
  set_spec(state, "x", ScalarType::Float, {6}, 0);
  auto v = set_spec(state, "v", ScalarType::Float, {6});
  v->base = w;
  v->is_const = true;
  set_spec(state, "a", ScalarType::Float, {6}, 32);
  share_spec(state, "add", "a");
  emit::ProgramState program;
  emit::ExecutionPlan plan = emit_ok(ep, state, program);
  CHECK(describe_values(plan) ==
        "0: Tensor FLOAT [2, 3] dim_order [0, 1] data 1\n"
        "1: Tensor FLOAT [6] dim_order [0] mem 1@0 data 0\n"
        "2: Tensor FLOAT [6] dim_order [0] data 1\n"
        "3: Tensor FLOAT [6] dim_order [0] mem 1@32 data 0\n"
        "4: Int 1\n");
  CHECK(describe_instructions(plan) == "aten::add.out(%1, %2, %4, %3, %3)\n");
  CHECK(program.constants.size() == 2);
}

TEST_CASE(
    "emitter: constant data too large for one block of memory is OUT_OF_MEMORY before anything is "
    "allocated") {
  // 2^63 bytes of int8: past std::vector's max_size on a 64-bit build too
  // (on wasm32 the bound is under 2 GiB, where the size would wrap in size_t).
  ir::StateBinding state;
  state.storages.push_back(ir::PayloadStorage{ir::PayloadStore::Weights, "weight_0", 0, ""});
  ir::ConstantRef c;
  c.fqn = "big";
  c.placeholder = "p_big";
  c.dtype = ScalarType::Char;
  c.sizes = {int64_t{1} << 62, 2};
  c.strides = {2, 1};
  c.zero_filled = true;
  auto source_of = [](const ir::PayloadStorage& s) { return s.path_name; };
  bool read = false;
  emit::RangeReader reader = [&read](const emit::InputRange&, uint8_t*) {
    read = true;
    return Status::Ok();
  };
  auto zeros = emit::constant_bytes(c, state, source_of, reader);
  REQUIRE_FALSE(zeros.ok());
  CHECK(zeros.error().code == ErrorCode::OUT_OF_MEMORY);
  const std::string limit = std::to_string(std::vector<uint8_t>().max_size());
  CHECK(zeros.error().message ==
        "constant 'big': its zero-filled data needs 9223372036854775808 bytes in memory at "
        "once, more than this build can hold in one block (" +
            limit + " bytes)");
  CHECK(zeros.error().where.node == "p_big");
  // A strided view (stride 0 on the second dim) that must be made contiguous.
  c.zero_filled = false;
  c.strides = {1, 0};
  c.byte_length = uint64_t{1} << 62;
  auto relaid = emit::constant_bytes(c, state, source_of, reader);
  REQUIRE_FALSE(relaid.ok());
  CHECK(relaid.error().code == ErrorCode::OUT_OF_MEMORY);
  CHECK(relaid.error().message ==
        "constant 'big': making it contiguous needs 9223372036854775808 bytes in memory "
        "at once, more than this build can hold in one block (" +
            limit + " bytes)");
  CHECK_FALSE(read);
}
