// The .pte serializer: Program model + payloads → ordered chunks of the file.
//
// File layout as ExecuTorch writes it by default (executorch-pipeline.md §2):
// flatbuffer with identifier "ET12"; when there is segment data, the 32-byte
// "eh00" extended header inserted at byte 8 (padded to the largest
// force_align); zero padding up to segment_base_offset (a multiple of the
// segment alignment, 128); then the segments, each aligned. Constants always
// go to the constant segment (segment 0, offsets[0] reserved for "no data",
// entries padded to the tensor alignment 16); the deprecated inline
// constant_buffer is never written. Output is deterministic: same input and
// options, same chunks.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "emit/chunks.h"
#include "emit/program_model.h"
#include "support/error.h"

namespace pteforge::emit {

/// How the flatbuffer's tables are laid out. Both are valid flatbuffers
/// that decode to the same program; they differ only in byte order.
enum class FlatbufferLayout {
  /// Current ExecuTorch: the Python object API's Pack() adds each table's
  /// fields in schema order (children written first, in field order), and
  /// the Python builder shares a vtable whenever the field entries match,
  /// even if the table-size entry differs. Reproduces arduino_add_model.pte,
  /// arduino_keyword_spotting.pte and stories260k_hybrid_llama_qnn.pte byte
  /// for byte.
  ObjectApi,
  /// Older ExecuTorch (e.g. tests/data/reference/pte/add.pte): flatc's JSON
  /// parser adds fields widest first (8, 4, 2, 1 bytes; offsets count as 4),
  /// in reverse schema order within one width.
  FlatcJson,
};

/// Alignments and choices of the serializer; defaults are ExecuTorch's
/// (executorch-pipeline.md §9). Every alignment must be a power of two.
struct SerializeOptions {
  /// Alignment of every segment in the file (bytes).
  uint64_t segment_alignment = 128;
  /// Alignment of each constant inside the constant segment (bytes), also the
  /// force_align of Buffer.storage.
  uint64_t constant_tensor_alignment = 16;
  /// force_align of BackendDelegateInlineData.data (bytes).
  uint64_t delegate_alignment = 16;
  /// Move non-empty inline delegate blobs into segments (§2.7).
  bool extract_delegate_segments = true;
  /// Byte order of the flatbuffer's tables.
  FlatbufferLayout flatbuffer_layout = FlatbufferLayout::ObjectApi;
};

/// A unique blob of the named data store (§2.8) and its alignment (bytes).
struct NamedDataBuffer {
  Chunk data;
  uint64_t alignment = 1;
  bool operator==(const NamedDataBuffer&) const = default;
};

/// A key of the named data store; several keys may share one buffer.
struct NamedDataKey {
  std::string key;
  uint32_t buffer_index = 0;  ///< index into ProgramData::named_buffers
  bool operator==(const NamedDataKey&) const = default;
};

/// The bytes the emitter hands over next to the Program: nothing here is
/// copied into the flatbuffer, it all becomes segments (so a Chunk may be a
/// reference into the input's weights).
struct ProgramData {
  /// Constant tensor data, indexed by Tensor.data_buffer_idx of constants.
  /// [0] is the reserved "no data" entry and must be empty; an empty list is
  /// taken as just that entry (§2.5).
  std::vector<Chunk> constant_buffer;
  /// Initial values of planned tensors (§2.6), indexed by data_buffer_idx of
  /// tensors with allocation_info; [0] reserved and empty. Written only when
  /// it has more than one entry.
  std::vector<Chunk> mutable_buffer;
  /// Delegate blobs, indexed by BackendDelegate.processed.index where
  /// location is Inline (§2.7). Blobs are expected unique (the emitter
  /// dedups by hash); equal chunks share one segment.
  std::vector<Chunk> delegate_data;
  /// Named data (§2.8): unique buffers, and keys naming them in insertion order.
  std::vector<NamedDataBuffer> named_buffers;
  std::vector<NamedDataKey> named_keys;
};

/// One segment's content for assemble_pte: the pieces concatenated, and the
/// segment's own alignment (combined with the segment alignment by lcm).
struct SegmentPayload {
  std::vector<Chunk> pieces;
  uint64_t alignment = 1;
};

/// Where things ended up in the file (bytes from the file start).
struct PteLayout {
  bool has_extended_header = false;
  uint64_t header_padded_length = 0;  ///< bytes the header takes (0 without one)
  uint64_t flatbuffer_size = 0;       ///< the flatbuffer as built, without the header
  uint64_t program_size = 0;          ///< flatbuffer + header = end of the program part
  uint64_t segment_base_offset = 0;   ///< first segment byte (= program_size without segments)
  uint64_t segment_data_size = 0;     ///< segments incl. padding between them
  uint64_t file_size = 0;
  bool operator==(const PteLayout&) const = default;
};

/// The serializer's result.
struct PteOutput {
  /// The file, in order; concatenated they are the .pte.
  std::vector<Chunk> chunks;
  PteLayout layout;
  /// The program as written: segments, constant_segment,
  /// mutable_data_segments, named_data and delegate references filled in.
  /// decode_pte of the output yields exactly this Program.
  Program program;
};

/// Serializes an emitted program with its payloads, as ExecuTorch's
/// serializer does by default (§2.4-§2.8):
/// - segment 0 is the constant segment (always present): entries of
///   data.constant_buffer padded to constant_tensor_alignment between them,
///   `constant_segment = {0, offsets}`, `constant_buffer = []`;
/// - then the mutable-data segment (if data.mutable_buffer has > 1 entry;
///   packed without padding; `mutable_data_segments = [{index, offsets}]`);
/// - then one segment per distinct non-empty delegate blob in order of first
///   use (plans in order, delegates in order) when extract_delegate_segments;
///   empty blobs stay inline, reindexed compactly;
/// - then one segment per named buffer, `named_data` = the keys.
/// `program` must not already carry these (segments empty, constant_segment
/// absent or with empty offsets, no mutable_data_segments/named_data, no
/// inline constant_buffer, no delegate with location Segment); inline
/// delegate blobs come from data.delegate_data, or from
/// program.backend_delegate_data when that list is empty.
/// Errors: INTERNAL for a program that breaks these rules or whose tensors
/// point at missing data (pointer names the value), PAYLOAD_INVALID when a
/// constant's bytes are shorter than its tensor, UNSUPPORTED_FEATURE for a
/// scalar type the .pte cannot carry or inline delegate data given as an
/// input range, OPTION_INVALID for bad alignments, EMIT_LIMIT when the
/// flatbuffer would exceed 2 GiB.
Result<PteOutput> serialize_program(const Program& program, const ProgramData& data,
                                    const SerializeOptions& options = {});
/// The same, consuming `program` (no copy of its execution plans; the
/// returned PteOutput::program is it, as written).
Result<PteOutput> serialize_program(Program&& program, const ProgramData& data,
                                    const SerializeOptions& options = {});

/// Lays out a program whose segment references are final: places
/// `segments` (§2.4; program.segments is overwritten with the placement),
/// builds the flatbuffer, adds the extended header when the segment data is
/// non-empty, and returns the chunks. Used by serialize_program and to
/// re-serialize a decoded file.
/// The constant segment's own alignment is whatever `segments` says;
/// serialize_program gives it constant_tensor_alignment.
/// Errors: OPTION_INVALID (alignments), EMIT_LIMIT, UNSUPPORTED_FEATURE as
/// for build_program_flatbuffer.
Result<PteOutput> assemble_pte(Program program, const std::vector<SegmentPayload>& segments,
                               const SerializeOptions& options = {});

/// Builds the flatbuffer of `program` alone (identifier "ET12", no header).
/// Children (strings, vectors, sub-tables) are written in field order before
/// their table, and fields are added in the order of
/// options.flatbuffer_layout, as ExecuTorch's Python serializer does, so our
/// bytes can match its files.
/// Errors: UNSUPPORTED_FEATURE (scalar type not in the schema; pointer names
/// the value), OPTION_INVALID (a force_align that is not a power of two up to
/// 65536), EMIT_LIMIT (the flatbuffer could exceed 2 GiB).
Result<std::vector<uint8_t>> build_program_flatbuffer(const Program& program,
                                                      const SerializeOptions& options = {});

/// How build_framed_program_flatbuffer frames the flatbuffer as the program
/// part of a file (§2.3): `header` (none: no framing) gives the extended
/// header's bytes for the flatbuffer's size, inserted after the root offset
/// and identifier (as insert_extended_header does), and zeros pad the result
/// to a multiple of `pad_to` bytes (the segment alignment).
struct FlatbufferFraming {
  std::function<std::vector<uint8_t>(uint64_t flatbuffer_size)> header;
  uint64_t pad_to = 1;
};

/// A framed flatbuffer and the size of the flatbuffer inside it.
struct FramedFlatbuffer {
  std::vector<uint8_t> bytes;
  uint64_t flatbuffer_size = 0;
};

/// build_program_flatbuffer framed by `framing` in the one copy out of the
/// builder (inserting the header into a finished flatbuffer copied the whole
/// program once more). Errors: those of build_program_flatbuffer; INTERNAL
/// when the root offset overflows with the header.
Result<FramedFlatbuffer> build_framed_program_flatbuffer(const Program& program,
                                                         const SerializeOptions& options,
                                                         const FlatbufferFraming& framing);

}  // namespace pteforge::emit
