// pteforge: the public C++ façade that every front door calls (the native CLI
// and the WASM bindings): torch.export program (.pt2 archive, unpacked folder
// or program JSON) → ExecuTorch .pte, plus decode and pass listing.
//
//   auto in = serde::open_input("model.pt2");          // native only
//   ConvertOptions options;                             // ExecuTorch's defaults
//   auto r = pteforge::convert(*in->archive, in->layout, options);
//   emit::write_chunks_to_file(r->pte.chunks, "model.pte",
//                              pteforge::archive_range_reader(*in->archive));
//
// Pipeline (design.md): import each program JSON and bind its weights →
// per method the PassManager with the default (or requested) pipeline →
// emit_program → serialize_program. Weights are never copied: the .pte
// chunks reference archive entries (InputRange.source = entry name), read
// through archive_range_reader when the file is written.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "emit/chunks.h"
#include "emit/pte_writer.h"
#include "passes/pipeline_options.h"
#include "serde/archive.h"
#include "serde/pt2_layout.h"
#include "support/error.h"

namespace pteforge {

/// A module swap for convert (`--swap FQN=PATH`): module `fqn` of every
/// method is replaced by a program read from another input, whose weights
/// the .pte then references (InputRange.source = emit::labelled_source(
/// "swap:<fqn>", entry)). The caller keeps `archive` open until the .pte is
/// written and passes the same swaps to archive_range_reader.
struct SwapInput {
  std::string fqn;                     ///< module path, e.g. "encoder.layer.1"
  serde::Archive* archive = nullptr;   ///< the replacement's .pt2, folder or program JSON
  serde::Pt2Layout layout;             ///< as detect_pt2_layout found it
  std::string method;                  ///< the replacement's method to use; "" = its only method
  std::string source;                  ///< where it came from (a path), named by errors; "" = not named
};

struct ConvertOptions {
  /// Passes, memory planning algorithm, alignment, ... (passes/pipeline_options.h).
  passes::PipelineOptions pipeline;
  /// Constant methods as one JSON object {"name": value, ...} (the JS / API
  /// form); "" = none. Values: int, float, bool, string, or lists / objects of them.
  std::string constant_methods_json;
  /// Constant methods as (name, JSON value) pairs (the CLI's repeatable
  /// --constant-method NAME=JSON), appended after constant_methods_json.
  std::vector<std::pair<std::string, std::string>> constant_methods;
  /// Store the initial values of mutable buffers (ExecuTorch et_init_buffer).
  bool init_buffers = false;
  /// Chain.stacktrace from each node's stack trace.
  bool emit_stacktrace = false;
  /// Alignments and flatbuffer layout (defaults are ExecuTorch's).
  emit::SerializeOptions serialize;
  /// Write pass times into the report (false gives byte-stable reports).
  bool report_times = true;
  /// Module swaps (passes/module_swap_api.h), run by the swap_modules pass.
  std::vector<SwapInput> swaps;
  /// Called as the conversion advances: stage "import" and "passes" once
  /// before the first method (done 0) and after each method (done = methods
  /// finished, total = methods), then "emit" and "serialize" (0/1, 1/1).
  /// For progress bars; it must not throw.
  std::function<void(std::string_view stage, uint64_t done, uint64_t total)> on_progress;
  /// Also write each method's program as it is after the passes (the edge /
  /// ExecuTorch dialect graph the emitter reads) to ConvertResult::programs_json.
  bool export_programs = false;
  /// Hash the payload ranges that the constant pool deduplicates on a second
  /// thread while the passes run (emit::HashPrefetch; native builds only).
  /// The output is the same either way; false hashes them while emitting.
  bool prefetch_hashes = true;
};

/// Wall time of each stage of a conversion, in milliseconds.
struct ConvertTimings {
  double import_ms = 0;     ///< reading + importing the program JSON, binding weights
  double passes_ms = 0;     ///< the pass pipeline, all methods
  double emit_ms = 0;       ///< emit_program (constants hashed here, unless prefetch_hashes hashed them during the passes)
  double serialize_ms = 0;  ///< serialize_program + metadata JSON
};

struct ConvertResult {
  /// The .pte as ordered chunks (owned bytes + references to archive entries).
  emit::PteOutput pte;
  /// The metadata JSON (emit/metadata_json.h).
  std::string metadata_json;
  /// The pass report JSON (passes::PassReport::to_json): per method and pass,
  /// time, node counts, counters; then warnings.
  std::string report_json;
  /// With ConvertOptions::export_programs: {"<method>": program JSON, ...}
  /// (serde::write_exported_program after the passes, methods sorted by
  /// name); "" otherwise.
  std::string programs_json;
  /// The import's and the passes' warnings and remarks, in the order raised
  /// (the same as report_json's "diagnostics"). The CLI prints them to stderr.
  std::vector<Diagnostic> diagnostics;
  ConvertTimings timings;
  /// The conversion's working state (the lowered programs, their tensor
  /// specs, the emitter's tables), handed over instead of freed inside
  /// convert(): dropping the result frees it. Freeing it walks the whole IR
  /// block by block (about 5 ms of a 10k-node conversion), which a process
  /// about to exit can leave to the kernel (the CLI does).
  std::shared_ptr<void> working_state;
};

/// Converts every program of `archive` (as `layout` lists them) into one .pte.
/// Errors: those of the importer (INPUT_*, UNKNOWN_UNION_TAG, ...), of state
/// binding (WEIGHTS_MISSING, PAYLOAD_INVALID), of the passes (where.pass set),
/// of the emitter and the serializer; OPTION_INVALID for bad options; every
/// error carries where.method (and where.entry for archive problems).
Result<ConvertResult> convert(serde::Archive& archive, const serde::Pt2Layout& layout,
                              const ConvertOptions& options = {});

/// Same, for input bytes: a .pt2 (zip) archive or a lone program JSON
/// (method "forward"). The chunks then reference entries of an archive that
/// lives only during the call, so ranges are resolved: the result holds
/// owned bytes only. Errors: as convert, plus ARCHIVE_INVALID.
Result<ConvertResult> convert_bytes(std::string bytes, const ConvertOptions& options = {});

/// A RangeReader over `archive`: InputRange.source is an entry name, or
/// "swap:<fqn>::<entry>" for the weights of one of `swaps` (read from its
/// archive, under its layout's root folder).
/// Errors (from the reader): ARCHIVE_ENTRY_MISSING, and Archive::read_range's.
emit::RangeReader archive_range_reader(serde::Archive& archive, const std::vector<SwapInput>& swaps = {});

/// Summary of every program of `archive` without converting it (imported,
/// not lowered): serde::summary_to_json, or summary_to_text when `json` is
/// false. Errors: the importer's, with where.method and where.entry.
Result<std::string> inspect(serde::Archive& archive, const serde::Pt2Layout& layout, bool json = true);

/// Decodes .pte bytes to JSON: pteforge's readable form, or (flatc = true)
/// what `flatc --json --strict-json` prints. Errors: PTE_INVALID.
Result<std::string> decode_pte(std::string_view bytes, bool flatc = false);

/// Every registered pass as JSON: [{"name", "summary", "group", "implemented", "default"}].
std::string list_passes_json();

}  // namespace pteforge
