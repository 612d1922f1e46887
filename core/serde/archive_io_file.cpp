// FileByteSource (see archive_native_io.h).
#include <sys/stat.h>
#include <sys/types.h>

#include <cerrno>
#include <cstring>

#include "serde/archive_native_io.h"

namespace pteforge::serde {
namespace {

Error io_error(const std::string& verb, const std::string& path, const std::string& what) {
  Location where;
  where.entry = path;
  return make_error(ErrorCode::IO_ERROR, verb + " \"" + path + "\": " + what, std::move(where));
}

}  // namespace

std::string open_failure_reason(int err) {
  switch (err) {
    case ENOENT: return "no such file or folder";
    case ENOTDIR: return "a part of the path is not a folder";
    case ELOOP: return "too many levels of symbolic links";
    case EACCES: return "permission denied";
    default: break;
  }
  std::string text = std::strerror(err);
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') text[0] = static_cast<char>(text[0] - 'A' + 'a');
  return text;
}

Result<std::unique_ptr<FileByteSource>> FileByteSource::open(const std::string& path) {
  // Checked before opening too: opening a FIFO waits for a writer forever.
  struct stat before {};
  if (stat(path.c_str(), &before) == 0 && !S_ISREG(before.st_mode)) {
    return io_error("cannot open", path, S_ISDIR(before.st_mode) ? "it is a folder" : "it is not a regular file");
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return io_error("cannot open", path, open_failure_reason(errno));
  struct stat st {};
  if (fstat(fileno(file), &st) != 0) {
    int err = errno;
    std::fclose(file);
    return io_error("cannot open", path, open_failure_reason(err));
  }
  if (!S_ISREG(st.st_mode)) {
    std::fclose(file);
    return io_error("cannot open", path, "it is not a regular file");
  }
  return std::unique_ptr<FileByteSource>(
      new FileByteSource(file, path, static_cast<uint64_t>(st.st_size)));
}

FileByteSource::~FileByteSource() { std::fclose(file_); }

Result<std::string> FileByteSource::read_at(uint64_t offset, uint64_t length) {
  if (offset > size_ || length > size_ - offset) {
    Location where;
    where.entry = path_;
    where.byte_offset = offset;
    return make_error(ErrorCode::ARCHIVE_INVALID,
                      "read of " + std::to_string(length) + " bytes at offset " +
                          std::to_string(offset) + " passes the end of the " +
                          std::to_string(size_) + "-byte file",
                      std::move(where));
  }
  if (fseeko(file_, static_cast<off_t>(offset), SEEK_SET) != 0) {
    return io_error("cannot read", path_, std::strerror(errno));
  }
  std::string out(static_cast<size_t>(length), '\0');
  size_t got = length == 0 ? 0 : std::fread(out.data(), 1, out.size(), file_);
  if (got != out.size()) {
    return io_error("cannot read", path_, "short read: " + std::to_string(got) + " of " + std::to_string(length) +
                               " bytes at offset " + std::to_string(offset) +
                               " (did the file change?)");
  }
  return out;
}

}  // namespace pteforge::serde
