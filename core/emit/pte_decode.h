// Reading a .pte back: bytes → Program model, JSON, or a text summary.
//
// The same ladder as ExecuTorch's loader (engineering-notes D7): check the
// identifier, read the extended header, check the sizes it claims against
// the file, run the generated FlatBuffers Verifier over the program part
// before touching any table, then convert. Bad input of any kind returns
// PTE_INVALID (never a crash); `where.byte_offset` names the offending header
// field, or the end of the data when bytes are missing; `where.pointer` names
// the table (e.g. /execution_plan/0/values/3) for problems found after
// verification; `where.entry` is DecodeOptions::source_name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "emit/extended_header.h"
#include "emit/program_model.h"
#include "emit/pte_load_check.h"
#include "support/error.h"

namespace pteforge::emit {

/// Layout of the JSON decode_pte_json writes.
enum class PteJsonStyle {
  /// pteforge's readable view: defaults spelled out, value/instruction
  /// indices, operator names on instructions, 64-bit allocation offsets,
  /// segment file offsets, sizes of inline data instead of its bytes.
  Readable,
  /// The same document `flatc --json --strict-json` prints for the program
  /// (scalars equal to their default left out, enums by name, bytes as
  /// numbers), for diffing against flatc's output as JSON values. It stays
  /// JSON where flatc's text does not, and exact: doubles in full (flatc
  /// prints 12 decimals, 1e-13 as 0.0), infinities and NaN as the strings
  /// "inf", "-inf", "nan" (flatc writes them bare); layout is RapidJSON's
  /// (empty lists as []).
  Flatc,
};

struct DecodeOptions {
  /// Name of the input for error locations (where.entry), e.g. the file path.
  std::string source_name;
  /// Total file size when `bytes` holds only the start of the file (at least
  /// the program part, program_size bytes); segment bounds are checked
  /// against it. Without an extended header the whole file is needed.
  std::optional<uint64_t> file_size;
  PteJsonStyle json_style = PteJsonStyle::Readable;
  /// Also make the runtime's method-load checks (DecodedPte::load_check).
  bool check_load = false;
};

/// Facts about the container around the flatbuffer.
struct PteFileInfo {
  uint64_t file_size = 0;
  std::string identifier;                          ///< bytes 4..7, "ET12"
  std::optional<ExtendedHeader> extended_header;  ///< absent when the file has none
  uint64_t program_size = 0;         ///< bytes of the program part (the whole file without a header)
  uint64_t segment_base_offset = 0;  ///< = program_size without a header
  uint64_t segment_data_size = 0;    ///< 0 without a header
  bool operator==(const PteFileInfo&) const = default;
};

struct DecodedPte {
  PteFileInfo info;
  Program program;
  /// What ExecuTorch's runtime would refuse when loading or running a method
  /// (check_method_load); filled only with DecodeOptions::check_load.
  LoadCheck load_check;
  /// Layout that ExecuTorch's serializer never writes but its runtime
  /// tolerates, since it checks only the parts a load reads: a
  /// segment_base_offset inside the program, a segment_data_size smaller
  /// than the segments, a subsegment offset past its segment's end (the load
  /// check reports those a method uses). Pointers name the header field or
  /// the offset; decoding goes on.
  std::vector<LoadProblem> layout_problems;
};

/// Where segment `s` starts in the file (segment_base_offset + its offset),
/// or nullopt when that is past the end of the file (a size-0 segment may
/// name any offset; the sum could also pass 64 bits).
std::optional<uint64_t> segment_file_offset(const PteFileInfo& info, const DataSegment& s);

/// Decodes a .pte (or its start, see DecodeOptions::file_size) into the
/// Program model. Inline data (deprecated constant_buffer, inline delegate
/// blobs) is copied; segment data is not read, only its bounds are checked.
/// Errors: PTE_INVALID (see the file comment).
Result<DecodedPte> decode_pte(std::string_view bytes, const DecodeOptions& options = {});

/// How many leading bytes of a `file_size`-byte file decode_pte needs, given
/// the file's first bytes `head` (the first 4096, or the whole file when it is
/// shorter): head.size() when the file has no "ET12" identifier, or has no
/// extended header and is larger than a flatbuffer can be (decode_pte refuses
/// both from `head` with DecodeOptions::file_size set); the program part when
/// the extended header gives it; else the whole file. So a large file that is
/// not a .pte is refused without being read.
uint64_t pte_prefix_to_decode(std::string_view head, uint64_t file_size);

/// decode_pte, then decoded_pte_to_json in options.json_style.
/// Errors: as decode_pte.
Result<std::string> decode_pte_json(std::string_view bytes, const DecodeOptions& options = {});

/// The decoded file as pretty-printed JSON (2-space indent, trailing newline).
/// Never fails: indices out of range are shown as such, strings that are not
/// UTF-8 get U+FFFD for the bad bytes, non-finite doubles are written as the
/// strings "inf", "-inf", "nan".
std::string decoded_pte_to_json(const DecodedPte& decoded, PteJsonStyle style = PteJsonStyle::Readable);

/// A human-readable summary: file layout, then per method its inputs and
/// outputs, values, operators, instructions (`0: aten::add.out(%1, %0, %3, %2, %2)`),
/// delegates and memory pools; then segments and constant data. Never fails.
std::string format_pte_summary(const DecodedPte& decoded);

/// One instruction in the summary's form, e.g. "aten::add.out(%1, %0, %3, %2, %2)",
/// "delegate 0 QnnBackend(%2, %0)", "move %1 -> %2", "jump_false %3 -> 7", "free %5".
std::string format_instruction(const ExecutionPlan& plan, const Instruction& instruction);

}  // namespace pteforge::emit
