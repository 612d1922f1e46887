// `convert` for the WASM front door: JS options → pteforge::ConvertOptions,
// and the façade's chunk list → JS chunks (owned bytes as Uint8Array, weight
// ranges as {source, offset, length} into the JS inputs).
#pragma once

#include <emscripten/val.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "js_input.h"
#include "pteforge/pteforge.h"
#include "support/error.h"

namespace pteforge::wasm {

/// convert()'s options, with the swaps' input descriptions still to open.
struct ConvertRequest {
  ConvertOptions options;  ///< options.swaps is filled by open_swaps
  /// Module FQN → description of its replacement input (js_input.h), in key order.
  std::vector<std::pair<std::string, std::string>> swaps;
};

/// Parses the options object of convert() (ConvertOptions in wasm/types/index.d.ts):
///   passes: string[], memoryPlanning: string, constantMethods: object,
///   initBuffers: bool, stackTraces: bool, reportTimes: bool (default true),
///   exportProgram: bool (the programs after the passes, as JSON),
///   swaps: {fqn: input description}.
/// Errors: OPTION_INVALID with where.pointer (unknown keys too).
Result<ConvertRequest> parse_convert_options(std::string_view json);

/// Opens every replacement input of `request` into `opened` (kept alive by
/// the caller until the chunks are turned into JS) and adds a SwapInput per
/// module to request.options.swaps. Errors: open_js_input's, with a note
/// naming the module.
Status open_swaps(ConvertRequest& request, const JsReader& reader, std::vector<std::unique_ptr<JsInput>>& opened);

/// The chunks of `result` for JS, as {bytes, table}: `bytes` (Uint8Array)
/// holds every owned byte, copied out of the heap; `table` (Float64Array)
/// has four numbers per chunk, in order: [0, start, length, 0] for a run of
/// adjacent owned chunks (bytes[start, start+length)), [1, source, offset,
/// length] for an input range, where `source` indexes the JS inputs (a range
/// of archive entry `e` at offset o is byte JsInput::locate(e, o) of that
/// input). api.mjs chunksFromTable turns it into the chunk list.
/// A range of a swapped-in module's weights ("swap:<fqn>::<entry>",
/// emit::labelled_source) is located in that module's input (`swaps`, as
/// open_swaps opened them, in request.options.swaps order).
/// Errors: INTERNAL when a range names no stored entry of its input.
Result<emscripten::val> chunks_to_js(const std::vector<emit::Chunk>& chunks, const JsInput& input,
                                     const std::vector<SwapInput>& swap_inputs = {},
                                     const std::vector<std::unique_ptr<JsInput>>& swaps = {});

}  // namespace pteforge::wasm
