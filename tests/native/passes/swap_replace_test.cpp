// swap_modules end to end at the IR level: the corpus swap pair and the
// nested_modules replacements of tests/fixtures/swap (graphs, state with its
// payload sources, numbers).
#include <doctest/doctest.h>

#include "passes/swap_test_util.h"

using namespace pteforge;
using pteforge::testing::golden;
using pteforge::testing::kPreserved;
using pteforge::testing::kNested;
using pteforge::testing::kReplacement1;

namespace {

/// "fqn placeholder <- source:entry (bytes)" per bound tensor.
std::vector<std::string> state_lines(const ir::ExportedProgram& ep) {
  std::vector<std::string> out;
  for (const auto& t : ep.state.tensors) {
    const ir::PayloadStorage& s = ep.state.storage_of(t);
    out.push_back(t.fqn + " " + t.placeholder + " <- " + (s.source.empty() ? "main" : s.source) + ":" + s.entry() +
                  " (" + std::to_string(s.size_bytes) + ")");
  }
  return out;
}

passes::PassReport swap(ir::ExportedProgram& ep, std::vector<passes::SwapRequest> swaps) {
  passes::PipelineOptions options;
  options.swaps = std::move(swaps);
  return testing::run_passes(ep, {"swap_modules"}, options);
}

}  // namespace

