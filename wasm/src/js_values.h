// Values crossing the embind boundary: bytes in (one bulk copy into the heap)
// and results out as plain objects {ok:true, ...} / {ok:false, error:"<Error JSON>"}
// (engineering-notes D9: JSON and bytes only, nothing throws across).
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace pteforge::wasm {

/// Copies a JS Uint8Array into a new string with one TypedArray.set (E16:
/// std::string parameters would copy byte by byte).
std::string copy_from_js(const emscripten::val& bytes);

/// A new JS Uint8Array holding a copy of `bytes` (valid after heap growth, E9).
emscripten::val copy_to_js(const uint8_t* data, size_t size);

/// A JS string decoded (TextDecoder, UTF-8) from `text`: for big results
/// (metadata, decoded .pte JSON), where embind's std::string conversion walks
/// every byte in JS twice.
emscripten::val text_to_js(std::string_view text);

/// {ok: true}
emscripten::val ok_result();
/// {ok: false, error: error.to_json()}
emscripten::val error_result(const Error& error);

}  // namespace pteforge::wasm
