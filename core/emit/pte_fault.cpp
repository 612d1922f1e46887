// Locating a FlatBuffers verification failure (see pte_fault.h).
#include "emit/pte_fault.h"

#include <functional>
#include <string_view>
#include <type_traits>

#include "schema/program_generated.h"

namespace pteforge::emit {
namespace {

namespace fb = executorch_flatbuffer;
using flatbuffers::Offset;
using flatbuffers::Table;
using flatbuffers::Vector;
using flatbuffers::Verifier;
using flatbuffers::voffset_t;

class FaultFinder {
 public:
  /// `offsets_only`: the buffer passed verification; only the offsets of
  /// vector elements are checked (see tables()).
  FaultFinder(uint8_t* buf, size_t size, size_t max_depth, size_t max_tables, bool offsets_only)
      : buf_(buf), size_(size), max_depth_(max_depth), max_tables_(max_tables), offsets_only_(offsets_only) {}

  std::optional<FlatbufferFault> run() {
    Verifier v = fresh();
    if (size_ < sizeof(flatbuffers::uoffset_t) || !v.VerifyOffset(0)) return fault("", 0);
    return program(fb::GetProgram(buf_));
  }

 private:
  /// Finds the fault inside a table of type T at `pointer`, or nullopt.
  template <typename T>
  using Deeper = std::function<std::optional<FlatbufferFault>(const T*, const std::string&)>;

  Verifier fresh() const {
    return Verifier(buf_, size_, static_cast<flatbuffers::uoffset_t>(max_depth_),
                    static_cast<flatbuffers::uoffset_t>(max_tables_));
  }

  FlatbufferFault fault(const std::string& pointer, uint64_t byte_offset) const {
    return FlatbufferFault{pointer, byte_offset};
  }

  /// Offset of `p` in the buffer, or `fallback` when it points outside.
  uint64_t at(const void* p, uint64_t fallback) const {
    auto a = reinterpret_cast<uintptr_t>(p);
    auto b = reinterpret_cast<uintptr_t>(buf_);
    return a >= b && a - b < size_ ? a - b : fallback;
  }

  template <typename T>
  static const Table* as_table(const T* t) {
    return reinterpret_cast<const Table*>(t);
  }

  /// The table's own header (its vtable) first: the fields are only read after.
  template <typename T>
  bool table_start_ok(const T* t) const {
    Verifier v = fresh();
    return as_table(t)->VerifyTableStart(v);
  }

  template <typename T>
  bool verifies(const T* t) const {
    Verifier v = fresh();
    return t->Verify(v);
  }

  /// The fault of table `t` (at `pointer`, failing verification) narrowed to
  /// one of its fields: the first field without which the table verifies
  /// (its vtable entry set to 0 for the check, then restored), found in T's
  /// mini reflection table (fields in id order: the schema gives no ids and
  /// deprecates nothing), and searched further inside a union member or
  /// sub-table that has fields of its own. The whole table when no single
  /// field is the cause (its header, or two bad fields).
  template <typename T>
  FlatbufferFault narrow(const T* t, const std::string& pointer, uint64_t fallback_at) const {
    const uint64_t table_at = at(t, fallback_at);
    FlatbufferFault whole = fault(pointer, table_at);
    if (!table_start_ok(t)) return whole;
    const flatbuffers::TypeTable* tt = T::MiniReflectTypeTable();
    const uint8_t* table = reinterpret_cast<const uint8_t*>(t);
    // table_start_ok: the vtable lies inside the buffer, whole.
    uint8_t* vtable = buf_ + (table_at - flatbuffers::ReadScalar<flatbuffers::soffset_t>(table));
    const voffset_t vtable_size = flatbuffers::ReadScalar<voffset_t>(vtable);
    for (size_t i = 0; i < tt->num_elems; ++i) {
      const size_t slot = 4 + 2 * i;
      if (slot + sizeof(voffset_t) > vtable_size) break;
      // A union's type field: without it the union is not checked at all;
      // its value field (the next one) is the one to blame.
      if (tt->type_codes[i].base_type == flatbuffers::ET_UTYPE) continue;
      const voffset_t saved = flatbuffers::ReadScalar<voffset_t>(vtable + slot);
      if (saved == 0) continue;
      flatbuffers::WriteScalar<voffset_t>(vtable + slot, 0);
      const bool ok = verifies(t);
      flatbuffers::WriteScalar<voffset_t>(vtable + slot, saved);
      if (!ok) continue;
      const std::string here = pointer + "/" + tt->names[i];
      if (auto deeper = inside(t, tt->names[i], static_cast<voffset_t>(slot), here)) return *deeper;
      return fault(here, table_at + saved < size_ ? table_at + saved : table_at);
    }
    return whole;
  }

