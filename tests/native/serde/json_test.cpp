// JsonDocument / JsonCursor, the Python-style writer and the treespec codec.
#include <doctest/doctest.h>

#include <cmath>

#include "serde/json_cursor.h"
#include "serde/py_json_writer.h"
#include "serde/treespec_json.h"

using namespace pteforge;
using namespace pteforge::serde;

namespace {
std::unique_ptr<JsonDocument> parse_ok(const std::string& text) {
  auto d = JsonDocument::parse(text);
  REQUIRE_MESSAGE(d.ok(), d.error().to_string());
  return std::move(d).value();
}
}  // namespace

TEST_CASE("json: pointers escape ~ and / (RFC 6901) and are computed on demand") {
  auto doc = parse_ok(R"({"a/b": {"c~d": [10, {"e": null}]}, "x": 1})");
  JsonCursor root(*doc, doc->root());
  auto inner = root.field("a/b")->field("c~d")->at(1)->field("e");
  REQUIRE(inner.ok());
  CHECK(inner->pointer() == "/a~1b/c~0d/1/e");
  CHECK(root.pointer() == "");
  CHECK(escape_pointer_token("a~/b") == "a~0~1b");
  auto missing = root.field("a/b")->field("nope");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::INPUT_SCHEMA);
  CHECK(missing.error().message == "missing required field \"nope\"");
  CHECK(missing.error().where.pointer == "/a~1b/nope");
  auto out_of_range = root.field("a/b")->field("c~d")->at(5);
  REQUIRE_FALSE(out_of_range.ok());
  CHECK(out_of_range.error().where.pointer == "/a~1b/c~0d");
  auto not_object = root.field("x")->field("y");
  REQUIRE_FALSE(not_object.ok());
  CHECK(not_object.error().message == "expected an object, found a number");
  CHECK(not_object.error().where.pointer == "/x");
  auto pointers = doc->pointers_of({&inner->value(), &doc->root(), &root.field("x")->value()});
  CHECK(pointers == std::vector<std::string>{"/a~1b/c~0d/1/e", "", "/x"});
}

TEST_CASE("json: scalar accessors, int64 limits and non-finite floats") {
  auto doc = parse_ok(
      R"({"big": 9223372036854775807, "min": -9223372036854775808, "over": 9223372036854775808,
          "huge": 1e30, "frac": 1.5, "s": "NaN", "inf": "Infinity", "ninf": "-Infinity", "bad": "nan",
          "tok": Infinity, "tokn": NaN, "t": true, "str": "h\u00e9"})");
  JsonCursor r(*doc, doc->root());
  CHECK(*r.field("big")->as_int() == INT64_MAX);
  CHECK(*r.field("min")->as_int() == INT64_MIN);
  auto over = r.field("over")->as_int();
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().message == "integer 9223372036854775808 is outside the int64 range");
  CHECK(over.error().where.pointer == "/over");
  CHECK(r.field("huge")->as_int().error().message == "integer is outside the int64 range");
  CHECK(r.field("frac")->as_int().error().message == "expected an integer, found a non-integral number");
  CHECK(std::isnan(*r.field("s")->as_float()));
  CHECK(*r.field("inf")->as_float() == HUGE_VAL);
  CHECK(*r.field("ninf")->as_float() == -HUGE_VAL);
  CHECK(*r.field("tok")->as_float() == HUGE_VAL);
  CHECK(std::isnan(*r.field("tokn")->as_float()));
  CHECK(*r.field("big")->as_float() == 9223372036854775807.0);
  CHECK(r.field("bad")->as_float().error().message ==
        "expected a number (or \"NaN\", \"Infinity\", \"-Infinity\"), found a string \"nan\"");
  CHECK(*r.field("t")->as_bool() == true);
  CHECK(*r.field("str")->as_string() == "h\xc3\xa9");
  CHECK(r.field("t")->as_string().error().message == "expected a string, found a boolean");
}

