// Native-only chunk I/O: write a chunk list to a file, read input ranges from
// files. Defined in chunks_native.cpp, which the WASM build leaves out (the
// browser turns chunks into a Blob instead).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "emit/chunks.h"
#include "support/error.h"
#include "support/interrupt_cleanup.h"

namespace pteforge::emit {

/// Why `path` could not be written (errno `err`), in words: "no space left on
/// the device", "its folder does not exist" (ENOENT when that is so; a file
/// system that refuses new files, /proc, says ENOENT too), ... The npm
/// package's writeFailureReason says the same.
std::string write_failure_reason(int err, const std::string& path);

/// A RangeReader over files: InputRange.source is looked up in `paths`
/// (source id → file path); a source missing from the map is used as a path
/// itself. Files stay open for the reader's lifetime.
/// Errors (from the reader): IO_ERROR naming the file (entry) and offset when
/// it cannot be opened or is shorter than the range.
RangeReader file_range_reader(std::map<std::string, std::string> paths = {});

/// One output file written to a temporary file next to its path and not yet
/// in place: a run that writes several files (the .pte and its side files)
/// stages them all, then commit_outputs() renames them together, so a failed
/// or interrupted run leaves the previous outputs as they were, never a mix of
/// old and new files. The temporary is removed when the object is destroyed
/// uncommitted, and if the process is interrupted meanwhile
/// (support/interrupt_cleanup.h).
class StagedOutput {
 public:
  /// Writes the concatenated chunks to a temporary file in `path`'s folder
  /// (".pteforge-XXXXXX"; mode 0666 less the umask, or that of the file it
  /// will replace). Ranges are read through `reader` in pieces of at most
  /// kRangeReadPiece bytes. A symbolic link is written through (its target is
  /// staged; the link stays); a path that exists and is not a regular file (a
  /// folder, a device) is refused and left as it is.
  /// Errors: IO_ERROR (entry = path) when writing fails; the reader's errors.
  static Result<std::unique_ptr<StagedOutput>> write(const std::vector<Chunk>& chunks, const std::string& path,
                                                     const RangeReader& reader = {});
  /// write() for bytes held in memory (a side file's text), written from
  /// where they are: wrapping them in a Chunk copied them (twice through an
  /// initializer list; 22 MB of metadata at 100k nodes). Same errors.
  static Result<std::unique_ptr<StagedOutput>> write_bytes(std::string_view bytes, const std::string& path);
  ~StagedOutput();
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;

  /// The path as given.
  const std::string& path() const { return path_; }

 private:
  friend Status commit_outputs(std::vector<std::unique_ptr<StagedOutput>>& outputs);
  StagedOutput(std::string path, std::string target, std::string tmp);
  /// The sink of write() and write_bytes(): takes (data, size) pieces in order.
  using Sink = std::function<Status(const uint8_t* data, uint64_t size)>;
  /// Stages `path_in`, writing what `produce` hands its sink.
  static Result<std::unique_ptr<StagedOutput>> write_with(const std::string& path_in,
                                                          const std::function<Status(const Sink&)>& produce);

  std::string path_;    // as given (messages)
  std::string target_;  // the file renamed over: a symbolic link's target
  std::string tmp_;     // the temporary file; empty once committed
  std::unique_ptr<RemoveOnInterrupt> remove_tmp_;
};

/// Renames every staged output over its path, in order, in one step with
/// interrupts held back (DeferInterrupts). When a rename fails, the outputs
/// this call already renamed get their earlier version back (kept meanwhile
/// as a hard link, or, where the file system has none, renamed aside just
/// before it is replaced; an output that did not exist before is removed), so a
/// failed run leaves the previous outputs as they were; the staged ones not
/// yet renamed stay temporaries, removed with their objects. An earlier
/// version that cannot be put back (its rename fails too) is kept beside its
/// path under the temporary's name + ".earlier", the new version there is
/// removed, and the error has a note naming both.
/// Errors: IO_ERROR (entry = the path whose rename failed).
Status commit_outputs(std::vector<std::unique_ptr<StagedOutput>>& outputs);

namespace testing {
/// The rename commit_outputs calls: tests swap in one that fails on purpose
/// (nullptr restores std::rename). Returns the one it replaces. Not thread-safe.
using RenameFn = int (*)(const char* from, const char* to);
RenameFn set_rename_for_testing(RenameFn fn);
}  // namespace testing

/// Writes one file: StagedOutput::write, then commit_outputs, so nothing
/// half-written is left behind. Errors: those two's.
Status write_chunks_to_file(const std::vector<Chunk>& chunks, const std::string& path,
                            const RangeReader& reader = {});

/// Writes one file holding `bytes`: StagedOutput::write_bytes, then
/// commit_outputs. Errors: those two's.
Status write_bytes_to_file(std::string_view bytes, const std::string& path);

}  // namespace pteforge::emit