  /// The fault inside field `name` of `t` when that field is a table with
  /// fields of its own (a value's or an instruction's union member, a
  /// tensor's allocation or extra info); nullopt for other fields.
  template <typename T>
  std::optional<FlatbufferFault> inside(const T* t, std::string_view name, voffset_t slot,
                                        const std::string& pointer) const {
    const uint64_t t_at = at(t, 0);
    // Read nothing the verifier has not bounded: the offset in the field
    // (and a union's type byte, in the slot before it) must lie in the buffer.
    Verifier v = fresh();
    if (!as_table(t)->VerifyOffset(v, slot)) return std::nullopt;
    if constexpr (std::is_same_v<T, fb::EValue>) {
      if (name != "val" || !as_table(t)->template VerifyField<uint8_t>(v, fb::EValue::VT_VAL_TYPE, 1)) {
        return std::nullopt;
      }
      switch (t->val_type()) {
        case fb::KernelTypes::Tensor:
          return member(t->val_as_Tensor(), pointer, t_at);
        case fb::KernelTypes::Int:
          return member(t->val_as_Int(), pointer, t_at);
        case fb::KernelTypes::Bool:
          return member(t->val_as_Bool(), pointer, t_at);
        case fb::KernelTypes::Double:
          return member(t->val_as_Double(), pointer, t_at);
        case fb::KernelTypes::String:
          return member(t->val_as_String(), pointer, t_at);
        case fb::KernelTypes::IntList:
          return member(t->val_as_IntList(), pointer, t_at);
        case fb::KernelTypes::DoubleList:
          return member(t->val_as_DoubleList(), pointer, t_at);
        case fb::KernelTypes::BoolList:
          return member(t->val_as_BoolList(), pointer, t_at);
        case fb::KernelTypes::TensorList:
          return member(t->val_as_TensorList(), pointer, t_at);
        case fb::KernelTypes::OptionalTensorList:
          return member(t->val_as_OptionalTensorList(), pointer, t_at);
        default:
          return std::nullopt;
      }
    } else if constexpr (std::is_same_v<T, fb::Instruction>) {
      if (name != "instr_args" ||
          !as_table(t)->template VerifyField<uint8_t>(v, fb::Instruction::VT_INSTR_ARGS_TYPE, 1)) {
        return std::nullopt;
      }
      switch (t->instr_args_type()) {
        case fb::InstructionArguments::KernelCall:
          return member(t->instr_args_as_KernelCall(), pointer, t_at);
        case fb::InstructionArguments::DelegateCall:
          return member(t->instr_args_as_DelegateCall(), pointer, t_at);
        case fb::InstructionArguments::MoveCall:
          return member(t->instr_args_as_MoveCall(), pointer, t_at);
        case fb::InstructionArguments::JumpFalseCall:
          return member(t->instr_args_as_JumpFalseCall(), pointer, t_at);
        case fb::InstructionArguments::FreeCall:
          return member(t->instr_args_as_FreeCall(), pointer, t_at);
        default:
          return std::nullopt;
      }
    } else if constexpr (std::is_same_v<T, fb::Tensor>) {
      if (name == "allocation_info") return member(t->allocation_info(), pointer, t_at);
      if (name == "extra_tensor_info") return member(t->extra_tensor_info(), pointer, t_at);
      return std::nullopt;
    } else {
      return std::nullopt;
    }
  }

