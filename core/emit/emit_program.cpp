// emit_program, constant methods and training metadata (see emit_program.h).
#include "emit/emit_program.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string_view>

#include "ir/float_repr.h"
#include "serde/json_cursor.h"
#include "serde/json_text.h"
#include "serde/py_json_writer.h"
#include "serde/treespec_json.h"
#include "support/utf8.h"

namespace pteforge::emit {
namespace {

using serde::json_number_length;
using serde::json_string_end;

constexpr int kMaxConstantDepth = 64;
/// Values, lists and objects one parse of constant methods may hold (the
/// whole map of the API, or one --constant-method option).
constexpr size_t kMaxConstantItems = 100000;

Error option_error(const std::string& method, std::string message) {
  Location where;
  if (!method.empty()) where.method = method;
  // The whole map (parse_constant_methods) has no method name yet.
  const std::string what = method.empty() ? "constant methods" : "constant method '" + method + "'";
  return make_error(ErrorCode::OPTION_INVALID, what + ": " + message, where);
}

/// Flattens a JSON value as torch's pytree does, appending leaves to `values`.
/// `items` counts the values and lists/objects met so far (all methods):
/// past kMaxConstantItems the option is refused (each costs some hundred
/// bytes of treespec and EValue; a WebAssembly heap would run out first).
/// `at` is the JSON pointer of `v` inside the method's value ("" for the
/// value itself, "/1/a/0" deeper); a null's error names it.
Status flatten(const std::string& method, const rapidjson::Value& v, int depth, std::vector<EValue>& values,
               ir::TreeSpecNode& spec, size_t& items, std::string& at) {
  // " at /1/a/0" inside the value; nothing for the value itself.
  auto place = [&at] { return at.empty() ? std::string() : " at " + control_escaped(at); };
  if (depth > kMaxConstantDepth) return option_error(method, "value nested deeper than 64 levels");
  if (++items > kMaxConstantItems) {
    return option_error(method, "more than " + std::to_string(kMaxConstantItems) +
                                    " values, lists and objects (constant methods return a few values, e.g. "
                                    "get_eos_ids=[2,3])");
  }
  if (v.IsArray()) {
    std::vector<ir::TreeSpecNode> children;
    size_t index = 0;
    for (const auto& e : v.GetArray()) {
      const size_t length = at.size();
      at += "/" + std::to_string(index++);
      ir::TreeSpecNode child;
      PTEFORGE_TRY(flatten(method, e, depth + 1, values, child, items, at));
      at.resize(length);
      children.push_back(std::move(child));
    }
    spec = ir::treespec_node("builtins.list", "\"null\"", std::move(children));
    return Status::Ok();
  }
  if (v.IsObject()) {
    // A repeated key keeps its first place and takes its last value, as
    // Python's json.loads builds the dict the getter would return.
    std::vector<std::pair<std::string_view, const rapidjson::Value*>> members;
    std::map<std::string_view, size_t> place;
    // Indexed, not a ranged for: clang (Emscripten) finds RapidJSON's member
    // iterator comparison ambiguous under C++20.
    for (rapidjson::SizeType i = 0; i < v.MemberCount(); ++i) {
      const auto& m = *(v.MemberBegin() + i);
      const std::string_view key(m.name.GetString(), m.name.GetStringLength());
      const auto [it, added] = place.emplace(key, members.size());
      if (added) {
        members.emplace_back(key, &m.value);
      } else {
        members[it->second].second = &m.value;
      }
    }
    std::vector<ir::TreeSpecNode> children;
    std::string keys = "[";
    for (const auto& [key, value] : members) {
      if (keys.size() > 1) keys += ", ";
      keys += serde::python_json_string(key);
      const size_t length = at.size();
      at += "/" + serde::escape_pointer_token(key);
      ir::TreeSpecNode child;
      PTEFORGE_TRY(flatten(method, *value, depth + 1, values, child, items, at));
      at.resize(length);
      children.push_back(std::move(child));
    }
    keys += "]";
    spec = ir::treespec_node("builtins.dict", serde::python_json_string(keys), std::move(children));
    return Status::Ok();
  }
  if (v.IsNull()) {
    // torch's pytree flattens None to no leaves under a NoneType node: a
    // getter returning None is a plan with no values and no outputs.
    spec = ir::treespec_node("builtins.NoneType", "\"null\"", {});
    return Status::Ok();
  }
  spec = ir::treespec_leaf();
  if (v.IsBool()) {
    values.push_back(EValue{Bool{v.GetBool()}});
  } else if (v.IsInt64()) {
    values.push_back(EValue{Int{v.GetInt64()}});
  } else if (v.IsUint64()) {  // 2^63..2^64-1: npm options reach here through a DOM, not as text
    return option_error(method, "integer " + std::to_string(v.GetUint64()) + place() + " does not fit int64");
  } else if (v.IsNumber()) {  // a double: parse_json refused integers past int64 (first_oversized_integer)
    values.push_back(EValue{Double{v.GetDouble()}});
  } else {  // a string: null, arrays and objects are handled above
    values.push_back(EValue{String{std::string(v.GetString(), v.GetStringLength())}});
  }
  return Status::Ok();
}

/// JSON text as RapidJSON is given it so that it reads what Python's
/// json.loads reads (the option's values are ExecuTorch's Python values),
/// and the way back to the caller's byte offsets.
struct PythonJson {
  std::string text;  ///< the caller's text, number literals rewritten
  /// One rewritten literal: [text_begin, text_end) in `text` was
  /// [original_begin, original_end) in the caller's text.
  struct Rewrite {
    size_t text_begin, text_end, original_begin, original_end;
  };
  std::vector<Rewrite> rewrites;  ///< in text order
  /// The values of the float literals, in text order: literal k is "k.0" in `text`.
  std::vector<double> floats;
  /// The first thing Python refuses that RapidJSON takes (-NaN, a bare Inf):
  /// its offset in the caller's text and what to say.
  std::optional<std::pair<size_t, std::string>> refusal;

