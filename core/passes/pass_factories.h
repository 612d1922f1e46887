// Factory declarations of the implemented passes (one per pass file); the
// registry table in pass_registry.cpp refers to them.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace pteforge::passes {

std::unique_ptr<Pass> make_eliminate_dead_code_pass();
std::unique_ptr<Pass> make_swap_modules_pass();
std::unique_ptr<Pass> make_outline_modules_pass();
std::unique_ptr<Pass> make_remove_pytree_pairs_pass();
std::unique_ptr<Pass> make_replace_modules_pass();
std::unique_ptr<Pass> make_inline_modules_pass();

}  // namespace pteforge::passes
