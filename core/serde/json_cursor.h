// JSON reading with places: a parsed document that can name any of its
// values by RFC 6901 JSON pointer, and a cursor whose accessors return
// Result with that pointer on failure (engineering-notes D6).
//
// Cursors are two pointers (document, value) and never build path strings on
// the happy path; the pointer of a value is computed only when an error or a
// warning needs it, by searching the document (iteratively, so deeply nested
// input cannot overflow the stack).
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace pteforge::serde {

/// RFC 6901 escaping of one reference token: "~" → "~0", "/" → "~1".
std::string escape_pointer_token(std::string_view token);
/// JSON type of a value for messages: "an object", "an array", "a string", "a number", "a boolean", "null".
std::string_view json_type_name(const rapidjson::Value& v);
/// RapidJSON's words for parse error `code` at byte `offset` of `text`,
/// except that a raw control character inside a string (which RapidJSON calls
/// an invalid escape) is named with the escape to write instead:
/// "unescaped control character 0x01 in a string (write it as \u0001).",
/// and an error at the end of `text` says that the document is cut short:
/// "Invalid value: the JSON text ends too early"; a byte order mark at the
/// start is named as such.
std::string json_parse_error_text(rapidjson::ParseErrorCode code, size_t offset, std::string_view text);
/// `name` after its indefinite article, for messages: "an ExportedProgram",
/// "a Graph" (by the first letter: "an" before a vowel).
std::string with_article(std::string_view name);

/// The value of the strings "NaN", "Infinity" and "-Infinity", which program
/// JSON writes for non-finite floats (§2.8); nullopt for any other string.
std::optional<double> nonfinite_from_string(std::string_view s);

/// True when `text` holds a raw byte 0x1A..0x1F (16 bytes per step with SSE2
/// or WebAssembly SIMD). RapidJSON 1.1.0's SIMD string scan (RAPIDJSON_SSE2)
/// lets such a byte through inside a string where its scalar code reports
/// it, so readers that use the SIMD scan leave such text to scalar code.
bool has_simd_scan_blind_bytes(std::string_view text);
/// Copies `text` to `out` (text.size() bytes) in the same pass as the check
/// of has_simd_scan_blind_bytes. False when it finds such a byte; `out` then
/// holds only a prefix.
bool copy_unless_simd_scan_blind_bytes(std::string_view text, char* out);

/// RapidJSON parse flags of the program JSON readers (JsonDocument::parse and
/// the streaming reader, serde/stream_graph.h): NaN/Infinity tokens (old
/// files), numbers handed over as text (forward_raw_number reads them), in
/// situ. The readers must use the same flags so that they accept the same
/// texts. Not kParseFullPrecisionFlag: RapidJSON 1.1.0's full-precision
/// reader misreads some literals (1e-325) and reads out of bounds on a long
/// mantissa with a tiny exponent (1.00000000000000000000001e-330 crashed).
///
/// Natively the parser is RapidJSON's recursive one (about 15% faster than
/// its iterative one; kMaxJsonDepth levels use well under 1 MiB of an 8 MiB
/// stack). Under WebAssembly it is the iterative one: wasm frames live on the
/// JavaScript engine's own stack (about 1 MiB in Node and browsers), where an
/// unoptimized build overflowed at kMaxJsonDepth levels. Both accept and
/// reject the same texts (tests/fixtures/errors run in both builds).
inline constexpr unsigned kProgramJsonParseFlags =
    rapidjson::kParseNanAndInfFlag | rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseInsituFlag
#if defined(__EMSCRIPTEN__)
    | rapidjson::kParseIterativeFlag
#endif
    ;

/// The number event RapidJSON would send for the JSON number text `s` (`n`
/// bytes, not NUL-terminated), as kParseNumbersAsStringsFlag hands it over:
/// an integer to Int (negative, fits int32), Uint (fits uint32), Int64 or
/// Uint64, one past those and every fraction or exponent to Double with
/// strtod's correctly rounded value (±inf past the range, 0 below it, as
/// Python reads it); NaN, Infinity, -Infinity (the words of
/// kParseNanAndInfFlag that Python's json reads too) to Double. The flag's
/// other words, -NaN and a bare Inf or -Inf, are refused (false), as Python
/// refuses them (neutralize_oversized_numbers marks them for the DOM reader's
/// error). Returns what the handler returns.
template <typename Handler>
bool forward_raw_number(Handler& h, const char* s, size_t n) {
  const bool negative = n > 0 && s[0] == '-';
  size_t k = negative ? 1 : 0;
  if (k < n && (s[k] == 'N' || s[k] == 'I')) {  // NaN, Inf, Infinity
    const std::string_view word(s + k, n - k);
    if (word == "NaN" && !negative) return h.Double(std::numeric_limits<double>::quiet_NaN());
    if (word != "Infinity") return false;
    return h.Double(negative ? -std::numeric_limits<double>::infinity()
                             : std::numeric_limits<double>::infinity());
  }
  // Integers in one pass (most numbers of a program are): digits only, no overflow.
  uint64_t v = 0;
  for (; k < n; ++k) {
    const unsigned d = static_cast<unsigned>(static_cast<unsigned char>(s[k])) - '0';
    if (d > 9 || v > (UINT64_MAX - d) / 10) break;  // a fraction or exponent, or past uint64
    v = v * 10 + d;
  }
  if (k == n) {
    if (!negative) return v <= UINT32_MAX ? h.Uint(static_cast<unsigned>(v)) : h.Uint64(v);
    if (v <= 2147483648ULL) return h.Int(static_cast<int>(-static_cast<int64_t>(v)));
    if (v <= 9223372036854775808ULL) return h.Int64(static_cast<int64_t>(0 - v));
  }
  // strtod needs a NUL-terminated copy (the text goes on after the number).
  char small[64];
  std::string large;
  const char* z = small;
  if (n < sizeof small) {
    std::memcpy(small, s, n);
    small[n] = '\0';
  } else {
    large.assign(s, n);
    z = large.c_str();
  }
  return h.Double(std::strtod(z, nullptr));
}

/// Deepest nesting of objects and arrays that JsonDocument::parse accepts.
/// A torch.export program at the importer's own limit of 64 nested subgraphs
/// is under 500 levels deep; the bound keeps the recursive parser's stack
/// small (natively; WebAssembly parses iteratively, see kProgramJsonParseFlags).
inline constexpr size_t kMaxJsonDepth = 1024;

/// Forwards RapidJSON's SAX events to a Document (numbers given as text read
/// by forward_raw_number) and refuses to open an object or array more than
/// `max_depth` levels deep. RapidJSON's recursive parser calls
/// StartObject/StartArray before it recurses into a container, so refusing
/// there stops it before its stack grows any further; the document it leaves
/// is as shallow (its destructor recurses too).
class DepthLimitedHandler {
 public:
  explicit DepthLimitedHandler(rapidjson::Document& doc, size_t max_depth = kMaxJsonDepth)
      : doc_(doc), max_depth_(max_depth) {}
  bool too_deep() const { return too_deep_; }
  /// The number literals neutralize_oversized_numbers replaced in `text`
  /// (the buffer being parsed): each is read from its original text.
  void restore_numbers(const char* text, const std::map<size_t, std::string>* originals) {
    text_ = text;
    originals_ = originals;
  }

  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned i) { return doc_.Uint(i); }
  bool Int64(int64_t i) { return doc_.Int64(i); }
  bool Uint64(uint64_t i) { return doc_.Uint64(i); }
  bool Double(double d) { return doc_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    if (originals_ && !originals_->empty()) {
      auto it = originals_->find(static_cast<size_t>(s - text_));
      if (it != originals_->end()) return forward_raw_number(*this, it->second.data(), it->second.size());
    }
    return forward_raw_number(*this, s, n);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return doc_.String(s, n, copy); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return doc_.Key(s, n, copy); }
  bool StartObject() { return enter() && doc_.StartObject(); }
  bool EndObject(rapidjson::SizeType n) {
    --depth_;
    return doc_.EndObject(n);
  }
  bool StartArray() { return enter() && doc_.StartArray(); }
  bool EndArray(rapidjson::SizeType n) {
    --depth_;
    return doc_.EndArray(n);
  }

 private:
  bool enter() {
    if (depth_ >= max_depth_) {
      too_deep_ = true;
      return false;
    }
    ++depth_;
    return true;
  }

  rapidjson::Document& doc_;
  size_t max_depth_;
  size_t depth_ = 0;
  bool too_deep_ = false;
  const char* text_ = nullptr;
  const std::map<size_t, std::string>* originals_ = nullptr;
};

