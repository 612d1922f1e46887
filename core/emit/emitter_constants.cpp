// Constant bytes of bound placeholders (see emitter_constants.h).
#include "emit/emitter_constants.h"

#include <algorithm>
#include <cstring>

#include "passes/edge_utils.h"
#include "passes/tensor_spec.h"

namespace pteforge::emit {
namespace {

std::vector<uint8_t> identity_order(size_t rank) {
  std::vector<uint8_t> order(rank);
  for (size_t i = 0; i < rank; ++i) order[i] = static_cast<uint8_t>(i);
  return order;
}

ir::TensorMeta meta_of(const ir::ConstantRef& c) {
  ir::TensorMeta m;
  m.dtype = c.dtype;
  for (int64_t s : c.sizes) m.sizes.emplace_back(s);
  for (int64_t s : c.strides) m.strides.emplace_back(s);
  return m;
}

/// `code` "constant '<fqn>': <what>", located at the constant's placeholder.
Error constant_error(ErrorCode code, const ir::ConstantRef& c, const std::string& what) {
  Location where;
  where.node = c.placeholder;
  return make_error(code, "constant '" + c.fqn + "': " + what, where);
}

Error payload_error(const ir::ConstantRef& c, const std::string& what) {
  return constant_error(ErrorCode::PAYLOAD_INVALID, c, what);
}

/// Copies the elements of a strided view, in row-major order, out of `src`
/// (the bytes from the view's first element on).
std::vector<uint8_t> gather_row_major(const ir::ConstantRef& c, const std::vector<uint8_t>& src) {
  const size_t elem = ir::element_size(c.dtype);
  const uint64_t numel = c.numel();
  std::vector<uint8_t> out(static_cast<size_t>(numel * elem));
  const size_t rank = c.sizes.size();
  std::vector<int64_t> idx(rank, 0);
  uint64_t src_elem = 0;  // element offset of idx in src
  for (uint64_t i = 0; i < numel; ++i) {
    std::memcpy(out.data() + i * elem, src.data() + src_elem * elem, elem);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < c.sizes[d]) {
        src_elem += static_cast<uint64_t>(c.strides[d]);
        break;
      }
      src_elem -= static_cast<uint64_t>(c.strides[d]) * static_cast<uint64_t>(c.sizes[d] - 1);
      idx[d] = 0;
    }
  }
  return out;
}

/// Stored as it lies in the payload: torch-contiguous or channels-last, no
/// broadcast (0) stride, not flagged make_contiguous. Precondition: strides
/// and sizes have the same rank.
bool is_dense(const ir::ConstantRef& c) {
  ir::TensorMeta meta = meta_of(c);
  const bool contiguous = passes::edge::is_contiguous_layout(meta).value_or(false);
  const bool channels_last = passes::edge::is_channels_last_layout(meta).value_or(false);
  bool zero_stride = false;
  for (size_t d = 0; d < c.sizes.size(); ++d) zero_stride = zero_stride || (c.strides[d] == 0 && c.sizes[d] != 1);
  return (contiguous || channels_last) && !zero_stride && !c.make_contiguous;
}

/// OUT_OF_MEMORY unless `bytes` can be held in one block of memory here: a
/// std::vector's max_size, which is under 2 GiB in WebAssembly (wasm32),
/// where a larger size would otherwise wrap around in size_t.
Status check_in_memory(const ir::ConstantRef& c, uint64_t bytes, const char* what) {
  const uint64_t limit = std::vector<uint8_t>().max_size();
  if (bytes <= limit) return Status::Ok();
  return constant_error(ErrorCode::OUT_OF_MEMORY, c,
                        std::string(what) + " needs " + std::to_string(bytes) +
                            " bytes in memory at once, more than this build can hold in one block (" +
                            std::to_string(limit) + " bytes)");
}

}  // namespace

