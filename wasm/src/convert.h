// `convert` for the WASM front door: JS options → pteforge::ConvertOptions,
// and the façade's chunk list → JS chunks (owned bytes as Uint8Array, weight
// ranges as {source, offset, length} into the JS inputs).
#pragma once

#include <emscripten/val.h>

#include <string_view>

#include "js_input.h"
#include "pteforge/pteforge.h"
#include "support/error.h"

namespace pteforge::wasm {

/// Parses the options object of convert() (ConvertOptions in wasm/types/index.d.ts):
///   passes: string[], memoryPlanning: string, constantMethods: object,
///   initBuffers: bool, stackTraces: bool, reportTimes: bool (default true),
///   swaps: {fqn: input description} (not supported by the core yet: a
///   non-empty map is UNSUPPORTED_FEATURE).
/// Errors: OPTION_INVALID with where.pointer (unknown keys too).
Result<ConvertOptions> parse_convert_options(std::string_view json);

/// The chunks of `result` for JS: adjacent owned chunks are joined into one
/// Uint8Array (copied out of the heap), and a range chunk becomes
/// {source, offset, length} where `source` indexes the JS inputs (a range of
/// archive entry `e` at offset o is byte JsInput::locate(e, o) of that input).
/// Errors: INTERNAL when a range names no stored entry of `input`.
Result<emscripten::val> chunks_to_js(const std::vector<emit::Chunk>& chunks, const JsInput& input);

}  // namespace pteforge::wasm
