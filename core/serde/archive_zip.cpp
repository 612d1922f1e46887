// Portable zip structure reader (see archive_zip.h). Record layouts follow
// the PKWARE APPNOTE: local header (30 bytes + name + extra), central
// directory header (46 bytes + name + extra + comment), end of central
// directory (22 bytes + comment), ZIP64 end record (56 bytes) and its locator
// (20 bytes), ZIP64 extended-information extra field (id 0x0001).
#include "serde/archive_zip.h"

#include <algorithm>
#include <array>

namespace pteforge::serde {
namespace {

constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kCentralHeaderSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint64_t kLocalHeaderSize = 30;
constexpr uint64_t kCentralHeaderSize = 46;
constexpr uint64_t kEndSize = 22;
constexpr uint64_t kZip64EndSize = 56;
constexpr uint64_t kZip64LocatorSize = 20;
constexpr uint64_t kMaxCommentSize = 0xffff;
constexpr uint16_t kZip64ExtraId = 0x0001;
// Deflate cannot expand data by more than about 1032:1; allow some slack.
constexpr uint64_t kMaxDeflateRatio = 1100;
constexpr uint64_t kDeflateSlack = 1 << 16;

/// Little-endian reader over a byte string; every read is bounds-checked.
class Cursor {
 public:
  Cursor(std::string_view bytes, size_t pos = 0) : bytes_(bytes), pos_(pos) {}
  bool has(size_t n) const { return pos_ <= bytes_.size() && bytes_.size() - pos_ >= n; }
  size_t pos() const { return pos_; }
  void skip(size_t n) { pos_ += n; }
  uint64_t le(size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) {
      v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes_[pos_ + i])) << (8 * i);
    }
    pos_ += n;
    return v;
  }
  uint16_t u16() { return static_cast<uint16_t>(le(2)); }
  uint32_t u32() { return static_cast<uint32_t>(le(4)); }
  uint64_t u64() { return le(8); }
  std::string_view take(size_t n) {
    std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }

 private:
  std::string_view bytes_;
  size_t pos_;
};

Error invalid(std::string message, std::optional<std::string> entry = std::nullopt,
              std::optional<uint64_t> byte_offset = std::nullopt) {
  Location where;
  where.entry = std::move(entry);
  where.byte_offset = byte_offset;
  return make_error(ErrorCode::ARCHIVE_INVALID, std::move(message), std::move(where));
}

/// An entry name in double quotes for messages, control characters escaped.
std::string quoted_entry(std::string_view name) {
  // Appended, not `"\"" + std::string&&`: GCC 12 -O3 warns (-Wrestrict, a false positive) on that.
  std::string out("\"");
  out += control_escaped(name);
  out += '"';
  return out;
}

/// `e` (about a zip's end records or central directory) when the last end
/// record found does not end the file (`trailing` bytes follow the one at
/// `end_pos`): most often that of a zip stored inside a truncated archive (a
/// .pt2's sample inputs are one), whose offsets count from the inner zip's
/// start. The message is the likely cause, the notes give the evidence (the
/// record's place, then what reading it failed on), and the error points at
/// the record unless `keep_offset` (its offset is a place verified in this
/// file). `e` itself when trailing is 0, unless `directory_elsewhere`: the
/// record ends the file (a cut right after an inner zip) but no central
/// directory is where it says.
Error framed_as_nested(Error e, uint64_t end_pos, uint64_t trailing, bool keep_offset,
                       bool directory_elsewhere = false) {
  if (trailing == 0 && !directory_elsewhere) return e;
  const std::string detail = std::move(e.message);
  e.message = "the zip archive is probably truncated: the end of its central directory is missing";
  if (!keep_offset) e.where.byte_offset = end_pos;
  const std::string record =
      "the last end-of-central-directory record (at byte " + std::to_string(end_pos) + ")";
  std::vector<std::string> notes{
      trailing > 0 ? record + " does not end the file (" + std::to_string(trailing) +
                         " bytes follow it): it probably belongs to a zip stored inside the archive"
                   : record +
                         " ends the file, but no central directory is where it says: it "
                         "probably belongs to a zip stored inside the archive",
      "read as this archive's own, that record fails: " + detail};
  for (auto& n : e.notes) notes.push_back(std::move(n));
  e.notes = std::move(notes);
  return e;
}

