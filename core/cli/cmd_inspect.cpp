// `pteforge inspect FILE [--json]`: summary of an exported program.
#include <cstdio>
#include <string>

#include "cli/commands.h"

namespace pteforge::cli {

void register_inspect(CLI::App& app, Action& out) {
  auto* cmd = app.add_subcommand("inspect", "Summarise a .pt2 archive or program JSON");
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("file", *path, "a .pt2 archive, a program JSON, or an unpacked archive folder")->required();
  cmd->add_flag("--json", *json, "print the summary as JSON");
  cmd->callback([&out, path, json] {
    out = [path, json] {
      std::fprintf(stderr, "inspect: not implemented yet (%s)\n", path->c_str());
      return 1;
    };
  });
}

}  // namespace pteforge::cli
