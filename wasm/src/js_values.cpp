// Values crossing the embind boundary (see js_values.h).
#include "js_values.h"

namespace pteforge::wasm {

using emscripten::typed_memory_view;
using emscripten::val;

std::string copy_from_js(const val& bytes) {
  const size_t n = static_cast<size_t>(bytes["length"].as<double>());
  std::string out(n, '\0');
  if (n > 0) {
    val(typed_memory_view(n, reinterpret_cast<uint8_t*>(out.data()))).call<void>("set", bytes);
  }
  return out;
}

val copy_to_js(const uint8_t* data, size_t size) {
  // The Uint8Array constructor copies from the view before anything can grow the heap.
  return val::global("Uint8Array").new_(typed_memory_view(size, data));
}

val text_to_js(std::string_view text) {
  static const val decoder = val::global("TextDecoder").new_(std::string("utf-8"));
  // decode() copies out of the heap view before anything can grow the heap.
  return decoder.call<val>("decode", emscripten::typed_memory_view(
                                         text.size(), reinterpret_cast<const uint8_t*>(text.data())));
}

val ok_result() {
  val result = val::object();
  result.set("ok", true);
  return result;
}

val error_result(const Error& error) {
  val result = val::object();
  result.set("ok", false);
  result.set("error", error.to_json());
  return result;
}

}  // namespace pteforge::wasm