TEST_CASE("json: numbers are read as Python reads them, never by RapidJSON's full-precision reader") {
  // 1.00000000000000000000001e-330 made RapidJSON 1.1.0's full-precision
  // reader read out of bounds (a crash); 1e-325 it read as -2.2e307.
  auto doc = parse_ok(
      "[1.00000000000000000000001e-330, 1e-325, 0.1, 2.5e-3, 1.23e-321, 123, -5, -2147483649, 4294967296, "
      "18446744073709551615, 18446744073709551616, NaN, -Infinity, 1.7976931348623157e308]");
  const auto& a = doc->root();
  REQUIRE(a.Size() == 14);
  CHECK(a[0].GetDouble() == 0.0);
  CHECK(a[1].GetDouble() == 0.0);
  CHECK(a[2].GetDouble() == 0.1);
  CHECK(a[3].GetDouble() == 2.5e-3);
  CHECK(a[4].GetDouble() == 1.23e-321);
  CHECK((a[5].IsInt() && a[5].GetInt() == 123));
  CHECK((a[6].IsInt() && a[6].GetInt() == -5));
  CHECK((a[7].IsInt64() && !a[7].IsInt() && a[7].GetInt64() == -2147483649LL));
  CHECK((a[8].IsUint64() && !a[8].IsUint() && a[8].GetUint64() == 4294967296ULL));
  CHECK((a[9].IsUint64() && a[9].GetUint64() == UINT64_MAX));
  CHECK((a[10].IsDouble() && a[10].GetDouble() == 18446744073709551616.0));
  CHECK(std::isnan(a[11].GetDouble()));
  CHECK(a[12].GetDouble() == -INFINITY);
  CHECK(a[13].GetDouble() == 1.7976931348623157e308);
}

