// `pteforge decode FILE.pte [--json] [--flatc-json]`: reads a .pte back.
// Default output is a readable summary; --json prints the full decoded
// program; --flatc-json prints what `flatc --json --strict-json` would.
// Only the program part is read into memory, not the segment data.
#include <sys/stat.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "emit/extended_header.h"
#include "emit/pte_decode.h"

namespace pteforge::cli {
namespace {

// Reads the bytes of `path` that decoding needs: the whole file when it has
// no extended header, else the program part (program_size bytes).
Result<std::string> read_program_part(const std::string& path, uint64_t& file_size) {
  Location where;
  where.entry = path;
  // Not opened unless it is a regular file: opening a FIFO waits for a writer forever.
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return make_error(ErrorCode::IO_ERROR,
                      "cannot read '" + path + "': " + (S_ISDIR(st.st_mode) ? "it is a folder" : "it is not a regular file"),
                      where);
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return make_error(ErrorCode::IO_ERROR, "cannot open '" + path + "'", where);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(f, &std::fclose);
  if (std::fseek(f, 0, SEEK_END) != 0) return make_error(ErrorCode::IO_ERROR, "cannot seek in '" + path + "'", where);
  long end = std::ftell(f);
  if (end < 0) return make_error(ErrorCode::IO_ERROR, "cannot size '" + path + "'", where);
  file_size = static_cast<uint64_t>(end);
  std::rewind(f);
  std::string head(static_cast<size_t>(std::min<uint64_t>(file_size, 64)), '\0');
  if (std::fread(head.data(), 1, head.size(), f) != head.size()) {
    return make_error(ErrorCode::IO_ERROR, "cannot read '" + path + "'", where);
  }
  uint64_t want = file_size;
  auto header = emit::parse_extended_header(head);
  if (header.ok() && header->has_value() && (*header)->program_size <= file_size) {
    want = std::max<uint64_t>((*header)->program_size, head.size());
  }
  std::string bytes = head;
  bytes.resize(static_cast<size_t>(want));
  size_t rest = bytes.size() - head.size();
  if (rest > 0 && std::fread(bytes.data() + head.size(), 1, rest, f) != rest) {
    return make_error(ErrorCode::IO_ERROR, "cannot read '" + path + "'", where);
  }
  return bytes;
}

}  // namespace

void register_decode(CLI::App& app, Action& out) {
  auto* cmd = app.add_subcommand("decode", "Read a .pte back: summary, or JSON with --json");
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto flatc = std::make_shared<bool>(false);
  cmd->add_option("file", *path, "a .pte file")->required();
  cmd->add_flag("--json", *json, "print the whole decoded program as JSON");
  cmd->add_flag("--flatc-json", *flatc, "print JSON as `flatc --json --strict-json` would");
  cmd->callback([&out, path, json, flatc] {
    out = [path, json, flatc] {
      uint64_t file_size = 0;
      auto bytes = read_program_part(*path, file_size);
      if (!bytes.ok()) {
        std::fprintf(stderr, "%s\n", bytes.error().to_string().c_str());
        return 1;
      }
      emit::DecodeOptions options;
      options.source_name = *path;
      options.file_size = file_size;
      auto decoded = emit::decode_pte(*bytes, options);
      if (!decoded.ok()) {
        std::fprintf(stderr, "%s\n", decoded.error().to_string().c_str());
        return 1;
      }
      std::string text;
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
