// FileByteSource (see archive_native_io.h).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
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
#ifdef __EMSCRIPTEN__
  // Node's file system (NODERAWFS) drops O_NONBLOCK, so opening a FIFO would
  // wait for a writer forever: refuse what is not a regular file first.
  struct stat before {};
  if (stat(path.c_str(), &before) == 0 && !S_ISREG(before.st_mode)) {
    return io_error("cannot open", path,
                    S_ISDIR(before.st_mode) ? "it is a folder" : "it is not a regular file");
  }
#endif
  // O_NONBLOCK: a FIFO opens at once (and is refused below) instead of
  // waiting for a writer; reads of a regular file ignore it. One open, one
  // fstat and one pread per read: a folder archive reads every weight this
  // way twice (once to hash it, once to write it).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return io_error("cannot open", path, open_failure_reason(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return io_error("cannot open", path, open_failure_reason(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return io_error("cannot open", path, S_ISDIR(st.st_mode) ? "it is a folder" : "it is not a regular file");
  }
  return std::unique_ptr<FileByteSource>(new FileByteSource(fd, path, static_cast<uint64_t>(st.st_size)));
}

FileByteSource::~FileByteSource() { ::close(fd_); }

Result<std::string> FileByteSource::read_at(uint64_t offset, uint64_t length) {
  if (offset > size_ || length > size_ - offset) {
    Location where;
    where.entry = path_;
    where.byte_offset = offset;
    return make_error(ErrorCode::ARCHIVE_INVALID,
                      "read of " + std::to_string(length) + " bytes at offset " + std::to_string(offset) +
                          " passes the end of the " + std::to_string(size_) + "-byte file",
                      std::move(where));
  }
  std::string out(static_cast<size_t>(length), '\0');
  uint64_t got = 0;
  while (got < length) {
    // At most 1 GiB per call: Linux moves at most about 2 GiB per read.
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(length - got, uint64_t{1} << 30));
    const ssize_t n = ::pread(fd_, out.data() + got, chunk, static_cast<off_t>(offset + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error("cannot read", path_, std::strerror(errno));
    }
    if (n == 0) break;  // the file ended early
    got += static_cast<uint64_t>(n);
  }
  if (got != length) {
    return io_error("cannot read", path_,
                    "short read: " + std::to_string(got) + " of " + std::to_string(length) +
                        " bytes at offset " + std::to_string(offset) + " (did the file change?)");
  }
  return out;
}

}  // namespace pteforge::serde
