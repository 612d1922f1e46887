// Decoded .pte → human-readable text (see format_pte_summary in pte_decode.h).
// Names (methods, operators, delegates, compile spec keys) are written with
// their control characters as \xNN, as errors write the names they echo:
// the text goes to a terminal. Strings are quoted and escaped (quoted_text).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "emit/pte_decode.h"
#include "support/error.h"
#include "support/utf8.h"

namespace pteforge::emit {
namespace {

/// A name from the file as the summary prints it: U+FFFD for bytes that are
/// not UTF-8 (as the JSON forms write them), then control characters escaped.
std::string shown(std::string_view name) { return control_escaped(replace_invalid_utf8(name)); }

constexpr size_t kMaxListItems = 16;
constexpr size_t kMaxStringChars = 80;

template <typename T, typename F>
std::string join(const std::vector<T>& items, F fmt, size_t limit = kMaxListItems) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i == limit) {
      out += ", ... (" + std::to_string(items.size()) + " items)";
      break;
    }
    if (i) out += ", ";
    out += fmt(items[i]);
  }
  return out;
}

std::string ref(int64_t index) {
  std::string out = std::to_string(index);
  out.insert(out.begin(), '%');  // not "%" + ...: GCC 12 -O2 gives a false -Wrestrict there
  return out;
}

std::string number(double d) {
  // Shortest form that reads back; printf is enough for a summary.
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  std::string s = buf;
  for (int prec = 1; prec < 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (std::strtod(buf, nullptr) == d) {
      s = buf;
      break;
    }
  }
  return s;
}

std::string quoted_text(const std::string& s) {
  // Quotes and backslashes escaped in the first kMaxStringChars bytes; then
  // the same escaping as names (shown): control characters, C1 included.
  std::string head;
  for (char c : std::string_view(s).substr(0, kMaxStringChars)) {
    if (c == '"' || c == '\\') head += '\\';
    head += c;
  }
  std::string out = "\"" + shown(head) + (s.size() > kMaxStringChars ? "...\"" : "\"");
  if (s.size() > kMaxStringChars) out += " (" + std::to_string(s.size()) + " bytes)";
  return out;
}

std::string describe_tensor(const Tensor& t) {
  std::string out = "Tensor " + scalar_type_pte_name(t.scalar_type) + "[" +
                    join(t.sizes, [](int32_t s) { return std::to_string(s); }, 64) + "]";
  bool identity = true;
  for (size_t i = 0; i < t.dim_order.size(); ++i) identity = identity && t.dim_order[i] == i;
  if (!identity || t.dim_order.size() != t.sizes.size()) {
    out += " dim_order [" + join(t.dim_order, [](uint8_t d) { return std::to_string(d); }, 64) + "]";
  }
  if (t.shape_dynamism != TensorShapeDynamism::Static) out += " " + shape_dynamism_name(t.shape_dynamism);
  if (t.allocation_info) {
    out += " mem " + std::to_string(t.allocation_info->memory_id) + "@" +
           std::to_string(t.allocation_info->memory_offset);
    if (t.data_buffer_idx) out += " init #" + std::to_string(t.data_buffer_idx);
  } else if (t.data_buffer_idx) {
    out += " const #" + std::to_string(t.data_buffer_idx);
  }
  if (t.extra_tensor_info) {
    const auto& e = *t.extra_tensor_info;
    if (e.fully_qualified_name) out += " fqn " + quoted_text(*e.fully_qualified_name);
    if (e.location != TensorDataLocation::Segment) out += " " + tensor_data_location_name(e.location);
    if (e.device_type != DeviceType::Cpu || e.device_index != 0) {
      out += " device " + device_type_name(e.device_type) + ":" + std::to_string(e.device_index);
    }
  }
  if (t.requires_grad) out += " requires_grad";
  if (t.storage_offset) out += " storage_offset " + std::to_string(t.storage_offset);
  if (t.layout) out += " layout " + std::to_string(t.layout);
  return out;
}

