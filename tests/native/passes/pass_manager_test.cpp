#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "ir/printer.h"
#include "passes/pass_manager.h"
#include "passes/pass_registry.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::Out;
using pteforge::testing::ProgramBuilder;

namespace {

ExportedProgram relu_with_dead_neg() {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto r = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3}});
  auto n = b.call("aten.neg.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3}});
  b.call("aten.exp.default", {arg_tensor(n)}, {ScalarType::Float, {2, 3}});
  b.output(r);
  return b.build();
}

/// Runs eliminate_dead_code alone on `ep` (method "forward") and returns its report.
passes::PassReport run_dce(ExportedProgram& ep) {
  passes::PipelineOptions options;
  options.passes = {"eliminate_dead_code"};
  auto pm = passes::PassManager::create(options);
  REQUIRE(pm.ok());
  passes::MethodState state;
  state.method = "forward";
  passes::PassReport report;
  REQUIRE(pm->run(ep, state, report).ok());
  return report;
}

}  // namespace

TEST_CASE("pass_registry: default pipeline follows design.md order") {
  auto names = passes::default_pipeline();
  REQUIRE(names.size() == 28);
  CHECK(names.front() == "remove_tensor_metadata_asserts");
  CHECK(names[1] == "decompose");
  CHECK(names[2] == "swap_modules");
  CHECK(names[3] == "verify_shapes");
  CHECK(names[17] == "generate_debug_handles");
  CHECK(names[18] == "weights_to_outputs");
  CHECK(names.back() == "memory_planning");
  for (const auto& n : names) CHECK(passes::find_pass(n) != nullptr);
}

TEST_CASE("pass_registry: unknown pass is UNKNOWN_PASS with the valid names") {
  auto p = passes::create_pass("no_such_pass");
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().code == ErrorCode::UNKNOWN_PASS);
  REQUIRE(p.error().notes.size() == 1);
  CHECK(p.error().notes[0].find("eliminate_dead_code") != std::string::npos);
}

TEST_CASE("eliminate_dead_code: removes unused pure chains, keeps used nodes") {
  ExportedProgram ep = relu_with_dead_neg();
  passes::PassReport report = run_dce(ep);
  CHECK(print_graph(ep.graph()) ==
        "graph(%x):\n"
        "  %relu = aten.relu.default(%x)\n"
        "  return (%relu)\n");
  REQUIRE(report.passes.size() == 1);
  CHECK(report.passes[0].changed);
  CHECK(report.passes[0].nodes_before == 3);
  CHECK(report.passes[0].nodes_after == 1);
  CHECK(report.passes[0].stats.at("nodes_removed") == 2);
  CHECK(report.to_json(false) ==
        R"({"passes":[{"name":"eliminate_dead_code","method":"forward","ms":0.0,"changed":true,"skipped":false,)"
        R"("nodes_before":3,"nodes_after":1,"stats":{"nodes_removed":2}}],"diagnostics":[]})");
}

