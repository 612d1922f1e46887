// Method-load checks of a verified .pte (see pte_load_check.h).
#include "emit/pte_load_check.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "schema/program_generated.h"
#include "support/error.h"
#include "support/list_text.h"

namespace pteforge::emit {
namespace {

namespace fb = executorch_flatbuffer;

// The runtime's limits (tensor_dimension_limit.h, method.cpp resolve_operator).
constexpr size_t kMaxRank = 16;
constexpr size_t kOperatorNameBuffer = 100;  // "name.overload" and its NUL must fit
// ScalarType codes the runtime's isValid accepts: c10's list from Byte (0) to UInt64 (29).
constexpr int kLastScalarType = 29;
// Problems kept (the rest are only counted): a corrupt file can have millions.
constexpr size_t kMaxProblems = 100;

/// Element `i` of a scalar vector, read byte-wise: the verifier checks a
/// vector's alignment only to 4 bytes, so 8-byte items may sit off their
/// alignment (reading them in place is undefined behaviour).
template <typename T>
T element(const flatbuffers::Vector<T>* v, flatbuffers::uoffset_t i) {
  T out;
  std::memcpy(&out, v->Data() + static_cast<size_t>(i) * sizeof(T), sizeof(T));
  return flatbuffers::EndianScalar(out);
}

std::string kind_name(fb::KernelTypes t) {
  const char* n = fb::EnumNameKernelTypes(t);
  return n && *n ? std::string(n) : "type " + std::to_string(static_cast<int>(t));
}

/// "an Int", "a Tensor": the type with its article, for messages.
std::string a_kind(fb::KernelTypes t) {
  const std::string n = kind_name(t);
  return (std::string("AEIOU").find(n[0]) != std::string::npos ? "an " : "a ") + n;
}

/// Bytes per element as the runtime's elementSize gives them: the packed and
/// bit types (QUInt4x2, QUInt2x4, Bits1x8..Bits8: codes 16-21) take one byte
/// each; 0 for a code outside 0..29.
int runtime_element_size(int code) {
  if (code < 0 || code > kLastScalarType) return 0;
  if (code >= 16 && code <= 21) return 1;
  const int size = ir::element_size(static_cast<ir::ScalarType>(code));
  return size > 0 ? size : 1;
}

class Checker {
 public:
  explicit Checker(const fb::Program& p) : p_(p) {}

  LoadCheck run() {
    const auto* plans = p_.execution_plan();
    if (!plans) {
      add("/execution_plan", "missing: the program has no execution_plan vector");
      return std::move(result_);
    }
    for (flatbuffers::uoffset_t i = 0; i < plans->size(); ++i) {
      const fb::ExecutionPlan* plan = plans->Get(i);
      const std::string at = "/execution_plan/" + std::to_string(i);
      if (!plan) {
        add(at, "missing execution plan");
        continue;
      }
      check_plan(*plan, at);
    }
    return std::move(result_);
  }

 private:
  /// Records a problem: the first kMaxProblems are kept, all are counted.
  void add(std::string pointer, std::string message) {
    ++result_.total;
    if (result_.problems.size() < kMaxProblems) {
      result_.problems.push_back({std::move(pointer), std::move(message), at_execution_});
    }
  }

  /// Runs `check`, whose problems the runtime meets when the method runs
  /// (Method::execute, set_input / get_output, a kernel), not when it loads.
  template <typename F>
  void at_execution(F&& check) {
    at_execution_ = true;
    check();
    at_execution_ = false;
  }

  /// The value `index` names, or nullptr when it names none.
  const fb::EValue* value_at(int64_t index) const {
    if (!values_ || index < 0 || index >= static_cast<int64_t>(values_->size())) return nullptr;
    return values_->Get(static_cast<flatbuffers::uoffset_t>(index));
  }
  std::string range_note() const {
    return "(the method has " + counted(values_ ? values_->size() : 0, "value") + ")";
  }

  /// Problem unless `index` names a value of the method.
  bool check_index(int64_t index, const std::string& pointer, const std::string& what) {
    if (value_at(index)) return true;
    add(pointer, what + " " + std::to_string(index) + " names no value " + range_note());
    return false;
  }

