// Module swap API (see module_swap_api.h).
#include "passes/module_swap_api.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

#include "ir/printer.h"
#include "passes/module_swap/outline.h"
#include "passes/module_swap/partition.h"
#include "passes/module_swap/pytree_ir.h"
#include "passes/module_swap/replace.h"
#include "passes/pass_registry.h"
#include "serde/archive_zip.h"
#include "serde/import_exported_program.h"
#include "serde/payload_config.h"
#include "serde/state_binding.h"
#include "support/text_table.h"

namespace pteforge::passes {
namespace {

constexpr uint64_t kMaxConfigBytes = uint64_t{256} << 20;     // 256 MiB

std::string value_text(const ir::Graph& g, const ir::Argument& a) {
  const std::string* n = a.value_name();
  if (!n) return ir::print_argument(a);
  const ir::Value* v = g.find_value(*n);
  if (!v || !v->defined()) return "None";
  if (const ir::TensorMeta* m = v->tensor_meta()) return ir::format_tensor_type(*m);
  return std::string(ir::value_kind_name(v->kind));
}

size_t depth_of(const std::string& fqn) {
  return fqn.empty() ? 0 : static_cast<size_t>(std::count(fqn.begin(), fqn.end(), '.')) + 1;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
  return out;
}

Status run_on_copy(ir::ExportedProgram& ep, const PipelineOptions& options, PassReport* report) {
  PTEFORGE_ASSIGN_OR_RETURN(PassManager pm, PassManager::create(options));
  ir::ExportedProgram work = ep;
  MethodState state;
  state.method = "forward";
  PassReport local;
  Status st = pm.run(work, state, report ? *report : local);
  if (!st.ok()) return st;
  ep = std::move(work);
  return Status::Ok();
}

}  // namespace

std::vector<ModuleInfo> list_modules(const ir::ExportedProgram& ep) {
  std::vector<ModuleInfo> out;
  auto find = [&out](const std::string& fqn) -> ModuleInfo* {
    for (auto& m : out) {
      if (m.fqn == fqn) return &m;
    }
    return nullptr;
  };
  auto add = [&](const std::string& fqn) {
    if (find(fqn)) return;
    ModuleInfo m;
    m.fqn = fqn;
    m.depth = depth_of(fqn);
    out.push_back(std::move(m));
  };
  add("");
  for (const auto& e : ep.graph_module.module_call_graph) {
    if (e.fqn.find('@') == std::string::npos) add(e.fqn);
  }
  for (const ir::Node& n : ep.graph()) {
    const auto& st = n.metadata().nn_module_stack;
    if (!st) continue;
    for (const auto& f : *st) {
      add(f.path);
      ModuleInfo* m = find(f.path);
      if (m->type.empty()) m->type = f.type;
    }
  }
  const ir::Graph& g = ep.graph();
  for (ModuleInfo& m : out) {
    if (m.fqn.empty()) {
      m.nodes = g.num_nodes();
      m.calls = 1;
      m.reason = "the root module is the program itself";
      continue;
    }
    for (const ir::Node& n : g) m.nodes += module_swap::node_in_module(n, m.fqn) ? 1 : 0;
    m.calls = module_swap::module_call_count(ep, m.fqn);
    const ir::ModuleCallSignature* sig = module_swap::find_call_signature(ep, m.fqn);
    m.preserved = sig != nullptr;
    if (sig) {
      m.in_spec = module_swap::describe_treespec(sig->in_spec.root);
      m.out_spec = module_swap::describe_treespec(sig->out_spec.root);
      for (const auto& a : sig->inputs) m.inputs.push_back(value_text(g, a));
      for (const auto& a : sig->outputs) m.outputs.push_back(value_text(g, a));
    }
    ir::ExportedProgram copy = ep;
    auto outlined = module_swap::outline_modules(copy, {m.fqn});
    Status st = outlined.ok() ? Status::Ok() : Status(std::move(outlined).error());
    // What replace_modules refuses whatever the replacement (pass-through outputs).
    for (ir::Node* call : module_swap::call_module_nodes(copy.graph())) {
      if (st.ok() && module_swap::call_module_fqn(*call) == m.fqn)
        st = module_swap::check_outputs_computed(*call);
    }
    m.swappable = st.ok();
    if (!st.ok()) m.reason = st.error().message;
  }
  return out;
}

std::string modules_to_text(const std::vector<ModuleInfo>& modules) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : modules) {
    std::vector<std::string> row = {
        std::string(2 * m.depth, ' ') + (m.fqn.empty() ? std::string("(root)") : m.fqn), m.type,
        std::to_string(m.nodes) + (m.nodes == 1 ? " node" : " nodes")};
    std::string tail;
    if (m.calls > 1) tail += "  calls=" + std::to_string(m.calls);
    if (m.preserved) {
      tail += "  preserved";
      tail += m.swappable ? "  swappable" : "  not swappable: " + m.reason;
      tail += "  in=(" + join(m.inputs) + ") out=(" + join(m.outputs) + ")";
    }
    if (!tail.empty()) row.push_back(tail.substr(2));
    rows.push_back(std::move(row));
  }
  return text_table(rows, "");
}

