// A JSON writer that produces Python's json.dumps() default style:
// separators ", " and ": ", non-ASCII escaped as \uXXXX (lowercase hex),
// floats as Python repr, non-finite floats as the strings "NaN",
// "Infinity", "-Infinity" (torch.export's convention, §2.8). This is the
// style of every JSON document in a .pt2 archive (§1.3), so a program read
// and written back is byte-identical.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace pteforge::serde {

class PyJsonWriter {
 public:
  /// How NaN and infinities are written: as torch.export's serializer writes
  /// them (the strings "NaN", "Infinity", "-Infinity"), or as json.dumps
  /// writes them (the bare literals NaN, Infinity, -Infinity).
  enum class NonFinite { TorchStrings, Bare };
  /// Appends to `out`.
  explicit PyJsonWriter(std::string& out, NonFinite non_finite = NonFinite::TorchStrings)
      : out_(out), non_finite_(non_finite) {}

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  /// An object key; the next call writes its value.
  void key(std::string_view k);
  void string(std::string_view s);
  void int64(int64_t v);
  void uint64(uint64_t v);
  void boolean(bool v);
  void null();
  /// Finite: Python repr ("0.2", "1e-05", "1.0"); NaN / ±inf: "NaN" / "Infinity" / "-Infinity"
  /// (strings, or bare literals with NonFinite::Bare).
  void float64(double v);
  /// A value given as JSON text, copied verbatim.
  void raw(std::string_view json_text);

 private:
  void before_value();
  std::string& out_;
  NonFinite non_finite_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

/// `s` as a JSON string literal in Python's ensure_ascii style.
std::string python_json_string(std::string_view s);

/// Writes a RapidJSON value in Python style. INPUT_SCHEMA when nested deeper than `max_depth`.
Status write_json_value(PyJsonWriter& w, const rapidjson::Value& v, int max_depth = 256);

}  // namespace pteforge::serde
