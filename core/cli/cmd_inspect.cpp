// `pteforge inspect FILE [--json]`: summary of an exported program.
//
// Reads a program JSON file (a lone program JSON is method "forward"),
// imports it, and prints serde::summary_to_text / summary_to_json. Exit 0 on
// success; 1 with the error's one-line description on stderr on failure.
// (.pt2 archives and unpacked archive folders plug in through the archive
// reader.)
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "serde/import_exported_program.h"
#include "serde/summary.h"

namespace pteforge::cli {
namespace {

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    Location where;
    where.entry = path;
    return make_error(ErrorCode::IO_ERROR, "cannot open " + path, where);
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    Location where;
    where.entry = path;
    return make_error(ErrorCode::IO_ERROR, "cannot read " + path, where);
  }
  return ss.str();
}

Result<std::string> inspect(const std::string& path, bool json) {
  PTEFORGE_ASSIGN_OR_RETURN(std::string text, read_file(path));
  auto imported = serde::import_exported_program(std::move(text));
  if (!imported.ok()) {
    Error e = std::move(imported).error();
    e.where.method = "forward";
    if (!e.where.entry) e.where.entry = path;
    return e;
  }
  ir::Program program;
  program.methods.emplace("forward", std::move(imported->program));
  serde::ProgramSummary summary = serde::summarize_program(program, {{"forward", std::move(imported->warnings)}});
  return json ? serde::summary_to_json(summary) : serde::summary_to_text(summary);
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
