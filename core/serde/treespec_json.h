// TreeSpec text codec (ModuleCallSignature.in_spec / out_spec, §8.2).
#pragma once

#include <string>
#include <string_view>

#include "ir/treespec.h"
#include "support/error.h"

namespace pteforge::serde {

/// Parses treespec JSON text `[protocol, node]`. Errors: INPUT_SCHEMA (not
/// JSON, wrong shape, protocol other than 1, a leaf with children, nesting
/// deeper than 256 levels); the message names the place inside the text, the
/// caller adds the pointer of the string.
Result<ir::TreeSpec> parse_treespec(std::string_view text);

/// The treespec text exactly as PyTorch writes it (json.dumps of
/// [protocol, {"type", "context", "children_spec"}]).
std::string format_treespec(const ir::TreeSpec& spec);

}  // namespace pteforge::serde
