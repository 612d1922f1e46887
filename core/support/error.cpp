// Error, Location and the error-code table (see error.h).
#include "support/error.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace pteforge {
namespace {

struct CodeInfo {
  ErrorCode code;
  std::string_view name;
  std::string_view summary;
};

const std::vector<CodeInfo>& code_table() {
  static const std::vector<CodeInfo> table = {
#define X(code, summary) {ErrorCode::code, #code, summary},
#include "support/error_codes.def"
#undef X
  };
  return table;
}

}  // namespace

std::string_view error_code_name(ErrorCode code) {
  return code_table()[static_cast<size_t>(code)].name;
}

std::string_view error_code_summary(ErrorCode code) {
  return code_table()[static_cast<size_t>(code)].summary;
}

std::optional<ErrorCode> error_code_from_name(std::string_view name) {
  for (const auto& info : code_table()) {
    if (info.name == name) return info.code;
  }
  return std::nullopt;
}

const std::vector<ErrorCode>& all_error_codes() {
  static const std::vector<ErrorCode> codes = [] {
    std::vector<ErrorCode> out;
    for (const auto& info : code_table()) out.push_back(info.code);
    return out;
  }();
  return codes;
}

Location& Location::merge_missing(const Location& outer) {
  if (!pointer) pointer = outer.pointer;
  if (!node) node = outer.node;
  if (!entry) entry = outer.entry;
  if (!byte_offset) byte_offset = outer.byte_offset;
  if (!method) method = outer.method;
  if (!source) source = outer.source;
  if (!pass) pass = outer.pass;
  return *this;
}

std::string Location::to_string() const {
  std::string out;
  auto add = [&out](std::string_view key, const std::string& value) {
    if (!out.empty()) out += ' ';
    out += key;
    out += '=';
    out += value;
  };
  if (method) add("method", *method);
  if (entry) add("entry", *entry);
  if (byte_offset) add("byte_offset", std::to_string(*byte_offset));
  if (pointer) add("pointer", *pointer);
  if (node) add("node", *node);
  if (pass) add("pass", *pass);
  if (source) add("source", *source);
  return out;
}

std::string Error::to_string() const {
  std::string out(error_code_name(code));
  out += ": ";
  out += message;
  if (!where.empty()) {
    out += " (";
    out += where.to_string();
    out += ')';
  }
  for (const auto& note : notes) {
    out += "\n  note: ";
    out += note;
  }
  return out;
}

std::string Error::to_json() const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("code");
  w.String(error_code_name(code).data(), static_cast<rapidjson::SizeType>(error_code_name(code).size()));
  w.Key("message");
  w.String(message);
  w.Key("where");
  w.StartObject();
  auto str = [&w](const char* key, const std::optional<std::string>& v) {
    if (v) {
      w.Key(key);
      w.String(*v);
    }
  };
  str("pointer", where.pointer);
  str("node", where.node);
  str("entry", where.entry);
  if (where.byte_offset) {
    w.Key("byte_offset");
    w.Uint64(*where.byte_offset);
  }
  str("method", where.method);
  str("source", where.source);
  str("pass", where.pass);
  w.EndObject();
  if (!notes.empty()) {
    w.Key("notes");
    w.StartArray();
    for (const auto& n : notes) w.String(n);
    w.EndArray();
  }
  w.EndObject();
  return buffer.GetString();
}

Error make_error(ErrorCode code, std::string message, Location where) {
  return Error{code, std::move(message), std::move(where), {}};
}

}  // namespace pteforge
