// TensorSpec helpers (see tensor_spec.h).
#include "passes/tensor_spec.h"

#include <algorithm>
#include <cstdint>

#include "ir/sym_expr.h"

namespace pteforge::passes {

uint64_t TensorSpec::numel() const {
  uint64_t n = 1;
  bool saturated = false;
  for (int64_t s : sizes) {
    if (s <= 0) return 0;
    saturated |= __builtin_mul_overflow(n, static_cast<uint64_t>(s), &n);
  }
  return saturated ? UINT64_MAX : n;
}

uint64_t TensorSpec::nbytes() const {
  uint64_t n = 0;
  if (__builtin_mul_overflow(numel(), static_cast<uint64_t>(ir::element_size(dtype)), &n)) return UINT64_MAX;
  return n;
}

uint64_t TensorSpec::allocated_bytes(uint64_t alignment) const {
  uint64_t n = nbytes();
  if (alignment <= 1) return n;
  if (n > UINT64_MAX - (alignment - 1)) return UINT64_MAX;  // saturates, as nbytes() does
  return (n + alignment - 1) / alignment * alignment;
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) { return ir::contiguous_strides(sizes); }

std::vector<uint8_t> dim_order_from_strides(const std::vector<int64_t>& strides) {
  // A stable insertion sort: ranks are small, and std::stable_sort would
  // allocate a scratch buffer for every tensor.
  std::vector<uint8_t> order(strides.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const auto dim = static_cast<uint8_t>(i);
    size_t j = i;
    for (; j > 0 && strides[order[j - 1]] < strides[dim]; --j) order[j] = order[j - 1];
    order[j] = dim;
  }
  return order;
}

std::optional<int64_t> sym_hint(const ir::SymInt& v) { return v.hint(); }

Result<TensorSpec> spec_from_meta(const ir::TensorMeta& meta, const UnhintedValue& unhinted) {
  auto value_of = [&unhinted](const ir::SymInt& s) -> std::optional<int64_t> {
    std::optional<int64_t> h = sym_hint(s);
    if (!h && unhinted) h = unhinted(s);
    return h;
  };
  // ExecuTorch tensors are dense: sizes, dim order and one data pointer.
  // (Layout 0, "unknown", is what older files write for dense tensors.)
  if (meta.layout != ir::Layout::Strided && meta.layout != ir::Layout::Unknown) {
    return make_error(ErrorCode::UNSUPPORTED_FEATURE,
                      "a tensor of layout " + std::string(ir::layout_name(meta.layout)) +
                          "; ExecuTorch tensors are dense (torch.strided)");
  }
  TensorSpec spec;
  spec.dtype = meta.dtype;
  spec.requires_grad = meta.requires_grad;
  spec.sym_sizes = meta.sizes;
  spec.sym_strides = meta.strides;
  spec.sizes.reserve(meta.sizes.size());
  for (const ir::SymInt& s : meta.sizes) {
    if (s.is_symbolic()) spec.dynamism = ShapeDynamism::DynamicBound;
    std::optional<int64_t> h = value_of(s);
    if (!h) {
      return make_error(ErrorCode::PASS_FAILED, "size '" + ir::display_sym_expr(s.expr().expr_str) +
                                                    "' is symbolic without a trace-time hint (unbacked) and "
                                                    "range_constraints give it no upper bound");
    }
    spec.sizes.push_back(*h);
  }
  if (meta.strides.size() == meta.sizes.size()) {
    spec.strides.reserve(meta.strides.size());
    for (const ir::SymInt& s : meta.strides) {
      std::optional<int64_t> h = value_of(s);
      if (!h) {
        return make_error(ErrorCode::PASS_FAILED,
                          "stride '" + ir::display_sym_expr(s.expr().expr_str) +
                              "' is symbolic without a trace-time hint (unbacked) and "
                              "range_constraints give it no upper bound");
      }
      if (*h == 0) {
        return make_error(ErrorCode::PASS_FAILED,
                          "a stride is 0; ExecuTorch does not support zero strides (dim_order_from_stride, §5.2)");
      }
      if (*h < 0) {
        // torch has no negative strides (a flip copies), and a dim order
        // cannot express one: sorting them would give a wrong layout.
        return make_error(ErrorCode::PASS_FAILED, "a stride is negative (" + std::to_string(*h) +
                                                      "); torch tensors and ExecuTorch dim orders have none");
      }
      spec.strides.push_back(*h);
    }
  } else {
    // No (or inconsistent) strides recorded: the tensor is taken as contiguous (§5.2).
    spec.strides = contiguous_strides(spec.sizes);
    spec.sym_strides.clear();
  }
  spec.dim_order = dim_order_from_strides(spec.strides);
  return spec;
}

TensorSpecPtr SpecTable::get(std::string_view name) const {
  auto it = specs_.find(name);
  return it == specs_.end() ? nullptr : it->second;
}

TensorSpec* SpecTable::find(std::string_view name) const {
  auto it = specs_.find(name);
  return it == specs_.end() ? nullptr : it->second.get();
}

void SpecTable::set(std::string_view name, TensorSpecPtr spec) {
  auto it = specs_.find(name);
  if (it != specs_.end()) {
    it.value() = std::move(spec);
  } else {
    specs_.emplace(std::string(name), std::move(spec));
  }
}

void SpecTable::erase(std::string_view name) {
  auto it = specs_.find(name);
  if (it != specs_.end()) specs_.erase(it);
}

}  // namespace pteforge::passes
