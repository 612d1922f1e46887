// The façade (pteforge/pteforge.h) on bytes, as the WASM bindings call it:
// convert_bytes on a program JSON and a .pt2, decode_pte, inspect, list_passes_json.
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <string>

#include "pteforge/pteforge.h"

using namespace pteforge;

namespace {

std::string read_bytes(const std::string& rel) {
  std::string out;
  std::FILE* f = std::fopen((std::string(PTEFORGE_TEST_DATA_DIR) + "/" + rel).c_str(), "rb");
  if (!f) return out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

std::string bytes_of(const ConvertResult& r) {
  std::string out;
  for (const emit::Chunk& c : r.pte.chunks) {
    REQUIRE(c.is_bytes());  // convert_bytes resolves every input range
    out.append(c.bytes().begin(), c.bytes().end());
  }
  return out;
}

}  // namespace

TEST_CASE("façade: convert_bytes on a program JSON gives arduino_add_model.pte") {
  std::string json = read_bytes("fixtures/programs/ref_arduino_add/models/model.json");
  REQUIRE(!json.empty());
  auto r = convert_bytes(json);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  CHECK(bytes_of(*r) == read_bytes("data/reference/pte/arduino_add_model.pte"));
  rapidjson::Document md;
  REQUIRE(!md.Parse(r->metadata_json.c_str()).HasParseError());
  CHECK(md["methods"][0]["memory_plan"]["non_const_buffer_sizes"][1].GetInt() == 32);
  rapidjson::Document report;
  REQUIRE(!report.Parse(r->report_json.c_str()).HasParseError());
  CHECK(report["passes"].Size() > 10);
  CHECK(md["pass_report"] == report);  // the metadata embeds the report as given back

  auto decoded = decode_pte(bytes_of(*r));
  REQUIRE(decoded.ok());
  CHECK(decoded->find("\"aten::add.out(%1, %0, %3, %2, %2)\"") != std::string::npos);
  auto flatc = decode_pte(bytes_of(*r), true);
  REQUIRE(flatc.ok());
  CHECK(flatc->find("\"memory_offset_low\": 16") != std::string::npos);
}

TEST_CASE("façade: convert_bytes on a .pt2 resolves the weight ranges, options reach the pipeline") {
  std::string pt2 = read_bytes("fixtures/corpus/linear_tanh/linear_tanh.pt2");
  REQUIRE(!pt2.empty());
  ConvertOptions options;
  options.constant_methods_json = "{\"get_max_seq_len\": 128}";
  options.constant_methods = {{"get_eos_ids", "[2, 3]"}};
  options.pipeline.memory_planning = "naive";
  options.report_times = false;
  auto a = convert_bytes(pt2, options);
  REQUIRE_MESSAGE(a.ok(), a.error().to_string());
  auto b = convert_bytes(pt2, options);
  REQUIRE(b.ok());
  CHECK(bytes_of(*a) == bytes_of(*b));
  CHECK(a->metadata_json == b->metadata_json);
  // Weights hashed while emitting instead of on a second thread during the passes: the same output.
  ConvertOptions unthreaded = options;
  unthreaded.prefetch_hashes = false;
  auto c = convert_bytes(pt2, unthreaded);
  REQUIRE(c.ok());
  CHECK(bytes_of(*a) == bytes_of(*c));
  CHECK(a->metadata_json == c->metadata_json);
  const auto& plans = a->pte.program.execution_plan;
  REQUIRE(plans.size() == 3);
  CHECK(plans[1].name == "get_max_seq_len");
  CHECK(plans[2].name == "get_eos_ids");
  CHECK(a->metadata_json.find("\"algorithm\": \"naive\"") != std::string::npos);

  options.constant_methods = {{"get_max_seq_len", "1"}};  // also in the JSON map
  auto dup = convert_bytes(pt2, options);
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().code == ErrorCode::OPTION_INVALID);
  CHECK(dup.error().message == "constant method 'get_max_seq_len' is given twice");
  CHECK_FALSE(dup.error().where.pointer);  // the second one is an option, not in the map

