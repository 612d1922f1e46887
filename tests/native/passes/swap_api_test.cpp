// The module swap API of module_swap_api.h: the module tree, loading
// replacements (archives, bytes), swapping from bytes, preparing a
// replacement, and swap_modules inside the default pipeline.
#include <doctest/doctest.h>

#include "passes/module_swap/pytree_ir.h"
#include "passes/swap_test_util.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::Out;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::kPreserved;
using pteforge::testing::kNested;
using pteforge::testing::kReplacement1;

TEST_CASE("list_modules: the module tree of nested_modules with node counts and swappability") {
  auto l = testing::load(kNested);
  auto modules = passes::list_modules(l.program);
  CHECK(passes::modules_to_text(modules) ==
        "(root)                       __main__.Model                    8 nodes\n"
        "  encoder                    __main__.Encoder                  6 nodes  preserved  swappable  "
        "in=(float32[4, 8]) out=(float32[4, 8])\n"
        "    encoder.layer                                              0 nodes\n"
        "      encoder.layer.0        __main__.MLPLayer                 3 nodes  preserved  swappable  "
        "in=(float32[4, 8]) out=(float32[4, 8])\n"
        "        encoder.layer.0.fc   torch.nn.modules.linear.Linear    2 nodes\n"
        "        encoder.layer.0.act  torch.nn.modules.activation.GELU  1 node\n"
        "      encoder.layer.1        __main__.MLPLayer                 3 nodes  preserved  swappable  "
        "in=(float32[4, 8]) out=(float32[4, 8])\n"
        "        encoder.layer.1.fc   torch.nn.modules.linear.Linear    2 nodes\n"
        "        encoder.layer.1.act  torch.nn.modules.activation.GELU  1 node\n"
        "  head                       torch.nn.modules.linear.Linear    2 nodes\n");
  REQUIRE(modules.size() == 10);
  CHECK(modules[2].fqn == "encoder.layer");
  CHECK(modules[2].calls == 0);
  CHECK(modules[9].reason ==
        "module 'head' has no preserved call signature in module_call_graph, so its calling convention is unknown");

  rapidjson::Document doc;
  std::string json = passes::modules_to_json(modules);
  doc.Parse(json.c_str());
  REQUIRE(doc.IsArray());
  REQUIRE(doc.Size() == 10);
  const auto& layer1 = doc[6];
  CHECK(std::string(layer1["fqn"].GetString()) == "encoder.layer.1");
  CHECK(layer1["depth"].GetUint() == 3);
  CHECK(layer1["nodes"].GetUint() == 3);
  CHECK(layer1["calls"].GetUint() == 1);
  CHECK(layer1["preserved"].GetBool());
  CHECK(layer1["swappable"].GetBool());
  CHECK(std::string(layer1["in_spec"].GetString()) == "((*,), {})");
  CHECK(std::string(layer1["out_spec"].GetString()) == "*");
  CHECK(std::string(layer1["inputs"][0].GetString()) == "float32[4, 8]");
  CHECK(std::string(doc[0]["reason"].GetString()) == "the root module is the program itself");

  // Several methods in one indented object; names are escaped, the arrays are modules_to_json's.
  const std::vector<passes::ModuleInfo> root(modules.begin(), modules.begin() + 1);
  const std::string both = passes::method_modules_to_json({{"forward", root}, {"odd\"name", {}}});
  CHECK(both ==
        "{\n  \"forward\": [\n    {\n      \"fqn\": \"\",\n      \"type\": \"__main__.Model\",\n      "
        "\"depth\": 0,\n"
        "      \"nodes\": 8,\n      \"calls\": 1,\n      \"preserved\": false,\n      \"swappable\": false,\n"
        "      \"reason\": \"the root module is the program itself\",\n      \"in_spec\": \"\",\n      "
        "\"out_spec\": \"\",\n"
        "      \"inputs\": [],\n      \"outputs\": []\n    }\n  ],\n  \"odd\\\"name\": []\n}\n");
  rapidjson::Document parsed;
  parsed.Parse(both.c_str());
  REQUIRE(parsed.IsObject());
  rapidjson::Document compact;
  compact.Parse(passes::modules_to_json(root).c_str());
  CHECK(parsed["forward"] == compact);
}