std::string payload_source(const ir::PayloadStorage& s, std::string_view weights_prefix,
                           std::string_view constants_prefix) {
  if (!s.source.empty()) return labelled_source(s.source, s.entry());
  return std::string(s.store == ir::PayloadStore::Weights ? weights_prefix : constants_prefix) + s.path_name;
}

std::optional<InputRange> dense_constant_range(const ir::ConstantRef& c, const ir::StateBinding& state,
                                               const PayloadSourceFn& source_of) {
  if (c.is_inline() || c.zero_filled || c.strides.size() != c.sizes.size()) return std::nullopt;
  for (int64_t s : c.strides) {
    if (s < 0) return std::nullopt;
  }
  const uint64_t nbytes = c.nbytes();
  if (nbytes == 0 || !is_dense(c) || c.storage >= state.storages.size()) return std::nullopt;
  return InputRange{source_of(state.storage_of(c)), c.byte_offset, nbytes};
}

Result<ConstantBytes> constant_bytes(const ir::ConstantRef& c, const ir::StateBinding& state,
                                     const PayloadSourceFn& source_of, const RangeReader& reader) {
  const uint64_t nbytes = c.nbytes();
  const size_t rank = c.sizes.size();
  ConstantBytes out;
  if (c.is_inline()) {
    if (c.inline_data->size() != nbytes) {
      return payload_error(c, "inline data holds " + std::to_string(c.inline_data->size()) +
                                  " bytes, the tensor needs " + std::to_string(nbytes));
    }
    out.data = Chunk::from_bytes(*c.inline_data);
    out.dim_order = identity_order(rank);
    return out;
  }
  if (c.strides.size() != rank) return payload_error(c, "strides and sizes differ in rank");
  for (int64_t s : c.strides) {
    if (s < 0) return payload_error(c, "negative stride");
  }

  const bool dense = is_dense(c);

  if (nbytes == 0 || c.zero_filled) {
    if (c.zero_filled) PTEFORGE_TRY(check_in_memory(c, nbytes, "its zero-filled data"));
    out.data = Chunk::zeros(c.zero_filled ? nbytes : 0);
    out.dim_order = dense && nbytes != 0 ? passes::dim_order_from_strides(c.strides) : identity_order(rank);
    return out;
  }
  const ir::PayloadStorage& storage = state.storage_of(c);
  const std::string source = source_of(storage);
  if (dense) {
    out.data = Chunk::from_range(source, c.byte_offset, nbytes);
    out.dim_order = passes::dim_order_from_strides(c.strides);
    return out;
  }
  // Re-layout: read the span the view covers, gather its elements row-major.
  uint64_t last = 0;
  for (size_t d = 0; d < rank; ++d) last += static_cast<uint64_t>(c.sizes[d] - 1) * static_cast<uint64_t>(c.strides[d]);
  if ((last + 1) * ir::element_size(c.dtype) > c.byte_length) {
    return payload_error(c, "its strides reach past the " + std::to_string(c.byte_length) + " bytes bound to it");
  }
  PTEFORGE_TRY(check_in_memory(c, nbytes, "making it contiguous"));
  PTEFORGE_TRY(check_in_memory(c, c.byte_length, "reading the strided view"));
  std::vector<uint8_t> span(static_cast<size_t>(c.byte_length));
  if (!reader) {
    Location where;
    where.entry = source;
    return make_error(ErrorCode::IO_ERROR, "constant '" + c.fqn + "' must be made contiguous but no reader was given",
                      where);
  }
  for (uint64_t done = 0; done < c.byte_length;) {
    uint64_t n = std::min(kRangeReadPiece, c.byte_length - done);
    PTEFORGE_TRY(reader(InputRange{source, c.byte_offset + done, n}, span.data() + done));
    done += n;
  }
  out.data = Chunk::from_bytes(gather_row_major(c, span));
  out.dim_order = identity_order(rank);
  out.relaid_out = true;
  return out;
}

}  // namespace pteforge::emit
