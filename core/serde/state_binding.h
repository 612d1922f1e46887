// Binding a program's parameters, buffers and tensor constants to their
// payloads (torch-export-format.md §1.4–§1.6).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "ir/exported_program.h"
#include "ir/state_binding.h"
#include "serde/import_exported_program.h"
#include "serde/payload_config.h"
#include "support/error.h"

namespace pteforge::serde {

/// Size in bytes of payload `path_name` in the weights store (is_constant =
/// false, data/weights/) or the constants store (true, data/constants/);
/// nullopt when the payload does not exist.
using PayloadSizeFn = std::function<std::optional<uint64_t>(const std::string& path_name, bool is_constant)>;

/// Binds every parameter, buffer and tensor constant of `ep`'s signature:
/// FQN → config entry (parameters and persistent buffers in `weights`,
/// tensor constants and non-persistent buffers in `constants`, §1.4) →
/// payload, with dtype, sizes, strides, storage offset and the byte range
/// the view needs. Payloads shared by several FQNs appear once. A 0-byte
/// payload means "all zeros" (§1.6). Custom objects and tokens are not bound.
///
/// Errors:
///   WEIGHTS_MISSING      no config entry for an FQN (where.entry = the config),
///                        the config itself missing ("... needs the weights config
///                        \"<missing_entry>\", which the archive lacks"; where.entry
///                        = PayloadConfig::missing_entry), or the payload does not
///                        exist (where.entry = the payload)
///   PAYLOAD_INVALID      payload too short for the view (bounds rule §1.6), size
///                        not a multiple of the element size, symbolic or negative
///                        sizes/strides, config meta disagreeing with the graph
///                        (where.entry = the payload or config; the FQN in the message)
///   UNSUPPORTED_FEATURE  pickled payloads (use_pickle: true)
/// A payload's where.entry is `root_prefix` (the archive's root folder,
/// Pt2Model::root_prefix(), e.g. "linear_tanh/"; "" for an unpacked folder)
/// followed by its record path (PayloadStorage::entry()), so it names the
/// entry as the archive lists it.
Result<ir::StateBinding> bind_state(const ir::ExportedProgram& ep, const PayloadConfig& weights,
                                    const PayloadConfig& constants, const PayloadSizeFn& payload_size,
                                    std::string_view root_prefix = {});

/// Warnings for the tensors of `state` whose payload has 0 bytes and which
/// have elements: bind_state reads such a payload as all zeros (§1.6, torch
/// writes no bytes for a fake tensor), which is also what a weight file
/// truncated to nothing looks like, so each is named with its payload
/// (where.entry). The first three are named; one more warning counts the
/// rest. where.entry is named as by bind_state (`root_prefix` + record
/// path); where.method is left for the caller. Empty when there are none.
std::vector<ImportWarning> zero_filled_warnings(const ir::StateBinding& state,
                                                std::string_view root_prefix = {});

}  // namespace pteforge::serde
