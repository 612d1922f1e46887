// pteforge CLI entry point: parses the command line with CLI11 and runs the
// chosen subcommand. Exit codes: 0 success, 1 conversion/input error (one
// message on stderr), 2 usage error. `--version` prints "pteforge X.Y.Z".
#include <strings.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "cli/commands.h"
#include "emit/chunks_native.h"
#include "support/error.h"
#include "support/interrupt_cleanup.h"

#ifdef PTEFORGE_WITH_MIMALLOC
#include <mimalloc.h>
#endif

namespace {

/// The line the CLI prints when an allocation fails, from mimalloc's error
/// hook or from a std::bad_alloc (builds without mimalloc).
constexpr char kOutOfMemoryLine[] =
    "OUT_OF_MEMORY: the command needed more memory than the system gave it; free some memory, or run it on a "
    "machine with more\n";

}  // namespace

#ifdef PTEFORGE_WITH_MIMALLOC
namespace {

/// True when `envp` sets the environment variable `name`, in any case (as
/// mimalloc 2.0 itself matches its MIMALLOC_* variables).
bool env_has(char** envp, const char* name) {
  const size_t n = std::strlen(name);
  for (char** e = envp; e && *e; ++e) {
    if (strncasecmp(*e, name, n) == 0 && (*e)[n] == '=') return true;
  }
  return false;
}

/// mimalloc's error hook: an allocation that fails (ENOMEM, or EOVERFLOW for
/// a size past what it can map) ends the run with one OUT_OF_MEMORY line and
/// exit status 1, after removing the temporary outputs, as an interrupt
/// does. Debian's mimalloc is built as C: its operator new sees no new
/// handler (a weak stub shadows libstdc++'s) and would abort() with the
/// temporary files left behind. Other errors (a double free, a bad pointer)
/// keep mimalloc's default handling. Allocates nothing.
void on_mimalloc_error(int err, void*) {
  if (err != ENOMEM && err != EOVERFLOW) return;
  pteforge::remove_registered_paths();
  [[maybe_unused]] const ssize_t written =
      ::write(STDERR_FILENO, kOutOfMemoryLine, sizeof kOutOfMemoryLine - 1);
  ::_exit(1);
}

/// mimalloc's options for a short-lived process that fills tens to hundreds
/// of MB of fresh memory. Set from .preinit_array, before any library
/// constructor allocates: set later, they miss the heap segments made before
/// main (a 1k-node convert lives entirely in those). An environment variable
/// of the same name still decides (it is read when mimalloc initializes).
/// - allow_decommit off: keep freed pages committed. A conversion frees and
///   reallocates hundreds of MB between stages (the program text, IR copies,
///   tables); handing pages back to the OS only to fault them in again cost
///   ~0.3 s of kernel time in a 100k-node convert.
/// - large_os_pages on: 2 MiB pages for the heap. mimalloc 2.0 tries
///   mmap(MAP_HUGETLB), which fails unless hugetlbfs pages are reserved, and
///   then asks for transparent huge pages with madvise(MADV_HUGEPAGE)
///   (ignored where THP is off). Page faults were most
///   of a conversion's kernel time: a 10k-node convert took ~16,600 faults
///   with 4 KiB pages and ~3,100 with 2 MiB ones, for ~10 MB more peak memory
///   (README "Performance").
/// - eager_commit_delay 0: the main thread's first segment is committed
///   whole at once like the later ones (mimalloc commits it piecemeal by
///   default), so transparent huge pages back it from the start: a
///   100k-node convert took ~29,300 faults instead of ~37,500 and 2.9 s
///   instead of 3.2 (medians of 4 alternating runs), for ~3.5 MB more peak
///   memory at 10k nodes.
void configure_mimalloc(int, char**, char** envp) {
  mi_register_error(&on_mimalloc_error, nullptr);
  if (!env_has(envp, "MIMALLOC_ALLOW_DECOMMIT")) mi_option_disable(mi_option_allow_decommit);
  if (!env_has(envp, "MIMALLOC_LARGE_OS_PAGES")) mi_option_enable(mi_option_large_os_pages);
  if (!env_has(envp, "MIMALLOC_EAGER_COMMIT_DELAY")) mi_option_set(mi_option_eager_commit_delay, 0);
}

__attribute__((section(".preinit_array"), used)) void (*const kConfigureMimalloc)(int, char**, char**) =
    configure_mimalloc;

}  // namespace
#endif

