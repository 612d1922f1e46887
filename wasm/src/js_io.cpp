// JS-backed byte sources and archives (see js_io.h).
#include "js_io.h"

#include <algorithm>
#include <utility>

namespace pteforge::wasm {
namespace {

using emscripten::typed_memory_view;
using emscripten::val;

/// A view of `length` heap bytes at `dst`, made right before the call so it
/// cannot be detached by memory growth (engineering-notes E9).
val heap_view(uint8_t* dst, uint64_t length) {
  return val(typed_memory_view(static_cast<size_t>(length), dst));
}

/// The callback's answer: "" means success. Anything that is not a string
/// (a wrapper bug) counts as a failure with a fixed message.
std::string callback_message(const val& answer) {
  if (!answer.isString()) return "the JS callback returned a non-string";
  return answer.as<std::string>();
}

}  // namespace

Status JsReader::read(uint32_t source, uint64_t offset, uint8_t* dst, uint64_t length,
                      const Location& where) const {
  if (length == 0) return Status::Ok();
  std::string message = callback_message(
      read_fn_(source, static_cast<double>(offset), heap_view(dst, length)));
  if (message.empty()) return Status::Ok();
  Location at = where;
  if (!at.byte_offset) at.byte_offset = offset;
  return make_error(ErrorCode::IO_ERROR,
                    "cannot read " + std::to_string(length) + " bytes at offset " +
                        std::to_string(offset) + ": " + message,
                    std::move(at));
}

Status JsReader::inflate(uint32_t source, uint64_t offset, uint64_t compressed, uint8_t* dst,
                         uint64_t length, const std::string& entry) const {
  Location where;
  where.entry = entry;
  if (inflate_fn_.isUndefined() || inflate_fn_.isNull()) {
    return make_error(ErrorCode::ARCHIVE_COMPRESSED,
                      "entry \"" + entry + "\" is compressed and no inflater was given", std::move(where));
  }
  std::string message = callback_message(inflate_fn_(source, static_cast<double>(offset),
                                                     static_cast<double>(compressed),
                                                     heap_view(dst, length)));
  if (message.empty()) return Status::Ok();
  return make_error(ErrorCode::ARCHIVE_INVALID,
                    "cannot decompress entry \"" + entry + "\": " + message, std::move(where));
}

Result<std::string> JsByteSource::read_at(uint64_t offset, uint64_t length) {
  if (offset > size_ || length > size_ - offset) {
    Location where;
    where.byte_offset = offset;
    return make_error(ErrorCode::ARCHIVE_INVALID,
                      "read of " + std::to_string(length) + " bytes at offset " + std::to_string(offset) +
                          " passes the end of the input (" + std::to_string(size_) + " bytes)",
                      std::move(where));
  }
  std::string bytes(static_cast<size_t>(length), '\0');
  Location where;
  where.entry = name_;
  PTEFORGE_TRY(reader_.read(source_, offset, reinterpret_cast<uint8_t*>(bytes.data()), length, where));
  return bytes;
}

namespace {

/// ZipArchive with deflated entries inflated by JS (zip.js in the wrapper).
class JsZipArchive final : public serde::ZipArchive {
 public:
  JsZipArchive(std::unique_ptr<serde::ByteSource> source, JsReader reader, uint32_t js_source)
      : ZipArchive(std::move(source)), reader_(std::move(reader)), js_source_(js_source) {}
  Status open(std::vector<serde::ZipEntryRecord> records) {
    return init_from_records(std::move(records));
  }

