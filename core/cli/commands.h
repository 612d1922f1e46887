// The pteforge command line tool: one file per subcommand (cmd_<name>.cpp),
// each registering itself on the CLI11 app through a register_* function that
// main.cpp calls in a fixed order.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace pteforge::cli {

/// A subcommand's action, run after parsing; returns the process exit code.
using Action = std::function<int()>;

/// What an option's value is, for option_value: a path or text must not be
/// empty; a comma-separated list may (its parser names the empty item).
enum class ValueKind { kPath, kText, kList };

/// A CLI11 check for the value of an option of subcommand `cmd`: refuses an
/// empty value (except a kList), and a value that reads as an option: any
/// "--word", or one of `cmd`'s one-letter options (CLI11 2.1 hands an option
/// the next word even when that word is "--json"). The
/// usage error reads "--metadata: needs a value, but the next word is the
/// option '--json' (write ./--json for a file of that name)"; exit code 2.
CLI::Validator option_value(const CLI::App* cmd, ValueKind kind);

/// CLI11's parse error text `what` reworded as pteforge's other usage errors
/// ("--opt: what is wrong"): "--output: At Most 1 required but received 2"
/// -> "--output: given 2 times, but it takes one value"; "--x: 1 required
/// TEXT:{a,b} missing" -> "--x: needs a value (one of a, b)"; "--x: v not in
/// {a,b}" -> "--x: 'v' is not one of a, b"; "--x: Value v not in range 1 to 9"
/// -> "--x: 'v' is not a whole number from 1 to 9"; "Could not convert: --x =
/// v" (a value given to a switch) and "The following argument was not
/// expected: a" likewise. Other messages are returned as they are.
std::string reword_parse_error(const std::string& what);

/// Adds `inspect` (program summary) to `app`; the action is stored in `out`.
void register_inspect(CLI::App& app, Action& out);

/// Adds `decode` (read a .pte back: summary or JSON) to `app`.
void register_decode(CLI::App& app, Action& out);

/// Adds `convert` (.pt2 / program JSON → .pte, with metadata and report JSON).
void register_convert(CLI::App& app, Action& out);

}  // namespace pteforge::cli