TEST_CASE("list_modules: a preserved module that cannot be outlined says why") {
  ProgramBuilder pb;
  const Out t{ScalarType::Float, {2, 3}};
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto r = pb.call("aten.relu.default", {arg_tensor(x)}, t);
  auto n = pb.call("aten.neg.default", {arg_tensor(r)}, t);
  auto a = pb.call("aten.add.Tensor", {arg_tensor(r), arg_tensor(n)}, t);
  pb.output(a);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), r, {"m"});
  testing::set_stack(ep.graph(), a, {"m"});
  testing::preserve(ep, "m", {x}, {r, a}, testing::args_spec(1), testing::out_spec(2));
  auto modules = passes::list_modules(ep);
  REQUIRE(modules.size() == 2);
  CHECK(modules[1].preserved);
  CHECK_FALSE(modules[1].swappable);
  CHECK(modules[1].nodes == 2);
  CHECK(modules[1].out_spec == "(*, *)");
  CHECK(modules[1].reason.rfind("the nodes of module 'm' are not convex", 0) == 0);
  CHECK(passes::modules_to_text(modules) ==
        "(root)  Root  3 nodes\n"
        "  m     M_m   2 nodes  preserved  not swappable: " +
            modules[1].reason + "  in=(float32[2, 3]) out=(float32[2, 3], float32[2, 3])\n");
}

TEST_CASE("list_modules: a module returning its input is not swappable, as every swap of it is refused") {
  // blk(x) = (x, sigmoid(x)): outlining works, replace_modules refuses the
  // pass-through output whatever the replacement.
  ProgramBuilder pb;
  const Out t{ScalarType::Float, {2, 3}};
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto s = pb.call("aten.sigmoid.default", {arg_tensor(x)}, t);
  auto a = pb.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(s)}, t);
  pb.output(a);
  ExportedProgram ep = pb.build();
  testing::set_stack(ep.graph(), s, {"blk"});
  testing::preserve(ep, "blk", {x}, {x, s}, testing::args_spec(1), testing::out_spec(2));
  auto modules = passes::list_modules(ep);
  REQUIRE(modules.size() == 2);
  CHECK(modules[1].preserved);
  CHECK_FALSE(modules[1].swappable);
  CHECK(
      modules[1].reason ==
      "output 0 of module 'blk' is 'x', which the module does not compute (an input or a value from outside "
      "passed through); its uses cannot be told apart from other uses of that value, so swapping this module "
      "is not supported");
}

TEST_CASE("load_program_bytes: a .pt2 in memory, with its weights labelled by source") {
  std::string bytes = testing::read_text(kReplacement1);
  auto ep = passes::load_program_bytes(bytes, "", "swap:1");
  REQUIRE(ep.ok());
  REQUIRE(ep->state.tensors.size() == 4);
  CHECK(ep->state.tensors[0].fqn == "fc1.weight");
  for (const auto& s : ep->state.storages) CHECK(s.source == "swap:1");
  CHECK(ep->state.storages[2].entry() == "data/weights/weight_2");
  CHECK(ep->state.storages[2].size_bytes == 128);

  auto missing = passes::load_program_bytes(bytes, "reset", "x");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::OPTION_INVALID);
  CHECK(missing.error().message == "the input has no method 'reset'; its methods: forward");
}

TEST_CASE("load_program: import, payload config and zero-filled payload warnings go to the caller's list") {
  const std::string dir = "fixtures/corpus/modules_preserved_swap/json/";
  std::vector<std::pair<std::string, std::string>> files;
  for (const char* name :
       {"archive_format", "archive_version", "byteorder", "models/model.json",
        "data/weights/model_weights_config.json", "data/constants/model_constants_config.json",
        "data/weights/weight_1", "data/weights/weight_2", "data/weights/weight_3"}) {
    files.emplace_back(name, testing::read_text(dir + name));
  }
  files.emplace_back("data/weights/weight_0", "");  // fc1.weight, [8, 5]: truncated to nothing
  // An unknown key in the graph: the import ignores it with a warning.
  std::string& json = files[3].second;
  const size_t graph = json.find("\"graph\": {");
  REQUIRE(graph != std::string::npos);
  json.insert(graph + 10, "\"extra_key\": 1, ");
  files[4].second.insert(1, "\"extra_cfg\": 1, ");  // and one in the weights config
  auto archive = serde::MemoryArchive::create(std::move(files));
  REQUIRE(archive.ok());
  auto layout = serde::detect_pt2_layout(**archive);
  REQUIRE(layout.ok());

  std::vector<serde::ImportWarning> warnings;
  auto ep = passes::load_program(**archive, *layout, "", "swap:1", true, &warnings);
  REQUIRE_MESSAGE(ep.ok(), ep.error().to_string());
  REQUIRE(warnings.size() == 3);
  CHECK(warnings[1].message == "unknown field \"extra_cfg\" in PayloadConfig ignored");
  CHECK(warnings[1].where.to_string() ==
        "method=forward entry=data/weights/model_weights_config.json pointer=/extra_cfg");
  warnings.erase(warnings.begin() + 1);
  CHECK(warnings[0].message == "unknown field \"extra_key\" in Graph ignored");
  CHECK(warnings[0].where.to_string() ==
        "method=forward entry=models/model.json pointer=/graph_module/graph/extra_key");
  CHECK(
      warnings[1].message ==
      "the payload of 'fc1.weight' has 0 bytes, so its 40 elements are all zero in the .pte (torch writes no "
      "bytes for a fake tensor; a real weight file of 0 bytes means the archive is damaged)");
  CHECK(warnings[1].where.to_string() == "method=forward entry=data/weights/weight_0");
  CHECK(ep->state.tensors[0].zero_filled);

  // Without a list (list_modules' use), the same load reports nothing and succeeds.
  CHECK(passes::load_program(**archive, *layout, "", "swap:1").ok());
}

