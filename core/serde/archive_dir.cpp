// Unpacked archive folders as archives (see archive_native.h).
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>

#include "serde/archive_native.h"
#include "serde/archive_native_io.h"

namespace pteforge::serde {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxFiles = 1000000;
constexpr int kMaxDepth = 64;

Error folder_error(const std::string& path, const std::string& what) {
  Location where;
  where.entry = path;
  return make_error(ErrorCode::IO_ERROR, "cannot read folder \"" + path + "\": " + what,
                    std::move(where));
}

/// `base / name` as std::filesystem::path joins them on POSIX, without
/// parsing either into components (that parse was a visible share of listing
/// and reading a folder of thousands of weight files).
std::string join_path(const std::string& base, const std::string& name) {
  if (!name.empty() && name.front() == '/') return name;  // an absolute name replaces the base
  std::string out;
  out.reserve(base.size() + 1 + name.size());
  out += base;
  if (!out.empty() && out.back() != '/') out += '/';
  out += name;
  return out;
}

/// `full` relative to `base`, for the paths a recursive_directory_iterator
/// started at `base` yields (base, then '/'-separated names): the text after
/// base and its separators; other paths go through lexically_relative.
std::string relative_to(const fs::path& full, const std::string& base) {
  const std::string& text = full.native();
  if (!base.empty() && text.size() > base.size() && text.compare(0, base.size(), base) == 0 &&
      (base.back() == '/' || text[base.size()] == '/')) {
    size_t start = base.size();
    while (start < text.size() && text[start] == '/') ++start;
    if (start < text.size()) return text.substr(start);
  }
  return full.lexically_relative(fs::path(base)).generic_string();
}

/// Files of a folder; entry i is the file base_ / name. Range reads of small
/// files are served from the archive's keep (Archive::kept_entry).
class DirectoryArchive final : public Archive {
 public:
  explicit DirectoryArchive(std::string base, std::map<std::string, std::string> unlisted = {})
      : base_(std::move(base)) {
    set_unlisted(unlisted);
  }
  Status install(std::vector<ArchiveEntry> entries) { return set_entries(std::move(entries)); }

  Result<std::string> read(const ArchiveEntry& entry, uint64_t max_bytes) override {
    PTEFORGE_ASSIGN_OR_RETURN(size_t index, index_of(entry));
    const ArchiveEntry& own = entries()[index];
    PTEFORGE_TRY(check_max_bytes(own, max_bytes));
    return read_file(own, 0, own.size);
  }

  Result<std::string> read_range(const ArchiveEntry& entry, uint64_t offset,
                                 uint64_t length) override {
    PTEFORGE_ASSIGN_OR_RETURN(size_t index, index_of(entry));
    const ArchiveEntry& own = entries()[index];
    PTEFORGE_TRY(check_range(own, offset, length));
    PTEFORGE_ASSIGN_OR_RETURN(const std::string* kept,
                              kept_entry(index, [&] { return read_file(own, 0, own.size); }));
    if (kept) return kept->substr(static_cast<size_t>(offset), static_cast<size_t>(length));
    return read_file(own, offset, length);
  }

 private:
  Result<std::unique_ptr<FileByteSource>> open(const ArchiveEntry& entry) const {
    auto file = FileByteSource::open(join_path(base_, entry.name));
    if (!file.ok()) {
      Error error = std::move(file).error();
      error.where.entry = entry.name;
      return error;
    }
    return std::move(file).value();
  }
  /// `length` bytes at `offset` of the entry's file, which must still have the listed size.
  Result<std::string> read_file(const ArchiveEntry& entry, uint64_t offset, uint64_t length) const {
    PTEFORGE_ASSIGN_OR_RETURN(std::unique_ptr<FileByteSource> file, open(entry));
    if (file->size() != entry.size) return changed(entry);
    return file->read_at(offset, length);
  }
  static Error changed(const ArchiveEntry& entry) {
    Location where;
    where.entry = entry.name;
    return make_error(ErrorCode::IO_ERROR,
                      "file \"" + entry.name + "\" changed size since the folder was listed",
                      std::move(where));
  }

