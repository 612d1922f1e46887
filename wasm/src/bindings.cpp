// The embind surface of the pteforge module: a handful of free functions over
// JSON strings, bytes and JS callbacks (engineering-notes D9; manifold's
// two-layer API, B1): the raw names start with '_' and only the JS wrapper
// (wasm/js/api.mjs) calls them. No classes (nothing to delete()), no 64-bit
// integers (E8), nothing throws: every function returns {ok:true, ...} or
// {ok:false, error:"<Error JSON>"}.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

#include "convert.h"
#include "emit/extended_header.h"
#include "emit/pte_decode.h"
#include "inspect.h"
#include "js_input.h"
#include "js_io.h"
#include "js_values.h"
#include "options.h"
#include "passes/module_swap_api.h"
#include "serde/pt2_layout.h"

#ifndef PTEFORGE_VERSION
#define PTEFORGE_VERSION "0.0.0"
#endif

namespace pteforge::wasm {
namespace {

using emscripten::val;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

/// {"name","version","emscripten","features":[...],"errorCodes":[{"code","summary"}]}
std::string version_json() {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("name");
  w.String("pteforge");
  w.Key("version");
  w.String(PTEFORGE_VERSION);
  w.Key("emscripten");
  w.String(std::to_string(__EMSCRIPTEN_major__) + "." + std::to_string(__EMSCRIPTEN_minor__) + "." +
           std::to_string(__EMSCRIPTEN_tiny__));
  w.Key("features");
  w.StartArray();
  for (const char* f : {"decodePte", "layout", "inspect", "convert", "listPasses", "listModules"}) w.String(f);
  w.EndArray();
  w.Key("errorCodes");
  w.StartArray();
  for (ErrorCode code : all_error_codes()) {
    w.StartObject();
    w.Key("code");
    w.String(std::string(error_code_name(code)));
    w.Key("summary");
    w.String(std::string(error_code_summary(code)));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buffer.GetString();
}

/// How many leading bytes of a .pte of `file_size` bytes decoding needs,
/// given its first bytes `head` (64 are enough): the program part when an
/// extended header says how long it is, else the whole file (as `pteforge
/// decode` reads it). Never fails; a broken header means "all of it", and
/// decodePte reports the problem.
double pte_prefix_size(val head, double file_size) {
  const std::string bytes = copy_from_js(head);
  const uint64_t size = static_cast<uint64_t>(file_size);
  auto header = emit::parse_extended_header(bytes);
  if (header.ok() && header->has_value() && (*header)->program_size <= size) {
    return static_cast<double>(std::max<uint64_t>((*header)->program_size, bytes.size()));
  }
  return file_size;
}

/// The load check as JSON: {"passed", "methods", "total", "problems":
/// [{"pointer", "message", "atExecution"}]} (the first 100 problems).
std::string load_check_json(const emit::DecodedPte& decoded) {
  const emit::LoadCheck& check = decoded.load_check;
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("passed");
  w.Bool(check.total == 0);
  w.Key("methods");
  w.Uint64(decoded.program.execution_plan.size());
  w.Key("total");
  w.Uint64(check.total);
  w.Key("problems");
  w.StartArray();
  for (const emit::LoadProblem& p : check.problems) {
    w.StartObject();
    w.Key("pointer");
    w.String(p.pointer);
    w.Key("message");
    w.String(p.message);
    w.Key("atExecution");
    w.Bool(p.at_execution);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buffer.GetString();
}

/// Decodes a .pte (or its first pte_prefix_size bytes); `name` names it in
/// where.entry. `format` "json" | "flatc" | "summary" gives {ok, text} with
/// the CLI's output (`decode --json`, `--flatc-json`, or the summary);
/// "check" gives {ok, text} with load_check_json (`decode --check`'s
/// findings), "check_text" with what `decode --check` prints; {ok:false,
/// error} when the file does not decode.
val decode_pte(val bytes, double file_size, std::string name, std::string format) {
  const std::string data = copy_from_js(bytes);
  emit::DecodeOptions options;
  options.source_name = std::move(name);
  options.file_size = static_cast<uint64_t>(file_size);
  options.check_load = format == "check" || format == "check_text";
  auto decoded = emit::decode_pte(data, options);
  if (!decoded.ok()) return error_result(decoded.error());
  val result = ok_result();
  if (format == "check") {
    result.set("text", text_to_js(load_check_json(*decoded)));
  } else if (format == "check_text") {
    result.set("text", text_to_js(emit::format_load_check(decoded->load_check,
                                                          decoded->program.execution_plan.size())));
  } else if (format == "flatc") {
    result.set("text", text_to_js(emit::decoded_pte_to_json(*decoded, emit::PteJsonStyle::Flatc)));
  } else if (format == "summary") {
    result.set("text", text_to_js(emit::format_pte_summary(*decoded)));
  } else {
    result.set("text", text_to_js(emit::decoded_pte_to_json(*decoded, emit::PteJsonStyle::Readable)));
  }
  return result;
}

void write_optional(JsonWriter& w, const char* key, const std::optional<std::string>& v) {
  w.Key(key);
  if (v) {
    w.String(*v);
  } else {
    w.Null();
  }
}

/// The archive layout of an input as JSON: kind, root, byteorder, models
/// (name, method, record entries) and entries (name, size, stored).
std::string layout_json(const JsInput& input) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("kind");
  w.String(std::string(serde::layout_kind_name(input.layout.kind)));
  w.Key("root");
  w.String(input.layout.root);
  w.Key("byteorder");
  w.String(input.layout.byteorder == serde::ByteOrder::kLittle ? "little" : "big");
  w.Key("models");
  w.StartArray();
  for (const serde::Pt2Model& m : input.layout.models) {
    w.StartObject();
    w.Key("name");
    w.String(m.name);
    w.Key("method");
    w.String(m.method);
    w.Key("program_entry");
    w.String(m.program_entry);
    write_optional(w, "weights_config_entry", m.weights_config_entry);
    write_optional(w, "constants_config_entry", m.constants_config_entry);
    w.EndObject();
  }
  w.EndArray();
  w.Key("entries");
  w.StartArray();
  for (const serde::ArchiveEntry& e : input.archive->entries()) {
    w.StartObject();
    w.Key("name");
    w.String(e.name);
    w.Key("size");
    w.Uint64(e.size);
    w.Key("stored");
    w.Bool(e.stored);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buffer.GetString();
}

/// Opens an input (js_input.h) and returns {ok, text: layout JSON}.
val layout(std::string input_json, val read, val inflate) {
  JsReader reader(std::move(read), std::move(inflate));
  auto input = open_js_input(input_json, reader);
  if (!input.ok()) return error_result(input.error());
  val result = ok_result();
  result.set("text", text_to_js(layout_json(*input)));
  return result;
}

/// The options of inspect and listModules: {"format": "json" | "text", "method": name}.
struct TextOptions {
  bool text = false;   ///< format "text"
  std::string method;  ///< "" = every method (inspect) / the only one (listModules)
};

/// Parses TextOptions. Errors: OPTION_INVALID with where.pointer (unknown keys too).
Result<TextOptions> parse_text_options(const std::string& options_json) {
  PTEFORGE_ASSIGN_OR_RETURN(OptionsReader options, OptionsReader::parse(options_json));
  PTEFORGE_ASSIGN_OR_RETURN(std::string format, options.get_string("format", "json"));
  TextOptions out;
  PTEFORGE_ASSIGN_OR_RETURN(out.method, options.get_string("method"));
  PTEFORGE_TRY(options.reject_unknown());
  if (format != "json" && format != "text") {
    Location where;
    where.pointer = "/format";
    return make_error(ErrorCode::OPTION_INVALID, "format must be \"json\" or \"text\"", where);
  }
  out.text = format == "text";
  return out;
}

/// inspect: TextOptions. Returns {ok, text} with `pteforge inspect [--json]`'s output.
val inspect(std::string input_json, val read, val inflate, std::string options_json) {
  auto options = parse_text_options(options_json);
  if (!options.ok()) return error_result(options.error());
  JsReader reader(std::move(read), std::move(inflate));
  auto input = open_js_input(input_json, reader);
  if (!input.ok()) return error_result(input.error());
  auto text = inspect_input(*input, options->method, !options->text);
  if (!text.ok()) return error_result(text.error());
  val result = ok_result();
  result.set("text", text_to_js(*text));
  return result;
}

/// Calls the JS progress callback (which never throws: the wrapper guards it).
void report_progress(const val& progress, const char* stage, double done, double total) {
  if (progress.isUndefined() || progress.isNull()) return;
  progress(std::string(stage), done, total);
}

/// Checks convert's options JSON as convert reads them, without an input:
/// {ok} or {ok: false, error} (the async API refuses bad options first).
val check_convert_options(std::string options_json) {
  auto request = parse_convert_options(options_json);
  if (!request.ok()) return error_result(request.error());
  return ok_result();
}

/// convert: options as parse_convert_options reads them. Returns {ok, chunks,
/// metadata, report[, program]} (chunks_to_js; the rest as JSON text).
val convert(std::string input_json, val read, val inflate, std::string options_json, val progress) {
  auto request = parse_convert_options(options_json);
  if (!request.ok()) return error_result(request.error());
  JsReader reader(std::move(read), std::move(inflate));
  report_progress(progress, "read", 0, 1);
  auto input = open_js_input(input_json, reader);
  if (!input.ok()) return error_result(input.error());
  std::vector<std::unique_ptr<JsInput>> swaps;  // open until the chunks are in JS
  if (Status s = open_swaps(*request, reader, swaps); !s.ok()) return error_result(s.error());
  report_progress(progress, "read", 1, 1);
  request->options.on_progress = [&progress](std::string_view stage, uint64_t done, uint64_t total) {
    report_progress(progress, std::string(stage).c_str(), static_cast<double>(done), static_cast<double>(total));
  };
  auto result = pteforge::convert(*input->archive, input->layout, request->options);
  if (!result.ok()) return error_result(result.error());
  auto chunks = chunks_to_js(result->pte.chunks, *input, request->options.swaps, swaps);
  if (!chunks.ok()) return error_result(chunks.error());
  val out = ok_result();
  out.set("chunks", *chunks);
  out.set("metadata", text_to_js(result->metadata_json));
  out.set("report", text_to_js(result->report_json));
  if (request->options.export_programs) out.set("program", text_to_js(result->programs_json));
  return out;
}

/// listModules: TextOptions (method "" = the only method). Returns {ok, text}:
/// passes::modules_to_json / _to_text of the program's module tree (which
/// modules exist, which can be swapped), as `pteforge inspect --modules`.
val list_modules(std::string input_json, val read, val inflate, std::string options_json) {
  auto options = parse_text_options(options_json);
  if (!options.ok()) return error_result(options.error());
  JsReader reader(std::move(read), std::move(inflate));
  auto input = open_js_input(input_json, reader);
  if (!input.ok()) return error_result(input.error());
  if (options->method.empty() && input->layout.models.size() > 1) {
    // One method's tree is returned: which one must be said, not guessed.
    std::string names;
    for (const auto& m : input->layout.models) names += (names.empty() ? "" : ", ") + m.method;
    Location where;
    where.pointer = "/method";
    return error_result(make_error(ErrorCode::OPTION_INVALID,
                                   "the input has " + std::to_string(input->layout.models.size()) +
                                       " methods (" + names + "); listModules lists one: give options.method",
                                   std::move(where)));
  }
  // The module tree needs no weights (a program JSON alone lists its modules).
  auto program =
      passes::load_program(*input->archive, input->layout, options->method, "", /*bind_weights=*/false);
  if (!program.ok()) return error_result(program.error());
  const std::vector<passes::ModuleInfo> modules = passes::list_modules(*program);
  val result = ok_result();
  result.set("text", text_to_js(options->text ? passes::modules_to_text(modules) : passes::modules_to_json(modules)));
  return result;
}

/// Every registered pass: [{"name", "summary", "group", "implemented", "default"}].
std::string list_passes() { return pteforge::list_passes_json(); }

}  // namespace
}  // namespace pteforge::wasm

EMSCRIPTEN_BINDINGS(pteforge) {
  using namespace pteforge::wasm;
  emscripten::function("_version", &version_json);
  emscripten::function("_ptePrefixSize", &pte_prefix_size);
  emscripten::function("_decodePte", &decode_pte);
  emscripten::function("_layout", &layout);
  emscripten::function("_inspect", &inspect);
  emscripten::function("_convert", &convert);
  emscripten::function("_checkConvertOptions", &check_convert_options);
  emscripten::function("_listPasses", &list_passes);
  emscripten::function("_listModules", &list_modules);
}