/// Overwrites, in `text`, each number literal (outside strings) that
/// RapidJSON 1.1.0 refuses with kParseErrorNumberTooBig although it is JSON
/// (an integer part of 309 digits or more, or a positive exponent past 308
/// plus the fraction's digits) with "0" and spaces, the same length, so every
/// offset stays; returns offset -> original literal, for
/// DepthLimitedHandler::restore_numbers. The margin is wide (300 digits, an
/// exponent of 300): a literal replaced without need is read back the same.
/// So 1e400 reads as infinity and a 400-digit integer as a double, as
/// forward_raw_number reads every literal past uint64 (Python's json reads
/// them as inf and an int; the importer then names the place that cannot
/// take them).
/// Words RapidJSON's kParseNanAndInfFlag takes but Python's json refuses
/// (-NaN, a bare Inf or -Inf) get their first byte replaced by '#', which
/// the parser refuses there, and are in the map too: refused_word_text() words it.
std::map<size_t, std::string> neutralize_oversized_numbers(std::string& text);

/// The error text for a word neutralize_oversized_numbers marked (`original`
/// is its entry), e.g. "-NaN: NaN has no sign"; "" for a number literal.
std::string refused_word_text(std::string_view original);

namespace detail {
/// Frees JsonDocument::allocate_text's buffers.
struct TextDeleter {
  size_t mapped = 0;  ///< bytes mapped with mmap; 0: allocated with new[]
  void operator()(char* p) const;
};
}  // namespace detail

