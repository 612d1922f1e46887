// outline_modules, remove_pytree_pairs (on real fixtures) and the
// outline -> inline round trip.
#include <doctest/doctest.h>

#include "passes/module_swap/inline.h"
#include "passes/module_swap/partition.h"
#include "passes/swap_test_util.h"

using namespace pteforge;
using pteforge::testing::golden;
using pteforge::testing::kPreserved;
using pteforge::testing::kNested;

TEST_CASE("outline_modules: block '1' of modules_preserved becomes a module call") {
  auto l = testing::load(kPreserved);
  ir::ExportedProgram ep = l.program;
  passes::PipelineOptions options;
  options.outline_modules = {"1"};
  passes::PassReport report = testing::run_passes(ep, {"outline_modules"}, options);
  CHECK(golden(ep.graph()) ==
        "graph(%p_0_0_weight, %p_0_0_bias, %p_1_0_weight, %p_1_0_bias, %input_1):\n"
        "  %permute = aten.permute.default(%p_0_0_weight, [1, 0])\n"
        "  %addmm = aten.addmm.default(%p_0_0_bias, %input_1, %permute)\n"
        "  %sigmoid = aten.sigmoid.default(%addmm)\n"
        "  %mul = aten.mul.Tensor(%addmm, %sigmoid)\n"
        "  %tree_unflatten = pteforge.tree_unflatten(%mul, spec=((*,), {}))\n"
        "  %getitem = _operator.getitem(%tree_unflatten, 0)\n"
        "  %getitem_1 = _operator.getitem(%getitem, 0)\n"
        "  %_1 = pteforge.call_module(@1, %getitem_1, captured={'p_1_0_weight': %p_1_0_weight, 'p_1_0_bias': "
        "%p_1_0_bias})\n"
        "    @1 = graph(%mul, %p_1_0_weight, %p_1_0_bias):\n"
        "      %permute_1 = aten.permute.default(%p_1_0_weight, [1, 0])\n"
        "      %addmm_1 = aten.addmm.default(%p_1_0_bias, %mul, %permute_1)\n"
        "      %tanh = aten.tanh.default(%addmm_1)\n"
        "      return (%tanh)\n"
        "  %tree_flatten_spec = pteforge.tree_flatten_spec(%_1, spec=*)\n"
        "  %tanh = _operator.getitem(%tree_flatten_spec, 0)\n"
        "  return (%tanh)\n");
  REQUIRE(report.passes.size() == 1);
  CHECK(report.passes[0].stats.at("modules_outlined") == 1);
  CHECK(report.passes[0].stats.at("nodes_outlined") == 3);
  CHECK(report.passes[0].stats.at("values_captured") == 2);
  // Outside the body, the module's input and output keep their names and
  // metadata, so the signature and module_call_graph still name them.
  CHECK(ep.graph_module.module_call_graph == l.program.graph_module.module_call_graph);
  CHECK(ep.graph_module.signature == l.program.graph_module.signature);
  CHECK(*ep.graph().tensor_meta("tanh") == *l.program.graph().tensor_meta("tanh"));
  CHECK(*ep.graph().tensor_meta("getitem_1") == *l.program.graph().tensor_meta("mul"));
  // The new nodes carry the module's origin and its parents' module frames.
  const ir::Node* call = ep.graph().find_node("_1");
  REQUIRE(call != nullptr);
  CHECK(call->origin().pointer() == "/graph_module/graph/nodes/4");
  REQUIRE(call->metadata().nn_module_stack);
  REQUIRE(call->metadata().nn_module_stack->size() == 1);
  CHECK(call->metadata().nn_module_stack->front().path == "");
  CHECK(call->metadata().stack_trace == l.program.graph().find_node("permute_1")->metadata().stack_trace);
}