  void check_plan(const fb::ExecutionPlan& plan, const std::string& at) {
    values_ = plan.values();
    buffer_sizes_ = plan.non_const_buffer_sizes();
    ops_ = plan.operators();
    checked_ops_.assign(ops_ ? ops_->size() : 0, false);
    if (!plan.name()) add(at + "/name", "missing: methods are loaded by name");
    if (!values_) add(at + "/values", "missing (Method::init needs the values vector, even empty)");
    if (!plan.inputs()) add(at + "/inputs", "missing (MethodMeta needs the inputs vector, even empty)");
    if (!plan.outputs()) add(at + "/outputs", "missing (MethodMeta needs the outputs vector, even empty)");
    if (!buffer_sizes_) {
      add(at + "/non_const_buffer_sizes", "missing (MethodMeta needs it, {0} when nothing is planned)");
    }
    if (values_) {
      for (flatbuffers::uoffset_t i = 0; i < values_->size(); ++i) {
        check_value(i, at + "/values/" + std::to_string(i));
      }
    }
    at_execution([&] {  // read when inputs are set and outputs taken
      for (const bool inputs : {true, false}) {
        const auto* v = inputs ? plan.inputs() : plan.outputs();
        if (!v || !values_) continue;
        for (flatbuffers::uoffset_t k = 0; k < v->size(); ++k) {
          check_index(element(v, k), at + (inputs ? "/inputs/" : "/outputs/") + std::to_string(k),
                      inputs ? "input" : "output");
        }
      }
    });
    const auto* delegates = plan.delegates();
    if (!delegates) {
      add(at + "/delegates", "missing (Method::init needs the delegates vector, even empty)");
    } else {
      for (flatbuffers::uoffset_t k = 0; k < delegates->size(); ++k) {
        const fb::BackendDelegate* d = delegates->Get(k);
        if (!d || !d->id()) add(at + "/delegates/" + std::to_string(k) + "/id", "missing backend id");
      }
    }
    const auto* chains = plan.chains();
    if (!chains || chains->size() == 0) {
      add(at + "/chains", "no chains: a method needs at least one chain of instructions");
      return;
    }
    for (flatbuffers::uoffset_t c = 0; c < chains->size(); ++c) {
      const fb::Chain* chain = chains->Get(c);
      const std::string cat = at + "/chains/" + std::to_string(c);
      if (!chain || !chain->instructions()) {
        add(cat + "/instructions", "missing");
        continue;
      }
      const auto* instructions = chain->instructions();
      for (flatbuffers::uoffset_t k = 0; k < instructions->size(); ++k) {
        check_instruction(instructions->Get(k), delegates ? delegates->size() : 0,
                          cat + "/instructions/" + std::to_string(k), at);
      }
    }
  }

