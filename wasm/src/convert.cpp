// convert for the WASM front door (see convert.h).
#include "convert.h"

#include <utility>
#include <vector>

#include "js_values.h"
#include "options.h"

namespace pteforge::wasm {

using emscripten::val;

Result<ConvertOptions> parse_convert_options(std::string_view json) {
  PTEFORGE_ASSIGN_OR_RETURN(OptionsReader options, OptionsReader::parse(json));
  ConvertOptions out;
  PTEFORGE_ASSIGN_OR_RETURN(out.pipeline.passes, options.get_strings("passes"));
  PTEFORGE_ASSIGN_OR_RETURN(out.pipeline.memory_planning,
                            options.get_string("memoryPlanning", out.pipeline.memory_planning));
  PTEFORGE_ASSIGN_OR_RETURN(out.constant_methods_json, options.get_json("constantMethods", true));
  PTEFORGE_ASSIGN_OR_RETURN(out.init_buffers, options.get_bool("initBuffers", out.init_buffers));
  PTEFORGE_ASSIGN_OR_RETURN(out.emit_stacktrace, options.get_bool("stackTraces", out.emit_stacktrace));
  PTEFORGE_ASSIGN_OR_RETURN(out.report_times, options.get_bool("reportTimes", out.report_times));
  if (auto swaps = options.take("swaps")) {
    if (!swaps->is_object()) {
      return swaps->error(ErrorCode::OPTION_INVALID, "option swaps must be an object {module FQN: replacement}");
    }
    if (swaps->value().MemberCount() > 0) {
      Error e = swaps->error(ErrorCode::UNSUPPORTED_FEATURE,
                             "module swaps are not available in this build of pteforge yet");
      return e;
    }
  }
  PTEFORGE_TRY(options.reject_unknown());
  return out;
}

Result<val> chunks_to_js(const std::vector<emit::Chunk>& chunks, const JsInput& input) {
  val out = val::array();
  std::vector<uint8_t> pending;  // adjacent owned chunks, joined
  unsigned n = 0;
  auto flush = [&] {
    if (pending.empty()) return;
    out.set(n++, copy_to_js(pending.data(), pending.size()));
    pending.clear();
  };
  for (const emit::Chunk& chunk : chunks) {
    if (chunk.is_bytes()) {
      pending.insert(pending.end(), chunk.bytes().begin(), chunk.bytes().end());
      continue;
    }
    flush();
    const emit::InputRange& range = chunk.range();
    PTEFORGE_ASSIGN_OR_RETURN(JsLocation at, input.locate(range.source, range.offset));
    val piece = val::object();
    piece.set("source", at.source);
    piece.set("offset", static_cast<double>(at.offset));
    piece.set("length", static_cast<double>(range.length));
    out.set(n++, piece);
  }
  flush();
  return out;
}

}  // namespace pteforge::wasm