namespace {

/// modules_to_json's array, written by any RapidJSON writer.
template <typename Writer>
void write_modules(Writer& w, const std::vector<ModuleInfo>& modules) {
  auto strings = [&w](const std::vector<std::string>& v) {
    w.StartArray();
    for (const auto& s : v) w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
    w.EndArray();
  };
  auto str = [&w](const char* key, const std::string& v) {
    w.Key(key);
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
  };
  w.StartArray();
  for (const auto& m : modules) {
    w.StartObject();
    str("fqn", m.fqn);
    str("type", m.type);
    w.Key("depth");
    w.Uint64(m.depth);
    w.Key("nodes");
    w.Uint64(m.nodes);
    w.Key("calls");
    w.Uint64(m.calls);
    w.Key("preserved");
    w.Bool(m.preserved);
    w.Key("swappable");
    w.Bool(m.swappable);
    str("reason", m.reason);
    str("in_spec", m.in_spec);
    str("out_spec", m.out_spec);
    w.Key("inputs");
    strings(m.inputs);
    w.Key("outputs");
    strings(m.outputs);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string modules_to_json(const std::vector<ModuleInfo>& modules) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  write_modules(w, modules);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string method_modules_to_json(
    const std::vector<std::pair<std::string, std::vector<ModuleInfo>>>& methods) {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
  w.SetIndent(' ', 2);
  w.StartObject();
  for (const auto& [method, modules] : methods) {
    w.Key(method.c_str(), static_cast<rapidjson::SizeType>(method.size()));
    write_modules(w, modules);
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

Status outline(ir::ExportedProgram& ep, const std::vector<std::string>& fqns, PassReport* report) {
  PipelineOptions options;
  options.passes = {"outline_modules", "remove_pytree_pairs"};
  options.outline_modules = fqns;
  options.verify_each = true;
  return run_on_copy(ep, options, report);
}

Status swap(ir::ExportedProgram& ep, const std::vector<SwapRequest>& swaps, PassReport* report) {
  PipelineOptions options;
  options.passes = {"swap_modules"};
  options.swaps = swaps;
  options.verify_each = true;
  return run_on_copy(ep, options, report);
}

std::string swap_source_label(std::string_view fqn) { return "swap:" + std::string(fqn); }

std::string replacement_name(std::string_view fqn, std::string_view source) {
  std::string out = "the replacement for module " + single_quoted(fqn);
  if (!source.empty()) out += " (" + std::string(source) + ")";
  return out;
}

const serde::Pt2Model* pick_model(const serde::Pt2Layout& layout, const std::string& method) {
  if (method.empty() && layout.models.size() == 1) return &layout.models.front();
  return layout.find_method(method.empty() ? std::string("forward") : method);
}

Status refuse_lowered_program(const ir::ExportedProgram& program, const serde::Pt2Model& model) {
  if (!program.is_edge_dialect()) return Status::Ok();
  Location where;
  where.entry = model.program_entry;
  where.pointer = "/verifiers";
  Error e = make_error(
      ErrorCode::INPUT_SCHEMA,
      "the program is in ExecuTorch's edge dialect (verifiers [\"" + std::string(ir::kEdgeDialect) +
          "\"]): it was lowered already, as `convert --export-program` and ExecuTorch's to_edge "
          "write programs, and convert lowers what torch.export saves",
      where);
  e.notes.push_back(
      "convert the program torch.export.save wrote (verifiers \"TRAINING\" or \"ATEN\"); `pteforge inspect` "
      "reads "
      "this one");
  return e;
}

Result<ir::ExportedProgram> load_program(serde::Archive& archive, const serde::Pt2Layout& layout,
                                         const std::string& method, const std::string& source,
                                         bool bind_weights, std::vector<serde::ImportWarning>* warnings) {
  const serde::Pt2Model* model = pick_model(layout, method);
  if (!model) {
    std::vector<std::string> names;
    for (const auto& m : layout.models) names.push_back(m.method);
    Location where;
    where.method = method;
    return make_error(ErrorCode::OPTION_INVALID,
                      "the input has no method '" + method + "'; its methods: " + join(names), where);
  }
  auto located = [&](Error e) {
    if (!e.where.method) e.where.method = model->method;
    return e;
  };
  auto text = serde::read_program_entry(archive, model->program_entry);
  if (!text.ok()) return located(std::move(text).error());
  auto imported = serde::import_exported_program(std::move(*text));
  if (!imported.ok()) {
    Error e = std::move(imported).error();
    if (!e.where.entry) e.where.entry = model->program_entry;
    return located(std::move(e));
  }
  ir::ExportedProgram ep = std::move(imported->program);
  // Located as convert's own import reports them: the program entry unless a payload is named.
  auto report = [&](std::vector<serde::ImportWarning> found, bool in_program) {
    if (!warnings) return;
    for (serde::ImportWarning& w : found) {
      w.where.method = model->method;
      if (in_program && !w.where.entry) w.where.entry = model->program_entry;
      warnings->push_back(std::move(w));
    }
  };
  report(std::move(imported->warnings), true);
  if (!bind_weights) return ep;
  if (Status lowered = refuse_lowered_program(ep, *model); !lowered.ok())
    return located(std::move(lowered).error());

  auto weights = serde::read_payload_config(archive, *model, serde::PayloadFolder::kWeights, kMaxConfigBytes);
  if (!weights.ok()) return located(std::move(weights).error());
  auto constants =
      serde::read_payload_config(archive, *model, serde::PayloadFolder::kConstants, kMaxConfigBytes);
  if (!constants.ok()) return located(std::move(constants).error());
  report(std::move(weights->warnings), false);  // unknown keys, located in their config
  report(std::move(constants->warnings), false);
  serde::PayloadSizeFn size_of = [&](const std::string& path_name, bool is_constant) -> std::optional<uint64_t> {
    auto entry = serde::resolve_payload(archive, *model,
                                        is_constant ? serde::PayloadFolder::kConstants : serde::PayloadFolder::kWeights,
                                        path_name);
    if (!entry.ok()) return std::nullopt;
    return (*entry)->size;
  };
  auto state = serde::bind_state(ep, *weights, *constants, size_of, model->root_prefix());
  if (!state.ok()) return located(serde::explain_missing_entry(archive, std::move(state).error()));
  ep.state = std::move(state).value();
  for (auto& s : ep.state.storages) s.source = source;
  report(serde::zero_filled_warnings(ep.state, model->root_prefix()), false);
  return ep;
}

Result<ir::ExportedProgram> load_program(serde::Archive& archive, const std::string& method, const std::string& source) {
  PTEFORGE_ASSIGN_OR_RETURN(serde::Pt2Layout layout, serde::detect_pt2_layout(archive));
  return load_program(archive, layout, method, source);
}

Result<ir::ExportedProgram> load_program_bytes(std::string bytes, const std::string& method, const std::string& source) {
  if (serde::looks_like_zip(bytes)) {
    PTEFORGE_ASSIGN_OR_RETURN(std::unique_ptr<serde::ZipArchive> zip,
                              serde::ZipArchive::open(std::make_unique<serde::MemoryByteSource>(std::move(bytes))));
    return load_program(*zip, method, source);
  }
  PTEFORGE_ASSIGN_OR_RETURN(
      std::unique_ptr<serde::MemoryArchive> mem,
      serde::MemoryArchive::create({{std::string("model.json"), std::move(bytes)}}));
  return load_program(*mem, serde::program_json_layout("model.json"), method, source);
}

Status prepare_replacement(ir::ExportedProgram& replacement, const PipelineOptions& options) {
  const std::vector<std::string> pipeline = options.passes.empty() ? default_pipeline() : options.passes;
  PipelineOptions prep = options;
  prep.swaps.clear();
  prep.outline_modules.clear();
  prep.passes.clear();
  for (const auto& name : pipeline) {
    const RegisteredPass* reg = find_pass(name);
    if (reg && reg->group == "swap") break;  // swap_modules, or one of its steps listed by --passes
    if (reg && reg->factory) prep.passes.push_back(name);
  }
  if (prep.passes.empty()) return Status::Ok();
  PTEFORGE_ASSIGN_OR_RETURN(PassManager pm, PassManager::create(prep));
  MethodState state;
  state.method = "forward";
  PassReport report;
  return pm.run(replacement, state, report);
}

Status swap_from_bytes(ir::ExportedProgram& ep, const std::string& fqn, std::string bytes,
                       const PipelineOptions& options, PassReport* report) {
  PTEFORGE_ASSIGN_OR_RETURN(ir::ExportedProgram rep, load_program_bytes(std::move(bytes), "", swap_source_label(fqn)));
  PTEFORGE_TRY(prepare_replacement(rep, options));
  std::vector<SwapRequest> swaps = {SwapRequest{fqn, std::make_shared<const ir::ExportedProgram>(std::move(rep))}};
  return swap(ep, swaps, report);
}

namespace {
constexpr const char* kNotAModulePath =
    "' is not a module path (non-empty module names separated by single dots, without control characters)";

bool is_module_path(std::string_view fqn) {
  // torch's add_module refuses only empty names and names with a '.' in
  // them: ModuleDict keys such as "blk-1" are module names too.
  bool ok = !fqn.empty() && fqn.front() != '.' && fqn.back() != '.' && fqn.find("..") == std::string_view::npos;
  for (char c : fqn) ok &= static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
  return ok;
}
}  // namespace

Status check_module_path(std::string_view fqn) {
  if (is_module_path(fqn)) return Status::Ok();
  Location where;
  where.pointer = "/swaps";
  return make_error(ErrorCode::OPTION_INVALID, "'" + std::string(fqn) + kNotAModulePath, where);
}

Result<SwapOption> parse_swap_option(std::string_view text) {
  const std::string shown = "'" + std::string(text) + "'";
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return make_error(ErrorCode::OPTION_INVALID, "--swap expects MODULE=REPLACEMENT (e.g. encoder.layer.1=block.pt2), got " + shown);
  }
  SwapOption opt;
  opt.fqn = std::string(text.substr(0, eq));
  opt.path = std::string(text.substr(eq + 1));
  if (opt.fqn.empty()) return make_error(ErrorCode::OPTION_INVALID, "--swap " + shown + " names no module before '='");
  if (opt.path.empty()) {
    return make_error(ErrorCode::OPTION_INVALID, "--swap " + shown + " names no replacement file after '='");
  }
  if (!is_module_path(opt.fqn)) {
    return make_error(ErrorCode::OPTION_INVALID, "--swap " + shown + ": '" + opt.fqn + kNotAModulePath);
  }
  return opt;
}

Result<std::vector<SwapOption>> parse_swap_options(const std::vector<std::string>& texts) {
  std::vector<SwapOption> out;
  for (const auto& t : texts) {
    PTEFORGE_ASSIGN_OR_RETURN(SwapOption o, parse_swap_option(t));
    for (const auto& prev : out) {
      if (prev.fqn == o.fqn) {
        return make_error(ErrorCode::OPTION_INVALID, "--swap names module '" + o.fqn + "' more than once");
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace pteforge::passes