TEST_CASE("json: literals past the double range read as Python reads them (RapidJSON refuses them)") {
  const std::string digits400 = "1" + std::string(400, '0');
  const std::string text = R"({"e": 1e400, "ne": -2.5E+0400, "small": 1e-400, "f": )" + digits400 +
                           R"(.5, "i": )" + digits400 +
                           R"(, "s": "1e400", "ok": [1e300, 0.001e310], "after": 7})";
  auto doc = parse_ok(text);
  JsonCursor r(*doc, doc->root());
  CHECK(*r.field("e")->as_float() == HUGE_VAL);
  CHECK(*r.field("ne")->as_float() == -HUGE_VAL);
  CHECK(*r.field("small")->as_float() == 0.0);
  CHECK(*r.field("f")->as_float() == HUGE_VAL);
  CHECK(*r.field("s")->as_string() == "1e400");  // strings are left alone
  CHECK(*r.field("ok")->at(0)->as_float() == 1e300);
  CHECK(*r.field("ok")->at(1)->as_float() == 1e307);
  CHECK(*r.field("after")->as_int() == 7);
  auto big = r.field("i")->as_int();
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().where.pointer == "/i");
  CHECK(big.error().message ==
        "expected an integer, found an infinite number (Infinity, or a literal past the double range: an "
        "integer "
        "of 309 digits or more is outside the int64 range)");
  // The literals are replaced in place by "0" and spaces: offsets stay, and a
  // syntax error after them is found where it is.
  std::string replaced = R"([1e400, "x\"1e999", -12e0300])";
  const auto originals = neutralize_oversized_numbers(replaced);
  CHECK(replaced == R"([0    , "x\"1e999", 0       ])");
  CHECK(originals == std::map<size_t, std::string>{{1, "1e400"}, {20, "-12e0300"}});
  // Words RapidJSON's NaN/Inf flag takes but Python's json refuses are
  // marked ('#') for the parser to stop at, and worded; NaN, Infinity and
  // -Infinity, and strings, are left alone.
  std::string words = R"([-NaN, Inf, -Infinity, NaN, "Inf", -Inf])";
  CHECK(neutralize_oversized_numbers(words) ==
        std::map<size_t, std::string>{{1, "-NaN"}, {7, "Inf"}, {35, "-Inf"}});
  CHECK(words == R"([#NaN, #nf, -Infinity, NaN, "Inf", #Inf])");
  auto inf = JsonDocument::parse(R"({"a": [1, Inf]})");
  REQUIRE_FALSE(inf.ok());
  CHECK(inf.error().code == ErrorCode::INPUT_NOT_JSON);
  CHECK(inf.error().message ==
        "JSON syntax error: a bare Inf: infinity is written Infinity (Python's json reads NaN, Infinity and "
        "-Infinity)");
  CHECK(inf.error().where.byte_offset == 10u);
  // Malformed tokens are left for the parser to refuse, whatever their size
  // (strtod would have read them back as numbers).
  for (const std::string& bad :
       {std::string("1.e400"), std::string("-e400"), "1" + std::string(400, '0') + "e",
        "0" + std::string(300, '0') + "1", "1" + std::string(400, '0') + ".", std::string("1e400.5"),
        std::string("1e+-400")}) {
    CAPTURE(bad);
    auto r = JsonDocument::parse("[" + bad + "]");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::INPUT_NOT_JSON);
    std::string copy = "[" + bad + "]";
    CHECK(neutralize_oversized_numbers(copy).empty());
  }
  // At the limits: a 300-digit integer part and an exponent of 300 (after a
  // sign) are replaced; 299 digits, 1e299 and a negative exponent are not.
  std::string limits =
      "[" + std::string(300, '7') + ", 1E+300, 2e-300, 3e299, " + std::string(299, '7') + "]";
  const std::string limits_before = limits;
  CHECK(neutralize_oversized_numbers(limits) ==
        std::map<size_t, std::string>{{1, std::string(300, '7')}, {303, "1E+300"}});
  CHECK(limits == "[0" + std::string(299, ' ') + ", 0     " + limits_before.substr(309));
  std::string plain = R"({"a": [1e29, -2.5e+12, 100], "e": "x"})";
  CHECK(neutralize_oversized_numbers(plain).empty());
  CHECK(plain == R"({"a": [1e29, -2.5e+12, 100], "e": "x"})");
  auto after = JsonDocument::parse("[1e400, 2,, 3]");
  REQUIRE_FALSE(after.ok());
  CHECK(after.error().where.byte_offset == 10);
  CHECK(after.error().message == "JSON syntax error: Invalid value.");
}

