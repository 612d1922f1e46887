// Python json.dumps-style writer (see py_json_writer.h).
#include "serde/py_json_writer.h"

#include <charconv>
#include <cmath>

#include "ir/float_repr.h"

namespace pteforge::serde {
namespace {

void append_u16(std::string& out, uint32_t cp) {
  static const char* kHex = "0123456789abcdef";
  out += "\\u";
  out += kHex[(cp >> 12) & 0xF];
  out += kHex[(cp >> 8) & 0xF];
  out += kHex[(cp >> 4) & 0xF];
  out += kHex[cp & 0xF];
}

/// Decodes one UTF-8 sequence at s[i]; returns the code point and advances i.
/// Invalid bytes decode to U+FFFD.
uint32_t next_code_point(std::string_view s, size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || i + static_cast<size_t>(len) > s.size()) {
    ++i;
    return 0xFFFD;
  }
  uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k < len; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
    if ((cc & 0xC0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (cc & 0x3F);
  }
  i += static_cast<size_t>(len);
  return cp;
}

}  // namespace

std::string python_json_string(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; ++i; continue;
      case '\\': out += "\\\\"; ++i; continue;
      case '\n': out += "\\n"; ++i; continue;
      case '\r': out += "\\r"; ++i; continue;
      case '\t': out += "\\t"; ++i; continue;
      case '\b': out += "\\b"; ++i; continue;
      case '\f': out += "\\f"; ++i; continue;
      default: break;
    }
    uint32_t cp = next_code_point(s, i);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      append_u16(out, 0xD800 + (cp >> 10));
      append_u16(out, 0xDC00 + (cp & 0x3FF));
    } else {
      append_u16(out, cp);
    }
  }
  out += '"';
  return out;
}

void PyJsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ", ";
    first_.back() = false;
  }
}

void PyJsonWriter::begin_object() {
  before_value();
  out_ += '{';
  first_.push_back(true);
}

void PyJsonWriter::end_object() {
  out_ += '}';
  first_.pop_back();
}

void PyJsonWriter::begin_array() {
  before_value();
  out_ += '[';
  first_.push_back(true);
}

void PyJsonWriter::end_array() {
  out_ += ']';
  first_.pop_back();
}

void PyJsonWriter::key(std::string_view k) {
  before_value();
  out_ += python_json_string(k);
  out_ += ": ";
  after_key_ = true;
}

void PyJsonWriter::string(std::string_view s) {
  before_value();
  out_ += python_json_string(s);
}

void PyJsonWriter::int64(int64_t v) {
  before_value();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out_.append(buf, r.ptr);
}

void PyJsonWriter::uint64(uint64_t v) {
  before_value();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out_.append(buf, r.ptr);
}

void PyJsonWriter::boolean(bool v) {
  before_value();
  out_ += v ? "true" : "false";
}

void PyJsonWriter::null() {
  before_value();
  out_ += "null";
}

void PyJsonWriter::float64(double v) {
  before_value();
  if (std::isnan(v) || std::isinf(v)) {
    const char* text = std::isnan(v) ? "NaN" : (v < 0 ? "-Infinity" : "Infinity");
    if (non_finite_ == NonFinite::Bare) {
      out_ += text;
    } else {
      out_ += '"';
      out_ += text;
      out_ += '"';
    }
  } else {
    out_ += ir::python_float_repr(v);
  }
}

void PyJsonWriter::raw(std::string_view json_text) {
  before_value();
  out_ += json_text;
}

namespace {
Status write_value_at(PyJsonWriter& w, const rapidjson::Value& v, int depth, int max_depth) {
  if (depth > max_depth) {
    return make_error(ErrorCode::INPUT_SCHEMA, "JSON value nested deeper than " + std::to_string(max_depth) + " levels");
  }
  switch (v.GetType()) {
    case rapidjson::kNullType: w.null(); break;
    case rapidjson::kFalseType: w.boolean(false); break;
    case rapidjson::kTrueType: w.boolean(true); break;
    case rapidjson::kStringType: w.string(std::string_view(v.GetString(), v.GetStringLength())); break;
    case rapidjson::kNumberType:
      if (v.IsInt64()) {
        w.int64(v.GetInt64());
      } else if (v.IsUint64()) {
        w.uint64(v.GetUint64());
      } else {
        w.float64(v.GetDouble());
      }
      break;
    case rapidjson::kArrayType:
      w.begin_array();
      for (const auto& e : v.GetArray()) PTEFORGE_TRY(write_value_at(w, e, depth + 1, max_depth));
      w.end_array();
      break;
    case rapidjson::kObjectType:
      w.begin_object();
      for (const auto& m : v.GetObject()) {
        w.key(std::string_view(m.name.GetString(), m.name.GetStringLength()));
        PTEFORGE_TRY(write_value_at(w, m.value, depth + 1, max_depth));
      }
      w.end_object();
      break;
  }
  return Status::Ok();
}
}  // namespace

Status write_json_value(PyJsonWriter& w, const rapidjson::Value& v, int max_depth) {
  return write_value_at(w, v, 0, max_depth);
}

}  // namespace pteforge::serde
