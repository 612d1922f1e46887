// convert for the WASM front door (see convert.h).
#include "convert.h"

#include <string>
#include <utility>
#include <vector>

#include "js_values.h"
#include "options.h"
#include "passes/memory_plan/memory_plan.h"
#include "passes/module_swap_api.h"
#include "passes/pass_manager.h"

namespace pteforge::wasm {

using emscripten::val;

Result<ConvertRequest> parse_convert_options(std::string_view json) {
  PTEFORGE_ASSIGN_OR_RETURN(OptionsReader options, OptionsReader::parse(json));
  ConvertRequest request;
  ConvertOptions& out = request.options;
  if (auto passes = options.take("passes"); passes && passes->is_array() && passes->value().Empty()) {
    // An empty list would silently mean the default pipeline (as the CLI's --passes '').
    return passes->error(
        ErrorCode::OPTION_INVALID,
        "option passes is an empty list: name the passes to run, or leave passes out for the "
        "default pipeline");
  }
  PTEFORGE_ASSIGN_OR_RETURN(out.pipeline.passes, options.get_strings("passes"));
  {
    // Refused before anything is read, as PassManager::create refuses them
    // (check_pass_list), but pointing at the item: an unknown (or
    // unrunnable) pass, then the first pass out of the default pipeline's order.
    size_t at = 0;
    if (Status list = passes::check_pass_list(out.pipeline.passes, &at); !list.ok()) {
      Error e = std::move(list).error();
      e.where = Location{};
      e.where.pointer = "/passes/" + std::to_string(at);
      return e;
    }
  }
  PTEFORGE_ASSIGN_OR_RETURN(out.pipeline.preserve_ops, options.get_strings("preserveOps"));
  PTEFORGE_ASSIGN_OR_RETURN(out.pipeline.memory_planning,
                            options.get_string("memoryPlanning", out.pipeline.memory_planning));
  if (Result<memplan::Algorithm> algorithm = memplan::parse_algorithm(out.pipeline.memory_planning);
      !algorithm.ok()) {
    // Refused before anything is read, as the CLI refuses --memory-planning.
    Error e = std::move(algorithm).error();
    e.where = Location{};
    e.where.pointer = "/memoryPlanning";
    return e;
  }
  if (auto cm = options.take("constantMethods"); cm && cm->is_string()) {
    // The map's JSON text, read by the core as the CLI reads --constant-method
    // values: 2.0 stays a float and integers past 2^53 stay exact, which a JS
    // object cannot say (2.0 === 2 there).
    PTEFORGE_ASSIGN_OR_RETURN(std::string_view text, cm->as_string());
    // Empty or blank text gives no methods, as an empty object does.
    if (text.find_first_not_of(" \t\r\n") != std::string_view::npos)
      out.constant_methods_json = std::string(text);
  } else if (cm) {
    if (!cm->is_object()) {
      return cm->error(ErrorCode::OPTION_INVALID,
                       "option constantMethods must be an object {name: value} or its JSON text");
    }
    out.constant_methods_json = compact_json(cm->value());
  }
  PTEFORGE_ASSIGN_OR_RETURN(out.init_buffers, options.get_bool("initBuffers", out.init_buffers));
  PTEFORGE_ASSIGN_OR_RETURN(out.emit_stacktrace, options.get_bool("stackTraces", out.emit_stacktrace));
  PTEFORGE_ASSIGN_OR_RETURN(out.report_times, options.get_bool("reportTimes", out.report_times));
  PTEFORGE_ASSIGN_OR_RETURN(out.export_programs, options.get_bool("exportProgram", out.export_programs));
  if (auto swaps = options.take("swaps")) {
    if (!swaps->is_object()) {
      return swaps->error(ErrorCode::OPTION_INVALID, "option swaps must be an object {module FQN: replacement}");
    }
    for (auto it = swaps->value().MemberBegin(); it != swaps->value().MemberEnd(); ++it) {
      request.swaps.emplace_back(std::string(it->name.GetString(), it->name.GetStringLength()),
                                 compact_json(it->value));
    }
  }
  PTEFORGE_TRY(options.reject_unknown());
  return request;
}

Status open_swaps(ConvertRequest& request, const JsReader& reader, std::vector<std::unique_ptr<JsInput>>& opened) {
  for (const auto& [fqn, description] : request.swaps) {
    auto input = open_js_input(description, reader);
    if (!input.ok()) {
      Error e = std::move(input).error();
      e.notes.push_back("while opening the replacement for module '" + fqn + "' (options.swaps)");
      return e;
    }
    opened.push_back(std::make_unique<JsInput>(std::move(input).value()));
    request.options.swaps.push_back(
        SwapInput{fqn, opened.back()->archive.get(), opened.back()->layout, "", opened.back()->name});
  }
  return Status::Ok();
}

Result<val> chunks_to_js(const std::vector<emit::Chunk>& chunks, const JsInput& input,
                         const std::vector<SwapInput>& swap_inputs, const std::vector<std::unique_ptr<JsInput>>& swaps) {
  // The input and entry a range refers to: a labelled source is a swap's.
  auto locate = [&](const emit::InputRange& range) -> Result<JsLocation> {
    if (std::optional<emit::LabelledSource> part = emit::split_labelled_source(range.source)) {
      for (size_t i = 0; i < swap_inputs.size() && i < swaps.size(); ++i) {
        if (passes::swap_source_label(swap_inputs[i].fqn) != part->label) continue;
        const std::string entry = swaps[i]->layout.entry_name(std::string(part->entry));
        return swaps[i]->locate(entry, range.offset);
      }
    }
    return input.locate(range.source, range.offset);
  };
  // Two arrays instead of one JS object per chunk (thousands of embind calls
  // for an archive of small weights): every owned byte in one buffer, and a
  // table of four numbers per chunk (api.mjs chunksFromTable).
  std::vector<uint8_t> bytes;
  std::vector<double> table;
  uint64_t owned = 0;
  for (const emit::Chunk& chunk : chunks) owned += chunk.is_bytes() ? chunk.bytes().size() : 0;
  if (owned > bytes.max_size()) {  // reserve would abort: wasm32 blocks stay under 2 GiB
    return make_error(ErrorCode::OUT_OF_MEMORY,
                      "the .pte's own bytes (all but the weights it references) are " +
                          std::to_string(owned) +
                          " bytes, more than WebAssembly memory holds in one block (" +
                          std::to_string(bytes.max_size()) + " bytes); use the native pteforge CLI");
  }
  bytes.reserve(static_cast<size_t>(owned));  // one allocation instead of a copy per growth step
  size_t run_start = 0;  // first byte of the owned run being gathered
  auto flush = [&] {
    if (bytes.size() > run_start) {
      table.insert(table.end(), {0.0, static_cast<double>(run_start), static_cast<double>(bytes.size() - run_start), 0.0});
    }
    run_start = bytes.size();
  };
  for (const emit::Chunk& chunk : chunks) {
    if (chunk.is_bytes()) {
      bytes.insert(bytes.end(), chunk.bytes().begin(), chunk.bytes().end());
      continue;
    }
    flush();
    const emit::InputRange& range = chunk.range();
    PTEFORGE_ASSIGN_OR_RETURN(JsLocation at, locate(range));
    table.insert(table.end(), {1.0, static_cast<double>(at.source), static_cast<double>(at.offset),
                               static_cast<double>(range.length)});
  }
  flush();
  val out = val::object();
  out.set("bytes", copy_to_js(bytes.data(), bytes.size()));
  // The Float64Array constructor copies from the view before the heap can grow.
  out.set("table", val::global("Float64Array").new_(emscripten::typed_memory_view(table.size(), table.data())));
  return out;
}

}  // namespace pteforge::wasm