std::string describe_value(const EValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Null>) {
          return "Null";
        } else if constexpr (std::is_same_v<T, Int>) {
          return "Int " + std::to_string(x.int_val);
        } else if constexpr (std::is_same_v<T, Bool>) {
          return std::string("Bool ") + (x.bool_val ? "true" : "false");
        } else if constexpr (std::is_same_v<T, Double>) {
          return "Double " + number(x.double_val);
        } else if constexpr (std::is_same_v<T, Tensor>) {
          return describe_tensor(x);
        } else if constexpr (std::is_same_v<T, String>) {
          return "String " + quoted_text(x.string_val);
        } else if constexpr (std::is_same_v<T, IntList>) {
          return "IntList [" + join(x.items, ref) + "]";
        } else if constexpr (std::is_same_v<T, DoubleList>) {
          return "DoubleList [" + join(x.items, number) + "]";
        } else if constexpr (std::is_same_v<T, BoolList>) {
          return "BoolList [" + join(x.items, [](bool b) { return std::string(b ? "true" : "false"); }) + "]";
        } else if constexpr (std::is_same_v<T, TensorList>) {
          return "TensorList [" + join(x.items, [](int32_t i) { return ref(i); }) + "]";
        } else {
          return "OptionalTensorList [" + join(x.items, [](int32_t i) { return ref(i); }) + "]";
        }
      },
      v.val);
}

std::string refs(const std::vector<int32_t>& v) { return join(v, [](int32_t i) { return ref(i); }, SIZE_MAX); }

}  // namespace

std::string format_instruction(const ExecutionPlan& plan, const Instruction& instruction) {
  return std::visit(
      [&plan](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, KernelCall>) {
          std::string name = "<operator " + std::to_string(x.op_index) + " missing>";
          if (x.op_index >= 0 && static_cast<size_t>(x.op_index) < plan.operators.size()) {
            name = shown(operator_qualified_name(plan.operators[static_cast<size_t>(x.op_index)]));
          }
          return name + "(" + refs(x.args) + ")";
        } else if constexpr (std::is_same_v<T, DelegateCall>) {
          std::string name = "<missing>";
          if (x.delegate_index >= 0 && static_cast<size_t>(x.delegate_index) < plan.delegates.size()) {
            name = shown(plan.delegates[static_cast<size_t>(x.delegate_index)].id);
          }
          return "delegate " + std::to_string(x.delegate_index) + " " + name + "(" + refs(x.args) + ")";
        } else if constexpr (std::is_same_v<T, MoveCall>) {
          return "move " + ref(x.move_from) + " -> " + ref(x.move_to);
        } else if constexpr (std::is_same_v<T, JumpFalseCall>) {
          return "jump_false " + ref(x.cond_value_index) + " -> " + std::to_string(x.destination_instruction);
        } else {
          return "free " + ref(x.value_index);
        }
      },
      instruction.instr_args);
}