  /// narrow() of a sub-table whose offset verified (it lies in the buffer);
  /// nullopt when it verifies (its parent then failed on the offset itself).
  template <typename M>
  std::optional<FlatbufferFault> member(const M* m, const std::string& pointer, uint64_t fallback_at) const {
    if (!m || verifies(m)) return std::nullopt;
    return narrow(m, pointer, fallback_at);
  }

  /// Field `field` of `parent` (at `pointer`): a vector of T tables. The
  /// fault in the field itself or in its first failing element (searched
  /// deeper with `deeper` when given), or nullopt when all of it verifies.
  /// An element whose offset does not lead forward into the buffer (below
  /// 2^31, as FlatBuffers requires of field offsets) is a fault of its own:
  /// the verifier follows such an offset with pointer arithmetic, which on a
  /// 32-bit machine (WebAssembly) wraps back into the buffer and may land on
  /// a valid table, where a 64-bit machine lands outside and refuses.
  template <typename T>
  std::optional<FlatbufferFault> tables(const Table* parent, voffset_t field, const std::string& pointer,
                                        Deeper<T> deeper = nullptr) const {
    Verifier v = fresh();
    const uint64_t parent_at = at(parent, 0);
    if (!offsets_only_ && !parent->VerifyOffset(v, field)) return fault(pointer, parent_at);
    const auto* vec = parent->GetPointer<const Vector<Offset<T>>*>(field);
    if (!vec) return std::nullopt;
    if (!offsets_only_ && !v.VerifyVector(vec)) return fault(pointer, at(vec, parent_at));
    for (flatbuffers::uoffset_t i = 0; i < vec->size(); ++i) {
      const std::string here = pointer + "/" + std::to_string(i);
      // The slot holding the element's offset: where a bad offset is reported.
      const uint8_t* slot_ptr = vec->Data() + static_cast<size_t>(i) * sizeof(flatbuffers::uoffset_t);
      const uint64_t slot = at(slot_ptr, parent_at);
      const uint64_t offset = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(slot_ptr);
      if (offset == 0 || offset > 0x7fffffffu || offset >= size_ - slot) return fault(here, slot);
      const T* element = reinterpret_cast<const T*>(slot_ptr + offset);
      if (offsets_only_) {
        if (deeper) {
          if (auto f = deeper(element, here)) return f;
        }
        continue;
      }
      // A table that verifies is still searched: on a 32-bit machine it may
      // hold a backward offset deeper down (the check above, one level lower).
      const bool ok = verifies(element);
      if (deeper && (ok || table_start_ok(element))) {
        if (auto f = deeper(element, here)) return f;
      }
      if (ok) continue;
      return narrow(element, here, slot);
    }
    return std::nullopt;
  }

  /// Field `field` of `parent`: one table of type T.
  /// (Nothing to check when offsets_only: a field's offset is checked by the
  /// verifier's own VerifyOffset, which does not wrap on a 32-bit machine.)
  template <typename T>
  std::optional<FlatbufferFault> table(const Table* parent, voffset_t field,
                                       const std::string& pointer) const {
    if (offsets_only_) return std::nullopt;
    Verifier v = fresh();
    const uint64_t parent_at = at(parent, 0);
    if (!parent->VerifyOffset(v, field)) return fault(pointer, parent_at);
    const T* t = parent->GetPointer<const T*>(field);
    if (!t || verifies(t)) return std::nullopt;
    return narrow(t, pointer, parent_at);
  }

  std::optional<FlatbufferFault> frame_list(const fb::FrameList* l, const std::string& pointer) const {
    return tables<fb::Frame>(as_table(l), fb::FrameList::VT_ITEMS, pointer + "/items");
  }

  std::optional<FlatbufferFault> delegate(const fb::BackendDelegate* d, const std::string& pointer) const {
    return tables<fb::CompileSpec>(as_table(d), fb::BackendDelegate::VT_COMPILE_SPECS,
                                   pointer + "/compile_specs");
  }