struct EndRecords {
  uint64_t entry_count = 0;
  uint64_t cd_size = 0;
  uint64_t cd_offset = 0;
  uint64_t cd_limit = 0;  // the central directory must end at or before this offset
  uint64_t end_pos = 0;   // where the classic end record starts
  uint64_t trailing = 0;  // bytes after it and its comment (see framed_as_nested)
};

/// Finds and decodes the end of central directory (and the ZIP64 records when
/// a locator precedes it).
Result<EndRecords> read_end_records(ByteSource& source) {
  const uint64_t size = source.size();
  const uint64_t tail_len = std::min<uint64_t>(size, kEndSize + kMaxCommentSize);
  PTEFORGE_ASSIGN_OR_RETURN(std::string tail, source.read_at(size - tail_len, tail_len));
  std::optional<size_t> found;
  uint64_t trailing = 0;  // bytes after the record and its comment
  for (size_t i = tail.size() - kEndSize + 1; i-- > 0;) {
    Cursor c(tail, i);
    if (c.u32() != kEndSig) continue;
    c.skip(16);
    uint16_t comment_len = c.u16();
    if (i + kEndSize + comment_len <= tail.size()) {
      found = i;
      trailing = tail.size() - (i + kEndSize + comment_len);
      break;
    }
  }
  if (!found) {
    bool local_first = false;
    if (tail_len == size && size >= 4) {
      local_first = Cursor(tail).u32() == kLocalHeaderSig;
    } else if (size >= 4) {
      PTEFORGE_ASSIGN_OR_RETURN(std::string head, source.read_at(0, 4));
      local_first = Cursor(head).u32() == kLocalHeaderSig;
    }
    return invalid(local_first ? "the zip archive is truncated: its end-of-central-directory "
                                 "record is missing"
                               : "not a zip archive (no end-of-central-directory record); a .pt2 "
                                 "file is a zip archive");
  }
  const uint64_t end_pos = size - tail_len + *found;
  // A record that does not end the file is most often that of a zip stored
  // inside a truncated archive (a .pt2's sample inputs are one): the message
  // leads with that, then says what it failed on.
  // The offsets such a record holds count from the inner zip's start, not
  // this file's: the error then points at the record itself.
  // `in_this_file`: `offset` is a place found in this file (a record's
  // signature read there), kept even then.
  auto invalid = [&](std::string message, std::optional<std::string> entry, std::optional<uint64_t> offset,
                     bool in_this_file = false) {
    return framed_as_nested(serde::invalid(std::move(message), std::move(entry), offset), end_pos, trailing,
                            in_this_file);
  };
  Cursor c(tail, *found + 4);
  uint16_t disk = c.u16();
  uint16_t cd_disk = c.u16();
  uint16_t disk_entries = c.u16();
  EndRecords out;
  out.entry_count = c.u16();
  out.cd_size = c.u32();
  out.cd_offset = c.u32();
  out.cd_limit = end_pos;
  out.end_pos = end_pos;
  uint64_t cd_given_at = end_pos;  // the record whose offset and size are checked below
  out.trailing = trailing;
  // Where a record names another disk (the first such record).
  std::optional<uint64_t> multi_disk_at;
  if (disk != 0 || cd_disk != 0) multi_disk_at = end_pos;
  // On a single disk the entries on this disk are all the entries; a record
  // that says otherwise is corrupt (checked once the ZIP64 record, which
  // supersedes it, has been read).
  auto counts_disagree = [&](const char* record, uint64_t on_disk, uint64_t total, uint64_t at) {
    return invalid(std::string("the ") + record + " is corrupt: it counts " + std::to_string(on_disk) +
                       " entries on this disk but " + std::to_string(total) +
                       " in all (a single-disk archive has the same count twice)",
                   std::nullopt, at, /*in_this_file=*/true);
  };
  std::optional<Error> count_error;
  if (disk_entries != out.entry_count)
    count_error = counts_disagree("end-of-central-directory record", disk_entries, out.entry_count, end_pos);

  bool has_locator = false;
  if (end_pos >= kZip64LocatorSize) {
    PTEFORGE_ASSIGN_OR_RETURN(std::string loc,
                              source.read_at(end_pos - kZip64LocatorSize, kZip64LocatorSize));
    Cursor l(loc);
    if (l.u32() == kZip64LocatorSig) {
      has_locator = true;
      uint32_t z64_disk = l.u32();
      uint64_t z64_offset = l.u64();
      uint32_t disks = l.u32();
      const uint64_t locator_pos = end_pos - kZip64LocatorSize;
      if ((z64_disk != 0 || disks > 1) && !multi_disk_at) multi_disk_at = locator_pos;
      if (z64_offset > locator_pos || locator_pos - z64_offset < kZip64EndSize) {
        return invalid("the ZIP64 end-of-central-directory locator points outside the file", std::nullopt,
                       locator_pos, /*in_this_file=*/true);
      }
      PTEFORGE_ASSIGN_OR_RETURN(std::string rec, source.read_at(z64_offset, kZip64EndSize));
      Cursor r(rec);
      if (r.u32() != kZip64EndSig) {
        return invalid("no ZIP64 end-of-central-directory record where its locator points",
                       std::nullopt, z64_offset);
      }
      r.skip(8 + 2 + 2);  // record size, version made by, version needed
      uint32_t z_disk = r.u32();
      uint32_t z_cd_disk = r.u32();
      uint64_t z_disk_entries = r.u64();
      out.entry_count = r.u64();
      out.cd_size = r.u64();
      out.cd_offset = r.u64();
      out.cd_limit = z64_offset;
      cd_given_at = z64_offset;
      if ((z_disk != 0 || z_cd_disk != 0) && !multi_disk_at) multi_disk_at = z64_offset;
      // The ZIP64 record's counts supersede the classic record's (0xffff there when too large).
      count_error.reset();
      if (z_disk_entries != out.entry_count) {
        count_error = counts_disagree("ZIP64 end-of-central-directory record", z_disk_entries,
                                      out.entry_count, z64_offset);
      }
    }
  }
  if (!has_locator &&
      (out.entry_count == 0xffff || out.cd_size == 0xffffffff || out.cd_offset == 0xffffffff)) {
    return invalid("the end-of-central-directory record asks for ZIP64 values but the ZIP64 "
                   "locator is missing",
                   std::nullopt, end_pos);
  }
  if (multi_disk_at) {
    return invalid("multi-disk (split) zip archives are not supported", std::nullopt, multi_disk_at,
                   /*in_this_file=*/true);
  }
  if (count_error) return *count_error;
  if (out.cd_offset > out.cd_limit || out.cd_size > out.cd_limit - out.cd_offset) {
    return invalid("the central directory (offset " + std::to_string(out.cd_offset) + ", " +
                       std::to_string(out.cd_size) + " bytes) lies outside the " + std::to_string(size) +
                       "-byte file",
                   std::nullopt, cd_given_at);
  }
  if (out.entry_count > out.cd_size / kCentralHeaderSize) {
    return invalid("the archive claims " + std::to_string(out.entry_count) +
                       " entries but its central directory (" + std::to_string(out.cd_size) +
                       " bytes) has room for at most " +
                       std::to_string(out.cd_size / kCentralHeaderSize),
                   std::nullopt, out.cd_offset);
  }
  return out;
}

