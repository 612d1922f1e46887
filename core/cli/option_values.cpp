// Checks on the values of the CLI's options (see commands.h).
#include <string>
#include <string_view>

#include "cli/commands.h"
#include "support/error.h"

namespace pteforge::cli {
namespace {

/// True when `word` reads as an option: "--anything" (no path or value of
/// ours starts so; ./--x names such a file), or "-x" for one of `cmd`'s
/// one-letter options.
bool looks_like_option(const CLI::App* cmd, std::string_view word) {
  if (word.size() > 2 && word.substr(0, 2) == "--") return true;
  if (word.size() != 2 || word[0] != '-') return false;
  for (const CLI::Option* opt : cmd->get_options()) {
    for (const std::string& s : opt->get_snames()) {
      if (s.size() == 1 && s[0] == word[1]) return true;
    }
  }
  return false;
}

}  // namespace

CLI::Validator option_value(const CLI::App* cmd, ValueKind kind) {
  return CLI::Validator(
      [cmd, kind](std::string& value) -> std::string {
        if (value.empty() && kind != ValueKind::kList) {
          return kind == ValueKind::kPath ? "needs a path, not an empty string"
                                          : "needs a value, not an empty string";
        }
        if (!looks_like_option(cmd, value)) return std::string();
        // CLI11 gives an option the next word even when it is another option
        // ("--metadata --emit-stacktrace" would write a file named
        // "--emit-stacktrace" and drop the flag).
        std::string message =
            "needs a value, but the next word is the option " + single_quoted(control_escaped(value));
        if (kind == ValueKind::kPath) {
          message += " (write ./" + control_escaped(value) + " for a file of that name)";
        }
        return message;
      },
      kind == ValueKind::kPath ? "PATH" : "");
}

}  // namespace pteforge::cli
