// File I/O for chunk lists (see chunks_native.h). Native only.
#include "emit/chunks_native.h"
#include "serde/archive_native_io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

namespace pteforge::emit {
namespace {

Error io_error(std::string message, const std::string& file, std::optional<uint64_t> offset = std::nullopt) {
  Location where;
  where.entry = file;
  where.byte_offset = offset;
  return make_error(ErrorCode::IO_ERROR, std::move(message), where);
}

/// Every failure to write `path` (as given) says the same.
Error write_error(int err, const std::string& path, std::optional<uint64_t> offset = std::nullopt) {
  return io_error("cannot write \"" + path + "\": " + write_failure_reason(err, path), path, offset);
}

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

struct ReaderState {
  std::map<std::string, std::string> paths;
  std::map<std::string, FilePtr> open;
};

}  // namespace

std::string write_failure_reason(int err, const std::string& path) {
  switch (err) {
    case ENOENT: {
      const size_t slash = path.rfind('/');
      const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
      struct stat st;
      if (::stat(folder.c_str(), &st) != 0) return "its folder does not exist";
      return "no such file or folder";
    }
    case ENOSPC: return "no space left on the device";
    case EFBIG: return "file too large for the file system or the file-size limit (ulimit -f)";
    case EROFS: return "the file system is read-only";
    default: return serde::open_failure_reason(err);  // same words for ENOTDIR, EACCES and the rest
  }
}

RangeReader file_range_reader(std::map<std::string, std::string> paths) {
  auto state = std::make_shared<ReaderState>();
  state->paths = std::move(paths);
  return [state](const InputRange& range, uint8_t* dst) -> Status {
    auto it = state->paths.find(range.source);
    const std::string path = it == state->paths.end() ? range.source : it->second;
    auto open_it = state->open.find(path);
    if (open_it == state->open.end()) {
      FilePtr f(std::fopen(path.c_str(), "rb"));
      if (!f) return io_error("cannot open \"" + path + "\": " + serde::open_failure_reason(errno), path);
      open_it = state->open.emplace(path, std::move(f)).first;
    }
    std::FILE* f = open_it->second.get();
    if (range.offset > static_cast<uint64_t>(INT64_MAX) ||
        fseeko(f, static_cast<off_t>(range.offset), SEEK_SET) != 0) {
      return io_error("cannot seek in '" + path + "'", path, range.offset);
    }
    size_t got = std::fread(dst, 1, static_cast<size_t>(range.length), f);
    if (got != range.length) {
      return io_error("'" + path + "' ended after " + std::to_string(range.offset + got) + " bytes; " +
                          std::to_string(range.offset + range.length) + " needed",
                      path, range.offset + got);
    }
    return Status::Ok();
  };
}

StagedOutput::StagedOutput(std::string path, std::string target, std::string tmp)
    : path_(std::move(path)), target_(std::move(target)), tmp_(std::move(tmp)) {}

StagedOutput::~StagedOutput() {
  if (!tmp_.empty()) std::remove(tmp_.c_str());
}

Result<std::unique_ptr<StagedOutput>> StagedOutput::write(const std::vector<Chunk>& chunks, const std::string& path_in,
                                                          const RangeReader& reader) {
  return write_with(path_in, [&](const Sink& sink) { return stream_chunks(chunks, reader, sink); });
}

Result<std::unique_ptr<StagedOutput>> StagedOutput::write_bytes(std::string_view bytes,
                                                                const std::string& path_in) {
  return write_with(path_in, [&](const Sink& sink) -> Status {
    if (bytes.empty()) return Status::Ok();
    return sink(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  });
}

Result<std::unique_ptr<StagedOutput>> StagedOutput::write_with(
    const std::string& path_in, const std::function<Status(const Sink&)>& produce) {
  // A symbolic link is written through (the link stays); anything that
  // exists and is not a regular file (a device, a folder) is refused, never
  // replaced by the rename.
  std::string path = path_in;
  struct stat link_info;
  if (::lstat(path_in.c_str(), &link_info) == 0 && S_ISLNK(link_info.st_mode)) {
    char* real = ::realpath(path_in.c_str(), nullptr);
    if (real == nullptr) {
      // /dev/stdout into a pipe: the link leads to no path, but to something.
      struct stat target;
      if (::stat(path_in.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) {
        return io_error(
            "'" + path_in + "' leads to a pipe, socket or device, not a regular file; refusing to write it",
            path_in);
      }
      return io_error("'" + path_in + "' is a symbolic link to a missing file; give the target path instead", path_in);
    }
    path = real;
    std::free(real);
  }
  struct stat info;
  const bool exists = ::stat(path.c_str(), &info) == 0;
  if (exists && !S_ISREG(info.st_mode)) {
    return io_error(
        "'" + path_in +
            "' exists and is not a regular file (a folder, a device or a pipe); refusing to replace it",
        path_in);
  }
  // The temporary lives in the target's folder (a rename never crosses file
  // systems) under a short name of its own, so a target name near the 255-byte
  // limit still gets one. Its mode is what a new file would get (0666 less the
  // umask), or the replaced file's own.
  const size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string tmp = folder + ".pteforge-XXXXXX";
  mode_t mode = info.st_mode & 07777;
  if (!exists) {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  // An interrupted write (Ctrl-C in the CLI) removes the temporary file too:
  // registered in the same uninterruptible step that creates it.
  std::unique_ptr<RemoveOnInterrupt> remove_tmp;
  int fd;
  {
    DeferInterrupts defer;
    fd = mkstemp(tmp.data());
    if (fd >= 0) remove_tmp = std::make_unique<RemoveOnInterrupt>(tmp);
  }
  if (fd < 0) return write_error(errno, path_in);
  // From here the object owns the temporary: an early return removes it.
  std::unique_ptr<StagedOutput> staged(new StagedOutput(path_in, path, tmp));
  staged->remove_tmp_ = std::move(remove_tmp);
  // mkstemp creates the file 0600.
  (void)::fchmod(fd, mode);
  FilePtr f(fdopen(fd, "wb"));
  if (!f) {
    ::close(fd);
    return io_error("cannot open the temporary file for '" + path + "'", path);
  }
  uint64_t written = 0;
  // stdio buffers what fwrite takes: where a write failed (a full disk, the
  // file size limit) is the size the file reached, not what was handed over.
  auto failed = [&](int err) {
    struct stat reached;
    const uint64_t at =
        ::fstat(fileno(f.get()), &reached) == 0 ? static_cast<uint64_t>(reached.st_size) : written;
    return write_error(err, path_in, at);
  };
  PTEFORGE_TRY(produce([&](const uint8_t* data, uint64_t size) -> Status {
    if (std::fwrite(data, 1, static_cast<size_t>(size), f.get()) != size) return failed(errno);
    written += size;
    return Status::Ok();
  }));
  if (std::fflush(f.get()) != 0) return failed(errno);
  if (std::fclose(f.release()) != 0) return write_error(errno, path_in, written);
  return staged;
}

namespace {
int (*g_rename)(const char*, const char*) = &std::rename;
}  // namespace

namespace testing {
RenameFn set_rename_for_testing(RenameFn fn) {
  RenameFn before = g_rename;
  g_rename = fn ? fn : &std::rename;
  return before;
}
}  // namespace testing

Status commit_outputs(std::vector<std::unique_ptr<StagedOutput>>& outputs) {
  DeferInterrupts defer;
  // The earlier version of each output is kept as a hard link beside it until
  // every rename succeeded, so a rename that fails can put the earlier ones
  // back. Where hard links are not possible (Emscripten's file systems, some
  // network and FAT file systems), an earlier regular file is renamed aside
  // just before its replacement goes in instead: the same guarantee, though
  // the path is briefly missing.
  std::vector<std::string> earlier(outputs.size());
  std::vector<bool> aside(outputs.size(), false);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const StagedOutput& out = *outputs[i];
    std::string link = out.tmp_ + ".earlier";
    if (::link(out.target_.c_str(), link.c_str()) == 0) {
      earlier[i] = std::move(link);
      continue;
    }
    struct stat info;
    aside[i] = ::lstat(out.target_.c_str(), &info) == 0 && S_ISREG(info.st_mode);
  }
  auto drop_earlier = [&] {
    for (const std::string& link : earlier) {
      if (!link.empty()) std::remove(link.c_str());
    }
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    StagedOutput& out = *outputs[i];
    if (aside[i]) {
      std::string moved = out.tmp_ + ".earlier";
      if (g_rename(out.target_.c_str(), moved.c_str()) == 0) earlier[i] = std::move(moved);
    }
    if (g_rename(out.tmp_.c_str(), out.target_.c_str()) != 0) {
      Error err = write_error(errno, out.path_);
      // An earlier version that cannot be put back is never deleted: it stays
      // beside its path, and the error says where (the new version, a mix
      // with the other outputs' earlier ones, is removed).
      auto put_back = [&](size_t j, bool replaced) {
        const std::string& target = outputs[j]->target_;
        if (earlier[j].empty()) {  // nothing there before this run
          if (replaced) std::remove(target.c_str());
          return;
        }
        if (g_rename(earlier[j].c_str(), target.c_str()) == 0) {
          earlier[j].clear();
          return;
        }
        const int why = errno;
        if (replaced) std::remove(target.c_str());
        err.notes.push_back("the earlier \"" + outputs[j]->path_ + "\" could not be put back (" +
                            serde::open_failure_reason(why) + "); it is kept as \"" + earlier[j] + "\"");
        earlier[j].clear();  // kept, not dropped
      };
      // This output's own earlier version goes back if it was renamed aside
      // (a hard link stays where it is: the path was not replaced).
      if (aside[i]) put_back(i, false);
      for (size_t j = 0; j < i; ++j) put_back(j, true);
      drop_earlier();
      return err;
    }
    out.tmp_.clear();
    out.remove_tmp_.reset();
  }
  drop_earlier();
  return Status::Ok();
}

namespace {

/// Commits one staged output, or returns the error staging it gave.
Status commit_one(Result<std::unique_ptr<StagedOutput>> staged) {
  if (!staged.ok()) return std::move(staged).error();
  std::vector<std::unique_ptr<StagedOutput>> outputs;
  outputs.push_back(std::move(staged).value());
  return commit_outputs(outputs);
}

}  // namespace

Status write_chunks_to_file(const std::vector<Chunk>& chunks, const std::string& path,
                            const RangeReader& reader) {
  return commit_one(StagedOutput::write(chunks, path, reader));
}

Status write_bytes_to_file(std::string_view bytes, const std::string& path) {
  return commit_one(StagedOutput::write_bytes(bytes, path));
}

}  // namespace pteforge::emit
