// TensorMeta helpers (see tensor_meta.h).
#include "ir/tensor_meta.h"

#include <cstdint>

#include "support/checked_math.h"

namespace pteforge::ir {

std::string_view layout_name(Layout l) {
  switch (l) {
    case Layout::Unknown: return "torch.unknown_layout";
    case Layout::SparseCoo: return "torch.sparse_coo";
    case Layout::SparseCsr: return "torch.sparse_csr";
    case Layout::SparseCsc: return "torch.sparse_csc";
    case Layout::SparseBsr: return "torch.sparse_bsr";
    case Layout::SparseBsc: return "torch.sparse_bsc";
    case Layout::Mkldnn: return "torch._mkldnn";
    case Layout::Strided: return "torch.strided";
  }
  return "torch.unknown_layout";
}

std::string_view memory_format_name(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Unknown: return "torch.unknown_memory_format";
    case MemoryFormat::ContiguousFormat: return "torch.contiguous_format";
    case MemoryFormat::ChannelsLast: return "torch.channels_last";
    case MemoryFormat::ChannelsLast3d: return "torch.channels_last_3d";
    case MemoryFormat::PreserveFormat: return "torch.preserve_format";
  }
  return "torch.unknown_memory_format";
}

bool TensorMeta::is_static() const {
  for (const auto& s : sizes) {
    if (s.is_symbolic()) return false;
  }
  for (const auto& s : strides) {
    if (s.is_symbolic()) return false;
  }
  return storage_offset.is_concrete();
}

std::optional<int64_t> TensorMeta::numel() const {
  int64_t n = 1;
  for (const auto& s : sizes) {
    if (s.is_symbolic() || s.value() < 0) return std::nullopt;
    if (__builtin_mul_overflow(n, s.value(), &n)) return std::nullopt;
  }
  return n;
}

std::optional<uint64_t> TensorMeta::nbytes() const {
  auto n = numel();
  if (!n) return std::nullopt;
  uint64_t out = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(*n), static_cast<uint64_t>(element_size(dtype)), &out)) {
    return std::nullopt;
  }
  return out;
}

std::optional<std::vector<int64_t>> TensorMeta::concrete_sizes() const {
  std::vector<int64_t> out;
  out.reserve(sizes.size());
  for (const auto& s : sizes) {
    if (s.is_symbolic()) return std::nullopt;
    out.push_back(s.value());
  }
  return out;
}

std::optional<std::vector<int64_t>> TensorMeta::concrete_strides() const {
  std::vector<int64_t> out;
  out.reserve(strides.size());
  for (const auto& s : strides) {
    if (s.is_symbolic()) return std::nullopt;
    out.push_back(s.value());
  }
  return out;
}

bool TensorMeta::is_contiguous() const {
  auto sz = concrete_sizes();
  auto st = concrete_strides();
  if (!sz || !st || sz->size() != st->size()) return false;
  int64_t expected = 1;
  for (size_t i = sz->size(); i-- > 0;) {
    if ((*sz)[i] != 1 && (*st)[i] != expected) return false;
    // Past int64 no stride can match any more, so only size-1 dims may follow.
    if (__builtin_mul_overflow(expected, (*sz)[i], &expected)) {
      for (size_t j = i; j-- > 0;) {
        if ((*sz)[j] != 1) return false;
      }
      return true;
    }
  }
  return true;
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> out(sizes.size(), 1);
  int64_t acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    out[i] = acc;
    // Saturates: sizes whose product overflows int64 describe no real tensor
    // (the importer refuses them), but must not be undefined behaviour here.
    acc = saturating_mul(acc, sizes[i] > 0 ? sizes[i] : 1);
  }
  return out;
}

TensorMeta make_tensor_meta(ScalarType dtype, const std::vector<int64_t>& sizes) {
  TensorMeta m;
  m.dtype = dtype;
  for (int64_t s : sizes) m.sizes.emplace_back(s);
  for (int64_t s : contiguous_strides(sizes)) m.strides.emplace_back(s);
  m.storage_offset = SymInt(int64_t{0});
  return m;
}

}  // namespace pteforge::ir