  std::optional<FlatbufferFault> chain(const fb::Chain* c, const std::string& pointer) const {
    const Table* t = as_table(c);
    if (auto f = tables<fb::Instruction>(t, fb::Chain::VT_INSTRUCTIONS, pointer + "/instructions")) return f;
    Deeper<fb::FrameList> into_frames = [this](const fb::FrameList* l, const std::string& where) {
      return frame_list(l, where);
    };
    if (auto f = tables<fb::FrameList>(t, fb::Chain::VT_STACKTRACE, pointer + "/stacktrace", into_frames)) {
      return f;
    }
    return std::nullopt;
  }

  std::optional<FlatbufferFault> plan(const fb::ExecutionPlan* p, const std::string& pointer) const {
    const Table* t = as_table(p);
    using P = fb::ExecutionPlan;
    if (auto f = tables<fb::EValue>(t, P::VT_VALUES, pointer + "/values")) return f;
    Deeper<fb::Chain> into_chain = [this](const fb::Chain* c, const std::string& where) {
      return chain(c, where);
    };
    if (auto f = tables<fb::Chain>(t, P::VT_CHAINS, pointer + "/chains", into_chain)) return f;
    if (auto f = tables<fb::Operator>(t, P::VT_OPERATORS, pointer + "/operators")) return f;
    Deeper<fb::BackendDelegate> into_delegate =
        [this](const fb::BackendDelegate* d, const std::string& where) { return delegate(d, where); };
    if (auto f = tables<fb::BackendDelegate>(t, P::VT_DELEGATES, pointer + "/delegates", into_delegate)) {
      return f;
    }
    if (auto f = table<fb::ContainerMetadata>(t, P::VT_CONTAINER_META_TYPE, pointer + "/container_meta_type")) {
      return f;
    }
    if (auto f = tables<fb::NonConstBufferDevice>(t, P::VT_NON_CONST_BUFFER_DEVICE,
                                                  pointer + "/non_const_buffer_device")) {
      return f;
    }
    return std::nullopt;
  }

  std::optional<FlatbufferFault> program(const fb::Program* p) const {
    if (!offsets_only_ && !table_start_ok(p)) return fault("", at(p, 0));
    const Table* t = as_table(p);
    using P = fb::Program;
    Deeper<fb::ExecutionPlan> into_plan = [this](const fb::ExecutionPlan* e, const std::string& where) {
      return plan(e, where);
    };
    if (auto f = tables<fb::ExecutionPlan>(t, P::VT_EXECUTION_PLAN, "/execution_plan", into_plan)) return f;
    if (auto f = tables<fb::Buffer>(t, P::VT_CONSTANT_BUFFER, "/constant_buffer")) return f;
    if (auto f =
            tables<fb::BackendDelegateInlineData>(t, P::VT_BACKEND_DELEGATE_DATA, "/backend_delegate_data")) {
      return f;
    }
    if (auto f = tables<fb::DataSegment>(t, P::VT_SEGMENTS, "/segments")) return f;
    if (auto f = table<fb::SubsegmentOffsets>(t, P::VT_CONSTANT_SEGMENT, "/constant_segment")) return f;
    if (auto f = tables<fb::SubsegmentOffsets>(t, P::VT_MUTABLE_DATA_SEGMENTS, "/mutable_data_segments")) {
      return f;
    }
    if (auto f = tables<fb::NamedData>(t, P::VT_NAMED_DATA, "/named_data")) return f;
    // Every table field verifies on its own: a scalar field of the root, or a limit.
    if (!offsets_only_ && !verifies(p)) return fault("", at(p, 0));
    return std::nullopt;
  }

  uint8_t* buf_;  // changed only by narrow(), which restores what it changes
  size_t size_;
  size_t max_depth_;
  size_t max_tables_;
  bool offsets_only_;
};

}  // namespace

std::optional<FlatbufferFault> locate_flatbuffer_fault(uint8_t* buf, size_t size, size_t max_depth,
                                                       size_t max_tables) {
  return FaultFinder(buf, size, max_depth, max_tables, false).run();
}

std::optional<FlatbufferFault> find_backward_offset(const uint8_t* buf, size_t size) {
  // offsets_only: narrow() never runs, so nothing is written.
  return FaultFinder(const_cast<uint8_t*>(buf), size, 64, 1, true).run();
}

}  // namespace pteforge::emit
