// Module swap: the core API the front doors use (CLI `convert --swap`,
// `inspect --modules`, and later the WASM bindings). Portable: no
// filesystem, no exceptions; inputs come as an Archive or as bytes.
//
//   // CLI: pteforge convert model.pt2 --swap encoder.layer.1=replacement.pt2 -o out.pte
//   auto opt = passes::parse_swap_option("encoder.layer.1=replacement.pt2");   // {fqn, path}
//   auto in = serde::open_input(opt->path);                                    // native front door
//   auto rep = passes::load_program(*in->archive, in->layout, "", passes::swap_source_label(opt->fqn));
//   PTEFORGE_TRY(passes::prepare_replacement(*rep, options));
//   options.swaps.push_back({opt->fqn, std::make_shared<const ir::ExportedProgram>(std::move(*rep))});
//   // ... the default pipeline then runs swap_modules with options.swaps.
//
// Weights of a replacement are referenced, not copied: every PayloadStorage
// of its StateBinding carries `source` = the label given to load_program,
// and survives the swap with it; whoever reads payload bytes (the emitter's
// caller) maps the label back to the replacement's archive.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/exported_program.h"
#include "passes/pass_manager.h"
#include "passes/pipeline_options.h"
#include "serde/archive.h"
#include "serde/import_exported_program.h"
#include "serde/pt2_layout.h"
#include "support/error.h"

