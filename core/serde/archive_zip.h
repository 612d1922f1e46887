// A portable zip reader for .pt2 archives: parses the end records (classic
// and ZIP64), the central directory and every local header, validates every
// size and offset against the file size, and reads STORED entries straight
// from a random-access byte source. No libzip, no filesystem: it builds under
// Emscripten. The native build decompresses other entries through libzip
// (archive_native.h); here they report ARCHIVE_COMPRESSED.
//
// Container facts: torch-export-format.md §1.2 (stored entries, 'FB' padding
// extra field, 64-byte aligned data, ZIP64 end records).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "serde/archive.h"
#include "support/error.h"

namespace pteforge::serde {

/// Random-access bytes (a file, a memory buffer, or a JS range reader).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Total size in bytes.
  virtual uint64_t size() const = 0;
  /// Exactly `length` bytes at `offset`. Errors: ARCHIVE_INVALID (byte_offset)
  /// when the range passes the end; IO_ERROR when the read fails.
  virtual Result<std::string> read_at(uint64_t offset, uint64_t length) = 0;
};

/// A ByteSource over bytes it owns.
class MemoryByteSource final : public ByteSource {
 public:
  explicit MemoryByteSource(std::string bytes) : bytes_(std::move(bytes)) {}
  uint64_t size() const override { return bytes_.size(); }
  Result<std::string> read_at(uint64_t offset, uint64_t length) override;
  /// The bytes (stable for the life of the source).
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

/// What the central directory and the local header say about one entry.
struct ZipEntryRecord {
  std::string name;              ///< raw name bytes (PyTorch writes UTF-8)
  uint16_t method = 0;           ///< 0 stored, 8 deflate
  uint16_t flags = 0;            ///< general-purpose bit flags
  uint32_t crc32 = 0;            ///< CRC-32 of the uncompressed bytes (0: not recorded)
  uint64_t compressed_size = 0;  ///< bytes of data in the file
  uint64_t size = 0;             ///< uncompressed bytes
  uint64_t local_header_offset = 0;
  uint64_t data_offset = 0;  ///< local_header_offset + 30 + local name length + local extra length
  /// Where its central-directory record starts (when read from the file): the
  /// byte_offset of an error in the offsets or sizes that record gives.
  std::optional<uint64_t> record_offset;
};

/// Parses the zip structure of `source` (ZIP64 aware) and validates it:
/// every record inside the file, stored entries' data inside the file, local
/// names equal to central names, no encryption, no multi-disk archive, a
/// plausible expansion ratio for deflated entries. Entry names are NOT checked
/// here (ZipArchive does that).
/// Errors: INPUT_EMPTY for 0 bytes; ARCHIVE_INVALID otherwise, with
/// where.entry (and byte_offset) when one entry is at fault.
Result<std::vector<ZipEntryRecord>> read_zip_directory(ByteSource& source);

/// Checks an entry table that another zip reader produced (the npm package
/// reads the zip directory with zip.js) with the rules read_zip_directory
/// applies after parsing each record: no encryption, stored entries'
/// compressed size equal to their size, method stored (0) or deflate (8), a
/// plausible expansion ratio for deflate, the local header and the data
/// inside the `source_size`-byte file (data_offset past the local header's
/// fixed part and name). Same messages as read_zip_directory; since no
/// central directory position is known here, byte_offset is the entry's
/// local header offset (the data offset for data out of bounds).
/// Errors: ARCHIVE_INVALID with where.entry and where.byte_offset.
Status check_zip_records(const std::vector<ZipEntryRecord>& records, uint64_t source_size);

/// CRC-32 (the zip polynomial, APPNOTE 4.4.7) of `bytes`, continuing from
/// `crc` (0 to start). Natively libdeflate's crc32 (crc32_native.cpp); under
/// Emscripten, where it would be a port we cannot fetch, a table-driven
/// version that reads 8 bytes per step (crc32_wasm.cpp).
uint32_t crc32_update(uint32_t crc, std::string_view bytes);

/// An Archive over a zip file. Stored entries are read from the byte source
/// (whole reads check the CRC when one is recorded, and so does the first
/// range read of each entry); compressed entries go
/// through read_compressed(), which returns ARCHIVE_COMPRESSED here.
class ZipArchive : public Archive {
 public:
  /// Parses and validates the archive (read_zip_directory, then entry names:
  /// ARCHIVE_ENTRY_NAME, duplicates: ARCHIVE_INVALID). Directory entries
  /// (names ending in '/') are dropped from entries().
  static Result<std::unique_ptr<ZipArchive>> open(std::unique_ptr<ByteSource> source);

  /// Builds the archive from an entry table read elsewhere (zip.js in the
  /// npm package) without parsing any zip structure: check_zip_records, then
  /// the same entry checks as open() (names: ARCHIVE_ENTRY_NAME, duplicates:
  /// ARCHIVE_INVALID, directories dropped). Stored entries are read in place
  /// from `source` at their data_offset, by range.
  static Result<std::unique_ptr<ZipArchive>> from_records(std::unique_ptr<ByteSource> source,
                                                          std::vector<ZipEntryRecord> records);

  Result<std::string> read(const ArchiveEntry& entry, uint64_t max_bytes) override;
  Result<std::string> read_range(const ArchiveEntry& entry, uint64_t offset,
                                 uint64_t length) override;

  /// The zip record behind entries()[index].
  const ZipEntryRecord& record(size_t index) const { return records_[index]; }

 protected:
  explicit ZipArchive(std::unique_ptr<ByteSource> source) : source_(std::move(source)) {}
  /// Reads the directory and installs the entries.
  Status init();
  /// Checks `records` (check_zip_records) and installs them (no zip parsing).
  Status init_from_records(std::vector<ZipEntryRecord> records);
  /// Reads compressed entry `index` whole (size already checked against
  /// max_bytes). Default: ARCHIVE_COMPRESSED.
  virtual Result<std::string> read_compressed(size_t index, uint64_t max_bytes);
  ByteSource& source() { return *source_; }

 private:
  /// Entry names, directories dropped, set_entries; keeps the records.
  Status install(std::vector<ZipEntryRecord> all);
  /// Reads stored entry `index` through in pieces and checks its CRC (marking
  /// it checked). Errors: ARCHIVE_INVALID (a mismatch or a short read), the source's.
  Status check_crc(size_t index);
  /// ARCHIVE_INVALID "entry ... is corrupt: its CRC-32 does not match".
  Error crc_mismatch(const ZipEntryRecord& rec) const;

  std::unique_ptr<ByteSource> source_;
  std::vector<ZipEntryRecord> records_;  // parallel to entries()
  /// Per entry: 1 once its CRC matched on a range read (over a whole-entry
  /// read or check_crc; sized on first use). Like the kept entries, used by
  /// one thread at a time.
  std::vector<uint8_t> crc_checked_;
};

}  // namespace pteforge::serde
