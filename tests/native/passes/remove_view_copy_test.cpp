// remove_view_copy: NormalizeViewCopyBase + DCE + ReplaceViewCopyWithView (§1.3 B7, §4.5, §6.7).
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "et_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::et::describe;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::et::run_passes;

TEST_CASE("remove_view_copy: chains collapse - dead views go - views become memory.view - an output view stays a copy") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 6});
  auto e = b.call("aten.exp.default", {arg_tensor(x)}, {ScalarType::Float, {2, 6}});
  auto v1 = b.call("aten.view_copy.default", {arg_tensor(e), arg_ints({3, 4})}, {ScalarType::Float, {3, 4}});
  auto v2 = b.call("aten.view_copy.default", {arg_tensor(v1), arg_ints({12, -1})}, {ScalarType::Float, {12, 1}});
  auto r = b.call("aten.relu.default", {arg_tensor(v2)}, {ScalarType::Float, {12, 1}});
  auto v3 = b.call("aten.view_copy.default", {arg_tensor(r), arg_ints({4, 3})}, {ScalarType::Float, {4, 3}});
  b.output(v3);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"spec_prop", "remove_view_copy"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%x):\n"
        "  %exp = aten.exp.default(%x)\n"
        "  %view_copy_1 = memory.view(%exp, [12, -1])\n"
        "  %relu = aten.relu.default(%view_copy_1)\n"
        "  %view_copy_2 = aten.view_copy.default(%relu, [4, 3])\n"
        "  return (%view_copy_2)\n");
  auto view = run.state.specs.get("view_copy_1");
  REQUIRE(view);
  CHECK(view->is_view());
  CHECK(view->base == run.state.specs.get("exp"));
  CHECK(&view->storage() == run.state.specs.get("exp").get());
  CHECK(describe(*view) == "float32[12, 1] dim_order=[0, 1] static unplanned view");
  CHECK(view->strides == std::vector<int64_t>{1, 1});
  CHECK_FALSE(run.state.specs.get("view_copy_2")->is_view());
  const auto& stats = run.report.passes[1].stats;
  CHECK(stats.at("views_rebased") == 1);
  CHECK(stats.at("nodes_removed") == 1);
  CHECK(stats.at("views") == 1);
}

TEST_CASE("remove_view_copy: small_cnn flatten becomes a view sharing the max-pool output placement") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/small_cnn/models/model.json");
  testing::et::to_edge_lite(ep);
  auto run = run_passes(ep, testing::et::to_executorch_passes());
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  // flatten: view of the max-pool output (the getitem) -> memory.view sharing its memory.
  const Node* view = ep.graph().find_node("view");
  REQUIRE(view);
  CHECK(view->target().str() == "memory.view");
  auto v = run.state.specs.get("view");
  auto base = run.state.specs.get("getitem_1");
  REQUIRE(v);
  REQUIRE(base);
  CHECK(v->base == base);
  CHECK(v->mem_offset == base->mem_offset);
  CHECK(v->mem_id == base->mem_id);
  CHECK(v->lifetime_last == base->lifetime_last);
  CHECK(describe(*v).find("float32[1, 512] dim_order=[0, 1] static mem=1@") == 0);
}

TEST_CASE("remove_view_copy: dynamism mismatch keeps the copy and warns - missing specs are a precondition error") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/dynamic_batch/models/model.json");
  testing::et::to_edge_lite(ep);
  // Make the second view static (a static reshape of a dynamic tensor is rejected by ExecuTorch's _ViewSpec).
  TensorMeta m = *ep.graph().tensor_meta("view_1");
  m.sizes = {SymInt(3), SymInt(4), SymInt(6)};
  ep.graph().set_tensor_meta("view_1", m);
  auto run = run_passes(ep, {"spec_prop", "remove_view_copy"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(ep.graph().find_node("view")->target().str() == "memory.view");
  CHECK(ep.graph().find_node("view_1")->target().str() == "torch.ops.aten.view_copy.default");
  REQUIRE(run.report.diagnostics.size() == 1);
  CHECK(run.report.diagnostics[0].message ==
        "view_copy 'view_1' is kept as a copy: its dynamism differs from its base's (ExecuTorch's "
        "ReplaceViewCopyWithViewPass rejects such a view)");
  CHECK(run.report.diagnostics[0].where.node == std::optional<std::string>("view_1"));

  ExportedProgram ep2 = testing::et::load_program("fixtures/programs/dynamic_batch/models/model.json");
  testing::et::to_edge_lite(ep2);
  auto run2 = run_passes(ep2, {"remove_view_copy"});
  REQUIRE_FALSE(run2.status.ok());
  CHECK(run2.status.error().code == ErrorCode::PASS_PRECONDITION);
  CHECK(run2.status.error().where.node == std::optional<std::string>("view"));
}

TEST_CASE("remove_view_copy: a view of a tensor not laid out row-major warns, size-1 dims do not count") {
  // x: [1, 2, 2, 3] channels-last (strides 12, 1, 6, 2); v = x.view(2, 2, 3)
  // is valid in torch (strides 1, 6, 2) but memory.view reads x's bytes as
  // they lie. y: [4, 1] with strides (1, 4) lies row-major: no warning.
  auto build = [](std::vector<int64_t> sizes, std::vector<int64_t> strides, std::vector<int64_t> view) {
    ProgramBuilder b;
    auto x = b.input("x", ScalarType::Float, sizes);
    TensorMeta m = *b.program().graph().tensor_meta(x);
    m.strides.clear();
    for (int64_t s : strides) m.strides.push_back(SymInt(s));
    b.program().graph().set_tensor_meta(x, m);
    auto v =
        b.call("aten.view_copy.default", {arg_tensor(x), arg_ints(view)}, {ScalarType::Float, view}, {}, "v");
    b.output(b.call("aten.add.Tensor", {arg_tensor(v), arg_tensor(v)}, {ScalarType::Float, view}));
    return b.build();
  };
  ExportedProgram cl = build({1, 2, 2, 3}, {12, 1, 6, 2}, {2, 2, 3});
  auto run = run_passes(cl, {"spec_prop", "remove_view_copy"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(cl.graph().find_node("v")->target().str() == "memory.view");  // as ExecuTorch makes it
  REQUIRE(run.report.diagnostics.size() == 1);
  CHECK(run.report.diagnostics[0].message ==
        "view 'v' reads the bytes of 'x' (dim order [0, 2, 3, 1]) in the order they lie, as ExecuTorch's "
        "memory.view does, not in the order torch's view reads them: its values differ from torch's (as a "
        "copy, "
        "ExecuTorch's portable view_copy refuses such an input); make the tensor contiguous before the view");
  ExportedProgram t = build({4, 1}, {1, 4}, {4});
  auto quiet = run_passes(t, {"spec_prop", "remove_view_copy"});
  REQUIRE(quiet.status.ok());
  CHECK(t.graph().find_node("v")->target().str() == "memory.view");
  CHECK(quiet.report.diagnostics.empty());
}
