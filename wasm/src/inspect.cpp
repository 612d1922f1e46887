// inspect for the WASM front door (see inspect.h): the façade's inspect.
#include "inspect.h"

#include <utility>

#include "pteforge/pteforge.h"

namespace pteforge::wasm {

Result<std::string> inspect_input(JsInput& input, const std::string& method, bool json) {
  serde::Pt2Layout layout = input.layout;
  if (!method.empty()) {
    std::erase_if(layout.models, [&](const serde::Pt2Model& m) { return m.method != method; });
    if (layout.models.empty()) {
      Location where;
      where.method = method;
      return make_error(ErrorCode::OPTION_INVALID, "the input has no method \"" + method + "\"", std::move(where));
    }
  }
  // Errors name the entry as the CLI does (a lone program JSON: its file name).
  auto text = pteforge::inspect(*input.archive, layout, json);
  return text;
}

}  // namespace pteforge::wasm