TEST_CASE("load_program_bytes: a program JSON has no weights") {
  auto with_state = passes::load_program_bytes(testing::read_text(std::string(kNested) + "/models/model.json"), "", "s");
  REQUIRE_FALSE(with_state.ok());
  CHECK(with_state.error().code == ErrorCode::WEIGHTS_MISSING);
  CHECK(with_state.error().where.method == "forward");
  auto stateless = passes::load_program_bytes(testing::read_text("fixtures/swap/two_inputs/models/model.json"), "", "s");
  REQUIRE(stateless.ok());
  CHECK(stateless->state.empty());
  CHECK(stateless->graph().num_nodes() == 1);
  auto junk = passes::load_program_bytes("PK\x03\x04 not a zip", "", "s");
  REQUIRE_FALSE(junk.ok());
  CHECK(junk.error().code == ErrorCode::ARCHIVE_INVALID);
}

TEST_CASE("swap_from_bytes: the corpus swap with the replacement given as bytes") {
  auto base = testing::load(kPreserved);
  ir::ExportedProgram ep = base.program;
  passes::PassReport report;
  Status st = passes::swap_from_bytes(ep, "1", testing::read_text(kReplacement1), passes::PipelineOptions{}, &report);
  REQUIRE_MESSAGE(st.ok(), st.error().to_string());
  REQUIRE(report.passes.size() == 1);
  CHECK(report.passes[0].name == "swap_modules");
  const std::map<std::string, std::string> roots = {{"", kPreserved},
                                                    {"swap:1", "fixtures/corpus/modules_preserved_swap/json"}};
  for (const auto& r : testing::read_runs("fixtures/corpus/modules_preserved_swap/io.json")) {
    testing::check_close(testing::evaluate(ep, r.inputs, roots)[0], r.outputs[0]);
  }
}

TEST_CASE("swap_modules in the default pipeline") {
  auto base = testing::load(kPreserved);
  auto rep = testing::load(kReplacement1, passes::swap_source_label("1"));
  ir::ExportedProgram ep = base.program;
  passes::PipelineOptions options;
  options.swaps = {{"1", testing::share(rep.program)}};
  options.verify_each = true;
  auto pm = passes::PassManager::create(options);
  REQUIRE(pm.ok());
  passes::MethodState state;
  state.method = "forward";
  passes::PassReport report;
  Status st = pm->run(ep, state, report);
  REQUIRE_MESSAGE(st.ok(), st.error().to_string());
  const passes::PassRecord* rec = nullptr;
  for (const auto& p : report.passes) {
    if (p.name == "swap_modules") rec = &p;
  }
  REQUIRE(rec != nullptr);
  CHECK(rec->changed);
  CHECK_FALSE(rec->skipped);
  CHECK(rec->nodes_before == 7);
  CHECK(rec->nodes_after == 9);
  for (const ir::Node& n : ep.graph()) CHECK_FALSE(passes::module_swap::is_module_swap_node(n));
  CHECK(ep.signature().find_state("1.fc2.weight") >= 0);
}

TEST_CASE("prepare_replacement: runs the pipeline's passes before swap_modules") {
  ProgramBuilder pb;
  const Out t{ScalarType::Float, {2, 3}};
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto r = pb.call("aten.relu.default", {arg_tensor(x)}, t);
  pb.call("aten.neg.default", {arg_tensor(x)}, t);  // dead
  pb.output(r);
  ExportedProgram rep = pb.build();
  passes::PipelineOptions options;
  options.passes = {"eliminate_dead_code", "swap_modules", "inline_modules"};
  REQUIRE(passes::prepare_replacement(rep, options).ok());
  CHECK(rep.graph().num_nodes() == 1);
  // Nothing before swap_modules: nothing to do.
  ExportedProgram again = rep;
  options.passes = {"swap_modules", "eliminate_dead_code"};
  REQUIRE(passes::prepare_replacement(again, options).ok());
}

TEST_CASE("outline: the API reports the passes it ran") {
  auto l = testing::load(kNested);
  ir::ExportedProgram ep = l.program;
  passes::PassReport report;
  REQUIRE(passes::outline(ep, {"encoder.layer.0", "encoder.layer.1"}, &report).ok());
  REQUIRE(report.passes.size() == 2);
  CHECK(report.passes[0].name == "outline_modules");
  CHECK(report.passes[1].name == "remove_pytree_pairs");
  CHECK(report.passes[1].stats.at("pairs_removed") == 1);
  CHECK(passes::module_swap::call_module_nodes(ep.graph()).size() == 2);
}
