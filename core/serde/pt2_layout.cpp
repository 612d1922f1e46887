// Layout detection for exported-program archives (see pt2_layout.h).
#include "serde/pt2_layout.h"

#include <strings.h>

#include <algorithm>

#include "serde/archive_zip.h"
#include "support/utf8.h"

namespace pteforge::serde {
namespace {

constexpr uint64_t kMaxSmallRecordBytes = 64;

Error error_at(ErrorCode code, std::string message, std::string entry) {
  Location where;
  where.entry = std::move(entry);
  return make_error(code, std::move(message), std::move(where));
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// Printable, shortened rendering of a record's content for messages.
std::string shown(std::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size() && i < 32; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (text.size() > 32) out += "...";
  return out + "\"";
}

/// Model names <name> of `<prefix>models/<name>.json` entries, in archive order.
std::vector<std::string> model_names(const Archive& archive, const std::string& prefix) {
  const std::string models = prefix + "models/";
  std::vector<std::string> names;
  for (const auto& entry : archive.entries()) {
    std::string_view name = entry.name;
    if (!starts_with(name, models) || !ends_with(name, ".json")) continue;
    std::string_view stem = name.substr(models.size(), name.size() - models.size() - 5);
    if (stem.empty() || stem.find('/') != std::string_view::npos) continue;
    names.emplace_back(stem);
  }
  return names;
}

/// The first of `candidates` that is an entry of the archive.
std::optional<std::string> first_existing(const Archive& archive,
                                          const std::vector<std::string>& candidates) {
  for (const auto& name : candidates) {
    if (archive.find(name) != nullptr) return name;
  }
  return std::nullopt;
}

/// IO_ERROR `cannot open "NAME": WHY` (where.entry = NAME) for the first
/// candidate that the input holds as something unreadable (a FIFO, a folder:
/// Archive::why_unlisted), or that sits in such a folder (e.g. data/weights
/// as a symbolic link to a folder, which is not followed); Ok otherwise.
Status refuse_unreadable(const Archive& archive, const std::vector<std::string>& candidates) {
  for (const std::string& name : candidates) {
    for (size_t end = name.size(); end != std::string::npos && end > 0; end = name.rfind('/', end - 1)) {
      const std::string part = name.substr(0, end);
      std::optional<std::string> why = archive.why_unlisted(part);
      // A plain folder above the name is where the entry would be, not a fault.
      if (why && (end == name.size() || *why != "it is a folder")) {
        return error_at(ErrorCode::IO_ERROR, "cannot open \"" + part + "\": " + *why, part);
      }
    }
  }
  return Status::Ok();
}

Result<Pt2Layout> detect_current(Archive& archive, const std::string& root) {
  Pt2Layout layout;
  layout.kind = Pt2LayoutKind::kCurrent;
  layout.root = root;
  const std::string prefix = root.empty() ? "" : root + "/";

  if (!root.empty()) {
    for (const auto& entry : archive.entries()) {
      if (!starts_with(entry.name, prefix)) {
        return error_at(ErrorCode::ARCHIVE_INVALID,
                        "entry \"" + entry.name + "\" lies outside the archive's root folder \"" +
                            prefix + "\" (taken from the first entry); every entry of a .pt2 "
                            "must be inside it",
                        entry.name);
      }
    }
  }

  const std::string format_entry = prefix + "archive_format";
  PTEFORGE_ASSIGN_OR_RETURN(std::string format,
                            read_text_entry(archive, format_entry, kMaxSmallRecordBytes));
  if (format != "pt2") {
    return error_at(ErrorCode::ARCHIVE_INVALID,
                    "archive_format is " + shown(format) + "; a .pt2 archive has \"pt2\"",
                    format_entry);
  }

  const std::string version_entry = prefix + "archive_version";
  if (archive.find(version_entry) != nullptr) {
    PTEFORGE_ASSIGN_OR_RETURN(std::string text,
                              read_text_entry(archive, version_entry, kMaxSmallRecordBytes));
    bool digits = !text.empty() && text.size() <= 18 &&
                  std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      return error_at(ErrorCode::ARCHIVE_INVALID,
                      "archive_version is " + shown(text) + "; expected a decimal number",
                      version_entry);
    }
    layout.archive_version = std::stoull(text);
    if (layout.archive_version != 0) {
      return error_at(ErrorCode::ARCHIVE_INVALID,
                      "archive_version is " + text +
                          "; pteforge reads archive layout version 0 only (as does PyTorch's "
                          "own loader), so this archive was written by a newer, incompatible "
                          "packager",
                      version_entry);
    }
  }

  const std::string byteorder_entry = prefix + "byteorder";
  if (archive.find(byteorder_entry) != nullptr) {
    PTEFORGE_ASSIGN_OR_RETURN(std::string order,
                              read_text_entry(archive, byteorder_entry, kMaxSmallRecordBytes));
    if (order == "little") {
      layout.byteorder = ByteOrder::kLittle;
    } else if (order == "big") {
      layout.byteorder = ByteOrder::kBig;
    } else {
      return error_at(ErrorCode::ARCHIVE_INVALID,
                      "byteorder is " + shown(order) + "; expected \"little\" or \"big\"",
                      byteorder_entry);
    }
  }

  std::vector<std::string> names = model_names(archive, prefix);
  if (names.empty()) {
    // A models/model.json that is there but unreadable (a FIFO, a folder) is named as such.
    PTEFORGE_TRY(refuse_unreadable(archive, {prefix + "models/model.json"}));
    return error_at(ErrorCode::ARCHIVE_ENTRY_MISSING,
                    "the archive holds no program: no " + prefix + "models/<name>.json entry",
                    prefix + "models/model.json");
  }
  auto is_model = [&names](const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  const std::string weights = prefix + "data/weights/";
  const std::string constants = prefix + "data/constants/";
  for (const auto& name : names) {
    // The name is the method's in the .pte, whose strings are UTF-8 (and so is JSON output).
    if (std::optional<size_t> bad = find_invalid_utf8(name)) {
      return error_at(ErrorCode::ARCHIVE_ENTRY_NAME,
                      "the program entry models/" + control_escaped(name) + ".json names method " +
                          control_escaped(name) + ", which is not valid UTF-8 (at byte " +
                          std::to_string(*bad) + "); a .pte stores method names as UTF-8: rename the entry",
                      prefix + "models/" + name + ".json");
    }
    Pt2Model model;
    model.name = name;
    model.method = (names.size() == 1 && name == "model") ? "forward" : name;
    model.program_entry = prefix + "models/" + name + ".json";
    model.archive_order = layout.models.size();
    // Current spelling first, then the archive-spec spelling (§1.3 notes).
    // "x_model_constants_config.json" is model "x_model"'s current spelling
    // before it is model "x"'s older one.
    std::vector<std::string> weight_names = {weights + name + "_weights_config.json",
                                             weights + name + "_model_param_config.json"};
    std::vector<std::string> constant_names = {constants + name + "_constants_config.json"};
    if (!is_model(name + "_model")) {
      constant_names.push_back(constants + name + "_model_constants_config.json");
    }
    model.weights_config_entry = first_existing(archive, weight_names);
    model.constants_config_entry = first_existing(archive, constant_names);
    // A config that is there but unreadable is an error, not a missing config.
    if (!model.weights_config_entry) PTEFORGE_TRY(refuse_unreadable(archive, weight_names));
    if (!model.constants_config_entry) PTEFORGE_TRY(refuse_unreadable(archive, constant_names));
    model.weights_prefix = weights;
    model.constants_prefix = constants;
    model.legacy_weights_entry = first_existing(archive, {weights + name + ".pt"});
    model.legacy_constants_entry = first_existing(archive, {constants + name + ".pt"});
    model.sample_inputs_entry = first_existing(archive, {prefix + "data/sample_inputs/" + name + ".pt"});
    layout.models.push_back(std::move(model));
  }
  std::sort(layout.models.begin(), layout.models.end(),
            [](const Pt2Model& a, const Pt2Model& b) { return a.method < b.method; });
  return layout;
}

}  // namespace

Error legacy_error(std::string message, std::string entry) {
  Error e = error_at(ErrorCode::LEGACY_ARCHIVE, std::move(message), std::move(entry));
  // Which release switched to raw payloads is not established (torch-export-format.md §13);
  // the corpus's torch 2.11 archives have them.
  e.notes.push_back(
      "re-save it with a torch release whose torch.export.save stores raw weights (it writes "
      "data/weights/<model>_weights_config.json; torch 2.11 does): "
      "`ep = torch.export.load(\"old.pt2\"); torch.export.save(ep, \"new.pt2\")`");
  return e;
}

std::string_view layout_kind_name(Pt2LayoutKind kind) {
  switch (kind) {
    case Pt2LayoutKind::kCurrent: return "current";
    case Pt2LayoutKind::kEarlyPt2: return "early_pt2";
    case Pt2LayoutKind::kLegacy: return "legacy";
    case Pt2LayoutKind::kProgramJson: return "program_json";
  }
  return "unknown";
}

std::string Pt2Model::root_prefix() const {
  constexpr std::string_view kWeights = "data/weights/";
  if (weights_prefix.size() < kWeights.size()) return "";
  return weights_prefix.substr(0, weights_prefix.size() - kWeights.size());
}

std::string Pt2Layout::entry_name(std::string_view record) const {
  return root.empty() ? std::string(record) : root + "/" + std::string(record);
}

const Pt2Model* Pt2Layout::find_method(std::string_view method) const {
  for (const auto& model : models) {
    if (model.method == method) return &model;
  }
  return nullptr;
}

Status Pt2Layout::keep_method(std::string_view method) {
  if (method.empty()) return Status::Ok();
  if (find_method(method)) {
    std::erase_if(models, [&](const Pt2Model& m) { return m.method != method; });
    return Status::Ok();
  }
  std::string names;
  for (const Pt2Model& m : models) names += (names.empty() ? "" : ", ") + m.method;
  Location where;
  where.method = std::string(method);
  return make_error(ErrorCode::OPTION_INVALID,
                    "the input has no method " + single_quoted(method) + "; its methods: " + names, std::move(where));
}

Result<Pt2Layout> detect_pt2_layout(Archive& archive) {
  const auto& entries = archive.entries();
  if (entries.empty()) {
    return make_error(ErrorCode::ARCHIVE_INVALID,
                      "the input holds no files; expected a torch.export .pt2 archive or the folder of an "
                      "unpacked one");
  }
  const std::string& first = entries.front().name;
  const size_t slash = first.find('/');
  const std::string top = slash == std::string::npos ? "" : first.substr(0, slash);

  // Layout C: <root>/archive_format, root taken from the first entry (§1.2).
  if (!top.empty() && archive.find(top + "/archive_format") != nullptr) {
    return detect_current(archive, top);
  }
  // Records at top level: layout B, or an unpacked layout-C folder.
  if (archive.find("archive_format") != nullptr) {
    if (archive.find("version") != nullptr && archive.find("archive_version") == nullptr) {
      std::vector<std::string> names = model_names(archive, "");
      std::string entry = "version";
      for (const auto& name : names) {
        if (archive.find("data/weights/" + name + ".pt") != nullptr) {
          entry = "data/weights/" + name + ".pt";
          break;
        }
      }
      return legacy_error(
          "this is an early PT2 archive (flat, with a \"version\" record; written by "
          "torch.export/package_pt2 of torch 2.6-2.7): its weights are pickled in "
          "data/weights/<model>.pt, and pteforge does not read pickles",
          entry);
    }
    return detect_current(archive, "");
  }
  // Layout A: serialized_exported_program.json at top level or in one folder.
  for (const std::string& name : {std::string("serialized_exported_program.json"),
                                  top.empty() ? std::string() : top + "/serialized_exported_program.json"}) {
    if (!name.empty() && archive.find(name) != nullptr) {
      return legacy_error(
          "this is a legacy torch.export archive (serialized_exported_program.json, written by "
          "torch.export.save before torch 2.8): its weights are pickled in "
          "serialized_state_dict.pt, and pteforge does not read pickles",
          name);
    }
  }
  // Not an exported program. Say what it looks like.
  for (const std::string& name : {std::string("data.pkl"), top.empty() ? std::string() : top + "/data.pkl"}) {
    if (!name.empty() && archive.find(name) != nullptr) {
      return error_at(ErrorCode::ARCHIVE_INVALID,
                      "this is a torch.save / TorchScript archive (it has data.pkl), not a "
                      "torch.export program; export the model with torch.export.export and save "
                      "it with torch.export.save",
                      name);
    }
  }
  if (!top.empty() && !model_names(archive, top + "/").empty()) {
    return error_at(ErrorCode::ARCHIVE_ENTRY_MISSING,
                    "the archive has " + top + "/models/*.json but no " + top +
                        "/archive_format record, so it is not a complete .pt2 archive",
                    top + "/archive_format");
  }
  if (!model_names(archive, "").empty()) {
    return error_at(ErrorCode::ARCHIVE_ENTRY_MISSING,
                    "the archive has models/*.json but no archive_format record, so it is not "
                    "a complete .pt2 archive",
                    "archive_format");
  }
  Error e =
      make_error(ErrorCode::ARCHIVE_INVALID,
                 "not a torch.export archive: no archive_format record (first entry \"" + first + "\")");
  // A folder (or zip) that holds .pt2 files, such as a corpus case: name them.
  std::vector<std::string> inner;
  size_t more = 0;
  for (const ArchiveEntry& entry : archive.entries()) {
    const std::string_view base = std::string_view(entry.name).substr(entry.name.rfind('/') + 1);
    if (base.size() <= 4 || strcasecmp(std::string(base.substr(base.size() - 4)).c_str(), ".pt2") != 0) {
      continue;  // not *.pt2 (a hidden file named ".pt2" is none)
    }
    if (inner.size() < 3) {
      inner.push_back("\"" + entry.name + "\"");
    } else {
      ++more;
    }
  }
  if (!inner.empty()) {
    std::string list;
    for (const std::string& n : inner) list += (list.empty() ? "" : ", ") + n;
    if (more) list += " and " + std::to_string(more) + " more";
    const bool one = inner.size() + more == 1;
    const bool zipped = dynamic_cast<const ZipArchive*>(&archive) != nullptr;
    e.notes.push_back(std::string(one ? "it holds the .pt2 archive " : "it holds the .pt2 archives ") + list +
                      ": " + (zipped ? "extract " : "give ") + (one ? "that file" : "one of them") +
                      (zipped ? " and give it as the input" : " as the input"));
  }
  return e;
}

Result<Pt2Layout> detect_input_layout(Archive& archive, const std::string& input) {
  auto layout = detect_pt2_layout(archive);
  if (!layout.ok()) {
    Error e = std::move(layout).error();
    if (!e.where.entry) e.where.entry = input;
    return e;
  }
  return layout;
}

Pt2Layout program_json_layout(std::string program_entry) {
  Pt2Layout layout;
  layout.kind = Pt2LayoutKind::kProgramJson;
  Pt2Model model;
  model.name = "model";
  model.method = "forward";
  model.program_entry = std::move(program_entry);
  layout.models.push_back(std::move(model));
  return layout;
}

std::string expected_config_entry(const Pt2Model& model, PayloadFolder folder) {
  const std::string& prefix =
      folder == PayloadFolder::kWeights ? model.weights_prefix : model.constants_prefix;
  if (prefix.empty()) return "";
  return prefix + model.name +
         (folder == PayloadFolder::kWeights ? "_weights_config.json" : "_constants_config.json");
}

Result<const ArchiveEntry*> resolve_payload(const Archive& archive, const Pt2Model& model,
                                            PayloadFolder folder, std::string_view path_name) {
  const std::string& prefix =
      folder == PayloadFolder::kWeights ? model.weights_prefix : model.constants_prefix;
  const std::string full = prefix + std::string(path_name);
  // Built for an error only: a program binds thousands of payloads.
  auto where = [&] {
    Location w;
    w.entry = full;
    w.method = model.method;
    return w;
  };
  if (prefix.empty()) {
    return make_error(ErrorCode::WEIGHTS_MISSING,
                      "payload \"" + std::string(path_name) +
                          "\" is needed but a lone program JSON carries no weights or constants; "
                          "give the .pt2 archive or its unpacked folder instead",
                      where());
  }
  if (path_name.empty() || path_name == "." || path_name == ".." ||
      path_name.find_first_of(std::string_view("/\\\0", 3)) != std::string_view::npos) {
    return make_error(
        ErrorCode::ARCHIVE_ENTRY_NAME,
        "payload path_name \"" + std::string(path_name) + "\" must be a plain file name inside " + prefix,
        where());
  }
  const ArchiveEntry* entry = archive.find(full);
  if (entry == nullptr) {
    return make_error(ErrorCode::ARCHIVE_ENTRY_MISSING,
                      "payload \"" + full + "\" named by the " +
                          (folder == PayloadFolder::kWeights ? "weights" : "constants") +
                          " config of method \"" + model.method + "\" is not in the archive",
                      where());
  }
  return entry;
}

}  // namespace pteforge::serde
