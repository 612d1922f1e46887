// MemoryArchive, and layout rules checked on archives built in memory:
// method naming, config spellings, unpacked (flat) layout C.
#include <doctest/doctest.h>

#include "serde/archive.h"
#include "serde/archive_zip.h"
#include "serde/pt2_layout.h"

using namespace pteforge;
using namespace pteforge::serde;

namespace {

using Files = std::vector<std::pair<std::string, std::string>>;

std::unique_ptr<MemoryArchive> memory(Files files) {
  auto r = MemoryArchive::create(std::move(files));
  REQUIRE(r.ok());
  return std::move(r).value();
}

std::vector<std::string> methods_of(const Pt2Layout& layout) {
  std::vector<std::string> out;
  for (const auto& m : layout.models) out.push_back(m.method);
  return out;
}

}  // namespace

TEST_CASE("memory archive: entries keep their order, find and reads work") {
  auto archive = memory({{"b/x", "hello"}, {"a/y", ""}, {"c", "0123456789"}});
  REQUIRE(archive->entries().size() == 3);
  CHECK(archive->entries()[0].name == "b/x");
  CHECK(archive->entries()[1].name == "a/y");
  CHECK(archive->entries()[0].size == 5);
  CHECK(archive->entries()[0].stored);
  CHECK_FALSE(archive->entries()[0].data_offset.has_value());
  CHECK(archive->find("a/y") == &archive->entries()[1]);
  CHECK(archive->find("a") == nullptr);
  CHECK(archive->read(archive->entries()[0], 5).value() == "hello");
  CHECK(archive->read(archive->entries()[1], 0).value() == "");
  CHECK(archive->read_range(archive->entries()[2], 3, 4).value() == "3456");
  ArchiveEntry copy = archive->entries()[2];  // a copy is found by name
  CHECK(archive->read(copy, 100).value() == "0123456789");

  auto too_big = archive->read(archive->entries()[2], 9);
  REQUIRE_FALSE(too_big.ok());
  CHECK(too_big.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(too_big.error().where.entry == "c");
  auto past = archive->read_range(archive->entries()[2], 9, 2);
  REQUIRE_FALSE(past.ok());
  CHECK(past.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(past.error().where.byte_offset == 9);
}

TEST_CASE("memory archive: unsafe and duplicate names are refused") {
  auto bad = MemoryArchive::create({{"ok", "1"}, {"x/../../etc", "2"}});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::ARCHIVE_ENTRY_NAME);
  CHECK(bad.error().where.entry == "x/../../etc");
  auto dup = MemoryArchive::create({{"a", "1"}, {"b", "2"}, {"a", "3"}});
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(dup.error().where.entry == "a");
  auto empty = MemoryArchive::create({});
  REQUIRE(empty.ok());
  auto layout = detect_pt2_layout(**empty);
  REQUIRE_FALSE(layout.ok());
  CHECK(layout.error().code == ErrorCode::ARCHIVE_INVALID);
}

TEST_CASE("layout: flat records (an unpacked folder handed over as memory entries) are layout C with no root") {
  auto archive = memory({{".data/version", "6\n"},
                         {"archive_format", "pt2\n"},
                         {"archive_version", "0"},
                         {"byteorder", "little"},
                         {"data/weights/model_weights_config.json", "{}"},
                         {"data/constants/model_constants_config.json", "{}"},
                         {"data/weights/weight_0", "abcd"},
                         {"models/model.json", "{}"}});
  auto layout = detect_pt2_layout(*archive);
  REQUIRE(layout.ok());
  CHECK(layout->kind == Pt2LayoutKind::kCurrent);
  CHECK(layout->root == "");
  REQUIRE(layout->models.size() == 1);
  const Pt2Model& m = layout->models[0];
  CHECK(m.method == "forward");
  CHECK(m.program_entry == "models/model.json");
  CHECK(m.weights_config_entry == "data/weights/model_weights_config.json");
  CHECK(m.constants_config_entry == "data/constants/model_constants_config.json");
  CHECK_FALSE(m.sample_inputs_entry.has_value());
  auto payload = resolve_payload(*archive, m, PayloadFolder::kWeights, "weight_0");
  REQUIRE(payload.ok());
  CHECK(archive->read_range(**payload, 1, 2).value() == "bc");
}

TEST_CASE("layout: method names follow models/<name>.json, a lone model.json is forward") {
  auto two = memory({{"r/models/model.json", "{}"},
                     {"r/models/encode.json", "{}"},
                     {"r/models/sub/ignored.json", "{}"},
                     {"r/models/notes.txt", ""},
                     {"r/archive_format", "pt2"}});
  auto layout = detect_pt2_layout(*two);
  REQUIRE(layout.ok());
  CHECK(methods_of(*layout) == std::vector<std::string>{"encode", "model"});
  CHECK(layout->find_method("model")->program_entry == "r/models/model.json");

  auto lone = memory({{"r/archive_format", "pt2"}, {"r/models/decode.json", "{}"}});
  auto lone_layout = detect_pt2_layout(*lone);
  REQUIRE(lone_layout.ok());
  CHECK(methods_of(*lone_layout) == std::vector<std::string>{"decode"});
}

TEST_CASE("layout: both config spellings are accepted, the current one first") {
  auto old_names = memory({{"r/archive_format", "pt2"},
                           {"r/models/model.json", "{}"},
                           {"r/data/weights/model_model_param_config.json", "{}"},
                           {"r/data/constants/model_model_constants_config.json", "{}"}});
  auto layout = detect_pt2_layout(*old_names);
  REQUIRE(layout.ok());
  CHECK(layout->models[0].weights_config_entry == "r/data/weights/model_model_param_config.json");
  CHECK(layout->models[0].constants_config_entry == "r/data/constants/model_model_constants_config.json");

  auto both = memory({{"r/archive_format", "pt2"},
                      {"r/models/model.json", "{}"},
                      {"r/data/weights/model_model_param_config.json", "{}"},
                      {"r/data/weights/model_weights_config.json", "{}"}});
  auto both_layout = detect_pt2_layout(*both);
  REQUIRE(both_layout.ok());
  CHECK(both_layout->models[0].weights_config_entry == "r/data/weights/model_weights_config.json");
  CHECK_FALSE(both_layout->models[0].constants_config_entry.has_value());

  // "x_model_constants_config.json" is model x_model's current spelling, not model x's old one.
  auto clash = memory({{"r/archive_format", "pt2"},
                       {"r/models/x.json", "{}"},
                       {"r/models/x_model.json", "{}"},
                       {"r/data/constants/x_model_constants_config.json", "{}"}});
  auto clash_layout = detect_pt2_layout(*clash);
  REQUIRE(clash_layout.ok());
  CHECK_FALSE(clash_layout->find_method("x")->constants_config_entry.has_value());
  CHECK(clash_layout->find_method("x_model")->constants_config_entry ==
        "r/data/constants/x_model_constants_config.json");
}

TEST_CASE("layout: the root comes from the first entry, whatever its name") {
  auto archive = memory({{"package/data/weights/weight_0", "...."},
                         {"package/archive_format", "pt2"},
                         {"package/models/model.json", "{}"}});
  auto layout = detect_pt2_layout(*archive);
  REQUIRE(layout.ok());
  CHECK(layout->root == "package");
  CHECK(layout->models[0].weights_prefix == "package/data/weights/");
  CHECK(layout->models[0].root_prefix() == "package/");
}

TEST_CASE("layout: a method name (models/<name>.json) must be UTF-8, as the .pte stores it") {
  auto archive = memory({{"r/archive_format", "pt2"}, {"r/models/m\xff.json", "{}"}});
  auto layout = detect_pt2_layout(*archive);
  REQUIRE_FALSE(layout.ok());
  CHECK(layout.error().code == ErrorCode::ARCHIVE_ENTRY_NAME);
  CHECK(layout.error().message ==
        "the program entry models/m\\xff.json names method m\\xff, which is not valid UTF-8 (at byte 1); a "
        ".pte "
        "stores method names as UTF-8: rename the entry");
  CHECK(layout.error().where.entry == "r/models/m\xff.json");
  auto accented = memory({{"r/archive_format", "pt2"}, {"r/models/modèle.json", "{}"}});
  auto ok = detect_pt2_layout(*accented);
  REQUIRE(ok.ok());
  CHECK(ok->models[0].method == "modèle");
}

TEST_CASE("layout: program_json_layout") {
  Pt2Layout layout = program_json_layout("prog.json");
  CHECK(layout.kind == Pt2LayoutKind::kProgramJson);
  CHECK(layout.root == "");
  REQUIRE(layout.models.size() == 1);
  CHECK(layout.models[0].method == "forward");
  CHECK(layout.models[0].root_prefix() == "");
  CHECK(layout.models[0].program_entry == "prog.json");
  CHECK(layout.models[0].weights_prefix.empty());
  CHECK(layout_kind_name(Pt2LayoutKind::kCurrent) == "current");
  CHECK(layout_kind_name(Pt2LayoutKind::kEarlyPt2) == "early_pt2");
  CHECK(layout_kind_name(Pt2LayoutKind::kLegacy) == "legacy");
}

TEST_CASE("zip: crc32_update matches the standard check value") {
  CHECK(crc32_update(0, "123456789") == 0xcbf43926u);
  CHECK(crc32_update(crc32_update(0, "1234"), "56789") == 0xcbf43926u);
  CHECK(crc32_update(0, "") == 0u);
}

TEST_CASE("zip: crc32_update equals the bit-at-a-time definition at every length and split") {
  // The reference: one bit per step, straight from the polynomial.
  auto bitwise = [](std::string_view bytes) {
    uint32_t c = 0xffffffffu;
    for (unsigned char b : bytes) {
      c ^= b;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return ~c;
  };
  std::string data;
  uint32_t x = 12345;
  for (int i = 0; i < 300; ++i) {
    x = x * 1103515245u + 12345u;
    data.push_back(static_cast<char>(x >> 24));
  }
  for (size_t len = 0; len <= data.size(); len += 7) {
    const std::string_view s(data.data(), len);
    CAPTURE(len);
    CHECK(crc32_update(0, s) == bitwise(s));
    const size_t cut = len / 3;
    CHECK(crc32_update(crc32_update(0, s.substr(0, cut)), s.substr(cut)) == bitwise(s));
  }
  CHECK(crc32_update(0, std::string(1000, '\0')) == 0x060b1780u);  // Python: zlib.crc32(bytes(1000))
}
