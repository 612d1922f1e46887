// The decomposition table: one rule per non-core operator overload (and the
// few Core ATen ops PyTorch's default table decomposes all the same).
//
// Each rule lives in the file of its op family (linalg.cpp, conv.cpp, ...),
// with a docstring naming the PyTorch decomposition it mirrors and its shape
// conditions; the family adds its rules to the table in
// add_<family>_decompositions(). A rule may emit non-core ops: the pass
// visits every node it inserts, so they are decomposed in turn (as PyTorch's
// decompositions recurse).
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "passes/decompositions/rewriter.h"

namespace pteforge::passes::decomp {

using RuleFn = void (*)(Rewriter&);

struct Decomposition {
  /// The overload, short form: "aten.linear.default".
  std::string_view target;
  RuleFn apply;
  /// The PyTorch decomposition it mirrors (and where it lives).
  std::string_view mirrors;
  /// The op is Core ATen (tag `core`) yet PyTorch's core_aten_decompositions()
  /// lists it, so run_decompositions() (and ExecuTorch's to_edge) still
  /// decomposes it: fill.Scalar, reflection_pad1d/2d/3d, replication_pad2d/3d,
  /// select_scatter, squeeze.dim.
  /// Every other rule's op is non-core.
  bool core = false;
};

/// Every rule, sorted by target.
const std::vector<Decomposition>& decompositions();
/// The rule for `short_target` ("aten.linear.default"), or nullptr.
const Decomposition* find_decomposition(std::string_view short_target);
/// The rule for an operator target (its short form), or nullptr; looked up
/// once per interned target and thread, then remembered (the decompose pass
/// asks for every node).
const Decomposition* find_decomposition(const ir::OpTarget& target);

// Family registration (one per file).
void add_linalg_decompositions(std::vector<Decomposition>& out);
void add_conv_decompositions(std::vector<Decomposition>& out);
void add_norm_decompositions(std::vector<Decomposition>& out);
void add_activation_decompositions(std::vector<Decomposition>& out);
void add_pooling_decompositions(std::vector<Decomposition>& out);
void add_shape_decompositions(std::vector<Decomposition>& out);
void add_creation_decompositions(std::vector<Decomposition>& out);
void add_attention_decompositions(std::vector<Decomposition>& out);
void add_pointwise_decompositions(std::vector<Decomposition>& out);
void add_indexing_decompositions(std::vector<Decomposition>& out);
void add_rnn_decompositions(std::vector<Decomposition>& out);
void add_loss_decompositions(std::vector<Decomposition>& out);
void add_alias_decompositions(std::vector<Decomposition>& out);
/// The alias ops and the op each one calls with the same arguments (aliases.cpp).
const std::vector<std::pair<std::string_view, std::string_view>>& alias_table();

}  // namespace pteforge::passes::decomp
