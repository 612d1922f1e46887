// `pteforge convert IN -o OUT.pte [--metadata OUT.json] [--report OUT.json]
//   [--passes a,b,...] [--preserve-ops a,b,...] [--memory-planning greedy|naive|best]
//   [--constant-method NAME=JSON]... [--swap FQN=PATH]... [--init-buffers]
//   [--emit-stacktrace] [--export-program OUT.json]`
//
// --swap replaces module FQN (a submodule exported with
// preserve_module_call_signature) by the program in PATH (.pt2, folder or
// program JSON) before lowering; the .pte references PATH's weights.
// --preserve-ops keeps the listed ops undecomposed (ExecuTorch's
// EdgeCompileConfig.preserve_ops; PipelineOptions::preserve_ops), any target
// spelling the op table accepts (aten.linear.default, aten::linear).
//
// IN is a .pt2 archive, an unpacked archive folder, or a program JSON. The
// .pte and the side files (metadata, report, exported programs) are each
// written to a temporary file, then all renamed into place in one
// uninterruptible step (emit::commit_outputs), so nothing half-written is left
// behind and a failed or interrupted run (Ctrl-C, SIGTERM, SIGHUP) leaves the
// previous outputs as they were (support/interrupt_cleanup.h). Warnings go to
// stderr; to stdout one line "OUT: N bytes, M method(s)", then one line
// "metadata: PATH" / "report: PATH" / "exported programs: PATH" per side file
// written. Exit 0 on success, 1 with the error on stderr on failure, 2 for
// usage errors.
#include <rapidjson/document.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "emit/chunks_native.h"
#include "emit/emit_program.h"
#include "passes/module_swap_api.h"
#include "pteforge/pteforge.h"
#include "serde/archive_native.h"

namespace pteforge::cli {
namespace {

struct ConvertArgs {
  std::string input;
  std::string output;
  std::string metadata;
  std::string report;
  std::string export_program;
  std::vector<std::string> passes;
  std::vector<std::string> preserve_ops;
  std::string memory_planning = "greedy";
  std::vector<std::string> constant_methods;
  std::vector<std::string> swaps;
  bool init_buffers = false;
  bool emit_stacktrace = false;
  bool no_times = false;
  int bench = 0;
};

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PTEFORGE_CLI_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(PTEFORGE_CLI_UNDER_ASAN)
#define PTEFORGE_CLI_UNDER_ASAN 1
#endif

/// Keeps a conversion's working state (ConvertResult::working_state) until
/// the process ends and never frees it: the CLI exits right after writing its
/// outputs, and the kernel takes the pages back at exit in one go, where
/// freeing the IR block by block would cost a few ms of pointer chasing
/// (compilers such as clang skip freeing at exit for the same reason). Under
/// AddressSanitizer it is freed as usual, so leak checking stays exact.
void leave_to_exit(std::shared_ptr<void> state) {
#ifdef PTEFORGE_CLI_UNDER_ASAN
  state.reset();
#else
  new std::shared_ptr<void>(std::move(state));  // intentionally never deleted
#endif
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// --bench N (scripts/bench_convert.py): the best of N runs of (a) RapidJSON
/// DOM parsing of the program JSON bytes (the import baseline), (b) convert(),
/// (c) writing the .pte; printed as one JSON line (the first run's
/// warnings go to stderr, as a plain convert prints them).
Status run_bench(const ConvertArgs& args, const ConvertOptions& options, serde::OpenedInput& in) {
  std::vector<std::string> programs;
  for (const serde::Pt2Model& m : in.layout.models) {
    PTEFORGE_ASSIGN_OR_RETURN(std::string json, serde::read_program_entry(*in.archive, m.program_entry));
    programs.push_back(std::move(json));
  }
  double parse = 1e300, conv = 1e300, write = 1e300;
  ConvertTimings best;  // stages of the fastest conversion
  uint64_t size = 0;
  for (int i = 0; i < args.bench; ++i) {
    // Every run starts from a freshly opened input (not timed), as a single
    // conversion does: an archive keeps the small entries it has read
    // (Archive::kept_entry), which would flatter the later runs. Only the
    // main input is reopened: --swap replacements stay open across runs.
    if (i > 0) {
      PTEFORGE_ASSIGN_OR_RETURN(serde::OpenedInput fresh, serde::open_input(args.input));
      in = std::move(fresh);
    }
    // convert() first: it rejects what the baseline's plain recursive parse
    // must not see (JSON nested deeper than serde::kMaxJsonDepth).
    auto t0 = std::chrono::steady_clock::now();
    PTEFORGE_ASSIGN_OR_RETURN(ConvertResult result, convert(*in.archive, in.layout, options));
    const double c = ms_since(t0);
    // The warnings, once (every run gives the same ones).
    if (i == 0) {
      for (const Diagnostic& d : result.diagnostics) std::fprintf(stderr, "%s\n", d.to_string().c_str());
    }
    if (c < conv) best = result.timings;
    conv = std::min(conv, c);
    t0 = std::chrono::steady_clock::now();
    PTEFORGE_TRY(emit::write_chunks_to_file(result.pte.chunks, args.output,
                                            archive_range_reader(*in.archive, options.swaps)));
    write = std::min(write, ms_since(t0));
    t0 = std::chrono::steady_clock::now();
    for (const std::string& json : programs) {
      rapidjson::Document doc;
      doc.Parse(json.data(), json.size());
      if (doc.HasParseError()) return make_error(ErrorCode::INPUT_NOT_JSON, "bench: program JSON does not parse");
    }
    parse = std::min(parse, ms_since(t0));
    size = result.pte.layout.file_size;
    if (i + 1 == args.bench && !args.metadata.empty())
      PTEFORGE_TRY(emit::write_bytes_to_file(result.metadata_json, args.metadata));
  }
  std::printf(
      "{\"parse_ms\": %.3f, \"convert_ms\": %.3f, \"write_ms\": %.3f, \"ratio\": %.3f, \"file_size\": %llu, "
      "\"import_ms\": %.3f, \"passes_ms\": %.3f, \"emit_ms\": %.3f, \"serialize_ms\": %.3f}\n",
      parse, conv, write, (conv + write) / std::max(parse, 1e-6), static_cast<unsigned long long>(size), best.import_ms,
      best.passes_ms, best.emit_ms, best.serialize_ms);
  return Status::Ok();
}

/// True when paths `a` and `b` name one file: the same text, the same path
/// once made absolute and its links resolved ("./o.pte", "sub/../o.pte", a
/// link to o.pte), or one existing file (hard links).
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  if (a == b) return true;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec)) return true;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
  if (ec) return false;
  const fs::path cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return !ec && ca == cb;
}