TEST_CASE("outline_modules: both blocks, without and with remove_pytree_pairs") {
  auto l = testing::load(kPreserved);
  const std::string block0 =
      "graph(%p_0_0_weight, %p_0_0_bias, %p_1_0_weight, %p_1_0_bias, %input_1):\n"
      "  %tree_unflatten = pteforge.tree_unflatten(%input_1, spec=((*,), {}))\n"
      "  %getitem = _operator.getitem(%tree_unflatten, 0)\n"
      "  %getitem_1 = _operator.getitem(%getitem, 0)\n"
      "  %_0 = pteforge.call_module(@0, %getitem_1, captured={'p_0_0_weight': %p_0_0_weight, 'p_0_0_bias': "
      "%p_0_0_bias})\n"
      "    @0 = graph(%input_1, %p_0_0_weight, %p_0_0_bias):\n"
      "      %permute = aten.permute.default(%p_0_0_weight, [1, 0])\n"
      "      %addmm = aten.addmm.default(%p_0_0_bias, %input_1, %permute)\n"
      "      %sigmoid = aten.sigmoid.default(%addmm)\n"
      "      %mul = aten.mul.Tensor(%addmm, %sigmoid)\n"
      "      return (%mul)\n";
  const std::string body1 =
      "    @1 = graph(%mul, %p_1_0_weight, %p_1_0_bias):\n"
      "      %permute_1 = aten.permute.default(%p_1_0_weight, [1, 0])\n"
      "      %addmm_1 = aten.addmm.default(%p_1_0_bias, %mul, %permute_1)\n"
      "      %tanh = aten.tanh.default(%addmm_1)\n"
      "      return (%tanh)\n";
  SUBCASE("outline only: a flatten/unflatten pair sits between the calls") {
    ir::ExportedProgram ep = l.program;
    passes::PipelineOptions options;
    options.outline_modules = {"0", "1"};
    testing::run_passes(ep, {"outline_modules"}, options);
    CHECK(golden(ep.graph()) ==
          block0 +
              "  %tree_flatten_spec = pteforge.tree_flatten_spec(%_0, spec=*)\n"
              "  %mul = _operator.getitem(%tree_flatten_spec, 0)\n"
              "  %tree_unflatten_1 = pteforge.tree_unflatten(%mul, spec=((*,), {}))\n"
              "  %getitem_2 = _operator.getitem(%tree_unflatten_1, 0)\n"
              "  %getitem_3 = _operator.getitem(%getitem_2, 0)\n"
              "  %_1 = pteforge.call_module(@1, %getitem_3, captured={'p_1_0_weight': %p_1_0_weight, 'p_1_0_bias': "
              "%p_1_0_bias})\n" +
              body1 +
              "  %tree_flatten_spec_1 = pteforge.tree_flatten_spec(%_1, spec=*)\n"
              "  %tanh = _operator.getitem(%tree_flatten_spec_1, 0)\n"
              "  return (%tanh)\n");
  }
  SUBCASE("remove_pytree_pairs: block 1 takes block 0's result directly") {
    ir::ExportedProgram ep = l.program;
    passes::PipelineOptions options;
    options.outline_modules = {"0", "1"};
    passes::PassReport report = testing::run_passes(ep, {"outline_modules", "remove_pytree_pairs"}, options);
    CHECK(golden(ep.graph()) ==
          block0 +
              "  %_1 = pteforge.call_module(@1, %_0, captured={'p_1_0_weight': %p_1_0_weight, 'p_1_0_bias': "
              "%p_1_0_bias})\n" +
              body1 +
              "  %tree_flatten_spec_1 = pteforge.tree_flatten_spec(%_1, spec=*)\n"
              "  %tanh = _operator.getitem(%tree_flatten_spec_1, 0)\n"
              "  return (%tanh)\n");
    REQUIRE(report.passes.size() == 2);
    CHECK(report.passes[1].stats.at("pairs_removed") == 1);
    CHECK(report.passes[1].nodes_before == 12);
    CHECK(report.passes[1].nodes_after == 7);
  }
}

