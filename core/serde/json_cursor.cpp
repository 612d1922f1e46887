// JsonDocument and JsonCursor (see json_cursor.h).
#include "serde/json_cursor.h"

#include <rapidjson/error/en.h>

#include <algorithm>
#include <cmath>
#include <new>
#include <unordered_map>

#include "serde/json_text.h"
#include "support/utf8.h"

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
#endif

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace pteforge::serde {
namespace {

// NaN/Infinity tokens: old files (§2.8, §9.3). Numbers as text, read by
// forward_raw_number: doubles round-trip exactly. RapidJSON does not validate UTF-8 here (that costs a
// sixth of the parse): find_invalid_utf8 checks the whole text first, 32
// ASCII bytes at a time (about a tenth of the parse).
// In situ: strings are decoded inside our copy of the text instead of being
// copied one by one. Recursive natively, iterative under WebAssembly
// (json_cursor.h says why): DepthLimitedHandler bounds the nesting either way.
// These are kProgramJsonParseFlags, shared with the streaming reader.

/// Two upper-case hex digits of `byte` ("1F"), for messages.
std::string hex_digits(unsigned char byte) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  return {kHex[byte >> 4], kHex[byte & 15]};
}

/// Parses `stream` (in situ over `text`) into `doc` (kProgramJsonParseFlags, depth-limited).
/// Errors as JsonDocument::parse documents them.
template <typename Stream>
Status parse_into(rapidjson::Document& doc, Stream& stream, std::string_view text,
                  const std::map<size_t, std::string>& originals) {
  rapidjson::Reader reader;
  DepthLimitedHandler handler(doc);
  handler.restore_numbers(text.data(), &originals);
  rapidjson::ParseResult result;
  auto generate = [&](rapidjson::Document&) {
    result = reader.Parse<kProgramJsonParseFlags>(stream, handler);
    return !result.IsError();
  };
  doc.Populate(generate);
  if (!result.IsError()) return Status::Ok();
  Location where;
  where.byte_offset = result.Offset();
  if (handler.too_deep()) {
    // The recursive parser reports the offset just past the bracket it had
    // consumed, the iterative one the bracket's own offset.
    constexpr bool kPastBracket = (kProgramJsonParseFlags & rapidjson::kParseIterativeFlag) == 0;
    if (kPastBracket && where.byte_offset && *where.byte_offset > 0) --*where.byte_offset;
    return make_error(ErrorCode::INPUT_SCHEMA,
                      "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels", where);
  }
  // A word neutralize_oversized_numbers marked is refused where it starts.
  if (auto marked = originals.find(result.Offset()); marked != originals.end()) {
    if (std::string why = refused_word_text(marked->second); !why.empty()) {
      return make_error(ErrorCode::INPUT_NOT_JSON, "JSON syntax error: " + why, where);
    }
  }
  // The byte at the offset is still intact: in-situ decoding only writes
  // behind the read position.
  return make_error(ErrorCode::INPUT_NOT_JSON,
                    "JSON syntax error: " + json_parse_error_text(result.Code(), result.Offset(), text),
                    where);
}

#if defined(RAPIDJSON_SSE2)
// The WASM build compiles this file with RapidJSON's SSE2 string scanning
// (core/CMakeLists.txt). RapidJSON 1.1.0's SIMD test for a control character
// is `byte <= 0x19`, so a raw 0x1A..0x1F inside a string goes through
// unreported, where the scalar parser (and the native CLI) report "Invalid
// escape character in string". Text holding such a byte anywhere is parsed
// by the scalar code instead, so both builds accept and reject the same
// documents with the same errors.

/// An in-situ stream that RapidJSON's SIMD overloads (which take
/// InsituStringStream exactly) do not match: its parse is the scalar one.
struct ScalarInsituStream : rapidjson::InsituStringStream {
  explicit ScalarInsituStream(char* text) : rapidjson::InsituStringStream(text) {}
};
#endif

std::string describe(const rapidjson::Value& v) {
  std::string out(json_type_name(v));
  if (v.IsString()) {
    std::string_view s(v.GetString(), v.GetStringLength());
    if (s.size() > 40) {
      size_t cut = 40;
      while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
      s = s.substr(0, cut);
    }
    out += " \"" + std::string(s) + (v.GetStringLength() > s.size() ? "...\"" : "\"");
  }
  return out;
}

/// Calls visit(value, path) for every value in document order until it returns true.
template <typename F>
void walk(const rapidjson::Value& root, F&& visit) {
  std::string path;
  if (visit(&root, path)) return;
  struct Frame {
    const rapidjson::Value* container;
    rapidjson::SizeType next;
    size_t path_len;
  };
  std::vector<Frame> stack;
  if ((root.IsObject() && root.MemberCount() > 0) || (root.IsArray() && !root.Empty())) {
    stack.push_back({&root, 0, 0});
  }
  while (!stack.empty()) {
    Frame& f = stack.back();
    const rapidjson::Value* child = nullptr;
    path.resize(f.path_len);
    path += '/';
    if (f.container->IsObject()) {
      if (f.next >= f.container->MemberCount()) {
        stack.pop_back();
        continue;
      }
      const auto& m = *(f.container->MemberBegin() + f.next);
      path += escape_pointer_token(std::string_view(m.name.GetString(), m.name.GetStringLength()));
      child = &m.value;
    } else {
      if (f.next >= f.container->Size()) {
        stack.pop_back();
        continue;
      }
      path += std::to_string(f.next);
      child = &(*f.container)[f.next];
    }
    ++f.next;
    if (visit(child, path)) return;
    if ((child->IsObject() && child->MemberCount() > 0) || (child->IsArray() && !child->Empty())) {
      stack.push_back({child, 0, path.size()});
    }
  }
}

/// Scans `text` for a raw byte 0x1A..0x1F, 16 bytes per step where SIMD is
/// available; with Copy, also copies each scanned byte to `out`. Returns
/// false at the first such byte (`out` then holds a prefix), true otherwise.
template <bool Copy>
bool scan_for_blind_bytes(std::string_view text, char* out) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  size_t n = text.size();
#if defined(__wasm_simd128__)
  const v128_t low = wasm_i8x16_splat(0x1A);
  const v128_t span = wasm_i8x16_splat(6);  // 0x1A..0x1F
  for (; n >= 16; n -= 16, p += 16) {
    const v128_t bytes = wasm_v128_load(p);
    if (wasm_v128_any_true(wasm_u8x16_lt(wasm_i8x16_sub(bytes, low), span))) return false;
    if constexpr (Copy) {
      wasm_v128_store(out, bytes);
      out += 16;
    }
  }
#elif defined(__SSE2__)
  const __m128i low = _mm_set1_epi8(0x1A);
  const __m128i five = _mm_set1_epi8(5);  // 0x1A..0x1F is 0..5 after subtracting 0x1A
  for (; n >= 16; n -= 16, p += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i v = _mm_sub_epi8(bytes, low);
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, five), v)) != 0) return false;
    if constexpr (Copy) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), bytes);
      out += 16;
    }
  }
