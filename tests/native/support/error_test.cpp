#include <doctest/doctest.h>

#include "support/error.h"

using namespace pteforge;

TEST_CASE("error: code names round-trip through the table") {
  CHECK(error_code_name(ErrorCode::INPUT_SCHEMA) == "INPUT_SCHEMA");
  CHECK(error_code_from_name("UNKNOWN_UNION_TAG") == ErrorCode::UNKNOWN_UNION_TAG);
  CHECK_FALSE(error_code_from_name("NOT_A_CODE").has_value());
  for (ErrorCode c : all_error_codes()) {
    CHECK(error_code_from_name(error_code_name(c)) == c);
    CHECK_FALSE(error_code_summary(c).empty());
  }
}

TEST_CASE("error: to_json writes code, message, where keys and notes") {
  Location where;
  where.pointer = "/graph_module/graph/nodes/3";
  where.node = "add";
  where.byte_offset = 17;
  Error e = make_error(ErrorCode::INVALID_GRAPH, "use before definition of \"x\"", where);
  e.notes.push_back("defined by node 5");
  CHECK(e.to_json() ==
        R"({"code":"INVALID_GRAPH","message":"use before definition of \"x\"","where":)"
        R"({"pointer":"/graph_module/graph/nodes/3","node":"add","byte_offset":17},"notes":["defined by node 5"]})");
  CHECK(e.to_string() ==
        "INVALID_GRAPH: use before definition of \"x\" (byte_offset=17 pointer=/graph_module/graph/nodes/3 node=add)\n"
        "  note: defined by node 5");
}

TEST_CASE("error: the empty pointer (the whole document) is written \"\" in text and kept empty in JSON") {
  Location where;
  where.entry = "a.json";
  where.pointer = "";
  Error e = make_error(ErrorCode::INPUT_SCHEMA, "expected an ExportedProgram object, found an array", where);
  CHECK(e.to_string() == "INPUT_SCHEMA: expected an ExportedProgram object, found an array (entry=a.json pointer=\"\")");
  CHECK(e.to_json() ==
        R"({"code":"INPUT_SCHEMA","message":"expected an ExportedProgram object, found an array",)"
        R"("where":{"pointer":"","entry":"a.json"}})");
}

namespace {
Result<int> half(int x) {
  if (x % 2) return make_error(ErrorCode::OPTION_INVALID, "odd");
  return x / 2;
}
Result<int> quarter(int x) {
  PTEFORGE_ASSIGN_OR_RETURN(int h, half(x));
  PTEFORGE_ASSIGN_OR_RETURN(int q, half(h));
  return q;
}
}  // namespace

TEST_CASE("error: Result and PTEFORGE_ASSIGN_OR_RETURN propagate the first error") {
  CHECK(quarter(8).value() == 2);
  auto r = quarter(6);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::OPTION_INVALID);
}

TEST_CASE("error: bytes that are not UTF-8 are written as \\xNN in text and JSON") {
  Location where;
  where.entry = "archive/ar\x9chive_version";
  Error e = make_error(ErrorCode::ARCHIVE_INVALID, "entry \"ar\x9chive\" é 中 😀", where);
  // overlong, surrogate, beyond U+10FFFF, cut short
  e.notes.push_back("\xC0\xAF\xED\xA0\x80\xF4\x90\x80\x80\xE2\x82");
  CHECK(e.to_string() ==
        "ARCHIVE_INVALID: entry \"ar\\x9chive\" é 中 😀 (entry=archive/ar\\x9chive_version)\n"
        "  note: \\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80\\xe2\\x82");
  CHECK(e.to_json() ==
        "{\"code\":\"ARCHIVE_INVALID\",\"message\":\"entry \\\"ar\\\\x9chive\\\" é 中 😀\",\"where\":{\"entry\":"
        "\"archive/ar\\\\x9chive_version\"},\"notes\":[\"\\\\xc0\\\\xaf\\\\xed\\\\xa0\\\\x80\\\\xf4\\\\x90\\\\x80\\\\x80\\\\xe2\\\\x82\"]}");
}

TEST_CASE("error: control_escaped writes control characters as \\xNN and keeps the rest") {
  CHECK(control_escaped("") == "");
  CHECK(control_escaped("model.pt2") == "model.pt2");
  CHECK(control_escaped(std::string("a\x1b[31mb\n\x7f\x00z", 11)) == "a\\x1b[31mb\\x0a\\x7f\\x00z");
  CHECK(control_escaped("caf\xc3\xa9") == "caf\xc3\xa9");  // UTF-8 is not a control character
  // C1 controls (CSI is 0x9b) as raw bytes or in UTF-8, and bytes that are not UTF-8.
  CHECK(control_escaped("a\x9b"
                        "31mb") == "a\\x9b31mb");
  CHECK(control_escaped("a\xc2\x9b"
                        "31m\xc2\xa0") == "a\\xc2\\x9b31m\xc2\xa0");  // U+00A0 is no control
  CHECK(control_escaped("\xff\xc3") == "\\xff\\xc3");
}

TEST_CASE("error: Diagnostic::to_string is one line: severity, message, location") {
  Diagnostic d{"warning", "unknown field \"x\" in Node ignored", {}};
  CHECK(d.to_string() == "warning: unknown field \"x\" in Node ignored");
  d.where.method = "forward";
  d.where.pointer = "/graph_module/graph/nodes/0/x";
  CHECK(d.to_string() ==
        "warning: unknown field \"x\" in Node ignored (method=forward pointer=/graph_module/graph/nodes/0/x)");
  d.where = {};
  d.message = "unknown field \"a\nb\" in Node ignored \xff";
  CHECK(d.to_string() == "warning: unknown field \"a\\x0ab\" in Node ignored \\xff");
  d.where.pointer = "/graph_module/a\nb";  // the JSON key echoed in the location
  CHECK(d.to_string() == "warning: unknown field \"a\\x0ab\" in Node ignored \\xff (pointer=/graph_module/a\\x0ab)");
}
