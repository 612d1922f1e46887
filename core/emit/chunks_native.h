// Native-only chunk I/O: write a chunk list to a file, read input ranges from
// files. Defined in chunks_native.cpp, which the WASM build leaves out (the
// browser turns chunks into a Blob instead).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "emit/chunks.h"
#include "support/error.h"
#include "support/interrupt_cleanup.h"

namespace pteforge::emit {

/// A RangeReader over files: InputRange.source is looked up in `paths`
/// (source id → file path); a source missing from the map is used as a path
/// itself. Files stay open for the reader's lifetime.
/// Errors (from the reader): IO_ERROR naming the file (entry) and offset when
/// it cannot be opened or is shorter than the range.
RangeReader file_range_reader(std::map<std::string, std::string> paths = {});

/// Writes the concatenated chunks to `path`: first to a temporary file next
/// to it, then renamed over `path`, so nothing half-written is left behind.
/// Ranges are read through `reader` in pieces of at most kRangeReadPiece bytes.
/// A symbolic link is written through; a path that exists and is not a
/// regular file (a folder, a device) is refused and left as it is.
/// The temporary file is removed if the process is interrupted meanwhile
/// (support/interrupt_cleanup.h). The rename runs with interrupts deferred,
/// together with two optional steps: when `keep` is given, `path` itself is
/// registered for removal on interrupt and *keep holds that registration on
/// success (for a file that must not outlive a later one: the caller releases
/// it); `on_renamed` runs right after a successful rename (the caller releases
/// such registrations there). So no interrupt falls between them.
/// Errors: IO_ERROR (entry = path) when writing fails; the reader's errors.
Status write_chunks_to_file(const std::vector<Chunk>& chunks, const std::string& path,
                            const RangeReader& reader = {},
                            std::unique_ptr<RemoveOnInterrupt>* keep = nullptr,
                            const std::function<void()>& on_renamed = {});

}  // namespace pteforge::emit