TEST_CASE("swap_modules: modules_preserved block '1' replaced by replacement_1.pt2 (corpus pair)") {
  auto base = testing::load(kPreserved);
  auto rep = testing::load(kReplacement1, passes::swap_source_label("1"));
  ir::ExportedProgram ep = base.program;
  passes::PassReport report = swap(ep, {{"1", testing::share(rep.program)}});

  CHECK(ir::print_exported_program(ep) ==
        "# input parameter %p_0_0_weight <- 0.0.weight\n"
        "# input parameter %p_0_0_bias <- 0.0.bias\n"
        "# input parameter %p_1_fc1_weight <- 1.fc1.weight\n"
        "# input parameter %p_1_fc1_bias <- 1.fc1.bias\n"
        "# input parameter %p_1_fc2_weight <- 1.fc2.weight\n"
        "# input parameter %p_1_fc2_bias <- 1.fc2.bias\n"
        "# input user_input %input_1\n"
        "# output user_output %tanh\n"
        "graph(%p_0_0_weight, %p_0_0_bias, %p_1_fc1_weight, %p_1_fc1_bias, %p_1_fc2_weight, %p_1_fc2_bias, "
        "%input_1):\n"
        "  %permute = aten.permute.default(%p_0_0_weight, [1, 0])\n"
        "  %addmm = aten.addmm.default(%p_0_0_bias, %input_1, %permute)\n"
        "  %sigmoid = aten.sigmoid.default(%addmm)\n"
        "  %mul = aten.mul.Tensor(%addmm, %sigmoid)\n"
        "  %permute_1 = aten.permute.default(%p_1_fc1_weight, [1, 0])\n"
        "  %addmm_1 = aten.addmm.default(%p_1_fc1_bias, %mul, %permute_1)\n"
        "  %relu = aten.relu.default(%addmm_1)\n"
        "  %permute_2 = aten.permute.default(%p_1_fc2_weight, [1, 0])\n"
        "  %tanh = aten.addmm.default(%p_1_fc2_bias, %relu, %permute_2)\n"
        "  return (%tanh)\n");

  // The replacement's weights come along under the module's prefix,
  // referencing the replacement archive's entries; block 1's old ones are gone.
  CHECK(state_lines(ep) == std::vector<std::string>{
                               "0.0.weight p_0_0_weight <- main:data/weights/weight_0 (120)",
                               "0.0.bias p_0_0_bias <- main:data/weights/weight_1 (20)",
                               "1.fc1.weight p_1_fc1_weight <- swap:1:data/weights/weight_0 (160)",
                               "1.fc1.bias p_1_fc1_bias <- swap:1:data/weights/weight_1 (32)",
                               "1.fc2.weight p_1_fc2_weight <- swap:1:data/weights/weight_2 (128)",
                               "1.fc2.bias p_1_fc2_bias <- swap:1:data/weights/weight_3 (16)",
                           });
  CHECK(ep.state.storages.size() == 6);
  CHECK(ep.state.find("1.0.weight") == nullptr);
  CHECK(ep.state.find("1.fc2.bias")->sizes == std::vector<int64_t>{4});

  // module_call_graph: block 1's children are replaced by the replacement's.
  std::vector<std::string> fqns;
  for (const auto& e : ep.graph_module.module_call_graph) fqns.push_back(e.fqn + (e.signature ? "*" : ""));
  CHECK(fqns == std::vector<std::string>{"*", "0*", "0.0", "0.1", "1*", "1.fc1", "1.fc2"});

  // Metadata: the new nodes sit under module '1' with the replacement's class.
  const ir::Node* relu = ep.graph().find_node("relu");
  REQUIRE(relu != nullptr);
  CHECK(ir::format_nn_module_stack(*relu->metadata().nn_module_stack) ==
        "L__self__,,torch.nn.modules.container.Sequential;L__self__1,1,__main__.ReluMLP");
  const ir::Node* fc2 = ep.graph().find_node("tanh");
  CHECK(ir::format_nn_module_stack(*fc2->metadata().nn_module_stack) ==
        "L__self__,,torch.nn.modules.container.Sequential;L__self__1,1,__main__.ReluMLP;"
        "L__self__fc2,1.fc2,torch.nn.modules.linear.Linear");
  CHECK_FALSE(fc2->origin().known());

  REQUIRE(report.passes.size() == 1);
  const auto& stats = report.passes[0].stats;
  CHECK(report.passes[0].changed);
  CHECK(stats.at("outline_modules.modules_outlined") == 1);
  CHECK(stats.at("replace_modules.modules_replaced") == 1);
  CHECK(stats.at("replace_modules.state_added") == 4);
  CHECK(stats.at("replace_modules.state_removed") == 2);
  CHECK(stats.at("inline_modules.calls_inlined") == 1);
  CHECK(stats.count("remove_pytree_pairs.pairs_removed") == 0);

  // Numbers: the swapped program computes fc2(relu(fc1(silu(lin_0(input))))).
  const std::map<std::string, std::string> roots = {{"", kPreserved},
                                                    {"swap:1", "fixtures/corpus/modules_preserved_swap/json"}};
  auto runs = testing::read_runs("fixtures/corpus/modules_preserved_swap/io.json");
  auto unswapped = testing::read_runs("fixtures/corpus/modules_preserved_swap/io.json", "runs", "reference_unswapped");
  REQUIRE(runs.size() == 2);
  for (size_t i = 0; i < runs.size(); ++i) {
    CAPTURE(i);
    auto got = testing::evaluate(ep, runs[i].inputs, roots);
    REQUIRE(got.size() == 1);
    testing::check_close(got[0], runs[i].outputs[0]);
    // ... and the untouched base program still computes the reference.
    auto before = testing::evaluate(base.program, runs[i].inputs, roots);
    testing::check_close(before[0], unswapped[i].outputs[0]);
    CHECK(testing::differs(got[0], before[0]));
  }
  // The replacement alone, for the evaluator's sake.
  auto rep_runs = testing::read_runs("fixtures/corpus/modules_preserved_swap/io.json", "replacement_runs");
  for (const auto& r : rep_runs) {
    testing::check_close(testing::evaluate(rep.program, r.inputs, {{"swap:1", "fixtures/corpus/modules_preserved_swap/json"}})[0],
                         r.outputs[0]);
  }
}

