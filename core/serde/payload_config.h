// PayloadConfig JSON: the weights / constants configs of a .pt2 archive
// (data/weights/<model>_weights_config.json, data/constants/<model>_constants_config.json;
// torch-export-format.md §1.5, §3.8).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/tensor_meta.h"
#include "serde/import_exported_program.h"
#include "serde/pt2_layout.h"
#include "support/error.h"

namespace pteforge::serde {

/// One config entry (PayloadMeta).
struct PayloadMeta {
  std::string path_name;  ///< payload file name inside data/weights/ or data/constants/
  bool is_param = false;
  bool use_pickle = false;
  std::optional<ir::TensorMeta> tensor_meta;  ///< null for custom / opaque objects
  bool operator==(const PayloadMeta&) const = default;
};

/// A parsed config: FQN → PayloadMeta, in input order.
struct PayloadConfig {
  std::string entry_name;  ///< where it was read from (for error locations)
  /// Set when the archive lacks this config (entries then empty): the record
  /// it would be (expected_config_entry), for errors that need an entry.
  std::string missing_entry;
  std::vector<std::pair<std::string, PayloadMeta>> entries;
  std::vector<ImportWarning> warnings;  ///< unknown keys

  /// The entry for `fqn`, or nullptr.
  const PayloadMeta* find(std::string_view fqn) const;
  /// Adds or replaces an entry (keeps the lookup index current).
  void set(std::string fqn, PayloadMeta meta);

 private:
  std::unordered_map<std::string, size_t> index_;
};

/// Parses a PayloadConfig document. `entry_name` (e.g.
/// "data/weights/model_weights_config.json") goes into every error's
/// `where.entry`. Errors: INPUT_EMPTY, INPUT_NOT_JSON, INPUT_SCHEMA (with
/// `where.pointer`).
Result<PayloadConfig> parse_payload_config(std::string_view json, std::string entry_name);

/// The weights or constants config of `model` (at most `max_bytes`), or,
/// when the archive has none, an empty one whose missing_entry names the
/// record expected. Errors: read_entry's and parse_payload_config's.
Result<PayloadConfig> read_payload_config(Archive& archive, const Pt2Model& model, PayloadFolder folder,
                                          uint64_t max_bytes);

/// The config as json.dumps writes it (byte-identical to the producer's file).
std::string write_payload_config(const PayloadConfig& config);

}  // namespace pteforge::serde