/// Applies the ZIP64 extended-information extra field to the 32-bit values
/// that are saturated (0xffffffff), in APPNOTE order.
Status apply_zip64_extra(std::string_view extra, ZipEntryRecord& rec, bool need_size,
                         bool need_csize, bool need_offset, uint64_t cd_pos) {
  Cursor x(extra);
  while (x.has(4)) {
    uint16_t id = x.u16();
    uint16_t len = x.u16();
    if (!x.has(len)) break;
    if (id != kZip64ExtraId) {
      x.skip(len);
      continue;
    }
    Cursor f(x.take(len));
    if (need_size) {
      if (!f.has(8)) break;
      rec.size = f.u64();
      need_size = false;
    }
    if (need_csize) {
      if (!f.has(8)) break;
      rec.compressed_size = f.u64();
      need_csize = false;
    }
    if (need_offset) {
      if (!f.has(8)) break;
      rec.local_header_offset = f.u64();
      need_offset = false;
    }
    break;
  }
  if (need_size || need_csize || need_offset) {
    return invalid("entry " + quoted_entry(rec.name) +
                       " needs ZIP64 sizes or offset but has no complete ZIP64 extra field",
                   rec.name, cd_pos);
  }
  return Status::Ok();
}

/// The per-entry rules that do not depend on where the record was read
/// (encryption, sizes of stored entries, method, deflate ratio); `at` is the
/// byte_offset reported.
Status check_record(const ZipEntryRecord& rec, uint64_t at) {
  if (rec.flags & 0x0001) {
    return invalid("entry " + quoted_entry(rec.name) + " is encrypted; encrypted archives are not supported",
                   rec.name, at);
  }
  if (rec.method == 0 && rec.compressed_size != rec.size) {
    return invalid("stored entry " + quoted_entry(rec.name) + " has a compressed size (" +
                       std::to_string(rec.compressed_size) + ") that differs from its size (" +
                       std::to_string(rec.size) + ")",
                   rec.name, at);
  }
  if (rec.method != 0 && rec.method != 8) {
    return invalid("entry " + quoted_entry(rec.name) + " uses compression method " +
                       std::to_string(rec.method) + "; only stored (0) and deflate (8) are supported",
                   rec.name, at);
  }
  if (rec.method == 8 && rec.size / kMaxDeflateRatio > rec.compressed_size + kDeflateSlack) {
    return invalid("deflated entry " + quoted_entry(rec.name) + " claims " + std::to_string(rec.size) +
                       " bytes from only " + std::to_string(rec.compressed_size) +
                       " compressed bytes, more than deflate can expand",
                   rec.name, at);
  }
  return Status::Ok();
}

