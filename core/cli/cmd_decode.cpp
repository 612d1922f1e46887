// `pteforge decode FILE.pte [--json | --flatc-json | --check]`: reads a .pte back.
// Default output is a readable summary; --json prints the full decoded
// program; --flatc-json prints what `flatc --json --strict-json` would;
// --check prints what ExecuTorch's runtime would refuse when loading a
// method (emit::check_method_load), one "pointer: message" line each, and
// exits 1 when there is any.
// Only the program part is read into memory, not the segment data.

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "emit/extended_header.h"
#include "emit/pte_decode.h"
#include "serde/archive_native_io.h"

namespace pteforge::cli {
namespace {

// Reads the bytes of `path` that decoding needs (emit::pte_prefix_to_decode):
// the first 4096 bytes decide; then the program part (program_size bytes)
// when there is an extended header, the whole file when there is none, and
// nothing more when the file cannot be a .pte. Opened as every CLI input is
// (serde::FileByteSource: a folder or a FIFO is refused, never waited on).
Result<std::string> read_program_part(const std::string& path, uint64_t& file_size) {
  PTEFORGE_ASSIGN_OR_RETURN(std::unique_ptr<serde::FileByteSource> file, serde::FileByteSource::open(path));
  file_size = file->size();
  PTEFORGE_ASSIGN_OR_RETURN(std::string head, file->read_at(0, std::min<uint64_t>(file_size, 4096)));
  const uint64_t want = emit::pte_prefix_to_decode(head, file_size);
  if (want <= head.size()) return head;  // the first bytes are all decode_pte needs
  return file->read_at(0, want);
}

}  // namespace

void register_decode(CLI::App& app, Action& out) {
  auto* cmd = app.add_subcommand("decode", "Read a .pte back: summary, or JSON with --json");
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto flatc = std::make_shared<bool>(false);
  auto check = std::make_shared<bool>(false);
  cmd->add_option("file", *path, "a .pte file")->required();
  auto* json_flag = cmd->add_flag("--json", *json, "print the whole decoded program as JSON");
  // One output format: asking for both is a usage error, not a silent choice.
  auto* flatc_flag = cmd->add_flag("--flatc-json", *flatc, "print JSON as `flatc --json --strict-json` would")
                         ->excludes(json_flag);
  cmd->add_flag("--check", *check,
                "check what ExecuTorch's runtime checks when it loads a method; exit 1 on any problem")
      ->excludes(json_flag)
      ->excludes(flatc_flag);
  cmd->callback([&out, path, json, flatc, check] {
    out = [path, json, flatc, check] {
      uint64_t file_size = 0;
      auto bytes = read_program_part(*path, file_size);
      if (!bytes.ok()) {
        std::fprintf(stderr, "%s\n", bytes.error().to_string().c_str());
        return 1;
      }
      emit::DecodeOptions options;
      options.source_name = *path;
      options.file_size = file_size;
      options.check_load = *check;
      auto decoded = emit::decode_pte(*bytes, options);
      if (!decoded.ok()) {
        std::fprintf(stderr, "%s\n", decoded.error().to_string().c_str());
        return 1;
      }
      std::string text;
      if (*check) {
        const emit::LoadCheck& check_result = decoded->load_check;
        text = emit::format_load_check(check_result, decoded->program.execution_plan.size());
        std::fwrite(text.data(), 1, text.size(), stdout);
        return check_result.total == 0 ? 0 : 1;
      }
      if (*flatc) {
        text = emit::decoded_pte_to_json(*decoded, emit::PteJsonStyle::Flatc);
      } else if (*json) {
        text = emit::decoded_pte_to_json(*decoded, emit::PteJsonStyle::Readable);
      } else {
        text = emit::format_pte_summary(*decoded);
      }
      std::fwrite(text.data(), 1, text.size(), stdout);
      return 0;
    };
  });
}

}  // namespace pteforge::cli
