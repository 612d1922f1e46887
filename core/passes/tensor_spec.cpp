// TensorSpec helpers (see tensor_spec.h).
#include "passes/tensor_spec.h"

#include <algorithm>
#include <numeric>

namespace pteforge::passes {

uint64_t TensorSpec::numel() const {
  uint64_t n = 1;
  for (int64_t s : sizes) n *= static_cast<uint64_t>(s < 0 ? 0 : s);
  return n;
}

uint64_t TensorSpec::nbytes() const { return numel() * static_cast<uint64_t>(ir::element_size(dtype)); }

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  int64_t acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = acc;
    acc *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

std::vector<uint8_t> dim_order_from_strides(const std::vector<int64_t>& strides) {
  std::vector<uint8_t> order(strides.size());
  std::iota(order.begin(), order.end(), uint8_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](uint8_t a, uint8_t b) { return strides[a] > strides[b]; });
  return order;
}

TensorSpecPtr SpecTable::get(std::string_view name) const {
  auto it = specs_.find(std::string(name));
  return it == specs_.end() ? nullptr : it->second;
}

void SpecTable::set(std::string_view name, TensorSpecPtr spec) { specs_[std::string(name)] = std::move(spec); }

void SpecTable::erase(std::string_view name) { specs_.erase(std::string(name)); }

}  // namespace pteforge::passes