TEST_CASE("swap_modules: nested_modules encoder.layer.1 replaced by an equivalent block with new weights") {
  auto base = testing::load(kNested);
  auto rep = testing::load("fixtures/swap/layer1_gelu", passes::swap_source_label("encoder.layer.1"));
  ir::ExportedProgram ep = base.program;
  swap(ep, {{"encoder.layer.1", testing::share(rep.program)}});
  // Same nodes and names as before (legalize, in torch.fx's order as the seed
  // runs it, moved the head's weight permute up) ...
  CHECK(ir::print_graph(ep.graph()) ==
        "graph(%p_encoder_layer_0_fc_weight, %p_encoder_layer_0_fc_bias, %p_encoder_layer_1_fc_weight, "
        "%p_encoder_layer_1_fc_bias, %p_head_weight, %p_head_bias, %x):\n"
        "  %permute = aten.permute.default(%p_encoder_layer_0_fc_weight, [1, 0])\n"
        "  %permute_2 = aten.permute.default(%p_head_weight, [1, 0])\n"
        "  %addmm = aten.addmm.default(%p_encoder_layer_0_fc_bias, %x, %permute)\n"
        "  %gelu = aten.gelu.default(%addmm)\n"
        "  %permute_1 = aten.permute.default(%p_encoder_layer_1_fc_weight, [1, 0])\n"
        "  %addmm_1 = aten.addmm.default(%p_encoder_layer_1_fc_bias, %gelu, %permute_1)\n"
        "  %gelu_1 = aten.gelu.default(%addmm_1, approximate='tanh')\n"
        "  %addmm_2 = aten.addmm.default(%p_head_bias, %gelu_1, %permute_2)\n"
        "  return (%addmm_2)\n");
  CHECK(ep.graph_module.signature == base.program.graph_module.signature);
  // ... but the block's parameters now come from the replacement archive.
  CHECK(state_lines(ep) ==
        std::vector<std::string>{
            "encoder.layer.0.fc.weight p_encoder_layer_0_fc_weight <- main:data/weights/weight_0 (256)",
            "encoder.layer.0.fc.bias p_encoder_layer_0_fc_bias <- main:data/weights/weight_1 (32)",
            "encoder.layer.1.fc.weight p_encoder_layer_1_fc_weight <- swap:encoder.layer.1:data/weights/weight_0 (256)",
            "encoder.layer.1.fc.bias p_encoder_layer_1_fc_bias <- swap:encoder.layer.1:data/weights/weight_1 (32)",
            "head.weight p_head_weight <- main:data/weights/weight_4 (96)",
            "head.bias p_head_bias <- main:data/weights/weight_5 (12)",
        });
  const std::map<std::string, std::string> roots = {{"", kNested}, {"swap:encoder.layer.1", "fixtures/swap/layer1_gelu"}};
  auto runs = testing::read_runs("fixtures/swap/layer1_gelu.io.json");
  auto base_runs = testing::read_runs("fixtures/programs/nested_modules.io.json");
  REQUIRE(runs.size() == 2);
  for (size_t i = 0; i < runs.size(); ++i) {
    auto got = testing::evaluate(ep, runs[i].inputs, roots);
    testing::check_close(got[0], runs[i].outputs[0]);
    testing::check_close(testing::evaluate(base.program, base_runs[i].inputs, roots)[0], base_runs[i].outputs[0]);
    CHECK(testing::differs(got[0], base_runs[i].outputs[0]));
  }
}

TEST_CASE("swap_modules: encoder.layer.1 replaced by a block with other ops (GELU -> ReLU MLP)") {
  auto base = testing::load(kNested);
  auto rep = testing::load("fixtures/swap/layer1_relu_mlp", passes::swap_source_label("encoder.layer.1"));
  ir::ExportedProgram ep = base.program;
  swap(ep, {{"encoder.layer.1", testing::share(rep.program)}});
  CHECK(ir::print_exported_program(ep) ==
        "# input parameter %p_encoder_layer_0_fc_weight <- encoder.layer.0.fc.weight\n"
        "# input parameter %p_encoder_layer_0_fc_bias <- encoder.layer.0.fc.bias\n"
        "# input parameter %p_encoder_layer_1_up_weight <- encoder.layer.1.up.weight\n"
        "# input parameter %p_encoder_layer_1_up_bias <- encoder.layer.1.up.bias\n"
        "# input parameter %p_encoder_layer_1_down_weight <- encoder.layer.1.down.weight\n"
        "# input parameter %p_encoder_layer_1_down_bias <- encoder.layer.1.down.bias\n"
        "# input parameter %p_head_weight <- head.weight\n"
        "# input parameter %p_head_bias <- head.bias\n"
        "# input user_input %x\n"
        "# output user_output %addmm_2\n"
        "graph(%p_encoder_layer_0_fc_weight, %p_encoder_layer_0_fc_bias, %p_encoder_layer_1_up_weight, "
        "%p_encoder_layer_1_up_bias, %p_encoder_layer_1_down_weight, %p_encoder_layer_1_down_bias, %p_head_weight, "
        "%p_head_bias, %x):\n"
        "  %permute = aten.permute.default(%p_encoder_layer_0_fc_weight, [1, 0])\n"
        "  %permute_2 = aten.permute.default(%p_head_weight, [1, 0])\n"
        "  %addmm = aten.addmm.default(%p_encoder_layer_0_fc_bias, %x, %permute)\n"
        "  %gelu = aten.gelu.default(%addmm)\n"
        "  %permute_1 = aten.permute.default(%p_encoder_layer_1_up_weight, [1, 0])\n"
        "  %addmm_1 = aten.addmm.default(%p_encoder_layer_1_up_bias, %gelu, %permute_1)\n"
        "  %relu = aten.relu.default(%addmm_1)\n"
        "  %permute_3 = aten.permute.default(%p_encoder_layer_1_down_weight, [1, 0])\n"
        "  %gelu_1 = aten.addmm.default(%p_encoder_layer_1_down_bias, %relu, %permute_3)\n"
        "  %addmm_2 = aten.addmm.default(%p_head_bias, %gelu_1, %permute_2)\n"
        "  return (%addmm_2)\n");
  CHECK(ep.state.tensors.size() == 8);
  CHECK(ep.state.find("encoder.layer.1.up.weight")->sizes == std::vector<int64_t>{16, 8});
  CHECK(ep.state.storage_of(*ep.state.find("encoder.layer.1.down.bias")).entry() == "data/weights/weight_3");
  CHECK(ir::format_tensor_type(*ep.graph().tensor_meta("relu")) == "float32[4, 16]");
  const std::map<std::string, std::string> roots = {{"", kNested},
                                                    {"swap:encoder.layer.1", "fixtures/swap/layer1_relu_mlp"}};
  for (const auto& r : testing::read_runs("fixtures/swap/layer1_relu_mlp.io.json")) {
    testing::check_close(testing::evaluate(ep, r.inputs, roots)[0], r.outputs[0]);
  }
}

