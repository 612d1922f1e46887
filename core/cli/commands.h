// The pteforge command line tool: one file per subcommand (cmd_<name>.cpp),
// each registering itself on the CLI11 app through a register_* function that
// main.cpp calls in a fixed order.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace pteforge::cli {

/// A subcommand's action, run after parsing; returns the process exit code.
using Action = std::function<int()>;

/// Adds `inspect` (program summary) to `app`; the action is stored in `out`.
void register_inspect(CLI::App& app, Action& out);

/// Adds `decode` (read a .pte back: summary or JSON) to `app`.
void register_decode(CLI::App& app, Action& out);

/// Adds `convert` (.pt2 / program JSON → .pte, with metadata and report JSON).
void register_convert(CLI::App& app, Action& out);

}  // namespace pteforge::cli