std::string format_pte_summary(const DecodedPte& d) {
  const PteFileInfo& info = d.info;
  const Program& p = d.program;
  std::string out;
  out += "file: " + std::to_string(info.file_size) + " bytes, identifier " + info.identifier + "\n";
  if (info.extended_header) {
    const auto& h = *info.extended_header;
    out += "extended header: length " + std::to_string(h.length) + ", program_size " +
           std::to_string(h.program_size) + ", segment_base_offset " + std::to_string(h.segment_base_offset) +
           ", segment_data_size " + (h.segment_data_size ? std::to_string(*h.segment_data_size) : "(absent)") +
           "\n";
  } else {
    out += "extended header: none (no segment data)\n";
  }
  for (const LoadProblem& lp : d.layout_problems) {
    out += "layout problem: " + lp.pointer + ": " + lp.message + "\n";
  }
  out += "program: version " + std::to_string(p.version) + ", " + std::to_string(p.execution_plan.size()) +
         " method(s)\n";

  for (const auto& plan : p.execution_plan) {
    out += "\nmethod " + shown(plan.name) + "\n";
    out += "  inputs: [" + refs(plan.inputs) + "]\n";
    out += "  outputs: [" + refs(plan.outputs) + "]\n";
    out += "  non_const_buffer_sizes: [" +
           join(plan.non_const_buffer_sizes, [](int64_t s) { return std::to_string(s); }, SIZE_MAX) + "]\n";
    if (!plan.container_meta_type.encoded_inp_str.empty() || !plan.container_meta_type.encoded_out_str.empty()) {
      out += "  input spec: " + quoted_text(plan.container_meta_type.encoded_inp_str) + "\n";
      out += "  output spec: " + quoted_text(plan.container_meta_type.encoded_out_str) + "\n";
    }
    out += "  values (" + std::to_string(plan.values.size()) + "):\n";
    for (size_t i = 0; i < plan.values.size(); ++i) {
      out += "    " + ref(static_cast<int64_t>(i)) + " = " + describe_value(plan.values[i]) + "\n";
    }
    out += "  operators (" + std::to_string(plan.operators.size()) + "):\n";
    for (size_t i = 0; i < plan.operators.size(); ++i) {
      out += "    " + std::to_string(i) + ": " + shown(operator_qualified_name(plan.operators[i])) + "\n";
    }
    for (size_t c = 0; c < plan.chains.size(); ++c) {
      const auto& chain = plan.chains[c];
      out += "  instructions";
      if (plan.chains.size() > 1) out += " (chain " + std::to_string(c) + ")";
      out += " (" + std::to_string(chain.instructions.size()) + "):\n";
      for (size_t i = 0; i < chain.instructions.size(); ++i) {
        out += "    " + std::to_string(i) + ": " + format_instruction(plan, chain.instructions[i]) + "\n";
      }
    }
    if (plan.delegates.empty()) {
      out += "  delegates: none\n";
    } else {
      out += "  delegates (" + std::to_string(plan.delegates.size()) + "):\n";
      for (size_t i = 0; i < plan.delegates.size(); ++i) {
        const auto& del = plan.delegates[i];
        out += "    " + std::to_string(i) + ": " + shown(del.id) + ", data " +
               data_location_name(del.processed.location) + " " + std::to_string(del.processed.index) +
               ", compile specs [" +
               join(
                   del.compile_specs,
                   [](const CompileSpec& cs) {
                     return shown(cs.key) + " (" + std::to_string(cs.value.size()) + " bytes)";
                   },
                   SIZE_MAX) +
               "]\n";
      }
    }
  }

  out += "\nsegments (" + std::to_string(p.segments.size()) + "):\n";
  for (size_t i = 0; i < p.segments.size(); ++i) {
    const auto& s = p.segments[i];
    out += "  " + std::to_string(i) + ": offset " + std::to_string(s.offset) + ", size " +
           std::to_string(s.size);
    if (const std::optional<uint64_t> at = segment_file_offset(info, s)) {
      out += " (file bytes " + std::to_string(*at) + ".." + std::to_string(*at + s.size) + ")\n";
    } else {
      out += " (past the end of the file)\n";
    }
  }
  auto u64 = [](uint64_t v) { return std::to_string(v); };
  if (p.constant_segment) {
    out += "constant_segment: segment " + std::to_string(p.constant_segment->segment_index) + ", " +
           std::to_string(p.constant_segment->offsets.size()) + " offsets [" +
           join(p.constant_segment->offsets, u64) + "]\n";
  } else {
    out += "constant_segment: absent\n";
  }
  if (!p.constant_buffer.empty()) {
    out += "constant_buffer (deprecated inline constants): " + std::to_string(p.constant_buffer.size()) +
           " entries, sizes [" + join(p.constant_buffer, [](const Buffer& b) { return std::to_string(b.storage.size()); }) +
           "]\n";
  }
  if (!p.backend_delegate_data.empty()) {
    out += "backend_delegate_data (inline): sizes [" +
           join(p.backend_delegate_data,
                [](const BackendDelegateInlineData& b) { return std::to_string(b.data.size()); }) +
           "]\n";
  }
  if (p.mutable_data_segments) {
    for (const auto& m : *p.mutable_data_segments) {
      out += "mutable data: segment " + std::to_string(m.segment_index) + ", offsets [" + join(m.offsets, u64) + "]\n";
    }
  }
  if (p.named_data) {
    out += "named data (" + std::to_string(p.named_data->size()) + "):\n";
    for (const auto& n : *p.named_data) out += "  " + quoted_text(n.key) + " -> segment " + std::to_string(n.segment_index) + "\n";
  }
  // Names from a damaged file may be invalid UTF-8: U+FFFD for them, as in
  // the JSON forms and in JavaScript (the npm package's text).
  return replace_invalid_utf8(out);
}

}  // namespace pteforge::emit