  void check_value(flatbuffers::uoffset_t i, const std::string& at) {
    const fb::EValue* v = values_->Get(i);
    if (!v) {
      add(at, "missing value");
      return;
    }
    const fb::KernelTypes type = v->val_type();
    if (type == fb::KernelTypes::NONE || static_cast<int>(type) > static_cast<int>(fb::KernelTypes::MAX)) {
      add(at, "unknown value type " + std::to_string(static_cast<int>(type)));
      return;
    }
    if (type == fb::KernelTypes::Null) return;
    if (!v->val()) {
      add(at + "/val", "missing " + kind_name(type) + " payload");
      return;
    }
    switch (type) {
      case fb::KernelTypes::IntList: {
        const auto* items = v->val_as_IntList()->items();
        if (!items) {
          add(at + "/val/items", "missing list items");
          break;
        }
        for (flatbuffers::uoffset_t k = 0; k < items->size(); ++k) {
          const std::string iat = at + "/val/items/" + std::to_string(k);
          if (!check_index(element(items, k), iat, "IntList item")) continue;
          const fb::EValue* item = value_at(element(items, k));
          if (item->val_type() == fb::KernelTypes::Int) continue;
          at_execution([&] {  // a kernel reading the list takes each item as an Int
            add(iat, "IntList item " + std::to_string(element(items, k)) + " is " + a_kind(item->val_type()) +
                         " value; the runtime reads each item as an Int");
          });
        }
        break;
      }
      case fb::KernelTypes::DoubleList:
        if (!v->val_as_DoubleList()->items()) add(at + "/val/items", "missing list items");
        break;
      case fb::KernelTypes::BoolList:
        if (!v->val_as_BoolList()->items()) add(at + "/val/items", "missing list items");
        break;
      case fb::KernelTypes::String:
        if (!v->val_as_String()->string_val()) add(at + "/val/string_val", "missing string");
        break;
      case fb::KernelTypes::TensorList:
      case fb::KernelTypes::OptionalTensorList: {
        const bool optional = type == fb::KernelTypes::OptionalTensorList;
        const auto* items =
            optional ? v->val_as_OptionalTensorList()->items() : v->val_as_TensorList()->items();
        if (!items) {
          add(at + "/val/items", "missing list items");
          break;
        }
        for (flatbuffers::uoffset_t k = 0; k < items->size(); ++k) {
          const int32_t item = element(items, k);
          const std::string iat = at + "/val/items/" + std::to_string(k);
          if (optional && item == -1) continue;  // None
          if (!check_index(item, iat, kind_name(type) + " item")) continue;
          const fb::KernelTypes t = value_at(item)->val_type();
          if (t != fb::KernelTypes::Tensor && !(optional && t == fb::KernelTypes::Null)) {
            add(iat, kind_name(type) + " item " + std::to_string(item) + " is " + a_kind(t) + " value; " +
                         (optional ? "a Tensor, a Null or -1" : "a Tensor") + " expected");
          } else if (static_cast<flatbuffers::uoffset_t>(item) >= i) {
            add(iat, kind_name(type) + " item " + std::to_string(item) +
                         " comes after the list; the runtime reads list items while it parses the values in "
                         "order");
          }
        }
        break;
      }
      case fb::KernelTypes::Tensor:
        check_tensor(*v->val_as_Tensor(), at + "/val");
        break;
      default:
        break;
    }
  }

  void check_tensor(const fb::Tensor& t, const std::string& at) {
    if (t.storage_offset() != 0) {
      add(at + "/storage_offset",
          "is " + std::to_string(t.storage_offset()) + "; the runtime supports only 0");
    }
    const int code = static_cast<int>(t.scalar_type());
    if (code < 0 || code > kLastScalarType)
      add(at + "/scalar_type", "unknown scalar type " + std::to_string(code));
    if (t.shape_dynamism() == fb::TensorShapeDynamism::DYNAMIC_UNBOUND) {
      add(at + "/shape_dynamism", "DYNAMIC_UNBOUND: the runtime does not support unbounded shapes");
    }
    const auto* sizes = t.sizes();
    const auto* dim_order = t.dim_order();
    if (!sizes) add(at + "/sizes", "missing (a rank-0 tensor has an empty list)");
    if (!dim_order) add(at + "/dim_order", "missing (a rank-0 tensor has an empty list)");
    if (!sizes) return;
    const size_t rank = sizes->size();
    if (rank > kMaxRank) {
      add(at + "/sizes",
          "rank " + std::to_string(rank) + " is above the runtime's limit of " + std::to_string(kMaxRank));
      return;
    }
    if (dim_order) {
      if (dim_order->size() != rank) {
        add(at + "/dim_order", "has " + std::to_string(dim_order->size()) + " entries for a rank-" +
                                   std::to_string(rank) + " tensor");
      } else {
        std::vector<bool> seen(rank, false);
        for (flatbuffers::uoffset_t k = 0; k < rank; ++k) {
          const size_t d = element(dim_order, k);
          if (d >= rank || seen[d]) {
            add(at + "/dim_order", "is not a permutation of 0.." + std::to_string(rank - 1));
            break;
          }
          seen[d] = true;
        }
      }
    }
    // numel and bytes, as validate_tensor computes them.
    uint64_t numel = 1;
    for (flatbuffers::uoffset_t k = 0; k < rank; ++k) {
      const int32_t s = element(sizes, k);
      if (s < 0) {
        add(at + "/sizes/" + std::to_string(k), "negative size " + std::to_string(s));
        return;
      }
      if (s != 0 && numel > static_cast<uint64_t>(INT64_MAX) / static_cast<uint64_t>(s)) {
        add(at + "/sizes", "the element count overflows 64 bits");
        return;
      }
      numel *= static_cast<uint64_t>(s);
    }
    const int element = runtime_element_size(code);
    if (element == 0) return;  // unknown type (reported above): no byte count
    if (numel > UINT64_MAX / static_cast<uint64_t>(element)) {
      add(at + "/sizes", "the byte count overflows 64 bits");
      return;
    }
    check_data(t, numel * static_cast<uint64_t>(element), at);
  }