namespace {

/// 0 when everything printed to standard output reached it, else 1 after an
/// IO_ERROR line: a full disk (> /dev/full) or a closed file is an error,
/// not a silent success with part of a summary or JSON lost.
int stdout_written() {
  // errno is not cleared first: a write that failed during an earlier printf
  // (output past the stdio buffer) left its reason there, and the flush
  // below then has nothing to write.
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return 0;
  const int err = errno;
  const std::string reason = err != 0 ? pteforge::emit::write_failure_reason(err, "") : "write failed";
  std::fprintf(stderr, "IO_ERROR: cannot write standard output: %s\n", reason.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pteforge: torch.export programs (.pt2 / JSON) to ExecuTorch .pte"};
  app.set_version_flag("--version", "pteforge " PTEFORGE_VERSION);
  app.require_subcommand(1);
  pteforge::cli::Action action;
  pteforge::cli::register_inspect(app, action);
  pteforge::cli::register_decode(app, action);
  pteforge::cli::register_convert(app, action);
  // A missing or mistyped command gets the list of commands (CLI11 alone
  // says "A subcommand is required"); an option before the command gets the
  // commands that take it.
  const std::vector<CLI::App*> commands = app.get_subcommands([](const CLI::App*) { return true; });
  std::string known;
  for (const CLI::App* sub : commands) known += (known.empty() ? "" : ", ") + sub->get_name();
  // A usage error: its line, CLI11's pointer to --help, exit status 2.
  auto usage_error = [](const std::string& line) {
    std::fprintf(stderr, "%s\nRun with --help for more information.\n", line.c_str());
    return 2;
  };
  if (argc == 1) return usage_error("a command is required: pteforge COMMAND ... (commands: " + known + ")");
  const std::string first = argv[1];
  if (first[0] != '-' || first == "-") {
    bool found = false;
    for (const CLI::App* sub : commands) found = found || sub->check_name(first);
    // Escaped: the word goes to a terminal.
    if (!found)
      return usage_error("unknown command '" + pteforge::control_escaped(first) + "' (commands: " + known +
                         ")");
  } else {
    // The option's name: before '=' (--opt=value), or the letter (-oVALUE).
    const std::string name = first[1] == '-' ? first.substr(0, first.find('=')) : first.substr(0, 2);
    const bool own = name == "-h" || name == "--help" || name == "--version";  // the program's own: CLI11's
    if (first == "--") {
      return usage_error("a command is required before '--': pteforge COMMAND ... (commands: " + known + ")");
    }
    if (!own) {
      std::string takers;
      for (const CLI::App* sub : commands) {
        if (sub->get_option_no_throw(name) != nullptr) {
          takers += (takers.empty() ? "" : ", ") + sub->get_name();
        }
      }
      // Escaped: the word goes to a terminal.
      const std::string shown = pteforge::control_escaped(name == "--" ? first : name);  // "--=x"
      if (takers.empty()) {
        return usage_error("unknown option '" + shown + "': no command takes it (commands: " + known + ")");
      }
      return usage_error("options come after the command: pteforge COMMAND [options] (commands: " + known +
                         "); " + shown + " is an option of: " + takers);
    }
  }
  // Ctrl-C during convert leaves no temporary file and no side file without its .pte.
  pteforge::install_interrupt_cleanup();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version: CLI11 prints them
    // CLI11's words (reworded where ours are clearer), escaped: they echo
    // what was typed, and go to a terminal.
    return usage_error(pteforge::control_escaped(pteforge::cli::reword_parse_error(e.what())));
  }
  // Errors are values (support/error.h); an exception here is a failed
  // allocation or a broken invariant. One message and the usual exit code,
  // and unwinding removes the temporary outputs (emit::StagedOutput).
  try {
    const int code = action ? action() : 2;
    return code == 0 ? stdout_written() : code;
  } catch (const std::bad_alloc&) {
    std::fputs(kOutOfMemoryLine, stderr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "INTERNAL: %s (please report this with the input)\n", pteforge::control_escaped(e.what()).c_str());
  }
  return 1;
}
