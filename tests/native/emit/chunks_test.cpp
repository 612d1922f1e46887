// Chunk lists: flattening, bounded range reads, writing files natively.
#include <doctest/doctest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "emit/chunks.h"
#include "emit/chunks_native.h"
#include "serde/archive_native_io.h"
#include "pte_test_util.h"

using namespace pteforge;
using namespace pteforge::emit;
using namespace pteforge::emit::testing;

namespace {

std::string temp_dir() {
  std::string dir = std::string(PTEFORGE_BINARY_DIR) + "/test_emit_tmp_XXXXXX";
  REQUIRE(mkdtemp(dir.data()) != nullptr);
  return dir;
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  REQUIRE(d != nullptr);
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

}  // namespace

TEST_CASE("flattening bytes, zeros and ranges in order") {
  std::vector<std::pair<std::string, std::string>> inputs{{"w", "0123456789"}};
  std::vector<Chunk> chunks = {Chunk::from_string("ab"), Chunk::zeros(2), Chunk::from_range("w", 3, 4),
                               Chunk::from_range("w", 0, 0)};
  CHECK(total_size(chunks) == 8);
  auto flat = flatten_chunks(chunks, memory_reader(&inputs));
  REQUIRE(flat.ok());
  CHECK(to_string(*flat) == std::string("ab\0\0" "3456", 8));
  // A reader error is passed through.
  std::vector<Chunk> past_end = {Chunk::from_range("w", 8, 4)};
  auto err = flatten_chunks(past_end, memory_reader(&inputs));
  REQUIRE(!err.ok());
  CHECK(err.error().code == ErrorCode::IO_ERROR);
}

TEST_CASE("ranges are read in pieces of at most 1 MiB") {
  const uint64_t length = 3 * kRangeReadPiece + 5;
  uint64_t calls = 0, largest = 0, total = 0;
  RangeReader reader = [&](const InputRange& r, uint8_t* dst) -> Status {
    ++calls;
    largest = std::max(largest, r.length);
    for (uint64_t i = 0; i < r.length; ++i) dst[i] = static_cast<uint8_t>((r.offset + i) % 251);
    return Status::Ok();
  };
  uint64_t checked = 0;
  bool ok = true;
  Status st = stream_chunks({Chunk::from_range("big", 7, length)}, reader, [&](const uint8_t* d, uint64_t n) -> Status {
    for (uint64_t i = 0; i < n; ++i) ok = ok && d[i] == static_cast<uint8_t>((7 + total + i) % 251);
    total += n;
    ++checked;
    return Status::Ok();
  });
  REQUIRE(st.ok());
  CHECK(ok);
  CHECK(total == length);
  CHECK(calls == 4);
  CHECK(largest == kRangeReadPiece);
  CHECK(checked == 4);
}

TEST_CASE("writing chunks to a file natively, with ranges from another file") {
  std::string dir = temp_dir();
  write_file(dir + "/weights.bin", "abcdefghij");
  std::vector<Chunk> chunks = {Chunk::from_string("PTE:"), Chunk::from_range("weights", 2, 5), Chunk::zeros(3)};
  RangeReader reader = file_range_reader({{"weights", dir + "/weights.bin"}});
  Status st = write_chunks_to_file(chunks, dir + "/out.pte", reader);
  REQUIRE_MESSAGE(st.ok(), st.error().to_string());
  CHECK(read_file(dir + "/out.pte") == std::string("PTE:cdefg\0\0\0", 12));
  auto names = list_dir(dir);
  CHECK(names.size() == 2);  // weights.bin and out.pte, no temporary file

  // A failing read leaves nothing behind (no output, no temporary).
  std::vector<Chunk> bad = {Chunk::from_string("x"), Chunk::from_range("weights", 8, 10)};
  Status fail = write_chunks_to_file(bad, dir + "/bad.pte", reader);
  REQUIRE(!fail.ok());
  CHECK(fail.error().code == ErrorCode::IO_ERROR);
  CHECK(fail.error().where.entry == std::optional<std::string>(dir + "/weights.bin"));
  CHECK(fail.error().where.byte_offset == std::optional<uint64_t>(10));
  CHECK(list_dir(dir).size() == 2);

  // A missing input file.
  RangeReader missing = file_range_reader({{"weights", dir + "/nope.bin"}});
  Status miss = write_chunks_to_file(chunks, dir + "/m.pte", missing);
  REQUIRE(!miss.ok());
  CHECK(miss.error().code == ErrorCode::IO_ERROR);
  CHECK(list_dir(dir).size() == 2);

  // An existing file is replaced whole.
  Status again = write_chunks_to_file({Chunk::from_string("new")}, dir + "/out.pte");
  REQUIRE(again.ok());
  CHECK(read_file(dir + "/out.pte") == "new");

  // A directory that does not exist.
  Status nodir = write_chunks_to_file(chunks, dir + "/no/such/dir/x.pte", reader);
  REQUIRE(!nodir.ok());
  CHECK(nodir.error().code == ErrorCode::IO_ERROR);

  for (const auto& n : list_dir(dir)) std::remove((dir + "/" + n).c_str());
  rmdir(dir.c_str());
}

TEST_CASE(
    "writing bytes from memory to a file natively: replaced whole, empty allowed, nothing left on failure") {
  std::string dir = temp_dir();
  const std::string text("{\"a\": 1}\n\0tail", 14);
  Status st = write_bytes_to_file(text, dir + "/m.json");
  REQUIRE_MESSAGE(st.ok(), st.error().to_string());
  CHECK(read_file(dir + "/m.json") == text);
  REQUIRE(write_bytes_to_file("", dir + "/m.json").ok());
  CHECK(read_file(dir + "/m.json").empty());
  CHECK(list_dir(dir) == std::vector<std::string>{"m.json"});  // no temporary file

  // Staged, then committed with others; a folder in the way is refused and kept.
  auto staged = StagedOutput::write_bytes("staged", dir + "/s.txt");
  REQUIRE(staged.ok());
  CHECK(read_file(dir + "/m.json").empty());
  std::vector<std::unique_ptr<StagedOutput>> outputs;
  outputs.push_back(std::move(staged).value());
  REQUIRE(commit_outputs(outputs).ok());
  CHECK(read_file(dir + "/s.txt") == "staged");
  REQUIRE(mkdir((dir + "/sub").c_str(), 0700) == 0);
  Status folder = write_bytes_to_file("x", dir + "/sub");
  REQUIRE(!folder.ok());
  CHECK(folder.error().code == ErrorCode::IO_ERROR);
  CHECK(folder.error().where.entry == std::optional<std::string>(dir + "/sub"));
  rmdir((dir + "/sub").c_str());
  CHECK(list_dir(dir).size() == 2);

  for (const auto& n : list_dir(dir)) std::remove((dir + "/" + n).c_str());
  rmdir(dir.c_str());
}

TEST_CASE("staged outputs: nothing is in place before commit_outputs, then all are, a failed commit puts the earlier ones back") {
  std::string dir = temp_dir();
  write_file(dir + "/m.json", "old json");
  write_file(dir + "/m.pte", "old pte");
  {
    // Staged but never committed (a later output failed): the old files stay, no temporary is left.
    auto json = StagedOutput::write({Chunk::from_string("new json")}, dir + "/m.json");
    REQUIRE(json.ok());
    CHECK((*json)->path() == dir + "/m.json");
    CHECK(list_dir(dir).size() == 3);  // m.json, m.pte and the temporary
    CHECK(list_dir(dir)[0].rfind(".pteforge-", 0) == 0);
    CHECK(read_file(dir + "/m.json") == "old json");
  }
  CHECK(list_dir(dir) == std::vector<std::string>{"m.json", "m.pte"});
  CHECK(read_file(dir + "/m.json") == "old json");

  // The temporary takes the mode of the file it replaces.
  chmod((dir + "/m.pte").c_str(), 0600);
  std::vector<std::unique_ptr<StagedOutput>> outputs;
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"m.json", "new json"}, {"m.pte", "new pte"}}) {
    auto staged = StagedOutput::write({Chunk::from_string(text)}, dir + "/" + name);
    REQUIRE(staged.ok());
    outputs.push_back(std::move(*staged));
  }
  CHECK(read_file(dir + "/m.json") == "old json");
  CHECK(read_file(dir + "/m.pte") == "old pte");
  REQUIRE(commit_outputs(outputs).ok());
  CHECK(read_file(dir + "/m.json") == "new json");
  CHECK(read_file(dir + "/m.pte") == "new pte");
  struct stat mode;
  REQUIRE(stat((dir + "/m.pte").c_str(), &mode) == 0);
  CHECK((mode.st_mode & 0777) == 0600);
  outputs.clear();
  CHECK(list_dir(dir) == std::vector<std::string>{"m.json", "m.pte"});

  // The third rename fails (its path became a non-empty folder after it was
  // staged): of the outputs already renamed, m.json gets its earlier version
  // back and a.json, new in this run, is removed; the third's temporary goes
  // with its object.
  mkdir((dir + "/sub").c_str(), 0755);
  for (const std::string name : {"m.json", "a.json", "sub/b.pte"}) {
    auto staged = StagedOutput::write({Chunk::from_string("x")}, dir + "/" + name);
    REQUIRE(staged.ok());
    outputs.push_back(std::move(*staged));
  }
  mkdir((dir + "/sub/b.pte").c_str(), 0755);
  write_file(dir + "/sub/b.pte/keep", "k");
  Status st = commit_outputs(outputs);
  REQUIRE(!st.ok());
  CHECK(st.error().code == ErrorCode::IO_ERROR);
  CHECK(st.error().where.entry == std::optional<std::string>(dir + "/sub/b.pte"));
  CHECK(st.error().message.rfind("cannot write \"" + dir + "/sub/b.pte\": ", 0) == 0);
  outputs.clear();
  CHECK(list_dir(dir) == std::vector<std::string>{"m.json", "m.pte", "sub"});
  CHECK(read_file(dir + "/m.json") == "new json");
  CHECK(list_dir(dir + "/sub") == std::vector<std::string>{"b.pte"});

  std::remove((dir + "/sub/b.pte/keep").c_str());
  rmdir((dir + "/sub/b.pte").c_str());
  rmdir((dir + "/sub").c_str());
  for (const auto& n : list_dir(dir)) std::remove((dir + "/" + n).c_str());
  rmdir(dir.c_str());
}