TEST_CASE("json: empty input, syntax errors with byte offsets, deep nesting") {
  auto empty = JsonDocument::parse(" \n\t ");
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().code == ErrorCode::INPUT_EMPTY);
  auto bad = JsonDocument::parse(R"({"a": [1, 2,, 3]})");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::INPUT_NOT_JSON);
  CHECK(bad.error().where.byte_offset == 12);
  CHECK(bad.error().message == "JSON syntax error: Invalid value.");
  // A raw control character in a string is named as such (RapidJSON calls it an invalid escape).
  auto control = JsonDocument::parse(std::string("{\"a\": \"x\x1f\"}"));
  REQUIRE_FALSE(control.ok());
  CHECK(control.error().code == ErrorCode::INPUT_NOT_JSON);
  CHECK(control.error().where.byte_offset == 8);
  CHECK(control.error().message == "JSON syntax error: unescaped control character 0x1F in a string (write it as \\u001F).");
  // A raw NUL too (RapidJSON stops there and misses the closing quote).
  auto nul = JsonDocument::parse(std::string("{\"a\": \"x\0y\"}", 12));
  REQUIRE_FALSE(nul.ok());
  CHECK(nul.error().where.byte_offset == 8);
  CHECK(nul.error().message == "JSON syntax error: unescaped control character 0x00 in a string (write it as \\u0000).");
  // A string cut by the end of the input still misses its closing quote.
  auto unterminated = JsonDocument::parse(R"({"a": "xy)");
  REQUIRE_FALSE(unterminated.ok());
  CHECK(unterminated.error().where.byte_offset == 9);
  CHECK(unterminated.error().message ==
        "JSON syntax error: Missing a closing quotation mark in string: the JSON text ends too early");
  auto escape = JsonDocument::parse(R"({"a": "x\q"})");
  REQUIRE_FALSE(escape.ok());
  CHECK(escape.error().where.byte_offset == 8);
  CHECK(escape.error().message == "JSON syntax error: Invalid escape character in string.");
  auto truncated = JsonDocument::parse(R"({"a": [1, 2)");
  REQUIRE_FALSE(truncated.ok());
  CHECK(truncated.error().where.byte_offset == 11);
  // Nesting: 1024 levels parse (and the iterative pointer search names the
  // innermost value); the 1025th opening bracket is refused at its offset, so
  // 200000 levels cannot exhaust the recursive parser's stack.
  auto nested = [](size_t levels, char open, char close) {
    std::string text;
    for (size_t i = 0; i < levels; ++i) text += open == '[' ? "[" : "{\"k\":";
    text += "7";
    text += std::string(levels, close);
    return text;
  };
  auto d = JsonDocument::parse(nested(1024, '[', ']'));
  REQUIRE(d.ok());
  const rapidjson::Value* v = &(*d)->root();
  for (int i = 0; i < 1023; ++i) v = &(*v)[0];
  CHECK((*v)[0].GetInt() == 7);
  std::string p = (*d)->pointer_of(&(*v)[0]);
  CHECK(p.size() == 2048);
  CHECK(p.substr(0, 6) == "/0/0/0");
  for (size_t levels : {size_t{1025}, size_t{200000}}) {
    auto too_deep = JsonDocument::parse(nested(levels, '[', ']'));
    REQUIRE_FALSE(too_deep.ok());
    CHECK(too_deep.error().code == ErrorCode::INPUT_SCHEMA);
    CHECK(too_deep.error().message == "JSON nested deeper than 1024 levels");
    CHECK(too_deep.error().where.byte_offset == 1024);
  }
  auto deep_objects = JsonDocument::parse(nested(1025, '{', '}'));
  REQUIRE_FALSE(deep_objects.ok());
  CHECK(deep_objects.error().code == ErrorCode::INPUT_SCHEMA);
  CHECK(deep_objects.error().where.byte_offset == 1024 * 5);
  CHECK(JsonDocument::parse(nested(1024, '{', '}')).ok());
}

TEST_CASE("json: the check for bytes RapidJSON's SIMD string scan misses, at every position") {
  // 0x1A..0x1F are flagged, their neighbours 0x19 and 0x20 are not, wherever
  // they fall relative to the 16-byte SIMD blocks; the copy is exact.
  for (size_t size : {1u, 15u, 16u, 17u, 33u, 40u}) {
    for (size_t at = 0; at < size; ++at) {
      for (int byte : {0x19, 0x1A, 0x1F, 0x20}) {
        std::string text(size, 'a');
        for (size_t i = 0; i < size; ++i) text[i] = static_cast<char>('a' + i % 26);
        text[at] = static_cast<char>(byte);
        CAPTURE(size);
        CAPTURE(at);
        CAPTURE(byte);
        const bool blind = byte >= 0x1A && byte <= 0x1F;
        CHECK(has_simd_scan_blind_bytes(text) == blind);
        std::string copy(size, '\0');
        CHECK(copy_unless_simd_scan_blind_bytes(text, copy.data()) == !blind);
        if (!blind) CHECK(copy == text);
      }
    }
  }
  CHECK_FALSE(has_simd_scan_blind_bytes(""));
  CHECK(copy_unless_simd_scan_blind_bytes("", nullptr));
}

