// ZipArchive::from_records: an archive built from an entry table another zip
// reader produced (zip.js in the npm package), without parsing the zip. Every
// case asserts the error code and the `where` keys exactly, and that the
// entries and bytes equal those of ZipArchive::open over the same file.
#include <doctest/doctest.h>

#include "serde/archive_zip.h"
#include "serde/pt2_layout.h"
#include "zip_builder.h"

using namespace pteforge;
using namespace pteforge::serde;
using pteforge::test::build_zip;
using pteforge::test::minimal_pt2;
using pteforge::test::ZipSpec;

namespace {

/// The records of `bytes` as the portable reader parses them (what zip.js gives too).
std::vector<ZipEntryRecord> records_of(const std::string& bytes) {
  MemoryByteSource source(bytes);
  auto records = read_zip_directory(source);
  REQUIRE(records.ok());
  return std::move(records).value();
}

Result<std::unique_ptr<ZipArchive>> from(const std::string& bytes, std::vector<ZipEntryRecord> records) {
  return ZipArchive::from_records(std::make_unique<MemoryByteSource>(bytes), std::move(records));
}

/// The error of from_records when `edit` changes record `index` of the minimal archive.
template <typename Edit>
Error edited_error(size_t index, Edit edit) {
  const std::string bytes = build_zip(minimal_pt2("m"));
  auto records = records_of(bytes);
  edit(records[index]);
  auto archive = from(bytes, std::move(records));
  REQUIRE_FALSE(archive.ok());
  return archive.error();
}

}  // namespace

TEST_CASE("from_records: the same entries, offsets and bytes as open()") {
  auto specs = minimal_pt2("m");
  specs.insert(specs.begin(), ZipSpec("m/data/", ""));  // a directory entry: dropped
  const std::string bytes = build_zip(specs);
  auto opened = ZipArchive::open(std::make_unique<MemoryByteSource>(bytes));
  REQUIRE(opened.ok());
  auto built = from(bytes, records_of(bytes));
  REQUIRE(built.ok());
  const auto& a = (*opened)->entries();
  const auto& b = (*built)->entries();
  REQUIRE(a.size() == minimal_pt2("m").size());
  REQUIRE(b.size() == a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(b[i].name == a[i].name);
    CHECK(b[i].size == a[i].size);
    CHECK(b[i].stored == a[i].stored);
    CHECK(b[i].data_offset == a[i].data_offset);
    auto x = read_entry(**opened, a[i].name, 1 << 20);
    auto y = read_entry(**built, b[i].name, 1 << 20);
    REQUIRE(x.ok());
    REQUIRE(y.ok());
    CHECK(*x == *y);
  }
  auto range = (*built)->read_range(*(*built)->find("m/data/weights/weight_0"), 4, 8);
  REQUIRE(range.ok());
  CHECK(*range == std::string(8, '\x01'));
  auto layout = detect_pt2_layout(**built);
  REQUIRE(layout.ok());
  CHECK(layout->root == "m");
  REQUIRE(layout->models.size() == 1);
  CHECK(layout->models[0].method == "forward");
}

TEST_CASE("from_records: stored entries keep their CRC check, deflated ones are ARCHIVE_COMPRESSED here") {
  auto specs = minimal_pt2("m");
  specs[4].deflate = true;  // m/archive_format
  std::string bytes = build_zip(specs);
  auto records = records_of(bytes);
  const uint64_t json_at = records[3].data_offset;  // m/models/model.json
  bytes[json_at + 1] ^= 0x20;
  auto archive = from(bytes, std::move(records));
  REQUIRE(archive.ok());
  auto r = read_entry(**archive, "m/models/model.json", 1 << 20);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(r.error().where.entry == "m/models/model.json");
  CHECK(r.error().where.byte_offset == json_at);
  CHECK(r.error().message == "entry \"m/models/model.json\" is corrupt: its CRC-32 does not match");

  auto c = read_entry(**archive, "m/archive_format", 1 << 20);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().code == ErrorCode::ARCHIVE_COMPRESSED);
  CHECK(c.error().where.entry == "m/archive_format");
  CHECK_FALSE(c.error().where.byte_offset.has_value());
}

