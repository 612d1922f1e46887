// Where in a .pte's flatbuffer the verifier's complaint lies. FlatBuffers'
// Verifier answers only yes or no; on a no, decode asks this for the place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace pteforge::emit {

/// The smallest part of the Program that fails verification on its own.
struct FlatbufferFault {
  /// JSON pointer into `pteforge decode --json`'s Program ("" for the root
  /// table), e.g. "/execution_plan/0/values/154".
  std::string pointer;
  /// Byte offset of that table, vector or field from the start of the file
  /// (the program part starts at byte 0).
  uint64_t byte_offset = 0;
};

/// Looks for the part of the Program flatbuffer `buf` (`size` bytes, 8-byte
/// aligned, identifier already checked) that fails FlatBuffers verification:
/// it verifies the root table, then each execution plan, chain, value,
/// instruction, operator, delegate, buffer and segment table on its own with
/// a fresh Verifier (the limits `max_depth` and `max_tables`), and names the
/// deepest part that fails, narrowed to the field of that table without
/// which it verifies ("/execution_plan/0/values/3/val/sizes"). nullopt when
/// every part passes on its own (the whole failed only on a limit summed
/// over parts). Never reads outside `buf`; to narrow, it sets a vtable entry
/// to 0 for one check and restores it, so `buf` is the same bytes after the
/// call (not thread-safe with other readers of `buf`). Only called after the
/// whole buffer failed, so its cost (each part verified again) is no concern.
std::optional<FlatbufferFault> locate_flatbuffer_fault(uint8_t* buf, size_t size, size_t max_depth,
                                                       size_t max_tables);

/// For a buffer that passed verification: the first element of a vector of
/// tables whose offset does not lead forward into the buffer, or nullopt.
/// FlatBuffers' verifier follows such offsets with pointer arithmetic, which
/// wraps on a 32-bit machine (WebAssembly) and may land on a valid table
/// there, while a 64-bit machine refuses the file; decode checks this so that
/// both refuse it alike (locate_flatbuffer_fault reports the same element).
std::optional<FlatbufferFault> find_backward_offset(const uint8_t* buf, size_t size);

}  // namespace pteforge::emit