/// The entry's data [data_offset, data_offset + compressed_size) lies in the file.
Status check_data_bounds(const ZipEntryRecord& rec, uint64_t size) {
  if (rec.data_offset > size || rec.compressed_size > size - rec.data_offset) {
    return invalid("entry " + quoted_entry(rec.name) + " claims " + std::to_string(rec.compressed_size) +
                       " bytes of data at offset " + std::to_string(rec.data_offset) +
                       ", but the file has only " + std::to_string(size) + " bytes",
                   rec.name,
                   rec.data_offset <= size ? rec.data_offset : rec.record_offset.value_or(rec.data_offset));
  }
  return Status::Ok();
}

/// ARCHIVE_INVALID when the local header of `rec` (fixed part and name) does
/// not lie inside a file of `size` bytes.
Status check_local_header_bounds(const ZipEntryRecord& rec, uint64_t size) {
  const uint64_t header_len = kLocalHeaderSize + rec.name.size();
  if (rec.local_header_offset > size || size - rec.local_header_offset < header_len) {
    return invalid("the local header of entry " + quoted_entry(rec.name) + " (offset " +
                       std::to_string(rec.local_header_offset) + ") lies outside the " +
                       std::to_string(size) + "-byte file",
                   rec.name, rec.record_offset.value_or(rec.local_header_offset));
  }
  return Status::Ok();
}

Status check_local_header(ByteSource& source, ZipEntryRecord& rec) {
  const uint64_t header_len = kLocalHeaderSize + rec.name.size();
  PTEFORGE_TRY(check_local_header_bounds(rec, source.size()));
  PTEFORGE_ASSIGN_OR_RETURN(std::string header, source.read_at(rec.local_header_offset, header_len));
  Cursor h(header);
  if (h.u32() != kLocalHeaderSig) {
    return invalid("no local file header where the central directory places entry " +
                       quoted_entry(rec.name),
                   rec.name, rec.local_header_offset);
  }
  h.skip(22);
  uint16_t name_len = h.u16();
  uint16_t extra_len = h.u16();
  if (name_len != rec.name.size() || h.take(name_len) != rec.name) {
    return invalid("the local header of entry " + quoted_entry(rec.name) +
                       " names a different file than the central directory",
                   rec.name, rec.local_header_offset);
  }
  rec.data_offset = rec.local_header_offset + kLocalHeaderSize + name_len + extra_len;
  return check_data_bounds(rec, source.size());
}

}  // namespace