#endif
  for (; n > 0; --n, ++p) {
    if (*p >= 0x1A && *p <= 0x1F) return false;
    if constexpr (Copy) *out++ = static_cast<char>(*p);
  }
  return true;
}
}  // namespace

std::optional<double> nonfinite_from_string(std::string_view s) {
  if (s == "NaN") return std::nan("");
  if (s == "Infinity") return HUGE_VAL;
  if (s == "-Infinity") return -HUGE_VAL;
  return std::nullopt;
}

bool has_simd_scan_blind_bytes(std::string_view text) { return !scan_for_blind_bytes<false>(text, nullptr); }

bool copy_unless_simd_scan_blind_bytes(std::string_view text, char* out) { return scan_for_blind_bytes<true>(text, out); }

std::string escape_pointer_token(std::string_view token) {
  if (token.find_first_of("~/") == std::string_view::npos) return std::string(token);
  std::string out;
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string json_parse_error_text(rapidjson::ParseErrorCode code, size_t offset, std::string_view text) {
  // RapidJSON reports a raw control character inside a string as an invalid
  // escape, and a raw NUL (its end of input) as a missing closing quote; say
  // what it is.
  const bool nul_in_string = code == rapidjson::kParseErrorStringMissQuotationMark && offset < text.size() &&
                             text[offset] == '\0';
  if ((code == rapidjson::kParseErrorStringEscapeInvalid || nul_in_string) && offset < text.size()) {
    const auto byte = static_cast<unsigned char>(text[offset]);
    if (byte < 0x20) {
      const std::string hex = hex_digits(byte);
      return "unescaped control character 0x" + hex + " in a string (write it as \\u00" + hex + ").";
    }
  }
  if (offset == 0 && text.substr(0, 3) == "\xEF\xBB\xBF") {
    return "the text starts with a UTF-8 byte order mark (bytes EF BB BF), which pteforge does not read "
           "(RFC 8259 forbids writing one)";
  }
  std::string what = rapidjson::GetParseError_En(code);
  // At the very end of the input, RapidJSON's words ("Invalid value.") hide
  // the cause: the document is cut short.
  if (offset >= text.size() && code != rapidjson::kParseErrorDocumentEmpty && !what.empty() &&
      what.back() == '.') {
    what.back() = ':';
    what += " the JSON text ends too early";
  }
  return what;
}

std::string refused_word_text(std::string_view original) {
  if (original == "-NaN") return "-NaN: NaN has no sign (Python's json reads NaN, Infinity and -Infinity)";
  if (original == "Inf" || original == "-Inf") {
    return "a bare " + std::string(original) + ": infinity is written " +
           (original == "Inf" ? "Infinity" : "-Infinity") +
           " (Python's json reads NaN, Infinity and -Infinity)";
  }
  return "";
}

std::string with_article(std::string_view name) {
  const bool vowel = !name.empty() && std::string_view("AEIOUaeiou").find(name.front()) != std::string_view::npos;
  std::string out(vowel ? "an " : "a ");
  out += name;
  return out;
}

std::string_view json_type_name(const rapidjson::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType: return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType: return "a boolean";
    case rapidjson::kObjectType: return "an object";
    case rapidjson::kArrayType: return "an array";
    case rapidjson::kStringType: return "a string";
    case rapidjson::kNumberType: return "a number";
  }
  return "a value";
}