TEST_CASE("py_json: json.dumps style strings, numbers and separators") {
  CHECK(python_json_string("plain") == "\"plain\"");
  CHECK(python_json_string("q\"b\\n\n\t\r\b\f") == R"("q\"b\\n\n\t\r\b\f")");
  CHECK(python_json_string(std::string("\x01\x1f\x7f", 3)) == R"("\u0001\u001f\u007f")");
  CHECK(python_json_string("h\xc3\xa9 \xe2\x82\xac") == R"("h\u00e9 \u20ac")");
  CHECK(python_json_string("\xf0\x9f\x98\x80") == R"("\ud83d\ude00")");
  CHECK(python_json_string("bad\xff") == R"("bad\ufffd")");
  std::string out;
  PyJsonWriter w(out);
  w.begin_object();
  w.key("a");
  w.begin_array();
  w.int64(-3);
  w.float64(0.5);
  w.float64(1e-05);
  w.float64(std::nan(""));
  w.float64(-HUGE_VAL);
  w.boolean(false);
  w.null();
  w.end_array();
  w.key("b");
  w.begin_object();
  w.end_object();
  w.key("c");
  w.begin_array();
  w.end_array();
  w.end_object();
  CHECK(out == R"({"a": [-3, 0.5, 1e-05, "NaN", "-Infinity", false, null], "b": {}, "c": []})");
}

