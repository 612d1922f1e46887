// Operator names as they appear in exported programs and .pte files, and the
// parser that normalizes every accepted spelling to (namespace, name, overload).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "support/error.h"

namespace pteforge::ops {

/// A normalized operator name. `overload` is "" for the default overload
/// (Python's `.default`, ExecuTorch's empty overload string).
struct OperatorName {
  std::string ns;
  std::string name;
  std::string overload;

  /// "aten::add.Tensor"; "aten::relu" for the default overload.
  std::string to_string() const;
  bool operator==(const OperatorName&) const = default;
};

/// Parses an operator target string. Accepted forms:
///   torch.ops.aten.add.Tensor   aten.add.Tensor   aten::add.Tensor
///   torch.ops.aten.relu.default aten.relu.default aten::relu  aten::relu.default  aten.relu
///   torch.ops.dim_order_ops._to_dim_order_copy.default, executorch_prim::et_view.default
/// An overload spelled `default` becomes "". A name without a namespace is rejected.
/// Only the syntax is checked here: "_operator.getitem" parses (and names no known op).
/// Errors: UNSUPPORTED_OPERATOR when the text is not an operator name at all
/// (e.g. "<built-in function getitem>", "add", "aten..add").
Result<OperatorName> parse_op_target(std::string_view target);

/// A parsed target that points into the parsed text (valid while it lives).
struct OperatorNameView {
  std::string_view ns;
  std::string_view name;
  std::string_view overload;  ///< "" for the default overload
};
/// parse_op_target() without allocating; nullopt when the text is not an operator name.
std::optional<OperatorNameView> split_op_target(std::string_view target);

}  // namespace pteforge::ops