TEST_CASE("outline_modules: nested_modules, three nested preserved modules") {
  auto l = testing::load(kNested);
  ir::ExportedProgram ep = l.program;
  // Requested outermost first: nested ones are outlined first anyway.
  REQUIRE(passes::outline(ep, {"encoder", "encoder.layer.1", "encoder.layer.0"}).ok());
  CHECK(golden(ep.graph()) ==
        "graph(%p_encoder_layer_0_fc_weight, %p_encoder_layer_0_fc_bias, %p_encoder_layer_1_fc_weight, "
        "%p_encoder_layer_1_fc_bias, %p_head_weight, %p_head_bias, %x):\n"
        "  %tree_unflatten_2 = pteforge.tree_unflatten(%x, spec=((*,), {}))\n"
        "  %getitem_4 = _operator.getitem(%tree_unflatten_2, 0)\n"
        "  %getitem_5 = _operator.getitem(%getitem_4, 0)\n"
        "  %encoder = pteforge.call_module(@encoder, %getitem_5, captured={'p_encoder_layer_0_fc_weight': "
        "%p_encoder_layer_0_fc_weight, 'p_encoder_layer_0_fc_bias': %p_encoder_layer_0_fc_bias, "
        "'p_encoder_layer_1_fc_weight': %p_encoder_layer_1_fc_weight, 'p_encoder_layer_1_fc_bias': "
        "%p_encoder_layer_1_fc_bias})\n"
        "    @encoder = graph(%x, %p_encoder_layer_0_fc_weight, %p_encoder_layer_0_fc_bias, "
        "%p_encoder_layer_1_fc_weight, %p_encoder_layer_1_fc_bias):\n"
        "      %tree_unflatten_1 = pteforge.tree_unflatten(%x, spec=((*,), {}))\n"
        "      %getitem_2 = _operator.getitem(%tree_unflatten_1, 0)\n"
        "      %getitem_3 = _operator.getitem(%getitem_2, 0)\n"
        "      %encoder_layer_0 = pteforge.call_module(@encoder.layer.0, %getitem_3, "
        "captured={'p_encoder_layer_0_fc_weight': %p_encoder_layer_0_fc_weight, 'p_encoder_layer_0_fc_bias': "
        "%p_encoder_layer_0_fc_bias})\n"
        "        @encoder.layer.0 = graph(%x, %p_encoder_layer_0_fc_weight, %p_encoder_layer_0_fc_bias):\n"
        "          %permute = aten.permute.default(%p_encoder_layer_0_fc_weight, [1, 0])\n"
        "          %addmm = aten.addmm.default(%p_encoder_layer_0_fc_bias, %x, %permute)\n"
        "          %gelu = aten.gelu.default(%addmm)\n"
        "          return (%gelu)\n"
        "      %encoder_layer_1 = pteforge.call_module(@encoder.layer.1, %encoder_layer_0, "
        "captured={'p_encoder_layer_1_fc_weight': %p_encoder_layer_1_fc_weight, 'p_encoder_layer_1_fc_bias': "
        "%p_encoder_layer_1_fc_bias})\n"
        "        @encoder.layer.1 = graph(%gelu, %p_encoder_layer_1_fc_weight, %p_encoder_layer_1_fc_bias):\n"
        "          %permute_1 = aten.permute.default(%p_encoder_layer_1_fc_weight, [1, 0])\n"
        "          %addmm_1 = aten.addmm.default(%p_encoder_layer_1_fc_bias, %gelu, %permute_1)\n"
        "          %gelu_1 = aten.gelu.default(%addmm_1, approximate='tanh')\n"
        "          return (%gelu_1)\n"
        "      %tree_flatten_spec = pteforge.tree_flatten_spec(%encoder_layer_1, spec=*)\n"
        "      %gelu_1 = _operator.getitem(%tree_flatten_spec, 0)\n"
        "      return (%gelu_1)\n"
        "  %tree_flatten_spec_2 = pteforge.tree_flatten_spec(%encoder, spec=*)\n"
        "  %gelu_1 = _operator.getitem(%tree_flatten_spec_2, 0)\n"
        "  %permute_2 = aten.permute.default(%p_head_weight, [1, 0])\n"
        "  %addmm_2 = aten.addmm.default(%p_head_bias, %gelu_1, %permute_2)\n"
        "  return (%addmm_2)\n");
  // The nested calls carry the frames of their parent module (root, encoder).
  const ir::GraphArgument* body = passes::module_swap::call_module_body(*ep.graph().find_node("encoder"));
  REQUIRE(body != nullptr);
  const ir::Node* inner = body->graph->find_node("encoder_layer_1");
  REQUIRE(inner != nullptr);
  REQUIRE(inner->metadata().nn_module_stack);
  REQUIRE(inner->metadata().nn_module_stack->size() == 2);
  CHECK(inner->metadata().nn_module_stack->back().path == "encoder");
}

