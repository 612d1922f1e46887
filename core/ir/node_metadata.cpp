// Node metadata parsing and formatting (see node_metadata.h; encodings from
// torch-export-format.md §6 and §6.1).
#include "ir/node_metadata.h"

namespace pteforge::ir {
namespace {

template <typename T>
bool same_ptr(const std::shared_ptr<const T>& a, const std::shared_ptr<const T>& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return *a == *b;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

bool NodeMetadata::operator==(const NodeMetadata& o) const {
  return same_ptr(stack_trace, o.stack_trace) && same_ptr(nn_module_stack, o.nn_module_stack) &&
         same_ptr(source_fn_stack, o.source_fn_stack) && same_ptr(torch_fn, o.torch_fn) && other == o.other;
}

std::string NodeMetadata::source() const {
  return stack_trace ? stack_trace_first_frame(*stack_trace) : std::string();
}

std::string_view NodeMetadata::module_path() const {
  if (!nn_module_stack || nn_module_stack->empty()) return {};
  return nn_module_stack->back().path;
}

const std::string* NodeMetadata::find_other(std::string_view key) const {
  for (const auto& [k, v] : other) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::optional<ModuleStack> parse_nn_module_stack(std::string_view text) {
  ModuleStack out;
  for (std::string_view entry : split(text, ';')) {
    std::string_view fields[3];
    size_t n = 0;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= entry.size(); ++i) {
      char c = i < entry.size() ? entry[i] : ',';
      if (c == '(' || c == '[') {
        ++depth;
      } else if (c == ')' || c == ']') {
        --depth;
      } else if (c == ',' && (depth == 0 || i == entry.size())) {
        if (n == 3) return std::nullopt;
        fields[n++] = entry.substr(start, i - start);
        start = i + 1;
      }
    }
    if (n != 3) return std::nullopt;
    out.push_back(ModuleFrame{std::string(fields[0]), std::string(fields[1]), std::string(fields[2])});
  }
  return out;
}

std::string format_nn_module_stack(const ModuleStack& stack) {
  std::string out;
  for (size_t i = 0; i < stack.size(); ++i) {
    if (i) out += ';';
    out += stack[i].key;
    out += ',';
    out += stack[i].path;
    out += ',';
    out += stack[i].type;
  }
  return out;
}

std::optional<SourceFnStack> parse_source_fn_stack(std::string_view text) {
  SourceFnStack out;
  for (std::string_view entry : split(text, ';')) {
    size_t comma = entry.find(',');
    if (comma == std::string_view::npos) return std::nullopt;
    out.push_back(SourceFnFrame{std::string(entry.substr(0, comma)), std::string(entry.substr(comma + 1))});
  }
  return out;
}

std::string format_source_fn_stack(const SourceFnStack& stack) {
  std::string out;
  for (size_t i = 0; i < stack.size(); ++i) {
    if (i) out += ';';
    out += stack[i].name;
    out += ',';
    out += stack[i].target;
  }
  return out;
}

std::optional<TorchFn> parse_torch_fn(std::string_view text) {
  size_t semi = text.find(';');
  if (semi == std::string_view::npos || text.find(';', semi + 1) != std::string_view::npos) return std::nullopt;
  return TorchFn{std::string(text.substr(0, semi)), std::string(text.substr(semi + 1))};
}

std::string format_torch_fn(const TorchFn& fn) { return fn.name + ";" + fn.target; }

std::string stack_trace_first_frame(std::string_view text) {
  for (std::string_view line : split(text, '\n')) {
    std::string_view t = trim(line);
    if (t.empty()) continue;
    // File "<path>", line <n>, in <function>
    constexpr std::string_view kFile = "File \"";
    if (t.substr(0, kFile.size()) == kFile) {
      size_t q = t.find('"', kFile.size());
      if (q != std::string_view::npos) {
        std::string_view path = t.substr(kFile.size(), q - kFile.size());
        std::string_view rest = t.substr(q + 1);
        constexpr std::string_view kLine = ", line ";
        constexpr std::string_view kIn = ", in ";
        if (rest.substr(0, kLine.size()) == kLine) {
          rest.remove_prefix(kLine.size());
          size_t in = rest.find(kIn);
          std::string out(path);
          out += ':';
          if (in == std::string_view::npos) {
            out += rest;
          } else {
            out += rest.substr(0, in);
            out += " in ";
            out += rest.substr(in + kIn.size());
          }
          return out;
        }
      }
    }
    return std::string(t);
  }
  return {};
}

}  // namespace pteforge::ir
