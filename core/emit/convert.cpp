// The pteforge façade (core/include/pteforge/pteforge.h): import → passes →
// emit_program → serialize_program, plus decode and pass listing.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "emit/emit_program.h"
#include "emit/emitter_constants.h"
#include "emit/hash_prefetch.h"
#include "emit/metadata_json.h"
#include "emit/pte_decode.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "ops/op_table.h"
#include "passes/lowering_util.h"
#include "passes/module_swap/partition.h"
#include "passes/module_swap_api.h"
#include "passes/pass_manager.h"
#include "passes/pass_registry.h"
#include "pteforge/pteforge.h"
#include "serde/archive_zip.h"
#include "serde/export_exported_program.h"
#include "serde/import_exported_program.h"
#include "serde/json_cursor.h"
#include "serde/payload_config.h"
#include "serde/py_json_writer.h"
#include "serde/state_binding.h"
#include "serde/summary.h"
#include "support/background_job.h"

namespace pteforge {
namespace {

constexpr uint64_t kMaxConfigJson = uint64_t{1} << 30;   // 1 GiB

/// One method on its way through the pipeline.
struct Method {
  const serde::Pt2Model* model = nullptr;
  ir::ExportedProgram program;
  passes::MethodState state;
};

/// What a conversion built and no longer needs once its result exists.
struct WorkingState {
  std::vector<std::unique_ptr<Method>> methods;
  emit::EmitterOutput emitted;  ///< its program moved into the serializer
  std::unique_ptr<emit::HashPrefetch> prefetch;
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

Error in_method(Error e, const std::string& method) {
  if (!e.where.method) e.where.method = method;
  return e;
}

/// in_method for an error raised after the import (by a pass or the
/// emitter): a JSON pointer there points into the method's program JSON (a
/// node's origin), so the entry is that program's unless one is named.
Error in_program(Error e, const serde::Pt2Model& model) {
  if (e.where.pointer && !e.where.entry) e.where.entry = model.program_entry;
  return in_method(std::move(e), model.method);
}

bool has_state_inputs(const ir::ExportedProgram& ep) {
  for (const ir::InputSpec& s : ep.signature().input_specs) {
    if (s.is_state()) return true;
  }
  return false;
}

/// The program JSON of `model` (serde::read_program_entry).
Result<std::string> read_program_text(serde::Archive& archive, const serde::Pt2Model& model) {
  return serde::read_program_entry(archive, model.program_entry);
}

/// Reports `found` as warnings of `model`'s method; those of the program
/// (`in_program`) name its entry unless they name another.
void report_warnings(std::vector<serde::ImportWarning> found, const serde::Pt2Model& model, bool in_program,
                     std::vector<passes::Diagnostic>& diagnostics) {
  for (serde::ImportWarning& w : found) {
    w.where.method = model.method;
    if (in_program && !w.where.entry) w.where.entry = model.program_entry;
    diagnostics.push_back(passes::Diagnostic{"warning", std::move(w.message), std::move(w.where)});
  }
}

/// A method's weights or constants config, read_payload_config in two
/// steps: the entry is read from the archive on the calling thread (the
/// archive is not shared between threads), and parsed later, possibly on a
/// second thread. `config` holds the result (or the read's error).
struct PendingConfig {
  PendingConfig(serde::Archive& archive, const serde::Pt2Model& model, serde::PayloadFolder folder)
      : config(serde::PayloadConfig()) {
    entry =
        folder == serde::PayloadFolder::kWeights ? model.weights_config_entry : model.constants_config_entry;
    if (!entry) {  // the empty config naming the record expected (read_payload_config reads nothing then)
      config = serde::read_payload_config(archive, model, folder, kMaxConfigJson);
      return;
    }
    Result<std::string> read = serde::read_entry(archive, *entry, kMaxConfigJson);
    if (read.ok()) {
      text = std::move(read).value();
    } else {
      config = std::move(read).error();
    }
  }
  /// Parses the text read (nothing when there was none or the read failed).
  void parse() {
    if (!text) return;
    config = serde::parse_payload_config(*text, *entry);
    text.reset();
  }

