// pteforge CLI entry point: parses the command line with CLI11 and runs the
// chosen subcommand. Exit codes: 0 success, 1 conversion/input error (one
// message on stderr), 2 usage error. `--version` prints "pteforge X.Y.Z".
#include <cstdio>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"pteforge: torch.export programs (.pt2 / JSON) to ExecuTorch .pte"};
  app.set_version_flag("--version", "pteforge " PTEFORGE_VERSION);
  app.require_subcommand(1);
  pteforge::cli::Action action;
  pteforge::cli::register_inspect(app, action);
  pteforge::cli::register_decode(app, action);
  pteforge::cli::register_convert(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return action ? action() : 2;
}