Result<std::string> MemoryByteSource::read_at(uint64_t offset, uint64_t length) {
  if (offset > bytes_.size() || length > bytes_.size() - offset) {
    return invalid("read of " + std::to_string(length) + " bytes at offset " +
                       std::to_string(offset) + " passes the end of the " +
                       std::to_string(bytes_.size()) + "-byte input",
                   std::nullopt, offset);
  }
  return bytes_.substr(static_cast<size_t>(offset), static_cast<size_t>(length));
}

/// The entries of central directory `cd` (read at end.cd_offset), each
/// checked with its local header.
static Result<std::vector<ZipEntryRecord>> read_central_directory(ByteSource& source, const EndRecords& end,
                                                                  const std::string& cd) {
  std::vector<ZipEntryRecord> records;
  records.reserve(static_cast<size_t>(end.entry_count));
  Cursor c(cd);
  for (uint64_t i = 0; i < end.entry_count; ++i) {
    const uint64_t cd_pos = end.cd_offset + c.pos();
    if (!c.has(kCentralHeaderSize)) {
      return invalid("the central directory ends after " + std::to_string(i) + " of " +
                         std::to_string(end.entry_count) + " entries",
                     std::nullopt, cd_pos);
    }
    if (c.u32() != kCentralHeaderSig) {
      return invalid("central directory entry " + std::to_string(i) + " has a bad signature",
                     std::nullopt, cd_pos);
    }
    ZipEntryRecord rec;
    rec.record_offset = cd_pos;
    c.skip(4);  // version made by, version needed
    rec.flags = c.u16();
    rec.method = c.u16();
    c.skip(4);  // time, date
    rec.crc32 = c.u32();
    uint32_t csize32 = c.u32();
    uint32_t size32 = c.u32();
    uint16_t name_len = c.u16();
    uint16_t extra_len = c.u16();
    uint16_t comment_len = c.u16();
    uint16_t disk_start = c.u16();
    c.skip(6);  // internal and external attributes
    uint32_t offset32 = c.u32();
    if (!c.has(static_cast<size_t>(name_len) + extra_len + comment_len)) {
      return invalid("central directory entry " + std::to_string(i) +
                         " runs past the end of the central directory",
                     std::nullopt, cd_pos);
    }
    rec.name = std::string(c.take(name_len));
    std::string_view extra = c.take(extra_len);
    c.skip(comment_len);
    rec.size = size32;
    rec.compressed_size = csize32;
    rec.local_header_offset = offset32;
    PTEFORGE_TRY(apply_zip64_extra(extra, rec, size32 == 0xffffffff, csize32 == 0xffffffff,
                                   offset32 == 0xffffffff, cd_pos));
    if (disk_start != 0 && disk_start != 0xffff) {
      return invalid("entry " + quoted_entry(rec.name) + " starts on another disk", rec.name, cd_pos);
    }
    PTEFORGE_TRY(check_record(rec, cd_pos));
    PTEFORGE_TRY(check_local_header(source, rec));
    records.push_back(std::move(rec));
  }
  return records;
}

