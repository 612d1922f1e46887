// The bytes a constant placeholder (parameter, buffer, lifted tensor
// constant) stores in the .pte, and the dim order those bytes are in
// (executorch-pipeline.md §3.4 steps 2-3, §5.2).
//
// ExecuTorch takes the real tensor: if it is neither contiguous nor
// channels-last it is made contiguous; if it is a view of a larger storage it
// is cloned; then the spec's strides and dim order are the real tensor's, and
// its storage bytes are stored. Here a bound ConstantRef describes the tensor:
//   - dense (torch-contiguous or channels-last) payload tensors are referenced
//     in place: an InputRange over the archive entry, nothing is copied;
//   - others (and those contiguous_constants flagged make_contiguous) are
//     re-laid out in row-major order into owned bytes, reading the payload
//     through the RangeReader;
//   - pass-created constants (inline_data) and zero-filled payloads give owned bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "emit/chunks.h"
#include "ir/state_binding.h"
#include "support/error.h"

namespace pteforge::emit {

/// Maps a payload storage to the InputRange source id (the archive entry name).
using PayloadSourceFn = std::function<std::string(const ir::PayloadStorage&)>;

/// The InputRange source of payload storage `s` for a method whose payload
/// folders are the archive entry prefixes `weights_prefix` and
/// `constants_prefix` (MethodInput); a storage of an additional input
/// (PayloadStorage::source set, e.g. a swapped-in module's weights) is
/// labelled_source(source, entry).
std::string payload_source(const ir::PayloadStorage& s, std::string_view weights_prefix,
                           std::string_view constants_prefix);

struct ConstantBytes {
  Chunk data;                      ///< exactly nbytes() of the tensor
  std::vector<uint8_t> dim_order;  ///< order of `data` (§5.2); [0..n-1] after a re-layout
  bool relaid_out = false;         ///< made contiguous here (owned bytes)
};

/// The stored bytes of constant `c` of `state`. `source_of` names payload
/// storages; `reader` reads them (only for a re-layout).
/// Errors: PAYLOAD_INVALID when inline data has the wrong size or a stride is
/// negative; OUT_OF_MEMORY when zero-filled data or a re-layout needs more
/// bytes in one block than the build can hold (under 2 GiB in WebAssembly);
/// IO_ERROR / the reader's errors while re-laying out.
Result<ConstantBytes> constant_bytes(const ir::ConstantRef& c, const ir::StateBinding& state,
                                     const PayloadSourceFn& source_of, const RangeReader& reader);

/// The input range that constant_bytes gives for `c` when the constant is
/// referenced in place (a dense payload tensor with bytes), else nullopt
/// (inline, zero-filled, empty, re-laid out or invalid: constant_bytes then
/// owns the bytes or reports the error).
std::optional<InputRange> dense_constant_range(const ir::ConstantRef& c, const ir::StateBinding& state,
                                               const PayloadSourceFn& source_of);

}  // namespace pteforge::emit