  /// Where the tensor's `nbytes` bytes come from (getTensorDataPtr).
  void check_data(const fb::Tensor& t, uint64_t nbytes, const std::string& at) {
    const fb::ExtraTensorInfo* extra = t.extra_tensor_info();
    const fb::AllocationDetails* alloc = t.allocation_info();
    if (extra && extra->location() == fb::TensorDataLocation::EXTERNAL) {
      if (!extra->fully_qualified_name()) {
        add(at + "/extra_tensor_info/fully_qualified_name",
            "missing: an EXTERNAL tensor is found by its name");
      }
      // The data comes from a .ptd file: a constant as it lies there, a
      // planned (mutable) one loaded into its planned memory, which must fit
      // (getTensorDataPtr's external branch calls getMemPlannedPtr).
      if (alloc) check_planned(*alloc, nbytes, at + "/allocation_info");
      return;
    }
    const uint32_t index = t.data_buffer_idx();
    if (alloc) {
      check_planned(*alloc, nbytes, at + "/allocation_info");
      if (index > 0) check_mutable_data(index, nbytes, at);
      return;
    }
    if (index > 0) check_constant(index, nbytes, at);
  }

  /// A planned tensor: memory_id - 1 indexes the planned buffers, sized as
  /// non_const_buffer_sizes[1..] (HierarchicalAllocator::get_offset_address).
  void check_planned(const fb::AllocationDetails& a, uint64_t nbytes, const std::string& at) {
    const size_t buffers = buffer_sizes_ ? buffer_sizes_->size() : 0;
    const uint32_t id = a.memory_id();
    if (id == 0 || id >= buffers) {
      const std::string ids = buffers <= 1 ? "the method has no planned buffer"
                              : buffers == 2
                                  ? "the planned buffer is id 1"
                                  : "the planned buffers are ids 1 to " + std::to_string(buffers - 1);
      add(at + "/memory_id",
          "memory_id " + std::to_string(id) + " names no planned buffer (non_const_buffer_sizes has " +
              std::to_string(buffers) + (buffers == 1 ? " entry: " : " entries: ") + ids + ")");
      return;
    }
    const uint64_t offset = (static_cast<uint64_t>(a.memory_offset_high()) << 32) | a.memory_offset_low();
    const int64_t size = element(buffer_sizes_, id);
    if (size < 0 || offset > static_cast<uint64_t>(size) || nbytes > static_cast<uint64_t>(size) - offset) {
      add(at, std::to_string(nbytes) + " bytes at offset " + std::to_string(offset) +
                  " do not fit planned buffer " + std::to_string(id) + " (" + std::to_string(size) +
                  " bytes)");
    }
  }

