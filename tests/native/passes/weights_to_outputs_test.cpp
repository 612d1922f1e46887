// weights_to_outputs (seed 000): joint graphs return their trainable
// parameters as TOKEN outputs; memory planning then plans them.
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "et_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::et::describe;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::et::run_passes;

namespace {

/// loss = sum(x * w); grad_w = x (a toy joint graph); b has no gradient.
ExportedProgram toy_joint() {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", ScalarType::Float, {4});
  auto bias = b.parameter("p_b", "b", ScalarType::Float, {4});
  auto x = b.input("x", ScalarType::Float, {4});
  auto mul = b.call("aten.mul.Tensor", {arg_tensor(x), arg_tensor(w)}, {ScalarType::Float, {4}});
  auto add = b.call("aten.add.Tensor", {arg_tensor(mul), arg_tensor(bias)}, {ScalarType::Float, {4}});
  auto loss = b.call("aten.sum.default", {arg_tensor(add)}, {ScalarType::Float, {}});
  auto grad = b.call("aten.clone.default", {arg_tensor(x)}, {ScalarType::Float, {4}});
  b.output(loss, OutputKind::LossOutput);
  b.output(grad, OutputKind::GradientToParameter, "w");
  return b.build();
}

}  // namespace

TEST_CASE("weights_to_outputs: parameters with a gradient become TOKEN outputs - in placeholder order") {
  ExportedProgram ep = toy_joint();
  auto run = run_passes(ep, {"weights_to_outputs"});
  REQUIRE(run.status.ok());
  CHECK(print_exported_program(ep) ==
        "# input parameter %p_w <- w\n"
        "# input parameter %p_b <- b\n"
        "# input user_input %x\n"
        "# output loss_output %sum\n"
        "# output gradient_to_parameter %clone -> w\n"
        "# output token %p_w\n"
        "graph(%p_w, %p_b, %x):\n"
        "  %mul = aten.mul.Tensor(%x, %p_w)\n"
        "  %add = aten.add.Tensor(%mul, %p_b)\n"
        "  %sum = aten.sum.default(%add)\n"
        "  %clone = aten.clone.default(%x)\n"
        "  return (%sum, %clone, %p_w)\n");
  CHECK(run.state.weights_with_gradient == std::vector<std::string>{"p_w"});
  CHECK(run.state.weights_appended);
  CHECK(run.report.passes[0].changed);
  CHECK(run.report.passes[0].stats.at("weights_appended") == 1);
}

TEST_CASE("weights_to_outputs: named twice in a pass list, the weights are appended once") {
  ExportedProgram ep = toy_joint();
  auto run = run_passes(ep, {"weights_to_outputs", "weights_to_outputs"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_exported_program(ep).find("  return (%sum, %clone, %p_w)\n") != std::string::npos);
  CHECK(ep.signature().output_specs.size() == 3);
  CHECK(run.state.weights_with_gradient == std::vector<std::string>{"p_w"});
  REQUIRE(run.report.passes.size() == 2);
  CHECK(run.report.passes[0].changed);
  CHECK_FALSE(run.report.passes[1].changed);
}

TEST_CASE("weights_to_outputs: after spec_prop it is refused (the weights would stay unplanned constants)") {
  ExportedProgram ep = toy_joint();
  // A pass list cannot reorder them (check_pass_order): a second run on the state of the first can.
  auto run = run_passes(ep, {"spec_prop"});
  REQUIRE(run.status.ok());
  Status st = testing::et::run_on_state(ep, run.state, {"weights_to_outputs"});
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::PASS_PRECONDITION);
  CHECK(
      st.error().message ==
      "weights_to_outputs must run before spec_prop (the default pipeline's order): the weights it flags are "
      "planned as mutable memory only when spec_prop and memory_planning see the flag");
  CHECK(st.error().where.pass == std::optional<std::string>("weights_to_outputs"));
}

