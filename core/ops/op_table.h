// The operator table: every operator overload pteforge knows, with the facts
// the passes and the emitter need (out variant, `_copy` twin of a view,
// ExecuTorch kernel-library membership, tags, defaults).
//
// The data is generated at build time by scripts/gen_ops.py from
// core/ops/data/ (native_functions.yaml, the ExecuTorch kernel yamls and fact
// sheets); no schema is written in C++. See core/ops/op_table.cpp for the
// encoding and why it was chosen.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "ops/op_name.h"
#include "ops/op_schema.h"
#include "support/error.h"

namespace pteforge::ops {

/// An ExecuTorch kernel library that registers kernels by operator name.
enum class KernelLibrary : uint8_t {
  Portable = 1,   ///< kernels/portable (functions.yaml, custom_ops.yaml, et_copy_ops.yaml)
  Optimized = 2,  ///< kernels/optimized (optimized.yaml)
  Quantized = 4,  ///< kernels/quantized (quantized.yaml)
  Prim = 8,       ///< kernels/prim_ops (executorch_prim::*, aten::sym_size.int, ...; prim_ops.md)
};

/// A set of kernel libraries: a bit mask of KernelLibrary values.
using KernelSet = uint8_t;
/// The set holding just `lib`.
constexpr KernelSet kernel_set(KernelLibrary lib) { return static_cast<KernelSet>(lib); }
/// The default runtime: the portable kernel library plus the prim ops.
inline constexpr KernelSet kPortableRuntime =
    kernel_set(KernelLibrary::Portable) | kernel_set(KernelLibrary::Prim);

/// The generated operator table. Lookups by name are hash-based and allocate
/// nothing. Each schema string is parsed on its first access (thread-safe), so
/// building the table only indexes names; returned pointers and references stay
/// valid for the life of the program.
class OpTable {
 public:
  /// The table, built on first use.
  static const OpTable& get();

  /// Number of schemas.
  size_t size() const { return size_; }
  /// Schema `i` (0 <= i < size()), in generated order (native_functions.yaml first).
  const OpSchema& at(size_t i) const;
  /// Parses every schema; the first parse error, if any (a build defect, checked by the tests).
  Status verify() const;

  /// The schema for any target spelling parse_op_target() accepts
  /// ("torch.ops.aten.add.Tensor", "aten::add.Tensor", "aten.relu.default", ...);
  /// nullptr when unknown or not an operator name.
  const OpSchema* find(std::string_view target) const;
  /// The schema of (ns, name, overload); overload "" (or "default") = default overload.
  const OpSchema* find(std::string_view ns, std::string_view name, std::string_view overload) const;
  const OpSchema* find(const OperatorName& op) const { return find(op.ns, op.name, op.overload); }
  /// Like find(), but an unknown operator is an UNSUPPORTED_OPERATOR error whose
  /// notes name the nearest supported operators (nearest_supported()).
  Result<const OpSchema*> lookup(std::string_view target) const;

  /// The out variant of a functional, mutable or in-place overload, paired by
  /// signature (executorch-pipeline.md §4.2, OPS.md §3): `add.Tensor` → `add.out`,
  /// `add_.Tensor` → `add.out`, `mean` → `mean.dtype_out`. nullptr when there is none
  /// or `op` is not in the table. `op` may be any schema with the table's name.
  const OpSchema* out_variant(const OpSchema& op) const;
  /// The `_copy` twin of an aliasing view op (same overload): `view` → `view_copy`,
  /// `permute` → `permute_copy`, `split.Tensor` → `split_copy.Tensor`. nullptr when none.
  const OpSchema* copy_variant(const OpSchema& op) const;

  /// Libraries that register a kernel for exactly this overload.
  KernelSet kernels(const OpSchema& op) const;
  bool has_kernel(const OpSchema& op, KernelLibrary lib) const {
    return (kernels(op) & kernel_set(lib)) != 0;
  }
  /// ExecuTorch's portable library has a kernel for this exact overload (e.g. `add.out`).
  bool is_portable(const OpSchema& op) const { return has_kernel(op, KernelLibrary::Portable); }
  /// ExecuTorch's optimized library has a kernel for this exact overload.
  bool is_optimized(const OpSchema& op) const { return has_kernel(op, KernelLibrary::Optimized); }

  /// The overload that would run for `op` with kernels from `libs`: `op` itself
  /// when a library registers it (out variants, prim ops, `copy_`); otherwise the
  /// out variant of `op` (of its `_copy` twin for a view op) when registered;
  /// nullptr when nothing in `libs` can run it. In-place ops only match themselves
  /// (ExecuTorch's ToOutVarPass does not convert them, pipeline §4.1).
  const OpSchema* runtime_op(const OpSchema& op, KernelSet libs = kPortableRuntime) const;
  bool is_supported(const OpSchema& op, KernelSet libs = kPortableRuntime) const {
    return runtime_op(op, libs) != nullptr;
  }

  /// Which data file the schema came from (e.g. "native_functions.yaml",
  /// "native_functions.yaml autogen (out variant)", "custom_op_schemas.md").
  std::string_view source(const OpSchema& op) const;

  /// Supported functional operators closest to `target` (for error messages):
  /// first the other overloads of the same name (in-place `_` ignored), else the
  /// names within edit distance max(2, len/3), nearest first. At most `max_results`.
  std::vector<const OpSchema*> nearest_supported(std::string_view target, size_t max_results = 3,
                                                 KernelSet libs = kPortableRuntime) const;

  ~OpTable();
  OpTable(const OpTable&) = delete;
  OpTable& operator=(const OpTable&) = delete;

 private:
  struct Entry;
  OpTable();
  static constexpr size_t kNpos = static_cast<size_t>(-1);
  size_t index(std::string_view ns, std::string_view name, std::string_view overload) const;
  size_t index_of(const OpSchema& op) const { return index(op.ns, op.name, op.overload); }
  size_t runtime_index(size_t i, KernelSet libs) const;

  size_t size_ = 0;
  std::unique_ptr<Entry[]> entries_;
  std::vector<uint16_t> slots_;  // open-addressing hash index: schema index + 1, 0 = empty
};

/// Shorthand for OpTable::get().
inline const OpTable& op_table() { return OpTable::get(); }

}  // namespace pteforge::ops
