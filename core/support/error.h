// Error values: the one error type of pteforge, its location, and Result<T>.
//
// Errors are values (design.md "Decisions"): every fallible core function
// returns Result<T> or Status; nothing throws across module boundaries and the
// WASM build has no exception support. An Error carries a stable code from
// error_codes.def, a message saying what was expected and what was found, and
// a Location naming the place in the input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace pteforge {

/// Stable error codes; the table is error_codes.def.
enum class ErrorCode {
#define X(code, summary) code,
#include "support/error_codes.def"
#undef X
};

/// The UPPER_SNAKE name of a code, e.g. "INPUT_SCHEMA".
std::string_view error_code_name(ErrorCode code);
/// `s` in single quotes, for messages ('x'). Appends instead of chaining
/// operator+ (GCC 12 reports a false -Wrestrict for "'" + std::string(s) + "'").
inline std::string single_quoted(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '\'';
  out += s;
  out += '\'';
  return out;
}
/// `text` cut to at most `max_chars` bytes for a message: longer text keeps
/// its first max_chars - 3 bytes (never ending inside a UTF-8 sequence) and
/// "..." (a size naming thousands of symbols must not make a megabyte line).
inline std::string clipped(std::string text, size_t max_chars = 80) {
  if (text.size() <= max_chars || max_chars < 3) return text;
  size_t keep = max_chars - 3;
  while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
  text.resize(keep);
  text += "...";
  return text;
}
/// "1 output", "3 outputs": `n` and `noun`, plural with an "s" unless n is 1.
inline std::string counted(size_t n, std::string_view noun) {
  std::string out = std::to_string(n);
  out += ' ';
  out += noun;
  if (n != 1) out += 's';
  return out;
}
/// `text` with each control character (bytes 0x00-0x1f and 0x7f, and the C1
/// controls: U+0080..U+009F in UTF-8) and each byte that is not UTF-8
/// written as "\xNN" (two lowercase hex digits), for names echoed in
/// messages that go to a terminal (an archive entry name, a mistyped command).
std::string control_escaped(std::string_view text);
/// One-line description of a code, from error_codes.def.
std::string_view error_code_summary(ErrorCode code);
/// Parses an UPPER_SNAKE name back into a code; nullopt when unknown.
std::optional<ErrorCode> error_code_from_name(std::string_view name);
/// Every code in table order (for docs and the JS typings test).
const std::vector<ErrorCode>& all_error_codes();

/// Where in the input an error or diagnostic points. Every key is optional;
/// the key names are fixed by design.md and appear as-is in JSON ("where").
struct Location {
  std::optional<std::string> pointer;      ///< RFC 6901 JSON pointer into the input document
  std::optional<std::string> node;         ///< FX node name
  std::optional<std::string> entry;        ///< archive entry name (or file path)
  std::optional<uint64_t> byte_offset;     ///< byte offset within the entry/document
  std::optional<std::string> method;       ///< method (program) name
  std::optional<std::string> source;       ///< first stack_trace frame of the node
  std::optional<std::string> pass;         ///< pass that raised it

  bool empty() const {
    return !pointer && !node && !entry && !byte_offset && !method && !source && !pass;
  }
  /// Fills every key of `self` that is unset from `outer` (outer context wins nothing).
  Location& merge_missing(const Location& outer);
  /// "pointer=/a/b node=x ..." in key order; empty string when empty.
  std::string to_string() const;
};

/// The error type. `notes` add context lines (e.g. "nearest supported op: ...").
struct Error {
  ErrorCode code = ErrorCode::INTERNAL;
  std::string message;
  Location where;
  std::vector<std::string> notes;

  /// "CODE: message (where: ...)" plus notes, one per line.
  std::string to_string() const;
  /// {"code":..., "message":..., "where":{...}, "notes":[...]} (keys omitted when empty).
  std::string to_json() const;
};

/// A warning or remark (from the importer or a pass), with its location.
struct Diagnostic {
  std::string severity;  ///< "warning" or "remark"
  std::string message;
  Location where;

  /// "severity: message (key=value ...)" on one line, as the CLI prints it
  /// to stderr, e.g. "warning: ... (method=forward pass=decompose)": control
  /// characters in the message and the location (a newline in an echoed
  /// name or JSON key) are written as \xNN, bytes that are not UTF-8 too.
  std::string to_string() const;
};

/// Builds an Error; `where` may be filled in afterwards by callers that know more.
Error make_error(ErrorCode code, std::string message, Location where = {});

/// At most this many earlier warnings become notes of an error.
inline constexpr size_t kMaxEarlierWarningNotes = 8;

/// Appends the warnings raised before `err` as its notes: "earlier warning:
/// MESSAGE (where)" for the first kMaxEarlierWarningNotes of `warnings`
/// (other severities are skipped), then "and N more earlier warnings" for the
/// rest plus `uncounted` (warnings not kept). A failed conversion returns no
/// report, and a warning (a newer schema, an ignored field) often explains
/// the error.
void add_earlier_warning_notes(Error& err, const std::vector<Diagnostic>& warnings, size_t uncounted = 0);

/// Value or Error. [[nodiscard]]: a dropped Result is a bug.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }

  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

/// Success or Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  static Status Ok() { return Status(); }

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const& { return *error_; }
  Error&& error() && { return std::move(*error_); }

 private:
  std::optional<Error> error_;
};

}  // namespace pteforge

#define PTEFORGE_CONCAT_INNER_(a, b) a##b
#define PTEFORGE_CONCAT_(a, b) PTEFORGE_CONCAT_INNER_(a, b)

/// PTEFORGE_TRY(expr): evaluates a Status or Result expression and returns its
/// Error from the enclosing function when it failed.
#define PTEFORGE_TRY(expr)                                     \
  do {                                                         \
    auto&& pteforge_try_tmp_ = (expr);                         \
    if (!pteforge_try_tmp_.ok()) {                             \
      return std::move(pteforge_try_tmp_).error();             \
    }                                                          \
  } while (0)

/// PTEFORGE_ASSIGN_OR_RETURN(lhs, expr): `lhs = value of expr` or return its Error.
#define PTEFORGE_ASSIGN_OR_RETURN(lhs, expr)                                        \
  auto PTEFORGE_CONCAT_(pteforge_res_, __LINE__) = (expr);                          \
  if (!PTEFORGE_CONCAT_(pteforge_res_, __LINE__).ok()) {                            \
    return std::move(PTEFORGE_CONCAT_(pteforge_res_, __LINE__)).error();            \
  }                                                                                 \
  lhs = std::move(PTEFORGE_CONCAT_(pteforge_res_, __LINE__)).value()