  // A constant method named like one of the program's methods: refused before
  // anything runs; one from the map is pointed at there.
  options.constant_methods = {{"forward", "1"}};
  auto clash = convert_bytes(pt2, options);
  REQUIRE_FALSE(clash.ok());
  CHECK(clash.error().message == "constant method 'forward': a method of that name already exists");
  CHECK(clash.error().where.method == "forward");
  CHECK_FALSE(clash.error().where.pointer);
  options.constant_methods.clear();
  options.constant_methods_json = "{\"a/b\": 1, \"forward\": 2}";
  clash = convert_bytes(pt2, options);
  REQUIRE_FALSE(clash.ok());
  CHECK(clash.error().message == "constant method 'forward': a method of that name already exists");
  CHECK(clash.error().where.pointer == "/constantMethods/forward");
}

TEST_CASE("façade: errors carry their code and place") {
  CHECK(convert_bytes("").error().code == ErrorCode::INPUT_EMPTY);
  auto bad = convert_bytes("{\"graph_module\": 1}");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::INPUT_SCHEMA);
  CHECK(bad.error().where.method == "forward");
  ConvertOptions options;
  options.pipeline.passes = {"spec_prop", "no_such_pass"};
  auto unknown = convert_bytes(read_bytes("fixtures/programs/ref_add/models/model.json"), options);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == ErrorCode::UNKNOWN_PASS);
  CHECK(unknown.error().message == "unknown pass \"no_such_pass\"");
  // Only the list of valid names: no "leaves out memory_planning" warning
  // about a list that is not what was meant.
  REQUIRE(unknown.error().notes.size() == 1);
  CHECK(unknown.error().notes[0].rfind("valid passes: ", 0) == 0);
  // The unknown name is reported before the options the list cannot serve.
  options.pipeline.memory_planning = "naive";
  auto unknown_first = convert_bytes(read_bytes("fixtures/programs/ref_add/models/model.json"), options);
  REQUIRE_FALSE(unknown_first.ok());
  CHECK(unknown_first.error().code == ErrorCode::UNKNOWN_PASS);
  CHECK(decode_pte("not a pte").error().code == ErrorCode::PTE_INVALID);
}

TEST_CASE("façade: emit_stacktrace refuses an et_view instruction, naming it and its node") {
  // dynamic_seq views a dynamic-shape tensor: an et_view instruction, which
  // has no stack trace (ExecuTorch's emitter fails the same way).
  std::string pt2 = read_bytes("fixtures/corpus/dynamic_seq/dynamic_seq.pt2");
  REQUIRE(!pt2.empty());
  ConvertOptions options;
  options.emit_stacktrace = true;
  auto r = convert_bytes(pt2, options);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(r.error().message ==
        "emit_stacktrace needs one stack trace per instruction, but instruction 1 "
        "(executorch_prim::et_view.default), emitted for node 'view', has none: ExecuTorch's emitter, which "
        "checks this after each kernel call, fails the same way on a view of a dynamic-shape tensor");
  CHECK(r.error().where.node == "view");
  CHECK(r.error().where.pointer == "/graph_module/graph/nodes/1");
  options.emit_stacktrace = false;
  CHECK(convert_bytes(pt2, options).ok());
}

TEST_CASE("façade: list_passes_json and inspect") {
  rapidjson::Document passes;
  REQUIRE(!passes.Parse(list_passes_json().c_str()).HasParseError());
  REQUIRE(passes.IsArray());
  bool found = false;
  for (const auto& p : passes.GetArray()) {
    if (std::string(p["name"].GetString()) == "memory_planning") {
      found = true;
      CHECK(p["implemented"].GetBool());
      CHECK(p["default"].GetBool());
      CHECK(std::string(p["group"].GetString()) == "to_executorch");
    }
  }
  CHECK(found);

  std::vector<std::pair<std::string, std::string>> files = {
      {"model.json", read_bytes("fixtures/programs/ref_add/models/model.json")}};
  auto archive = serde::MemoryArchive::create(files);
  REQUIRE(archive.ok());
  auto summary = inspect(**archive, serde::program_json_layout("model.json"));
  REQUIRE_MESSAGE(summary.ok(), summary.error().to_string());
  rapidjson::Document doc;
  CHECK(!doc.Parse(summary->c_str()).HasParseError());
  CHECK(summary->find("forward") != std::string::npos);
}