  /// The caller's offset of `at` in `text` (a rewritten literal's start for an offset inside it).
  size_t original_offset(size_t at) const {
    size_t text_pos = 0, original_pos = 0;
    for (const Rewrite& r : rewrites) {
      if (at < r.text_begin) break;
      if (at < r.text_end) return r.original_begin;
      text_pos = r.text_end;
      original_pos = r.original_end;
    }
    return original_pos + (at - text_pos);
  }
};

/// The first integer literal of (valid) JSON text `json` that int64 cannot
/// hold, or an empty view. RapidJSON reads one past uint64 as a double
/// (99999999999999999999 would become 1e+20), so the text is checked itself,
/// its numbers found by json_number_length.
std::string_view first_oversized_integer(std::string_view json) {
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '"') {  // skip the string
      i = json_string_end(json, i);
      continue;
    }
    if (c != '-' && (c < '0' || c > '9')) continue;
    bool integer = true;
    const size_t n = json_number_length(json.substr(i), integer);
    if (n == 0) continue;
    const std::string_view token = json.substr(i, n);
    i += n - 1;
    if (!integer) continue;
    int64_t v = 0;
    if (std::from_chars(token.data(), token.data() + token.size(), v).ec != std::errc()) return token;
  }
  return {};
}

/// `json` made PythonJson. RapidJSON reads no float literal of the caller's:
/// its full-precision reader misreads some (1e-325 as -2.2e307), refuses
/// others Python reads ("Number too big" for 0e400 or 0.001e310) and reads
/// out of bounds on long mantissas with tiny exponents. Each float literal k
/// becomes "k.0", and parse_json puts back floats[k], strtod's correctly
/// rounded value (±inf past the range, 0 below it), as Python reads it. An
/// integer literal past uint64 becomes "0" (RapidJSON would read it as a
/// float), and check_integer_literals, which reads the caller's text,
/// refuses it as past int64, as ExecuTorch would. "-NaN" and a bare "Inf"
/// (Python reads only NaN, Infinity, -Infinity) are noted as the refusal.
PythonJson pythonize_json_numbers(std::string_view json) {
  PythonJson out;
  out.text.reserve(json.size());
  auto refuse = [&](size_t at, std::string what) {
    if (!out.refusal) out.refusal = std::pair(at, std::move(what));
  };
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '"') {  // copy the string
      const size_t begin = i;
      i = json_string_end(json, i);
      out.text.append(json.substr(begin, i - begin + 1));
      continue;
    }
    const std::string_view rest = json.substr(i);
    if (rest.substr(0, 4) == "-NaN") refuse(i, "-NaN: NaN has no sign");
    if (c == 'I' && rest.substr(0, 8) != "Infinity") {
      const size_t at = i > 0 && json[i - 1] == '-' ? i - 1 : i;
      refuse(at, "a bare Inf: infinity is written Infinity");
    }
    bool integer = true;
    const size_t n = c == '-' || (c >= '0' && c <= '9') ? json_number_length(rest, integer) : 0;
    if (n == 0) {
      out.text += c;
      continue;
    }
    const std::string token(rest.substr(0, n));
    std::string replacement = token;
    if (!integer) {
      replacement = std::to_string(out.floats.size()) + ".0";
      out.floats.push_back(std::strtod(token.c_str(), nullptr));
    } else {
      int64_t s64 = 0;
      uint64_t u64 = 0;
      const char* first = token.data();
      const char* last = token.data() + token.size();
      const bool fits = token[0] == '-' ? std::from_chars(first, last, s64).ec == std::errc()
                                        : std::from_chars(first, last, u64).ec == std::errc();
      if (!fits) replacement = "0";
    }
    if (replacement != token) {
      out.rewrites.push_back({out.text.size(), out.text.size() + replacement.size(), i, i + n});
    }
    out.text += replacement;
    i += n - 1;
  }
  return out;
}

