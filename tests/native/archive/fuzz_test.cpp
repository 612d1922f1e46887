// Mutated and truncated corpus archives: opening, detecting and reading never
// crash and fail only with archive/input error codes. (Deterministic: a fixed
// linear congruential generator picks the mutations.)
#include <doctest/doctest.h>

#include "serde/archive_native.h"
#include "serde/archive_zip.h"
#include "serde/pt2_layout.h"
#include "test_files.h"

using namespace pteforge;
using namespace pteforge::serde;

namespace {

bool expected_code(ErrorCode code) {
  switch (code) {
    case ErrorCode::INPUT_EMPTY:
    case ErrorCode::ARCHIVE_INVALID:
    case ErrorCode::ARCHIVE_ENTRY_MISSING:
    case ErrorCode::ARCHIVE_ENTRY_NAME:
    case ErrorCode::ARCHIVE_COMPRESSED:
    case ErrorCode::LEGACY_ARCHIVE:
      return true;
    default:
      return false;
  }
}

/// Opens, detects and reads everything; returns true when the archive opened.
bool exercise(const std::string& bytes, bool portable) {
  std::unique_ptr<Archive> archive;
  if (portable) {
    auto r = ZipArchive::open(std::make_unique<MemoryByteSource>(bytes));
    if (!r.ok()) {
      CHECK(expected_code(r.error().code));
      return false;
    }
    archive = std::move(r).value();
  } else {
    auto r = open_zip_bytes(bytes);
    if (!r.ok()) {
      CHECK(expected_code(r.error().code));
      return false;
    }
    archive = std::move(r).value();
  }
  auto layout = detect_pt2_layout(*archive);
  if (!layout.ok()) CHECK(expected_code(layout.error().code));
  for (const auto& entry : archive->entries()) {
    auto whole = archive->read(entry, 1 << 20);
    if (whole.ok()) {
      CHECK(whole->size() == entry.size);
    } else {
      CHECK(expected_code(whole.error().code));
    }
    auto part = archive->read_range(entry, 0, std::min<uint64_t>(entry.size, 16));
    if (!part.ok()) CHECK(expected_code(part.error().code));
  }
  return true;
}

}  // namespace

TEST_CASE("fuzz: mutated linear_tanh.pt2 never crashes") {
  const std::string original =
      pteforge::test::slurp(pteforge::test::corpus_dir() + "/linear_tanh/linear_tanh.pt2");
  REQUIRE(original.size() == 12449);
  uint64_t state = 0x2545f4914f6cdd1dull;
  auto next = [&state]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  int opened = 0;
  int refused = 0;
  for (int i = 0; i < 1500; ++i) {
    std::string bytes = original;
    const int flips = 1 + static_cast<int>(next() % 4);
    for (int f = 0; f < flips; ++f) {
      // Half of the mutations hit the central directory and end records
      // (the last 1200 bytes), where structure lives.
      size_t pos = (next() % 2) ? bytes.size() - 1 - next() % 1200 : next() % bytes.size();
      bytes[pos] = static_cast<char>(next() & 0xff);
    }
    if (exercise(bytes, (i % 2) == 1)) {
      ++opened;
    } else {
      ++refused;
    }
  }
  CHECK(opened > 0);
  CHECK(refused > 0);
}

TEST_CASE("fuzz: every truncation of a small archive is refused cleanly") {
  const std::string original =
      pteforge::test::slurp(pteforge::test::corpus_dir() + "/two_methods/two_methods.pt2");
  REQUIRE(original.size() > 9000);
  for (size_t len = 0; len < original.size(); len += 37) {
    CAPTURE(len);
    CHECK_FALSE(exercise(original.substr(0, len), len % 2 == 0));
  }
}
