// `inspect` for the WASM front door: the summary `pteforge inspect` prints
// (serde::summarize_program), for every program of an opened JS input.
#pragma once

#include <string>

#include "js_input.h"
#include "support/error.h"

namespace pteforge::wasm {

/// Largest program JSON read into the heap (bytes).
inline constexpr uint64_t kMaxProgramJsonBytes = uint64_t{1} << 30;

/// Imports every program the layout lists (or only `method` when not empty)
/// and returns serde::summary_to_json (json = true) or summary_to_text, as
/// `pteforge inspect [--json]` does for a program JSON file: a lone program
/// JSON is method "forward"; errors get where.method and, when no entry is
/// named, where.entry = the program entry (the input's name for a lone JSON).
/// Errors: those of read_entry and import_exported_program; OPTION_INVALID
/// when `method` is not in the input.
Result<std::string> inspect_input(JsInput& input, const std::string& method, bool json);

}  // namespace pteforge::wasm