std::map<size_t, std::string> neutralize_oversized_numbers(std::string& text) {
  std::map<size_t, std::string> originals;
  constexpr size_t kDigits = 300;  // RapidJSON's limits are 308 and up
  // A malformed token is left alone for the parser to report: one that goes
  // on past its valid prefix with a digit, point, sign or exponent.
  auto number_char = [](char c) {
    return std::string_view("0123456789.eE+-").find(c) != std::string_view::npos;
  };
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (c == '"') {
      i = json_string_end(text, i);
      continue;
    }
    // -NaN, Inf, -Inf: RapidJSON's words that Python's json refuses.
    const size_t word = c == '-' && i + 1 < n ? i + 1 : i;
    if (text[word] == 'N' || text[word] == 'I') {
      const std::string_view rest = std::string_view(text).substr(word);
      const bool minus_nan = word > i && rest.substr(0, 3) == "NaN";
      const bool bare_inf = rest.substr(0, 3) == "Inf" && rest.substr(0, 8) != "Infinity";
      if (minus_nan || bare_inf) {
        originals.emplace(i, std::string(text, i, word - i + 3));
        text[i] = '#';
      }
      i = word;
      continue;
    }
    if (c != '-' && (c < '0' || c > '9')) continue;
    const size_t begin = i;
    bool integer = true;
    const std::string_view token = std::string_view(text).substr(
        begin, json_number_length(std::string_view(text).substr(begin), integer));
    i = begin + token.size();
    if (!token.empty() && (i == n || !number_char(text[i]))) {
      // Its integer digits, and its exponent when positive (capped at kDigits).
      const size_t sign = token[0] == '-' ? 1 : 0;
      const size_t int_digits = std::min(token.find_first_not_of("0123456789", sign), token.size()) - sign;
      size_t exponent = 0;
      if (const size_t e = token.find_first_of("eE"); e != std::string_view::npos && token[e + 1] != '-') {
        for (size_t k = e + 1; k < token.size(); ++k) {
          if (token[k] >= '0' && token[k] <= '9') {
            exponent = std::min<size_t>(exponent * 10 + static_cast<size_t>(token[k] - '0'), kDigits);
          }
        }
      }
      if (int_digits >= kDigits || exponent >= kDigits) {
        originals.emplace(begin, std::string(token));
        text[begin] = '0';
        std::fill(text.begin() + static_cast<std::ptrdiff_t>(begin) + 1,
                  text.begin() + static_cast<std::ptrdiff_t>(i), ' ');
      }
    }
    // Skip the rest of a malformed token (the parser stops at its start anyway).
    while (i < n && number_char(text[i])) ++i;
    --i;  // the loop's ++i reads the byte after the token
  }
  return originals;
}

