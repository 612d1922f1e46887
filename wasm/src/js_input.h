// The input forms the JS API accepts, opened as an Archive + Pt2Layout the
// way the CLI opens a path (serde::open_input): a .pt2 zip (whose directory
// the wrapper read with zip.js), a program JSON given as one byte input (the
// kind sniffed from the bytes, not the name, as the CLI does), or the files
// of an unpacked archive folder.
//
// The JS wrapper describes the input as JSON (sizes as numbers, bytes stay in
// JS and are read through JsReader):
//   {"kind":"auto",  "name":"model.json", "source":0, "size":12345}   (a program JSON)
//   {"kind":"zip",   "name":"model.pt2", "source":0, "size":12345,
//    "entries":[{"name":"archive/...","method":0,"flags":0,"crc32":123,"compressedSize":10,
//                "size":10,"localHeaderOffset":0,"dataOffset":64}, ...]}
//      (a .pt2: the zip directory as zip.js read it in the wrapper, wasm/js/zip.mjs;
//       "nameBytes":[...] instead of "name" for a name that is not UTF-8)
//   {"kind":"files", "name":"json", "files":[{"name":"models/model.json","source":0,"size":10}, ...]}
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "js_io.h"
#include "serde/archive.h"
#include "serde/pt2_layout.h"
#include "support/error.h"

namespace pteforge::wasm {

/// Where the bytes of an archive entry live among the JS inputs.
struct JsLocation {
  uint32_t source = 0;
  uint64_t offset = 0;  ///< bytes from the start of that JS input
};

/// An opened JS input.
struct JsInput {
  std::unique_ptr<serde::Archive> archive;
  serde::Pt2Layout layout;
  std::string name;  ///< the input's name (file name), for messages

  /// The JS input and offset holding byte `offset` of stored entry `entry`
  /// (what an output chunk referring to that entry becomes in JS).
  /// Errors: INTERNAL when the entry is unknown or not stored in place.
  Result<JsLocation> locate(std::string_view entry, uint64_t offset) const;

 private:
  friend Result<JsInput> open_js_input(std::string_view description, const JsReader& reader);
  bool zip_ = false;
  uint32_t zip_source_ = 0;
};

/// Opens the input that `description` (JSON, see the file comment) names.
/// Errors, as the CLI's open_input for the same bytes: INPUT_EMPTY (0 bytes),
/// ARCHIVE_INVALID (neither zip nor JSON), those of
/// serde::ZipArchive::from_records and of serde::detect_pt2_layout
/// (where.entry = the name when no entry is at fault); INTERNAL when
/// `description` itself is malformed, or describes a zip as kind "auto"
/// (a wrapper bug).
Result<JsInput> open_js_input(std::string_view description, const JsReader& reader);

}  // namespace pteforge::wasm
