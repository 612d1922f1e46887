// The pass registry: one explicit list of every pass (no static
// self-registration, engineering-notes F3) and the default pipeline, whose
// names and order are fixed by design.md ("The default pipeline").
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "passes/pass.h"

namespace pteforge::passes {

struct RegisteredPass {
  std::string_view name;
  std::string_view summary;
  std::string_view group;
  /// nullptr while the pass is not implemented yet (running it is UNSUPPORTED_FEATURE).
  PassFactory factory;
  /// Part of the default pipeline (false for sub-passes such as outline_modules).
  bool in_default_pipeline;
};

/// Every pass in default-pipeline order, then the sub-passes.
const std::vector<RegisteredPass>& registered_passes();
/// The registry entry of `name`, or nullptr.
const RegisteredPass* find_pass(std::string_view name);
/// Names of the default pipeline in order (design.md).
std::vector<std::string> default_pipeline();
/// A new instance of pass `name`. UNKNOWN_PASS (with the valid names in a note)
/// when the name is not registered; UNSUPPORTED_FEATURE when not implemented.
Result<std::unique_ptr<Pass>> create_pass(std::string_view name);

}  // namespace pteforge::passes