/// A parsed JSON document.
class JsonDocument {
 public:
  /// Parses UTF-8 JSON text with RapidJSON's recursive parser, bounded to
  /// kMaxJsonDepth levels, numbers read as Python reads them (correctly
  /// rounded; past the double range an infinity: neutralize_oversized_numbers,
  /// forward_raw_number), and the non-standard tokens NaN / Infinity /
  /// -Infinity accepted as numbers. The text must be UTF-8 (checked first,
  /// find_invalid_utf8). It is parsed in place (faster than copying every
  /// string into the DOM).
  /// Errors: INPUT_EMPTY (empty or whitespace only), INPUT_NOT_JSON ("invalid
  /// UTF-8: ..." at the bad sequence's offset, or the message from RapidJSON,
  /// where.byte_offset = offset of the error), INPUT_SCHEMA
  /// "JSON nested deeper than 1024 levels" (where.byte_offset = the opening
  /// bracket that goes too deep).
  /// Pass the text by std::move when the caller no longer needs it (no copy then).
  static Result<std::unique_ptr<JsonDocument>> parse(std::string text);

  /// The RapidJSON document and the text its strings point into, for a
  /// reader that fills them itself from SAX events (serde/stream_graph.h);
  /// parse() fills them otherwise.
  rapidjson::Document& dom() { return doc_; }
  /// An uninitialised buffer of `size` bytes, owned by the document, for the
  /// text such a reader parses in place. Call it once, before filling dom():
  /// the document's strings point into the buffer. On Linux, buffers of 8 MiB
  /// and more are mapped with transparent huge pages where the system allows
  /// them (one page fault per 2 MiB instead of per 4 KiB). nullptr when out
  /// of memory.
  char* allocate_text(size_t size);
  /// Takes `text` as the buffer such a reader parses in place (instead of a
  /// copy from allocate_text) and returns its first byte; the std::string's
  /// own NUL terminator ends the parse. Call it once, before filling dom().
  char* adopt_text(std::string text);

  const rapidjson::Value& root() const { return doc_; }
  /// JSON pointer of `v`, a value inside this document ("" for the root).
  /// O(document size): meant for error paths.
  std::string pointer_of(const rapidjson::Value* v) const;
  /// Pointers of several values with one search; "" for values not found.
  std::vector<std::string> pointers_of(const std::vector<const rapidjson::Value*>& targets) const;

 private:
  std::string buffer_;  // the text, parsed in place (strings of doc_ point into it)
  std::unique_ptr<char[], detail::TextDeleter> copy_;  // or a copy of it (allocate_text)
  rapidjson::Document doc_;
};

/// A value inside a JsonDocument.
class JsonCursor {
 public:
  JsonCursor(const JsonDocument& doc, const rapidjson::Value& v) : doc_(&doc), v_(&v) {}

  const rapidjson::Value& value() const { return *v_; }
  const JsonDocument& document() const { return *doc_; }
  /// JSON pointer of this value (computed; see JsonDocument::pointer_of).
  std::string pointer() const { return doc_->pointer_of(v_); }

  bool is_null() const { return v_->IsNull(); }
  bool is_object() const { return v_->IsObject(); }
  bool is_array() const { return v_->IsArray(); }
  bool is_string() const { return v_->IsString(); }

  /// A cursor on another value of the same document.
  JsonCursor with(const rapidjson::Value& v) const { return JsonCursor(*doc_, v); }
  /// Member `key`. INPUT_SCHEMA when this is not an object or the key is missing.
  Result<JsonCursor> field(std::string_view key) const;
  /// Member `key`, or nullopt when this is not an object or has no such key.
  std::optional<JsonCursor> find(std::string_view key) const;
  /// Element `index`. INPUT_SCHEMA when this is not an array or index is out of range.
  Result<JsonCursor> at(size_t index) const;
  /// Number of elements. INPUT_SCHEMA when this is not an array.
  Result<size_t> array_size() const;
  /// INPUT_SCHEMA unless this is an object.
  Status expect_object() const;
  /// INPUT_SCHEMA unless this is an array.
  Status expect_array() const;

  /// The string (a view into the document). INPUT_SCHEMA when not a string.
  Result<std::string_view> as_string() const;
  /// An integer in int64 range. INPUT_SCHEMA for other types, fractions, and
  /// integers outside int64.
  Result<int64_t> as_int() const;
  /// A number, or one of the strings "NaN", "Infinity", "-Infinity" (§2.8).
  Result<double> as_float() const;
  Result<bool> as_bool() const;

  /// An error pointing at this value.
  Error error(ErrorCode code, std::string message) const;
  /// An error pointing at member `key` of this object (which may be missing).
  Error error_at_key(std::string_view key, ErrorCode code, std::string message) const;

 private:
  const JsonDocument* doc_;
  const rapidjson::Value* v_;
};

}  // namespace pteforge::serde