  std::string base_;
};

/// Why an item whose (followed) stat mode is `mode`, not a regular file, cannot be an entry.
std::string not_a_file_reason(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a folder";
  if (S_ISFIFO(mode)) return "it is a FIFO, not a regular file";
  if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
  if (S_ISBLK(mode) || S_ISCHR(mode)) return "it is a device, not a regular file";
  return "it is not a regular file";
}

/// Why a folder item that is not a regular file (nor a folder) cannot be an entry.
std::string not_a_file_reason(const fs::directory_entry& item) {
  std::error_code ec;
  if (item.is_symlink(ec)) {
    (void)fs::status(item.path(), ec);
    if (ec == std::errc::too_many_symbolic_link_levels) return "it is a symbolic link in a loop";
    if (ec == std::errc::no_such_file_or_directory) return "it is a symbolic link to a missing file";
    if (ec) return "it is a symbolic link that cannot be followed: " + open_failure_reason(ec.value());
  }
  // The item's own type (followed), from stat: the listing's cached type can
  // be wrong (Emscripten's readdir calls a FIFO a regular file).
  struct stat st {};
  if (::stat(item.path().c_str(), &st) == 0) return not_a_file_reason(st.st_mode);
  return "it is not a regular file";
}

}  // namespace

namespace {

/// The archive of `names` under `base`. With `listed` (the names come from
/// listing the folder), a name that turns out not to be a regular file joins
/// `unlisted` with the reason: the listing's item types can be wrong
/// (Emscripten's readdir reports a FIFO as a regular file). Otherwise such a
/// name is an IO_ERROR.
Result<std::unique_ptr<Archive>> open_listed(const std::string& base, const std::vector<std::string>& names,
                                             std::map<std::string, std::string> unlisted, bool listed) {
  std::vector<ArchiveEntry> entries;
  for (const auto& name : names) {
    // As std::filesystem::file_size: follows symbolic links, refuses a folder
    // (EISDIR) and anything else that is not a regular file (ENOTSUP).
    const std::string full = join_path(base, name);
    struct stat st {};
    int err = 0;
    if (::stat(full.c_str(), &st) != 0) {
      err = errno;
    } else if (listed && !S_ISREG(st.st_mode)) {
      unlisted.emplace(name, not_a_file_reason(st.st_mode));
      continue;
    } else if (S_ISDIR(st.st_mode)) {
      err = EISDIR;
    } else if (!S_ISREG(st.st_mode)) {
      err = ENOTSUP;
    }
    if (err) return folder_error(full, open_failure_reason(err));
    ArchiveEntry entry;
    entry.name = name;
    entry.size = static_cast<uint64_t>(st.st_size);
    entry.stored = true;
    entries.push_back(std::move(entry));
  }
  auto archive = std::make_unique<DirectoryArchive>(base, std::move(unlisted));
  PTEFORGE_TRY(archive->install(std::move(entries)));
  return std::unique_ptr<Archive>(std::move(archive));
}

}  // namespace

Result<std::unique_ptr<Archive>> open_directory_files(const std::string& base,
                                                      const std::vector<std::string>& names) {
  return open_listed(base, names, {}, false);
}

Result<std::unique_ptr<Archive>> open_directory(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return folder_error(path, "it is not a folder");
  std::vector<std::string> names;
  std::map<std::string, std::string> unlisted;
  fs::recursive_directory_iterator it(path, fs::directory_options::none, ec);
  if (ec) return folder_error(path, open_failure_reason(ec.value()));
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return folder_error(path, open_failure_reason(ec.value()));
    if (it.depth() >= kMaxDepth) {
      return folder_error(path, "it nests deeper than " + std::to_string(kMaxDepth) + " folders");
    }
    const fs::directory_entry& item = *it;
    std::error_code type_ec;
    // Symlinked folders are not followed (the iterator does not recurse into
    // them); symlinks to files count as files. Folders are not entries either;
    // remembered so that an entry expected by that name is explained.
    if (item.is_directory(type_ec)) {
      if (unlisted.size() < kMaxFiles) {
        unlisted.emplace(relative_to(item.path(), path),
                         item.is_symlink(type_ec) ? "it is a symbolic link to a folder (not followed)"
                                                  : "it is a folder");
      }
      continue;
    }
    if (!item.is_regular_file(type_ec)) {
      // Not an entry; remembered so that "missing" errors can say why.
      if (unlisted.size() < kMaxFiles) {
        unlisted.emplace(relative_to(item.path(), path), not_a_file_reason(item));
      }
      continue;
    }
    if (names.size() >= kMaxFiles) {
      return folder_error(path, "it holds more than " + std::to_string(kMaxFiles) + " files");
    }
    names.push_back(relative_to(item.path(), path));
  }
  if (ec) return folder_error(path, open_failure_reason(ec.value()));
  std::sort(names.begin(), names.end());
  return open_listed(path, names, std::move(unlisted), true);
}

}  // namespace pteforge::serde