TEST_CASE("swap_modules: the whole encoder (with its preserved layers) replaced") {
  auto base = testing::load(kNested);
  auto rep = testing::load("fixtures/swap/encoder_relu", passes::swap_source_label("encoder"));
  ir::ExportedProgram ep = base.program;
  passes::PassReport report = swap(ep, {{"encoder", testing::share(rep.program)}});
  CHECK(ir::print_graph(ep.graph()) ==
        "graph(%p_encoder_proj_weight, %p_encoder_proj_bias, %p_head_weight, %p_head_bias, %x):\n"
        "  %permute_2 = aten.permute.default(%p_head_weight, [1, 0])\n"
        "  %permute = aten.permute.default(%p_encoder_proj_weight, [1, 0])\n"
        "  %addmm = aten.addmm.default(%p_encoder_proj_bias, %x, %permute)\n"
        "  %gelu_1 = aten.relu.default(%addmm)\n"
        "  %addmm_2 = aten.addmm.default(%p_head_bias, %gelu_1, %permute_2)\n"
        "  return (%addmm_2)\n");
  CHECK(report.passes[0].stats.at("replace_modules.state_removed") == 4);
  std::vector<std::string> fqns;
  for (const auto& e : ep.graph_module.module_call_graph) fqns.push_back(e.fqn + (e.signature ? "*" : ""));
  CHECK(fqns == std::vector<std::string>{"*", "encoder*", "encoder.proj", "head"});
  const std::map<std::string, std::string> roots = {{"", kNested}, {"swap:encoder", "fixtures/swap/encoder_relu"}};
  for (const auto& r : testing::read_runs("fixtures/swap/encoder_relu.io.json")) {
    testing::check_close(testing::evaluate(ep, r.inputs, roots)[0], r.outputs[0]);
  }
}

