// open_zip_file / open_zip_bytes for the WASM build: the portable zip reader
// alone (no libzip under Emscripten). Stored entries — what PyTorch writes —
// read as natively; a deflated entry is ARCHIVE_COMPRESSED (ZipArchive's own
// error). The npm package inflates compressed entries in JS instead.
#include "serde/archive_native.h"
#include "serde/archive_native_io.h"
#include "serde/archive_zip.h"

namespace pteforge::serde {

Result<std::unique_ptr<Archive>> open_zip_file(const std::string& path) {
  PTEFORGE_ASSIGN_OR_RETURN(std::unique_ptr<FileByteSource> file, FileByteSource::open(path));
  auto archive = ZipArchive::open(std::move(file));
  if (!archive.ok()) {
    Error e = std::move(archive).error();
    if (!e.where.entry) e.where.entry = path;
    return e;
  }
  return std::unique_ptr<Archive>(std::move(archive).value());
}

Result<std::unique_ptr<Archive>> open_zip_bytes(std::string bytes) {
  auto archive = ZipArchive::open(std::make_unique<MemoryByteSource>(std::move(bytes)));
  if (!archive.ok()) return std::move(archive).error();
  return std::unique_ptr<Archive>(std::move(archive).value());
}

}  // namespace pteforge::serde
