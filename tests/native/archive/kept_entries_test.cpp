// Folder and zip archives keep small entries after their first range read
// (Archive::kept_entry): later range reads give the bytes first read without
// reading the input again; larger entries are read from the input each time.
// A kept zip entry was read whole, so its CRC is checked. Under WebAssembly
// nothing is kept (Archive::kKeepTotalMax): every read reads the input.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "serde/archive_native.h"
#include "serde/archive_zip.h"
#include "test_files.h"
#include "zip_builder.h"

using namespace pteforge;
using namespace pteforge::serde;
using pteforge::test::build_zip;
using pteforge::test::scratch_dir;
using pteforge::test::spit;
using pteforge::test::ZipSpec;

namespace {
#if defined(__EMSCRIPTEN__)
constexpr bool kKeeps = false;
#else
constexpr bool kKeeps = true;
#endif
}  // namespace

TEST_CASE("folder archive: a small file is read once and kept, a large one is read each time") {
  const std::string dir = scratch_dir("directory_keep");
  const std::string small(64 * 1024, 's');  // exactly the largest kept size
  std::string large(64 * 1024 + 1, 'L');
  spit(dir + "/small.bin", small);
  spit(dir + "/large.bin", large);
  auto archive = open_directory(dir);
  REQUIRE(archive.ok());
  const ArchiveEntry* s = (*archive)->find("small.bin");
  const ArchiveEntry* l = (*archive)->find("large.bin");
  REQUIRE(s != nullptr);
  REQUIRE(l != nullptr);

  auto first = (*archive)->read_range(*s, 10, 5);
  REQUIRE(first.ok());
  CHECK(*first == "sssss");
  auto large_first = (*archive)->read_range(*l, 0, 3);
  REQUIRE(large_first.ok());
  CHECK(*large_first == "LLL");

  // Same sizes, new bytes: the kept file answers with what was read first,
  // the large file with what is on disk now.
  spit(dir + "/small.bin", std::string(small.size(), 't'));
  spit(dir + "/large.bin", std::string(large.size(), 'M'));
  auto again = (*archive)->read_range(*s, 10, 5);
  REQUIRE(again.ok());
  CHECK(*again == (kKeeps ? "sssss" : "ttttt"));
  // A whole read is not a range read: it reads the file as it is now.
  auto whole = (*archive)->read(*s, 1 << 20);
  REQUIRE(whole.ok());
  CHECK((*whole == std::string(small.size(), 't')));
  auto large_again = (*archive)->read_range(*l, 0, 3);
  REQUIRE(large_again.ok());
  CHECK(*large_again == "MMM");

  // A removed kept file is still read; a removed large one is an IO_ERROR naming the entry.
  std::filesystem::remove(dir + "/small.bin");
  std::filesystem::remove(dir + "/large.bin");
  auto gone = (*archive)->read_range(*s, 0, 2);
  if (kKeeps) {
    REQUIRE(gone.ok());
    CHECK(*gone == "ss");
  } else {
    REQUIRE_FALSE(gone.ok());
    CHECK(gone.error().code == ErrorCode::IO_ERROR);
    CHECK(gone.error().where.entry == "small.bin");
  }
  auto large_gone = (*archive)->read_range(*l, 0, 2);
  REQUIRE_FALSE(large_gone.ok());
  CHECK(large_gone.error().code == ErrorCode::IO_ERROR);
  CHECK(large_gone.error().where.entry == "large.bin");

  // Ranges outside a kept file are still refused.
  auto past = (*archive)->read_range(*s, small.size() - 1, 2);
  REQUIRE_FALSE(past.ok());
  CHECK(past.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(past.error().where.entry == "small.bin");
}

TEST_CASE("folder archive: a whole read does not keep the file") {
  const std::string dir = scratch_dir("directory_keep_whole");
  spit(dir + "/a.bin", "abcd");
  auto archive = open_directory(dir);
  REQUIRE(archive.ok());
  const ArchiveEntry* a = (*archive)->find("a.bin");
  REQUIRE(a != nullptr);
  auto whole = (*archive)->read(*a, 100);
  REQUIRE(whole.ok());
  CHECK(*whole == "abcd");
  spit(dir + "/a.bin", "wxyz");
  auto range = (*archive)->read_range(*a, 1, 2);
  REQUIRE(range.ok());
  CHECK(*range == "xy");
}

TEST_CASE("zip archive: the first range read of a stored entry checks its CRC, and a small entry is kept") {
  std::vector<ZipSpec> specs = {{"w/small", std::string(100, 'a') + "xyz"},
                                {"w/large", std::string(70000, 'b')}};
  std::string bytes = build_zip(specs);
  auto clean = open_zip_bytes(bytes);
  REQUIRE(clean.ok());
  const uint64_t small_at = *(*clean)->find("w/small")->data_offset;
  const uint64_t large_at = *(*clean)->find("w/large")->data_offset;

  // One corrupt byte in each entry: the first range read of either fails
  // its CRC, naming the entry, whether it covers the whole entry or a part
  // (the small one is read whole underneath to be kept; the large one, or
  // the small one where nothing is kept, is read through for the check).
  bytes[small_at + 5] ^= 0x20;
  bytes[large_at + 5] ^= 0x20;
  auto corrupt = [&](uint64_t offset, uint64_t length, const char* name) {
    CAPTURE(name);
    CAPTURE(offset);
    auto archive = open_zip_bytes(bytes);
    REQUIRE(archive.ok());
    auto r = (*archive)->read_range(*(*archive)->find(name), offset, length);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::ARCHIVE_INVALID);
    CHECK(r.error().where.entry == name);
    CHECK(r.error().message == "entry \"" + std::string(name) + "\" is corrupt: its CRC-32 does not match");
  };
  corrupt(100, 3, "w/small");
  corrupt(0, 103, "w/small");
  corrupt(4, 3, "w/large");  // parts near the corrupt byte and far from it alike
  corrupt(60000, 100, "w/large");
  corrupt(0, 70000, "w/large");

  // Intact: range reads of the small entry give its bytes, again and again.
  auto intact = open_zip_bytes(build_zip(specs));
  REQUIRE(intact.ok());
  const ArchiveEntry* s = (*intact)->find("w/small");
  for (int i = 0; i < 2; ++i) {
    auto r = (*intact)->read_range(*s, 99, 4);
    REQUIRE(r.ok());
    CHECK(*r == "axyz");
  }
  auto past = (*intact)->read_range(*s, 101, 3);
  REQUIRE_FALSE(past.ok());
  CHECK(past.error().code == ErrorCode::ARCHIVE_INVALID);
  // The intact large entry reads by part and whole alike.
  const ArchiveEntry* l = (*intact)->find("w/large");
  for (int i = 0; i < 2; ++i) {
    auto part = (*intact)->read_range(*l, 69998, 2);
    REQUIRE(part.ok());
    CHECK(*part == "bb");
    auto whole = (*intact)->read_range(*l, 0, 70000);
    REQUIRE(whole.ok());
    CHECK(*whole == std::string(70000, 'b'));
  }
}

