// Substituting outlined modules with replacement programs (the core of the
// replace_modules pass).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "passes/pipeline_options.h"
#include "support/error.h"

namespace pteforge::passes::module_swap {

struct ReplaceTotals {
  size_t modules = 0;
  size_t state_added = 0;    ///< parameters/buffers/constants that came with replacements
  size_t state_removed = 0;  ///< state of the old modules that nothing uses any more
  size_t symbols_bound = 0;  ///< replacement symbols bound to program sizes
};

/// The requests that apply to method `method` (SwapRequest::method "" or equal).
std::vector<SwapRequest> swaps_for_method(const std::vector<SwapRequest>& swaps, const std::string& method);

/// Checks the requests themselves: OPTION_INVALID for a module named twice or
/// a request without a replacement program; MODULE_SWAP when one requested
/// module contains another (the outer replacement replaces the inner one too).
Status check_swap_requests(const std::vector<SwapRequest>& swaps);

/// The swap's rule on an outlined module's results, which needs no
/// replacement: each output of `call`'s body (a call_module node) is computed
/// inside it, not an input or outside value passed through (its uses could
/// not be told apart from the value's other uses). UNSUPPORTED_FEATURE naming
/// the output; inspect's module list uses it to say a module is not swappable.
Status check_outputs_computed(const ir::Node& call);

/// Checks a replacement against the module it replaces before anything
/// changes. Errors: MODULE_SWAP naming what differs (in_spec, out_spec,
/// number of inputs/outputs, an input's or output's kind, dtype or shape,
/// a constant input's value) or that the replacement reads an input the
/// program does not have; UNSUPPORTED_FEATURE for replacements with
/// mutation/gradient/token outputs or custom-object/token inputs, or for a
/// module whose outputs are not computed inside it (pass-through outputs);
/// WEIGHTS_MISSING when the program's state is bound but the replacement's
/// is not.
Status check_replacement(const ir::ExportedProgram& ep, const ir::Node& call, const ir::ExportedProgram& replacement);

/// For every request, replaces the body of the call_module of `fqn` by the
/// replacement program (seed 004: the swapped module receives the module's
/// flat inputs; its outputs become the module's outputs):
///  - the replacement's user inputs become the body's flat inputs; its
///    parameters, buffers and constants become new state of the program
///    named `<fqn>.<name>` (placeholders p_/b_/c_ + FQN with '_'), placed
///    where the old module's state of that kind was (else after the last
///    state of that kind), and captured by the call; their StateBinding
///    entries come along (storages keep the replacement's `source` label;
///    an empty label becomes "swap:<fqn>");
///  - the old module's state that nothing else reads is removed (graph
///    input, input spec, StateBinding entry);
///  - replacement symbols are bound to the program's sizes (sym_bind.h);
///  - replacement nodes get nn_module_stack paths under `fqn` (their frames
///    follow the module's own frames) and no input origin;
///  - module_call_graph: entries below `fqn` are replaced by the
///    replacement's (prefixed, without signatures).
/// Errors: those of check_replacement; INTERNAL when no call_module for
/// `fqn` exists (outline_modules did not run).
Result<ReplaceTotals> replace_modules(ir::ExportedProgram& ep, const std::vector<SwapRequest>& swaps);

}  // namespace pteforge::passes::module_swap
