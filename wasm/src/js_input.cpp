// Opening JS inputs (see js_input.h).
#include "js_input.h"

#include <map>

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

/// The name of an entry record: "name" (UTF-8 text) or "nameBytes" (the raw
/// bytes, for names that are not UTF-8).
std::optional<std::string> get_entry_name(const rapidjson::Value& object) {
  if (std::optional<std::string> name = get_string(object, "name")) return name;
  auto it = object.FindMember("nameBytes");
  if (it == object.MemberEnd() || !it->value.IsArray()) return std::nullopt;
  std::string out;
  for (const auto& b : it->value.GetArray()) {
    if (!b.IsUint() || b.GetUint() > 255) return std::nullopt;
    out += static_cast<char>(b.GetUint());
  }
  return out;
}

/// The entry table of a "zip" description (what zip.js read in the wrapper).
Result<std::vector<serde::ZipEntryRecord>> get_zip_records(const rapidjson::Value& doc) {
  auto it = doc.FindMember("entries");
  if (it == doc.MemberEnd() || !it->value.IsArray()) return wrapper_bug("entries must be an array");
  std::vector<serde::ZipEntryRecord> records;
  records.reserve(it->value.Size());
  for (const auto& e : it->value.GetArray()) {
    if (!e.IsObject()) return wrapper_bug("an entry must be an object");
    std::optional<std::string> name = get_entry_name(e);
    std::optional<uint64_t> method = get_size(e, "method");
    std::optional<uint64_t> flags = get_size(e, "flags");
    std::optional<uint64_t> crc = get_size(e, "crc32");
    std::optional<uint64_t> compressed = get_size(e, "compressedSize");
    std::optional<uint64_t> size = get_size(e, "size");
    std::optional<uint64_t> header = get_size(e, "localHeaderOffset");
    std::optional<uint64_t> data = get_size(e, "dataOffset");
    if (!name || !method || !flags || !crc || !compressed || !size || !header || !data ||
        *method > UINT16_MAX || *flags > UINT16_MAX || *crc > UINT32_MAX) {
      return wrapper_bug("an entry needs name, method, flags, crc32, compressedSize, size, "
                         "localHeaderOffset, dataOffset");
    }
    serde::ZipEntryRecord rec;
    rec.name = std::move(*name);
    rec.method = static_cast<uint16_t>(*method);
    rec.flags = static_cast<uint16_t>(*flags);
    rec.crc32 = static_cast<uint32_t>(*crc);
    rec.compressed_size = *compressed;
    rec.size = *size;
    rec.local_header_offset = *header;
    rec.data_offset = *data;
    records.push_back(std::move(rec));
  }
  return records;
}

/// Detects the layout of the opened archive, as the CLI does.
Status detect_layout(JsInput& input) {
  PTEFORGE_ASSIGN_OR_RETURN(input.layout, serde::detect_input_layout(*input.archive, input.name));
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
  doc.Parse<rapidjson::kParseIterativeFlag>(description.data(), description.size());
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
    std::map<std::string, std::string> unlisted;
    auto unlisted_it = root.FindMember("unlisted");
    if (unlisted_it != root.MemberEnd() && unlisted_it->value.IsObject()) {
      for (const auto& m : unlisted_it->value.GetObject()) {
        if (!m.value.IsString()) return wrapper_bug("unlisted reasons must be strings");
        unlisted.emplace(std::string(m.name.GetString(), m.name.GetStringLength()),
                         std::string(m.value.GetString(), m.value.GetStringLength()));
      }
    }
    PTEFORGE_ASSIGN_OR_RETURN(std::unique_ptr<JsFilesArchive> archive,
                              JsFilesArchive::create(reader, std::move(files), std::move(unlisted)));
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
  if (*kind != "auto" && *kind != "zip") return wrapper_bug("unknown kind \"" + *kind + "\"");

  std::optional<uint64_t> source = get_size(doc, "source");
  std::optional<uint64_t> size = get_size(doc, "size");
  if (!source || !size || *source > UINT32_MAX) return wrapper_bug("source and size are required");
  const uint32_t src = static_cast<uint32_t>(*source);
  const std::string& path = *name;
  if (*kind == "zip") {
    // The wrapper read the directory with zip.js; nothing of the zip is parsed here.
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<serde::ZipEntryRecord> records, get_zip_records(doc));
    PTEFORGE_ASSIGN_OR_RETURN(input.archive, open_js_zip(reader, src, *size, path, std::move(records)));
    input.zip_ = true;
    input.zip_source_ = src;
    PTEFORGE_TRY(detect_layout(input));
    return input;
  }
  // The same sniffing, messages and locations as the CLI's open_input.
  if (*size == 0) {
    return named_error(ErrorCode::INPUT_EMPTY, path,
                       "\"" + path + "\" is empty (0 bytes); expected a .pt2 archive or a program JSON");
  }
  std::string head(static_cast<size_t>(std::min<uint64_t>(*size, 512)), '\0');
  Location at;
  at.entry = path;
  PTEFORGE_TRY(reader.read(src, 0, reinterpret_cast<uint8_t*>(head.data()), head.size(), at));
  if (serde::looks_like_zip(head)) {
    // The same sniffing as the wrapper's (wasm/js/zip.mjs): it describes a
    // zip as kind "zip", with the entry table zip.js read.
    return wrapper_bug("\"" + path + "\" is a zip archive described as kind \"auto\"; the wrapper reads "
                       "archives with zip.js and describes them as kind \"zip\"");
  }
  serde::SniffReader read_more = [&](uint64_t offset, uint64_t length) -> Result<std::string> {
    std::string piece(static_cast<size_t>(length), '\0');
    PTEFORGE_TRY(reader.read(src, offset, reinterpret_cast<uint8_t*>(piece.data()), piece.size(), at));
    return piece;
  };
  PTEFORGE_ASSIGN_OR_RETURN(std::optional<char> first, serde::first_text_char(head, *size, read_more));
  if (first && (*first == '{' || *first == '[')) {
    const std::string entry = base_name(path).empty() ? std::string("model.json") : base_name(path);
    PTEFORGE_ASSIGN_OR_RETURN(std::unique_ptr<JsFilesArchive> archive,
                              JsFilesArchive::create(reader, {JsFile{entry, src, *size}}));
    input.archive = std::move(archive);
    input.layout = serde::program_json_layout(entry);
    return input;
  }
  if (!first) return named_error(ErrorCode::INPUT_EMPTY, path, serde::blank_input_message(path, head, *size));
  return named_error(ErrorCode::ARCHIVE_INVALID, path, serde::unrecognised_input_message(path, head));
}

}  // namespace pteforge::wasm