TEST_CASE("from_records: the per-entry rules of the zip reader, with its messages") {
  SUBCASE("encrypted") {
    uint64_t at = 0;
    Error e = edited_error(1, [&](ZipEntryRecord& r) {
      r.flags |= 1;
      at = r.local_header_offset;
    });
    CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
    CHECK(e.where.entry == "m/data/weights/model_weights_config.json");
    CHECK(e.where.byte_offset == at);
    CHECK(e.message ==
          "entry \"m/data/weights/model_weights_config.json\" is encrypted; encrypted archives are not supported");
  }
  SUBCASE("a stored entry whose compressed size differs") {
    Error e = edited_error(0, [](ZipEntryRecord& r) { r.compressed_size = 15; });
    CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
    CHECK(e.where.entry == "m/data/weights/weight_0");
    CHECK(e.where.byte_offset == 0);
    CHECK(e.message ==
          "stored entry \"m/data/weights/weight_0\" has a compressed size (15) that differs from its size (16)");
  }
  SUBCASE("an unsupported method") {
    Error e = edited_error(5, [](ZipEntryRecord& r) { r.method = 12; });
    CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
    CHECK(e.where.entry == "m/archive_version");
    CHECK(e.message ==
          "entry \"m/archive_version\" uses compression method 12; only stored (0) and deflate (8) are supported");
  }
  SUBCASE("a deflated entry claiming more than deflate can expand") {
    Error e = edited_error(3, [](ZipEntryRecord& r) {
      r.method = 8;
      r.size = uint64_t{1} << 33;
    });
    CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
    CHECK(e.where.entry == "m/models/model.json");
    CHECK(e.message.find("more than deflate can expand") != std::string::npos);
  }
  SUBCASE("data past the end of the file (1 GB claimed in a 1 KB file)") {
    uint64_t data_at = 0;
    Error e = edited_error(0, [&](ZipEntryRecord& r) {
      r.size = r.compressed_size = uint64_t{1} << 30;
      data_at = r.data_offset;
    });
    CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
    CHECK(e.where.entry == "m/data/weights/weight_0");
    CHECK(e.where.byte_offset == data_at);
    CHECK(e.message.find("claims 1073741824 bytes of data at offset 64") != std::string::npos);
  }
  SUBCASE("a local header outside the file") {
    std::optional<uint64_t> record_at;
    Error e = edited_error(2, [&](ZipEntryRecord& r) {
      r.local_header_offset = uint64_t{1} << 40;
      record_at = r.record_offset;
    });
    CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
    CHECK(e.where.entry == "m/data/constants/model_constants_config.json");
    // The central-directory record that gives the offset (inside the file),
    // or the offset itself for records from elsewhere (the npm reader's table).
    REQUIRE(e.where.byte_offset);
    if (record_at) {
      CHECK(*e.where.byte_offset == *record_at);
      CHECK(*record_at < uint64_t{2048});
    } else {
      CHECK(*e.where.byte_offset == uint64_t{1} << 40);
    }
    CHECK(e.message.find("lies outside the") != std::string::npos);
  }
  SUBCASE("a data offset inside the local header") {
    uint64_t header_at = 0;
    Error e = edited_error(6, [&](ZipEntryRecord& r) {
      header_at = r.local_header_offset;
      r.data_offset = r.local_header_offset + 12;
    });
    CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
    CHECK(e.where.entry == "m/.data/version");
    CHECK(e.where.byte_offset == header_at + 12);
  }
}

TEST_CASE("from_records: entry names and duplicates, as open()") {
  SUBCASE("a .. component") {
    Error e = edited_error(7, [](ZipEntryRecord& r) { r.name = "../evil"; });
    CHECK(e.code == ErrorCode::ARCHIVE_ENTRY_NAME);
    CHECK(e.where.entry == "../evil");
  }
  SUBCASE("an absolute name") {
    Error e = edited_error(7, [](ZipEntryRecord& r) { r.name = "/etc/passwd"; });
    CHECK(e.code == ErrorCode::ARCHIVE_ENTRY_NAME);
    CHECK(e.where.entry == "/etc/passwd");
  }
  SUBCASE("a duplicate") {
    Error e = edited_error(7, [](ZipEntryRecord& r) { r.name = "m/models/model.json"; });
    CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
    CHECK(e.where.entry == "m/models/model.json");
  }
  SUBCASE("the same errors as the parsing reader for the same file") {
    auto specs = minimal_pt2("m");
    specs.push_back({"m/../x", "y"});
    const std::string bytes = build_zip(specs);
    auto opened = ZipArchive::open(std::make_unique<MemoryByteSource>(bytes));
    auto built = from(bytes, records_of(bytes));
    REQUIRE_FALSE(opened.ok());
    REQUIRE_FALSE(built.ok());
    CHECK(built.error().code == ErrorCode::ARCHIVE_ENTRY_NAME);
    CHECK(built.error().code == opened.error().code);
    CHECK(built.error().message == opened.error().message);
    CHECK(built.error().where.entry == opened.error().where.entry);
  }
}

TEST_CASE("from_records: an empty table is an archive without entries") {
  const std::string bytes = build_zip({});
  auto archive = from(bytes, {});
  REQUIRE(archive.ok());
  CHECK((*archive)->entries().empty());
  auto layout = detect_pt2_layout(**archive);
  REQUIRE_FALSE(layout.ok());
  CHECK(layout.error().code == ErrorCode::ARCHIVE_INVALID);
}