/// Puts back the float literals pythonize_json_numbers replaced: each finite
/// double of `doc` (a "k.0" stand-in; NaN and the infinities are RapidJSON's
/// words, left as they are) becomes floats[k]. Iterative: no recursion on
/// deep values.
void restore_floats(rapidjson::Value& doc, const std::vector<double>& floats) {
  std::vector<rapidjson::Value*> stack{&doc};
  while (!stack.empty()) {
    rapidjson::Value* v = stack.back();
    stack.pop_back();
    if (v->IsArray()) {
      for (rapidjson::SizeType k = 0; k < v->Size(); ++k) stack.push_back(&(*v)[k]);
    } else if (v->IsObject()) {
      for (rapidjson::SizeType k = 0; k < v->MemberCount(); ++k)
        stack.push_back(&(v->MemberBegin() + k)->value);
    } else if (v->IsDouble() && std::isfinite(v->GetDouble())) {
      const double k = v->GetDouble();
      if (k >= 0 && k < static_cast<double>(floats.size())) v->SetDouble(floats[static_cast<size_t>(k)]);
    }
  }
}

Result<rapidjson::Document> parse_json(const std::string& method, std::string_view json) {
  // Its strings go into the .pte as FlatBuffers strings, which are UTF-8.
  if (std::optional<size_t> bad = find_invalid_utf8(json)) {
    return option_error(method, "value is not valid UTF-8 (at byte " + std::to_string(*bad) + ")");
  }
  // RapidJSON would skip a leading byte order mark; a value is JSON text, which has none (RFC 8259).
  if (json.substr(0, 3) == "\xEF\xBB\xBF") {
    return option_error(
        method, "value starts with a UTF-8 byte order mark (bytes EF BB BF), which JSON text does not have");
  }
  const PythonJson python = pythonize_json_numbers(json);
  rapidjson::Document doc;
  // Iterative: no recursion on deeply nested values (flatten() then stops at 64 levels).
  // No full-precision flag: the only fractions left are the exact "k.0" stand-ins.
  doc.Parse<rapidjson::kParseNanAndInfFlag | rapidjson::kParseIterativeFlag>(python.text.data(),
                                                                             python.text.size());
  // The first error in the text as typed: RapidJSON's, or what Python refuses and RapidJSON takes.
  const std::optional<size_t> parse_at =
      doc.HasParseError() ? std::optional<size_t>(python.original_offset(doc.GetErrorOffset()))
                          : std::nullopt;
  if (python.refusal && (!parse_at || python.refusal->first <= *parse_at)) {
    return option_error(method, "value is not JSON (" + python.refusal->second + " at byte " +
                                    std::to_string(python.refusal->first) + ")");
  }
  if (parse_at) {
    Error e = option_error(method, "value is not JSON (" +
                                       serde::json_parse_error_text(doc.GetParseError(), *parse_at, json) +
                                       " at byte " + std::to_string(*parse_at) + ")");
    // A CLI value (one method's) is where an unquoted string is the likely slip.
    if (!method.empty())
      e.notes.push_back("strings need JSON quotes, e.g. --constant-method 'get_name=\"tiny\"'");
    return e;
  }
  restore_floats(doc, python.floats);
  return doc;
}