namespace pteforge::passes {

/// One module of a program's module tree (for `inspect --modules` and the web page).
struct ModuleInfo {
  std::string fqn;    ///< "" for the root
  std::string type;   ///< class from nn_module_stack ("" when unknown)
  size_t depth = 0;   ///< 0 for the root, 1 for its children, ...
  size_t nodes = 0;   ///< top-level graph nodes inside the module (inclusive)
  size_t calls = 0;   ///< how often the module is called (module_call_count)
  bool preserved = false;  ///< has a call signature in module_call_graph
  bool swappable = false;  ///< outline_modules succeeds for it alone
  std::string reason;      ///< why it is not swappable ("" when it is)
  std::string in_spec;     ///< describe_treespec of the signature's in_spec (preserved only)
  std::string out_spec;
  std::vector<std::string> inputs;   ///< each flat input: "float32[4, 8]", "SymInt", "None", a literal
  std::vector<std::string> outputs;  ///< each flat output
};

/// The module tree: module_call_graph entries in their order (named_modules
/// order), then paths only seen in nn_module_stack. Swappability is decided
/// by outlining the module on a copy of the program. Never fails.
std::vector<ModuleInfo> list_modules(const ir::ExportedProgram& ep);
/// Text table, one module per line, indented by depth, the path, type and
/// node-count columns aligned as in `inspect`'s module section, e.g.
///   "  encoder.layer.1  __main__.MLPLayer  3 nodes  preserved  swappable  in=(float32[4]) out=(float32[4])"
std::string modules_to_text(const std::vector<ModuleInfo>& modules);
/// JSON array of objects {fqn, type, depth, nodes, calls, preserved, swappable,
/// reason, in_spec, out_spec, inputs, outputs} (fixed key order).
std::string modules_to_json(const std::vector<ModuleInfo>& modules);
/// The module trees of several methods as one JSON object {"METHOD":
/// [modules_to_json's objects], ...} in the given order, indented by 2
/// spaces with a trailing newline (as `inspect --modules --json` prints it).
std::string method_modules_to_json(
    const std::vector<std::pair<std::string, std::vector<ModuleInfo>>>& methods);

/// Outlines `fqns` (outline_modules, then remove_pytree_pairs), e.g. to show
/// module calls. `ep` is unchanged when it fails. Errors as outline_modules.
Status outline(ir::ExportedProgram& ep, const std::vector<std::string>& fqns, PassReport* report = nullptr);

/// Runs swap_modules with `swaps` (verifying after every sub-pass). `ep` is
/// unchanged when it fails. Errors as swap_modules.
Status swap(ir::ExportedProgram& ep, const std::vector<SwapRequest>& swaps, PassReport* report = nullptr);

/// The source label load_program should give a replacement for `fqn`: "swap:<fqn>".
std::string swap_source_label(std::string_view fqn);
/// How messages name a replacement: "the replacement for module 'FQN' (SOURCE)",
/// without " (SOURCE)" when `source` is empty (notes: "while loading " + this).
std::string replacement_name(std::string_view fqn, std::string_view source);

/// The model load_program reads for `method` ("" picks the only method, else
/// "forward"), or nullptr when the layout has no such method.
const serde::Pt2Model* pick_model(const serde::Pt2Layout& layout, const std::string& method);

/// INPUT_SCHEMA for a program already lowered for ExecuTorch (its verifiers
/// name the edge dialect: what `convert --export-program` and ExecuTorch's
/// to_edge write). Its out variants, memory.alloc nodes and appended weight
/// outputs are what the passes make, and would be lowered a second time;
/// `inspect` reads such a program. Points at the program's "/verifiers".
Status refuse_lowered_program(const ir::ExportedProgram& program, const serde::Pt2Model& model);

/// Imports method `method` of an archive (a .pt2 zip, an unpacked folder, or
/// a one-entry archive holding a program JSON) and binds its state to the
/// archive's payloads (serde::bind_state); every storage gets `source`.
/// `method` "" picks the only method. Errors: those of detect_pt2_layout,
/// import_exported_program, parse_payload_config and bind_state (with
/// where.entry / where.method); OPTION_INVALID when the method does not exist.
Result<ir::ExportedProgram> load_program(serde::Archive& archive, const std::string& method, const std::string& source);
/// Same, with the layout already detected (e.g. serde::OpenedInput from open_input).
/// With `bind_weights` false the state is left unbound (no payload config is
/// read): enough for the graph and its modules (list_modules), not to convert.
/// `warnings`, when given, receives the warnings of the import, of the
/// payload configs (unknown keys) and of serde::zero_filled_warnings, with
/// where.method set (the caller reports them). With `bind_weights`, a
/// lowered program is refused first (refuse_lowered_program).
Result<ir::ExportedProgram> load_program(serde::Archive& archive, const serde::Pt2Layout& layout,
                                         const std::string& method, const std::string& source,
                                         bool bind_weights = true,
                                         std::vector<serde::ImportWarning>* warnings = nullptr);

/// load_program over bytes: a .pt2 (zip, sniffed by its "PK" signature) or
/// a program JSON (which then must have no parameters, buffers or constants:
/// WEIGHTS_MISSING otherwise). For the WASM front door ("swap from bytes").
Result<ir::ExportedProgram> load_program_bytes(std::string bytes, const std::string& method, const std::string& source);

/// Runs, on a replacement, the passes that precede swap_modules in the
/// pipeline `options` describes (options.passes, or the default pipeline),
/// so that it is in the same dialect as the program it goes into (e.g.
/// decomposed). Passes not implemented yet are skipped. Errors of those passes.
Status prepare_replacement(ir::ExportedProgram& replacement, const PipelineOptions& options);

/// Loads a replacement from bytes (load_program_bytes with
/// swap_source_label(fqn)), prepares it and swaps it into `ep`.
Status swap_from_bytes(ir::ExportedProgram& ep, const std::string& fqn, std::string bytes,
                       const PipelineOptions& options, PassReport* report = nullptr);

/// A parsed `--swap FQN=PATH` option.
struct SwapOption {
  std::string fqn;
  std::string path;
};
/// Checks that `fqn` is a dotted module path as nn_module_stack writes them:
/// module names separated by single dots, none empty, no control characters
/// (torch's add_module allows any name without a '.', e.g. "blk-1").
/// OPTION_INVALID (pointer /swaps) otherwise.
Status check_module_path(std::string_view fqn);
/// Parses "FQN=PATH" (split at the first '='). OPTION_INVALID when there is
/// no '=', the FQN or the path is empty, or the FQN is not a module path
/// (check_module_path).
Result<SwapOption> parse_swap_option(std::string_view text);
/// Parses several options; OPTION_INVALID when a module is named twice.
Result<std::vector<SwapOption>> parse_swap_options(const std::vector<std::string>& texts);

}  // namespace pteforge::passes
