// Output metadata of the Core ATen calls decompositions emit: dtype (type
// promotion), sizes (broadcasting, reductions, views, convolution, pooling)
// and strides (view stride rule, TensorIterator-style layout following,
// contiguous results), following PyTorch's meta functions for these ops.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/node.h"
#include "ops/op_schema.h"
#include "passes/decompositions/args.h"
#include "passes/decompositions/meta.h"
#include "support/error.h"

namespace pteforge::passes::decomp {

/// The metas of every tensor `op` returns (a Tensor[] return gives one per
/// element). UNSUPPORTED_OPERATOR when `op` is not one decompositions emit;
/// INVALID_GRAPH when the arguments are inconsistent (shapes do not broadcast, ...).
Result<std::vector<Meta>> infer_meta(const ops::OpSchema& op, const ArgView& args, const SymbolTable& symbols);

/// One tensor output of a node paired with the infer_meta result it stands for.
struct NodeOutputMeta {
  std::string name;       ///< the output value
  size_t meta_index = 0;  ///< index into infer_meta's results
};

/// The tensor outputs of `node` paired with `num_metas` infer_meta results
/// (a Tensor[] output element by element, else output by output; None
/// outputs skipped), or an empty list when the two do not line up.
std::vector<NodeOutputMeta> pair_outputs(const ir::Node& node, size_t num_metas);

/// PyTorch's view stride rule (computeStride): the strides of a view of
/// (sizes, strides) with `new_sizes`, or nullopt when no view exists (a copy
/// is needed). Symbolic sizes compare by structure, orderings by hint.
std::optional<std::vector<SymPoly>> view_strides(const std::vector<SymPoly>& sizes, const std::vector<SymPoly>& strides,
                                                 const std::vector<SymPoly>& new_sizes, const SymbolTable& symbols);

/// True when `m` is row-major contiguous (size-1 dimensions ignored).
bool is_contiguous(const Meta& m);
/// True when some permutation of the dimensions is contiguous (non-overlapping and dense).
bool is_dense(const Meta& m, const SymbolTable& symbols);
/// Dimension order (outermost first) of a dense layout, ties broken as torch does.
std::vector<size_t> dim_order(const Meta& m, const SymbolTable& symbols);

/// Broadcast shape of `shapes`. INVALID_GRAPH when they do not broadcast.
Result<std::vector<SymPoly>> broadcast_shapes(const std::vector<std::vector<SymPoly>>& shapes,
                                              const SymbolTable* symbols = nullptr);

/// Type promotion (torch.result_type) of tensors (0-d ones count less) and Python numbers.
ir::ScalarType promote_types(const std::vector<const Meta*>& tensors, const std::vector<Number>& numbers);

/// True unless sizes `a` and `b` certainly differ: equal ranks and, per
/// dimension, equal polynomials, equal constants, or (for symbolic sizes)
/// equal example values where both are known.
bool same_sizes(const std::vector<SymPoly>& a, const std::vector<SymPoly>& b, const SymbolTable& symbols);

/// True when `declared` (a program's tensor metadata) and `inferred` (a shape
/// rule's result) have the same dtype and sizes (same_sizes). Strides are not
/// compared.
bool same_dtype_and_sizes(const Meta& declared, const Meta& inferred, const SymbolTable& symbols);

/// "float32[2, s0]".
std::string describe_meta(const Meta& m, const SymbolTable& symbols);
/// "[1, 5, 8, 8]" for messages: sizes in display form (as polynomial keys when
/// `symbols` is null), each cut to 80 characters and the whole to 240.
std::string shape_text(const std::vector<SymPoly>& sizes, const SymbolTable* symbols = nullptr);
std::string shape_text(const std::vector<SymPoly>& sizes, const SymbolTable& symbols);

/// When a program value's `declared` metadata disagrees with `inferred` in
/// dtype or sizes (same_dtype_and_sizes): the two described ("float32[2, 3]").
/// nullopt when they agree, or cannot be compared: a value on a device other
/// than the CPU (the rules follow the CPU kernels) or an expression that does
/// not parse.
std::optional<std::pair<std::string, std::string>> declared_mismatch(const ir::TensorMeta& declared,
                                                                     const Meta& inferred, SymbolTable& symbols);

/// ATen's check_inputs_nll_loss2d, in its order and with its messages: target
/// 3-d, self 4-d, a weight of C elements, target [N, H, W] for self [N, C, H, W].
/// The first failure's message, or nullopt when the operands are fine. Used by
/// the nll_loss2d_forward rule and by the shape rule of an emitted call.
std::optional<std::string> nll_loss2d_operand_error(const Meta& self, const Meta& target,
                                                    const std::optional<Meta>& weight,
                                                    const SymbolTable& symbols);

/// Normalises a possibly negative dim for a tensor of `rank` dims. INVALID_GRAPH when out of range.
Result<int64_t> normalize_dim(int64_t dim, size_t rank);

}  // namespace pteforge::passes::decomp
