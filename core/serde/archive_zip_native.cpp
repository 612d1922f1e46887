// Native zip archives: a file-backed ByteSource and a ZipArchive that
// decompresses deflated entries through libzip (see archive_native.h).
#include <zip.h>

#include "serde/archive_native.h"
#include "serde/archive_native_io.h"
#include "serde/archive_zip.h"

namespace pteforge::serde {
namespace {

/// The error for a read through libzip.
Error libzip_error(const std::string& entry, const std::string& what) {
  Location where;
  where.entry = entry;
  return make_error(ErrorCode::ARCHIVE_INVALID,
                    "cannot decompress entry \"" + entry + "\": " + what, std::move(where));
}

class LibzipArchive final : public ZipArchive {
 public:
  LibzipArchive(std::unique_ptr<ByteSource> source, std::string path,
                const MemoryByteSource* memory)
      : ZipArchive(std::move(source)), path_(std::move(path)), memory_(memory) {}
  ~LibzipArchive() override {
    if (zip_ != nullptr) zip_discard(zip_);
  }
  LibzipArchive(const LibzipArchive&) = delete;
  LibzipArchive& operator=(const LibzipArchive&) = delete;

  Status init_archive() { return init(); }

 protected:
  Result<std::string> read_compressed(size_t index, uint64_t max_bytes) override;

 private:
  Status open_libzip(const std::string& entry);

  std::string path_;                  // file path, or empty for memory bytes
  const MemoryByteSource* memory_;    // the bytes when path_ is empty (owned by the base)
  zip_t* zip_ = nullptr;              // opened on the first compressed read
};

Status LibzipArchive::open_libzip(const std::string& entry) {
  if (zip_ != nullptr) return Status::Ok();
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* src = nullptr;
  if (!path_.empty()) {
    src = zip_source_file_create(path_.c_str(), 0, -1, &error);
  } else {
    src = zip_source_buffer_create(memory_->bytes().data(), memory_->bytes().size(), 0, &error);
  }
  if (src != nullptr) {
    zip_ = zip_open_from_source(src, ZIP_RDONLY, &error);
    if (zip_ == nullptr) zip_source_free(src);
  }
  if (zip_ == nullptr) {
    std::string what = zip_error_strerror(&error);
    zip_error_fini(&error);
    return libzip_error(entry, "libzip cannot open the archive: " + what);
  }
  zip_error_fini(&error);
  return Status::Ok();
}

Result<std::string> LibzipArchive::read_compressed(size_t index, uint64_t max_bytes) {
  const ArchiveEntry& entry = entries()[index];
  PTEFORGE_TRY(check_max_bytes(entry, max_bytes));
  PTEFORGE_TRY(open_libzip(entry.name));
  zip_int64_t zindex = zip_name_locate(zip_, entry.name.c_str(), ZIP_FL_ENC_RAW);
  if (zindex < 0) return libzip_error(entry.name, "libzip does not list it");
  zip_file_t* file = zip_fopen_index(zip_, static_cast<zip_uint64_t>(zindex), 0);
  if (file == nullptr) return libzip_error(entry.name, zip_strerror(zip_));
  std::string out(static_cast<size_t>(entry.size), '\0');
  uint64_t done = 0;
  Status status;
  while (status.ok()) {
    char probe;
    char* dst = done < out.size() ? out.data() + done : &probe;
    uint64_t want = done < out.size() ? out.size() - done : 1;
    zip_int64_t n = zip_fread(file, dst, want);
    if (n < 0) {
      status = libzip_error(entry.name, zip_file_strerror(file));
    } else if (n == 0) {
      break;
    } else if (done >= out.size()) {
      status = libzip_error(entry.name, "it holds more bytes than its recorded size " +
                                            std::to_string(entry.size));
    } else {
      done += static_cast<uint64_t>(n);
    }
  }
  zip_fclose(file);
  if (!status.ok()) return std::move(status).error();
  if (done != entry.size) {
    return libzip_error(entry.name, "it ends after " + std::to_string(done) + " of " +
                                        std::to_string(entry.size) + " bytes");
  }
  return out;
}

/// Opens `source` as a zip; `label` names the whole input in errors that do
/// not point at one entry.
Result<std::unique_ptr<Archive>> open_zip(std::unique_ptr<ByteSource> source, std::string path,
                                          const MemoryByteSource* memory,
                                          const std::string& label) {
  auto archive = std::make_unique<LibzipArchive>(std::move(source), std::move(path), memory);
  Status status = archive->init_archive();
  if (!status.ok()) {
    Error error = std::move(status).error();
    if (!label.empty() && !error.where.entry) error.where.entry = label;
    return error;
  }
  return std::unique_ptr<Archive>(std::move(archive));
}

}  // namespace

Result<std::unique_ptr<Archive>> open_zip_file(const std::string& path) {
  PTEFORGE_ASSIGN_OR_RETURN(std::unique_ptr<FileByteSource> file, FileByteSource::open(path));
  return open_zip(std::move(file), path, nullptr, path);
}

Result<std::unique_ptr<Archive>> open_zip_bytes(std::string bytes) {
  auto memory = std::make_unique<MemoryByteSource>(std::move(bytes));
  const MemoryByteSource* raw = memory.get();
  return open_zip(std::move(memory), std::string(), raw, std::string());
}

}  // namespace pteforge::serde
