// Broken and unsupported archives: every case asserts the error code and
// where.entry exactly.
#include <doctest/doctest.h>

#include "serde/archive_native.h"
#include "serde/archive_zip.h"
#include "serde/pt2_layout.h"
#include "test_files.h"
#include "zip_builder.h"

using namespace pteforge;
using namespace pteforge::serde;
using pteforge::test::build_zip;
using pteforge::test::minimal_pt2;
using pteforge::test::ZipSpec;

namespace {

/// Whether open_zip_bytes / open_input inflate deflated entries: libzip does
/// natively; the WebAssembly build has only the portable stored-only reader
/// (archive_zip_wasm.cpp), which refuses them with ARCHIVE_COMPRESSED.
#if defined(__EMSCRIPTEN__)
constexpr bool kInflates = false;
#else
constexpr bool kInflates = true;
#endif

/// Opens zip bytes and detects the layout; returns the first error.
Error open_error(const std::string& bytes) {
  auto archive = open_zip_bytes(bytes);
  if (!archive.ok()) return archive.error();
  auto layout = detect_pt2_layout(**archive);
  REQUIRE_FALSE(layout.ok());
  return layout.error();
}

std::vector<ZipSpec> with(std::vector<ZipSpec> specs, const std::string& name, ZipSpec replacement) {
  for (auto& s : specs) {
    if (s.name == name) s = std::move(replacement);
  }
  return specs;
}

std::vector<ZipSpec> without(std::vector<ZipSpec> specs, const std::string& name) {
  std::vector<ZipSpec> out;
  for (auto& s : specs) {
    if (s.name != name) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

TEST_CASE("bad archive: the minimal archive of these tests is itself valid") {
  auto archive = open_zip_bytes(build_zip(minimal_pt2("m")));
  REQUIRE(archive.ok());
  auto layout = detect_pt2_layout(**archive);
  REQUIRE(layout.ok());
  CHECK(layout->root == "m");
  REQUIRE(layout->models.size() == 1);
  CHECK(layout->models[0].method == "forward");
  for (const auto& e : (*archive)->entries()) CHECK(*e.data_offset % 64 == 0);
}

TEST_CASE("bad archive: bytes that are not a zip") {
  auto r = open_zip_bytes("this is plain text, certainly not a zip archive");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK_FALSE(r.error().where.entry.has_value());
  CHECK(r.error().message.find("not a zip archive") != std::string::npos);

  auto tiny = open_zip_bytes("PK");
  REQUIRE_FALSE(tiny.ok());
  CHECK(tiny.error().code == ErrorCode::ARCHIVE_INVALID);

  const std::string dir = pteforge::test::scratch_dir("not_zip");
  const std::string path = dir + "/notes.pt2";
  pteforge::test::spit(path, "this is plain text, certainly not a zip archive");
  auto file = open_zip_file(path);
  REQUIRE_FALSE(file.ok());
  CHECK(file.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(file.error().where.entry == path);
  auto input = open_input(path);
  REQUIRE_FALSE(input.ok());
  CHECK(input.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(input.error().where.entry == path);
}

TEST_CASE("bad archive: an empty file") {
  auto r = open_zip_bytes("");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::INPUT_EMPTY);
  CHECK_FALSE(r.error().where.entry.has_value());

  const std::string dir = pteforge::test::scratch_dir("empty");
  const std::string path = dir + "/empty.pt2";
  pteforge::test::spit(path, "");
  auto file = open_zip_file(path);
  REQUIRE_FALSE(file.ok());
  CHECK(file.error().code == ErrorCode::INPUT_EMPTY);
  CHECK(file.error().where.entry == path);
  auto input = open_input(path);
  REQUIRE_FALSE(input.ok());
  CHECK(input.error().code == ErrorCode::INPUT_EMPTY);
  CHECK(input.error().where.entry == path);
}

TEST_CASE("bad archive: missing paths and an empty folder") {
  const std::string dir = pteforge::test::scratch_dir("missing");
  auto missing = open_input(dir + "/nope.pt2");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::IO_ERROR);
  CHECK(missing.error().where.entry == dir + "/nope.pt2");
  auto missing_zip = open_zip_file(dir + "/nope.pt2");
  REQUIRE_FALSE(missing_zip.ok());
  CHECK(missing_zip.error().code == ErrorCode::IO_ERROR);
  CHECK(missing_zip.error().where.entry == dir + "/nope.pt2");

  // A layout error that names no entry names the input (as the npm package does).
  auto empty_dir = open_input(dir);
  REQUIRE_FALSE(empty_dir.ok());
  CHECK(empty_dir.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(empty_dir.error().message ==
        "the input holds no files; expected a torch.export .pt2 archive or the folder of an unpacked one");
  CHECK(empty_dir.error().where.entry == dir);
}

TEST_CASE("bad archive: a truncated zip") {
  const std::string full = pteforge::test::slurp(pteforge::test::corpus_dir() + "/linear_tanh/linear_tanh.pt2");
  REQUIRE(full.size() == 12449);
  auto half = open_zip_bytes(full.substr(0, full.size() / 2));
  REQUIRE_FALSE(half.ok());
  CHECK(half.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK_FALSE(half.error().where.entry.has_value());
  CHECK(half.error().message.find("truncated") != std::string::npos);

  // Cut inside the classic end record: the ZIP64 records are still there,
  // but no end record can be found.
  auto cut_end = open_zip_bytes(full.substr(0, full.size() - 5));
  REQUIRE_FALSE(cut_end.ok());
  CHECK(cut_end.error().code == ErrorCode::ARCHIVE_INVALID);
  // The last end record left is that of the zip stored inside (the sample
  // inputs' model.pt), whose ZIP64 locator points nowhere useful: the
  // message is the likely cause, the notes give the evidence.
  CHECK(cut_end.error().message ==
        "the zip archive is probably truncated: the end of its central directory is missing");
  CHECK(
      cut_end.error().notes ==
      std::vector<std::string>{
          "the last end-of-central-directory record (at byte 10883) does not end the file "
          "(1539 bytes follow it): it probably belongs to a zip stored inside the archive",
          "read as this archive's own, that record fails: no ZIP64 end-of-central-directory record where its "
          "locator points"});
  // The inner record's offsets count from the inner zip's start: the error
  // points at the record in this file instead.
  CHECK(cut_end.error().where.byte_offset == 10883);
  CHECK(open_zip_bytes(full).ok());

  // Data cut away but the directory kept (moved up): offsets point past the end.
  std::string body_cut = full.substr(0, 1000) + full.substr(full.size() - 1200);
  auto moved = open_zip_bytes(body_cut);
  REQUIRE_FALSE(moved.ok());
  CHECK(moved.error().code == ErrorCode::ARCHIVE_INVALID);
}

TEST_CASE("bad archive: an entry name with a .. component") {
  auto specs = minimal_pt2("m");
  specs.push_back({"m/../evil.sh", "echo pwned"});
  Error e = open_error(build_zip(specs));
  CHECK(e.code == ErrorCode::ARCHIVE_ENTRY_NAME);
  CHECK(e.where.entry == "m/../evil.sh");

  auto backslash = minimal_pt2("m");
  backslash.push_back({"m\\..\\evil.sh", "x"});
  Error e2 = open_error(build_zip(backslash));
  CHECK(e2.code == ErrorCode::ARCHIVE_ENTRY_NAME);
  CHECK(e2.where.entry == "m\\..\\evil.sh");
}

TEST_CASE("bad archive: an absolute entry name") {
  auto specs = minimal_pt2("m");
  specs.insert(specs.begin() + 2, ZipSpec{"/etc/passwd", "root:x:0:0"});
  Error e = open_error(build_zip(specs));
  CHECK(e.code == ErrorCode::ARCHIVE_ENTRY_NAME);
  CHECK(e.where.entry == "/etc/passwd");
  CHECK(e.message.find("absolute") != std::string::npos);

  // The portable reader applies the same rule.
  auto portable = ZipArchive::open(std::make_unique<MemoryByteSource>(build_zip(specs)));
  REQUIRE_FALSE(portable.ok());
  CHECK(portable.error().code == ErrorCode::ARCHIVE_ENTRY_NAME);
  CHECK(portable.error().where.entry == "/etc/passwd");
}

TEST_CASE("bad archive: check_entry_name rules") {
  for (const char* ok : {"a", "a/b.json", "m/.data/version", "a/..b/c", "a/b../c", "a/.../b", "./a"}) {
    CAPTURE(ok);
    CHECK(check_entry_name(ok).ok());
  }
  for (const char* bad : {"", "/a", "\\a", "C:/a", "c:x", "..", "../a", "a/..", "a/../b", "a\\..\\b"}) {
    CAPTURE(bad);
    Status s = check_entry_name(bad);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == ErrorCode::ARCHIVE_ENTRY_NAME);
    CHECK(s.error().where.entry == bad);
  }
  Status nul = check_entry_name(std::string("a\0b", 3));
  REQUIRE_FALSE(nul.ok());
  CHECK(nul.error().code == ErrorCode::ARCHIVE_ENTRY_NAME);
}

TEST_CASE("bad archive: a compressed payload is readable through libzip (natively) but cannot be referenced") {
  const std::string weights(300, '\x07');
  auto specs = with(minimal_pt2("m"), "m/data/weights/weight_0",
                    ZipSpec{"m/data/weights/weight_0", weights, /*deflate=*/true});
  const std::string bytes = build_zip(specs);
  auto archive = open_zip_bytes(bytes);
  REQUIRE(archive.ok());
  const ArchiveEntry* entry = (*archive)->find("m/data/weights/weight_0");
  REQUIRE(entry != nullptr);
  CHECK_FALSE(entry->stored);
  CHECK_FALSE(entry->data_offset.has_value());
  CHECK(entry->size == 300);

  auto whole = (*archive)->read(*entry, 1 << 20);
  if (kInflates) {
    REQUIRE(whole.ok());
    CHECK(*whole == weights);
  } else {
    REQUIRE_FALSE(whole.ok());
    CHECK(whole.error().code == ErrorCode::ARCHIVE_COMPRESSED);
    CHECK(whole.error().where.entry == "m/data/weights/weight_0");
  }

  auto range = (*archive)->read_range(*entry, 0, 16);
  REQUIRE_FALSE(range.ok());
  CHECK(range.error().code == ErrorCode::ARCHIVE_COMPRESSED);
  CHECK(range.error().where.entry == "m/data/weights/weight_0");

  Status stored = require_stored(*entry);
  REQUIRE_FALSE(stored.ok());
  CHECK(stored.error().code == ErrorCode::ARCHIVE_COMPRESSED);
  CHECK(stored.error().where.entry == "m/data/weights/weight_0");

  auto layout = detect_pt2_layout(**archive);
  REQUIRE(layout.ok());
  auto payload = resolve_payload(**archive, layout->models[0], PayloadFolder::kWeights, "weight_0");
  REQUIRE(payload.ok());
  CHECK(require_stored(**payload).error().code == ErrorCode::ARCHIVE_COMPRESSED);

  // The portable reader (the WASM build's) cannot decompress at all.
  auto portable = ZipArchive::open(std::make_unique<MemoryByteSource>(bytes));
  REQUIRE(portable.ok());
  auto no_inflate = (*portable)->read(*(*portable)->find("m/data/weights/weight_0"), 1 << 20);
  REQUIRE_FALSE(no_inflate.ok());
  CHECK(no_inflate.error().code == ErrorCode::ARCHIVE_COMPRESSED);
  CHECK(no_inflate.error().where.entry == "m/data/weights/weight_0");
}

TEST_CASE("bad archive: compressed JSON and text records are read through libzip (natively)") {
  std::vector<ZipSpec> specs = minimal_pt2("m");
  for (auto& s : specs) {
    if (s.name.find("weight_0") == std::string::npos) s.deflate = true;
  }
  const std::string dir = pteforge::test::scratch_dir("deflated_json");
  const std::string path = dir + "/m.pt2";
  pteforge::test::spit(path, build_zip(specs));
  auto input = open_input(path);
  if (!kInflates) {
    // The layout check reads the deflated archive_format record first.
    REQUIRE_FALSE(input.ok());
    CHECK(input.error().code == ErrorCode::ARCHIVE_COMPRESSED);
    CHECK(input.error().where.entry == "m/archive_format");
    CHECK(input.error().message ==
          "entry \"m/archive_format\" is compressed and this build reads stored entries only; re-save the archive "
          "without compression (torch.export.save does not compress)");
    return;
  }
  REQUIRE(input.ok());
  CHECK(input->layout.root == "m");
  auto program = read_entry(*input->archive, "m/models/model.json", 1 << 20);
  REQUIRE(program.ok());
  CHECK(*program == R"({"graph_module": {}})");
  // A deflated entry read with too small a limit fails before inflating.
  auto limited = read_entry(*input->archive, "m/models/model.json", 5);
  REQUIRE_FALSE(limited.ok());
  CHECK(limited.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(limited.error().where.entry == "m/models/model.json");
}

TEST_CASE("bad archive: archive_format missing") {
  Error e = open_error(build_zip(without(minimal_pt2("m"), "m/archive_format")));
  CHECK(e.code == ErrorCode::ARCHIVE_ENTRY_MISSING);
  CHECK(e.where.entry == "m/archive_format");
}

TEST_CASE("bad archive: archive_format is not pt2") {
  Error e = open_error(build_zip(with(minimal_pt2("m"), "m/archive_format", {"m/archive_format", "zip"})));
  CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
  CHECK(e.where.entry == "m/archive_format");
  CHECK(e.message.find("\"zip\"") != std::string::npos);
}

TEST_CASE("bad archive: archive_version other than 0") {
  Error e = open_error(build_zip(with(minimal_pt2("m"), "m/archive_version", {"m/archive_version", "1"})));
  CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
  CHECK(e.where.entry == "m/archive_version");
  CHECK(e.message.find("archive_version is 1") != std::string::npos);

  Error text = open_error(build_zip(with(minimal_pt2("m"), "m/archive_version", {"m/archive_version", "zero"})));
  CHECK(text.code == ErrorCode::ARCHIVE_INVALID);
  CHECK(text.where.entry == "m/archive_version");

  // Absent: version 0.
  auto archive = open_zip_bytes(build_zip(without(minimal_pt2("m"), "m/archive_version")));
  REQUIRE(archive.ok());
  auto layout = detect_pt2_layout(**archive);
  REQUIRE(layout.ok());
  CHECK(layout->archive_version == 0);
}

TEST_CASE("bad archive: byteorder") {
  Error e = open_error(build_zip(with(minimal_pt2("m"), "m/byteorder", {"m/byteorder", "middle"})));
  CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
  CHECK(e.where.entry == "m/byteorder");

  auto big = open_zip_bytes(build_zip(with(minimal_pt2("m"), "m/byteorder", {"m/byteorder", "big"})));
  REQUIRE(big.ok());
  CHECK(detect_pt2_layout(**big)->byteorder == ByteOrder::kBig);
  auto absent = open_zip_bytes(build_zip(without(minimal_pt2("m"), "m/byteorder")));
  REQUIRE(absent.ok());
  CHECK(detect_pt2_layout(**absent)->byteorder == ByteOrder::kLittle);
}

TEST_CASE("bad archive: a central directory claiming 1 GB in a 1 KB file") {
  auto specs = minimal_pt2("m");
  specs[0].claimed_size = uint64_t{1} << 30;
  const std::string bytes = build_zip(specs);
  REQUIRE(bytes.size() < 2048);
  Error e = open_error(bytes);
  CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
  CHECK(e.where.entry == "m/data/weights/weight_0");
  CHECK(e.where.byte_offset == 64);
  CHECK(e.message.find("1073741824") != std::string::npos);

  // The same claim through ZIP64 extra fields (8-byte sizes).
  specs[0].zip64_extra = true;
  specs[0].claimed_size = uint64_t{1} << 40;
  Error e64 = open_error(build_zip(specs));
  CHECK(e64.code == ErrorCode::ARCHIVE_INVALID);
  CHECK(e64.where.entry == "m/data/weights/weight_0");
}

TEST_CASE("bad archive: a deflated entry claiming more than deflate can expand") {
  auto specs = minimal_pt2("m");
  specs[3].deflate = true;
  specs[3].claimed_size = uint64_t{1} << 33;
  specs[3].zip64_extra = true;
  Error e = open_error(build_zip(specs));
  CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
  CHECK(e.where.entry == "m/models/model.json");
}

TEST_CASE("bad archive: end records that claim too much") {
  std::string bytes = build_zip(minimal_pt2("m"), /*zip64_end=*/false);
  // Classic end record: entry count at -12, central directory offset at -6.
  std::string many = bytes;
  many[many.size() - 12] = '\xff';
  many[many.size() - 11] = '\x7f';
  many[many.size() - 14] = '\xff';
  many[many.size() - 13] = '\x7f';
  auto r = open_zip_bytes(many);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(r.error().message.find("32767 entries") != std::string::npos);

  std::string far = bytes;
  far[far.size() - 3] = '\x40';  // central directory offset += 0x400000
  auto r2 = open_zip_bytes(far);
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(r2.error().message.find("central directory") != std::string::npos);
  // Located at the end record that gives the offset, not past the file's end.
  CHECK(r2.error().where.byte_offset == far.size() - 22);
}

TEST_CASE("bad archive: end records whose two entry counts disagree are corrupt, not split archives") {
  // Classic end record (22 bytes at the end): entries on this disk at -14, in all at -12.
  std::string bytes = build_zip(minimal_pt2("m"), /*zip64_end=*/false);
  const uint64_t end_pos = bytes.size() - 22;
  std::string classic = bytes;
  classic[classic.size() - 14] = static_cast<char>(classic[classic.size() - 14] + 1);
  auto r = open_zip_bytes(classic);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::ARCHIVE_INVALID);
  const std::string n = std::to_string(static_cast<unsigned char>(bytes[bytes.size() - 12]));
  const std::string n1 = std::to_string(static_cast<unsigned char>(bytes[bytes.size() - 12]) + 1);
  CHECK(r.error().message == "the end-of-central-directory record is corrupt: it counts " + n1 +
                                 " entries on this disk but " + n +
                                 " in all (a single-disk archive has the same count twice)");
  CHECK(r.error().where.byte_offset == end_pos);

  // ZIP64 end record (56 bytes, then the 20-byte locator and the classic
  // record): entries on this disk at +24, in all at +32.
  std::string z64 = build_zip(minimal_pt2("m"));
  const uint64_t z64_pos = z64.size() - 22 - 20 - 56;
  REQUIRE(z64.substr(z64_pos, 4) == std::string("PK\x06\x06", 4));
  z64[z64_pos + 24] = static_cast<char>(z64[z64_pos + 24] + 2);
  auto r2 = open_zip_bytes(z64);
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().message.rfind("the ZIP64 end-of-central-directory record is corrupt: it counts ", 0) == 0);
  CHECK(r2.error().where.byte_offset == z64_pos);

  // A record naming another disk is a split archive.
  std::string split = bytes;
  split[split.size() - 18] = 1;  // number of this disk
  auto r3 = open_zip_bytes(split);
  REQUIRE_FALSE(r3.ok());
  CHECK(r3.error().message == "multi-disk (split) zip archives are not supported");
  CHECK(r3.error().where.byte_offset == end_pos);
}

TEST_CASE("bad archive: the central directory of a zip stored inside a truncated archive") {
  // The archive cut 3 bytes after a stored inner zip (no ZIP64 records): the
  // last end record is the inner zip's, its directory offset counts from the
  // inner zip's start and lands on other bytes of this file.
  const std::string inner = build_zip({{"a/data.pkl", std::string(50, 'x')}, {"a/version", "3"}},
                                      /*zip64_end=*/false);
  auto specs = minimal_pt2("m");
  specs.push_back({"m/data/sample_inputs/model.pt", inner});
  const std::string outer = build_zip(specs);
  const size_t at = outer.find(inner);
  REQUIRE(at != std::string::npos);
  auto r = open_zip_bytes(outer.substr(0, at + inner.size() + 3));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(r.error().message.rfind("the zip archive is probably truncated: ", 0) == 0);
  CHECK(r.error().where.byte_offset == at + inner.size() - 22);  // the inner end record
  REQUIRE(r.error().notes.size() == 2);
  CHECK(r.error().notes[0].find("(3 bytes follow it)") != std::string::npos);
  CHECK(r.error().notes[1].rfind("read as this archive's own, that record fails: ", 0) == 0);
  // Cut right after the inner zip: its record ends the file, but no central
  // directory is where it says.
  auto exact = open_zip_bytes(outer.substr(0, at + inner.size()));
  REQUIRE_FALSE(exact.ok());
  CHECK(exact.error().message.rfind("the zip archive is probably truncated: ", 0) == 0);
  CHECK(exact.error().where.byte_offset == at + inner.size() - 22);
  REQUIRE(exact.error().notes.size() == 2);
  CHECK(exact.error().notes[0].find("ends the file, but no central directory is where it says") !=
        std::string::npos);
  // Bytes appended to a whole archive: its own records are found and read.
  CHECK(open_zip_bytes(outer + "xyz").ok());
  // A plain archive whose directory offset is wrong is no inner zip: no zip
  // starts where that offset would count from.
  std::string shifted = build_zip(minimal_pt2("m"), /*zip64_end=*/false);
  shifted[shifted.size() - 6] = static_cast<char>(shifted[shifted.size() - 6] - 1);  // cd_offset - 1
  auto plain = open_zip_bytes(shifted);
  REQUIRE_FALSE(plain.ok());
  CHECK(plain.error().message == "central directory entry 0 has a bad signature");
  CHECK(plain.error().notes.empty());
}

TEST_CASE("bad archive: a corrupted stored entry fails its CRC check") {
  auto specs = minimal_pt2("m");
  std::string bytes = build_zip(specs);
  auto clean = open_zip_bytes(bytes);
  REQUIRE(clean.ok());
  const uint64_t offset = *(*clean)->find("m/models/model.json")->data_offset;
  bytes[offset + 2] ^= 0x20;
  auto archive = open_zip_bytes(bytes);
  REQUIRE(archive.ok());
  auto r = read_entry(**archive, "m/models/model.json", 1 << 20);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(r.error().where.entry == "m/models/model.json");
  CHECK(r.error().message.find("CRC") != std::string::npos);
}

TEST_CASE("bad archive: entries outside the root folder, duplicates, no programs") {
  auto outside = minimal_pt2("m");
  outside.push_back({"other/x", "y"});
  Error e = open_error(build_zip(outside));
  CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
  CHECK(e.where.entry == "other/x");

  auto dup = minimal_pt2("m");
  dup.push_back({"m/models/model.json", "{}"});
  Error d = open_error(build_zip(dup));
  CHECK(d.code == ErrorCode::ARCHIVE_INVALID);
  CHECK(d.where.entry == "m/models/model.json");

  Error none = open_error(build_zip(without(minimal_pt2("m"), "m/models/model.json")));
  CHECK(none.code == ErrorCode::ARCHIVE_ENTRY_MISSING);
  CHECK(none.where.entry == "m/models/model.json");
}

TEST_CASE("bad archive: a TorchScript / torch.save archive is not an exported program") {
  Error e = open_error(build_zip({{"archive/data.pkl", "\x80\x02}q\x00."},
                                  {"archive/constants.pkl", "\x80\x02)."},
                                  {"archive/version", "3\n"}}));
  CHECK(e.code == ErrorCode::ARCHIVE_INVALID);
  CHECK(e.where.entry == "archive/data.pkl");
  CHECK(e.message.find("torch.export") != std::string::npos);
}

TEST_CASE("bad archive: layout A (legacy torch.export.save) is LEGACY_ARCHIVE") {
  Error e = open_error(build_zip({{"serialized_exported_program.json", "{}"},
                                  {"serialized_state_dict.pt", "PK-pickle"},
                                  {"serialized_constants.pt", "PK-pickle"},
                                  {"serialized_example_inputs.pt", ""},
                                  {"version", "8.1"}},
                                 /*zip64_end=*/false, /*align=*/false));
  CHECK(e.code == ErrorCode::LEGACY_ARCHIVE);
  CHECK(e.where.entry == "serialized_exported_program.json");
  CHECK(e.message.find("pickled") != std::string::npos);
  REQUIRE(e.notes.size() == 1);
  CHECK(e.notes[0].find("torch.export.save") != std::string::npos);
  CHECK(e.notes[0].find("_weights_config.json") != std::string::npos);

  Error in_folder = open_error(build_zip({{"old/serialized_exported_program.json", "{}"},
                                          {"old/serialized_state_dict.pt", "x"},
                                          {"old/version", "8.1"}}));
  CHECK(in_folder.code == ErrorCode::LEGACY_ARCHIVE);
  CHECK(in_folder.where.entry == "old/serialized_exported_program.json");
}

TEST_CASE("bad archive: layout B (early flat PT2) is LEGACY_ARCHIVE") {
  Error e = open_error(build_zip({{"version", "0"},
                                  {"archive_format", "pt2"},
                                  {"models/model.json", "{}"},
                                  {"data/weights/model.pt", "PK-pickle"},
                                  {"data/constants/model.pt", "PK-pickle"},
                                  {"data/sample_inputs/model.pt", ""}},
                                 /*zip64_end=*/false, /*align=*/false));
  CHECK(e.code == ErrorCode::LEGACY_ARCHIVE);
  CHECK(e.where.entry == "data/weights/model.pt");
  REQUIRE(e.notes.size() == 1);
  CHECK(e.notes[0].find("torch.export.save") != std::string::npos);
}

TEST_CASE("bad archive: a layout-C archive with legacy pickled weights records them") {
  auto specs = without(minimal_pt2("m"), "m/data/weights/model_weights_config.json");
  specs.insert(specs.begin(), ZipSpec{"m/data/weights/model.pt", "PK-pickle"});
  auto archive = open_zip_bytes(build_zip(specs));
  REQUIRE(archive.ok());
  auto layout = detect_pt2_layout(**archive);
  REQUIRE(layout.ok());
  CHECK(layout->models[0].legacy_weights_entry == "m/data/weights/model.pt");
  CHECK_FALSE(layout->models[0].weights_config_entry.has_value());
}

TEST_CASE("bad archive: ZIP64 extra fields in local and central headers") {
  auto specs = minimal_pt2("z");
  for (auto& s : specs) s.zip64_extra = true;
  specs[3].deflate = true;
  const std::string bytes = build_zip(specs);
  for (int portable = 0; portable < 2; ++portable) {
    CAPTURE(portable);
    std::unique_ptr<Archive> archive;
    if (portable) {
      auto r = ZipArchive::open(std::make_unique<MemoryByteSource>(bytes));
      REQUIRE(r.ok());
      archive = std::move(r).value();
    } else {
      auto r = open_zip_bytes(bytes);
      REQUIRE(r.ok());
      archive = std::move(r).value();
    }
    REQUIRE(archive->entries().size() == specs.size());
    const ArchiveEntry& w = archive->entries()[0];
    CHECK(w.size == 16);
    REQUIRE(w.data_offset.has_value());
    CHECK(*w.data_offset % 64 == 0);
    CHECK(archive->read(w, 100).value() == std::string(16, '\x01'));
    auto layout = detect_pt2_layout(*archive);
    REQUIRE(layout.ok());
    CHECK(layout->root == "z");
    auto program = read_entry(*archive, "z/models/model.json", 1000);
    if (portable || !kInflates) {
      REQUIRE_FALSE(program.ok());
      CHECK(program.error().code == ErrorCode::ARCHIVE_COMPRESSED);
    } else {
      CHECK(program.value() == R"({"graph_module": {}})");
    }
  }
}

TEST_CASE("bad archive: reads are bounded") {
  auto archive = open_zip_bytes(build_zip(minimal_pt2("m")));
  REQUIRE(archive.ok());
  const ArchiveEntry* w = (*archive)->find("m/data/weights/weight_0");
  REQUIRE(w != nullptr);
  auto big = (*archive)->read(*w, 15);
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(big.error().where.entry == "m/data/weights/weight_0");
  CHECK((*archive)->read(*w, 16).ok());

  auto past = (*archive)->read_range(*w, 10, 7);
  REQUIRE_FALSE(past.ok());
  CHECK(past.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK(past.error().where.entry == "m/data/weights/weight_0");
  CHECK(past.error().where.byte_offset == 10);
  auto wrap = (*archive)->read_range(*w, 8, UINT64_MAX);
  REQUIRE_FALSE(wrap.ok());
  CHECK(wrap.error().code == ErrorCode::ARCHIVE_INVALID);
  CHECK((*archive)->read_range(*w, 16, 0).value().empty());

  ArchiveEntry stranger;
  stranger.name = "m/not/here";
  auto foreign = (*archive)->read(stranger, 100);
  REQUIRE_FALSE(foreign.ok());
  CHECK(foreign.error().code == ErrorCode::ARCHIVE_ENTRY_MISSING);
  CHECK(foreign.error().where.entry == "m/not/here");

  auto missing = read_text_entry(**archive, "m/nothing");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::ARCHIVE_ENTRY_MISSING);
  CHECK(missing.error().where.entry == "m/nothing");
}