TEST_CASE("swap_modules: both layers swapped at once (their module calls connect directly)") {
  auto base = testing::load(kNested);
  auto r0 = testing::load("fixtures/swap/layer1_relu_mlp", passes::swap_source_label("encoder.layer.0"));
  auto r1 = testing::load("fixtures/swap/layer1_gelu", passes::swap_source_label("encoder.layer.1"));
  ir::ExportedProgram ep = base.program;
  passes::PassReport report =
      swap(ep, {{"encoder.layer.0", testing::share(r0.program)}, {"encoder.layer.1", testing::share(r1.program)}});
  CHECK(report.passes[0].stats.at("remove_pytree_pairs.pairs_removed") == 1);
  CHECK(ir::print_graph(ep.graph()) ==
        "graph(%p_encoder_layer_0_up_weight, %p_encoder_layer_0_up_bias, %p_encoder_layer_0_down_weight, "
        "%p_encoder_layer_0_down_bias, %p_encoder_layer_1_fc_weight, %p_encoder_layer_1_fc_bias, "
        "%p_head_weight, "
        "%p_head_bias, %x):\n"
        "  %permute_2 = aten.permute.default(%p_head_weight, [1, 0])\n"
        "  %permute = aten.permute.default(%p_encoder_layer_0_up_weight, [1, 0])\n"
        "  %addmm = aten.addmm.default(%p_encoder_layer_0_up_bias, %x, %permute)\n"
        "  %relu = aten.relu.default(%addmm)\n"
        "  %permute_1 = aten.permute.default(%p_encoder_layer_0_down_weight, [1, 0])\n"
        "  %gelu = aten.addmm.default(%p_encoder_layer_0_down_bias, %relu, %permute_1)\n"
        "  %permute_3 = aten.permute.default(%p_encoder_layer_1_fc_weight, [1, 0])\n"
        "  %addmm_1 = aten.addmm.default(%p_encoder_layer_1_fc_bias, %gelu, %permute_3)\n"
        "  %gelu_1 = aten.gelu.default(%addmm_1, approximate='tanh')\n"
        "  %addmm_2 = aten.addmm.default(%p_head_bias, %gelu_1, %permute_2)\n"
        "  return (%addmm_2)\n");
  // Layer 0's result keeps its name (gelu) though no getitem carried it
  // (the pair between the calls was removed): every value the call
  // signatures name is still in the graph.
  for (const auto& e : ep.graph_module.module_call_graph) {
    if (!e.signature) continue;
    for (const auto* list : {&e.signature->inputs, &e.signature->outputs}) {
      for (const ir::Argument& a : *list) {
        if (const std::string* n = a.value_name()) {
          CAPTURE(e.fqn);
          CAPTURE(*n);
          CHECK(ep.graph().find_value(*n) != nullptr);
        }
      }
    }
  }
  const std::map<std::string, std::string> roots = {{"", kNested},
                                                    {"swap:encoder.layer.0", "fixtures/swap/layer1_relu_mlp"},
                                                    {"swap:encoder.layer.1", "fixtures/swap/layer1_gelu"}};
  for (const auto& r : testing::read_runs("fixtures/swap/double_swap.io.json")) {
    testing::check_close(testing::evaluate(ep, r.inputs, roots)[0], r.outputs[0]);
  }
}

TEST_CASE("swap_modules: a no-op without swap requests") {
  auto base = testing::load(kNested);
  ir::ExportedProgram ep = base.program;
  passes::PassReport report = testing::run_passes(ep, {"swap_modules"});
  CHECK_FALSE(report.passes[0].changed);
  testing::expect_same_program(ep, base.program);
}

TEST_CASE("swap_modules: requests for another method are ignored") {
  auto base = testing::load(kNested);
  auto rep = testing::load("fixtures/swap/layer1_gelu", passes::swap_source_label("encoder.layer.1"));
  ir::ExportedProgram ep = base.program;
  passes::PassReport report = swap(ep, {{"encoder.layer.1", testing::share(rep.program), "encode"}});
  CHECK_FALSE(report.passes[0].changed);
  testing::expect_same_program(ep, base.program);
  report = swap(ep, {{"encoder.layer.1", testing::share(rep.program), "forward"}});
  CHECK(report.passes[0].changed);
  CHECK(ep.state.storage_of(*ep.state.find("encoder.layer.1.fc.weight")).source == "swap:encoder.layer.1");
}