namespace {

/// An archive with entries of given sizes and no bytes, to drive
/// Archive::kept_entry directly.
class KeepProbe final : public Archive {
 public:
  explicit KeepProbe(std::vector<ArchiveEntry> entries) { REQUIRE(set_entries(std::move(entries)).ok()); }
  Result<std::string> read(const ArchiveEntry&, uint64_t) override { return std::string(); }
  Result<std::string> read_range(const ArchiveEntry&, uint64_t, uint64_t) override { return std::string(); }
  using Archive::kept_entry;
  using Archive::kKeepEntryMax;
  using Archive::kKeepTotalMax;
};

}  // namespace

TEST_CASE(
    "archive keep: entries up to 64 KiB are kept until 64 MiB in all, and a short whole read is an error") {
  // 1,025 entries of 64 KiB, one of 64 KiB + 1, one of 4 bytes.
  std::vector<ArchiveEntry> entries;
  for (int i = 0; i < 1025; ++i) entries.push_back({"w/" + std::to_string(i), uint64_t{64} << 10, true, {}});
  entries.push_back({"w/big", (uint64_t{64} << 10) + 1, true, {}});
  entries.push_back({"w/short", 4, true, {}});
  KeepProbe probe(entries);
  CHECK(KeepProbe::kKeepEntryMax == (uint64_t{64} << 10));
  CHECK(KeepProbe::kKeepTotalMax == (kKeeps ? (uint64_t{64} << 20) : 0));

  int reads = 0;
  auto whole = [&reads](size_t size) {
    return [&reads, size]() -> Result<std::string> {
      ++reads;
      return std::string(size, 'k');
    };
  };
  // The entry over 64 KiB is never kept (nor read here).
  auto big = probe.kept_entry(1025, whole((uint64_t{64} << 10) + 1));
  REQUIRE(big.ok());
  CHECK(*big == nullptr);
  CHECK(reads == 0);
  // A whole read of the wrong length is refused, naming the entry.
  auto short_read = probe.kept_entry(1026, whole(3));
  if (kKeeps) {
    REQUIRE_FALSE(short_read.ok());
    CHECK(short_read.error().code == ErrorCode::IO_ERROR);
    CHECK(short_read.error().where.entry == "w/short");
    CHECK(short_read.error().message == "entry \"w/short\" read 3 bytes; its size is 4");
  } else {
    REQUIRE(short_read.ok());
    CHECK(*short_read == nullptr);
  }
  reads = 0;
  // 1,024 entries of 64 KiB fill the 64 MiB; the 1,025th is not kept.
  for (size_t i = 0; i < 1025; ++i) {
    auto kept = probe.kept_entry(i, whole(size_t{64} << 10));
    REQUIRE(kept.ok());
    const bool expect_kept = kKeeps && i < 1024;
    CHECK((*kept != nullptr) == expect_kept);
    if (*kept) CHECK((*kept)->size() == (size_t{64} << 10));
  }
  CHECK(reads == (kKeeps ? 1024 : 0));
  // A kept entry is not read again.
  auto again = probe.kept_entry(0, whole(size_t{64} << 10));
  REQUIRE(again.ok());
  CHECK((*again != nullptr) == kKeeps);
  CHECK(reads == (kKeeps ? 1024 : 0));
}
