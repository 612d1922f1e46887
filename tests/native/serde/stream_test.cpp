// The importer's streaming fast path (serde/stream_graph.h) against the DOM
// reader: for every fixture and for hand-made variants, both give the same
// program (node origins and graph pointers included), the same warnings, or
// the same error; and the fast path is taken exactly where it should be.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <thread>

#include "ir/sym_expr.h"
#include "serde/import_context.h"
#include "serde/import_exported_program.h"
#include "serde/json_cursor.h"
#include "serde/stream_graph.h"
#include "support/background_job.h"
#include "support/utf8.h"
#include "test_files.h"

using namespace pteforge;

namespace {

/// Node origins and graph pointers of every graph (nested ones too), which
/// ExportedProgram's equality ignores.
std::string origins(const ir::Graph& g) {
  std::string out = (g.json_pointer() ? *g.json_pointer() : std::string("-")) + "\n";
  for (const ir::Node& n : g) {
    out += n.name() + " @ " + n.origin().pointer() + "\n";
    for (const ir::NamedArgument& a : n.inputs()) {
      if (const auto* sub = a.arg.get_if<ir::ArgTag::Graph>()) out += origins(*sub->graph);
    }
  }
  return out;
}

std::string warnings_text(const std::vector<serde::ImportWarning>& ws) {
  std::string out;
  for (const auto& w : ws) out += w.message + " @ " + w.where.to_string() + "\n";
  return out;
}

/// Imports `json` with and without the fast path (the fast path on one
/// thread, and on two threads handing every element over alone), checks that
/// the results agree, and returns whether the fast path read it.
bool same_both_ways(const std::string& json) {
  // The readers are compared, not the operator calls (some variants below
  // give an argument a kind its schema refuses: ops::check_call_arguments).
  serde::ImportOptions options;
  options.check_calls = false;
  options.two_threads_min_bytes = SIZE_MAX;
  serde::ImportOptions dom_only = options;
  dom_only.streaming = false;
  serde::ImportOptions two_threads = options;
  two_threads.two_threads_min_bytes = 0;
  two_threads.two_threads_batch_events = 1;
  auto fast = serde::import_exported_program(json, options);
  auto dom = serde::import_exported_program(json, dom_only);
  auto threaded = serde::import_exported_program(json, two_threads);
  REQUIRE(fast.ok() == dom.ok());
  REQUIRE(threaded.ok() == dom.ok());
  if (!dom.ok()) {
    CHECK(fast.error().to_json() == dom.error().to_json());
    CHECK(threaded.error().to_json() == dom.error().to_json());
    int rereads = 0;
    auto in_place = serde::import_exported_program(std::string(json), options, [&]() -> Result<std::string> {
      ++rereads;
      return json;
    });
    REQUIRE_FALSE(in_place.ok());
    CHECK(in_place.error().to_json() == dom.error().to_json());
    // Read again when the fast path took the text; text that is not UTF-8 is
    // refused before it does.
    CHECK(rereads == (find_invalid_utf8(json) ? 0 : 1));
    return false;
  }
  CHECK_FALSE(dom->streamed);
  CHECK(fast->program == dom->program);
  CHECK(origins(fast->program.graph()) == origins(dom->program.graph()));
  CHECK(warnings_text(fast->warnings) == warnings_text(dom->warnings));
  CHECK(threaded->streamed == fast->streamed);
  CHECK(threaded->program == dom->program);
  CHECK(origins(threaded->program.graph()) == origins(dom->program.graph()));
  CHECK(warnings_text(threaded->warnings) == warnings_text(dom->warnings));
  // In place (the caller can read the text again): the same result; the text
  // is read again exactly when the fast path gave up.
  int rereads = 0;
  auto in_place = serde::import_exported_program(std::string(json), options, [&]() -> Result<std::string> {
    ++rereads;
    return json;
  });
  REQUIRE(in_place.ok());
  CHECK(in_place->streamed == fast->streamed);
  CHECK(rereads == (fast->streamed ? 0 : 1));
  CHECK(in_place->program == dom->program);
  CHECK(origins(in_place->program.graph()) == origins(dom->program.graph()));
  CHECK(warnings_text(in_place->warnings) == warnings_text(dom->warnings));
  return fast->streamed;
}

std::string mlp() { return test::read_file(test::data_path("fixtures/programs/mlp/models/model.json")); }

/// `text` with the first occurrence of `from` replaced by `to` (which must exist).
std::string replace_first(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("stream: every fixture program reads the same with and without the fast path") {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(test::data_path("fixtures"))) {
    const fs::path& p = e.path();
    if (p.extension() != ".json") continue;
    const bool model = p.parent_path().filename() == "models";
    const bool error_case = p.parent_path().filename() == "errors" && p.filename() != "json_cases.json";
    if (model || error_case) files.push_back(p.string());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() == 42 + 51);
  std::set<std::string> not_streamed;
  for (const auto& path : files) {
    CAPTURE(path);
    if (!same_both_ways(test::read_file(path))) {
      not_streamed.insert(fs::relative(path, test::data_path("fixtures")).string());
    }
  }
  // Every valid fixture but the old-format one is read by the fast path; the
  // error fixtures are not (their errors come from the DOM reader), except
  // those whose error lies outside the streamed parts or in the verifier.
  const std::set<std::string> expected = {
      "errors/bad_treespec.json",
      "errors/bare_inf_token.json",
      "errors/bare_minus_inf_token.json",
      "errors/minus_nan_token.json",
      "errors/buffer_spec_missing_persistent.json",
      "errors/byte_order_mark.json",
      "errors/dangling_tensor_name.json",
      "errors/deeply_nested_arrays.json",
      "errors/dtype_minus_one.json",
      "errors/duplicate_node_name.json",
      "errors/duplicate_table_key.json",
      "errors/duplicate_value_name.json",
      "errors/empty.json",
      "errors/empty_range_constraint.json",
      "errors/int_out_of_range.json",
      "errors/metadata_not_string.json",
      "errors/missing_graph_module.json",
      "errors/missing_node_target.json",
      "errors/missing_tensor_argument_name.json",
      "errors/negative_infinite_max.json",
      "errors/negative_size.json",
      "errors/nodes_not_array.json",
      "errors/old_format_defaults.json",
      "errors/output_naming_nothing.json",
      "errors/repeated_field_breaks_graph.json",
      "errors/requires_grad_not_bool.json",
      "errors/root_is_array.json",
      "errors/schema_major_10.json",
      "errors/schema_major_7.json",
      "errors/signature_input_count.json",
      "errors/strides_rank_mismatch.json",
      "errors/target_not_string.json",
      "errors/tensor_bytes_overflow.json",
      "errors/trailing_comma.json",
      "errors/truncated.json",
      "errors/union_with_two_keys.json",
      "errors/unknown_argument_tag.json",
      "errors/unknown_dtype_number.json",
      "errors/unknown_input_spec_tag.json",
      "errors/unknown_keys.json",
      "errors/unknown_layout_number.json",
      "errors/use_before_definition.json",
      "errors/value_in_two_tables.json",
      "errors/warnings_then_error.json",
      "errors/whitespace_only.json",
      "errors/zip_not_json.json",
  };
  CHECK(not_streamed == expected);
}

TEST_CASE("stream: the fast path reads what it fully understands") {
  const std::string base = mlp();
  CHECK(same_both_ways(base));
  // Optional members as null, and in another order.
  CHECK(same_both_ways(replace_first(base, "\"layout\": 7}", "\"layout\": null}")));
  CHECK(same_both_ways(replace_first(base, "\"requires_grad\": true, ", "")));
  CHECK(same_both_ways(replace_first(base, "\"kind\": 1}", "\"kind\": null}")));
  CHECK(same_both_ways(replace_first(replace_first(base, ", \"name\": \"permute\"}", "}"),
                                     "{\"target\": \"torch.ops.aten.permute.default\", ",
                                     "{\"name\": \"permute\", \"target\": \"torch.ops.aten.permute.default\", ")));
  // A None argument's payload is ignored, whatever it is (§2.11).
  CHECK(same_both_ways(replace_first(base, "{\"as_ints\": [1, 0]}", "{\"as_none\": [[], {\"a\": 1}]}")));
  // An escaped control character (six ASCII bytes in the text: only raw
  // 0x1A..0x1F bytes are left to the DOM reader).
  CHECK(same_both_ways(replace_first(base, "in forward\\n", "in forward\\u001B\\n")));
  // Floats as the non-finite strings, and symbolic sizes with hints.
  CHECK(same_both_ways(replace_first(base, "{\"as_ints\": [1, 0]}", "{\"as_floats\": [\"-Infinity\", \"NaN\", 2]}")));
  CHECK(same_both_ways(replace_first(base, "\"sizes\": [{\"as_int\": 32}",
                                     "\"sizes\": [{\"as_expr\": {\"expr_str\": \"32\", \"hint\": {\"as_int\": 32}}}")));
}

TEST_CASE(
    "import: an as_expr that is a plain integer is a static size, in both readers (as torch loads it)") {
  for (const char* expr : {"32", "Integer(32)"}) {
    CAPTURE(std::string(expr));
    const std::string text = replace_first(mlp(), "\"sizes\": [{\"as_int\": 32}",
                                           std::string("\"sizes\": [{\"as_expr\": {\"expr_str\": \"") + expr +
                                               "\", \"hint\": {\"as_int\": 32}}}");
    CHECK(same_both_ways(text));
    auto r = serde::import_exported_program(text);
    REQUIRE(r.ok());
    for (const ir::Value* v : r->program.graph().table(ir::ValueKind::Tensor)) {
      for (const ir::SymInt& d : v->tensor_meta()->sizes) CHECK(d.is_concrete());
    }
  }
  CHECK(ir::integer_literal("-3") == -3);
  CHECK(ir::integer_literal("Integer(-7)") == -7);
  CHECK(ir::integer_literal("9223372036854775807") == INT64_MAX);
  CHECK_FALSE(ir::integer_literal("9223372036854775808"));
  CHECK_FALSE(ir::integer_literal("s0"));
  CHECK_FALSE(ir::integer_literal("2*3"));
  CHECK_FALSE(ir::integer_literal(""));
  CHECK_FALSE(ir::integer_literal("Integer()"));
}

TEST_CASE("stream: anything unusual is left to the DOM reader, with the same result") {
  const std::string base = mlp();
  SUBCASE("an unknown key in a node (a warning)") {
    CHECK_FALSE(same_both_ways(replace_first(base, "\"is_hop_single_tensor_return\": null,",
                                             "\"is_hop_single_tensor_return\": null, \"extra\": 1,")));
  }
  SUBCASE("a node without a name (files before schema 8.16)") {
    CHECK_FALSE(same_both_ways(replace_first(base, ", \"name\": \"permute\"}", "}")));
  }
  SUBCASE("a duplicate key in a node") {
    CHECK_FALSE(same_both_ways(replace_first(base, "\"name\": \"permute\"}", "\"name\": \"x2\", \"name\": \"permute\"}")));
  }
  SUBCASE("nodes given twice") {
    CHECK_FALSE(same_both_ways(replace_first(base, "\"nodes\": [", "\"nodes\": [], \"nodes\": [")));
  }
  SUBCASE("tensor_values given twice, the last one null (the DOM reader keeps the last)") {
    CHECK_FALSE(same_both_ways(replace_first(base, "\"sym_int_values\": {}", "\"tensor_values\": null, \"sym_int_values\": {}")));
  }
  SUBCASE("graph given twice") {
    CHECK_FALSE(same_both_ways(replace_first(base, "{\"graph_module\": {\"graph\": {", "{\"graph_module\": {\"graph\": 1, \"graph\": {")));
  }
  SUBCASE("a malformed nn_module_stack (kept verbatim with a warning)") {
    CHECK_FALSE(same_both_ways(replace_first(base, "L__self__,,__main__.MLP;", "L__self__;")));
  }

  SUBCASE("a raw control character in a string (a syntax error)") {
    CHECK_FALSE(same_both_ways(replace_first(base, "in forward\\n", "in forward\x1B\\n")));
  }
  SUBCASE("an integer past int64 as a size") {
    CHECK_FALSE(same_both_ways(replace_first(base, "{\"as_int\": 32}", "{\"as_int\": 9223372036854775808}")));
  }
  SUBCASE("a tensor_values entry that is not an object") {
    CHECK_FALSE(same_both_ways(replace_first(base, "\"p_fc1_weight\": {\"dtype\"", "\"p_fc1_weight\": [], \"q\": {\"dtype\"")));
  }
  SUBCASE("a node that is not an object") {
    CHECK_FALSE(same_both_ways(replace_first(base, "\"nodes\": [", "\"nodes\": [7, ")));
  }
  SUBCASE("a subgraph argument") {
    CHECK_FALSE(same_both_ways(replace_first(
        base, "{\"as_ints\": [1, 0]}",
        "{\"as_graph\": {\"name\": \"g\", \"graph\": {\"inputs\": [], \"outputs\": [], \"nodes\": []}}}")));
  }
  SUBCASE("a truncated document") {
    CHECK_FALSE(same_both_ways(base.substr(0, base.size() / 2)));
  }
}

TEST_CASE("stream: a text of more than 8 MiB (mapped with huge pages) with a 9 MB string") {
  std::string big(9u << 20, 'x');
  for (size_t i = 0; i < big.size(); i += 4096) big[i] = '\\', big[i + 1] = 'n';  // escapes all along
  const std::string text = replace_first(mlp(), "in forward\\n", "in forward " + big);
  REQUIRE(text.size() > (8u << 20));
  CHECK(same_both_ways(text));
}

TEST_CASE("stream: text that is not UTF-8 is refused by both readers at the bad byte") {
  const std::string good = mlp();
  CHECK(same_both_ways(good));
  // A raw 0xFF inside a string value (the JSON syntax stays valid).
  const std::string bad = replace_first(good, "\"name\": \"x\"", "\"name\": \"x\xFF\"");
  const size_t offset = bad.find('\xFF');
  CHECK_FALSE(same_both_ways(bad));
  auto r = serde::import_exported_program(bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::INPUT_NOT_JSON);
  CHECK(r.error().message == "invalid UTF-8: the sequence starting with byte 0xFF is not a character (JSON text is UTF-8)");
  CHECK(r.error().where.byte_offset == std::optional<uint64_t>(offset));
  // An encoded surrogate (U+D800), which Python's strict UTF-8 decoder refuses too.
  auto s = serde::import_exported_program(replace_first(good, "\"name\": \"x\"", "\"name\": \"\xED\xA0\x80\""));
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "invalid UTF-8: the sequence starting with byte 0xED is not a character (JSON text is UTF-8)");
}

