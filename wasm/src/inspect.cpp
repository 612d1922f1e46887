// inspect for the WASM front door (see inspect.h). Mirrors core/cli/cmd_inspect.cpp.
#include "inspect.h"

#include <utility>
#include <vector>

#include "serde/archive.h"
#include "serde/import_exported_program.h"
#include "serde/summary.h"

namespace pteforge::wasm {

Result<std::string> inspect_input(JsInput& input, const std::string& method, bool json) {
  const bool lone_json = input.layout.kind == serde::Pt2LayoutKind::kProgramJson;
  ir::Program program;
  std::vector<std::pair<std::string, std::vector<serde::ImportWarning>>> warnings;
  for (const serde::Pt2Model& model : input.layout.models) {
    if (!method.empty() && model.method != method) continue;
    // The CLI names the file it read; for a lone JSON that is the input itself.
    const std::string entry_label = lone_json ? input.name : model.program_entry;
    auto annotate = [&](Error e) {
      e.where.method = model.method;
      if (!e.where.entry) e.where.entry = entry_label;
      return e;
    };
    auto text = serde::read_entry(*input.archive, model.program_entry, kMaxProgramJsonBytes);
    if (!text.ok()) return annotate(std::move(text).error());
    auto imported = serde::import_exported_program(std::move(text).value());
    if (!imported.ok()) return annotate(std::move(imported).error());
    warnings.emplace_back(model.method, std::move(imported->warnings));
    program.methods.emplace(model.method, std::move(imported->program));
  }
  if (program.methods.empty()) {
    Location where;
    where.method = method;
    return make_error(ErrorCode::OPTION_INVALID, "the input has no method \"" + method + "\"", std::move(where));
  }
  serde::ProgramSummary summary = serde::summarize_program(program, warnings);
  return json ? serde::summary_to_json(summary) : serde::summary_to_text(summary);
}

}  // namespace pteforge::wasm
