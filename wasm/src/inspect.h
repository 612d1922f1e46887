// `inspect` for the WASM front door: the summary `pteforge inspect` prints
// (serde::summarize_program), for every program of an opened JS input.
#pragma once

#include <string>

#include "js_input.h"
#include "support/error.h"

namespace pteforge::wasm {

/// pteforge::inspect over every program the layout lists (or only `method`
/// when not empty): serde::summary_to_json (json = true) or summary_to_text,
/// as `pteforge inspect [--json]` prints them. A lone program JSON is method
/// "forward" and its errors name its file name (where.entry), as the CLI's. Errors: the façade's; OPTION_INVALID when `method` is
/// not in the input.
Result<std::string> inspect_input(JsInput& input, const std::string& method, bool json);

}  // namespace pteforge::wasm