  /// Constant data (Program::get_constant_buffer_data): the constant segment
  /// when constant_segment has more than its placeholder offset (as
  /// Program::load decides), else the deprecated inline constant_buffer.
  void check_constant(uint32_t index, uint64_t nbytes, const std::string& at) {
    const fb::SubsegmentOffsets* cs = p_.constant_segment();
    const auto* offsets = cs ? cs->offsets() : nullptr;
    if (offsets && offsets->size() > 1) {
      if (index >= offsets->size()) {
        add(at + "/data_buffer_idx", "constant " + std::to_string(index) +
                                         " is not in constant_segment.offsets (" +
                                         std::to_string(offsets->size()) + " entries)");
        return;
      }
      const uint64_t offset = element(offsets, index);
      const uint64_t size = segment_size(cs->segment_index());
      if (size == 0) {
        // FileDataLoader and MmapDataLoader hand back no data for an empty
        // segment; get_constant_buffer_data then takes the inline route.
        const auto* inline_buffers = p_.constant_buffer();
        add(at + "/data_buffer_idx", "constant " + std::to_string(index) +
                                         ": the constant segment is empty (0 bytes), which ExecuTorch's file "
                                         "and mmap loaders load as no "
                                         "data, so the runtime looks for the constant in constant_buffer (" +
                                         std::to_string(inline_buffers ? inline_buffers->size() : 0) +
                                         " entries) and fails; only a buffer loader would load it");
        return;
      }
      if (offset > size || nbytes > size - offset) {
        add(at + "/data_buffer_idx", "constant " + std::to_string(index) + ": " + std::to_string(nbytes) +
                                         " bytes at offset " + std::to_string(offset) + " run past the " +
                                         std::to_string(size) + "-byte constant segment");
      }
      return;
    }
    const auto* inline_buffers = p_.constant_buffer();
    if (!inline_buffers || index >= inline_buffers->size()) {
      add(at + "/data_buffer_idx", "constant " + std::to_string(index) +
                                       " names no constant data (constant_segment has no constants and "
                                       "constant_buffer " +
                                       std::to_string(inline_buffers ? inline_buffers->size() : 0) +
                                       " entries)");
      return;
    }
    const fb::Buffer* b = inline_buffers->Get(index);
    if (!b || !b->storage()) {
      // Program::get_constant_buffer_data returns storage()->data() unchecked.
      add(at + "/data_buffer_idx",
          "inline constant " + std::to_string(index) +
              " has no storage vector: the runtime would read its data through a null "
              "pointer");
      return;
    }
    const uint64_t stored = b->storage()->size();
    if (stored > nbytes) {
      add(at + "/data_buffer_idx", "inline constant " + std::to_string(index) + " holds " +
                                       std::to_string(stored) + " bytes, more than the tensor's " +
                                       std::to_string(nbytes));
    }
  }

  /// Initial data of a planned tensor: entry `index` of mutable_data_segments[0]
  /// (Program::load_mutable_subsegment_into).
  void check_mutable_data(uint32_t index, uint64_t nbytes, const std::string& at) {
    const auto* ms = p_.mutable_data_segments();
    const fb::SubsegmentOffsets* m = ms && ms->size() > 0 ? ms->Get(0) : nullptr;
    if (!m || !m->offsets() || index >= m->offsets()->size()) {
      add(at + "/data_buffer_idx",
          "initial data " + std::to_string(index) + " is not in mutable_data_segments[0].offsets (" +
              std::to_string(m && m->offsets() ? m->offsets()->size() : 0) + " entries)");
      return;
    }
    const uint64_t offset = element(m->offsets(), index);
    const uint64_t size = segment_size(m->segment_index());
    if (offset > size || nbytes > size - offset) {
      add(at + "/data_buffer_idx", "initial data " + std::to_string(index) + ": " + std::to_string(nbytes) +
                                       " bytes at offset " + std::to_string(offset) + " run past the " +
                                       std::to_string(size) + "-byte mutable data segment");
    }
  }

  uint64_t segment_size(uint32_t index) const {
    const auto* segments = p_.segments();
    if (!segments || index >= segments->size() || !segments->Get(index)) return 0;
    return segments->Get(index)->size();
  }

  void check_args(const flatbuffers::Vector<int32_t>* args, const std::string& at) {
    if (!args) {
      add(at + "/args", "missing argument list");
      return;
    }
    for (flatbuffers::uoffset_t k = 0; k < args->size(); ++k) {
      check_index(element(args, k), at + "/args/" + std::to_string(k), "argument");
    }
  }

