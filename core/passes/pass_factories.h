// Factory declarations of the implemented passes (one per pass file); the
// registry table in pass_registry.cpp refers to them.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace pteforge::passes {

std::unique_ptr<Pass> make_eliminate_dead_code_pass();

}  // namespace pteforge::passes
