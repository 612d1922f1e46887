// File access shared by the native archive readers (*_native.cpp only).
#pragma once

#include <memory>
#include <string>

#include "serde/archive_zip.h"
#include "support/error.h"

namespace pteforge::serde {

/// Why a path could not be opened, in the words every command (and the npm
/// package, wasm/js/index.node.mjs) uses: "no such file or folder" (ENOENT),
/// "a part of the path is not a folder" (ENOTDIR), "too many levels of
/// symbolic links" (ELOOP), "permission denied" (EACCES); other errno values
/// give strerror's text with a lower-case first letter.
std::string open_failure_reason(int err);

/// A ByteSource over a file opened for reading (64-bit offsets; reads with
/// pread, so the source keeps no file position).
class FileByteSource final : public ByteSource {
 public:
  /// Opens `path`. Errors: IO_ERROR (where.entry = path) when it cannot be
  /// opened ("cannot open "PATH": <open_failure_reason>") or is not a regular
  /// file ("...: it is a folder", "...: it is not a regular file"; checked
  /// before opening, since opening a FIFO would wait for a writer).
  static Result<std::unique_ptr<FileByteSource>> open(const std::string& path);
  ~FileByteSource() override;
  FileByteSource(const FileByteSource&) = delete;
  FileByteSource& operator=(const FileByteSource&) = delete;

  uint64_t size() const override { return size_; }
  /// Errors: ARCHIVE_INVALID (byte_offset) past the end; IO_ERROR when the
  /// file reads short (e.g. it shrank after opening).
  Result<std::string> read_at(uint64_t offset, uint64_t length) override;

 private:
  FileByteSource(int fd, std::string path, uint64_t size) : fd_(fd), path_(std::move(path)), size_(size) {}
  int fd_;  // POSIX file descriptor, closed by the destructor
  std::string path_;
  uint64_t size_;
};

}  // namespace pteforge::serde
