// How outlined module calls and pytree packing look in our IR (the module
// swap passes: outline_modules, remove_pytree_pairs, replace_modules,
// inline_modules). These nodes exist only between outline_modules and
// inline_modules; no other pass, the emitter or the JSON writer sees them.
//
// Mirrors the FX form that torch/export/_swap.py builds (seed 004): the
// module's flat inputs are packed into (args, kwargs) by tree_unflatten with
// the signature's in_spec, picked apart with getitem, passed to a
// call_module, and its result is flattened with the out_spec and picked apart
// with getitem again:
//
//   %tree_unflatten = pteforge.tree_unflatten(%gelu, spec='<in_spec JSON>')
//   %getitem = _operator.getitem(%tree_unflatten, 0)          # args tuple
//   %getitem_1 = _operator.getitem(%getitem, 0)               # args[0] (a tensor)
//   %getitem_2 = _operator.getitem(%tree_unflatten, 1)        # kwargs dict
//   %encoder_layer_1 = pteforge.call_module(@encoder.layer.1, %getitem_1,
//                          captured={'p_w': %p_w, 'p_b': %p_b})
//       @encoder.layer.1 = graph(%gelu, %p_w, %p_b): ...     # the module body
//   %tree_flatten_spec = pteforge.tree_flatten_spec(%encoder_layer_1, spec='<out_spec JSON>')
//   %gelu_1 = _operator.getitem(%tree_flatten_spec, 0)        # output leaf 0
//
// Node forms (targets are interned strings; kinds are TargetKind::Other
// except getitem, a PythonOperator):
//   pteforge.tree_unflatten   inputs: one positional "leaf" per flat input
//                             (a value, None, or a literal), keyword "spec"
//                             (as_string: treespec JSON, serde/treespec_json.h);
//                             output: one opaque value (as_custom_obj, class
//                             = the spec's root type).
//   _operator.getitem         inputs: positional "a" (an opaque container),
//                             positional "b" (as_int index or as_string dict
//                             key); output: the child — a leaf value with the
//                             metadata of the value it stands for, or an
//                             opaque container (as_custom_obj).
//   pteforge.call_module      inputs: positional "module" (as_graph; the
//                             GraphArgument's name is the module FQN, its
//                             graph the module body), one positional "args"
//                             per positional argument of the call, keyword
//                             "kwargs" (as_string_to_argument, keys in in_spec
//                             order) when the module takes keyword arguments,
//                             keyword "captured" (as_string_to_argument: body
//                             input name -> outer value) for everything else
//                             the body reads (parameters, buffers, constants,
//                             symbolic sizes computed outside);
//                             output: one opaque value (class kModuleOutputClass).
//   pteforge.tree_flatten_spec inputs: positional "tree", keyword "spec";
//                             output: one opaque list (class "builtins.list").
//
// Body graph of a call_module: inputs = the module's flat inputs (in_spec leaf
// order; as_none for an input that had no value in the program, a literal for
// a constant input), then one input per "captured" entry; outputs = the
// module's flat outputs (out_spec leaf order).
//
// Calling semantics are flat: the body's first inputs receive the leaves of
// the call's arguments (positional, then keyword) in order. That is what makes
// remove_pytree_pairs sound: a call may take another call's whole output as
// its only argument when that output's leaves are exactly its inputs.
//
// The verifier accepts these nodes as they are: opaque values are
// custom-object values (no metadata needed), leaf getitems carry the metadata
// of the value they stand for, and the body is verified as a nested graph.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/exported_program.h"
#include "ir/graph.h"
#include "ir/treespec.h"
#include "support/error.h"

