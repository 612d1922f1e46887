// pteforge CLI entry point: parses the command line with CLI11 and runs the
// chosen subcommand. Exit codes: 0 success, 1 conversion/input error (one
// message on stderr), 2 usage error. `--version` prints "pteforge X.Y.Z".
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include "cli/commands.h"
#include "support/error.h"
#include "support/interrupt_cleanup.h"

#ifdef PTEFORGE_WITH_MIMALLOC
#include <mimalloc.h>
#endif

int main(int argc, char** argv) {
#ifdef PTEFORGE_WITH_MIMALLOC
  // Keep freed pages committed. A conversion frees and reallocates hundreds
  // of MB between stages (the program text, IR copies, tables); handing the
  // pages back to the OS only to fault them in again cost ~0.3 s of kernel
  // time in a 100k-node convert (scripts/bench_convert.py). The process is
  // short-lived, so nothing is lost. MIMALLOC_ALLOW_DECOMMIT still decides.
  if (std::getenv("MIMALLOC_ALLOW_DECOMMIT") == nullptr) mi_option_disable(mi_option_allow_decommit);
#endif
  CLI::App app{"pteforge: torch.export programs (.pt2 / JSON) to ExecuTorch .pte"};
  app.set_version_flag("--version", "pteforge " PTEFORGE_VERSION);
  app.require_subcommand(1);
  pteforge::cli::Action action;
  pteforge::cli::register_inspect(app, action);
  pteforge::cli::register_decode(app, action);
  pteforge::cli::register_convert(app, action);
  // A first word that is no option and no command is a mistyped command:
  // say so (CLI11 alone says "A subcommand is required").
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      found = found || sub->check_name(argv[1]);
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (!found) {
      // Escaped: the word goes to a terminal.
      std::fprintf(stderr, "unknown command '%s' (commands: %s)\nRun with --help for more information.\n",
                   pteforge::control_escaped(argv[1]).c_str(), known.c_str());
      return 2;
    }
  }
  // Ctrl-C during convert leaves no temporary file and no side file without its .pte.
  pteforge::install_interrupt_cleanup();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  // Errors are values (support/error.h); an exception here is a failed
  // allocation or a broken invariant. One message and the usual exit code,
  // and unwinding removes the temporary outputs (emit::StagedOutput).
  try {
    return action ? action() : 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "INTERNAL: out of memory: the conversion needs more memory than the system gave it\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "INTERNAL: %s (please report this with the input)\n", pteforge::control_escaped(e.what()).c_str());
  }
  return 1;
}
