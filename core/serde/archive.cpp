// Archive base class, entry-name safety, read helpers and MemoryArchive.
#include "serde/archive.h"

#include <algorithm>
#include <functional>

namespace pteforge::serde {
namespace {

Error entry_error(ErrorCode code, std::string message, std::string_view entry) {
  Location where;
  where.entry = std::string(entry);
  return make_error(code, std::move(message), std::move(where));
}

}  // namespace

// ---------------------------------------------------------------------------
// Archive

const ArchiveEntry* Archive::find(std::string_view name) const {
  auto it = std::lower_bound(by_name_.begin(), by_name_.end(), name,
                             [this](uint32_t index, std::string_view key) {
                               return std::string_view(entries_[index].name) < key;
                             });
  if (it == by_name_.end() || entries_[*it].name != name) return nullptr;
  return &entries_[*it];
}

Status Archive::set_entries(std::vector<ArchiveEntry> entries) {
  if (entries.size() > UINT32_MAX) {
    return make_error(ErrorCode::ARCHIVE_INVALID, "the archive has too many entries");
  }
  for (const auto& entry : entries) {
    PTEFORGE_TRY(check_entry_name(entry.name));
  }
  std::vector<uint32_t> by_name(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) by_name[i] = static_cast<uint32_t>(i);
  std::stable_sort(by_name.begin(), by_name.end(), [&entries](uint32_t a, uint32_t b) {
    return entries[a].name < entries[b].name;
  });
  for (size_t i = 1; i < by_name.size(); ++i) {
    const std::string& name = entries[by_name[i]].name;
    if (name == entries[by_name[i - 1]].name) {
      return entry_error(ErrorCode::ARCHIVE_INVALID,
                         "the archive holds two entries named \"" + name +
                             "\"; refusing to guess which one is meant",
                         name);
    }
  }
  entries_ = std::move(entries);
  by_name_ = std::move(by_name);
  kept_.clear();
  kept_bytes_ = 0;
  return Status::Ok();
}

Result<const std::string*> Archive::kept_entry(size_t index,
                                               const std::function<Result<std::string>()>& read_whole) {
  if (kKeepTotalMax == 0 || index >= entries_.size()) return nullptr;
  if (kept_.empty()) kept_.resize(entries_.size());
  std::optional<std::string>& kept = kept_[index];
  if (kept) return &*kept;
  const uint64_t size = entries_[index].size;
  if (size > kKeepEntryMax || kept_bytes_ + size > kKeepTotalMax) return nullptr;
  PTEFORGE_ASSIGN_OR_RETURN(std::string whole, read_whole());
  if (whole.size() != size) {
    return entry_error(ErrorCode::IO_ERROR,
                       "entry \"" + entries_[index].name + "\" read " + std::to_string(whole.size()) +
                           " bytes; its size is " + std::to_string(size),
                       entries_[index].name);
  }
  kept = std::move(whole);
  kept_bytes_ += size;
  return &*kept;
}

Result<size_t> Archive::index_of(const ArchiveEntry& entry) const {
  // std::less gives a total order even for pointers into different objects.
  std::less<const ArchiveEntry*> before;
  if (!entries_.empty() && !before(&entry, entries_.data()) &&
      before(&entry, entries_.data() + entries_.size())) {
    return static_cast<size_t>(&entry - entries_.data());
  }
  const ArchiveEntry* found = find(entry.name);
  if (found == nullptr) {
    return entry_error(ErrorCode::ARCHIVE_ENTRY_MISSING,
                       "no entry \"" + entry.name + "\" in this archive", entry.name);
  }
  return static_cast<size_t>(found - entries_.data());
}

Status Archive::check_range(const ArchiveEntry& entry, uint64_t offset, uint64_t length) {
  if (offset > entry.size || length > entry.size - offset) {
    Location where;
    where.entry = entry.name;
    where.byte_offset = offset;
    return make_error(ErrorCode::ARCHIVE_INVALID,
                      "byte range [" + std::to_string(offset) + ", +" + std::to_string(length) +
                          ") is outside entry \"" + entry.name + "\" of " +
                          std::to_string(entry.size) + " bytes",
                      std::move(where));
  }
  return Status::Ok();
}

Status Archive::check_max_bytes(const ArchiveEntry& entry, uint64_t max_bytes) {
  if (entry.size > max_bytes) {
    return entry_error(ErrorCode::ARCHIVE_INVALID,
                       "entry \"" + entry.name + "\" is " + std::to_string(entry.size) +
                           " bytes, more than the limit of " + std::to_string(max_bytes) +
                           " bytes for reading it whole",
                       entry.name);
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Free helpers

Status check_entry_name(std::string_view name) {
  auto bad = [name](const std::string& why) {
    return entry_error(ErrorCode::ARCHIVE_ENTRY_NAME,
                       "unsafe archive entry name \"" + std::string(name) + "\": " + why, name);
  };
  if (name.empty()) return bad("the name is empty");
  if (name.find('\0') != std::string_view::npos) return bad("it contains a NUL byte");
  if (name.front() == '/' || name.front() == '\\') return bad("it is an absolute path");
  if (name.size() >= 2 && name[1] == ':' &&
      ((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z'))) {
    return bad("it starts with a drive letter");
  }
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find_first_of("/\\", start);
    if (end == std::string_view::npos) end = name.size();
    if (name.substr(start, end - start) == "..") return bad("it has a \"..\" component");
    start = end + 1;
  }
  return Status::Ok();
}

std::optional<std::string> Archive::why_unlisted(std::string_view name) const {
  auto it = unlisted_.find(name);
  if (it == unlisted_.end()) return std::nullopt;
  return it->second;
}

Error explain_missing_entry(const Archive& archive, Error error) {
  if (error.code != ErrorCode::ARCHIVE_ENTRY_MISSING && error.code != ErrorCode::WEIGHTS_MISSING) return error;
  if (!error.where.entry) return error;
  std::optional<std::string> why = archive.why_unlisted(*error.where.entry);
  if (!why) return error;
  error.code = ErrorCode::IO_ERROR;
  error.message = "cannot open \"" + *error.where.entry + "\": " + *why;
  return error;
}

Result<std::string> read_entry(Archive& archive, std::string_view name, uint64_t max_bytes) {
  const ArchiveEntry* entry = archive.find(name);
  if (entry == nullptr) {
    return explain_missing_entry(archive, entry_error(ErrorCode::ARCHIVE_ENTRY_MISSING,
                                                      "the archive has no entry \"" + std::string(name) + "\"", name));
  }
  return archive.read(*entry, max_bytes);
}

Result<std::string> read_program_entry(Archive& archive, std::string_view name) {
#if defined(__EMSCRIPTEN__)
  if (const ArchiveEntry* entry = archive.find(name); entry && entry->size > kMaxProgramJsonBytes) {
    return entry_error(
        ErrorCode::UNSUPPORTED_FEATURE,
        "the program JSON is " + std::to_string(entry->size) +
            " bytes; the npm package and the page read program JSON of up to 1 GiB (WebAssembly "
            "memory ends at 4 GiB, and reading a program holds its JSON twice): use the native "
            "pteforge CLI for this program",
        entry->name);
  }
#endif
  return read_entry(archive, name, kMaxProgramJsonBytes);
}

Result<std::string> read_text_entry(Archive& archive, std::string_view name, uint64_t max_bytes) {
  PTEFORGE_ASSIGN_OR_RETURN(std::string text, read_entry(archive, name, max_bytes));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' ||
                           text.back() == '\t')) {
    text.pop_back();
  }
  return text;
}

Status require_stored(const ArchiveEntry& entry) {
  if (!entry.stored) {
    return entry_error(ErrorCode::ARCHIVE_COMPRESSED,
                       "entry \"" + entry.name +
                           "\" is compressed; tensor payloads must be stored uncompressed "
                           "(as torch.export.save writes them) so they can be referenced in place",
                       entry.name);
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// MemoryArchive

Result<std::unique_ptr<MemoryArchive>> MemoryArchive::create(
    std::vector<std::pair<std::string, std::string>> files) {
  std::unique_ptr<MemoryArchive> archive(new MemoryArchive());
  std::vector<ArchiveEntry> entries;
  entries.reserve(files.size());
  archive->data_.reserve(files.size());
  for (auto& [name, bytes] : files) {
    ArchiveEntry entry;
    entry.name = std::move(name);
    entry.size = bytes.size();
    entry.stored = true;
    entries.push_back(std::move(entry));
    archive->data_.push_back(std::move(bytes));
  }
  PTEFORGE_TRY(archive->set_entries(std::move(entries)));
  return archive;
}

Result<std::string> MemoryArchive::read(const ArchiveEntry& entry, uint64_t max_bytes) {
  PTEFORGE_ASSIGN_OR_RETURN(size_t index, index_of(entry));
  PTEFORGE_TRY(check_max_bytes(entries()[index], max_bytes));
  return data_[index];
}

Result<std::string> MemoryArchive::read_range(const ArchiveEntry& entry, uint64_t offset,
                                              uint64_t length) {
  PTEFORGE_ASSIGN_OR_RETURN(size_t index, index_of(entry));
  PTEFORGE_TRY(check_range(entries()[index], offset, length));
  return data_[index].substr(static_cast<size_t>(offset), static_cast<size_t>(length));
}

bool looks_like_zip(std::string_view head) { return head.size() >= 4 && head.substr(0, 2) == "PK"; }

namespace {
/// JSON's whitespace (RFC 8259: space, tab, LF, CR).
bool is_json_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
}  // namespace

size_t json_text_start(std::string_view head) {
  size_t pos = head.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (pos < head.size() && is_json_space(head[pos])) ++pos;
  return pos;
}

bool starts_json_document(std::string_view head, size_t pos) {
  return pos < head.size() && (head[pos] == '{' || head[pos] == '[');
}

std::string unrecognised_input_message(const std::string& path, std::string_view head) {
  if (head.size() >= 8 && head.substr(4, 4) == "ET12") {
    return "\"" + path + "\" is a .pte (an ExecuTorch program), not a .pt2 archive or a program JSON; decode reads it";
  }
  return "\"" + path + "\" is neither a zip archive (.pt2) nor a program JSON";
}

Result<std::optional<char>> first_text_char(std::string_view head, uint64_t size, const SniffReader& read) {
  const size_t pos = json_text_start(head);
  if (pos < head.size()) return std::optional<char>(head[pos]);
  constexpr uint64_t kPiece = 64 * 1024;
  for (uint64_t offset = head.size(); offset < size;) {
    const uint64_t n = std::min(kPiece, size - offset);
    PTEFORGE_ASSIGN_OR_RETURN(std::string piece, read(offset, n));
    if (piece.size() != n)
      return make_error(ErrorCode::IO_ERROR, "the input became shorter while it was read");
    for (char c : piece) {
      if (!is_json_space(c)) return std::optional<char>(c);
    }
    offset += n;
  }
  return std::optional<char>();
}

std::string blank_input_message(const std::string& path, std::string_view head, uint64_t size) {
  const bool bom = head.substr(0, 3) == "\xEF\xBB\xBF";
  return "\"" + path + "\" holds only " + (bom ? "a UTF-8 byte order mark and whitespace" : "whitespace") +
         " (" + std::to_string(size) + " bytes); expected a .pt2 archive or a program JSON";
}

}  // namespace pteforge::serde