TEST_CASE("eliminate_dead_code: skips a graph it left clean, and sees every later change") {
  ExportedProgram ep = relu_with_dead_neg();
  passes::PipelineOptions options;
  options.passes = {"eliminate_dead_code"};
  auto pm = passes::PassManager::create(options);
  REQUIRE(pm.ok());
  passes::MethodState state;
  state.method = "forward";
  passes::PassReport report;
  REQUIRE(pm->run(ep, state, report).ok());
  CHECK(state.dead_code_free_revision == ep.graph().revision());
  CHECK(ep.graph().num_nodes() == 1);
  // A new node nothing uses: the graph's revision moved on, so the next run walks and removes it.
  ep.graph().append(Node(OpTarget("torch.ops.aten.neg.default"), {positional("self", arg_tensor("x"))},
                         {arg_tensor("neg_1")}, "neg_1"));
  CHECK(state.dead_code_free_revision != ep.graph().revision());
  passes::PassReport again;
  REQUIRE(pm->run(ep, state, again).ok());
  CHECK(ep.graph().num_nodes() == 1);
  REQUIRE(again.passes.size() == 1);
  CHECK(again.passes[0].changed);
  CHECK(again.passes[0].stats.at("nodes_removed") == 1);
  // relu made dead by moving the graph output to a new node.
  ep.graph().append(Node(OpTarget("torch.ops.aten.exp.default"), {positional("self", arg_tensor("x"))},
                         {arg_tensor("exp_1")}, "exp_1"));
  ep.graph().set_tensor_meta("exp_1", make_tensor_meta(ScalarType::Float, {2, 3}));
  CHECK(ep.replace_all_uses("relu", "exp_1") == 2);  // the graph output and its output spec
  passes::PassReport last;
  REQUIRE(pm->run(ep, state, last).ok());
  CHECK(print_graph(ep.graph()) ==
        "graph(%x):\n"
        "  %exp_1 = aten.exp.default(%x)\n"
        "  return (%exp_1)\n");
  CHECK(last.passes[0].stats.at("nodes_removed") == 1);  // relu, once the graph output moved
}

TEST_CASE("eliminate_dead_code: keeps in-place writes whose result is unused") {
  ProgramBuilder b;
  auto buf = b.buffer("b_total", "total", ScalarType::Float, {3});
  auto x = b.input("x", ScalarType::Float, {3});
  b.call("aten.copy_.default", {arg_tensor(buf), arg_tensor(x)}, {ScalarType::Float, {3}});
  auto y = b.call("aten.mul.Tensor", {arg_tensor(x), arg_tensor(x)}, {ScalarType::Float, {3}});
  b.output(y);
  ExportedProgram ep = b.build();
  passes::PassReport report = run_dce(ep);
  CHECK(ep.graph().num_nodes() == 2);
  CHECK_FALSE(report.passes[0].changed);
}

TEST_CASE("eliminate_dead_code: a multi-output node stays while any of its results is used") {
  // max.dim defines two values; the first graph uses only the indices, the
  // second neither (the whole chain goes), the third only through the outputs.
  for (int used : {1, 0, 2}) {
    CAPTURE(used);
    ProgramBuilder b;
    auto x = b.input("x", ScalarType::Float, {2, 3});
    auto outs = b.call_multi("aten.max.dim", {arg_tensor(x), arg_int(1)},
                             {{ScalarType::Float, {2}}, {ScalarType::Long, {2}}}, {"values", "indices"});
    std::string y = x;
    if (used == 1) y = b.call("aten.mul.Tensor", {arg_tensor(x), arg_tensor(outs[1])}, {ScalarType::Float, {2, 3}});
    if (used == 0) b.call("aten.neg.default", {arg_tensor(outs[0])}, {ScalarType::Float, {2}});
    b.output(used == 2 ? outs[0] : y);
    ExportedProgram ep = b.build();
    passes::PassReport report = run_dce(ep);
    CHECK(ep.graph().num_nodes() == (used == 1 ? 2u : used == 2 ? 1u : 0u));
    CHECK(report.passes[0].changed == (used == 0));
  }
}

TEST_CASE("pass_manager: explicitly requested unimplemented pass is an error, default skips it") {
  passes::PipelineOptions options;
  options.passes = {"eliminate_dead_code", "no_such"};
  auto bad = passes::PassManager::create(options);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::UNKNOWN_PASS);

  options.passes = {};
  auto pm = passes::PassManager::create(options);
  REQUIRE(pm.ok());
  CHECK(pm->names() == passes::default_pipeline());
}