namespace {
/// Fails (EBUSY) every rename that puts an earlier version back; the rest go through.
int rename_failing_restores(const char* from, const char* to) {
  const std::string f = from;
  if (f.size() > 8 && f.compare(f.size() - 8, 8, ".earlier") == 0 && std::string(to).find(".earlier") == std::string::npos) {
    errno = EBUSY;
    return -1;
  }
  return std::rename(from, to);
}
}  // namespace

TEST_CASE("staged outputs: an earlier version that cannot be put back is kept beside its path and named in the error") {
  std::string dir = temp_dir();
  write_file(dir + "/m.json", "old json");
  mkdir((dir + "/sub").c_str(), 0755);
  std::vector<std::unique_ptr<StagedOutput>> outputs;
  for (const std::string name : {"m.json", "a.json", "sub/b.pte"}) {
    auto staged = StagedOutput::write({Chunk::from_string("new")}, dir + "/" + name);
    REQUIRE(staged.ok());
    outputs.push_back(std::move(*staged));
  }
  mkdir((dir + "/sub/b.pte").c_str(), 0755);  // the third rename fails
  write_file(dir + "/sub/b.pte/keep", "k");
  testing::RenameFn before = testing::set_rename_for_testing(&rename_failing_restores);
  Status st = commit_outputs(outputs);
  testing::set_rename_for_testing(before);
  REQUIRE(!st.ok());
  CHECK(st.error().code == ErrorCode::IO_ERROR);
  CHECK(st.error().where.entry == std::optional<std::string>(dir + "/sub/b.pte"));
  outputs.clear();
  // m.json's new version is gone, its earlier one kept under the temporary's
  // name; a.json (new in this run) is removed; no other file is left.
  std::vector<std::string> left = list_dir(dir);
  REQUIRE(left.size() == 2);
  CHECK(left[1] == "sub");
  const std::string kept = left[0];
  CHECK(kept.rfind(".pteforge-", 0) == 0);
  CHECK(kept.size() == std::string(".pteforge-XXXXXX.earlier").size());
  CHECK(kept.substr(kept.size() - 8) == ".earlier");
  CHECK(read_file(dir + "/" + kept) == "old json");
  REQUIRE(st.error().notes.size() == 1);
  CHECK(st.error().notes[0] == "the earlier \"" + dir + "/m.json\" could not be put back (" +
                                   serde::open_failure_reason(EBUSY) + "); it is kept as \"" + dir + "/" + kept + "\"");

  std::remove((dir + "/" + kept).c_str());
  std::remove((dir + "/sub/b.pte/keep").c_str());
  rmdir((dir + "/sub/b.pte").c_str());
  rmdir((dir + "/sub").c_str());
  rmdir(dir.c_str());
}

TEST_CASE("labelled sources: labelled_source and split_labelled_source are inverses") {
  const std::string s = emit::labelled_source("swap:encoder.layer.1", "data/weights/weight_0");
  CHECK(s == "swap:encoder.layer.1::data/weights/weight_0");
  std::optional<emit::LabelledSource> part = emit::split_labelled_source(s);
  REQUIRE(part.has_value());
  CHECK(part->label == "swap:encoder.layer.1");
  CHECK(part->entry == "data/weights/weight_0");
  // Split at the first separator: an entry may itself contain "::".
  part = emit::split_labelled_source("swap:a::x::y");
  REQUIRE(part.has_value());
  CHECK(part->label == "swap:a");
  CHECK(part->entry == "x::y");
  // A source of the main input has no label.
  CHECK_FALSE(emit::split_labelled_source("data/weights/weight_0").has_value());
}
