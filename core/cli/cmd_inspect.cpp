// `pteforge inspect FILE [--json] [--modules] [--method NAME]`: summary of an
// exported program, or (--modules) its module tree: per method every module
// with its type, node count, call count, whether its call signature is
// preserved and whether it can be swapped (convert --swap).
//
// FILE is a .pt2 archive, an unpacked archive folder, or a program JSON file
// (a lone program JSON is method "forward"); serde::open_input detects which.
// Every program is imported (not lowered) and summarised by the core's
// pteforge::inspect (serde::summary_to_text / summary_to_json). Exit 0 on
// success; 1 with the error's one-line description on stderr on failure.
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "passes/module_swap_api.h"
#include "pteforge/pteforge.h"
#include "serde/archive_native.h"

namespace pteforge::cli {
namespace {

/// The summary of every method (only `method` when not empty).
Result<std::string> inspect(const std::string& path, const std::string& method, bool json) {
  PTEFORGE_ASSIGN_OR_RETURN(serde::OpenedInput in, serde::open_input(path));
  PTEFORGE_TRY(in.layout.keep_method(method));
  return pteforge::inspect(*in.archive, in.layout, json);
}

/// The module tree of each method (only `method` when not empty): text with a
/// "method NAME" line before each table, or JSON {"NAME": [modules...]}
/// indented by 2 spaces like the other --json outputs.
Result<std::string> inspect_modules(const std::string& path, const std::string& method, bool json) {
  PTEFORGE_ASSIGN_OR_RETURN(serde::OpenedInput in, serde::open_input(path));
  PTEFORGE_TRY(in.layout.keep_method(method));
  std::string text;
  std::vector<std::pair<std::string, std::vector<passes::ModuleInfo>>> trees;
  for (const serde::Pt2Model& model : in.layout.models) {
    PTEFORGE_ASSIGN_OR_RETURN(
        ir::ExportedProgram ep,
        passes::load_program(*in.archive, in.layout, model.method, "", /*bind_weights=*/false));
    std::vector<passes::ModuleInfo> modules = passes::list_modules(ep);
    if (json) {
      trees.emplace_back(model.method, std::move(modules));
    } else {
      text += "method " + model.method + "\n" + passes::modules_to_text(modules);
    }
  }
  return json ? passes::method_modules_to_json(trees) : text;
}

}  // namespace

void register_inspect(CLI::App& app, Action& out) {
  auto* cmd = app.add_subcommand("inspect", "Summarise a .pt2 archive or program JSON");
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("file", *path, "a .pt2 archive, a program JSON, or an unpacked archive folder")->required();
  auto modules = std::make_shared<bool>(false);
  auto method = std::make_shared<std::string>();
  cmd->add_flag("--json", *json, "print the summary as JSON");
  cmd->add_flag("--modules", *modules,
                "print the module tree instead: node counts, preserved call signatures, which modules can be swapped");
  cmd->add_option("--method", *method,
                  "only this method (of the summary, or with --modules of the module tree)")
      ->check(option_value(cmd, ValueKind::kText));
  cmd->callback([&out, path, json, modules, method] {
    out = [path, json, modules, method] {
      auto result = *modules ? inspect_modules(*path, *method, *json) : inspect(*path, *method, *json);
      if (!result.ok()) {
        std::fprintf(stderr, "%s\n", result.error().to_string().c_str());
        return 1;
      }
      std::fwrite(result->data(), 1, result->size(), stdout);
      return 0;
    };
  });
}

}  // namespace pteforge::cli
