// Malformed program JSON: the table tests/fixtures/errors/json_cases.json
// lists, per fixture, the error code and `where` exactly (or, for valid
// inputs, the exact warnings).
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <cmath>

#include "serde/export_exported_program.h"
#include "serde/import_exported_program.h"
#include "test_files.h"

using namespace pteforge;

namespace {

/// `where` as the same JSON object shape as the table (keys in table order don't matter).
std::string where_json(const Location& w) {
  Error e;
  e.where = w;
  rapidjson::Document d;
  d.Parse(e.to_json().c_str());
  std::string out;
  for (const auto& m : d["where"].GetObject()) {
    out += std::string(m.name.GetString()) + "=";
    out += m.value.IsString() ? m.value.GetString() : std::to_string(m.value.GetUint64());
    out += ";";
  }
  return out;
}

std::string expected_where(const rapidjson::Value& w) {
  // Same key order as Error::to_json: pointer, node, entry, byte_offset, method, source, pass.
  std::string out;
  for (const char* key : {"pointer", "node", "entry", "byte_offset", "method", "source", "pass"}) {
    auto it = w.FindMember(key);
    if (it == w.MemberEnd()) continue;
    out += std::string(key) + "=";
    out += it->value.IsString() ? it->value.GetString() : std::to_string(it->value.GetUint64());
    out += ";";
  }
  return out;
}

}  // namespace

TEST_CASE("errors: every malformed-JSON fixture gives its code and location") {
  rapidjson::Document table;
  table.Parse(test::read_file(test::data_path("fixtures/errors/json_cases.json")).c_str());
  REQUIRE_FALSE(table.HasParseError());
  const auto& cases = table["cases"];
  REQUIRE(cases.Size() >= 40);
  size_t errors = 0;
  for (const auto& c : cases.GetArray()) {
    std::string file = c["file"].GetString();
    CAPTURE(file);
    auto result = serde::import_exported_program(test::read_file(test::data_path("fixtures/errors/" + file)));
    if (c["code"].IsNull()) {
      REQUIRE_MESSAGE(result.ok(), result.error().to_string());
      const auto& expected = c["warnings"];
      REQUIRE(result->warnings.size() == expected.Size());
      for (rapidjson::SizeType i = 0; i < expected.Size(); ++i) {
        CHECK(result->warnings[i].message == expected[i]["message"].GetString());
        CHECK(where_json(result->warnings[i].where) == expected_where(expected[i]["where"]));
      }
      continue;
    }
    ++errors;
    REQUIRE_FALSE(result.ok());
    const Error& e = result.error();
    CHECK(error_code_name(e.code) == c["code"].GetString());
    CHECK(where_json(e.where) == expected_where(c["where"]));
    CHECK_MESSAGE(e.message.find(c["message_contains"].GetString()) != std::string::npos, e.message);
    std::vector<std::string> notes;
    if (c.HasMember("notes")) {
      for (const auto& n : c["notes"].GetArray()) notes.emplace_back(n.GetString());
    }
    CHECK(e.notes == notes);
  }
  CHECK(errors >= 25);
}

TEST_CASE("errors: non-finite floats in both encodings are read and written as strings") {
  for (const char* file : {"nonfinite_float_strings.json", "nonfinite_float_tokens.json"}) {
    CAPTURE(file);
    auto r = serde::import_exported_program(test::read_file(test::data_path(std::string("fixtures/errors/") + file)));
    REQUIRE(r.ok());
    const ir::Argument* scales = r->program.graph().find_node("mul")->input("scale_factors");
    REQUIRE(scales != nullptr);
    const auto& v = scales->get<ir::ArgTag::Floats>();
    REQUIRE(v.size() == 4);
    CHECK(v[0] == HUGE_VAL);
    CHECK(v[1] == -HUGE_VAL);
    CHECK(std::isnan(v[2]));
    CHECK(v[3] == 0.5);
    std::string written = serde::write_exported_program(r->program);
    CHECK(written.find(R"({"as_floats": ["Infinity", "-Infinity", "NaN", 0.5]})") != std::string::npos);
    auto again = serde::import_exported_program(written);
    REQUIRE(again.ok());
    CHECK(again->program == r->program);
  }
  // The strings form is exactly what the producer writes: byte-identical round trip.
  std::string strings = test::read_file(test::data_path("fixtures/errors/nonfinite_float_strings.json"));
  auto r = serde::import_exported_program(strings);
  REQUIRE(r.ok());
  CHECK(serde::write_exported_program(r->program) == strings);
}

TEST_CASE("errors: older files get the documented defaults (§11.2)") {
  auto r = serde::import_exported_program(test::read_file(test::data_path("fixtures/errors/old_format_defaults.json")));
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  const ir::ExportedProgram& ep = r->program;
  CHECK(ep.torch_version == "<=2.4");
  CHECK(ep.verifiers.empty());
  CHECK(ep.guards_code.empty());
  CHECK(ep.schema_version == ir::SchemaVersion{8, 1});
  const ir::Node* mul = ep.graph().find_node("mul");  // name derived from the single output
  REQUIRE(mul != nullptr);
  CHECK_FALSE(mul->inputs()[0].kind.has_value());
  CHECK_FALSE(mul->is_hop_single_tensor_return().has_value());
  CHECK(mul->input("max")->is_none());  // as_none with the old [] payload
  CHECK_FALSE(ep.graph().is_single_tensor_return());
  // Written back with every field present; reading that again gives the same IR.
  auto again = serde::import_exported_program(serde::write_exported_program(ep));
  REQUIRE(again.ok());
  CHECK(again->program == ep);
}