  /// The operator a KernelCall names, as resolve_operator reads it: its name
  /// must be present and fit the runtime's name buffer. Once per operator;
  /// operators no instruction names are never read.
  void check_operator(size_t index, const std::string& plan_at) {
    if (checked_ops_[index]) return;
    checked_ops_[index] = true;
    const fb::Operator* op = ops_->Get(static_cast<flatbuffers::uoffset_t>(index));
    const std::string at = plan_at + "/operators/" + std::to_string(index);
    if (!op || !op->name()) {
      add(at + "/name", "missing operator name");
      return;
    }
    const size_t overload = op->overload() ? op->overload()->size() : 0;
    const size_t length = op->name()->size() + (overload ? 1 + overload : 0);
    if (length >= kOperatorNameBuffer) {
      add(at, "operator name '" + op->name()->str() + (overload ? "." + op->overload()->str() : "") +
                  "' is " + std::to_string(length) + " bytes; the runtime resolves names of at most " +
                  std::to_string(kOperatorNameBuffer - 1));
    }
  }

  /// The portable kernels of dim_order_ops::_to_dim_order_copy.out and
  /// _clone_dim_order.out (args: self, non_blocking, dim_order, out, out)
  /// refuse an out tensor whose dim order differs from the dim_order list
  /// they are given (ExecuTorch's check__to_dim_order_copy_args):
  /// InvalidArgument when the instruction runs.
  void check_dim_order_copy(const fb::KernelCall* k, const std::string& aat) {
    const fb::Operator* op = ops_->Get(static_cast<flatbuffers::uoffset_t>(k->op_index()));
    if (!op || !op->name() || !op->overload() || op->overload()->str() != "out") return;
    const std::string name = op->name()->str();
    if (name != "dim_order_ops::_to_dim_order_copy" && name != "dim_order_ops::_clone_dim_order") return;
    const auto* args = k->args();
    if (!args || args->size() != 5) return;
    auto valid = [this](int32_t i) {
      return values_ && i >= 0 && static_cast<size_t>(i) < values_->size() && value_at(i);
    };
    const int32_t order_at = element(args, 2), out_at = element(args, 3);
    if (!valid(order_at) || !valid(out_at)) return;
    const fb::EValue* order = value_at(order_at);
    const fb::EValue* out = value_at(out_at);
    if (order->val_type() != fb::KernelTypes::IntList || out->val_type() != fb::KernelTypes::Tensor) return;
    const auto* items = order->val_as_IntList()->items();
    const fb::Tensor* t = out->val_as_Tensor();
    if (!items || !t || !t->dim_order()) return;
    std::vector<int64_t> asked;
    for (flatbuffers::uoffset_t j = 0; j < items->size(); ++j) {
      const int32_t item = element(items, j);
      if (!valid(item) || value_at(item)->val_type() != fb::KernelTypes::Int) return;
      asked.push_back(value_at(item)->val_as_Int()->int_val());
    }
    std::vector<int64_t> has(t->dim_order()->begin(), t->dim_order()->end());
    if (asked == has) return;
    at_execution([&] {
      add(aat + "/args/3", name + ".out writes value " + std::to_string(out_at) + ", whose dim_order is " +
                               list_text(has) + ", but is asked for dim_order " + list_text(asked) +
                               " (value " + std::to_string(order_at) +
                               "); the portable kernel refuses an out tensor of "
                               "another dim order");
    });
  }