namespace pteforge::passes::module_swap {

inline constexpr std::string_view kCallModule = "pteforge.call_module";
inline constexpr std::string_view kTreeUnflatten = "pteforge.tree_unflatten";
inline constexpr std::string_view kTreeFlattenSpec = "pteforge.tree_flatten_spec";
inline constexpr std::string_view kGetitem = "_operator.getitem";
/// Class name of a call_module's opaque result.
inline constexpr std::string_view kModuleOutputClass = "pteforge.module_output";

bool is_call_module(const ir::Node& n);
bool is_tree_unflatten(const ir::Node& n);
bool is_tree_flatten_spec(const ir::Node& n);
bool is_getitem(const ir::Node& n);
/// True for the four node kinds above.
bool is_module_swap_node(const ir::Node& n);

/// The body GraphArgument of a call_module (nullptr when malformed).
const ir::GraphArgument* call_module_body(const ir::Node& n);
ir::GraphArgument* call_module_body(ir::Node& n);
/// The FQN of a call_module (its GraphArgument name); "" when malformed.
std::string_view call_module_fqn(const ir::Node& n);
/// Positional "args" arguments of a call_module, in order.
std::vector<const ir::Argument*> call_module_args(const ir::Node& n);
/// Keyword arguments ("kwargs" entries) of a call_module, in order; empty when none.
std::vector<std::pair<std::string, const ir::Argument*>> call_module_kwargs(const ir::Node& n);
/// "captured" entries (body input name -> outer argument); empty when none.
std::vector<std::pair<std::string, const ir::Argument*>> call_module_captured(const ir::Node& n);
/// Number of body inputs that receive the call's flat arguments (the rest are captured).
size_t call_module_num_flat_inputs(const ir::Node& n);

/// The "spec" of a tree_unflatten / tree_flatten_spec node, parsed.
/// INTERNAL when missing or malformed.
Result<ir::TreeSpec> node_spec(const ir::Node& n);
/// The getitem index argument ("b"): an int or a string key; nullopt when malformed.
struct GetitemKey {
  std::optional<int64_t> index;
  std::optional<std::string> key;
};
std::optional<GetitemKey> getitem_key(const ir::Node& n);
/// The container argument ("a") of a getitem: its value name, or nullptr.
const std::string* getitem_container(const ir::Node& n);

/// Keys of a dict spec node, from its context (JSON list of strings).
/// MODULE_SWAP when the context is not a list of strings.
Result<std::vector<std::string>> dict_keys(const ir::TreeSpecNode& dict);
/// Child position of `key` in a spec node: an index for sequences, a key for dicts.
/// nullopt when out of range / not present.
std::optional<size_t> child_position(const ir::TreeSpecNode& node, const GetitemKey& key);
/// Leaf offset of child `child` (sum of the leaves of the children before it).
size_t leaf_offset(const ir::TreeSpecNode& node, size_t child);

/// For two specs equal up to the order of their dicts' keys (builtins.dict
/// and collections.OrderedDict, whose children torch's tree_flatten_spec and
/// reorder_kwargs pick by key): for each leaf of `a`, in order, the index of
/// the leaf of `b` at the same place. nullopt when the specs differ otherwise
/// (types, contexts, numbers of children, key sets, a key that is not a string).
std::optional<std::vector<size_t>> leaf_permutation(const ir::TreeSpecNode& a, const ir::TreeSpecNode& b);

/// Compact display of a treespec for messages: leaf "*", tuple "(*, *)",
/// list "[*]", dict "{'k': *}", other types "Type(*, ...)".
std::string describe_treespec(const ir::TreeSpecNode& node);

/// A fresh node/value name based on `base` that is free in `g` and not in
/// `reserved`: base, base_1, base_2, ... (FX style; a leading digit gets '_').
std::string fresh_name(const ir::Graph& g, std::string_view base, const std::vector<std::string>& reserved = {});
/// FX-style node name for a module FQN: "encoder.layer.1" -> "encoder_layer_1", "1" -> "_1".
std::string module_node_base(std::string_view fqn);

/// Every call_module node of the top-level graph, in order.
std::vector<ir::Node*> call_module_nodes(ir::Graph& g);

}  // namespace pteforge::passes::module_swap
