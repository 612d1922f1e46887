// Binding a replacement program's symbolic sizes to the sizes the module
// sees in the main program (module swap: "compatible symbolic shapes").
//
// A replacement exported with dynamic dimensions names its own symbols
// (s0, s77, ...). Where the module receives a tensor whose size is a value or
// an expression of the main program, the replacement's symbol is bound to it
// and every size, stride and symbolic scalar of the replacement is rewritten
// in the main program's terms; sizes that become concrete are evaluated.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "ir/sym_expr.h"

namespace pteforge::passes::module_swap {

class SymBinding {
 public:
  /// `replacement` supplies the ranges of its symbols (range_constraints);
  /// `program` those of the main program's symbols.
  SymBinding(const ir::ExportedProgram& replacement, const ir::ExportedProgram& program)
      : rep_(replacement), main_(program) {}

  /// Records that the replacement's size `rep` must equal the program's size
  /// `outer`. A bare symbol of the replacement is bound (checking its
  /// range); anything else is compared in finish(). Returns a reason when
  /// they can never match (a static replacement size against a dynamic or
  /// different size, a value outside the symbol's range, a symbol bound to
  /// two different sizes).
  std::optional<std::string> unify(const ir::SymInt& rep, const ir::SymInt& outer);
  /// Compares the recorded non-symbol pairs once every symbol is bound.
  std::optional<std::string> finish();

  bool empty() const { return bound_.empty(); }
  /// Replacement symbols that are bound (for dropping their range constraints).
  std::vector<std::string> bound_symbols() const;

  /// `s` with bound symbols substituted (evaluated when it becomes concrete).
  ir::SymInt apply(const ir::SymInt& s) const;
  ir::TensorMeta apply(const ir::TensorMeta& m) const;
  /// Any value metadata (tensor, SymInt, SymFloat, SymBool; others unchanged).
  ir::ValueMeta apply(const ir::ValueMeta& m) const;

 private:
  struct Bound {
    ir::SymNode expr;                  ///< program expression (or an Integer)
    std::optional<int64_t> hint;       ///< example value
    std::string text;                  ///< display form for messages
  };
  std::optional<ir::SymNode> substitute(const ir::SymNode& e, bool& changed) const;
  std::optional<std::string> bind(const std::string& symbol, const ir::SymInt& outer);
  std::string display(const ir::SymInt& s) const;

  const ir::ExportedProgram& rep_;
  const ir::ExportedProgram& main_;
  std::map<std::string, Bound> bound_;
  std::vector<std::pair<ir::SymInt, ir::SymInt>> deferred_;
};

}  // namespace pteforge::passes::module_swap