TEST_CASE("swap_modules: state the old module shares with the rest of the program stays") {
  using namespace pteforge::ir;
  testing::ProgramBuilder pb;
  const testing::Out t{ScalarType::Float, {2, 3}};
  auto w = pb.parameter("p_w", "w", ScalarType::Float, {2, 3});
  auto u = pb.parameter("p_m_u", "m.u", ScalarType::Float, {2, 3});
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto a = pb.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(w)}, t);
  auto b = pb.call("aten.mul.Tensor", {arg_tensor(a), arg_tensor(u)}, t);
  auto c = pb.call("aten.mul.Tensor", {arg_tensor(b), arg_tensor(w)}, t);
  pb.output(c);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), a, {"m"});
  testing::set_stack(ep.graph(), b, {"m"});
  testing::preserve(ep, "m", {x}, {b}, testing::args_spec(1), testing::out_spec(1));
  testing::ProgramBuilder rb;
  auto k = rb.parameter("p_k", "k", ScalarType::Float, {2, 3});
  auto y = rb.input("y", ScalarType::Float, {2, 3});
  rb.output(rb.call("aten.sub.Tensor", {arg_tensor(y), arg_tensor(k)}, t));
  ExportedProgram rep = rb.build();
  testing::set_root_signature(rep, testing::args_spec(1), testing::out_spec(1));
  passes::PassReport report = swap(ep, {{"m", testing::share(rep)}});
  CHECK(report.passes[0].stats.at("replace_modules.state_removed") == 1);  // m.u; w is tied to the outside
  CHECK(print_exported_program(ep) ==
        "# input parameter %p_w <- w\n"
        "# input parameter %p_m_k <- m.k\n"
        "# input user_input %x\n"
        "# output user_output %mul_1\n"
        "graph(%p_w, %p_m_k, %x):\n"
        "  %mul = aten.sub.Tensor(%x, %p_m_k)\n"
        "  %mul_1 = aten.mul.Tensor(%mul, %p_w)\n"
        "  return (%mul_1)\n");
}

TEST_CASE("swap_modules: keyword arguments and dict results are matched by key, as torch's swap does") {
  using namespace pteforge::ir;
  const testing::Out t{ScalarType::Float, {2, 3}};
  // m(x, *, a, b) = (x * a) - b, called with kwargs in the order a, b.
  testing::ProgramBuilder pb;
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto a = pb.input("a", ScalarType::Float, {2, 3});
  auto b = pb.input("b", ScalarType::Float, {2, 3});
  auto mul = pb.call("aten.mul.Tensor", {arg_tensor(x), arg_tensor(a)}, t);
  auto sub = pb.call("aten.sub.Tensor", {arg_tensor(mul), arg_tensor(b)}, t);
  auto relu = pb.call("aten.relu.default", {arg_tensor(sub)}, t);
  pb.output(relu);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), mul, {"m"});
  testing::set_stack(ep.graph(), sub, {"m"});
  testing::preserve(ep, "m", {x, a, b}, {sub}, testing::args_spec(1, {"a", "b"}), testing::out_spec(1));
  // The replacement: forward(x, *, b, a) = x / b - a, its kwargs in the order b, a.
  testing::ProgramBuilder rb;
  auto rx = rb.input("x", ScalarType::Float, {2, 3});
  auto rbk = rb.input("b", ScalarType::Float, {2, 3});
  auto rak = rb.input("a", ScalarType::Float, {2, 3});
  auto rdiv = rb.call("aten.div.Tensor", {arg_tensor(rx), arg_tensor(rbk)}, t);
  rb.output(rb.call("aten.sub.Tensor", {arg_tensor(rdiv), arg_tensor(rak)}, t));
  ExportedProgram rep = rb.build();
  testing::set_root_signature(rep, testing::args_spec(1, {"b", "a"}), testing::out_spec(1));
  swap(ep, {{"m", testing::share(rep)}});
  // x / b - a: each keyword reached the replacement's input of its name.
  CHECK(print_graph(ep.graph()).find("aten.div.Tensor(%x, %b)") != std::string::npos);
  CHECK(print_graph(ep.graph()).find("aten.sub.Tensor(%div, %a)") != std::string::npos);

  // Results: the module returns {'h': .., 'aux': ..}; the replacement {'aux': .., 'h': ..}.
  auto dict_spec = [](const std::vector<std::string>& keys) {
    TreeSpec s;
    s.root = testing::dict_spec_node(keys);
    return s;
  };
  testing::ProgramBuilder pd;
  auto dx = pd.input("x", ScalarType::Float, {2, 3});
  auto h = pd.call("aten.relu.default", {arg_tensor(dx)}, t);
  auto aux = pd.call("aten.neg.default", {arg_tensor(dx)}, t);
  auto out = pd.call("aten.sub.Tensor", {arg_tensor(h), arg_tensor(aux)}, t);
  pd.output(out);
  ExportedProgram dep = pd.build();
  testing::set_stack(dep.graph(), h, {"m"});
  testing::set_stack(dep.graph(), aux, {"m"});
  testing::preserve(dep, "m", {dx}, {h, aux}, testing::args_spec(1), dict_spec({"h", "aux"}));
  testing::ProgramBuilder rd;
  auto ry = rd.input("y", ScalarType::Float, {2, 3});
  auto raux = rd.call("aten.sigmoid.default", {arg_tensor(ry)}, t);
  auto rh = rd.call("aten.tanh.default", {arg_tensor(ry)}, t);
  rd.output(raux);
  rd.output(rh);
  ExportedProgram drep = rd.build();
  testing::set_root_signature(drep, testing::args_spec(1), dict_spec({"aux", "h"}));
  swap(dep, {{"m", testing::share(drep)}});
  // h - aux = tanh(x) - sigmoid(x): each result reached the use of its key.
  const std::string text = print_graph(dep.graph());
  CHECK(text.find("%relu = aten.tanh.default(%x)") != std::string::npos);
  CHECK(text.find("%neg = aten.sigmoid.default(%x)") != std::string::npos);
  CHECK(text.find("aten.sub.Tensor(%relu, %neg)") != std::string::npos);
}

