// spec_prop: a TensorSpec for every tensor value, const / mutable flags (§1.3 B3, §5).
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "et_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::et::describe;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::et::run_passes;

TEST_CASE("spec_prop: parameters - non-mutated buffers and constants are const and bound - mutated buffers are not") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", ScalarType::Float, {2, 3});
  auto buf = b.buffer("b_stat", "stat", ScalarType::Float, {3});
  auto acc = b.buffer("b_acc", "acc", ScalarType::Int, {3});
  auto c = b.constant("c_k", "k", ScalarType::Long, {});
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto mul = b.call("aten.mul.Tensor", {arg_tensor(x), arg_tensor(w)}, {ScalarType::Float, {2, 3}});
  auto add = b.call("aten.add.Tensor", {arg_tensor(mul), arg_tensor(buf)}, {ScalarType::Float, {2, 3}});
  auto inc = b.call("aten.add.Tensor", {arg_tensor(acc), arg_tensor(c)}, {ScalarType::Int, {3}});
  b.output(inc, OutputKind::BufferMutation, "acc");
  b.output(add);
  ExportedProgram ep = b.build();
  ConstantRef ref;
  ref.fqn = "w";
  ref.placeholder = "p_w";
  ref.sizes = {2, 3};
  ep.state.tensors.push_back(ref);

  auto run = run_passes(ep, {"spec_prop"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(describe(run.state, "p_w") == "float32[2, 3] dim_order=[0, 1] static unplanned const");
  CHECK(run.state.specs.get("p_w")->constant == &ep.state.tensors[0]);
  CHECK(describe(run.state, "b_stat") == "float32[3] dim_order=[0] static unplanned const");
  CHECK(run.state.specs.get("b_stat")->constant == nullptr);  // not bound
  CHECK(describe(run.state, "b_acc") == "int32[3] dim_order=[0] static unplanned mutable");
  CHECK(describe(run.state, "c_k") == "int64[] dim_order=[] static unplanned const");
  CHECK(describe(run.state, "x") == "float32[2, 3] dim_order=[0, 1] static unplanned");
  CHECK(describe(run.state, "add") == "float32[2, 3] dim_order=[0, 1] static unplanned");
  CHECK(run.state.specs.size() == 8);
  CHECK(run.report.passes[0].stats.at("specs") == 8);
  CHECK(run.report.passes[0].stats.at("const_specs") == 3);
}

TEST_CASE("spec_prop: symbolic sizes -> DYNAMIC_BOUND with hint sizes - view-op _copy twins are contiguous") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/dynamic_batch/models/model.json");
  testing::et::to_edge_lite(ep);
  auto run = run_passes(ep, {"spec_prop"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(describe(run.state, "x") == "float32[3, 4, 8] dim_order=[0, 1, 2] dynamic_bound unplanned");
  auto x = run.state.specs.get("x");
  REQUIRE(x->sym_sizes.size() == 3);
  CHECK(x->sym_sizes[0].is_symbolic());
  CHECK(x->strides == std::vector<int64_t>{32, 8, 1});
  CHECK(describe(run.state, "view") == "float32[12, 8] dim_order=[0, 1] dynamic_bound unplanned");
  CHECK(describe(run.state, "relu") == "float32[3, 4, 6] dim_order=[0, 1, 2] dynamic_bound unplanned");
  // permute_copy: the exported metadata still has the permute's strides [1, 8].
  CHECK(ep.graph().tensor_meta("permute")->strides[0] == SymInt(1));
  CHECK(describe(run.state, "permute") == "float32[8, 6] dim_order=[0, 1] static unplanned");
  // SymInt values get no spec.
  CHECK(run.state.specs.get("sym_size_int_1") == nullptr);
  CHECK(run.state.specs.get("mul") == nullptr);
}

TEST_CASE("spec_prop: a permuted (non-_copy) result keeps its strides: dim order by stride - stable on ties") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/dynamic_batch/models/model.json");
  auto run = run_passes(ep, {"spec_prop"});
  REQUIRE(run.status.ok());
  CHECK(describe(run.state, "permute") == "float32[8, 6] dim_order=[1, 0] static unplanned");

  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {1, 1, 49, 10});
  TensorMeta m = *b.program().graph().tensor_meta(x);
  m.strides = {SymInt(490), SymInt(1), SymInt(10), SymInt(1)};  // KWS value 83 (§5.2)
  b.program().graph().set_tensor_meta(x, m);
  b.output(b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {1, 1, 49, 10}}));
  ExportedProgram ep2 = b.build();
  auto run2 = run_passes(ep2, {"spec_prop"});
  REQUIRE(run2.status.ok());
  CHECK(describe(run2.state, "x") == "float32[1, 1, 49, 10] dim_order=[0, 2, 1, 3] static unplanned");
}

