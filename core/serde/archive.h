// The archive interface: the core reads a .pt2 (or an unpacked folder, or
// entries a JS zip reader handed over) only through this small interface
// (design.md "Zip is not our job"): list entries, read an entry whole with a
// size bound, or read a byte range of it.
//
// Implementations: MemoryArchive (here; portable, used by tests and the WASM
// build), ZipArchive (archive_zip.h; portable zip reader for stored entries),
// and the native ones in archive_native.h (libzip zip reader, directory).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/error.h"

namespace pteforge::serde {

/// How every reader of an input (serde::open_input, the npm package's
/// description reader, convert_bytes, module-swap replacements, decode's hint)
/// tells a zip from JSON by the first bytes: a zip is at least 4 bytes
/// starting with "PK" (a local header, or the end record of an empty zip).
bool looks_like_zip(std::string_view head);
/// Offset in `head` of the first character after an optional UTF-8 byte
/// order mark and JSON whitespace (space, tab, CR, LF); head.size() when
/// there is none. A program JSON has '{' there.
size_t json_text_start(std::string_view head);
/// True when `head` is read as JSON text: its first character at `pos`
/// (json_text_start) opens an object or an array. An array, valid or not,
/// goes to the JSON reader too, so that its error names the byte offset or
/// says which value was expected there.
bool starts_json_document(std::string_view head, size_t pos);
/// The message for an input named `path` whose first bytes `head` are
/// neither a zip nor JSON: a .pte (the ExecuTorch identifier "ET12" at byte 4)
/// is named as one, with where to read it; anything else is "neither a zip
/// archive (.pt2) nor a program JSON".
std::string unrecognised_input_message(const std::string& path, std::string_view head);
/// Reads `length` bytes at `offset` of an input being sniffed.
using SniffReader = std::function<Result<std::string>(uint64_t offset, uint64_t length)>;
/// The first character of the text of an input of `size` bytes whose first
/// bytes are `head`: the byte after an optional UTF-8 byte order mark and
/// JSON whitespace (json_text_start), reading on past `head` in pieces while
/// only whitespace was seen (never holding more than one piece), so that a
/// program JSON with a long run of leading whitespace is still one;
/// nullopt when the input holds nothing else. Errors: those of `read`, and
/// IO_ERROR when it returns fewer bytes than asked.
Result<std::optional<char>> first_text_char(std::string_view head, uint64_t size, const SniffReader& read);
/// The message of the INPUT_EMPTY error for an input named `path` of `size`
/// bytes that holds nothing but whitespace (first_text_char gave nullopt)
/// after a byte order mark when `head` starts with one: "\"x.json\" holds
/// only whitespace (3 bytes); expected a .pt2 archive or a program JSON".
std::string blank_input_message(const std::string& path, std::string_view head, uint64_t size);

/// One file of an archive.
struct ArchiveEntry {
  std::string name;  ///< '/'-separated relative path, checked by check_entry_name()
  uint64_t size = 0;  ///< uncompressed size in bytes
  bool stored = true;  ///< bytes kept as-is (zip method 0, a plain file, a memory entry)
  /// Absolute byte offset of the stored data in the archive file, computed
  /// from the zip LOCAL header (30 + name length + local extra length);
  /// unset for compressed entries and for entries that are not inside one file.
  std::optional<uint64_t> data_offset;
};

/// A set of named entries with bounded reads. Entry names are unique and safe
/// (no absolute paths, no `..` components); entries() keeps the archive's own
/// order (zip central-directory order; sorted by name for a folder).
class Archive {
 public:
  virtual ~Archive() = default;

  /// Every entry, in archive order. Zip directory entries (names ending in
  /// '/') are not listed.
  const std::vector<ArchiveEntry>& entries() const { return entries_; }

  /// The entry with exactly this name, or nullptr. O(log n).
  const ArchiveEntry* find(std::string_view name) const;

  /// Why `name` is not an entry although the input holds something by that
  /// name (an unpacked folder's FIFO, device or dangling symbolic link:
  /// "it is a FIFO"), or nullopt. Errors about a missing entry use it.
  std::optional<std::string> why_unlisted(std::string_view name) const;

  /// Reads a whole entry. Errors: ARCHIVE_INVALID (where.entry) when the
  /// entry is larger than `max_bytes` or its bytes are corrupt (CRC, short
  /// data); ARCHIVE_COMPRESSED when the implementation cannot decompress it;
  /// IO_ERROR when the underlying file cannot be read.
  virtual Result<std::string> read(const ArchiveEntry& entry, uint64_t max_bytes) = 0;

  /// Reads `length` bytes starting `offset` bytes into a stored entry.
  /// Errors: ARCHIVE_INVALID (where.entry, byte_offset) when the range is not
  /// inside the entry; ARCHIVE_COMPRESSED for a compressed entry; IO_ERROR.
  virtual Result<std::string> read_range(const ArchiveEntry& entry, uint64_t offset,
                                         uint64_t length) = 0;

 protected:
  /// Installs the entry list: checks every name (check_entry_name), rejects
  /// duplicates (ARCHIVE_INVALID naming the entry) and builds the name index.
  Status set_entries(std::vector<ArchiveEntry> entries);

  /// Installs the names the input holds that are not entries, each with why
  /// (what why_unlisted answers).
  void set_unlisted(const std::map<std::string, std::string>& unlisted) {
    unlisted_ = std::map<std::string, std::string, std::less<>>(unlisted.begin(), unlisted.end());
  }

  /// Position of `entry` in entries() (the entry may be one of ours or a copy
  /// with the same name); ARCHIVE_ENTRY_MISSING otherwise.
  Result<size_t> index_of(const ArchiveEntry& entry) const;

