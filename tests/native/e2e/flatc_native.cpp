// flatc, built from ExecuTorch's own schema (tests/data/reference/program.fbs),
// reads what we emit: its verifier accepts the file and its JSON equals our
// decoder's flatc-style JSON (doubles within flatc's 12 printed digits).
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include "e2e_util.h"
#include "emit/chunks_native.h"

using namespace pteforge;
using pteforge::testing::convert_ok;
using pteforge::testing::read_bytes;
using pteforge::testing::test_path;

namespace fs = std::filesystem;

namespace {

std::string json_diff(const rapidjson::Value& a, const rapidjson::Value& b, const std::string& path) {
  if (a.IsNumber() && b.IsNumber()) {
    if (a.IsDouble() || b.IsDouble()) {
      double x = a.GetDouble(), y = b.GetDouble();
      return std::fabs(x - y) <= 1e-9 * std::max(1.0, std::fabs(y)) ? "" : path + ": number differs";
    }
    return a == b ? "" : path + ": integer differs";
  }
  if (a.GetType() != b.GetType()) return path + ": type differs";
  if (a.IsObject()) {
    if (a.MemberCount() != b.MemberCount()) return path + ": member count differs";
    for (auto it = a.MemberBegin(); it != a.MemberEnd(); ++it) {
      auto other = b.FindMember(it->name);
      if (other == b.MemberEnd()) return path + "/" + it->name.GetString() + ": missing";
      std::string d = json_diff(it->value, other->value, path + "/" + it->name.GetString());
      if (!d.empty()) return d;
    }
    return "";
  }
  if (a.IsArray()) {
    if (a.Size() != b.Size()) return path + ": length differs";
    for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
      std::string d = json_diff(a[i], b[i], path + "/" + std::to_string(i));
      if (!d.empty()) return d;
    }
    return "";
  }
  return a == b ? "" : path + ": value differs";
}

}  // namespace

TEST_CASE("flatc decodes our .pte with ExecuTorch's schema, as our decoder does") {
  fs::path work = fs::temp_directory_path() / ("pteforge_flatc_" + std::to_string(::getpid()));
  fs::create_directories(work);
  ConvertOptions options;
  options.constant_methods = {{"get_name", "\"tiny\""}, {"get_scale", "[0.5, -1e300]"}};
  for (const char* name : {"ref_arduino_add", "buffer_mutation", "small_cnn", "joint_training", "dynamic_batch"}) {
    CAPTURE(name);
    auto c = convert_ok(test_path(std::string("fixtures/programs/") + name), options);
    fs::path pte = work / (std::string(name) + ".pte");
    REQUIRE(emit::write_chunks_to_file({emit::Chunk::from_string(c.pte)}, pte.string()).ok());
    std::string cmd = std::string(PTEFORGE_FLATC) + " --json --strict-json --raw-binary -o " + work.string() + " " +
                      test_path("data/reference/program.fbs") + " -- " + pte.string() + " 2>&1";
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::string flatc_text = read_bytes((work / (std::string(name) + ".json")).string());
    REQUIRE(!flatc_text.empty());
    std::string ours_text = emit::decoded_pte_to_json(c.decoded, emit::PteJsonStyle::Flatc);
    rapidjson::Document flatc, ours;
    REQUIRE(!flatc.Parse(flatc_text.c_str()).HasParseError());
    REQUIRE(!ours.Parse(ours_text.c_str()).HasParseError());
    CHECK(json_diff(ours, flatc, "") == "");
    CHECK(flatc["execution_plan"].Size() == c.decoded.program.execution_plan.size());
  }
  fs::remove_all(work);
}
