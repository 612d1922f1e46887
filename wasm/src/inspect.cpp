// inspect for the WASM front door (see inspect.h): the façade's inspect.
#include "inspect.h"

#include <utility>

#include "pteforge/pteforge.h"

namespace pteforge::wasm {

Result<std::string> inspect_input(JsInput& input, const std::string& method, bool json) {
  serde::Pt2Layout layout = input.layout;
  PTEFORGE_TRY(layout.keep_method(method));  // as `pteforge inspect --method`
  // Errors name the entry as the CLI does (a lone program JSON: its file name).
  auto text = pteforge::inspect(*input.archive, layout, json);
  return text;
}

}  // namespace pteforge::wasm
