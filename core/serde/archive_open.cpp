// open_input(): any input form the CLI accepts (see archive_native.h).
#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <optional>
#include <system_error>

#include "serde/archive_native.h"
#include "serde/archive_native_io.h"

namespace pteforge::serde {
namespace {

namespace fs = std::filesystem;

Error path_error(ErrorCode code, const std::string& path, std::string message) {
  Location where;
  where.entry = path;
  return make_error(code, std::move(message), std::move(where));
}

/// The archive opened from `path` with its layout (detect_input_layout).
Result<OpenedInput> with_layout(Result<std::unique_ptr<Archive>> opened, const std::string& path) {
  if (!opened.ok()) return std::move(opened).error();
  OpenedInput input;
  input.archive = std::move(opened).value();
  PTEFORGE_ASSIGN_OR_RETURN(input.layout, detect_input_layout(*input.archive, path));
  input.root = path;
  return input;
}

/// A program JSON inside an unpacked archive (`<dir>/models/<name>.json` with
/// `<dir>/archive_format`): the folder, keeping only that program.
Result<std::optional<OpenedInput>> open_json_in_folder(const fs::path& json_path) {
  fs::path models_dir = json_path.parent_path();
  if (models_dir.filename() != "models") return std::optional<OpenedInput>();
  fs::path folder = models_dir.parent_path();
  std::error_code ec;
  if (folder.empty() || !fs::is_regular_file(folder / "archive_format", ec)) {
    return std::optional<OpenedInput>();
  }
  PTEFORGE_ASSIGN_OR_RETURN(OpenedInput input, with_layout(open_directory(folder.string()), folder.string()));
  const std::string program = input.layout.entry_name("models/" + json_path.filename().string());
  for (auto& model : input.layout.models) {
    if (model.program_entry == program) {
      Pt2Model kept = std::move(model);
      input.layout.models.clear();
      input.layout.models.push_back(std::move(kept));
      return std::optional<OpenedInput>(std::move(input));
    }
  }
  return std::optional<OpenedInput>();
}

}  // namespace

Result<OpenedInput> open_input(const std::string& path) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    return path_error(ErrorCode::IO_ERROR, path,
                      "cannot open \"" + path + "\": " + open_failure_reason(ec ? ec.value() : ENOENT));
  }
  if (fs::is_directory(status)) return with_layout(open_directory(path), path);

  PTEFORGE_ASSIGN_OR_RETURN(std::unique_ptr<FileByteSource> file, FileByteSource::open(path));
  if (file->size() == 0) {
    return path_error(ErrorCode::INPUT_EMPTY, path,
                      "\"" + path + "\" is empty (0 bytes); expected a .pt2 archive or a program JSON");
  }
  const uint64_t size = file->size();
  PTEFORGE_ASSIGN_OR_RETURN(std::string head, file->read_at(0, std::min<uint64_t>(size, 512)));
  if (looks_like_zip(head)) {
    file.reset();
    return with_layout(open_zip_file(path), path);
  }
  PTEFORGE_ASSIGN_OR_RETURN(std::optional<char> first,
                            first_text_char(head, size, [&file](uint64_t offset, uint64_t length) {
                              return file->read_at(offset, length);
                            }));
  file.reset();
  if (first && (*first == '{' || *first == '[')) {
    const fs::path json_path = fs::absolute(fs::path(path), ec);
    if (!ec) {
      PTEFORGE_ASSIGN_OR_RETURN(std::optional<OpenedInput> in_folder, open_json_in_folder(json_path));
      if (in_folder) return std::move(*in_folder);
    }
    const fs::path plain(path);
    const std::string name = plain.filename().string();
    OpenedInput input;
    PTEFORGE_ASSIGN_OR_RETURN(input.archive, open_directory_files(plain.parent_path().string().empty()
                                                                      ? std::string(".")
                                                                      : plain.parent_path().string(),
                                                                  {name}));
    input.layout = program_json_layout(name);
    input.root = path;
    return input;
  }
  if (!first) return path_error(ErrorCode::INPUT_EMPTY, path, blank_input_message(path, head, size));
  return path_error(ErrorCode::ARCHIVE_INVALID, path, unrecognised_input_message(path, head));
}

}  // namespace pteforge::serde
