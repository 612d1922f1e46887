// verify_shapes on whole conversions: each program of tests/fixtures/shape_errors/
// (small_cnn with one argument or one metadata entry made wrong, written by
// scripts/make_shape_error_fixtures.py) replaces models/model.json of the
// small_cnn folder, and the conversion must fail with exactly the code,
// message, location and note that tests/fixtures/shape_errors/cases.json lists.
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include "e2e_util.h"
#include "serde/archive.h"

using namespace pteforge;
using pteforge::testing::read_bytes;
using pteforge::testing::test_path;

namespace {

/// The small_cnn folder in memory, with models/model.json replaced by `program`.
std::unique_ptr<serde::MemoryArchive> small_cnn_with(const std::string& program, serde::Pt2Layout& layout) {
  auto in = serde::open_input(test_path("fixtures/programs/small_cnn"));
  REQUIRE(in.ok());
  std::vector<std::pair<std::string, std::string>> files;
  for (const serde::ArchiveEntry& e : in->archive->entries()) {
    if (e.name == "models/model.json") {
      files.emplace_back(e.name, program);
      continue;
    }
    auto bytes = in->archive->read(e, uint64_t{1} << 30);
    REQUIRE(bytes.ok());
    files.emplace_back(e.name, std::move(bytes).value());
  }
  layout = in->layout;
  auto archive = serde::MemoryArchive::create(std::move(files));
  REQUIRE(archive.ok());
  return std::move(archive).value();
}

}  // namespace

TEST_CASE("verify_shapes: small_cnn itself converts (the base of every fixture is valid)") {
  serde::Pt2Layout layout;
  auto archive = small_cnn_with(read_bytes(test_path("fixtures/programs/small_cnn/models/model.json")), layout);
  auto r = convert(*archive, layout, ConvertOptions{});
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
}

TEST_CASE("verify_shapes: every wrong-argument fixture gives its exact error") {
  rapidjson::Document table;
  table.Parse(read_bytes(test_path("fixtures/shape_errors/cases.json")).c_str());
  REQUIRE_FALSE(table.HasParseError());
  const auto& cases = table["cases"];
  REQUIRE(cases.Size() == 13);
  const std::string note = table["note"].GetString();
  for (const auto& c : cases.GetArray()) {
    const std::string file = c["file"].GetString();
    CAPTURE(file);
    const std::string program = read_bytes(test_path("fixtures/shape_errors/" + file));
    REQUIRE(!program.empty());
    serde::Pt2Layout layout;
    auto archive = small_cnn_with(program, layout);
    auto r = convert(*archive, layout, ConvertOptions{});
    REQUIRE_FALSE(r.ok());
    const Error& e = r.error();
    CHECK(error_code_name(e.code) == std::string("INVALID_GRAPH"));
    CHECK(e.message == c["message"].GetString());
    CHECK(e.where.node == std::optional<std::string>(c["node"].GetString()));
    CHECK(e.where.pointer == std::optional<std::string>(c["pointer"].GetString()));
    CHECK(e.where.pass == std::optional<std::string>("verify_shapes"));
    CHECK(e.where.method == std::optional<std::string>("forward"));
    CHECK(e.notes == std::vector<std::string>{note});
  }
}
