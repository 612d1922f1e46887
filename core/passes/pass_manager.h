// PassManager: runs a named list of passes over one method, times each one,
// runs the IR verifier between passes when asked (debug builds and tests),
// and records a PassReport (design.md "Passes").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "passes/pass.h"

namespace pteforge::passes {

/// What one pass did to one method.
struct PassRecord {
  std::string name;
  std::string method;
  double ms = 0;               ///< wall time in milliseconds
  bool changed = false;
  bool skipped = false;        ///< default pipeline only: not implemented yet
  size_t nodes_before = 0;
  size_t nodes_after = 0;
  std::map<std::string, int64_t> stats;  ///< pass-specific counters (ctx.stat)
};

/// The report of a pipeline run: one record per (method, pass), then diagnostics.
struct PassReport {
  std::vector<PassRecord> passes;
  std::vector<Diagnostic> diagnostics;
  /// JSON: {"passes":[{name, method, ms, changed, skipped, nodes_before, nodes_after, stats}], "diagnostics":[...]}.
  /// `with_times` = false writes ms as 0 (for byte-stable test output).
  std::string to_json(bool with_times = true) const;
};

class PassManager {
 public:
  /// Resolves `options.passes` (or the default pipeline when empty).
  /// UNKNOWN_PASS for a name not in the registry; UNSUPPORTED_FEATURE for an
  /// explicitly requested pass that is not implemented yet; OPTION_INVALID
  /// for an explicit list out of the default order (check_pass_order).
  /// Default-pipeline passes that are not implemented yet are skipped with a
  /// warning.
  static Result<PassManager> create(const PipelineOptions& options);

  /// Runs every pass on `ep` in order; stops at the first error (its
  /// where.pass and where.method are filled in). Appends to `report`.
  Status run(ir::ExportedProgram& ep, MethodState& state, PassReport& report) const;

  /// The resolved pass names, in order.
  std::vector<std::string> names() const;

 private:
  struct Entry {
    std::string name;
    PassFactory factory = nullptr;  ///< nullptr = skipped
  };
  explicit PassManager(const PipelineOptions& options) : options_(options) {}
  /// For an UNSUPPORTED_OPERATOR error of a list without decompose: a note
  /// naming the ops of `ep` that decompose would have rewritten.
  void note_missing_decompose(const ir::ExportedProgram& ep, Error& e) const;
  PipelineOptions options_;
  std::vector<Entry> entries_;
};

/// An explicit pass list (`--passes`) keeps the default pipeline's order
/// (design.md "Passes"): it may leave passes out or repeat one right after
/// itself (legalize and remove_pytree_pairs between them aside); the
/// module-swap steps stand in swap_modules' place, in the order it runs them
/// (outline_modules, replace_modules, inline_modules), and legalize and
/// remove_pytree_pairs go anywhere; but a
/// pipeline pass listed after one the pipeline runs later is OPTION_INVALID
/// naming both. Each pass relies on what the earlier ones made: spec_prop
/// before replace_view_ops_with_copy would keep a view's strides for its
/// copy, sym_shape_eval after memory_planning would grow planned tensors
/// past their buffer. When it fails and `at` is given, *at is the index in
/// `names` of the pass out of order (the npm API's "/passes/<i>").
Status check_pass_order(const std::vector<std::string>& names, size_t* at = nullptr);

/// An explicit pass list as PassManager::create checks it: every name
/// registered and implemented (UNKNOWN_PASS / UNSUPPORTED_FEATURE, from
/// create_pass), then the order (check_pass_order). When it fails and `at` is
/// given, *at is the index in `names` of the offending pass.
Status check_pass_list(const std::vector<std::string>& names, size_t* at = nullptr);

/// The registered passes swap_modules runs, in its order (swap_modules.cpp
/// interleaves legalize and remove_pytree_pairs); check_pass_order ranks them
/// in swap_modules' place in this order.
inline constexpr std::string_view kSwapModuleSteps[] = {"outline_modules", "replace_modules",
                                                        "inline_modules"};

/// Verifies `ep` (ir verifier); used between passes. INVALID_GRAPH naming the pass.
Status verify_after_pass(const ir::ExportedProgram& ep, std::string_view pass_name);

}  // namespace pteforge::passes