 protected:
  Result<std::string> read_compressed(size_t index, uint64_t max_bytes) override {
    const serde::ArchiveEntry& entry = entries()[index];
    const serde::ZipEntryRecord& rec = record(index);
    PTEFORGE_TRY(check_max_bytes(entry, max_bytes));
    Location where;
    where.entry = entry.name;
    if (rec.method != 8) {
      return make_error(ErrorCode::ARCHIVE_COMPRESSED,
                        "entry \"" + entry.name + "\" uses compression method " +
                            std::to_string(rec.method) + "; only stored (0) and deflate (8) are read",
                        std::move(where));
    }
    // check_zip_records checked that data_offset + compressed_size lies in the file.
    std::string out(static_cast<size_t>(entry.size), '\0');
    PTEFORGE_TRY(reader_.inflate(js_source_, rec.data_offset, rec.compressed_size,
                                 reinterpret_cast<uint8_t*>(out.data()), out.size(), entry.name));
    if (rec.crc32 != 0 && serde::crc32_update(0, out) != rec.crc32) {
      return make_error(ErrorCode::ARCHIVE_INVALID,
                        "cannot decompress entry \"" + entry.name + "\": CRC-32 mismatch",
                        std::move(where));
    }
    return out;
  }

 private:
  JsReader reader_;
  uint32_t js_source_;
};

}  // namespace

Result<std::unique_ptr<serde::Archive>> open_js_zip(const JsReader& reader, uint32_t source,
                                                    uint64_t size, const std::string& label,
                                                    std::vector<serde::ZipEntryRecord> records) {
  auto bytes = std::make_unique<JsByteSource>(reader, source, size, label);
  auto archive = std::make_unique<JsZipArchive>(std::move(bytes), reader, source);
  Status status = archive->open(std::move(records));
  if (!status.ok()) {
    Error error = std::move(status).error();
    if (!label.empty() && !error.where.entry) error.where.entry = label;
    return error;
  }
  return std::unique_ptr<serde::Archive>(std::move(archive));
}

Result<std::unique_ptr<JsFilesArchive>> JsFilesArchive::create(JsReader reader, std::vector<JsFile> files,
                                                               std::map<std::string, std::string> unlisted) {
  // Sorted by name, as the CLI lists a folder (serde::open_directory).
  std::stable_sort(files.begin(), files.end(),
                   [](const JsFile& a, const JsFile& b) { return a.name < b.name; });
  std::unique_ptr<JsFilesArchive> archive(new JsFilesArchive(std::move(reader)));
  archive->set_unlisted(unlisted);
  std::vector<serde::ArchiveEntry> entries;
  entries.reserve(files.size());
  for (const JsFile& file : files) {
    serde::ArchiveEntry entry;
    entry.name = file.name;
    entry.size = file.size;
    entries.push_back(std::move(entry));
    archive->sources_.push_back(file.source);
  }
  PTEFORGE_TRY(archive->set_entries(std::move(entries)));
  return archive;
}

int64_t JsFilesArchive::source_of(std::string_view name) const {
  const serde::ArchiveEntry* entry = find(name);
  if (entry == nullptr) return -1;
  return static_cast<int64_t>(sources_[static_cast<size_t>(entry - entries().data())]);
}

Result<std::string> JsFilesArchive::read(const serde::ArchiveEntry& entry, uint64_t max_bytes) {
  PTEFORGE_ASSIGN_OR_RETURN(size_t index, index_of(entry));
  const serde::ArchiveEntry& own = entries()[index];
  PTEFORGE_TRY(check_max_bytes(own, max_bytes));
  std::string bytes(static_cast<size_t>(own.size), '\0');
  Location where;
  where.entry = own.name;
  PTEFORGE_TRY(reader_.read(sources_[index], 0, reinterpret_cast<uint8_t*>(bytes.data()), own.size, where));
  return bytes;
}

Result<std::string> JsFilesArchive::read_range(const serde::ArchiveEntry& entry, uint64_t offset,
                                               uint64_t length) {
  PTEFORGE_ASSIGN_OR_RETURN(size_t index, index_of(entry));
  const serde::ArchiveEntry& own = entries()[index];
  PTEFORGE_TRY(check_range(own, offset, length));
  std::string bytes(static_cast<size_t>(length), '\0');
  Location where;
  where.entry = own.name;
  PTEFORGE_TRY(reader_.read(sources_[index], offset, reinterpret_cast<uint8_t*>(bytes.data()), length, where));
  return bytes;
}

}  // namespace pteforge::wasm
