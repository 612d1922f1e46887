// Native (non-WASM) archive front doors: zip files and bytes through the
// portable zip reader plus libzip for compressed entries, unpacked archive
// folders, and open_input(), which accepts any of the input forms the CLI
// takes. Implemented in *_native.cpp files, which the WASM build leaves out.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "serde/archive.h"
#include "serde/pt2_layout.h"
#include "support/error.h"

namespace pteforge::serde {

/// Opens a zip (.pt2) file. Stored entries are read in place (data_offset
/// set); deflated entries are decompressed by libzip on read().
/// Errors: IO_ERROR (file cannot be opened), INPUT_EMPTY, ARCHIVE_INVALID,
/// ARCHIVE_ENTRY_NAME (see read_zip_directory / ZipArchive::open); where.entry
/// is the offending entry, or `path` when the file as a whole is at fault.
Result<std::unique_ptr<Archive>> open_zip_file(const std::string& path);

/// Same as open_zip_file for zip bytes held in memory.
Result<std::unique_ptr<Archive>> open_zip_bytes(std::string bytes);

/// Opens a folder as an archive: every regular file below it (symlinks to
/// files included, symlinked folders not followed), named by its '/'-separated
/// path relative to `path`, sorted by name. Entries are stored, without
/// data_offset. Errors: IO_ERROR (where.entry = path) when the folder cannot be
/// listed or holds more than a million files or nests deeper than 64 levels.
Result<std::unique_ptr<Archive>> open_directory(const std::string& path);

/// Opens the given files of folder `base` as an archive, in the given order
/// (`names` are '/'-separated paths relative to `base`). Errors: IO_ERROR
/// when a file is missing; ARCHIVE_ENTRY_NAME for an unsafe name.
Result<std::unique_ptr<Archive>> open_directory_files(const std::string& base,
                                                      const std::vector<std::string>& names);

/// An opened input and where its programs are.
struct OpenedInput {
  std::unique_ptr<Archive> archive;
  Pt2Layout layout;
  /// What the archive reads from: the .pt2 or JSON file, or the archive
  /// folder (also for a program JSON inside an unpacked archive, whose
  /// weights come from that folder). Writers check their outputs against it.
  std::string root;
};

/// Opens any input form: a .pt2 zip, an unpacked archive folder, or a program
/// JSON file. A JSON file at `<dir>/models/<name>.json` where `<dir>` is an
/// unpacked archive (it has archive_format) opens `<dir>` and keeps only that
/// program; any other JSON file becomes a one-entry archive with
/// program_json_layout(). The kind is sniffed from the bytes, not the name.
/// Errors: IO_ERROR (a path that cannot be opened: "cannot open \"PATH\": " +
/// open_failure_reason), INPUT_EMPTY (0-byte file), ARCHIVE_INVALID
/// (neither zip nor JSON), and those of the openers and detect_pt2_layout.
Result<OpenedInput> open_input(const std::string& path);

}  // namespace pteforge::serde