  /// ARCHIVE_INVALID (where.entry, byte_offset) unless [offset, offset+length)
  /// lies inside the entry; ARCHIVE_INVALID when size > max_bytes for a whole read.
  static Status check_range(const ArchiveEntry& entry, uint64_t offset, uint64_t length);
  static Status check_max_bytes(const ArchiveEntry& entry, uint64_t max_bytes);

  /// Entries of at most this many bytes (64 KiB) are kept in memory after
  /// their first range read, up to kKeepTotalMax bytes (64 MiB) in all.
  /// Nothing is kept under WebAssembly: for the npm package and the page the
  /// core reads each weight once (to hash it) and JavaScript writes the .pte
  /// from the input file, so a kept copy would only grow the heap
  /// (wasm/README.md: weights never enter the heap whole).
  static constexpr uint64_t kKeepEntryMax = uint64_t{64} << 10;
#if defined(__EMSCRIPTEN__)
  static constexpr uint64_t kKeepTotalMax = 0;
#else
  static constexpr uint64_t kKeepTotalMax = uint64_t{64} << 20;
#endif
  /// For range reads of entry `index` (an index into entries()): the whole
  /// entry as kept, reading it with `read_whole` first when it is not kept
  /// yet, is at most kKeepEntryMax bytes and the keep has room; nullptr when
  /// the entry is not kept (the caller reads the range itself). Converting
  /// reads every weight twice (hashed for the constant pool's dedup, then
  /// written to the .pte): for thousands of small weight files the second
  /// round of system calls was most of the write, and both reads now see the
  /// same bytes. Errors: those of `read_whole`; IO_ERROR (where.entry) when
  /// it returns other than the entry's size in bytes.
  Result<const std::string*> kept_entry(size_t index, const std::function<Result<std::string>()>& read_whole);

 private:
  std::vector<ArchiveEntry> entries_;
  std::vector<uint32_t> by_name_;  // indices into entries_, sorted by name
  std::map<std::string, std::string, std::less<>> unlisted_;  // name -> why it is not an entry
  std::vector<std::optional<std::string>> kept_;              // parallel to entries_ once used (kept_entry)
  uint64_t kept_bytes_ = 0;                                   // sum of the kept entries' sizes
};

/// Checks that an entry name is safe to use as a relative path: not empty, not
/// absolute ('/' or '\' first, or a drive letter "C:"), no NUL byte, and no
/// `..` component ('/' and '\' both count as separators).
/// Error: ARCHIVE_ENTRY_NAME with where.entry = the name.
Status check_entry_name(std::string_view name);

/// When `error` says an entry is missing (ARCHIVE_ENTRY_MISSING,
/// WEIGHTS_MISSING) and the input holds something unreadable by that name
/// (Archive::why_unlisted), it becomes IO_ERROR `cannot open "NAME": WHY`
/// with the same location; any other error is returned as it is.
Error explain_missing_entry(const Archive& archive, Error error);

/// Reads the entry `name` whole. Errors: ARCHIVE_ENTRY_MISSING (where.entry)
/// when there is no such entry (IO_ERROR when the folder holds an unreadable
/// file by that name: explain_missing_entry), then those of Archive::read.
Result<std::string> read_entry(Archive& archive, std::string_view name, uint64_t max_bytes);

/// Largest program JSON read whole, in bytes: 4 GiB natively; 1 GiB under
/// WebAssembly, whose memory ends at 4 GiB while reading a program holds its
/// JSON twice (the copy parsed in place) besides the IR.
#if defined(__EMSCRIPTEN__)
inline constexpr uint64_t kMaxProgramJsonBytes = uint64_t{1} << 30;
#else
inline constexpr uint64_t kMaxProgramJsonBytes = uint64_t{4} << 30;
#endif

/// Reads the program JSON entry `name` whole (every reader of a program:
/// convert, inspect, module listing, swap replacements). Errors: read_entry's
/// with kMaxProgramJsonBytes; under WebAssembly a larger entry is
/// UNSUPPORTED_FEATURE (where.entry) naming the native CLI, before any memory
/// is taken (the module would otherwise abort when the heap runs out).
Result<std::string> read_program_entry(Archive& archive, std::string_view name);

/// Like read_entry, for short ASCII records (archive_format, archive_version,
/// byteorder): at most `max_bytes`, trailing whitespace and newlines removed.
Result<std::string> read_text_entry(Archive& archive, std::string_view name,
                                    uint64_t max_bytes = 4096);

/// ARCHIVE_COMPRESSED (where.entry) unless the entry's bytes are stored as-is,
/// which is what referencing a payload in place needs (design.md "Weights
/// never cross into WASM whole").
Status require_stored(const ArchiveEntry& entry);

/// An archive whose entries are byte strings in memory. Portable (no libzip,
/// no filesystem): tests use it, and the WASM build uses it for entries a JS
/// zip reader extracted.
class MemoryArchive final : public Archive {
 public:
  /// Entries in the given order. Errors: ARCHIVE_ENTRY_NAME for an unsafe
  /// name, ARCHIVE_INVALID for a duplicate name (both with where.entry).
  static Result<std::unique_ptr<MemoryArchive>> create(
      std::vector<std::pair<std::string, std::string>> files);

  Result<std::string> read(const ArchiveEntry& entry, uint64_t max_bytes) override;
  Result<std::string> read_range(const ArchiveEntry& entry, uint64_t offset,
                                 uint64_t length) override;

 private:
  MemoryArchive() = default;
  std::vector<std::string> data_;  // parallel to entries()
};

}  // namespace pteforge::serde
