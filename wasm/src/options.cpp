// Options from JS (see options.h).
#include "options.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <utility>

namespace pteforge::wasm {

Result<OptionsReader> OptionsReader::parse(std::string_view json) {
  auto doc = serde::JsonDocument::parse(std::string(json));
  if (!doc.ok()) {
    Error e = std::move(doc).error();
    e.code = ErrorCode::OPTION_INVALID;
    if (e.message.rfind("JSON nested deeper than", 0) == 0) {
      // The text is the wrapper's JSON.stringify of the options: its offset means nothing to the caller.
      e.message = "options are nested deeper than " + std::to_string(serde::kMaxJsonDepth) + " levels";
      e.where = Location();
      return e;
    }
    e.message = "options are not valid JSON: " + e.message;
    return e;
  }
  OptionsReader reader(std::move(doc).value());
  if (!reader.root().is_object()) {
    return reader.invalid(reader.root(), "options must be an object, not " +
                                             std::string(serde::json_type_name(reader.root().value())));
  }
  return reader;
}

Error OptionsReader::invalid(const serde::JsonCursor& at, std::string message) const {
  Location where;
  where.pointer = at.pointer();
  return make_error(ErrorCode::OPTION_INVALID, std::move(message), std::move(where));
}

std::optional<serde::JsonCursor> OptionsReader::take(std::string_view key) {
  read_.emplace_back(key);
  auto found = root().find(key);
  if (found && found->is_null()) return std::nullopt;  // null = not given (JSON.stringify of undefined drops it)
  return found;
}

Result<std::string> OptionsReader::get_string(std::string_view key, std::string fallback) {
  auto v = take(key);
  if (!v) return fallback;
  if (!v->is_string()) return invalid(*v, "option " + std::string(key) + " must be a string");
  return std::string(v->value().GetString(), v->value().GetStringLength());
}

Result<bool> OptionsReader::get_bool(std::string_view key, bool fallback) {
  auto v = take(key);
  if (!v) return fallback;
  if (!v->value().IsBool()) return invalid(*v, "option " + std::string(key) + " must be true or false");
  return v->value().GetBool();
}

Result<uint64_t> OptionsReader::get_size(std::string_view key, uint64_t fallback) {
  auto v = take(key);
  if (!v) return fallback;
  if (!v->value().IsUint64()) return invalid(*v, "option " + std::string(key) + " must be a non-negative integer");
  return v->value().GetUint64();
}

Result<std::vector<std::string>> OptionsReader::get_strings(std::string_view key) {
  std::vector<std::string> out;
  auto v = take(key);
  if (!v) return out;
  if (!v->is_array()) return invalid(*v, "option " + std::string(key) + " must be a list of strings");
  for (const auto& item : v->value().GetArray()) {
    if (!item.IsString()) return invalid(v->with(item), "option " + std::string(key) + " must be a list of strings");
    out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

std::string compact_json(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

Status OptionsReader::reject_unknown() const {
  for (auto it = doc_->root().MemberBegin(); it != doc_->root().MemberEnd(); ++it) {
    std::string_view key(it->name.GetString(), it->name.GetStringLength());
    if (std::find(read_.begin(), read_.end(), key) == read_.end()) {
      Location where;
      where.pointer = "/" + serde::escape_pointer_token(key);
      return make_error(ErrorCode::OPTION_INVALID, "unknown option \"" + std::string(key) + "\"", std::move(where));
    }
  }
  return Status::Ok();
}

}  // namespace pteforge::wasm