  std::optional<std::string> entry;
  std::optional<std::string> text;
  Result<serde::PayloadConfig> config;
};

/// ExecuTorch's training metadata (emit_program's _get_training_metadata)
/// reads a TOKEN output as the first of the parameters weights_to_outputs
/// appends after the gradients, and asserts that a gradient came before it:
/// an imported program whose TOKEN output (an effect token) has no gradient
/// output before it cannot be emitted. UNSUPPORTED_FEATURE pointing at that
/// output spec of the program's entry; checked on import, before the passes
/// (which reorder the outputs).
Status refuse_effect_token_outputs(const ir::ExportedProgram& program, const serde::Pt2Model& model) {
  const auto& specs = program.signature().output_specs;
  for (size_t j = 0; j < specs.size(); ++j) {
    if (specs[j].kind == ir::OutputKind::GradientToParameter) return Status::Ok();
    if (specs[j].kind != ir::OutputKind::Token) continue;
    Location where;
    where.entry = model.program_entry;
    where.pointer = "/graph_module/signature/output_specs/" + std::to_string(j);
    return make_error(
        ErrorCode::UNSUPPORTED_FEATURE,
        "output spec " + std::to_string(j) + " (token " + ir::print_argument(specs[j].arg) +
            ") is an effect token before any gradient output: ExecuTorch's emitter reads a token "
            "output as the first weight of a training program (after its gradients) and refuses "
            "one that comes first, so a program that still returns effect tokens cannot be emitted",
        where);
  }
  return Status::Ok();
}

/// Imports one model and binds its weights and constants.
Status load_method(serde::Archive& archive, const serde::Pt2Model& model, Method& out,
                   passes::PassReport& report) {
  PTEFORGE_ASSIGN_OR_RETURN(std::string json, read_program_text(archive, model));
  // The payload configs (megabytes for a large model) are parsed during the
  // import, where the import finds time for them (ImportOptions::beside); a
  // config's error still comes after the program's, as if they were read one
  // after the other.
  const bool has_configs = model.weights_config_entry || model.constants_config_entry;
  std::optional<PendingConfig> weights, constants;
  serde::ImportOptions import_options;
  if (has_configs) {
    weights.emplace(archive, model, serde::PayloadFolder::kWeights);
    constants.emplace(archive, model, serde::PayloadFolder::kConstants);
    import_options.beside = [&weights, &constants] {
      weights->parse();
      constants->parse();
    };
  }
  // Parsed in place and freed inside; read again only if the fast path gives up.
  auto reread = [&archive, &model] { return read_program_text(archive, model); };
  auto imported = serde::import_exported_program(std::move(json), import_options, reread);
  if (!imported.ok()) {
    Error e = std::move(imported).error();
    if (!e.where.entry) e.where.entry = model.program_entry;
    return e;
  }
  report_warnings(std::move(imported->warnings), model, /*in_program=*/true, report.diagnostics);
  PTEFORGE_TRY(passes::refuse_lowered_program(imported->program, model));
  PTEFORGE_TRY(refuse_effect_token_outputs(imported->program, model));
  out.program = std::move(imported->program);
  out.model = &model;
  out.state.method = model.method;

  // A layout-C archive whose payloads are a pickled state dict
  // (data/weights/<model>.pt, torch-export-format.md §1.9): the weights are
  // there, in a form pteforge does not read; they are not missing.
  std::optional<std::string> pickled;
  const char* pickled_what = "weights";
  if (model.legacy_weights_entry && !model.weights_config_entry) {
    pickled = model.legacy_weights_entry;
  } else if (model.legacy_constants_entry && !model.constants_config_entry) {
    pickled = model.legacy_constants_entry;
    pickled_what = "constants";
  }
  if (pickled && has_state_inputs(out.program)) {
    return serde::legacy_error(std::string("the archive's ") + pickled_what + " are pickled in \"" +
                                   *pickled +
                                   "\" (as torch.export.save wrote them before it stored raw payloads), and "
                                   "pteforge does not read pickles",
                               *pickled);
  }
  if (!has_configs) {
    if (has_state_inputs(out.program)) {
      Location where;
      where.entry = model.program_entry;
      Error e = make_error(ErrorCode::WEIGHTS_MISSING,
                           "the program has parameters, buffers or tensor constants but the input carries no "
                           "weights for them (no payload configs)",
                           where);
      if (model.weights_prefix.empty()) {  // a lone program JSON
        e.notes.push_back("convert the .pt2 archive or its unpacked folder, not the program JSON alone");
      } else {
        e.notes.push_back("the archive has neither \"" +
                          serde::expected_config_entry(model, serde::PayloadFolder::kWeights) + "\" nor \"" +
                          serde::expected_config_entry(model, serde::PayloadFolder::kConstants) + "\"");
      }
      return e;
    }
    return Status::Ok();
  }
  PTEFORGE_TRY(weights->config);
  PTEFORGE_TRY(constants->config);
  // Unknown keys, located in their config.
  report_warnings(std::move(weights->config->warnings), model, false, report.diagnostics);
  report_warnings(std::move(constants->config->warnings), model, false, report.diagnostics);
  auto payload_size = [&archive, &model](const std::string& path_name, bool is_constant) -> std::optional<uint64_t> {
    auto entry = serde::resolve_payload(archive, model,
                                        is_constant ? serde::PayloadFolder::kConstants : serde::PayloadFolder::kWeights,
                                        path_name);
    if (!entry.ok()) return std::nullopt;
    return (*entry)->size;
  };
  auto state = serde::bind_state(out.program, weights->config.value(), constants->config.value(),
                                 payload_size, model.root_prefix());
  if (!state.ok()) return serde::explain_missing_entry(archive, std::move(state).error());
  out.program.state = std::move(state).value();
  report_warnings(serde::zero_filled_warnings(out.program.state, model.root_prefix()), model, false,
                  report.diagnostics);
  return Status::Ok();
}

/// The runtime only has kernels for out variants, prim ops and a few others
/// (copy_): a functional ATen op left after the passes means to_out_variant
/// did not run (a --passes list without it). Errors: UNSUPPORTED_OPERATOR
/// naming the node.
Status check_runtime_ops(const ir::ExportedProgram& ep) {
  for (const ir::Node& node : ep.graph()) {
    const ops::OpSchema* schema = passes::target_schema(node.target());
    if (schema == nullptr || schema->is_out_variant() || ops::op_table().kernels(*schema) != 0) continue;
    if (passes::is_symbolic_op(node.target())) {
      // Not a tensor op: no out variant would help (e.g. aten.sym_stride.int).
      return make_error(
          ErrorCode::UNSUPPORTED_OPERATOR,
          "operator " + schema->qualified_name() + (schema->overload.empty() ? "" : "." + schema->overload) +
              " computes a symbolic int, and no ExecuTorch kernel library runs it (its prim ops "
              "include sym_size.int and sym_numel)",
          ir::node_location(node));
    }
    return make_error(ErrorCode::UNSUPPORTED_OPERATOR,
                      "operator " + schema->qualified_name() + (schema->overload.empty() ? "" : "." + schema->overload) +
                          " is not an out variant and no ExecuTorch kernel library runs it; the to_out_variant pass "
                          "makes out variants (it is in the default pipeline: check --passes)",
                      ir::node_location(node));
  }
  return Status::Ok();
}

/// The constant methods of `options` (the map first, then each
/// --constant-method), checked before anything runs: OPTION_INVALID for a
/// bad value, a name given twice, or the name of one of the program's methods
/// (`layout`); a method from the map is pointed at (/constantMethods/<name>).
Result<std::vector<emit::ConstantMethod>> constant_methods(const ConvertOptions& options,
                                                           const serde::Pt2Layout& layout) {
  std::vector<emit::ConstantMethod> out;
  if (!options.constant_methods_json.empty()) {
    PTEFORGE_ASSIGN_OR_RETURN(out, emit::parse_constant_methods(options.constant_methods_json));
  }
  const size_t from_map = out.size();
  for (const auto& [name, json] : options.constant_methods) {
    PTEFORGE_ASSIGN_OR_RETURN(emit::ConstantMethod m, emit::parse_constant_method(name, json));
    out.push_back(std::move(m));
  }
  std::set<std::string> program_methods;
  for (const serde::Pt2Model& model : layout.models) program_methods.insert(model.method);
  std::set<std::string> seen;
  for (size_t i = 0; i < out.size(); ++i) {
    const std::string& name = out[i].name;
    const bool clash = program_methods.count(name) > 0;
    if (!clash && seen.insert(name).second) continue;
    Location where;
    where.method = name;
    if (i < from_map) where.pointer = "/constantMethods/" + serde::escape_pointer_token(name);
    return make_error(
        ErrorCode::OPTION_INVALID,
        "constant method '" + name + (clash ? "': a method of that name already exists" : "' is given twice"),
        where);
  }
  return out;
}

}  // namespace

emit::RangeReader archive_range_reader(serde::Archive& archive, const std::vector<SwapInput>& swaps) {
  // Label "swap:<fqn>" → the replacement's archive, layout (for its root
  // folder) and the note its errors get (their entry and byte offset are
  // inside the replacement, whose entries may have the main input's names).
  struct Replacement {
    serde::Archive* archive = nullptr;
    serde::Pt2Layout layout;
    std::string note;
  };
  std::map<std::string, Replacement, std::less<>> labelled;
  for (const SwapInput& s : swaps) {
    labelled[passes::swap_source_label(s.fqn)] = {
        s.archive, s.layout, "while reading " + passes::replacement_name(s.fqn, s.source)};
  }
  return [&archive, labelled = std::move(labelled)](const emit::InputRange& r, uint8_t* dst) -> Status {
    serde::Archive* from = &archive;
    std::string name = r.source;
    const std::string* note = nullptr;
    if (std::optional<emit::LabelledSource> part = emit::split_labelled_source(r.source)) {
      auto it = labelled.find(part->label);
      if (it != labelled.end() && it->second.archive != nullptr) {
        from = it->second.archive;
        name = it->second.layout.entry_name(std::string(part->entry));
        note = &it->second.note;
      }
    }
    auto failed = [note](Error e) {
      if (note) e.notes.push_back(*note);
      return e;
    };
    const serde::ArchiveEntry* entry = from->find(name);
    if (!entry) {
      Location where;
      where.entry = name;
      return failed(make_error(
          ErrorCode::ARCHIVE_ENTRY_MISSING,
          "the output references archive entry '" + name + "', which the archive does not have", where));
    }
    Result<std::string> bytes = from->read_range(*entry, r.offset, r.length);
    if (!bytes.ok()) return failed(std::move(bytes).error());
    if (bytes->size() != r.length) {
      Location where;
      where.entry = name;
      where.byte_offset = r.offset;
      return failed(make_error(ErrorCode::IO_ERROR, "short read of '" + name + "'", where));
    }
    if (r.length) std::memcpy(dst, bytes->data(), static_cast<size_t>(r.length));
    return Status::Ok();
  };
}

namespace {

/// The input ranges of the methods' constants that the emitter will
/// reference in place (emit::dense_constant_range), for hashing ahead.
std::vector<emit::InputRange> dense_payload_ranges(const std::vector<std::unique_ptr<Method>>& methods) {
  std::vector<emit::InputRange> ranges;
  for (const auto& m : methods) {
    const ir::StateBinding& state = m->program.state;
    auto source_of = [&m](const ir::PayloadStorage& s) {
      return emit::payload_source(s, m->model->weights_prefix, m->model->constants_prefix);
    };
    for (const ir::ConstantRef& c : state.tensors) {
      std::optional<emit::InputRange> r = emit::dense_constant_range(c, state, source_of);
      // Only the main input's payloads: the prefetch reads the main archive alone.
      if (r && !emit::split_labelled_source(r->source)) ranges.push_back(std::move(*r));
    }
  }
  return ranges;
}

/// Refuses big-endian payloads (the `byteorder` record says "big"): a .pte
/// holds little-endian data, and pteforge does not byte-swap tensors yet.
/// Errors: UNSUPPORTED_FEATURE (entry = the byteorder record).
Status refuse_big_endian(const serde::Pt2Layout& layout) {
  if (layout.byteorder != serde::ByteOrder::kBig) return Status::Ok();
  Location where;
  where.entry = layout.entry_name("byteorder");
  return make_error(ErrorCode::UNSUPPORTED_FEATURE,
                    "the archive's tensor data is big-endian (byteorder is \"big\"); a .pte stores little-endian "
                    "data and pteforge does not byte-swap tensors: export on a little-endian machine",
                    std::move(where));
}

/// True when the explicit pass list `list` does not name `pass`.
bool leaves_out(const std::vector<std::string>& list, std::string_view pass) {
  return std::find(list.begin(), list.end(), pass) == list.end();
}

/// An explicit pass list's names must be registered passes: UNKNOWN_PASS
/// (as PassManager::create gives it) before any other check of the list.
/// Options that configure a pass need that pass in an explicit pass list:
/// without it they would be ignored without a word. OPTION_INVALID naming
/// the option and the pass. A list without memory_planning adds a warning
/// to `diagnostics`: ExecuTorch's to_executorch always plans memory, and
/// without a plan the runtime has no memory for the intermediate tensors.
Status check_configured_passes(const ConvertOptions& options, std::vector<passes::Diagnostic>& diagnostics) {
  const std::vector<std::string>& list = options.pipeline.passes;
  if (list.empty()) return Status::Ok();  // the default pipeline runs them all
  // An unknown name is the one error to report (the checks below would read
  // a list that is not what the user meant).
  for (const std::string& name : list) {
    if (!passes::find_pass(name)) PTEFORGE_TRY(passes::create_pass(name));
  }
  auto missing = [&list](std::string_view pass) { return leaves_out(list, pass); };
  auto refuse = [](const std::string& what, std::string_view pass) {
    return make_error(ErrorCode::OPTION_INVALID,
                      what + " the pass " + std::string(pass) +
                          ", which the pass list leaves out (add it, or leave the pass "
                          "list out for the default pipeline)");
  };
  // The swap steps run on their own read the swaps too, but only all of them
  // make a program the later passes can lower: outline_modules alone leaves
  // call_module nodes, replace_modules without inline_modules leaves them too.
  if (!options.swaps.empty() && missing("swap_modules")) {
    const auto first_step = std::find_if(std::begin(passes::kSwapModuleSteps), std::end(passes::kSwapModuleSteps),
                                         [&](std::string_view step) { return !missing(step); });
    if (first_step == std::end(passes::kSwapModuleSteps)) return refuse("module swaps need", "swap_modules");
    for (std::string_view step : passes::kSwapModuleSteps) {
      if (missing(step)) {
        return refuse("module swaps done step by step (the list has " + std::string(*first_step) + ") need", step);
      }
    }
  }
  if (!options.pipeline.preserve_ops.empty() && missing("decompose")) {
    return refuse("preserved ops need", "decompose");
  }
  if (options.pipeline.memory_planning != "greedy" && missing("memory_planning")) {
    return refuse("the memory planning algorithm '" + options.pipeline.memory_planning + "' needs",
                  "memory_planning");
  }
  if (missing("memory_planning")) {
    diagnostics.push_back(passes::Diagnostic{
        "warning",
        "the pass list leaves out memory_planning: the .pte has no memory plan, so ExecuTorch's runtime "
        "cannot run a method that makes intermediate tensors",
        {}});
  }
  return Status::Ok();
}

/// True when a tensor of `graph` (an input or a node's result) has a symbolic size.
bool has_symbolic_tensor(const ir::Graph& graph) {
  bool found = false;
  auto check = [&graph, &found](const std::string& name) {
    if (found) return;
    if (const ir::TensorMeta* meta = graph.tensor_meta(name)) found = !meta->concrete_sizes();
  };
  for (const ir::Argument& in : graph.inputs()) passes::for_each_tensor_name(in, check);
  for (const ir::Node& node : graph) {
    if (found) break;
    for (const ir::Argument& out : node.outputs()) passes::for_each_tensor_name(out, check);
  }
  return found;
}

/// A warning when init_buffers (--init-buffers) is set but no method mutates
/// a buffer: only mutable buffers have an initial state to store (ExecuTorch's
/// et_init_buffer), so the option changes nothing.
void warn_init_buffers_unused(const ConvertOptions& options,
                              const std::vector<std::unique_ptr<Method>>& methods,
                              std::vector<passes::Diagnostic>& diagnostics) {
  if (!options.init_buffers) return;
  for (const auto& m : methods) {
    if (m->program.signature().count(ir::OutputKind::BufferMutation) > 0) return;
  }
  diagnostics.push_back(passes::Diagnostic{
      "warning",
      "init_buffers: no method mutates a buffer (no buffer_mutation output), so there is no initial buffer "
      "state to store; the option changes nothing",
      Location{}});
}

/// Warnings for an explicit pass list that leaves out a pass this method
/// needs to run as ExecuTorch's to_executorch would make it (the list itself
/// is checked by check_configured_passes): insert_write_back_for_buffers
/// when the method mutates buffers or user inputs (the emitter drops mutation
/// outputs, so without the copies the updates are lost), sym_shape_eval when
/// a tensor has symbolic sizes (it would be planned at its trace-time sizes).
/// The method is the one imported, before any --swap replacement is spliced in.
void warn_left_out_passes(const ConvertOptions& options, const Method& m,
                          std::vector<passes::Diagnostic>& diagnostics) {
  const std::vector<std::string>& list = options.pipeline.passes;
  if (list.empty()) return;
  auto missing = [&list](std::string_view pass) { return leaves_out(list, pass); };
  Location where;
  where.method = m.model->method;
  if (missing("insert_write_back_for_buffers")) {
    std::string mutated;
    size_t count = 0;
    for (const ir::OutputSpec& o : m.program.signature().output_specs) {
      if (o.kind != ir::OutputKind::BufferMutation && o.kind != ir::OutputKind::UserInputMutation) continue;
      if (count++ < 3) mutated += (mutated.empty() ? "" : ", ") + single_quoted(o.target);
    }
    if (count > 3) mutated += ", ... (" + std::to_string(count) + " in all)";
    if (count) {
      diagnostics.push_back(passes::Diagnostic{
          "warning",
          "the pass list leaves out insert_write_back_for_buffers: the method's updates of " + mutated +
              " are not written back (the .pte keeps no mutation outputs), so they are lost after each call",
          where});
    }
  }
  if (missing("sym_shape_eval") && has_symbolic_tensor(m.program.graph())) {
    diagnostics.push_back(passes::Diagnostic{
        "warning",
        "the pass list leaves out sym_shape_eval: tensors with symbolic sizes are planned "
        "at their trace-time sizes, so inputs larger than the example inputs overflow their "
        "memory",
        where});
  }
}

/// The pipeline options with the swaps' replacements loaded (bound to their
/// archives' payloads, labelled swap:<fqn>) and brought into the pipeline's
/// dialect. The replacements' import warnings (and zero-filled payloads) go
/// to `diagnostics`, each saying which replacement it is about. Errors:
/// OPTION_INVALID for a bad or repeated module path or a missing archive;
/// load_program's and prepare_replacement's, with a note naming the replacement.
Result<passes::PipelineOptions> with_swaps(const ConvertOptions& options,
                                           std::vector<passes::Diagnostic>& diagnostics) {
  passes::PipelineOptions pipeline = options.pipeline;
  std::set<std::string> seen;
  for (const SwapInput& s : options.swaps) {
    PTEFORGE_TRY(passes::check_module_path(s.fqn));
    PTEFORGE_TRY(refuse_big_endian(s.layout));
    if (!seen.insert(s.fqn).second || s.archive == nullptr) {
      return make_error(ErrorCode::OPTION_INVALID, s.archive == nullptr
                                                       ? "the swap of module '" + s.fqn + "' has no input"
                                                       : "module '" + s.fqn + "' is swapped twice");
    }
    // Its errors' entries and pointers are inside the replacement: the note says which one.
    const std::string which = passes::replacement_name(s.fqn, s.source);
    std::vector<serde::ImportWarning> warnings;
    auto replacement = passes::load_program(*s.archive, s.layout, s.method, passes::swap_source_label(s.fqn),
                                            /*bind_weights=*/true, &warnings);
    for (serde::ImportWarning& w : warnings) {
      diagnostics.push_back(
          passes::Diagnostic{"warning", std::move(w.message) + " (in " + which + ")", std::move(w.where)});
    }
    if (!replacement.ok()) {
      Error e = std::move(replacement).error();
      e.notes.push_back("while loading " + which);
      return e;
    }
    Status prepared = passes::prepare_replacement(*replacement, options.pipeline);
    // A higher-order op would fail in the emitter, at a node no longer
    // traceable to the replacement: refuse it here, where the note names it.
    for (const ir::Node& node : replacement->graph()) {
      if (prepared.ok() && node.target().is_higher_order()) prepared = passes::higher_order_error(node);
    }
    if (!prepared.ok()) {
      Error e = std::move(prepared).error();
      // Located in the replacement as its load's errors are: a pointer (a
      // node's origin) points into its program JSON.
      if (const serde::Pt2Model* model = passes::pick_model(s.layout, s.method)) {
        if (e.where.pointer && !e.where.entry) e.where.entry = model->program_entry;
        if (!e.where.method) e.where.method = model->method;
      }
      e.notes.push_back("while preparing " + which);
      return e;
    }
    pipeline.swaps.emplace_back(s.fqn, std::make_shared<const ir::ExportedProgram>(std::move(*replacement)));
    pipeline.swaps.back().source = s.source;
  }
  return pipeline;
}

/// A swap of several methods' program (`package_pt2`) names a module, not
/// a method: it applies to the methods whose program has that module, so
/// one without it (a `reset` beside `forward`) is left as it is. A swap no
/// method knows stays as given, and each method reports the unknown module.
/// Returns true when some swap was narrowed to a list of methods.
bool scope_swaps_to_methods(passes::PipelineOptions& pipeline,
                            const std::vector<std::unique_ptr<Method>>& methods) {
  if (methods.size() < 2) return false;
  bool changed = false;
  std::vector<passes::SwapRequest> scoped;
  for (passes::SwapRequest& s : pipeline.swaps) {
    if (!s.method.empty()) {
      scoped.push_back(std::move(s));
      continue;
    }
    std::vector<std::string> with_module;
    for (const auto& m : methods) {
      if (passes::module_swap::module_known(m->program, s.fqn)) with_module.push_back(m->model->method);
    }
    if (with_module.empty() || with_module.size() == methods.size()) {
      scoped.push_back(std::move(s));
      continue;
    }
    changed = true;
    for (std::string& method : with_module) {
      scoped.emplace_back(s.fqn, s.replacement, std::move(method));
      scoped.back().source = s.source;
    }
  }
  pipeline.swaps = std::move(scoped);
  return changed;
}

/// convert() with the report it fills as it goes (its warnings are needed when it fails).
Result<ConvertResult> convert_reporting(serde::Archive& archive, const serde::Pt2Layout& layout,
                                        const ConvertOptions& options, passes::PassReport& report) {
  if (layout.models.empty()) {
    return make_error(ErrorCode::ARCHIVE_ENTRY_MISSING, "the input holds no exported program");
  }
  PTEFORGE_TRY(refuse_big_endian(layout));
  PTEFORGE_ASSIGN_OR_RETURN(std::vector<emit::ConstantMethod> getters, constant_methods(options, layout));
  PTEFORGE_TRY(check_configured_passes(options, report.diagnostics));
  PTEFORGE_ASSIGN_OR_RETURN(passes::PipelineOptions pipeline, with_swaps(options, report.diagnostics));
  PTEFORGE_ASSIGN_OR_RETURN(passes::PassManager pm, passes::PassManager::create(pipeline));
  ConvertTimings timings;
  auto t0 = std::chrono::steady_clock::now();

  // Methods are kept behind pointers: MethodState and the specs refer to
  // their program's state binding, which must not move.
  auto progress = [&options](std::string_view stage, uint64_t done, uint64_t total) {
    if (options.on_progress) options.on_progress(stage, done, total);
  };
  const uint64_t count = layout.models.size();
  std::vector<std::unique_ptr<Method>> methods;
  progress("import", 0, count);
  for (const serde::Pt2Model& model : layout.models) {
    auto m = std::make_unique<Method>();
    Status st = load_method(archive, model, *m, report);
    if (!st.ok()) return in_method(std::move(st).error(), model.method);
    warn_left_out_passes(options, *m, report.diagnostics);
    methods.push_back(std::move(m));
    progress("import", methods.size(), count);
  }
  warn_init_buffers_unused(options, methods, report.diagnostics);
  if (scope_swaps_to_methods(pipeline, methods)) {
    PTEFORGE_ASSIGN_OR_RETURN(pm, passes::PassManager::create(pipeline));
  }
  timings.import_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  // The weights are hashed for the constant pool while the passes run: they
  // never read the archive, and the emitter waits for the hashes.
  std::unique_ptr<emit::HashPrefetch> prefetch;
  if (options.prefetch_hashes && emit::HashPrefetch::kAvailable)
    prefetch = std::make_unique<emit::HashPrefetch>(dense_payload_ranges(methods),
                                                    archive_range_reader(archive, {}));
  progress("passes", 0, count);
  for (size_t i = 0; i < methods.size(); ++i) {
    Method& m = *methods[i];
    Status st = pm.run(m.program, m.state, report);
    if (st.ok()) st = check_runtime_ops(m.program);
    if (!st.ok()) return in_program(std::move(st).error(), *m.model);
    progress("passes", i + 1, count);
  }
  timings.passes_ms = ms_since(t0);
  std::string programs_json;
  if (options.export_programs) {
    std::map<std::string, const ir::ExportedProgram*> sorted;
    for (auto& m : methods) sorted.emplace(m->model->method, &m->program);
    programs_json = "{";
    for (const auto& [name, program] : sorted) {
      if (programs_json.size() > 1) programs_json += ", ";
      programs_json += serde::python_json_string(name) + ": " + serde::write_exported_program(*program);
    }
    programs_json += "}";
  }
  t0 = std::chrono::steady_clock::now();

  // In archive order: the program's methods are emitted in name order, but
  // the training metadata getters follow the order of the input's methods.
  std::vector<const Method*> in_archive_order;
  for (const auto& m : methods) in_archive_order.push_back(m.get());
  std::stable_sort(in_archive_order.begin(), in_archive_order.end(), [](const Method* a, const Method* b) {
    return a->model->archive_order < b->model->archive_order;
  });
  std::vector<emit::MethodInput> inputs;
  std::map<std::string, const passes::MethodState*> states;
  for (const Method* m : in_archive_order) {
    emit::MethodInput in;
    in.name = m->model->method;
    in.program = &m->program;
    in.state = &m->state;
    in.weights_prefix = m->model->weights_prefix;
    in.constants_prefix = m->model->constants_prefix;
    inputs.push_back(std::move(in));
    states.emplace(m->model->method, &m->state);
  }
  progress("emit", 0, 1);
  emit::EmitProgramOptions emit_options;
  emit_options.emit.emit_stacktrace = options.emit_stacktrace;
  emit_options.emit.init_buffers = options.init_buffers;
  emit_options.constant_methods = std::move(getters);
  if (prefetch) emit_options.known_hashes = &prefetch->wait();
  Result<emit::EmitterOutput> emit_result =
      emit::emit_program(inputs, emit_options, archive_range_reader(archive, options.swaps));
  if (!emit_result.ok()) {
    Error e = std::move(emit_result).error();
    for (const auto& m : methods) {
      if (e.where.method == m->model->method) return in_program(std::move(e), *m->model);
    }
    return e;
  }
  emit::EmitterOutput emitted = std::move(emit_result).value();
  timings.emit_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();

  progress("emit", 1, 1);
  progress("serialize", 0, 1);
  ConvertResult result;
  // The report is complete: the metadata embeds the same text.
  result.report_json = report.to_json(options.report_times);
  {
    // The metadata (all but the file layout) is written on a second thread
    // while the program serializes; the draft never reads emitted.program.
    const std::vector<emit::PlanFacts> facts = emit::plan_facts(emitted.program, emitted.debug);
    emit::MetadataDraft draft;
    BackgroundJob write_draft(
        [&] { draft = emit::draft_metadata_json(facts, emitted, states, &result.report_json); });
    // The program moves into the serializer (PteOutput::program is it, as written).
    Result<emit::PteOutput> pte =
        emit::serialize_program(std::move(emitted.program), emitted.data, options.serialize);
    write_draft.wait();
    if (!pte.ok()) return std::move(pte).error();
    result.pte = std::move(pte).value();
    result.metadata_json = emit::finish_metadata_json(std::move(draft), result.pte);
  }
  result.diagnostics = std::move(report.diagnostics);
  timings.serialize_ms = ms_since(t0);
  progress("serialize", 1, 1);
  result.programs_json = std::move(programs_json);
  result.timings = timings;
  // The IR, the specs, the emitter's tables and the weight hashes go with
  // the result instead of being freed here (ConvertResult::working_state).
  result.working_state = std::make_shared<WorkingState>(
      WorkingState{std::move(methods), std::move(emitted), std::move(prefetch)});
  return result;
}

}  // namespace

Result<ConvertResult> convert(serde::Archive& archive, const serde::Pt2Layout& layout,
                              const ConvertOptions& options) {
  passes::PassReport report;
  Result<ConvertResult> result = convert_reporting(archive, layout, options, report);
  if (!result.ok()) {
    Error e = std::move(result).error();
    add_earlier_warning_notes(e, report.diagnostics);
    return e;
  }
  return result;
}

Result<ConvertResult> convert_bytes(std::string bytes, const ConvertOptions& options) {
  if (bytes.empty()) return make_error(ErrorCode::INPUT_EMPTY, "the input is empty (0 bytes)");
  std::unique_ptr<serde::Archive> archive;
  serde::Pt2Layout layout;
  if (serde::looks_like_zip(bytes)) {
    PTEFORGE_ASSIGN_OR_RETURN(auto zip, serde::ZipArchive::open(std::make_unique<serde::MemoryByteSource>(std::move(bytes))));
    archive = std::move(zip);
    PTEFORGE_ASSIGN_OR_RETURN(layout, serde::detect_pt2_layout(*archive));
  } else {
    std::vector<std::pair<std::string, std::string>> files;
    files.emplace_back("model.json", std::move(bytes));
    PTEFORGE_ASSIGN_OR_RETURN(auto mem, serde::MemoryArchive::create(std::move(files)));
    archive = std::move(mem);
    layout = serde::program_json_layout("model.json");
  }
  PTEFORGE_ASSIGN_OR_RETURN(ConvertResult result, convert(*archive, layout, options));
  // The archive dies with this call: resolve the input ranges into bytes.
  emit::RangeReader reader = archive_range_reader(*archive, options.swaps);
  for (emit::Chunk& c : result.pte.chunks) {
    if (c.is_bytes()) continue;
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<uint8_t> owned, emit::flatten_chunks({c}, reader));
    c = emit::Chunk::from_bytes(std::move(owned));
  }
  return result;
}

Result<std::string> inspect(serde::Archive& archive, const serde::Pt2Layout& layout, bool json) {
  ir::Program program;
  std::vector<std::pair<std::string, std::vector<serde::ImportWarning>>> warnings;
  for (const serde::Pt2Model& model : layout.models) {
    auto text = read_program_text(archive, model);
    if (!text.ok()) return in_method(std::move(text).error(), model.method);
    auto reread = [&archive, &model] { return read_program_text(archive, model); };
    auto imported = serde::import_exported_program(std::move(*text), {}, reread);
    if (!imported.ok()) {
      Error e = std::move(imported).error();
      if (!e.where.entry) e.where.entry = model.program_entry;
      return in_method(std::move(e), model.method);
    }
    if (layout.byteorder == serde::ByteOrder::kBig) {  // convert refuses it (refuse_big_endian)
      serde::ImportWarning w;
      w.message =
          "the archive's tensor data is big-endian (byteorder is \"big\"): convert refuses it, since a .pte "
          "stores little-endian data";
      w.where.entry = layout.entry_name("byteorder");
      imported->warnings.push_back(std::move(w));
    }
    warnings.emplace_back(model.method, std::move(imported->warnings));
    program.methods.emplace(model.method, std::move(imported->program));
  }
  serde::ProgramSummary summary = serde::summarize_program(program, warnings);
  return json ? serde::summary_to_json(summary) : serde::summary_to_text(summary);
}

Result<std::string> decode_pte(std::string_view bytes, bool flatc) {
  emit::DecodeOptions options;
  options.json_style = flatc ? emit::PteJsonStyle::Flatc : emit::PteJsonStyle::Readable;
  return emit::decode_pte_json(bytes, options);
}

std::string list_passes_json() {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartArray();
  for (const passes::RegisteredPass& p : passes::registered_passes()) {
    w.StartObject();
    w.Key("name");
    w.String(p.name.data(), static_cast<rapidjson::SizeType>(p.name.size()));
    w.Key("summary");
    w.String(p.summary.data(), static_cast<rapidjson::SizeType>(p.summary.size()));
    w.Key("group");
    w.String(p.group.data(), static_cast<rapidjson::SizeType>(p.group.size()));
    w.Key("implemented");
    w.Bool(p.factory != nullptr);
    w.Key("default");
    w.Bool(p.in_default_pipeline);
    w.EndObject();
  }
  w.EndArray();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace pteforge