Result<std::unique_ptr<JsonDocument>> JsonDocument::parse(std::string text) {
  size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
  if (i == text.size()) return make_error(ErrorCode::INPUT_EMPTY, "the input is empty");
  if (std::optional<size_t> bad = find_invalid_utf8(text)) {
    Location where;
    where.byte_offset = *bad;
    return make_error(ErrorCode::INPUT_NOT_JSON,
                      "invalid UTF-8: the sequence starting with byte 0x" +
                          hex_digits(static_cast<unsigned char>(text[*bad])) +
                          " is not a character (JSON text is UTF-8)",
                      where);
  }
  auto doc = std::make_unique<JsonDocument>();
  doc->buffer_ = std::move(text);  // NUL-terminated: the in-situ parser's end marker
  const std::map<size_t, std::string> originals = neutralize_oversized_numbers(doc->buffer_);
#if defined(RAPIDJSON_SSE2)
  if (has_simd_scan_blind_bytes(doc->buffer_)) {
    ScalarInsituStream stream(doc->buffer_.data());
    PTEFORGE_TRY(parse_into(doc->doc_, stream, doc->buffer_, originals));
    return doc;
  }
#endif
  rapidjson::InsituStringStream stream(doc->buffer_.data());
  PTEFORGE_TRY(parse_into(doc->doc_, stream, doc->buffer_, originals));
  return doc;
}

char* JsonDocument::allocate_text(size_t size) {
#if defined(__linux__) && !defined(__EMSCRIPTEN__) && defined(MADV_HUGEPAGE)
  constexpr size_t kHugeFrom = size_t{8} << 20;
  if (size >= kHugeFrom) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
      madvise(p, size, MADV_HUGEPAGE);  // advice only: ignored where huge pages are off
      copy_ = std::unique_ptr<char[], detail::TextDeleter>(static_cast<char*>(p), detail::TextDeleter{size});
      return copy_.get();
    }
  }
#endif
  copy_ = std::unique_ptr<char[], detail::TextDeleter>(new (std::nothrow) char[size], detail::TextDeleter{0});
  return copy_.get();
}

char* JsonDocument::adopt_text(std::string text) {
  buffer_ = std::move(text);
  return buffer_.data();
}

void detail::TextDeleter::operator()(char* p) const {
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  if (mapped) {
    munmap(p, mapped);
    return;
  }
#endif
  delete[] p;
}

std::string JsonDocument::pointer_of(const rapidjson::Value* v) const {
  std::string found;
  walk(doc_, [&](const rapidjson::Value* x, const std::string& path) {
    if (x != v) return false;
    found = path;
    return true;
  });
  return found;
}

std::vector<std::string> JsonDocument::pointers_of(const std::vector<const rapidjson::Value*>& targets) const {
  std::vector<std::string> out(targets.size());
  std::unordered_map<const rapidjson::Value*, std::vector<size_t>> wanted;
  for (size_t i = 0; i < targets.size(); ++i) wanted[targets[i]].push_back(i);
  size_t remaining = wanted.size();
  if (remaining == 0) return out;
  walk(doc_, [&](const rapidjson::Value* x, const std::string& path) {
    auto it = wanted.find(x);
    if (it == wanted.end()) return false;
    for (size_t i : it->second) out[i] = path;
    wanted.erase(it);
    return --remaining == 0;
  });
  return out;
}