Result<std::vector<ZipEntryRecord>> read_zip_directory(ByteSource& source) {
  if (source.size() == 0) {
    return make_error(ErrorCode::INPUT_EMPTY, "the input is empty (0 bytes); expected a .pt2 zip archive");
  }
  if (source.size() < kEndSize) {
    return invalid("not a zip archive: " + std::to_string(source.size()) +
                   " bytes is too short for a zip end record");
  }
  PTEFORGE_ASSIGN_OR_RETURN(EndRecords end, read_end_records(source));
  PTEFORGE_ASSIGN_OR_RETURN(std::string cd, source.read_at(end.cd_offset, end.cd_size));
  // A directory whose first header is where the end record says is this
  // file's; else its errors are framed as those of an inner zip's records.
  const bool confirmed = cd.size() >= 4 && Cursor(cd).u32() == kCentralHeaderSig;
  Result<std::vector<ZipEntryRecord>> records = read_central_directory(source, end, cd);
  if (!records.ok() && !confirmed && records.error().code == ErrorCode::ARCHIVE_INVALID) {
    // A record that ends the file is an inner zip's when a zip starts (a
    // local header) where its offsets count from: the directory sits right
    // before the record, cd_offset bytes after that start.
    bool inner_start_found = false;
    if (end.trailing == 0 && end.cd_limit == end.end_pos && end.end_pos >= end.cd_size + end.cd_offset) {
      const uint64_t inner_start = end.end_pos - end.cd_size - end.cd_offset;
      Result<std::string> head = inner_start > 0 ? source.read_at(inner_start, 4) : Result<std::string>("");
      inner_start_found = head.ok() && head->size() == 4 && Cursor(*head).u32() == kLocalHeaderSig;
    }
    return framed_as_nested(std::move(records).error(), end.end_pos, end.trailing, false,
                            /*directory_elsewhere=*/inner_start_found);
  }
  return records;
}

