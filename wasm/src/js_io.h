// Reading input bytes that live in JavaScript (engineering-notes D9): the
// core never gets a whole input copied into the WASM heap; it asks for byte
// ranges, and the JS wrapper (wasm/js/api.mjs) answers from a Uint8Array, a
// file descriptor (Node) or a Blob (FileReaderSync in a worker).
//
// The JS side of the contract, called synchronously from C++:
//   read(source: number, offset: number, dst: Uint8Array) -> string
//     fills `dst` (a view of the WASM heap, dst.length bytes) with the bytes
//     of input `source` starting at `offset`; returns "" on success or a
//     message. It never throws (the wrapper catches), because a JS exception
//     inside C++ frames skips destructors (engineering-notes E6).
//   inflate(source: number, offset: number, compressed: number, dst: Uint8Array) -> string
//     fills `dst` (exactly dst.length bytes) with the inflated bytes of the
//     deflated entry whose `compressed` bytes start at `offset` of `source`
//     (the wrapper inflated it with zip.js before the call); "" or a message.
// Numbers are doubles (offsets below 2^53); no 64-bit integers cross embind (E8).
#pragma once

#include <map>

#include <emscripten/val.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "serde/archive.h"
#include "serde/archive_zip.h"
#include "support/error.h"

namespace pteforge::wasm {

/// The JS callbacks of one call into the module. Copyable (vals are handles).
class JsReader {
 public:
  JsReader(emscripten::val read_fn, emscripten::val inflate_fn)
      : read_fn_(std::move(read_fn)), inflate_fn_(std::move(inflate_fn)) {}

  /// Reads `length` bytes of input `source` at `offset` into `dst`.
  /// Errors: IO_ERROR with `where` and the JS message.
  Status read(uint32_t source, uint64_t offset, uint8_t* dst, uint64_t length,
              const Location& where) const;

  /// Inflates `compressed` raw-deflate bytes at `offset` of `source` into
  /// `dst` (`length` bytes). Errors: ARCHIVE_INVALID (where.entry) with the
  /// JS message; ARCHIVE_COMPRESSED when no inflater was given.
  Status inflate(uint32_t source, uint64_t offset, uint64_t compressed, uint8_t* dst,
                 uint64_t length, const std::string& entry) const;

 private:
  emscripten::val read_fn_;
  emscripten::val inflate_fn_;
};

/// A ByteSource over one JS input (a .pt2 given as bytes, a file or a Blob).
class JsByteSource final : public serde::ByteSource {
 public:
  JsByteSource(JsReader reader, uint32_t source, uint64_t size, std::string name)
      : reader_(std::move(reader)), source_(source), size_(size), name_(std::move(name)) {}
  uint64_t size() const override { return size_; }
  /// Errors: ARCHIVE_INVALID (byte_offset) past the end; IO_ERROR from JS.
  Result<std::string> read_at(uint64_t offset, uint64_t length) override;

 private:
  JsReader reader_;
  uint32_t source_;
  uint64_t size_;
  std::string name_;
};

/// Opens a zip held by JS input `source` from the entry table the JS wrapper
/// read with zip.js (wasm/js/zip.mjs): serde::ZipArchive::from_records, so no
/// zip structure is parsed here. Stored entries are read in place by range;
/// deflated ones come from the inflate callback (the wrapper inflated them
/// ahead with zip.js). Errors that do not name an entry get where.entry =
/// `label` (as the CLI does for the file path). Errors: those of
/// ZipArchive::from_records.
Result<std::unique_ptr<serde::Archive>> open_js_zip(const JsReader& reader, uint32_t source,
                                                    uint64_t size, const std::string& label,
                                                    std::vector<serde::ZipEntryRecord> records);

/// One file of an unpacked archive held by JS.
struct JsFile {
  std::string name;  ///< '/'-separated path relative to the folder
  uint32_t source = 0;
  uint64_t size = 0;
};

/// An unpacked archive folder (or a lone program JSON) whose files are JS
/// inputs, one source per file. Entries are stored, without data_offset.
class JsFilesArchive final : public serde::Archive {
 public:
  /// Entries in the given order. Errors: ARCHIVE_ENTRY_NAME, ARCHIVE_INVALID
  /// (duplicate), as MemoryArchive::create.
  /// `unlisted`: names the folder holds that are no files, with why (see
  /// serde::Archive::why_unlisted).
  static Result<std::unique_ptr<JsFilesArchive>> create(JsReader reader, std::vector<JsFile> files,
                                                        std::map<std::string, std::string> unlisted = {});

  Result<std::string> read(const serde::ArchiveEntry& entry, uint64_t max_bytes) override;
  Result<std::string> read_range(const serde::ArchiveEntry& entry, uint64_t offset,
                                 uint64_t length) override;
  /// The JS source behind entries()[index].
  uint32_t source_of(size_t index) const { return sources_[index]; }
  /// The JS source of the entry named `name`, or -1.
  int64_t source_of(std::string_view name) const;

 private:
  explicit JsFilesArchive(JsReader reader) : reader_(std::move(reader)) {}
  JsReader reader_;
  std::vector<uint32_t> sources_;  // parallel to entries()
};

}  // namespace pteforge::wasm
