// StateBinding helpers (see state_binding.h).
#include "ir/state_binding.h"

#include <cstddef>

#include "ir/tensor_meta.h"

namespace pteforge::ir {

std::string_view payload_store_name(PayloadStore s) {
  return s == PayloadStore::Weights ? "weights" : "constants";
}

std::string PayloadStorage::entry() const {
  return std::string("data/") + std::string(payload_store_name(store)) + "/" + path_name;
}

uint64_t ConstantRef::numel() const {
  uint64_t n = 1;
  for (int64_t s : sizes) n *= static_cast<uint64_t>(s);
  return n;
}

uint64_t ConstantRef::nbytes() const { return numel() * static_cast<uint64_t>(element_size(dtype)); }

bool ConstantRef::is_contiguous() const {
  std::vector<int64_t> expected = contiguous_strides(sizes);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] != 1 && strides[i] != expected[i]) return false;
  }
  return true;
}

const ConstantRef* StateBinding::find(std::string_view fqn) const {
  for (const auto& t : tensors) {
    if (t.fqn == fqn) return &t;
  }
  return nullptr;
}

const ConstantRef* StateBinding::find_placeholder(std::string_view placeholder) const {
  for (const auto& t : tensors) {
    if (t.placeholder == placeholder) return &t;
  }
  return nullptr;
}

ConstantRef* StateBinding::find_placeholder(std::string_view placeholder) {
  for (auto& t : tensors) {
    if (t.placeholder == placeholder) return &t;
  }
  return nullptr;
}

std::unordered_map<std::string_view, const ConstantRef*> StateBinding::placeholder_index() const {
  std::unordered_map<std::string_view, const ConstantRef*> out;
  out.reserve(tensors.size());
  for (const auto& t : tensors) out.emplace(t.placeholder, &t);  // the first binding wins, as in find_placeholder
  return out;
}

bool StateBinding::erase_placeholder(std::string_view placeholder) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].placeholder != placeholder) continue;
    const bool had_storage = !tensors[i].is_inline();
    const uint32_t storage = tensors[i].storage;
    tensors.erase(tensors.begin() + static_cast<std::ptrdiff_t>(i));
    if (!had_storage || storage >= storages.size()) return true;
    for (const auto& t : tensors) {
      if (!t.is_inline() && t.storage == storage) return true;  // still shared
    }
    storages.erase(storages.begin() + storage);
    for (auto& t : tensors) {
      if (!t.is_inline() && t.storage > storage) --t.storage;
    }
    return true;
  }
  return false;
}

}  // namespace pteforge::ir