TEST_CASE("stream: a NUL byte ends the text for both readers") {
  const std::string base = mlp();
  CHECK(same_both_ways(base + std::string(1, '\0') + "trailing bytes"));
  CHECK_FALSE(same_both_ways(base.substr(0, 100) + std::string(1, '\0') + base.substr(100)));
}

TEST_CASE("stream: in place, a failed read of the text again is the error") {
  const std::string broken = replace_first(mlp(), "\"nodes\": [", "\"nodes\": [7, ");  // the fast path gives up
  auto result = serde::import_exported_program(broken, {}, []() -> Result<std::string> {
    return make_error(ErrorCode::IO_ERROR, "cannot read \"models/model.json\": gone");
  });
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == ErrorCode::IO_ERROR);
  CHECK(result.error().message == "cannot read \"models/model.json\": gone");
  // A program the fast path reads never asks for the text again.
  auto fine = serde::import_exported_program(mlp(), {}, []() -> Result<std::string> {
    return make_error(ErrorCode::IO_ERROR, "not called");
  });
  REQUIRE(fine.ok());
  CHECK(fine->streamed);
}

TEST_CASE("stream: the work beside the import runs exactly once, whatever the reader and the result") {
  const std::string good = mlp();
  const std::string gives_up = replace_first(good, "\"nodes\": [", "\"nodes\": [7, ");  // DOM error
  const std::string not_json = good.substr(0, good.size() / 2);
  const std::string not_utf8 = replace_first(good, "in forward", "in \xFF forward");
  const std::thread::id caller = std::this_thread::get_id();
  const bool threads = BackgroundJob([] {}).threaded();
  for (const std::string* json : {&good, &gives_up, &not_json, &not_utf8}) {
    for (size_t min_bytes : {size_t{0}, SIZE_MAX}) {  // two threads (idle work) / one (its own thread)
      for (bool streaming : {true, false}) {
        for (int in_place = 0; in_place < 3; ++in_place) {  // no, yes, yes but the text cannot be read again
          CAPTURE(json == &good);
          CAPTURE(json == &gives_up);
          CAPTURE(json == &not_utf8);
          CAPTURE(min_bytes);
          CAPTURE(streaming);
          CAPTURE(in_place);
          int runs = 0;
          std::thread::id ran_on;
          serde::ImportOptions options;
          options.two_threads_min_bytes = min_bytes;
          options.two_threads_batch_events = 1;
          options.streaming = streaming;
          options.beside = [&runs, &ran_on] {
            ++runs;
            ran_on = std::this_thread::get_id();
          };
          auto reread = [json]() -> Result<std::string> { return *json; };
          auto no_reread = []() -> Result<std::string> {
            return make_error(ErrorCode::IO_ERROR, "cannot read the text again");
          };
          auto result = in_place == 0   ? serde::import_exported_program(*json, options)
                        : in_place == 1 ? serde::import_exported_program(*json, options, reread)
                                        : serde::import_exported_program(*json, options, no_reread);
          CHECK(result.ok() == (json == &good));
          CHECK(runs == 1);
          // A two-thread read does it on the calling thread (while it waits, or
          // after); a one-thread read on a thread of its own, where threads
          // start (natively; not under WebAssembly).
          CHECK((ran_on == caller) == (!threads || (streaming && min_bytes == 0)));
          if (json == &good) {
            REQUIRE(result.ok());
            CHECK(result->streamed == streaming);
            CHECK(result->program.graph().num_nodes() == 5);
          } else if (in_place == 2 && streaming && json != &not_utf8) {
            // The fast path consumed the text and gave up: the failed reread is the error.
            REQUIRE_FALSE(result.ok());
            CHECK(result.error().message == "cannot read the text again");
          } else if (json == &not_utf8) {
            // Refused before the fast path takes the text: never read again.
            REQUIRE_FALSE(result.ok());
            CHECK(result.error().code == ErrorCode::INPUT_NOT_JSON);
            CHECK(result.error().message.rfind("invalid UTF-8", 0) == 0);
          }
        }
      }
    }
  }
}