TEST_CASE("pass_manager: an explicit list keeps the default pipeline's order") {
  passes::PipelineOptions options;
  auto create = [&options](std::vector<std::string> names) {
    options.passes = std::move(names);
    auto pm = passes::PassManager::create(options);
    return pm.ok() ? std::string() : pm.error().to_string();
  };
  // Passes left out, one repeated, passes outside the pipeline anywhere.
  CHECK(create({"spec_prop", "memory_planning"}) == "");
  CHECK(create({"eliminate_dead_code", "eliminate_dead_code", "spec_prop"}) == "");
  CHECK(create({"legalize", "decompose", "legalize", "to_out_variant", "memory_planning"}) == "");
  // sym_shape_eval after memory_planning would grow planned tensors past their buffer.
  CHECK(create({"spec_prop", "memory_planning", "sym_shape_eval"}) ==
        "OPTION_INVALID: --passes lists sym_shape_eval after memory_planning, but sym_shape_eval runs before "
        "it in the default pipeline: a pass list may leave passes out or repeat one right after itself, not "
        "reorder them (each pass relies on what the earlier ones made, e.g. memory_planning is always last)");
  // spec_prop before replace_view_ops_with_copy would give a permute_copy the view's strides.
  CHECK(create({"spec_prop", "replace_view_ops_with_copy", "to_out_variant"})
            .rfind("OPTION_INVALID: --passes lists replace_view_ops_with_copy after spec_prop,", 0) == 0);
  // The swap steps stand in swap_modules' place, in its order.
  CHECK(create({"decompose", "outline_modules", "replace_modules", "inline_modules", "spec_prop"}) == "");
  CHECK(create({"replace_modules", "outline_modules"})
            .rfind("OPTION_INVALID: --passes lists outline_modules after replace_modules,", 0) == 0);
  CHECK(create({"memory_planning", "outline_modules"})
            .rfind("OPTION_INVALID: --passes lists outline_modules after memory_planning,", 0) == 0);
  // The whole pipeline twice.
  std::vector<std::string> twice = passes::default_pipeline();
  const std::vector<std::string> once = twice;
  twice.insert(twice.end(), once.begin(), once.end());
  CHECK(create(twice).rfind("OPTION_INVALID: --passes lists " + once.front() + " after " + once.back() + ",",
                            0) == 0);
}

TEST_CASE("pass_manager: check_pass_list checks the names, then the order, and gives the index") {
  size_t at = 99;
  CHECK(passes::check_pass_list({"decompose", "spec_prop", "memory_planning"}, &at).ok());
  CHECK(at == 99);
  // An unknown name is found before an order problem earlier in the list.
  Status st = passes::check_pass_list({"spec_prop", "decompose", "no_such_pass"}, &at);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::UNKNOWN_PASS);
  CHECK(at == 2);
  st = passes::check_pass_list({"spec_prop", "decompose"}, &at);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::OPTION_INVALID);
  CHECK(at == 1);
  // PassManager::create refuses the same lists with the same errors.
  passes::PipelineOptions options;
  options.passes = {"spec_prop", "decompose", "no_such_pass"};
  auto pm = passes::PassManager::create(options);
  REQUIRE_FALSE(pm.ok());
  CHECK(pm.error().code == ErrorCode::UNKNOWN_PASS);
  CHECK(pm.error().message == passes::check_pass_list(options.passes).error().message);
}

TEST_CASE("pass_manager: check_pass_order gives the index of the pass out of order") {
  size_t at = 99;
  CHECK(passes::check_pass_order({"decompose", "legalize", "decompose", "spec_prop"}, &at).ok());
  CHECK(at == 99);
  // legalize is unranked: the pass out of order is the second decompose, index 3.
  CHECK_FALSE(passes::check_pass_order({"decompose", "spec_prop", "legalize", "decompose"}, &at).ok());
  CHECK(at == 3);
  // A repeat separated by a later pass is out of order.
  CHECK_FALSE(passes::check_pass_order({"decompose", "verify_shapes", "decompose"}, &at).ok());
  CHECK(at == 2);
  // The swap steps in the order swap_modules runs them.
  CHECK(passes::check_pass_order({passes::kSwapModuleSteps[0].data(), passes::kSwapModuleSteps[1].data(),
                                  passes::kSwapModuleSteps[2].data()})
            .ok());
  CHECK_FALSE(passes::check_pass_order({"inline_modules", "replace_modules"}, &at).ok());
  CHECK(at == 1);
}
