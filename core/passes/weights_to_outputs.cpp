// weights_to_outputs: for joint (training) graphs, returns the parameters
// that have a gradient as extra graph outputs so that memory planning plans
// them and the emitter can expose them (executorch-pipeline.md §1.3 A3, §3.14;
// ExecuTorch weights_to_outputs_pass, seed 000).
//
// A graph is a joint graph when its output specs contain
// GRADIENT_TO_PARAMETER. Every PARAMETER placeholder whose FQN has a gradient
// output is flagged (MethodState::weights_with_gradient; spec_prop copies the
// flag into TensorSpec::weight_has_gradient) and appended to the graph
// outputs, in placeholder order, with output kind TOKEN (ExecuTorch reuses
// TOKEN because there is no "parameter" output kind). Then dead code is
// removed, as ExecuTorch does. Without gradients, or without placeholders,
// the pass changes nothing; run a second time (a custom pass list naming it
// twice) it changes nothing either. It must run before spec_prop
// (PASS_PRECONDITION otherwise): spec_prop and memory planning act on the flag.
//
// Before (outputs: loss LOSS_OUTPUT, grad_w GRADIENT_TO_PARAMETER "w"):
//   graph(%p_w, %x): ... return (%loss, %grad_w)
// After (outputs + p_w TOKEN):
//   graph(%p_w, %x): ... return (%loss, %grad_w, %p_w)
#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

class WeightsToOutputs final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"weights_to_outputs",
                                "joint graphs: append parameters that have gradients to the outputs",
                                "to_executorch"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    ir::GraphSignature& sig = ep.signature();
    if (graph.inputs().empty()) return false;

    std::unordered_set<std::string> grad_targets;
    for (const ir::OutputSpec& o : sig.output_specs) {
      if (o.kind == ir::OutputKind::GradientToParameter) grad_targets.insert(o.target);
    }
    if (grad_targets.empty()) return false;

    MethodState& state = ctx.state();
    // Listed twice in a custom pass list: the weights are outputs already.
    if (state.weights_appended) return false;
    // spec_prop copies the flag into the specs, and memory planning plans
    // the flagged weights: after them, the weights would be left unplanned
    // constants that the training runtime hands to the optimizer.
    if (!state.specs.empty()) {
      return make_error(
          ErrorCode::PASS_PRECONDITION,
          "weights_to_outputs must run before spec_prop (the default pipeline's order): the weights "
          "it flags are planned as mutable memory only when spec_prop and memory_planning see the flag");
    }

    std::vector<std::string> weights, weight_fqns;  // placeholder names and their FQNs
    for (const ir::InputSpec& in : sig.input_specs) {
      if (in.kind != ir::InputKind::Parameter || !grad_targets.count(in.target)) continue;
      std::string_view name = in.name();
      if (name.empty()) continue;
      weights.emplace_back(name);
      weight_fqns.push_back(in.target);
    }

    // The outputs are replaced once (one add_output per weight re-registered
    // every output each time: quadratic in the number of weights).
    std::unordered_set<std::string> flagged(state.weights_with_gradient.begin(),
                                            state.weights_with_gradient.end());
    std::vector<ir::Argument> outputs = graph.outputs();
    outputs.reserve(outputs.size() + weights.size());
    for (const std::string& w : weights) {
      if (flagged.insert(w).second) state.weights_with_gradient.push_back(w);
      outputs.push_back(ir::arg_tensor(w));
      ir::OutputSpec spec;
      spec.kind = ir::OutputKind::Token;
      spec.arg = ir::arg_tensor(w);
      sig.output_specs.push_back(std::move(spec));
    }
    graph.set_outputs(std::move(outputs));
    warn_runtime_pairing(sig, weight_fqns, ctx);
    state.weights_appended = true;
    ctx.stat("weights_appended", static_cast<int64_t>(weights.size()));

    PTEFORGE_TRY(run_dead_code_elimination(ep, ctx));
    return true;
  }

 private:
  /// ExecuTorch's training runtime (TrainingModule) reads the outputs of a
  /// joint method positionally: gradients from __et_training_gradients_index_
  /// up to the parameters index, named by __et_training_fqn_ in order, and
  /// parameters from the parameters index on, named by the same list. The
  /// metadata is computed over the output specs (seed 001), so programs that
  /// break these assumptions get a .pte exactly like ExecuTorch's, whose
  /// training runtime then pairs the wrong tensors: warned here.
  static void warn_runtime_pairing(const ir::GraphSignature& sig, const std::vector<std::string>& weight_fqns,
                                   PassContext& ctx) {
    size_t mutations = 0, first_gradient = sig.output_specs.size();
    std::vector<std::string> gradient_fqns;
    std::vector<size_t> other_gradients;
    for (size_t i = 0; i < sig.output_specs.size(); ++i) {
      const ir::OutputSpec& o = sig.output_specs[i];
      if (o.kind == ir::OutputKind::GradientToParameter) {
        first_gradient = std::min(first_gradient, i);
        gradient_fqns.push_back(o.target);
      } else if (o.kind == ir::OutputKind::GradientToUserInput) {
        other_gradients.push_back(i);
      } else if (o.kind == ir::OutputKind::BufferMutation && i < first_gradient) {
        ++mutations;
      }
    }
    const std::string runtime = "ExecuTorch's training runtime (TrainingModule) ";
    if (mutations > 0) {
      ctx.warn("the gradients index of this joint method counts its " + std::to_string(mutations) +
               " buffer mutation output(s), which are not method outputs (as in ExecuTorch's own .pte): " +
               runtime + "would read the gradients " + std::to_string(mutations) + " output(s) too far");
    }
    if (!other_gradients.empty()) {
      ctx.warn("this joint method returns " + std::to_string(other_gradients.size()) +
               " gradient(s) of user inputs among its parameter gradients (output spec " +
               std::to_string(other_gradients.front()) + "): " + runtime +
               "names the outputs between the gradients and parameters indices by the parameter list, so the "
               "names and tensors would not match");
    }
    // The parameters are appended in placeholder order; the names follow the gradients' order.
    if (weight_fqns.size() == gradient_fqns.size() && weight_fqns != gradient_fqns) {
      ctx.warn(
          "the gradient outputs of this joint method are not in the order of its parameters: " + runtime +
          "names the appended parameters by the gradients' order and would pair them with the wrong names");
    }
  }
};

}  // namespace

std::unique_ptr<Pass> make_weights_to_outputs_pass() { return std::make_unique<WeightsToOutputs>(); }

}  // namespace pteforge::passes
