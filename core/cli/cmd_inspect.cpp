// `pteforge inspect FILE [--json]`: summary of an exported program.
//
// FILE is a .pt2 archive, an unpacked archive folder, or a program JSON file
// (a lone program JSON is method "forward"); serde::open_input detects which.
// Every program is imported (not lowered) and summarised by the core's
// pteforge::inspect (serde::summary_to_text / summary_to_json). Exit 0 on
// success; 1 with the error's one-line description on stderr on failure.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "pteforge/pteforge.h"
#include "serde/archive_native.h"

namespace pteforge::cli {
namespace {

Result<std::string> inspect(const std::string& path, bool json) {
  PTEFORGE_ASSIGN_OR_RETURN(serde::OpenedInput in, serde::open_input(path));
  return pteforge::inspect(*in.archive, in.layout, json);
}

}  // namespace

void register_inspect(CLI::App& app, Action& out) {
  auto* cmd = app.add_subcommand("inspect", "Summarise a .pt2 archive or program JSON");
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("file", *path, "a .pt2 archive, a program JSON, or an unpacked archive folder")->required();
  cmd->add_flag("--json", *json, "print the summary as JSON");
  cmd->callback([&out, path, json] {
    out = [path, json] {
      auto result = inspect(*path, *json);
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