Status check_zip_records(const std::vector<ZipEntryRecord>& records, uint64_t source_size) {
  for (const ZipEntryRecord& rec : records) {
    PTEFORGE_TRY(check_record(rec, rec.local_header_offset));
    const uint64_t header_len = kLocalHeaderSize + rec.name.size();
    PTEFORGE_TRY(check_local_header_bounds(rec, source_size));
    if (rec.data_offset < rec.local_header_offset + header_len) {
      return invalid("entry " + quoted_entry(rec.name) + " has its data at offset " +
                         std::to_string(rec.data_offset) + ", inside its own local header (offset " +
                         std::to_string(rec.local_header_offset) + ")",
                     rec.name, rec.data_offset);
    }
    PTEFORGE_TRY(check_data_bounds(rec, source_size));
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// ZipArchive

Result<std::unique_ptr<ZipArchive>> ZipArchive::open(std::unique_ptr<ByteSource> source) {
  std::unique_ptr<ZipArchive> archive(new ZipArchive(std::move(source)));
  PTEFORGE_TRY(archive->init());
  return archive;
}

Result<std::unique_ptr<ZipArchive>> ZipArchive::from_records(std::unique_ptr<ByteSource> source,
                                                             std::vector<ZipEntryRecord> records) {
  std::unique_ptr<ZipArchive> archive(new ZipArchive(std::move(source)));
  PTEFORGE_TRY(archive->init_from_records(std::move(records)));
  return archive;
}

Status ZipArchive::init() {
  PTEFORGE_ASSIGN_OR_RETURN(std::vector<ZipEntryRecord> all, read_zip_directory(*source_));
  return install(std::move(all));
}

Status ZipArchive::init_from_records(std::vector<ZipEntryRecord> records) {
  PTEFORGE_TRY(check_zip_records(records, source_->size()));
  return install(std::move(records));
}

Status ZipArchive::install(std::vector<ZipEntryRecord> all) {
  std::vector<ArchiveEntry> entries;
  std::vector<ZipEntryRecord> records;
  for (auto& rec : all) {
    PTEFORGE_TRY(check_entry_name(rec.name));
    if (!rec.name.empty() && rec.name.back() == '/' && rec.size == 0) continue;  // a directory
    ArchiveEntry entry;
    entry.name = rec.name;
    entry.size = rec.size;
    entry.stored = rec.method == 0;
    if (entry.stored) entry.data_offset = rec.data_offset;
    entries.push_back(std::move(entry));
    records.push_back(std::move(rec));
  }
  PTEFORGE_TRY(set_entries(std::move(entries)));
  records_ = std::move(records);
  return Status::Ok();
}

Result<std::string> ZipArchive::read(const ArchiveEntry& entry, uint64_t max_bytes) {
  PTEFORGE_ASSIGN_OR_RETURN(size_t index, index_of(entry));
  const ArchiveEntry& own = entries()[index];
  PTEFORGE_TRY(check_max_bytes(own, max_bytes));
  const ZipEntryRecord& rec = records_[index];
  if (rec.method != 0) return read_compressed(index, max_bytes);
  PTEFORGE_ASSIGN_OR_RETURN(std::string bytes, source_->read_at(rec.data_offset, rec.size));
  if (rec.crc32 != 0 && crc32_update(0, bytes) != rec.crc32) {
    return invalid("entry " + quoted_entry(rec.name) + " is corrupt: its CRC-32 does not match",
                   rec.name, rec.data_offset);
  }
  return bytes;
}

Result<std::string> ZipArchive::read_range(const ArchiveEntry& entry, uint64_t offset,
                                           uint64_t length) {
  PTEFORGE_ASSIGN_OR_RETURN(size_t index, index_of(entry));
  const ArchiveEntry& own = entries()[index];
  PTEFORGE_TRY(require_stored(own));
  PTEFORGE_TRY(check_range(own, offset, length));
  // A small entry is read whole once (its CRC checked, as read() does) and
  // kept for later range reads (Archive::kept_entry).
  PTEFORGE_ASSIGN_OR_RETURN(const std::string* kept, kept_entry(index, [&] { return read(own, own.size); }));
  if (kept) return kept->substr(static_cast<size_t>(offset), static_cast<size_t>(length));
  // Each entry read has its CRC checked once, as read() does, though a
  // conversion reads each weight twice (hashing, then writing): over the
  // bytes read when the range is the whole entry (a dense weight), else by
  // reading the entry through once, in pieces (a view of part of a storage).
  const ZipEntryRecord& rec = records_[index];
  if (crc_checked_.empty()) crc_checked_.resize(records_.size(), 0);
  const bool check = rec.crc32 != 0 && !crc_checked_[index];
  const bool whole = offset == 0 && length == own.size;
  if (check && !whole) PTEFORGE_TRY(check_crc(index));
  PTEFORGE_ASSIGN_OR_RETURN(std::string bytes, source_->read_at(rec.data_offset + offset, length));
  if (check && whole && bytes.size() == length) {
    if (crc32_update(0, bytes) != rec.crc32) return crc_mismatch(rec);
    crc_checked_[index] = 1;
  }
  return bytes;
}

Error ZipArchive::crc_mismatch(const ZipEntryRecord& rec) const {
  return invalid("entry " + quoted_entry(rec.name) + " is corrupt: its CRC-32 does not match", rec.name,
                 rec.data_offset);
}

Status ZipArchive::check_crc(size_t index) {
  const ZipEntryRecord& rec = records_[index];
  constexpr uint64_t kPiece = uint64_t{16} << 20;  // bytes per read: a large entry is never held whole
  uint32_t crc = 0;
  for (uint64_t at = 0; at < rec.size; at += kPiece) {
    const uint64_t n = std::min(kPiece, rec.size - at);
    PTEFORGE_ASSIGN_OR_RETURN(std::string piece, source_->read_at(rec.data_offset + at, n));
    if (piece.size() != n) {
      return invalid("entry " + quoted_entry(rec.name) + " ends early: read " +
                         std::to_string(at + piece.size()) + " of its " + std::to_string(rec.size) + " bytes",
                     rec.name, rec.data_offset + at);
    }
    crc = crc32_update(crc, piece);
  }
  if (crc != rec.crc32) return crc_mismatch(rec);
  crc_checked_[index] = 1;
  return Status::Ok();
}

Result<std::string> ZipArchive::read_compressed(size_t index, uint64_t /*max_bytes*/) {
  const ArchiveEntry& own = entries()[index];
  Location where;
  where.entry = own.name;
  return make_error(ErrorCode::ARCHIVE_COMPRESSED,
                    "entry " + quoted_entry(own.name) +
                        " is compressed and this build reads stored entries only; re-save the "
                        "archive without compression (torch.export.save does not compress)",
                    std::move(where));
}

}  // namespace pteforge::serde