/// How writing an output would touch an input.
enum class Clash {
  kNone,
  kOverwrites,  ///< it replaces the input, or a file inside the input folder
  kInside,      ///< it adds a new file inside the input folder
};

/// Whether writing `output` would replace `input` or a file inside it (an
/// input folder; the same file through any path or link), or add a file
/// inside that folder.
Clash output_clashes_with_input(const std::string& output, const std::string& input) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path in = fs::weakly_canonical(input, ec);
  if (ec) return Clash::kNone;
  const bool exists = fs::exists(output, ec);
  if (exists && fs::equivalent(output, input, ec)) return Clash::kOverwrites;
  if (!fs::is_directory(in, ec)) return Clash::kNone;
  // The output's folder (links resolved) at or below the input folder.
  const fs::path out = fs::weakly_canonical(output, ec);
  if (ec) return Clash::kNone;
  auto o = out.begin();
  for (auto i = in.begin(); i != in.end(); ++i, ++o) {
    if (i->empty()) continue;  // a trailing separator
    if (o == out.end() || *o != *i) return Clash::kNone;
  }
  return exists ? Clash::kOverwrites : Clash::kInside;
}

/// The items of a comma-separated list option given once or more (`values`,
/// one per occurrence), in order. OPTION_INVALID for an empty item ("a,,b",
/// "a,", ""): an empty --passes would silently mean the default pipeline.
Result<std::vector<std::string>> split_list(const std::string& flag, const std::string& what,
                                            const std::vector<std::string>& values) {
  std::vector<std::string> items;
  for (const std::string& value : values) {
    size_t start = 0;
    while (true) {
      const size_t comma = value.find(',', start);
      std::string item = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (item.empty()) {
        return make_error(
            ErrorCode::OPTION_INVALID,
            flag + " needs " + what + " separated by commas, got " +
                (value.empty() ? std::string("an empty string")
                               : single_quoted(control_escaped(value)) + " with an empty item") +
                (flag == "--passes" ? " (leave it out for the default pipeline)" : ""));
      }
      items.push_back(std::move(item));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return items;
}

Status run_convert(const ConvertArgs& args) {
  ConvertOptions options;
  PTEFORGE_ASSIGN_OR_RETURN(options.pipeline.passes, split_list("--passes", "pass names", args.passes));
  PTEFORGE_ASSIGN_OR_RETURN(options.pipeline.preserve_ops,
                            split_list("--preserve-ops", "op names", args.preserve_ops));
  options.pipeline.memory_planning = args.memory_planning;
  options.init_buffers = args.init_buffers;
  options.emit_stacktrace = args.emit_stacktrace;
  options.report_times = !args.no_times;
  options.export_programs = !args.export_program.empty();
  for (const std::string& m : args.constant_methods) {
    PTEFORGE_ASSIGN_OR_RETURN(auto parts, emit::split_constant_method_option(m));
    options.constant_methods.push_back(std::move(parts));
  }

  // The replacements stay open until the .pte is written (it references their weights).
  PTEFORGE_ASSIGN_OR_RETURN(std::vector<passes::SwapOption> swaps, passes::parse_swap_options(args.swaps));
  std::vector<serde::OpenedInput> replacements;
  replacements.reserve(swaps.size());
  for (const passes::SwapOption& s : swaps) {
    auto opened = serde::open_input(s.path);
    if (!opened.ok()) {
      Error e = std::move(opened).error();
      e.notes.push_back("while opening the replacement for module '" + s.fqn + "' (--swap)");
      return e;
    }
    replacements.push_back(std::move(opened).value());
    options.swaps.push_back(
        SwapInput{s.fqn, replacements.back().archive.get(), replacements.back().layout, "", s.path});
  }

  // Every output file names a different path (one would silently overwrite another).
  std::vector<std::pair<std::string, std::string>> outputs = {{"-o", args.output}};
  if (!args.metadata.empty()) outputs.emplace_back("--metadata", args.metadata);
  if (!args.report.empty()) outputs.emplace_back("--report", args.report);
  if (!args.export_program.empty()) outputs.emplace_back("--export-program", args.export_program);
  for (const auto& [flag, path] : outputs) {
    // Outputs are staged in a temporary file and renamed into place: none can
    // go to standard output, which "-" names for many tools.
    if (path == "-") {
      return make_error(ErrorCode::OPTION_INVALID,
                        flag +
                            " '-': outputs are written to files, not to standard output; "
                            "name a file (./- for a file called '-')");
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      const auto& [flag, path] = outputs[i];
      const auto& [earlier_flag, earlier_path] = outputs[j];
      if (!same_file(path, earlier_path)) continue;
      // Spelled alike, the path is named once; spelled apart, both are.
      return make_error(ErrorCode::OPTION_INVALID,
                        path == earlier_path
                            ? earlier_flag + " and " + flag + " name the same file '" + path + "'"
                            : earlier_flag + " '" + earlier_path + "' and " + flag + " '" + path + "' name the same file");
    }
  }

  // No output may replace an input (the .pt2, a --swap replacement, or a
  // file inside an input folder, including the unpacked archive around a
  // program JSON): the .pte references their bytes.
  PTEFORGE_ASSIGN_OR_RETURN(serde::OpenedInput in, serde::open_input(args.input));
  struct InputPath {
    std::string what, path, root;  // root: what the archive reads (OpenedInput::root)
  };
  std::vector<InputPath> inputs = {{"the input", args.input, in.root}};
  for (size_t i = 0; i < swaps.size(); ++i) {
    inputs.push_back({"the --swap replacement for '" + swaps[i].fqn + "'", swaps[i].path, replacements[i].root});
  }
  for (const auto& [flag, path] : outputs) {
    for (const InputPath& input : inputs) {
      Clash clash = output_clashes_with_input(path, input.path);
      const bool direct = clash != Clash::kNone;
      if (!direct) clash = output_clashes_with_input(path, input.root);
      if (clash == Clash::kNone) continue;
      Location where;
      where.entry = path;
      std::string message = flag + " '" + path + "' would " +
                            (clash == Clash::kOverwrites ? "overwrite " : "write a file inside ") +
                            input.what + " '" + input.path + "'";
      if (!direct) message += " (it reads the unpacked archive '" + input.root + "')";
      return make_error(ErrorCode::OPTION_INVALID, message, where);
    }
  }

  if (args.bench > 0) return run_bench(args, options, in);
  PTEFORGE_ASSIGN_OR_RETURN(ConvertResult result, convert(*in.archive, in.layout, options));
  for (const Diagnostic& d : result.diagnostics) std::fprintf(stderr, "%s\n", d.to_string().c_str());
  // Every output is staged (written to a temporary file) before any is
  // renamed into place, and the renames are one uninterruptible step: a run
  // that fails or is interrupted leaves the previous outputs as they were.
  std::vector<std::unique_ptr<emit::StagedOutput>> staged_outputs;
  // The side files, in the order they are reported (the texts moved, not copied).
  struct SideFile {
    const char* what;
    const std::string& path;
    std::string text;
  };
  const SideFile side_files[] = {
      {"metadata", args.metadata, std::move(result.metadata_json)},
      {"report", args.report, std::move(result.report_json) + "\n"},
      {"exported programs", args.export_program, std::move(result.programs_json) + "\n"},
  };
  for (const SideFile& f : side_files) {
    if (f.path.empty()) continue;
    PTEFORGE_ASSIGN_OR_RETURN(auto staged, emit::StagedOutput::write_bytes(f.text, f.path));
    staged_outputs.push_back(std::move(staged));
  }
  PTEFORGE_ASSIGN_OR_RETURN(auto pte, emit::StagedOutput::write(result.pte.chunks, args.output,
                                                                archive_range_reader(*in.archive, options.swaps)));
  staged_outputs.push_back(std::move(pte));
  PTEFORGE_TRY(emit::commit_outputs(staged_outputs));
  const size_t methods = result.pte.program.execution_plan.size();
  // Paths are echoed with their control characters escaped, as errors are.
  std::printf("%s: %llu bytes, %zu method%s\n", control_escaped(args.output).c_str(),
              static_cast<unsigned long long>(result.pte.layout.file_size), methods, methods == 1 ? "" : "s");
  for (const SideFile& f : side_files) {
    if (!f.path.empty()) std::printf("%s: %s\n", f.what, control_escaped(f.path).c_str());
  }
  leave_to_exit(std::move(result.working_state));
  return Status::Ok();
}

}  // namespace

void register_convert(CLI::App& app, Action& out) {
  auto* cmd = app.add_subcommand("convert", "Convert a .pt2 archive, unpacked folder or program JSON to a .pte");
  auto args = std::make_shared<ConvertArgs>();
  cmd->add_option("input", args->input, "a .pt2 archive, an unpacked archive folder, or a program JSON")->required();
  const CLI::Validator path = option_value(cmd, ValueKind::kPath);
  const CLI::Validator text = option_value(cmd, ValueKind::kText);
  const CLI::Validator list = option_value(cmd, ValueKind::kList);
  cmd->add_option("-o,--output", args->output, "the .pte file to write")->required()->check(path);
  cmd->add_option("--metadata", args->metadata,
                  "also write the metadata JSON (debug handles, memory plan, operators, pass report)")
      ->check(path);
  CLI::Option* report =
      cmd->add_option("--report", args->report, "also write the pass report JSON")->check(path);
  CLI::Option* export_program =
      cmd->add_option(
             "--export-program", args->export_program,
             "also write each method's program after the passes, as torch.export JSON: {method: program}")
          ->check(path);
  // The lists and the repeatable options take one word per occurrence: by
  // default CLI11 would also take the words after it (the input file too).
  // The lists are split in run_convert (split_list), which refuses empty items.
  cmd->add_option("--passes", args->passes, "passes to run instead of the default pipeline (comma-separated)")
      ->allow_extra_args(false)
      ->check(list);
  cmd->add_option("--preserve-ops", args->preserve_ops,
                  "ops the decompose pass keeps (each needs an out variant), comma-separated, "
                  "e.g. aten.linear.default")
      ->allow_extra_args(false)
      ->check(list);
  cmd->add_option("--memory-planning", args->memory_planning, "memory planning algorithm")
      ->check(CLI::IsMember({"greedy", "naive", "best_fit", "best"}));
  cmd->add_option("--constant-method", args->constant_methods,
                  "add a method returning a constant, NAME=JSON (e.g. get_max_seq_len=128, "
                  "get_eos_ids=[2,3], get_name='\"tiny\"'); repeatable")
      ->allow_extra_args(false)
      ->check(text);
  cmd->add_option("--swap", args->swaps,
                  "replace module FQN (exported with preserve_module_call_signature) by the program in PATH, "
                  "FQN=PATH (e.g. encoder.layer.1=replacement.pt2); repeatable")
      ->allow_extra_args(false)
      ->check(text);
  cmd->add_flag("--init-buffers", args->init_buffers, "store the initial values of mutable buffers in the .pte");
  cmd->add_flag("--emit-stacktrace", args->emit_stacktrace, "store a stack trace per instruction");
  cmd->add_flag(
      "--no-times", args->no_times,
      "write every pass time as 0 in --metadata and --report, so that repeated runs give identical files");
  // Shown under its own heading: CLI11 2.1 leaves a hidden option's name out
  // of its errors (": 1 required INT missing").
  cmd->add_option("--bench", args->bench,
                  "time N runs against a RapidJSON parse of the input (scripts/bench_convert.py)")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000).description(""))
      // It writes the .pte and --metadata only.
      ->excludes(report)
      ->excludes(export_program)
      ->group("Benchmarking");
  cmd->callback([&out, args] {
    out = [args] {
      Status st = run_convert(*args);
      if (!st.ok()) {
        std::fprintf(stderr, "%s\n", st.error().to_string().c_str());
        return 1;
      }
      return 0;
    };
  });
}

}  // namespace pteforge::cli