TEST_CASE("façade: a failed conversion keeps the warnings raised before the error, as notes") {
  rapidjson::Document doc;
  REQUIRE(
      !doc.Parse(read_bytes("fixtures/programs/ref_arduino_add/models/model.json").c_str()).HasParseError());
  doc.RemoveMember("schema_version");  // a warning: read as schema 8.x
  auto& a = doc.GetAllocator();
  rapidjson::Value& graph = doc["graph_module"]["graph"];
  for (int i = 0; i < 10; ++i) {  // ten more: unknown fields are ignored with a warning each
    std::string key = "extra_" + std::to_string(i);
    graph.AddMember(rapidjson::Value(key.c_str(), a), rapidjson::Value(i), a);
  }
  graph["nodes"][0]["target"].SetString("torch.ops.aten.no_such_op.default", a);  // then an error
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  doc.Accept(writer);

  auto r = convert_bytes(buffer.GetString());
  REQUIRE_FALSE(r.ok());
  const Error& e = r.error();
  CHECK(e.code == ErrorCode::UNSUPPORTED_OPERATOR);
  REQUIRE(e.notes.size() >= 9);
  // The error's own notes come first; then 8 warnings in the order raised, and a count of the rest.
  const size_t first = e.notes.size() - 9;
  CHECK(e.notes[first] ==
        "earlier warning: the program has no schema_version; reading it as schema 8.x "
        "(method=forward entry=model.json pointer=\"\")");
  CHECK(e.notes[first + 1] ==
        "earlier warning: unknown field \"extra_0\" in Graph ignored "
        "(method=forward entry=model.json pointer=/graph_module/graph/extra_0)");
  CHECK(e.notes[first + 7].rfind("earlier warning: unknown field \"extra_6\"", 0) == 0);
  CHECK(e.notes.back() == "and 3 more earlier warnings");

  // The same program converts (with its warnings in the result) once the op is known again.
  graph["nodes"][0]["target"].SetString("torch.ops.aten.add.Tensor", a);
  buffer.Clear();
  writer.Reset(buffer);
  doc.Accept(writer);
  auto ok = convert_bytes(buffer.GetString());
  REQUIRE_MESSAGE(ok.ok(), ok.error().to_string());
  CHECK(ok->diagnostics.size() == 11);
}