TEST_CASE("outline_modules: the two layers of nested_modules, connected directly") {
  auto l = testing::load(kNested);
  ir::ExportedProgram ep = l.program;
  REQUIRE(passes::outline(ep, {"encoder.layer.0", "encoder.layer.1"}).ok());
  CHECK(golden(ep.graph()) ==
        "graph(%p_encoder_layer_0_fc_weight, %p_encoder_layer_0_fc_bias, %p_encoder_layer_1_fc_weight, "
        "%p_encoder_layer_1_fc_bias, %p_head_weight, %p_head_bias, %x):\n"
        "  %tree_unflatten = pteforge.tree_unflatten(%x, spec=((*,), {}))\n"
        "  %getitem = _operator.getitem(%tree_unflatten, 0)\n"
        "  %getitem_1 = _operator.getitem(%getitem, 0)\n"
        "  %encoder_layer_0 = pteforge.call_module(@encoder.layer.0, %getitem_1, "
        "captured={'p_encoder_layer_0_fc_weight': %p_encoder_layer_0_fc_weight, 'p_encoder_layer_0_fc_bias': "
        "%p_encoder_layer_0_fc_bias})\n"
        "    @encoder.layer.0 = graph(%x, %p_encoder_layer_0_fc_weight, %p_encoder_layer_0_fc_bias):\n"
        "      %permute = aten.permute.default(%p_encoder_layer_0_fc_weight, [1, 0])\n"
        "      %addmm = aten.addmm.default(%p_encoder_layer_0_fc_bias, %x, %permute)\n"
        "      %gelu = aten.gelu.default(%addmm)\n"
        "      return (%gelu)\n"
        "  %encoder_layer_1 = pteforge.call_module(@encoder.layer.1, %encoder_layer_0, "
        "captured={'p_encoder_layer_1_fc_weight': %p_encoder_layer_1_fc_weight, 'p_encoder_layer_1_fc_bias': "
        "%p_encoder_layer_1_fc_bias})\n"
        "    @encoder.layer.1 = graph(%gelu, %p_encoder_layer_1_fc_weight, %p_encoder_layer_1_fc_bias):\n"
        "      %permute_1 = aten.permute.default(%p_encoder_layer_1_fc_weight, [1, 0])\n"
        "      %addmm_1 = aten.addmm.default(%p_encoder_layer_1_fc_bias, %gelu, %permute_1)\n"
        "      %gelu_1 = aten.gelu.default(%addmm_1, approximate='tanh')\n"
        "      return (%gelu_1)\n"
        "  %tree_flatten_spec_1 = pteforge.tree_flatten_spec(%encoder_layer_1, spec=*)\n"
        "  %gelu_1 = _operator.getitem(%tree_flatten_spec_1, 0)\n"
        "  %permute_2 = aten.permute.default(%p_head_weight, [1, 0])\n"
        "  %addmm_2 = aten.addmm.default(%p_head_bias, %gelu_1, %permute_2)\n"
        "  return (%addmm_2)\n");
}