TEST_CASE("treespec: parsed and written back exactly as PyTorch writes it") {
  const std::string in_spec =
      R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [{"type": "builtins.tuple", "context": "null", "children_spec": [{"type": null, "context": null, "children_spec": []}, {"type": null, "context": null, "children_spec": []}]}, {"type": "builtins.dict", "context": "[\"mask\"]", "children_spec": [{"type": null, "context": null, "children_spec": []}]}]}])";
  auto spec = parse_treespec(in_spec);
  REQUIRE(spec.ok());
  CHECK(spec->protocol == 1);
  CHECK(spec->num_leaves() == 3);
  CHECK(*spec->root.type == "builtins.tuple");
  CHECK(spec->root.context == "\"null\"");
  CHECK(spec->root.children[1].context == R"("[\"mask\"]")");
  CHECK(spec->root.children[0].children[0].is_leaf());
  CHECK(format_treespec(*spec) == in_spec);
  // Compact input (not PyTorch's spacing) is normalised to PyTorch's form.
  auto compact = parse_treespec(R"([1,{"type":null,"context":null,"children_spec":[]}])");
  REQUIRE(compact.ok());
  CHECK(format_treespec(*compact) == R"([1, {"type": null, "context": null, "children_spec": []}])");
  // Contexts that are not strings: namedtuple (plain string) and defaultdict (object).
  const std::string other =
      R"([1, {"type": "collections.defaultdict", "context": {"default_factory_module": "builtins", "default_factory_name": "list", "dict_context": ["a", 1]}, "children_spec": [{"type": "collections.namedtuple", "context": "__main__.Point", "children_spec": [{"type": null, "context": null, "children_spec": []}]}, {"type": null, "context": null, "children_spec": []}]}])";
  auto o = parse_treespec(other);
  REQUIRE(o.ok());
  CHECK(format_treespec(*o) == other);
  // A dict's keys (JSON inside the context string) are written as json.dumps
  // writes them after treespec_loads: ", " separators, non-ASCII as \uXXXX.
  auto keys = parse_treespec(
      R"([1, {"type": "builtins.dict", "context": "[\"a\",\"\u00e9\",3]", "children_spec": [{"type": null, "context": null, "children_spec": []}, {"type": null, "context": null, "children_spec": []}, {"type": null, "context": null, "children_spec": []}]}])");
  REQUIRE(keys.ok());
  CHECK(keys->root.context == R"("[\"a\", \"\\u00e9\", 3]")");
  // A raw é (UTF-8) in the keys text, and a list's compact "null".
  auto raw = parse_treespec(
      "[1, {\"type\": \"builtins.dict\", \"context\": \"[\\\"\xC3\xA9\\\"]\", "
      "\"children_spec\": [{\"type\": \"builtins.list\", \"context\": \" null\", "
      "\"children_spec\": []}]}]");
  REQUIRE(raw.ok());
  CHECK(raw->root.context == R"("[\"\\u00e9\"]")");
  CHECK(raw->root.children[0].context == R"("null")");
  // Text that is not JSON, in a type torch reads with json.loads, stays as it was.
  auto odd = parse_treespec(R"([1, {"type": "builtins.dict", "context": "[a", "children_spec": []}])");
  REQUIRE(odd.ok());
  CHECK(odd->root.context == R"("[a")");
  // So does a context nested deeper than 256 levels (200,000 '[' overflowed
  // the stack), and one with a number RapidJSON's full-precision reader
  // read out of bounds on; numbers are written back as Python writes them.
  const std::string brackets(200000, '[');
  auto deep = parse_treespec("[1, {\"type\": \"builtins.list\", \"context\": \"" + brackets +
                             "\", \"children_spec\": []}]");
  REQUIRE(deep.ok());
  CHECK(deep->root.context == "\"" + brackets + "\"");
  auto tiny = parse_treespec(
      R"([1, {"type": "builtins.dict", "context": "[1.00000000000000000000001e-330, 0.1]", "children_spec": []}])");
  REQUIRE(tiny.ok());
  CHECK(tiny->root.context == R"("[0.0, 0.1]")");
  // Past the double range, as Python's json.loads reads them and json.dumps
  // writes them back: 1e400 is Infinity (so are NaN and Infinity themselves).
  auto huge = parse_treespec(
      R"([1, {"type": "builtins.dict", "context": "[1e400,-1E+400,NaN,Infinity,2]", "children_spec": []}])");
  REQUIRE(huge.ok());
  CHECK(huge->root.context == R"("[Infinity, -Infinity, NaN, Infinity, 2]")");
  // A NUL or text after the value is not JSON: kept as it was.
  auto trailing =
      parse_treespec(R"([1, {"type": "builtins.dict", "context": "[1] x", "children_spec": []}])");
  REQUIRE(trailing.ok());
  CHECK(trailing->root.context == R"("[1] x")");
  auto nul = parse_treespec(R"([1, {"type": "builtins.dict", "context": "[1]\u0000", "children_spec": []}])");
  REQUIRE(nul.ok());
  CHECK(nul->root.context == R"("[1]\u0000")");
}

TEST_CASE("treespec: malformed text") {
  auto not_json = parse_treespec("[1, {");
  REQUIRE_FALSE(not_json.ok());
  CHECK(not_json.error().code == ErrorCode::INPUT_SCHEMA);
  CHECK(not_json.error().message ==
        "invalid treespec: JSON syntax error: Missing a name for object member: the JSON text ends too early "
        "at offset 5 of the text");
  auto proto = parse_treespec(R"([2, {"type": null, "context": null, "children_spec": []}])");
  REQUIRE_FALSE(proto.ok());
  CHECK(proto.error().message == "invalid treespec: unsupported pytree protocol 2 (only 1 exists) (at /0 inside the text)");
  auto leaf = parse_treespec(
      R"([1, {"type": null, "context": null, "children_spec": [{"type": null, "context": null, "children_spec": []}]}])");
  REQUIRE_FALSE(leaf.ok());
  CHECK(leaf.error().message == "invalid treespec: a leaf (type null) has children (at /1 inside the text)");
  std::string deep = "[1, ";
  for (int i = 0; i < 300; ++i) deep += R"({"type": "builtins.list", "context": "null", "children_spec": [)";
  deep += R"({"type": null, "context": null, "children_spec": []})";
  for (int i = 0; i < 300; ++i) deep += "]}";
  deep += "]";
  auto d = parse_treespec(deep);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message.find("nested deeper than 256 levels") != std::string::npos);
}
