// UTF-8 validation of input text (the program JSON and the other JSON
// records of an archive): torch.export writes them as UTF-8, and every string
// that reaches a .pte (a FlatBuffers string) must be valid UTF-8.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pteforge {

/// Offset (bytes) of the first sequence in `text` that is not valid UTF-8
/// (RFC 3629: no overlong forms, no UTF-16 surrogates U+D800..U+DFFF, nothing
/// past U+10FFFF, no truncated sequence), or nullopt when all of it is valid.
/// The offset is that of the sequence's first byte. Linear time; runs of
/// ASCII are skipped 32 bytes at a time.
std::optional<size_t> find_invalid_utf8(std::string_view text);

/// `text` with every byte that does not start a valid UTF-8 sequence (the
/// rules of find_invalid_utf8) replaced by U+FFFD, so that text read from a
/// damaged file prints the same in a terminal, in JSON and in JavaScript.
std::string replace_invalid_utf8(std::string_view text);

}  // namespace pteforge