TEST_CASE("façade: an effect-token output is refused at its output spec before any pass runs") {
  // ExecuTorch's training metadata reads a TOKEN output as the first weight
  // after the gradients and asserts a gradient came first (seed 001).
  rapidjson::Document doc;
  REQUIRE(
      !doc.Parse(read_bytes("fixtures/programs/ref_arduino_add/models/model.json").c_str()).HasParseError());
  auto& a = doc.GetAllocator();
  rapidjson::Value& gm = doc["graph_module"];
  auto prepend = [&a](rapidjson::Value& list, const char* json) {
    rapidjson::Document item(&a);
    REQUIRE(!item.Parse(json).HasParseError());
    list.PushBack(rapidjson::Value(item, a), a);
    for (rapidjson::SizeType i = list.Size() - 1; i > 0; --i) list[i].Swap(list[i - 1]);
  };
  prepend(gm["signature"]["input_specs"], R"({"token": {"arg": {"name": "token"}}})");
  prepend(gm["signature"]["output_specs"], R"({"token": {"arg": {"name": "token"}}})");
  prepend(gm["graph"]["inputs"], R"({"as_tensor": {"name": "token"}})");
  prepend(gm["graph"]["outputs"], R"({"as_tensor": {"name": "token"}})");
  rapidjson::Document meta(&a);
  REQUIRE(
      !meta.Parse(R"({"dtype": 7, "sizes": [{"as_int": 0}], "requires_grad": false, "device": {"type": "cpu"},
      "strides": [{"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7})")
           .HasParseError());
  gm["graph"]["tensor_values"].AddMember("token", rapidjson::Value(meta, a), a);
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  doc.Accept(writer);

  auto r = convert_bytes(buffer.GetString());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(r.error().message ==
        "output spec 0 (token %token) is an effect token before any gradient output: ExecuTorch's emitter "
        "reads a "
        "token output as the first weight of a training program (after its gradients) and refuses one that "
        "comes "
        "first, so a program that still returns effect tokens cannot be emitted");
  CHECK(r.error().where.pointer == "/graph_module/signature/output_specs/0");
  CHECK(r.error().where.entry == "model.json");
  CHECK(r.error().where.method == "forward");
}

TEST_CASE(
    "façade: a constant method named like a training metadata method is refused, naming the joint method") {
  std::string pt2 = read_bytes("fixtures/corpus/joint_linear_mse/joint_linear_mse.pt2");
  REQUIRE(!pt2.empty());
  ConvertOptions options;
  options.constant_methods = {{"__et_training_fqn_forward", "1"}};
  auto r = convert_bytes(pt2, options);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::OPTION_INVALID);
  CHECK(r.error().message ==
        "constant method '__et_training_fqn_forward': the training metadata of method 'forward' has a method "
        "of "
        "that name");
  options.constant_methods = {{"__et_training_fqn_other", "1"}};
  CHECK(convert_bytes(pt2, options).ok());
}

TEST_CASE(
    "façade: training getters follow the archive order of its methods, the plans are sorted by name") {
  // Two joint methods, "zeta" before "alpha" in the archive (torch.export's
  // loader fills its dict in that order; ExecuTorch's training metadata follows it).
  const std::string dir = "fixtures/corpus/joint_linear_mse/json/";
  std::vector<std::pair<std::string, std::string>> files = {{"archive_format", "pt2"},
                                                            {"byteorder", "little"}};
  for (const char* m : {"zeta", "alpha"}) {
    const std::string name = m;
    files.emplace_back("models/" + name + ".json", read_bytes(dir + "models/model.json"));
    files.emplace_back("data/weights/" + name + "_weights_config.json",
                       read_bytes(dir + "data/weights/model_weights_config.json"));
    files.emplace_back("data/constants/" + name + "_constants_config.json",
                       read_bytes(dir + "data/constants/model_constants_config.json"));
  }
  files.emplace_back("data/weights/weight_0", read_bytes(dir + "data/weights/weight_0"));
  files.emplace_back("data/weights/weight_1", read_bytes(dir + "data/weights/weight_1"));
  for (const auto& file : files) REQUIRE_MESSAGE(!file.second.empty(), file.first);  // (clang 14: no bindings in doctest's lambdas)
  auto archive = serde::MemoryArchive::create(files);
  REQUIRE(archive.ok());
  auto layout = serde::detect_pt2_layout(**archive);
  REQUIRE_MESSAGE(layout.ok(), layout.error().to_string());
  auto r = convert(**archive, *layout);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  std::vector<std::string> plans;
  for (const auto& plan : r->pte.program.execution_plan) plans.push_back(plan.name);
  CHECK(plans == std::vector<std::string>{"alpha", "zeta", "__et_training_gradients_index_zeta",
                                          "__et_training_fqn_zeta", "__et_training_parameters_index_zeta",
                                          "__et_training_gradients_index_alpha", "__et_training_fqn_alpha",
                                          "__et_training_parameters_index_alpha"});
}

TEST_CASE("façade: the debug-handle map leaves out instructions whose node has no debug handle") {
  // buffer_running_sum: add, mul, then the copy_ that writes the buffer back
  // (inserted after generate_debug_handles, so it has none). ExecuTorch's
  // _add_debug_handle records only nodes with a handle.
  std::string pt2 = read_bytes("fixtures/corpus/buffer_running_sum/buffer_running_sum.pt2");
  REQUIRE(!pt2.empty());
  auto r = convert_bytes(pt2);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  rapidjson::Document md;
  REQUIRE(!md.Parse(r->metadata_json.c_str()).HasParseError());
  const rapidjson::Value& map = md["methods"][0]["debug_handle_map"];
  std::string text;
  for (auto it = map.MemberBegin(); it != map.MemberEnd(); ++it) {
    text += std::string(it->name.GetString()) + "=" + std::to_string(it->value.GetInt64()) + " ";
  }
  CHECK(text == "0=1 1=2 2=2 ");
  auto decoded = decode_pte(bytes_of(*r));
  REQUIRE(decoded.ok());
  CHECK(decoded->find("aten::copy_(") != std::string::npos);  // the instruction is there, only unmapped
}
