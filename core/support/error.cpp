// Error, Location and the error-code table (see error.h).
#include "support/error.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace pteforge {
namespace {

/// Length of the valid UTF-8 sequence starting at s[i] (1-4), or 0 when the
/// byte there does not start one (RFC 3629: no overlongs, no surrogates, <= U+10FFFF).
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  }
  return n;
}

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

/// `text` with every byte that is not part of a valid UTF-8 sequence written
/// as "\\xNN" (two lowercase hex digits), so messages and JSON stay valid
/// text (e.g. a corrupted entry name).
std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_sequence(text, i);
    if (n == 0) {
      static const char kHex[] = "0123456789abcdef";
      const auto c = static_cast<unsigned char>(text[i]);
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
      continue;
    }
    out.append(text, i, n);
    i += n;
  }
  return out;
}

}  // namespace

std::string control_escaped(std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  auto escape = [&out](char c) {
    const auto u = static_cast<unsigned char>(c);
    out += "\\x";
    out += kHex[u >> 4];
    out += kHex[u & 15];
  };
  for (size_t i = 0; i < text.size();) {
    const auto u = static_cast<unsigned char>(text[i]);
    const size_t n = utf8_sequence(text, i);
    // C0 controls and DEL; C1 controls, as raw bytes (no UTF-8) or as
    // U+0080..U+009F (C2 80..C2 9F): some terminals act on both (0x9b is CSI).
    const bool c1 = n == 2 && u == 0xc2 && static_cast<unsigned char>(text[i + 1]) <= 0x9f;
    if (n == 0 || c1 || u < 0x20 || u == 0x7f) {
      const size_t len = n == 0 ? 1 : n;
      for (size_t k = 0; k < len; ++k) escape(text[i + k]);
      i += len;
      continue;
    }
    out.append(text, i, n);
    i += n;
  }
  return out;
}

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
    out += printable(value);
  };
  if (method) add("method", *method);
  if (entry) add("entry", *entry);
  if (byte_offset) add("byte_offset", std::to_string(*byte_offset));
  // The empty pointer (the whole document) is written "" so it still reads as a value.
  if (pointer) add("pointer", pointer->empty() ? std::string("\"\"") : *pointer);
  if (node) add("node", *node);
  if (pass) add("pass", *pass);
  if (source) add("source", *source);
  return out;
}

std::string Error::to_string() const {
  std::string out(error_code_name(code));
  out += ": ";
  // One line per message and note, whatever names they echo (a file name
  // with an escape sequence must not reach the terminal as one).
  out += control_escaped(printable(message));
  if (!where.empty()) {
    out += " (";
    out += control_escaped(where.to_string());
    out += ')';
  }
  for (const auto& note : notes) {
    out += "\n  note: ";
    out += control_escaped(printable(note));
  }
  return out;
}

void add_earlier_warning_notes(Error& err, const std::vector<Diagnostic>& warnings, size_t uncounted) {
  size_t shown = 0, rest = uncounted;
  for (const Diagnostic& d : warnings) {
    if (d.severity != "warning") continue;
    if (shown == kMaxEarlierWarningNotes) {
      ++rest;
      continue;
    }
    std::string note = "earlier warning: " + d.message;
    if (!d.where.empty()) note += " (" + d.where.to_string() + ")";
    err.notes.push_back(std::move(note));
    ++shown;
  }
  if (rest) {
    err.notes.push_back("and " + std::to_string(rest) + " more earlier warning" + (rest == 1 ? "" : "s"));
  }
}

std::string Diagnostic::to_string() const {
  std::string out = printable(severity);
  out += ": ";
  out += control_escaped(printable(message));  // one line, whatever names the message echoes
  if (!where.empty()) {
    out += " (";
    out += control_escaped(where.to_string());
    out += ')';
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
  w.String(printable(message));
  w.Key("where");
  w.StartObject();
  auto str = [&w](const char* key, const std::optional<std::string>& v) {
    if (v) {
      w.Key(key);
      w.String(printable(*v));
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
    for (const auto& n : notes) w.String(printable(n));
    w.EndArray();
  }
  w.EndObject();
  return buffer.GetString();
}

Error make_error(ErrorCode code, std::string message, Location where) {
  return Error{code, std::move(message), std::move(where), {}};
}

}  // namespace pteforge
