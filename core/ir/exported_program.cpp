// ExportedProgram helpers (see exported_program.h).
#include "ir/exported_program.h"

namespace pteforge::ir {
namespace {
constexpr int64_t kUnboundedMagnitude = int64_t{1} << 62;

size_t rename_in(Argument& a, std::string_view from, std::string_view to) {
  size_t n = 0;
  for_each_value_name_mut(a, [&](std::string& name, ValueKind) {
    if (name == from) {
      name = std::string(to);
      ++n;
    }
  });
  return n;
}
}  // namespace

std::optional<int64_t> RangeConstraint::upper() const {
  if (!max_val || *max_val >= kUnboundedMagnitude) return std::nullopt;
  return max_val;
}

std::optional<int64_t> RangeConstraint::lower() const {
  if (!min_val || *min_val <= -kUnboundedMagnitude) return std::nullopt;
  return min_val;
}

bool ExportedProgram::is_edge_dialect() const {
  for (const std::string& v : verifiers) {
    if (v == kEdgeDialect) return true;
  }
  return false;
}

const RangeConstraint* ExportedProgram::range_for(std::string_view symbol) const {
  for (const auto& [name, range] : range_constraints) {
    if (name == symbol) return &range;
  }
  return nullptr;
}

RangeIndex::RangeIndex(const ExportedProgram& ep) {
  ranges_.reserve(ep.range_constraints.size());
  for (const auto& [name, range] : ep.range_constraints)
    ranges_.emplace(name, &range);  // the first one stays
}

const RangeConstraint* RangeIndex::find(std::string_view symbol) const {
  auto it = ranges_.find(symbol);
  return it == ranges_.end() ? nullptr : it->second;
}

const ModuleCallSignature* ExportedProgram::root_call_signature() const {
  for (const auto& e : graph_module.module_call_graph) {
    if (e.fqn.empty() && e.signature) return &*e.signature;
  }
  return nullptr;
}

size_t ExportedProgram::replace_all_uses(std::string_view from, std::string_view to) {
  const std::string from_name(from);
  const std::string to_name(to);
  size_t n = graph().replace_all_uses(from_name, to_name);
  for (OutputSpec& s : signature().output_specs) n += rename_in(s.arg, from_name, to_name);
  for (ModuleCallEntry& e : graph_module.module_call_graph) {
    if (!e.signature) continue;
    for (Argument& a : e.signature->inputs) n += rename_in(a, from_name, to_name);
    for (Argument& a : e.signature->outputs) n += rename_in(a, from_name, to_name);
  }
  return n;
}

size_t ExportedProgram::rename_outside_graph(const std::unordered_map<std::string, std::string>& renames) {
  if (renames.empty()) return 0;
  size_t n = 0;
  auto rename = [&](Argument& a) {
    for_each_value_name_mut(a, [&](std::string& name, ValueKind) {
      auto it = renames.find(name);
      if (it == renames.end()) return;
      name = it->second;
      ++n;
    });
  };
  for (OutputSpec& s : signature().output_specs) rename(s.arg);
  for (ModuleCallEntry& e : graph_module.module_call_graph) {
    if (!e.signature) continue;
    for (Argument& a : e.signature->inputs) rename(a);
    for (Argument& a : e.signature->outputs) rename(a);
  }
  return n;
}

}  // namespace pteforge::ir
