// Opening JS inputs (see js_input.h).
#include "js_input.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace pteforge::wasm {
namespace {

Error wrapper_bug(std::string what) {
  return make_error(ErrorCode::INTERNAL, "malformed input description from the JS wrapper: " + std::move(what));
}

Error named_error(ErrorCode code, const std::string& name, std::string message) {
  Location where;
  where.entry = name;
  return make_error(code, std::move(message), std::move(where));
}

/// A non-negative integer member below 2^53, or nullopt.
std::optional<uint64_t> get_size(const rapidjson::Value& object, const char* key) {
  auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsNumber()) return std::nullopt;
  double d = it->value.GetDouble();
  if (!(d >= 0) || d > 9007199254740992.0 || d != static_cast<double>(static_cast<uint64_t>(d))) {
    return std::nullopt;
  }
  return static_cast<uint64_t>(d);
}

std::optional<std::string> get_string(const rapidjson::Value& object, const char* key) {
  auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsString()) return std::nullopt;
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

/// Detects the layout of the opened archive, as the CLI does.
Status detect_layout(JsInput& input) {
  PTEFORGE_ASSIGN_OR_RETURN(input.layout, serde::detect_pt2_layout(*input.archive));
  return Status::Ok();
}

/// The file name part of `name` (after the last '/' or '\').
std::string base_name(const std::string& name) {
  size_t slash = name.find_last_of("/\\");
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

}  // namespace

Result<JsLocation> JsInput::locate(std::string_view entry, uint64_t offset) const {
  const serde::ArchiveEntry* found = archive->find(entry);
  if (found == nullptr) {
    return make_error(ErrorCode::INTERNAL, "an output range refers to \"" + std::string(entry) +
                                               "\", which is not an entry of the input");
  }
  if (zip_) {
    if (!found->stored || !found->data_offset) {
      return make_error(ErrorCode::INTERNAL, "an output range refers to entry \"" + found->name +
                                                 "\", which is not stored in place");
    }
    return JsLocation{zip_source_, *found->data_offset + offset};
  }
  int64_t source = static_cast<const JsFilesArchive&>(*archive).source_of(entry);
  return JsLocation{static_cast<uint32_t>(source), offset};
}

Result<JsInput> open_js_input(std::string_view description, const JsReader& reader) {
  rapidjson::Document doc;
  doc.Parse(description.data(), description.size());
  if (doc.HasParseError() || !doc.IsObject()) return wrapper_bug("not a JSON object");
  std::optional<std::string> kind = get_string(doc, "kind");
  std::optional<std::string> name = get_string(doc, "name");
  if (!kind || !name) return wrapper_bug("kind and name are required");

  JsInput input;
  input.name = *name;
  if (*kind == "files") {
    const rapidjson::Value& root = doc;
    auto files_it = root.FindMember("files");
    if (files_it == root.MemberEnd() || !files_it->value.IsArray()) return wrapper_bug("files must be an array");
    std::vector<JsFile> files;
    for (const auto& f : files_it->value.GetArray()) {
      if (!f.IsObject()) return wrapper_bug("a file must be an object");
      std::optional<std::string> file_name = get_string(f, "name");
      std::optional<uint64_t> source = get_size(f, "source");
      std::optional<uint64_t> size = get_size(f, "size");
      if (!file_name || !source || !size || *source > UINT32_MAX) return wrapper_bug("a file needs name, source, size");
      files.push_back(JsFile{*file_name, static_cast<uint32_t>(*source), *size});
    }
    PTEFORGE_ASSIGN_OR_RETURN(std::unique_ptr<JsFilesArchive> archive, JsFilesArchive::create(reader, std::move(files)));
    input.archive = std::move(archive);
    PTEFORGE_TRY(detect_layout(input));
    // "program": a program JSON of the folder was named; keep only that
    // program, as the CLI's open_input does for <folder>/models/<name>.json.
    if (std::optional<std::string> program = get_string(doc, "program")) {
      const std::string entry = input.layout.entry_name(*program);
      std::erase_if(input.layout.models, [&](const serde::Pt2Model& m) { return m.program_entry != entry; });
      if (input.layout.models.empty()) {
        return named_error(ErrorCode::ARCHIVE_ENTRY_MISSING, *name,
                           "\"" + *name + "\" is not a program of its unpacked archive");
      }
    }
    return input;
  }
  if (*kind != "auto") return wrapper_bug("unknown kind \"" + *kind + "\"");

  std::optional<uint64_t> source = get_size(doc, "source");
  std::optional<uint64_t> size = get_size(doc, "size");
  if (!source || !size || *source > UINT32_MAX) return wrapper_bug("source and size are required");
  const uint32_t src = static_cast<uint32_t>(*source);
  const std::string& path = *name;
  // The same sniffing, messages and locations as the CLI's open_input.
  if (*size == 0) {
    return named_error(ErrorCode::INPUT_EMPTY, path,
                       "\"" + path + "\" is empty (0 bytes); expected a .pt2 archive or a program JSON");
  }
  std::string head(static_cast<size_t>(std::min<uint64_t>(*size, 512)), '\0');
  Location at;
  at.entry = path;
  PTEFORGE_TRY(reader.read(src, 0, reinterpret_cast<uint8_t*>(head.data()), head.size(), at));
  if (head.size() >= 4 && head.compare(0, 2, "PK") == 0) {
    PTEFORGE_ASSIGN_OR_RETURN(input.archive, open_js_zip(reader, src, *size, path));
    input.zip_ = true;
    input.zip_source_ = src;
    PTEFORGE_TRY(detect_layout(input));
    return input;
  }
  size_t pos = head.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  while (pos < head.size() && (head[pos] == ' ' || head[pos] == '\n' || head[pos] == '\r' || head[pos] == '\t')) ++pos;
  if (pos < head.size() && head[pos] == '{') {
    const std::string entry = base_name(path).empty() ? std::string("model.json") : base_name(path);
    PTEFORGE_ASSIGN_OR_RETURN(std::unique_ptr<JsFilesArchive> archive,
                              JsFilesArchive::create(reader, {JsFile{entry, src, *size}}));
    input.archive = std::move(archive);
    input.layout = serde::program_json_layout(entry);
    return input;
  }
  return named_error(ErrorCode::ARCHIVE_INVALID, path,
                     "\"" + path + "\" is neither a zip archive (.pt2) nor a program JSON");
}

}  // namespace pteforge::wasm
