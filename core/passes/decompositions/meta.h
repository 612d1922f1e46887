// Tensor metadata with polynomial sizes (Meta), and the SymbolTable that
// converts between it and the IR's TensorMeta / SymInt (sympy text, §9.2).
//
// Decompositions reason about shapes in Meta form; the SymbolTable keeps
// what is needed to write new symbolic sizes back in the program's own
// spelling: the expression style (srepr or plain str form), one hint per
// symbol, and every expression already present (so a size that equals an
// existing one reuses its exact text).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "ir/sym_expr.h"
#include "ir/tensor_meta.h"
#include "passes/decompositions/sym_poly.h"
#include "support/error.h"

namespace pteforge::passes::decomp {

/// dtype, sizes, strides (elements), storage offset, requires_grad, device.
struct Meta {
  ir::ScalarType dtype = ir::ScalarType::Float;
  std::vector<SymPoly> sizes;
  std::vector<SymPoly> strides;
  SymPoly storage_offset;
  bool requires_grad = false;
  ir::Device device;

  size_t rank() const { return sizes.size(); }
  /// Product of the sizes.
  SymPoly numel() const { return product(sizes); }
};

/// Row-major contiguous strides (a size-0/1 dimension counts as 1, as torch does).
std::vector<SymPoly> contiguous_strides(const std::vector<SymPoly>& sizes);
/// Strides of `sizes` laid out with dimension order `order` (outermost first).
std::vector<SymPoly> strides_for_order(const std::vector<SymPoly>& sizes, const std::vector<size_t>& order);
/// A contiguous Meta.
Meta make_meta(ir::ScalarType dtype, std::vector<SymPoly> sizes, bool requires_grad = false);

class SymbolTable {
 public:
  /// Collects the expression style, symbol hints and existing expressions
  /// from every SymInt in the program (tensor metas and SymInt values).
  void scan(const ir::ExportedProgram& ep);
  /// Registers one SymInt (also used for values created later).
  void note(const ir::SymInt& s);

  /// The polynomial of a SymInt. INPUT_SCHEMA when its expression does not parse.
  Result<SymPoly> to_poly(const ir::SymInt& s);
  /// A SymInt for `p`: concrete when constant; else the existing expression with
  /// the same polynomial, or new text in the program's style with a hint.
  ir::SymInt to_symint(const SymPoly& p);

  Result<Meta> to_meta(const ir::TensorMeta& m);
  ir::TensorMeta to_tensor_meta(const Meta& m);

  /// Example value of `p` (from the symbols' hints); nullopt when unknown.
  std::optional<int64_t> hint(const SymPoly& p) const;
  /// Display form for messages: "4*s0", "s0*s1 + 2"; cut to 80 characters
  /// ("...") when longer.
  std::string display(const SymPoly& p) const;

 private:
  Result<SymPoly> from_node(const ir::SymNode& n);
  std::string format(const SymPoly& p, bool srepr) const;
  std::string atom_text(const std::string& atom, bool srepr) const;

  bool srepr_ = true;
  bool style_known_ = false;
  std::map<std::string, int64_t> hints_;                   // atom → example value
  std::map<std::string, std::string> atom_srepr_;          // opaque atom → srepr text
  std::map<std::string, std::string> atom_plain_;          // opaque atom → str text
  std::map<std::string, std::shared_ptr<const ir::SymExpr>> by_key_;  // poly key → expression
  std::map<std::string, SymPoly> parsed_;                  // expr_str → polynomial
};

}  // namespace pteforge::passes::decomp
