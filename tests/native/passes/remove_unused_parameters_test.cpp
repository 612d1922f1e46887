#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;
using pteforge::testing::run_passes;

namespace {

/// Binds `placeholder` to its own payload `weight_<storage>` (or to `share`'s storage).
void bind(ExportedProgram& ep, const std::string& placeholder, InputKind kind, int share = -1) {
  ConstantRef t;
  t.placeholder = placeholder;
  t.fqn = ep.signature().input_specs[static_cast<size_t>(ep.signature().find_input(placeholder))].target;
  t.kind = kind;
  t.sizes = {2};
  t.strides = {1};
  t.byte_length = 8;
  if (share >= 0) {
    t.storage = static_cast<uint32_t>(share);
  } else {
    t.storage = static_cast<uint32_t>(ep.state.storages.size());
    ep.state.storages.push_back(
        PayloadStorage{PayloadStore::Weights, "weight_" + std::to_string(t.storage), 8, ""});
  }
  ep.state.tensors.push_back(t);
}

}  // namespace

TEST_CASE("remove_unused_parameters: unused parameters leave graph, signature and state, buffers stay") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", ScalarType::Float, {2});
  b.parameter("p_unused", "unused", ScalarType::Float, {2});
  auto out_only = b.parameter("p_out", "out", ScalarType::Float, {2});
  b.buffer("b_stat", "stat", ScalarType::Float, {2});
  b.parameter("p_tied", "tied", ScalarType::Float, {2});
  auto x = b.input("x", ScalarType::Float, {2});
  auto y = b.call("aten.mul.Tensor", {arg_tensor(x), arg_tensor(w)}, {ScalarType::Float, {2}});
  b.output(y);
  b.output(out_only);
  ExportedProgram ep = b.build();
  bind(ep, "p_w", InputKind::Parameter);        // storage 0
  bind(ep, "p_unused", InputKind::Parameter);   // storage 1
  bind(ep, "p_out", InputKind::Parameter);      // storage 2
  bind(ep, "b_stat", InputKind::Buffer);        // storage 3
  bind(ep, "p_tied", InputKind::Parameter, 0);  // shares p_w's storage

  auto run = run_pass(ep, "remove_unused_parameters");
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(run.report.passes[0].stats.at("parameters_removed") == 2);
  CHECK(print_exported_program(ep) ==
        "# input parameter %p_w <- w\n"
        "# input parameter %p_out <- out\n"
        "# input buffer %b_stat <- stat\n"
        "# input user_input %x\n"
        "# output user_output %mul\n"
        "# output user_output %p_out\n"
        "graph(%p_w, %p_out, %b_stat, %x):\n"
        "  %mul = aten.mul.Tensor(%x, %p_w)\n"
        "  return (%mul, %p_out)\n");
  CHECK(ep.graph().find_value("p_unused") == nullptr);  // metadata dropped too
  REQUIRE(ep.state.tensors.size() == 3);
  CHECK(ep.state.tensors[0].placeholder == "p_w");
  CHECK(ep.state.tensors[0].storage == 0);  // still shared storage 0 (p_tied gone, storage kept)
  CHECK(ep.state.tensors[1].placeholder == "p_out");
  CHECK(ep.state.tensors[1].storage == 1);  // storage 1 (p_unused's) removed, later ones shift down
  CHECK(ep.state.tensors[2].placeholder == "b_stat");
  CHECK(ep.state.tensors[2].storage == 2);
  REQUIRE(ep.state.storages.size() == 3);
  CHECK(ep.state.storages[0].path_name == "weight_0");
  CHECK(ep.state.storages[1].path_name == "weight_2");
  CHECK(ep.state.storages[2].path_name == "weight_3");
}

TEST_CASE("remove_unused_parameters: every parameter used, no change") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", ScalarType::Float, {2});
  b.buffer("b_unused", "unused", ScalarType::Float, {2});
  b.constant("c_unused", "cu", ScalarType::Float, {2});
  auto x = b.input("x", ScalarType::Float, {2});
  auto y = b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(w)}, {ScalarType::Float, {2}});
  b.output(y);
  ExportedProgram ep = b.build();
  const std::string before = print_exported_program(ep);
  auto run = run_pass(ep, "remove_unused_parameters");
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.changed());
  CHECK(print_exported_program(ep) == before);
}

TEST_CASE("remove_unused_parameters after decompose: a parameter read only by dead nodes goes") {
  // to_edge's run_decompositions re-traces the program and drops dead nodes,
  // so a parameter that only they read is unused when remove_unused_parameters runs.
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", ScalarType::Float, {2});
  auto dead_w = b.parameter("p_dead", "dead", ScalarType::Float, {2});
  auto x = b.input("x", ScalarType::Float, {2});
  auto y = b.call("aten.mul.Tensor", {arg_tensor(x), arg_tensor(w)}, {ScalarType::Float, {2}});
  auto d1 = b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(dead_w)}, {ScalarType::Float, {2}});
  b.call("aten.neg.default", {arg_tensor(d1)}, {ScalarType::Float, {2}});
  b.output(y);
  ExportedProgram ep = b.build();
  bind(ep, "p_w", InputKind::Parameter);
  bind(ep, "p_dead", InputKind::Parameter);

  auto run = run_passes(ep, {"decompose", "remove_unused_parameters"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(run.report.passes[0].stats.at("nodes_removed") == 2);
  CHECK(run.report.passes[1].stats.at("parameters_removed") == 1);
  CHECK(print_exported_program(ep) ==
        "# input parameter %p_w <- w\n"
        "# input user_input %x\n"
        "# output user_output %mul\n"
        "graph(%p_w, %x):\n"
        "  %mul = aten.mul.Tensor(%x, %p_w)\n"
        "  return (%mul)\n");
  REQUIRE(ep.state.tensors.size() == 1);
  CHECK(ep.state.tensors[0].placeholder == "p_w");
}
