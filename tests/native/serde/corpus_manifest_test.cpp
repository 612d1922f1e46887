// The corpus copy is intact: every file listed in MANIFEST.json has its sha256.
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include "sha256.h"
#include "test_files.h"

using namespace pteforge;

TEST_CASE("corpus: sha256 of known strings (FIPS 180-4 examples)") {
  CHECK(test::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(test::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(test::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("corpus: every file matches MANIFEST.json") {
  rapidjson::Document manifest;
  manifest.Parse(test::read_file(test::data_path("fixtures/corpus/MANIFEST.json")).c_str());
  REQUIRE_FALSE(manifest.HasParseError());
  size_t files = 0;
  for (const auto& c : manifest.GetObject()) {
    for (const auto& f : c.value["files"].GetObject()) {
      std::string rel = f.name.GetString();
      CAPTURE(rel);
      CHECK(test::sha256_hex(test::read_file(test::data_path("fixtures/corpus/" + rel))) == f.value.GetString());
      ++files;
    }
  }
  CHECK(files > 100);
}