TEST_CASE("inline_modules: outline then inline gives the original program back") {
  struct Case {
    const char* path;
    std::vector<std::string> fqns;
  };
  const Case cases[] = {
      {kPreserved, {"1"}},
      {kPreserved, {"0"}},
      {kPreserved, {"0", "1"}},
      {kNested, {"encoder.layer.1"}},
      {kNested, {"encoder.layer.0", "encoder.layer.1"}},
      {kNested, {"encoder"}},
      {kNested, {"encoder", "encoder.layer.0", "encoder.layer.1"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.path);
    CAPTURE(c.fqns.size());
    auto l = testing::load(c.path);
    ir::ExportedProgram ep = l.program;
    passes::PipelineOptions options;
    options.outline_modules = c.fqns;
    passes::PassReport report =
        testing::run_passes(ep, {"outline_modules", "remove_pytree_pairs", "inline_modules"}, options);
    testing::expect_same_program(ep, l.program);
    REQUIRE(report.passes.size() == 3);
    CHECK(report.passes[2].nodes_after == l.program.graph().num_nodes());
    CHECK(report.passes[2].stats.at("calls_inlined") == static_cast<int64_t>(c.fqns.size()));
    CHECK(report.passes[2].stats.count("values_renamed") == 0);
  }
}

TEST_CASE("inline_modules: a program without module calls is unchanged") {
  auto l = testing::load(kNested);
  ir::ExportedProgram ep = l.program;
  passes::PassReport report = testing::run_passes(ep, {"inline_modules", "remove_pytree_pairs"});
  CHECK_FALSE(report.passes[0].changed);
  CHECK_FALSE(report.passes[1].changed);
  testing::expect_same_program(ep, l.program);
}

TEST_CASE("module partitions: membership, call counts, nesting order") {
  auto l = testing::load(kNested);
  ir::ExportedProgram& ep = l.program;
  namespace ms = passes::module_swap;
  CHECK(ms::module_nodes(ep.graph(), "encoder").size() == 6);
  CHECK(ms::module_nodes(ep.graph(), "encoder.layer.1").size() == 3);
  CHECK(ms::module_nodes(ep.graph(), "encoder.layer").empty());  // the ModuleList is never called
  CHECK(ms::module_nodes(ep.graph(), "head").size() == 2);
  CHECK(ms::module_call_count(ep, "encoder.layer.0") == 1);
  CHECK(ms::module_call_count(ep, "encoder.layer") == 0);  // the ModuleList itself is never called
  CHECK(ms::module_call_count(ep, "head") == 1);
  CHECK(ms::module_call_count(ep, "nope") == 0);
  CHECK(ms::preserved_modules(ep) == std::vector<std::string>{"encoder", "encoder.layer.0", "encoder.layer.1"});
  CHECK(ms::innermost_first({"a", "a.b.c", "b", "a.b"}) == std::vector<std::string>{"a.b.c", "a.b", "a", "b"});
  CHECK(ms::is_same_or_submodule("a.b", "a"));
  CHECK_FALSE(ms::is_same_or_submodule("ab", "a"));
  CHECK(ms::module_node_base("encoder.layer.1") == "encoder_layer_1");
  CHECK(ms::module_node_base("1") == "_1");
}

TEST_CASE("outline_modules: None and unused inputs become None leaves, keyword arguments a kwargs dict") {
  using namespace pteforge::ir;
  testing::ProgramBuilder pb;
  const testing::Out t{ScalarType::Float, {2, 3}};
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto y = pb.input("y", ScalarType::Float, {2, 3});
  auto r = pb.call("aten.relu.default", {arg_tensor(x)}, t);
  auto a = pb.call("aten.add.Tensor", {arg_tensor(r), arg_tensor(y)}, t);
  auto n = pb.call("aten.neg.default", {arg_tensor(a)}, t);
  pb.output(n);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), r, {"m"});
  testing::set_stack(ep.graph(), a, {"m"});
  // m(x, None, gone, scale=y): input 1 is None, input 2 was removed at export.
  testing::preserve(ep, "m", {x, "", "gone", y}, {a}, testing::args_spec(3, {"scale"}), testing::out_spec(1));
  const ExportedProgram original = ep;
  REQUIRE(passes::outline(ep, {"m"}).ok());
  CHECK(golden(ep.graph()) ==
        "graph(%x, %y):\n"
        "  %tree_unflatten = pteforge.tree_unflatten(%x, None, None, %y, spec=((*, *, *), {'scale': *}))\n"
        "  %getitem = _operator.getitem(%tree_unflatten, 0)\n"
        "  %getitem_1 = _operator.getitem(%getitem, 0)\n"
        "  %getitem_2 = _operator.getitem(%tree_unflatten, 1)\n"
        "  %getitem_3 = _operator.getitem(%getitem_2, 'scale')\n"
        "  %m = pteforge.call_module(@m, %getitem_1, None, None, kwargs={'scale': %getitem_3})\n"
        "    @m = graph(%x, None, None, %y):\n"
        "      %relu = aten.relu.default(%x)\n"
        "      %add = aten.add.Tensor(%relu, %y)\n"
        "      return (%add)\n"
        "  %tree_flatten_spec = pteforge.tree_flatten_spec(%m, spec=*)\n"
        "  %add = _operator.getitem(%tree_flatten_spec, 0)\n"
        "  %neg = aten.neg.default(%add)\n"
        "  return (%neg)\n");
  testing::run_passes(ep, {"inline_modules"});
  testing::expect_same_program(ep, original);
}