TEST_CASE("spec_prop: an in-place result shares the spec of the tensor it writes") {
  ProgramBuilder b;
  auto buf = b.buffer("b_total", "total", ScalarType::Float, {3});
  auto x = b.input("x", ScalarType::Float, {3});
  auto add = b.call("aten.add.Tensor", {arg_tensor(buf), arg_tensor(x)}, {ScalarType::Float, {3}});
  auto cp = b.call("aten.copy_.default", {arg_tensor(buf), arg_tensor(add)}, {ScalarType::Float, {3}});
  b.output(cp, OutputKind::BufferMutation, "total");
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"spec_prop"});
  REQUIRE(run.status.ok());
  CHECK(run.state.specs.get("copy_") == run.state.specs.get("b_total"));
  CHECK(run.state.specs.get("add") != run.state.specs.get("b_total"));
  CHECK(describe(run.state, "copy_") == "float32[3] dim_order=[0] static unplanned mutable");
}

TEST_CASE("spec_prop: zero strides and memory nodes are errors") {
  // spec_prop's status for x -> relu -> output, with `strides` recorded on
  // the user input x or on relu's result.
  auto with_strides = [](bool on_input, std::vector<SymInt> strides) {
    ProgramBuilder b;
    auto x = b.input("x", ScalarType::Float, {2, 3});
    auto e = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3}});
    const std::string target = on_input ? x : e;
    TensorMeta m = *b.program().graph().tensor_meta(target);
    m.strides = std::move(strides);
    b.program().graph().set_tensor_meta(target, m);
    b.output(e);
    ExportedProgram ep = b.build();
    return run_passes(ep, {"spec_prop"}).status;
  };

  Status zero = with_strides(false, {SymInt(0), SymInt(1)});
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().code == ErrorCode::PASS_FAILED);
  CHECK(zero.error().where.node == std::optional<std::string>("relu"));
  CHECK(zero.error().where.pass == std::optional<std::string>("spec_prop"));
  CHECK(zero.error().message.find("zero strides") != std::string::npos);

  // A negative stride (torch has none), on a user input and on a node result.
  for (bool on_input : {true, false}) {
    Status negative = with_strides(on_input, {SymInt(-3), SymInt(-1)});
    REQUIRE_FALSE(negative.ok());
    CHECK(negative.error().code == ErrorCode::PASS_FAILED);
    CHECK(negative.error().where.node == std::optional<std::string>(on_input ? "x" : "relu"));
    CHECK(negative.error().message ==
          (on_input ? "placeholder 'x': " : "value 'relu': ") +
              std::string("a stride is negative (-3); torch tensors and ExecuTorch dim orders have none"));
  }

  ExportedProgram ep2 = testing::et::load_program("fixtures/programs/ref_add/models/model.json");
  // A pass list cannot put spec_prop after to_out_variant (check_pass_order): a second run can.
  auto run2 = run_passes(ep2, {"spec_prop", "to_out_variant"});
  REQUIRE(run2.status.ok());
  Status again = testing::et::run_on_state(ep2, run2.state, {"spec_prop"});
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().code == ErrorCode::PASS_PRECONDITION);
  CHECK(again.error().where.node == std::optional<std::string>("alloc"));
}