TEST_CASE(
    "weights_to_outputs: programs whose metadata ExecuTorch's training runtime would misread are warned "
    "about") {
  // w1, w2 (both with gradients) and a buffer; `mutate` adds a buffer mutation
  // output, `reversed` gives the gradients in the other order.
  auto program = [](bool mutate, bool reversed) {
    ProgramBuilder b;
    auto w1 = b.parameter("p_w1", "w1", ScalarType::Float, {4});
    auto w2 = b.parameter("p_w2", "w2", ScalarType::Float, {4});
    auto buf = b.buffer("b_n", "n", ScalarType::Float, {4});
    auto x = b.input("x", ScalarType::Float, {4});
    auto mul = b.call("aten.mul.Tensor", {arg_tensor(x), arg_tensor(w1)}, {ScalarType::Float, {4}});
    auto add = b.call("aten.add.Tensor", {arg_tensor(mul), arg_tensor(w2)}, {ScalarType::Float, {4}});
    auto loss = b.call("aten.sum.default", {arg_tensor(add)}, {ScalarType::Float, {}});
    auto g1 = b.call("aten.clone.default", {arg_tensor(x)}, {ScalarType::Float, {4}});
    auto g2 = b.call("aten.clone.default", {arg_tensor(x)}, {ScalarType::Float, {4}});
    if (mutate) {
      auto n = b.call("aten.add.Tensor", {arg_tensor(buf), arg_tensor(x)}, {ScalarType::Float, {4}});
      b.output(n, OutputKind::BufferMutation, "n");
    }
    b.output(loss, OutputKind::LossOutput);
    if (reversed) {
      b.output(g2, OutputKind::GradientToParameter, "w2");
      b.output(g1, OutputKind::GradientToParameter, "w1");
    } else {
      b.output(g1, OutputKind::GradientToParameter, "w1");
      b.output(g2, OutputKind::GradientToParameter, "w2");
    }
    return b.build();
  };
  auto warnings = [](ExportedProgram ep) {
    auto run = run_passes(ep, {"weights_to_outputs"});
    REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
    std::vector<std::string> out;
    for (const auto& d : run.report.diagnostics) {
      CHECK(d.severity == "warning");
      CHECK(d.where.pass == std::optional<std::string>("weights_to_outputs"));
      out.push_back(d.message);
    }
    return out;
  };
  CHECK(warnings(program(false, false)).empty());
  CHECK(warnings(program(true, false)) ==
        std::vector<std::string>{"the gradients index of this joint method counts its 1 buffer mutation "
                                 "output(s), which are not method "
                                 "outputs (as in ExecuTorch's own .pte): ExecuTorch's training runtime "
                                 "(TrainingModule) would read the "
                                 "gradients 1 output(s) too far"});
  CHECK(
      warnings(program(false, true)) ==
      std::vector<std::string>{
          "the gradient outputs of this joint method are not in the order of its parameters: ExecuTorch's "
          "training runtime (TrainingModule) names the appended parameters by the gradients' order and would "
          "pair them with the wrong names"});
}

TEST_CASE("weights_to_outputs: no gradient outputs -> nothing changes") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", ScalarType::Float, {4});
  auto x = b.input("x", ScalarType::Float, {4});
  b.output(b.call("aten.mul.Tensor", {arg_tensor(x), arg_tensor(w)}, {ScalarType::Float, {4}}));
  ExportedProgram ep = b.build();
  const std::string before = print_exported_program(ep);
  auto run = run_passes(ep, {"weights_to_outputs"});
  REQUIRE(run.status.ok());
  CHECK(print_exported_program(ep) == before);
  CHECK_FALSE(run.report.passes[0].changed);
  CHECK(run.state.weights_with_gradient.empty());
  CHECK_FALSE(run.state.weights_appended);
}

TEST_CASE("weights_to_outputs: joint_training fixture -> 4 TOKEN outputs - planned weights with whole-method lifetimes") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/joint_training/models/model.json");
  testing::et::to_edge_lite(ep);
  auto run = run_passes(ep, testing::et::to_executorch_passes());
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  const auto& specs = ep.signature().output_specs;
  REQUIRE(specs.size() == 9);
  CHECK(specs[0].kind == OutputKind::LossOutput);
  for (size_t i = 1; i < 5; ++i) CHECK(specs[i].kind == OutputKind::GradientToParameter);
  const char* params[] = {"p_fc1_weight", "p_fc1_bias", "p_fc2_weight", "p_fc2_bias"};
  for (size_t i = 0; i < 4; ++i) {
    CHECK(specs[5 + i].kind == OutputKind::Token);
    CHECK(specs[5 + i].arg.tensor_name() == params[i]);
    CHECK(ep.graph().outputs()[5 + i].tensor_name() == params[i]);
  }
  CHECK(run.state.weights_with_gradient ==
        std::vector<std::string>{"p_fc1_weight", "p_fc1_bias", "p_fc2_weight", "p_fc2_bias"});
  // 6 inputs + 58 nodes + output: the weights live over [0, 64] and are planned.
  CHECK(describe(run.state, "p_fc1_weight") == "float32[8, 4] dim_order=[0, 1] static mem=1@576 life=[0,64] const grad");
  CHECK(describe(run.state, "p_fc1_bias") == "float32[8] dim_order=[0] static mem=1@832 life=[0,64] const grad");
  CHECK(describe(run.state, "p_fc2_weight") == "float32[2, 8] dim_order=[0, 1] static mem=1@768 life=[0,64] const grad");
  CHECK(describe(run.state, "p_fc2_bias") == "float32[2] dim_order=[0] static mem=1@896 life=[0,64] const grad");
  CHECK(run.state.non_const_buffer_sizes == std::vector<uint64_t>{0, 912});
}

TEST_CASE("weights_to_outputs: corpus joint_linear_mse") {
  ExportedProgram ep = testing::et::load_program("fixtures/corpus/joint_linear_mse/json/models/model.json");
  testing::et::to_edge_lite(ep);
  auto run = run_passes(ep, testing::et::to_executorch_passes());
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(run.state.weights_with_gradient == std::vector<std::string>{"p_head_weight", "p_head_bias"});
  CHECK(ep.signature().output_specs.size() == 5);
  CHECK(ep.signature().output_specs[3].kind == OutputKind::Token);
  CHECK(ep.signature().output_specs[4].kind == OutputKind::Token);
  CHECK(describe(run.state, "p_head_weight") == "float32[2, 4] dim_order=[0, 1] static mem=1@272 life=[0,34] const grad");
  CHECK(describe(run.state, "p_head_bias") == "float32[2] dim_order=[0] static mem=1@336 life=[0,34] const grad");
  CHECK(run.state.non_const_buffer_sizes == std::vector<uint64_t>{0, 352});
}