Result<JsonCursor> JsonCursor::field(std::string_view key) const {
  if (!v_->IsObject()) return error(ErrorCode::INPUT_SCHEMA, "expected an object, found " + describe(*v_));
  auto it = v_->FindMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
  if (it == v_->MemberEnd()) {
    return error_at_key(key, ErrorCode::INPUT_SCHEMA, "missing required field \"" + std::string(key) + "\"");
  }
  return with(it->value);
}

std::optional<JsonCursor> JsonCursor::find(std::string_view key) const {
  if (!v_->IsObject()) return std::nullopt;
  auto it = v_->FindMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
  if (it == v_->MemberEnd()) return std::nullopt;
  return with(it->value);
}

Result<JsonCursor> JsonCursor::at(size_t index) const {
  if (!v_->IsArray()) return error(ErrorCode::INPUT_SCHEMA, "expected an array, found " + describe(*v_));
  if (index >= v_->Size()) {
    return error(ErrorCode::INPUT_SCHEMA, "index " + std::to_string(index) + " is out of range (array has " +
                                              std::to_string(v_->Size()) + " elements)");
  }
  return with((*v_)[static_cast<rapidjson::SizeType>(index)]);
}

Result<size_t> JsonCursor::array_size() const {
  PTEFORGE_TRY(expect_array());
  return static_cast<size_t>(v_->Size());
}

Status JsonCursor::expect_object() const {
  if (!v_->IsObject()) return error(ErrorCode::INPUT_SCHEMA, "expected an object, found " + describe(*v_));
  return Status::Ok();
}

Status JsonCursor::expect_array() const {
  if (!v_->IsArray()) return error(ErrorCode::INPUT_SCHEMA, "expected an array, found " + describe(*v_));
  return Status::Ok();
}

Result<std::string_view> JsonCursor::as_string() const {
  if (!v_->IsString()) return error(ErrorCode::INPUT_SCHEMA, "expected a string, found " + describe(*v_));
  return std::string_view(v_->GetString(), v_->GetStringLength());
}

Result<int64_t> JsonCursor::as_int() const {
  if (v_->IsInt64()) return v_->GetInt64();
  if (v_->IsUint64()) {
    return error(ErrorCode::INPUT_SCHEMA,
                 "integer " + std::to_string(v_->GetUint64()) + " is outside the int64 range");
  }
  if (v_->IsDouble()) {
    double d = v_->GetDouble();
    if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) >= 9.2e18) {
      return error(ErrorCode::INPUT_SCHEMA, "integer is outside the int64 range");
    }
    if (std::isinf(d)) {
      return error(ErrorCode::INPUT_SCHEMA,
                   "expected an integer, found an infinite number (Infinity, or a literal past the double "
                   "range: an integer of 309 digits or more is outside the int64 range)");
    }
    return error(ErrorCode::INPUT_SCHEMA, "expected an integer, found a non-integral number");
  }
  return error(ErrorCode::INPUT_SCHEMA, "expected an integer, found " + describe(*v_));
}

Result<double> JsonCursor::as_float() const {
  if (v_->IsNumber()) return v_->GetDouble();
  if (v_->IsString()) {
    if (auto f = nonfinite_from_string(std::string_view(v_->GetString(), v_->GetStringLength()))) return *f;
  }
  return error(ErrorCode::INPUT_SCHEMA,
               "expected a number (or \"NaN\", \"Infinity\", \"-Infinity\"), found " + describe(*v_));
}

Result<bool> JsonCursor::as_bool() const {
  if (!v_->IsBool()) return error(ErrorCode::INPUT_SCHEMA, "expected a boolean, found " + describe(*v_));
  return v_->GetBool();
}

Error JsonCursor::error(ErrorCode code, std::string message) const {
  Location where;
  where.pointer = pointer();
  return make_error(code, std::move(message), where);
}

Error JsonCursor::error_at_key(std::string_view key, ErrorCode code, std::string message) const {
  Location where;
  where.pointer = pointer() + "/" + escape_pointer_token(key);
  return make_error(code, std::move(message), where);
}

}  // namespace pteforge::serde