TEST_CASE("stream: the calling thread does the idle work while it waits for the tokenizing thread") {
  // Whether a batch is ready when the reader first looks depends on the
  // threads' timing, so over many reads: the reader waits (and does the work
  // then) in nearly all of them; never would mean the hook is not called.
  const std::string text = mlp();
  const std::thread::id caller = std::this_thread::get_id();
  int idle_runs = 0;
  for (int i = 0; i < 40; ++i) {
    serde::ImportOptions options;
    serde::JsonDocument doc;
    serde::detail::ImportContext ctx(doc, options);
    serde::detail::StreamedGraph out;
    int runs = 0;
    std::thread::id ran_on;
    const std::function<void()> work = [&runs, &ran_on] {
      ++runs;
      ran_on = std::this_thread::get_id();
    };
    serde::detail::IdleWork idle{&work};
    REQUIRE(serde::detail::stream_program(text, ctx, doc, out, /*batch_events=*/1, &idle));
    CHECK(runs == (idle.ran ? 1 : 0));
    if (idle.ran) {
      CHECK(ran_on == caller);
      ++idle_runs;
    }
    CHECK(out.graph.num_nodes() == 5);
  }
  // No second thread (WebAssembly): the read never waits.
  if (BackgroundJob([] {}).threaded()) {
    CHECK(idle_runs > 0);
  } else {
    CHECK(idle_runs == 0);
  }
  // Without a second batch size (one thread), there is no waiting and no idle work.
  serde::ImportOptions options;
  serde::JsonDocument doc;
  serde::detail::ImportContext ctx(doc, options);
  serde::detail::StreamedGraph out;
  const std::function<void()> work = [] { FAIL("idle work on a one-thread read"); };
  serde::detail::IdleWork idle{&work};
  REQUIRE(serde::detail::stream_program(text, ctx, doc, out, /*batch_events=*/0, &idle));
  CHECK_FALSE(idle.ran);
}