  void check_instruction(const fb::Instruction* ins, size_t n_delegates, const std::string& at,
                         const std::string& plan_at) {
    if (!ins || !ins->instr_args()) {
      add(at, "null instruction");
      return;
    }
    const std::string aat = at + "/instr_args";
    const size_t n_operators = ops_ ? ops_->size() : 0;
    switch (ins->instr_args_type()) {
      case fb::InstructionArguments::KernelCall: {
        const fb::KernelCall* k = ins->instr_args_as_KernelCall();
        if (k->op_index() < 0 || static_cast<size_t>(k->op_index()) >= n_operators) {
          add(aat + "/op_index", "op_index " + std::to_string(k->op_index()) +
                                     " names no operator (the method has " +
                                     counted(n_operators, "operator") + ")");
        } else {
          check_operator(static_cast<size_t>(k->op_index()), plan_at);
          check_dim_order_copy(k, aat);
        }
        check_args(k->args(), aat);
        break;
      }
      case fb::InstructionArguments::DelegateCall: {
        const fb::DelegateCall* d = ins->instr_args_as_DelegateCall();
        if (d->delegate_index() < 0 || static_cast<size_t>(d->delegate_index()) >= n_delegates) {
          at_execution([&] {  // Method::execute_instruction checks it
            add(aat + "/delegate_index", "delegate_index " + std::to_string(d->delegate_index()) +
                                             " names no delegate (the method has " +
                                             counted(n_delegates, "delegate") + ")");
          });
        }
        check_args(d->args(), aat);
        break;
      }
      case fb::InstructionArguments::JumpFalseCall: {
        const int32_t c = ins->instr_args_as_JumpFalseCall()->cond_value_index();
        if (!check_index(c, aat + "/cond_value_index", "condition")) break;
        const fb::EValue* v = value_at(c);
        const bool bool_tensor = v->val_type() == fb::KernelTypes::Tensor && v->val_as_Tensor() &&
                                 v->val_as_Tensor()->scalar_type() == fb::ScalarType::BOOL;
        if (v->val_type() != fb::KernelTypes::Bool && !bool_tensor) {
          at_execution([&] {  // the condition's type is checked when the jump runs
            add(aat + "/cond_value_index", "condition " + std::to_string(c) + " is " + a_kind(v->val_type()) +
                                               " value; a Bool or a bool tensor expected");
          });
        }
        break;
      }
      case fb::InstructionArguments::MoveCall: {
        const fb::MoveCall* m = ins->instr_args_as_MoveCall();
        check_index(m->move_from(), aat + "/move_from", "move source");
        check_index(m->move_to(), aat + "/move_to", "move target");
        break;
      }
      case fb::InstructionArguments::FreeCall: {
        const int32_t f = ins->instr_args_as_FreeCall()->value_index();
        if (check_index(f, aat + "/value_index", "freed value") &&
            value_at(f)->val_type() != fb::KernelTypes::Tensor) {
          at_execution([&] {
            add(aat + "/value_index", "freed value " + std::to_string(f) + " is " +
                                          a_kind(value_at(f)->val_type()) + " value; only tensors are freed");
          });
        }
        break;
      }
      default:
        add(aat, "unknown instruction type " + std::to_string(static_cast<int>(ins->instr_args_type())));
        break;
    }
  }

  const fb::Program& p_;
  const flatbuffers::Vector<flatbuffers::Offset<fb::EValue>>* values_ = nullptr;
  const flatbuffers::Vector<int64_t>* buffer_sizes_ = nullptr;
  const flatbuffers::Vector<flatbuffers::Offset<fb::Operator>>* ops_ = nullptr;
  std::vector<bool> checked_ops_;  ///< operators already checked, by index
  LoadCheck result_;
  bool at_execution_ = false;  ///< what add() records is met when the method runs
};

}  // namespace

LoadCheck check_method_load(const fb::Program& p) { return Checker(p).run(); }

std::string format_load_check(const LoadCheck& check, size_t methods) {
  std::string text;
  for (const LoadProblem& p : check.problems) {
    text += p.pointer + ": " + p.message + (p.at_execution ? " (when the method runs)" : "") + "\n";
  }
  if (check.total > check.problems.size()) {
    text += "... and " + std::to_string(check.total - check.problems.size()) + " more\n";
  }
  text += check.total == 0 ? "load check passed: " + std::to_string(methods) +
                                 (methods == 1 ? " method" : " methods") + " would load\n"
                           : "load check failed: " + std::to_string(check.total) +
                                 (check.total == 1 ? " problem" : " problems") + "\n";
  return text;
}

}  // namespace pteforge::emit
