// The .pte as an ordered list of chunks: bytes we made (flatbuffer, headers,
// padding) or references to byte ranges of an input (weights), so weights are
// never copied while converting (design.md "Weights never cross into WASM
// whole"; engineering-notes D7). Concatenating the chunks gives the file.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "support/error.h"

namespace pteforge::emit {

/// A byte range of an input the caller owns, e.g. a weight entry stored
/// uncompressed in a .pt2 archive. `source` is the caller's id for the input
/// (archive entry name, weight key or file path); the serializer never reads it.
struct InputRange {
  std::string source;
  uint64_t offset = 0;  ///< bytes from the start of `source`
  uint64_t length = 0;  ///< bytes
  bool operator==(const InputRange&) const = default;
};

/// Separator between an additional input's label and an entry in
/// InputRange.source ("swap:encoder.layer.1::data/weights/weight_0").
inline constexpr std::string_view kSourceLabelSeparator = "::";

/// InputRange.source for `entry` (relative to the archive root) of the
/// additional input `label` (ir::PayloadStorage::source, e.g. the weights a
/// module swap brings in): "<label>::<entry>".
std::string labelled_source(std::string_view label, std::string_view entry);

/// The parts of a labelled InputRange.source (the inverse of labelled_source).
struct LabelledSource {
  std::string_view label;  ///< e.g. "swap:encoder.layer.1"
  std::string_view entry;  ///< relative to that input's archive root
};
/// Splits `source` at the first separator; nullopt for a source of the main
/// input (no separator). The views point into `source`.
std::optional<LabelledSource> split_labelled_source(std::string_view source);

/// One piece of output: owned bytes, or a reference to an input range.
struct Chunk {
  std::variant<std::vector<uint8_t>, InputRange> data;

  /// Size in bytes.
  uint64_t size() const;
  bool is_bytes() const { return data.index() == 0; }
  /// The owned bytes; only valid when is_bytes().
  const std::vector<uint8_t>& bytes() const { return std::get<0>(data); }
  /// The referenced range; only valid when !is_bytes().
  const InputRange& range() const { return std::get<1>(data); }

  static Chunk from_bytes(std::vector<uint8_t> bytes);
  static Chunk from_string(std::string_view bytes);
  static Chunk zeros(uint64_t count);
  static Chunk from_range(std::string source, uint64_t offset, uint64_t length);
  bool operator==(const Chunk&) const = default;
};

/// Reads `range.length` bytes of input `range.source` starting at
/// `range.offset` into `dst` (which has room for exactly that many bytes).
/// Callers ask for bounded pieces (at most kRangeReadPiece bytes at a time).
/// Errors: whatever the reader reports, normally IO_ERROR.
using RangeReader = std::function<Status(const InputRange& range, uint8_t* dst)>;

/// Largest piece a RangeReader is asked for at once (1 MiB).
inline constexpr uint64_t kRangeReadPiece = uint64_t{1} << 20;

/// Sum of the chunk sizes in bytes.
uint64_t total_size(const std::vector<Chunk>& chunks);

/// Concatenates the chunks into one byte string (tests, small outputs, the
/// WASM module handing bytes to JS). Ranges are read through `reader`.
/// Errors: IO_ERROR when a range is present but `reader` is empty, or the
/// reader's error; EMIT_LIMIT when the total does not fit in memory's size_t.
Result<std::vector<uint8_t>> flatten_chunks(const std::vector<Chunk>& chunks,
                                            const RangeReader& reader = {});

/// Calls `sink(data, size)` for every piece of the output in order, reading
/// ranges through `reader` in pieces of at most kRangeReadPiece bytes, so the
/// peak memory is one piece. Used by the file writer and flatten_chunks.
/// Errors: as flatten_chunks, plus whatever `sink` returns.
Status stream_chunks(const std::vector<Chunk>& chunks, const RangeReader& reader,
                     const std::function<Status(const uint8_t* data, uint64_t size)>& sink);

}  // namespace pteforge::emit