/// OPTION_INVALID for the first integer literal of `json` past int64 (see
/// first_oversized_integer), naming `method` ("" for the whole map).
Status check_integer_literals(const std::string& method, std::string_view json) {
  if (std::string_view big = first_oversized_integer(json); !big.empty()) {
    // A long one shortened: its first digits and how many there are.
    const std::string shown = big.size() <= 40 ? std::string(big)
                                               : std::string(big.substr(0, 20)) + "... (" +
                                                     std::to_string(big.size()) + " characters)";
    return option_error(method, "integer " + shown + " does not fit int64");
  }
  return Status::Ok();
}

ConstantMethod int_getter(std::string name, int64_t v) {
  ConstantMethod m;
  m.name = std::move(name);
  m.values.push_back(EValue{Int{v}});
  m.spec.root = ir::treespec_leaf();
  return m;
}

}  // namespace

Result<ConstantMethod> parse_constant_method(std::string name, std::string_view json) {
  if (name.empty()) return option_error(name, "empty method name");
  if (std::optional<size_t> bad = find_invalid_utf8(name)) {
    return make_error(ErrorCode::OPTION_INVALID,
                      "constant method name is not valid UTF-8 (at byte " + std::to_string(*bad) + ")");
  }
  PTEFORGE_ASSIGN_OR_RETURN(rapidjson::Document doc, parse_json(name, json));
  PTEFORGE_TRY(check_integer_literals(name, json));
  ConstantMethod m;
  m.name = std::move(name);
  size_t items = 0;
  std::string at;
  PTEFORGE_TRY(flatten(m.name, doc, 0, m.values, m.spec.root, items, at));
  return m;
}

Result<std::vector<ConstantMethod>> parse_constant_methods(std::string_view json_object) {
  // Errors about the whole map point at it (the API's options.constantMethods).
  auto at_map = [](Error e) {
    if (!e.where.pointer) e.where.pointer = "/constantMethods";
    return e;
  };
  Result<rapidjson::Document> parsed = parse_json("", json_object);
  if (!parsed.ok()) return at_map(std::move(parsed).error());
  rapidjson::Document doc = std::move(parsed).value();
  if (!doc.IsObject()) {
    return at_map(make_error(ErrorCode::OPTION_INVALID,
                             "constant methods must be a JSON object {\"name\": value, ...}"));
  }
  std::vector<ConstantMethod> out;
  std::set<std::string> seen;
  size_t items = 0;
  for (rapidjson::SizeType i = 0; i < doc.MemberCount(); ++i) {
    const auto& m = *(doc.MemberBegin() + i);
    std::string name(m.name.GetString(), m.name.GetStringLength());
    // Errors point at the member in the map (the API's options.constantMethods).
    auto at_member = [&name](Error e) {
      if (!e.where.pointer) e.where.pointer = "/constantMethods/" + serde::escape_pointer_token(name);
      return e;
    };
    if (name.empty()) return at_member(option_error(name, "empty method name"));
    if (!seen.insert(name).second) return at_member(option_error(name, "given twice"));
    ConstantMethod cm;
    cm.name = name;
    std::string at;
    if (Status st = flatten(name, m.value, 0, cm.values, cm.spec.root, items, at); !st.ok()) {
      return at_member(std::move(st).error());
    }
    out.push_back(std::move(cm));
  }
  // After the members: one that holds 2^63..2^64-1 is named by flatten; a
  // literal past uint64 (read as a double) only by this scan of the text.
  if (Status st = check_integer_literals("", json_object); !st.ok()) return at_map(std::move(st).error());
  return out;
}

