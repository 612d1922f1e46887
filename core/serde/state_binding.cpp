// State binding (see state_binding.h).
#include "serde/state_binding.h"

#include <cstdint>

#include "ir/printer.h"
#include "support/list_text.h"
#include "support/name_map.h"

namespace pteforge::serde {
namespace {

Error entry_error(ErrorCode code, std::string message, const std::string& entry) {
  Location where;
  where.entry = entry;
  return make_error(code, std::move(message), where);
}

}  // namespace

Result<ir::StateBinding> bind_state(const ir::ExportedProgram& ep, const PayloadConfig& weights,
                                    const PayloadConfig& constants, const PayloadSizeFn& payload_size,
                                    std::string_view root_prefix) {
  // A payload as the archive lists it (for error locations).
  auto entry_of = [root_prefix](const ir::PayloadStorage& s) { return std::string(root_prefix) + s.entry(); };
  ir::StateBinding binding;
  // Per store (weights, constants): payload path_name -> index in
  // binding.storages. The names are views of the configs' entries.
  NameMap<uint32_t> storage_index[2];

  for (const ir::InputSpec& spec : ep.signature().input_specs) {
    if (!spec.is_state()) continue;
    const bool in_weights =
        spec.kind == ir::InputKind::Parameter || (spec.kind == ir::InputKind::Buffer && spec.persistent);
    const ir::PayloadStore store = in_weights ? ir::PayloadStore::Weights : ir::PayloadStore::Constants;
    const PayloadConfig& config = in_weights ? weights : constants;
    // "parameter 'fc.weight'": for the errors only (built when one is raised).
    auto what = [&spec] {
      return std::string(ir::input_kind_name(spec.kind)) + " " + single_quoted(spec.target);
    };

    const PayloadMeta* meta = config.find(spec.target);
    if (!meta) {
      const std::string store_name(ir::payload_store_name(store));
      if (!config.missing_entry.empty()) {  // the archive lacks this config
        return entry_error(ErrorCode::WEIGHTS_MISSING,
                           what() + " needs the " + store_name + " config \"" + config.missing_entry +
                               "\", which the archive lacks",
                           config.missing_entry);
      }
      if (config.entry_name.empty()) {  // no config at all: a program JSON alone
        return make_error(
            ErrorCode::WEIGHTS_MISSING,
            what() +
                " needs weights, but the input carries none (a program JSON alone): give the .pt2 "
                "archive or its unpacked folder");
      }
      return entry_error(ErrorCode::WEIGHTS_MISSING,
                         what() + " has no entry in the " + store_name + " config", config.entry_name);
    }
    if (meta->use_pickle) {
      return entry_error(ErrorCode::UNSUPPORTED_FEATURE,
                         what() + " is stored as a pickle (use_pickle: true), which pteforge cannot read",
                         config.entry_name);
    }
    const ir::TensorMeta* graph_meta = ep.graph().tensor_meta(spec.name());
    const ir::TensorMeta* tm = meta->tensor_meta ? &*meta->tensor_meta : graph_meta;
    if (!tm) {
      return entry_error(ErrorCode::PAYLOAD_INVALID, what() + " has no tensor metadata", config.entry_name);
    }
    auto sizes = tm->concrete_sizes();
    auto strides = tm->concrete_strides();
    if (!sizes || !strides || tm->storage_offset.is_symbolic()) {
      return entry_error(ErrorCode::PAYLOAD_INVALID,
                         what() + " has symbolic sizes, strides or offset in its config", config.entry_name);
    }
    if (graph_meta && meta->tensor_meta) {
      auto graph_sizes = graph_meta->concrete_sizes();
      if (graph_meta->dtype != tm->dtype || (graph_sizes && *graph_sizes != *sizes)) {
        return entry_error(ErrorCode::PAYLOAD_INVALID,
                           what() + " is " + ir::format_tensor_type(*tm) + " in the config but " +
                               ir::format_tensor_type(*graph_meta) + " in the program",
                           config.entry_name);
      }
    }

    // The storage (one per distinct payload file).
    NameMap<uint32_t>& storages_of_store = storage_index[store == ir::PayloadStore::Constants ? 1 : 0];
    auto it = storages_of_store.find(std::string_view(meta->path_name));
    if (it == storages_of_store.end()) {
      ir::PayloadStorage storage;
      storage.store = store;
      storage.path_name = meta->path_name;
      std::optional<uint64_t> size = payload_size(meta->path_name, store == ir::PayloadStore::Constants);
      if (!size) {
        return entry_error(ErrorCode::WEIGHTS_MISSING, "the payload of " + what() + " is missing",
                           entry_of(storage));
      }
      storage.size_bytes = *size;
      it = storages_of_store
               .emplace(std::string_view(meta->path_name), static_cast<uint32_t>(binding.storages.size()))
               .first;
      binding.storages.push_back(std::move(storage));
    }
    const ir::PayloadStorage& storage = binding.storages[it->second];

    ir::ConstantRef ref;
    ref.fqn = spec.target;
    ref.placeholder = std::string(spec.name());
    ref.kind = spec.kind;
    ref.is_param = meta->is_param;
    ref.dtype = tm->dtype;
    ref.sizes = *sizes;
    ref.strides = *strides;
    ref.storage_offset = tm->storage_offset.value();
    ref.storage = it->second;

    const uint64_t esize = static_cast<uint64_t>(ir::element_size(ref.dtype));
    if (esize == 0) {
      return entry_error(
          ErrorCode::PAYLOAD_INVALID,
          what() + " has dtype " + std::string(ir::scalar_type_name(ref.dtype)) + ", which has no byte size",
          entry_of(storage));
    }
    if (storage.size_bytes % esize != 0) {
      return entry_error(ErrorCode::PAYLOAD_INVALID,
                         "payload of " + what() + " has " + std::to_string(storage.size_bytes) +
                             " bytes, not a multiple of the " + std::to_string(esize) + "-byte " +
                             std::string(ir::scalar_type_name(ref.dtype)) + " element",
                         entry_of(storage));
    }
    if (ref.storage_offset < 0) {
      return entry_error(ErrorCode::PAYLOAD_INVALID, what() + " has a negative storage offset",
                         entry_of(storage));
    }
    bool empty = false;
    uint64_t last = 0;  // elements: Σ (size-1) * stride
    bool overflow = false;
    for (size_t d = 0; d < ref.sizes.size(); ++d) {
      if (ref.sizes[d] < 0 || ref.strides[d] < 0) {
        return entry_error(ErrorCode::PAYLOAD_INVALID, what() + " has a negative size or stride",
                           entry_of(storage));
      }
      if (ref.sizes[d] == 0) {
        empty = true;
        continue;
      }
      uint64_t step = 0;
      overflow |= __builtin_mul_overflow(static_cast<uint64_t>(ref.sizes[d] - 1),
                                         static_cast<uint64_t>(ref.strides[d]), &step);
      overflow |= __builtin_add_overflow(last, step, &last);
    }
    uint64_t byte_offset = 0;
    uint64_t span = 0;
    overflow |= __builtin_mul_overflow(static_cast<uint64_t>(ref.storage_offset), esize, &byte_offset);
    overflow |= __builtin_add_overflow(last, uint64_t{1}, &span);
    overflow |= __builtin_mul_overflow(span, esize, &span);
    uint64_t end = 0;
    overflow |= __builtin_add_overflow(byte_offset, span, &end);
    // Its contiguous copy (what the .pte stores) must be addressable too:
    // overlapping strides make it larger than the span it reads.
    uint64_t logical = esize;
    for (int64_t s : ref.sizes) overflow |= __builtin_mul_overflow(logical, static_cast<uint64_t>(s), &logical);
    overflow |= logical > static_cast<uint64_t>(INT64_MAX);
    if (overflow) {
      return entry_error(ErrorCode::PAYLOAD_INVALID, what() + " spans more bytes than a 64-bit size can hold",
                         entry_of(storage));
    }
    ref.byte_offset = byte_offset;
    ref.byte_length = empty ? 0 : span;
    ref.zero_filled = storage.size_bytes == 0;
    // Bounds rule (§1.6): the last element the view touches must lie in the payload.
    if (!empty && !ref.zero_filled && end > storage.size_bytes) {
      return entry_error(ErrorCode::PAYLOAD_INVALID,
                         "payload of " + what() + " has " + std::to_string(storage.size_bytes) +
                             " bytes but the view " + std::string(ir::scalar_type_name(ref.dtype)) +
                             list_text(ref.sizes) + " (strides " + list_text(ref.strides) + ", offset " +
                             std::to_string(ref.storage_offset) + ") needs " + std::to_string(end),
                         entry_of(storage));
    }
    binding.tensors.push_back(std::move(ref));
  }
  return binding;
}

std::vector<ImportWarning> zero_filled_warnings(const ir::StateBinding& state, std::string_view root_prefix) {
  // A program of fake tensors has hundreds: the first few by name, then a count.
  constexpr size_t kNamed = 3;
  std::vector<ImportWarning> out;
  size_t count = 0;
  for (const ir::ConstantRef& ref : state.tensors) {
    if (!ref.zero_filled || ref.is_inline() || ref.numel() == 0) continue;
    if (++count > kNamed) continue;
    Location where;
    where.entry = std::string(root_prefix) + state.storage_of(ref).entry();
    out.push_back(ImportWarning{
        "the payload of '" + ref.fqn + "' has 0 bytes, so its " + std::to_string(ref.numel()) +
            " elements are all zero in the .pte (torch writes no bytes for a fake tensor; a real weight file "
            "of 0 bytes means the archive is damaged)",
        std::move(where)});
  }
  if (count > kNamed) {
    out.push_back(ImportWarning{
        count - kNamed == 1
            ? std::string("1 more tensor has a payload of 0 bytes and is all zero")
            : std::to_string(count - kNamed) + " more tensors have payloads of 0 bytes and are all zero",
        {}});
  }
  return out;
}

}  // namespace pteforge::serde
