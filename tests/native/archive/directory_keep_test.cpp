// Folder archives keep small files after their first range read (see
// DirectoryArchive in archive_dir.cpp): later reads give the bytes first read,
// without opening the file again; larger files are read from disk each time.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "serde/archive_native.h"
#include "test_files.h"

using namespace pteforge;
using namespace pteforge::serde;
using pteforge::test::scratch_dir;
using pteforge::test::spit;

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
  CHECK(*again == "sssss");
  auto whole = (*archive)->read(*s, 1 << 20);
  REQUIRE(whole.ok());
  CHECK(*whole == small);
  auto large_again = (*archive)->read_range(*l, 0, 3);
  REQUIRE(large_again.ok());
  CHECK(*large_again == "MMM");

  // A removed kept file is still read; a removed large one is an IO_ERROR naming the entry.
  std::filesystem::remove(dir + "/small.bin");
  std::filesystem::remove(dir + "/large.bin");
  auto gone = (*archive)->read_range(*s, 0, 2);
  REQUIRE(gone.ok());
  CHECK(*gone == "ss");
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