Result<std::pair<std::string, std::string>> split_constant_method_option(std::string_view option) {
  const size_t eq = option.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return make_error(ErrorCode::OPTION_INVALID,
                      "--constant-method expects NAME=JSON (e.g. get_max_seq_len=128), got '" + std::string(option) + "'");
  }
  return std::pair(std::string(option.substr(0, eq)), std::string(option.substr(eq + 1)));
}

Result<ConstantMethod> parse_constant_method_option(std::string_view option) {
  PTEFORGE_ASSIGN_OR_RETURN(auto parts, split_constant_method_option(option));
  return parse_constant_method(std::move(parts.first), parts.second);
}

Result<std::vector<TrainingMetadata>> training_metadata(const std::vector<MethodInput>& methods) {
  std::vector<TrainingMetadata> out;
  for (const MethodInput& m : methods) {
    TrainingMetadata t;
    t.method = m.name;
    const auto& specs = m.program->signature().output_specs;
    for (size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].kind == ir::OutputKind::GradientToParameter) {
        if (!t.gradients_index) t.gradients_index = static_cast<int64_t>(i);
        t.fqns.push_back(specs[i].target);
      } else if (specs[i].kind == ir::OutputKind::Token && !t.parameters_index) {
        if (!t.gradients_index) {
          Location where;
          where.method = m.name;
          return make_error(ErrorCode::UNSUPPORTED_FEATURE,
                            "output " + std::to_string(i) +
                                " is a TOKEN output before any gradient output; ExecuTorch's training metadata "
                                "requires parameters (TOKEN outputs of weights_to_outputs) after the gradients",
                            where);
        }
        t.parameters_index = static_cast<int64_t>(i);
      }
    }
    if (t.gradients_index) out.push_back(std::move(t));
  }
  return out;
}

std::vector<ConstantMethod> training_metadata_getters(const std::vector<TrainingMetadata>& metadata) {
  std::vector<ConstantMethod> out;
  for (const TrainingMetadata& t : metadata) {
    // The seed's dict gets the gradients index at the first gradient, the FQN
    // list right after it, the parameters index at the first TOKEN.
    if (t.gradients_index) out.push_back(int_getter("__et_training_gradients_index_" + t.method, *t.gradients_index));
    if (!t.fqns.empty()) {
      ConstantMethod m;
      m.name = "__et_training_fqn_" + t.method;
      std::vector<ir::TreeSpecNode> leaves;
      for (const std::string& f : t.fqns) {
        m.values.push_back(EValue{String{f}});
        leaves.push_back(ir::treespec_leaf());
      }
      m.spec.root = ir::treespec_node("builtins.list", "\"null\"", std::move(leaves));
      out.push_back(std::move(m));
    }
    if (t.parameters_index) {
      out.push_back(int_getter("__et_training_parameters_index_" + t.method, *t.parameters_index));
    }
  }
  return out;
}

ExecutionPlan constant_method_plan(const ConstantMethod& method) {
  ExecutionPlan plan;
  plan.name = method.name;
  plan.values = method.values;
  for (size_t i = 0; i < method.values.size(); ++i) plan.outputs.push_back(static_cast<int32_t>(i));
  plan.chains.emplace_back();
  plan.non_const_buffer_sizes = {0};
  plan.container_meta_type.encoded_inp_str = "";
  plan.container_meta_type.encoded_out_str = serde::format_treespec(method.spec);
  return plan;
}

