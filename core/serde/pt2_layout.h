// Which records of an archive hold which program: layout detection for .pt2
// archives (torch-export-format.md §1.10), per-model record names (§1.3) and
// payload lookup (§1.4-1.5: config path_name -> payload entry).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serde/archive.h"
#include "support/error.h"

namespace pteforge::serde {

/// The archive layouts of torch-export-format.md §1.1, plus a lone program JSON.
enum class Pt2LayoutKind {
  kCurrent,      ///< layout C: one root folder, archive_format "pt2", raw payloads + JSON configs
  kEarlyPt2,     ///< layout B: flat, "version" record, weights pickled in data/weights/<model>.pt
  kLegacy,       ///< layout A: flat, serialized_exported_program.json + pickled state dict
  kProgramJson,  ///< a program JSON file on its own (no weights or constants)
};

/// "current" / "early_pt2" / "legacy" / "program_json".
std::string_view layout_kind_name(Pt2LayoutKind kind);

/// LEGACY_ARCHIVE at archive entry `entry` (an input whose weights are
/// pickled, which pteforge does not read), with a note on re-saving it.
Error legacy_error(std::string message, std::string entry);

/// Byte order of raw tensor payloads (the `byteorder` record, §1.3).
enum class ByteOrder { kLittle, kBig };

/// Which payload folder a PayloadConfig's path_name refers to.
enum class PayloadFolder {
  kWeights,    ///< data/weights/ (parameters, persistent buffers)
  kConstants,  ///< data/constants/ (tensor constants, non-persistent buffers, custom objects)
};

/// One program of the archive (`models/<name>.json`). All record names are
/// full entry names (root folder included).
struct Pt2Model {
  std::string name;           ///< <name> of models/<name>.json
  std::string method;         ///< method name: <name>, or "forward" for a lone models/model.json
  std::string program_entry;  ///< the ExportedProgram JSON
  /// Position among the archive's models/<name>.json entries in archive
  /// order (zip directory order; sorted names for a folder): the order in
  /// which torch.export's loader fills its {method: program} dict, which
  /// ExecuTorch's training metadata follows. `models` itself is sorted by method.
  size_t archive_order = 0;
  /// data/weights/<name>_weights_config.json (or <name>_model_param_config.json)
  std::optional<std::string> weights_config_entry;
  /// data/constants/<name>_constants_config.json (or <name>_model_constants_config.json)
  std::optional<std::string> constants_config_entry;
  std::string weights_prefix;    ///< "<root>/data/weights/"; empty for a lone program JSON
  std::string constants_prefix;  ///< "<root>/data/constants/"; empty for a lone program JSON
  /// data/weights/<name>.pt: legacy pickled state dict kept by some layout-C archives (§1.9)
  std::optional<std::string> legacy_weights_entry;
  /// data/constants/<name>.pt: legacy pickled constants (§1.9)
  std::optional<std::string> legacy_constants_entry;
  std::optional<std::string> sample_inputs_entry;  ///< data/sample_inputs/<name>.pt

  /// The archive's root folder with its slash ("linear_tanh/"), as the
  /// entries above start with; "" for top-level records or a lone program JSON.
  std::string root_prefix() const;
};

/// Where everything of an exported-program archive lives.
struct Pt2Layout {
  Pt2LayoutKind kind = Pt2LayoutKind::kCurrent;
  /// Root folder taken from the first entry (e.g. "linear_tanh", "archive");
  /// empty when the records are at top level (an unpacked json/ folder).
  std::string root;
  ByteOrder byteorder = ByteOrder::kLittle;  ///< little when the record is absent
  uint64_t archive_version = 0;              ///< 0 when the record is absent
  std::vector<Pt2Model> models;              ///< sorted by method name

  /// Full entry name of a record path relative to the root ("models/x.json").
  std::string entry_name(std::string_view record) const;
  /// The model whose method is `method`, or nullptr.
  const Pt2Model* find_method(std::string_view method) const;
  /// Keeps only the model of `method` (every model when `method` is empty),
  /// for commands that take --method. Errors: OPTION_INVALID "the input has
  /// no method 'NAME'; its methods: a, b" with where.method.
  Status keep_method(std::string_view method);
};

/// Detects the layout of `archive` (§1.10) and reads archive_format,
/// archive_version and byteorder. Works on zip archives, unpacked folders
/// (records at top level, or under one root folder) and MemoryArchives.
/// Method names: models/<name>.json is method <name>, except a lone
/// models/model.json, which is method "forward".
/// Errors (where.entry names the record):
///  - LEGACY_ARCHIVE for layouts A and B (pickled weights), with how to re-save;
///  - ARCHIVE_INVALID: archive_format is not "pt2", archive_version is not a
///    number or not 0, byteorder is not little/big, an entry lies outside the
///    root folder, a TorchScript/torch.save archive, or no exported program;
///  - ARCHIVE_ENTRY_MISSING: models/*.json present but archive_format missing,
///    or archive_format present but no models/*.json.
Result<Pt2Layout> detect_pt2_layout(Archive& archive);

/// detect_pt2_layout for an input named `input` (the CLI's path, the name
/// the npm package was given): an error that names no entry (no program, an
/// empty folder) gets where.entry = `input`, as every other error about the
/// input has.
Result<Pt2Layout> detect_input_layout(Archive& archive, const std::string& input);

/// The layout of a lone program JSON stored as entry `program_entry`: one
/// model "model", method "forward", no configs and no payload folders.
Pt2Layout program_json_layout(std::string program_entry);

/// The config record `model` would have in `folder` in the current spelling
/// (<root>/data/weights/<name>_weights_config.json,
/// <root>/data/constants/<name>_constants_config.json), to name one the
/// archive lacks; empty for a lone program JSON (it has no payload folders).
std::string expected_config_entry(const Pt2Model& model, PayloadFolder folder);

/// The payload entry that a PayloadConfig `path_name` of `model` names.
/// Errors: ARCHIVE_ENTRY_NAME when path_name is empty, has a directory part
/// or is "."/".."; ARCHIVE_ENTRY_MISSING when the entry does not exist;
/// WEIGHTS_MISSING for a lone program JSON (it has no payloads). where.entry
/// is the full entry name looked for, where.method the model's method.
Result<const ArchiveEntry*> resolve_payload(const Archive& archive, const Pt2Model& model,
                                            PayloadFolder folder, std::string_view path_name);

}  // namespace pteforge::serde