TEST_CASE("swap_modules: a module result nobody uses (its node removed as dead code) is not reconnected") {
  using namespace pteforge::ir;
  const testing::Out t{ScalarType::Float, {2, 3}};
  // m returns (relu(x), sigmoid(x)); the caller uses only the first, and the
  // sigmoid node is gone (decompose's dead code elimination runs before the swap).
  testing::ProgramBuilder pb;
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto relu = pb.call("aten.relu.default", {arg_tensor(x)}, t);
  auto neg = pb.call("aten.neg.default", {arg_tensor(relu)}, t);
  pb.output(neg);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), relu, {"m"});
  testing::preserve(ep, "m", {x}, {relu, relu}, testing::args_spec(1), testing::out_spec(2));
  ep.graph_module.module_call_graph.back().signature->outputs[1] = arg_tensor("sigmoid");
  testing::ProgramBuilder rb;
  auto y = rb.input("y", ScalarType::Float, {2, 3});
  rb.output(rb.call("aten.tanh.default", {arg_tensor(y)}, t));
  rb.output(rb.call("aten.sigmoid.default", {arg_tensor(y)}, t));
  ExportedProgram rep = rb.build();
  testing::set_root_signature(rep, testing::args_spec(1), testing::out_spec(2));
  swap(ep, {{"m", testing::share(rep)}});
  // The replacement's second result is left unused (eliminate_dead_code removes it later).
  CHECK(print_graph(ep.graph()) ==
        "graph(%x):\n"
        "  %relu = aten.tanh.default(%x)\n"
        "  %sigmoid = aten.sigmoid.default(%x)\n"
        "  %neg = aten.neg.default(%relu)\n"
        "  return (%neg)\n");
}

TEST_CASE("swap_modules: a buffer outside the module that gets the module's result stays, with its write") {
  using namespace pteforge::ir;
  const testing::Out t{ScalarType::Float, {3}};
  // total is a root buffer read only inside m; m's result is written back into it.
  testing::ProgramBuilder pb;
  auto total = pb.buffer("b_total", "total", ScalarType::Float, {3});
  auto x = pb.input("x", ScalarType::Float, {3});
  auto add = pb.call("aten.add.Tensor", {arg_tensor(total), arg_tensor(x)}, t);
  auto neg = pb.call("aten.neg.default", {arg_tensor(add)}, t);
  pb.output(add, OutputKind::BufferMutation, "total");
  pb.output(neg);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), add, {"m"});
  testing::preserve(ep, "m", {x}, {add}, testing::args_spec(1), testing::out_spec(1));
  testing::ProgramBuilder rb;
  auto y = rb.input("y", ScalarType::Float, {3});
  rb.output(rb.call("aten.tanh.default", {arg_tensor(y)}, t));
  ExportedProgram rep = rb.build();
  testing::set_root_signature(rep, testing::args_spec(1), testing::out_spec(1));
  passes::PassReport report = swap(ep, {{"m", testing::share(rep)}});
  CHECK(report.passes[0].stats.at("replace_modules.state_removed") == 0);
  CHECK(print_exported_program(ep) ==
        "# input buffer %b_total <- total\n"
        "# input user_input %x\n"
        "# output buffer_mutation %add -> total\n"
        "# output user_output %neg\n"
        "graph(%b_total, %x):\n"
        "  %add = aten.tanh.default(%x)\n"
        "  %neg = aten.neg.default(%add)\n"
        "  return (%add, %neg)\n");
}