Result<EmitterOutput> emit_program(const std::vector<MethodInput>& methods, const EmitProgramOptions& options,
                                   const RangeReader& reader) {
  std::vector<const MethodInput*> sorted;
  for (const MethodInput& m : methods) sorted.push_back(&m);
  std::sort(sorted.begin(), sorted.end(), [](const MethodInput* a, const MethodInput* b) { return a->name < b->name; });
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i]->name == sorted[i - 1]->name) {
      return make_error(ErrorCode::INTERNAL, "method '" + sorted[i]->name + "' given twice");
    }
  }

  EmitterOutput out;
  ProgramState state(reader);
  state.constants.use_known_hashes(options.known_hashes);
  state.mutable_data.use_known_hashes(options.known_hashes);
  for (const MethodInput* m : sorted) {
    std::vector<ir::Argument> outputs = user_outputs(*m->program);
    PTEFORGE_ASSIGN_OR_RETURN(EmittedMethod emitted, emit_method(*m, outputs, state, options.emit));
    out.program.execution_plan.push_back(std::move(emitted.plan));
    out.debug.emplace(m->name, std::move(emitted.debug));
  }

  PTEFORGE_ASSIGN_OR_RETURN(out.training, training_metadata(methods));
  // The training getters, each with the joint method it describes (a clash's message names it).
  std::vector<ConstantMethod> getters;
  std::vector<std::string> owners;
  for (const TrainingMetadata& t : out.training) {
    for (ConstantMethod& g : training_metadata_getters({t})) {
      getters.push_back(std::move(g));
      owners.push_back(t.method);
    }
  }
  getters.insert(getters.end(), options.constant_methods.begin(), options.constant_methods.end());
  // Every method name, with the joint method when it is a training getter ("" otherwise).
  std::map<std::string, std::string> names;
  for (const MethodInput& m : methods) names.emplace(m.name, "");
  for (size_t i = 0; i < getters.size(); ++i) {
    const ConstantMethod& g = getters[i];
    const std::string owner = i < owners.size() ? owners[i] : "";
    auto [it, inserted] = names.emplace(g.name, owner);
    if (inserted) {
      out.program.execution_plan.push_back(constant_method_plan(g));
      continue;
    }
    if (!owner.empty()) {  // a training getter named like a method of the program
      Location where;
      where.method = g.name;
      return make_error(ErrorCode::INVALID_GRAPH,
                        "method '" + owner +
                            "' is a training (joint) program, whose metadata needs a method named '" +
                            g.name + "', but the program has a method of that name; rename one of them",
                        where);
    }
    if (!it->second.empty()) {
      return option_error(g.name,
                          "the training metadata of method '" + it->second + "' has a method of that name");
    }
    return option_error(g.name, "a method of that name already exists");
  }

  out.program.version = 0;
  out.program.constant_segment = SubsegmentOffsets{0, {}};
  out.data.constant_buffer = state.constants.take();
  std::vector<Chunk> mutable_data = state.mutable_data.take();
  uint64_t mutable_bytes = 0;
  for (const Chunk& c : mutable_data) mutable_bytes += c.size();
  if (mutable_data.size() > 1 && mutable_bytes == 0) {
    // Only zero-byte buffers have initial data (--init-buffers): ExecuTorch
    // gives them mutable entries but writes no mutable segment for no bytes,
    // so the runtime would look for their data in a segment the file lacks.
    // There is nothing to initialize: they are plain planned tensors.
    for (ExecutionPlan& plan : out.program.execution_plan) {
      for (EValue& v : plan.values) {
        if (Tensor* t = std::get_if<Tensor>(&v.val); t && t->allocation_info && t->data_buffer_idx != 0) {
          t->data_buffer_idx = 0;
        }
      }
    }
    mutable_data.clear();
  }
  if (mutable_data.size() > 1) out.data.mutable_buffer = std::move(mutable_data);
  return out;
}

}  // namespace pteforge::emit
