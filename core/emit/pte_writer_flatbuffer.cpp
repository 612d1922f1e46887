// Program model → flatbuffer bytes (see build_program_flatbuffer in pte_writer.h).
//
// Order of writing. ExecuTorch's Python serializer builds the flatbuffer
// with the generated object API: each table's Pack() first writes its
// children (strings, vectors, sub-tables, union members) in field order, then
// starts the table and adds its fields in schema order. Older releases went
// through flatc's JSON parser instead, which writes children the same way but
// adds fields widest first, in reverse field order within one width. Each
// write_* function below builds children in field order and lists its fields
// in schema order with their widths; add_fields() applies the chosen layout.
// Scalars equal to their default are skipped by the builder in both.
//
// vtable sharing also differs: the C++ builder (used by flatc) shares a
// vtable only when it is identical, while the Python builder shares one when
// the field offsets match, even if the table size in the vtable's header
// differs (its dedup key is the field offsets alone). PteBuilder::end_table
// reproduces the Python rule for the ObjectApi layout.
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <utility>

#include "emit/extended_header.h"
#include "emit/pte_writer.h"
#include "schema/program_generated.h"
#include "support/huge_pages.h"

namespace pteforge::emit {
namespace {

namespace fb = executorch_flatbuffer;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;
using flatbuffers::Vector;

// Upper bound of the bytes one table takes beside its children (vtable with
// up to 10 fields, table, alignment padding).
constexpr uint64_t kTableBound = 128;
// Upper bound of a vector's or string's overhead (length, terminator, padding).
constexpr uint64_t kVectorBound = 16;
// Largest flatbuffer: offsets are signed 32-bit.
constexpr uint64_t kMaxFlatbuffer = (uint64_t{1} << 31) - 1;

uint64_t bound_str(const std::string& s) { return kVectorBound + s.size(); }

uint64_t bound_tensor(const Tensor& t) {
  uint64_t n = kTableBound + 2 * kVectorBound + 4 * t.sizes.size() + t.dim_order.size();
  if (t.allocation_info) n += kTableBound;
  if (t.extra_tensor_info) {
    n += kTableBound;
    if (t.extra_tensor_info->fully_qualified_name) n += bound_str(*t.extra_tensor_info->fully_qualified_name);
  }
  return n;
}

// A generous upper bound of the flatbuffer's size, so that an oversized
// program is refused before the builder runs into its own limit.
uint64_t bound_program(const Program& p, const SerializeOptions& o) {
  uint64_t n = kTableBound + 8 * kVectorBound;
  for (const auto& plan : p.execution_plan) {
    n += kTableBound + 10 * kVectorBound + bound_str(plan.name) + kTableBound +
         bound_str(plan.container_meta_type.encoded_inp_str) + bound_str(plan.container_meta_type.encoded_out_str);
    for (const auto& v : plan.values) {
      n += 2 * kTableBound + 4;
      std::visit(
          [&n](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, Tensor>) {
              n += bound_tensor(x);
            } else if constexpr (std::is_same_v<T, String>) {
              n += bound_str(x.string_val);
            } else if constexpr (std::is_same_v<T, IntList> || std::is_same_v<T, DoubleList>) {
              n += kVectorBound + 8 * x.items.size();
            } else if constexpr (std::is_same_v<T, BoolList>) {
              n += kVectorBound + x.items.size();
            } else if constexpr (std::is_same_v<T, TensorList> || std::is_same_v<T, OptionalTensorList>) {
              n += kVectorBound + 4 * x.items.size();
            }
          },
          v.val);
    }
    n += 4 * (plan.inputs.size() + plan.outputs.size()) + 8 * plan.non_const_buffer_sizes.size();
    for (const auto& c : plan.chains) {
      n += kTableBound + 4 * kVectorBound + 4 * (c.inputs.size() + c.outputs.size());
      for (const auto& ins : c.instructions) {
        n += 2 * kTableBound + kVectorBound + 4;
        if (auto* k = std::get_if<KernelCall>(&ins.instr_args)) n += 4 * k->args.size();
        if (auto* d = std::get_if<DelegateCall>(&ins.instr_args)) n += 4 * d->args.size();
      }
      if (c.stacktrace) {
        for (const auto& fl : *c.stacktrace) {
          n += kTableBound + kVectorBound + 4;
          for (const auto& f : fl.items) {
            n += kTableBound + 4 + bound_str(f.filename) + bound_str(f.name) + bound_str(f.context);
          }
        }
      }
    }
    for (const auto& op : plan.operators) n += kTableBound + 4 + bound_str(op.name) + bound_str(op.overload);
    for (const auto& d : plan.delegates) {
      n += 2 * kTableBound + kVectorBound + 4 + bound_str(d.id);
      for (const auto& cs : d.compile_specs) n += kTableBound + 4 + bound_str(cs.key) + kVectorBound + cs.value.size();
    }
    if (plan.non_const_buffer_device) n += kVectorBound + (kTableBound + 4) * plan.non_const_buffer_device->size();
  }
  for (const auto& b : p.constant_buffer) n += kTableBound + 4 + kVectorBound + o.constant_tensor_alignment + b.storage.size();
  for (const auto& b : p.backend_delegate_data) n += kTableBound + 4 + kVectorBound + o.delegate_alignment + b.data.size();
  n += (kTableBound + 4) * p.segments.size();
  if (p.constant_segment) n += kTableBound + kVectorBound + 8 * p.constant_segment->offsets.size();
  if (p.mutable_data_segments) {
    for (const auto& m : *p.mutable_data_segments) n += kTableBound + 4 + kVectorBound + 8 * m.offsets.size();
  }
  if (p.named_data) {
    for (const auto& nd : *p.named_data) n += kTableBound + 4 + bound_str(nd.key);
  }
  return n;
}

/// flatbuffers' buffers from HugePageHintAllocator: huge pages advised for
/// the large ones (support/huge_pages.h).
class HugePageBufferAllocator final : public flatbuffers::Allocator {
 public:
  uint8_t* allocate(size_t size) override { return HugePageHintAllocator<uint8_t>().allocate(size); }
  void deallocate(uint8_t* p, size_t size) override { HugePageHintAllocator<uint8_t>().deallocate(p, size); }
};

/// One stateless instance, shared by every builder.
HugePageBufferAllocator& buffer_allocator() {
  static HugePageBufferAllocator allocator;
  return allocator;
}

// FlatBufferBuilder with a second way to end a table: vtables are shared
// when their field entries match, ignoring the table-size entry (the Python
// builder's rule). Everything else is the stock builder.
class PteBuilder : public FlatBufferBuilder {
 public:
  explicit PteBuilder(size_t initial_size) : FlatBufferBuilder(initial_size, &buffer_allocator(), false) {}

  /// Ends the table started at `start` (a generated Builder's start_) and
  /// returns its offset, like EndTable.
  flatbuffers::uoffset_t end_table_sharing_by_fields(flatbuffers::uoffset_t start) {
    using flatbuffers::soffset_t;
    using flatbuffers::uoffset_t;
    using flatbuffers::voffset_t;
    constexpr size_t kEntry = sizeof(voffset_t);
    // The table starts with the offset to its vtable; filled in at the end.
    const uoffset_t table = PushElement<soffset_t>(0);
    // vtable = [its size, table size, one entry per field up to the last set].
    const voffset_t vt_size = (std::max)(static_cast<voffset_t>(max_voffset_ + kEntry), flatbuffers::FieldIndexToOffset(0));
    buf_.fill_big(vt_size);
    uint8_t* vt = buf_.data();
    flatbuffers::WriteScalar<voffset_t>(vt, vt_size);
    flatbuffers::WriteScalar<voffset_t>(vt + kEntry, static_cast<voffset_t>(table - start));
    const uint8_t* fields_end = buf_.scratch_end();
    for (const uint8_t* p = fields_end - num_field_loc * sizeof(FieldLoc); p < fields_end; p += sizeof(FieldLoc)) {
      FieldLoc loc;
      std::memcpy(&loc, p, sizeof loc);
      flatbuffers::WriteScalar<voffset_t>(vt + loc.id, static_cast<voffset_t>(table - loc.off));
    }
    ClearOffsets();
    uoffset_t vt_at = GetSize();
    for (const uint8_t* p = buf_.scratch_data(); p < buf_.scratch_end(); p += sizeof(uoffset_t)) {
      uoffset_t earlier;
      std::memcpy(&earlier, p, sizeof earlier);
      const uint8_t* other = buf_.data_at(earlier);
      if (flatbuffers::ReadScalar<voffset_t>(other) != vt_size) continue;
      if (std::memcmp(other + 2 * kEntry, vt + 2 * kEntry, vt_size - 2 * kEntry) != 0) continue;
      vt_at = earlier;
      buf_.pop(GetSize() - table);  // drop the vtable just written
      break;
    }
    if (vt_at == GetSize()) buf_.scratch_push_small(vt_at);
    flatbuffers::WriteScalar(buf_.data_at(table), static_cast<soffset_t>(vt_at) - static_cast<soffset_t>(table));
    nested = false;
    return table;
  }
};

class FlatbufferWriter {
 public:
  /// `initial_size`: the builder's first buffer, in bytes (it grows by half
  /// its size whenever it is full, copying what it holds).
  FlatbufferWriter(const SerializeOptions& options, size_t initial_size)
      : options_(options), fbb_(initial_size) {}

  Result<std::vector<uint8_t>> finish(const Program& p) {
    PTEFORGE_ASSIGN_OR_RETURN(FramedFlatbuffer framed, finish_framed(p, FlatbufferFraming{}));
    return std::move(framed.bytes);
  }

  /// Builds the flatbuffer and copies it out of the builder once, inserting
  /// the framing's header after byte 8 and its padding at the end as it copies.
  Result<FramedFlatbuffer> finish_framed(const Program& p, const FlatbufferFraming& framing) {
    auto root = write_program(p);
    if (!error_.empty()) {
      Location where;
      where.pointer = error_pointer_;
      return make_error(ErrorCode::UNSUPPORTED_FEATURE, error_, where);
    }
    fb::FinishProgramBuffer(fbb_, root);
    const uint8_t* data = fbb_.GetBufferPointer();
    const size_t size = fbb_.GetSize();
    FramedFlatbuffer out;
    out.flatbuffer_size = size;
    if (!framing.header) {
      out.bytes.reserve(size);
      advise_huge_pages(out.bytes.data(), out.bytes.capacity());
      out.bytes.assign(data, data + size);
      return out;
    }
    PTEFORGE_ASSIGN_OR_RETURN(out.bytes,
                              insert_extended_header({data, size}, framing.header(size), framing.pad_to));
    return out;
  }

 private:
  // One field of a table being written: its width on the wire (offsets are
  // 4 bytes) and the call that adds it. The call is borrowed, not owned
  // (a std::function could allocate for every field of every table): the
  // lambdas live until add_fields returns, as temporaries of its call.
  struct FieldAdd {
    template <typename F>
    FieldAdd(int w, const F& f)
        : width(w), call([](const void* fn) { (*static_cast<const F*>(fn))(); }), fn(&f) {}
    void add() const { call(fn); }
    int width;
    void (*call)(const void*);
    const void* fn;
  };

  // Adds a table's fields, given in schema order, in the order of the chosen
  // layout (see FlatbufferLayout in pte_writer.h).
  void add_fields(std::initializer_list<FieldAdd> fields) {
    if (options_.flatbuffer_layout == FlatbufferLayout::ObjectApi) {
      for (const auto& f : fields) f.add();
      return;
    }
    for (int width = 8; width >= 1; width /= 2) {
      for (auto it = std::rbegin(fields); it != std::rend(fields); ++it) {
        if (it->width == width) it->add();
      }
    }
  }

  // Ends the table of generated builder `b` with the layout's vtable rule.
  template <typename B>
  Offset<typename B::Table> end(B& b) {
    if (options_.flatbuffer_layout == FlatbufferLayout::FlatcJson) return b.Finish();
    return Offset<typename B::Table>(fbb_.end_table_sharing_by_fields(b.start_));
  }

  Offset<flatbuffers::String> str(const std::string& s) { return fbb_.CreateString(s); }
  template <typename T>
  Offset<Vector<T>> vec(const std::vector<T>& v) {
    if (v.empty()) align_empty_vector(sizeof(T));
    return fbb_.CreateVector(v);
  }

  // ExecuTorch's builders (Python's, and the flatc of older releases) align
  // an empty vector's length field as if the vector had elements; flatc
  // 2.0.8's C++ builder skips that step for empty vectors. It matters only
  // for 8-byte elements and force_align.
  void align_empty_vector(size_t alignment) {
    fbb_.Align((std::max)(alignment, sizeof(flatbuffers::uoffset_t)));
  }

  Offset<fb::ContainerMetadata> write_container(const ContainerMetadata& m) {
    auto inp = str(m.encoded_inp_str);
    auto out = str(m.encoded_out_str);
    fb::ContainerMetadataBuilder b(fbb_);
    add_fields({{4, [&] { b.add_encoded_inp_str(inp); }}, {4, [&] { b.add_encoded_out_str(out); }}});
    return end(b);
  }

  Offset<fb::AllocationDetails> write_allocation(const AllocationDetails& a) {
    fb::AllocationDetailsBuilder b(fbb_);
    add_fields({
        {4, [&] { b.add_memory_id(a.memory_id); }},
        {4, [&] { b.add_memory_offset_low(static_cast<uint32_t>(a.memory_offset & 0xFFFFFFFFu)); }},
        {4, [&] { b.add_memory_offset_high(static_cast<uint32_t>(a.memory_offset >> 32)); }},
    });
    return end(b);
  }

  Offset<fb::ExtraTensorInfo> write_extra(const ExtraTensorInfo& e) {
    Offset<flatbuffers::String> fqn;
    if (e.fully_qualified_name) fqn = str(*e.fully_qualified_name);
    fb::ExtraTensorInfoBuilder b(fbb_);
    add_fields({
        {8, [&] { b.add_mutable_data_segments_idx(e.mutable_data_segments_idx); }},
        {4, [&] { if (e.fully_qualified_name) b.add_fully_qualified_name(fqn); }},
        {1, [&] { b.add_location(static_cast<fb::TensorDataLocation>(e.location)); }},
        {1, [&] { b.add_device_type(static_cast<fb::DeviceType>(e.device_type)); }},
        {1, [&] { b.add_device_index(e.device_index); }},
    });
    return end(b);
  }

  Offset<fb::Tensor> write_tensor(const Tensor& t) {
    if (!ir::representable_in_pte(t.scalar_type) && error_.empty()) {
      error_ = "scalar type " + std::string(ir::scalar_type_name(t.scalar_type)) + " (code " +
               std::to_string(static_cast<int>(t.scalar_type)) + ") cannot be stored in a .pte";
      if (at_value_) {
        error_pointer_ = "/execution_plan/" + std::to_string(at_value_->first) + "/values/" +
                         std::to_string(at_value_->second);
      }
    }
    auto sizes = vec(t.sizes);
    auto dim_order = vec(t.dim_order);
    Offset<fb::AllocationDetails> alloc;
    if (t.allocation_info) alloc = write_allocation(*t.allocation_info);
    Offset<fb::ExtraTensorInfo> extra;
    if (t.extra_tensor_info) extra = write_extra(*t.extra_tensor_info);
    fb::TensorBuilder b(fbb_);
    add_fields({
        {1, [&] { b.add_scalar_type(static_cast<fb::ScalarType>(t.scalar_type)); }},
        {4, [&] { b.add_storage_offset(t.storage_offset); }},
        {4, [&] { b.add_sizes(sizes); }},
        {4, [&] { b.add_dim_order(dim_order); }},
        {1, [&] { b.add_requires_grad(t.requires_grad); }},
        {4, [&] { b.add_data_buffer_idx(t.data_buffer_idx); }},
        {4, [&] { if (t.allocation_info) b.add_allocation_info(alloc); }},
        {1, [&] { b.add_layout(t.layout); }},
        {1, [&] { b.add_shape_dynamism(static_cast<fb::TensorShapeDynamism>(t.shape_dynamism)); }},
        {4, [&] { if (t.extra_tensor_info) b.add_extra_tensor_info(extra); }},
    });
    return end(b);
  }

  // The union member table of an EValue.
  Offset<void> write_kernel_value(const KernelTypes& v) {
    return std::visit(
        [this](const auto& x) -> Offset<void> {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, Null>) {
            fb::NullBuilder b(fbb_);
            return end(b).Union();
          } else if constexpr (std::is_same_v<T, Int>) {
            fb::IntBuilder b(fbb_);
            b.add_int_val(x.int_val);
            return end(b).Union();
          } else if constexpr (std::is_same_v<T, Bool>) {
            fb::BoolBuilder b(fbb_);
            b.add_bool_val(x.bool_val);
            return end(b).Union();
          } else if constexpr (std::is_same_v<T, Double>) {
            fb::DoubleBuilder b(fbb_);
            b.add_double_val(x.double_val);
            return end(b).Union();
          } else if constexpr (std::is_same_v<T, Tensor>) {
            return write_tensor(x).Union();
          } else if constexpr (std::is_same_v<T, String>) {
            auto s = str(x.string_val);
            fb::StringBuilder b(fbb_);
            b.add_string_val(s);
            return end(b).Union();
          } else if constexpr (std::is_same_v<T, IntList>) {
            auto items = vec(x.items);
            fb::IntListBuilder b(fbb_);
            b.add_items(items);
            return end(b).Union();
          } else if constexpr (std::is_same_v<T, DoubleList>) {
            auto items = vec(x.items);
            fb::DoubleListBuilder b(fbb_);
            b.add_items(items);
            return end(b).Union();
          } else if constexpr (std::is_same_v<T, BoolList>) {
            if (x.items.empty()) align_empty_vector(1);
            auto items = fbb_.CreateVector(x.items);
            fb::BoolListBuilder b(fbb_);
            b.add_items(items);
            return end(b).Union();
          } else if constexpr (std::is_same_v<T, TensorList>) {
            auto items = vec(x.items);
            fb::TensorListBuilder b(fbb_);
            b.add_items(items);
            return end(b).Union();
          } else {
            static_assert(std::is_same_v<T, OptionalTensorList>);
            auto items = vec(x.items);
            fb::OptionalTensorListBuilder b(fbb_);
            b.add_items(items);
            return end(b).Union();
          }
        },
        v);
  }

  Offset<fb::EValue> write_evalue(const EValue& v) {
    auto val = write_kernel_value(v.val);
    fb::EValueBuilder b(fbb_);
    add_fields({
        {1, [&] { b.add_val_type(static_cast<fb::KernelTypes>(v.val.index() + 1)); }},
        {4, [&] { b.add_val(val); }},
    });
    return end(b);
  }

  Offset<void> write_instruction_args(const InstructionArguments& a) {
    return std::visit(
        [this](const auto& x) -> Offset<void> {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, KernelCall>) {
            auto args = vec(x.args);
            fb::KernelCallBuilder b(fbb_);
            add_fields({{4, [&] { b.add_op_index(x.op_index); }}, {4, [&] { b.add_args(args); }}});
            return end(b).Union();
          } else if constexpr (std::is_same_v<T, DelegateCall>) {
            auto args = vec(x.args);
            fb::DelegateCallBuilder b(fbb_);
            add_fields({{4, [&] { b.add_delegate_index(x.delegate_index); }}, {4, [&] { b.add_args(args); }}});
            return end(b).Union();
          } else if constexpr (std::is_same_v<T, MoveCall>) {
            fb::MoveCallBuilder b(fbb_);
            add_fields({{4, [&] { b.add_move_from(x.move_from); }}, {4, [&] { b.add_move_to(x.move_to); }}});
            return end(b).Union();
          } else if constexpr (std::is_same_v<T, JumpFalseCall>) {
            fb::JumpFalseCallBuilder b(fbb_);
            add_fields({
                {4, [&] { b.add_cond_value_index(x.cond_value_index); }},
                {4, [&] { b.add_destination_instruction(x.destination_instruction); }},
            });
            return end(b).Union();
          } else {
            static_assert(std::is_same_v<T, FreeCall>);
            fb::FreeCallBuilder b(fbb_);
            b.add_value_index(x.value_index);
            return end(b).Union();
          }
        },
        a);
  }

  Offset<fb::Instruction> write_instruction(const Instruction& ins) {
    auto args = write_instruction_args(ins.instr_args);
    fb::InstructionBuilder b(fbb_);
    add_fields({
        {1, [&] { b.add_instr_args_type(static_cast<fb::InstructionArguments>(ins.instr_args.index() + 1)); }},
        {4, [&] { b.add_instr_args(args); }},
    });
    return end(b);
  }

  Offset<fb::Frame> write_frame(const Frame& f) {
    auto filename = str(f.filename);
    auto name = str(f.name);
    auto context = str(f.context);
    fb::FrameBuilder b(fbb_);
    add_fields({
        {4, [&] { b.add_filename(filename); }},
        {4, [&] { b.add_lineno(f.lineno); }},
        {4, [&] { b.add_name(name); }},
        {4, [&] { b.add_context(context); }},
    });
    return end(b);
  }

  Offset<fb::FrameList> write_frame_list(const FrameList& fl) {
    std::vector<Offset<fb::Frame>> items;
    for (const auto& f : fl.items) items.push_back(write_frame(f));
    auto v = vec(items);
    fb::FrameListBuilder b(fbb_);
    b.add_items(v);
    return end(b);
  }

  Offset<fb::Chain> write_chain(const Chain& c) {
    auto inputs = vec(c.inputs);
    auto outputs = vec(c.outputs);
    std::vector<Offset<fb::Instruction>> ins;
    for (const auto& i : c.instructions) ins.push_back(write_instruction(i));
    auto instructions = vec(ins);
    Offset<Vector<Offset<fb::FrameList>>> stacktrace;
    if (c.stacktrace) {
      std::vector<Offset<fb::FrameList>> frames;
      for (const auto& fl : *c.stacktrace) frames.push_back(write_frame_list(fl));
      stacktrace = vec(frames);
    }
    fb::ChainBuilder b(fbb_);
    add_fields({
        {4, [&] { b.add_inputs(inputs); }},
        {4, [&] { b.add_outputs(outputs); }},
        {4, [&] { b.add_instructions(instructions); }},
        {4, [&] { if (c.stacktrace) b.add_stacktrace(stacktrace); }},
    });
    return end(b);
  }

  Offset<fb::Operator> write_operator(const Operator& op) {
    auto name = str(op.name);
    auto overload = str(op.overload);
    fb::OperatorBuilder b(fbb_);
    add_fields({{4, [&] { b.add_name(name); }}, {4, [&] { b.add_overload(overload); }}});
    return end(b);
  }

  Offset<fb::BackendDelegateDataReference> write_data_reference(const BackendDelegateDataReference& r) {
    fb::BackendDelegateDataReferenceBuilder b(fbb_);
    add_fields({
        {1, [&] { b.add_location(static_cast<fb::DataLocation>(r.location)); }},
        {4, [&] { b.add_index(r.index); }},
    });
    return end(b);
  }

  Offset<fb::CompileSpec> write_compile_spec(const CompileSpec& cs) {
    auto key = str(cs.key);
    auto value = vec(cs.value);
    fb::CompileSpecBuilder b(fbb_);
    add_fields({{4, [&] { b.add_key(key); }}, {4, [&] { b.add_value(value); }}});
    return end(b);
  }

  Offset<fb::BackendDelegate> write_delegate(const BackendDelegate& d) {
    auto id = str(d.id);
    auto processed = write_data_reference(d.processed);
    std::vector<Offset<fb::CompileSpec>> specs;
    for (const auto& cs : d.compile_specs) specs.push_back(write_compile_spec(cs));
    auto compile_specs = vec(specs);
    fb::BackendDelegateBuilder b(fbb_);
    add_fields({
        {4, [&] { b.add_id(id); }},
        {4, [&] { b.add_processed(processed); }},
        {4, [&] { b.add_compile_specs(compile_specs); }},
    });
    return end(b);
  }

  Offset<fb::NonConstBufferDevice> write_buffer_device(const NonConstBufferDevice& d) {
    fb::NonConstBufferDeviceBuilder b(fbb_);
    add_fields({
        {4, [&] { b.add_buffer_idx(d.buffer_idx); }},
        {1, [&] { b.add_device_type(static_cast<fb::DeviceType>(d.device_type)); }},
        {1, [&] { b.add_device_index(d.device_index); }},
    });
    return end(b);
  }

  Offset<fb::ExecutionPlan> write_plan(const ExecutionPlan& plan, size_t plan_index) {
    auto name = str(plan.name);
    auto container = write_container(plan.container_meta_type);
    std::vector<Offset<fb::EValue>> vals;
    vals.reserve(plan.values.size());
    for (size_t i = 0; i < plan.values.size(); ++i) {
      at_value_ = {plan_index, i};
      vals.push_back(write_evalue(plan.values[i]));
    }
    auto values = vec(vals);
    auto inputs = vec(plan.inputs);
    auto outputs = vec(plan.outputs);
    std::vector<Offset<fb::Chain>> chain_offsets;
    for (const auto& c : plan.chains) chain_offsets.push_back(write_chain(c));
    auto chains = vec(chain_offsets);
    std::vector<Offset<fb::Operator>> op_offsets;
    for (const auto& op : plan.operators) op_offsets.push_back(write_operator(op));
    auto operators = vec(op_offsets);
    std::vector<Offset<fb::BackendDelegate>> del_offsets;
    for (const auto& d : plan.delegates) del_offsets.push_back(write_delegate(d));
    auto delegates = vec(del_offsets);
    auto sizes = vec(plan.non_const_buffer_sizes);
    Offset<Vector<Offset<fb::NonConstBufferDevice>>> devices;
    if (plan.non_const_buffer_device) {
      std::vector<Offset<fb::NonConstBufferDevice>> dev_offsets;
      for (const auto& d : *plan.non_const_buffer_device) dev_offsets.push_back(write_buffer_device(d));
      devices = vec(dev_offsets);
    }
    fb::ExecutionPlanBuilder b(fbb_);
    add_fields({
        {4, [&] { b.add_name(name); }},
        {4, [&] { b.add_container_meta_type(container); }},
        {4, [&] { b.add_values(values); }},
        {4, [&] { b.add_inputs(inputs); }},
        {4, [&] { b.add_outputs(outputs); }},
        {4, [&] { b.add_chains(chains); }},
        {4, [&] { b.add_operators(operators); }},
        {4, [&] { b.add_delegates(delegates); }},
        {4, [&] { b.add_non_const_buffer_sizes(sizes); }},
        {4, [&] { if (plan.non_const_buffer_device) b.add_non_const_buffer_device(devices); }},
    });
    return end(b);
  }

  // A [ubyte] vector with force_align.
  Offset<Vector<uint8_t>> aligned_bytes(const std::vector<uint8_t>& bytes, uint64_t alignment) {
    if (bytes.empty()) align_empty_vector(static_cast<size_t>(alignment));
    if (alignment > 1) fbb_.ForceVectorAlignment(bytes.size(), sizeof(uint8_t), static_cast<size_t>(alignment));
    return fbb_.CreateVector(bytes);
  }

  Offset<fb::Buffer> write_buffer(const Buffer& buf) {
    auto storage = aligned_bytes(buf.storage, options_.constant_tensor_alignment);
    fb::BufferBuilder b(fbb_);
    b.add_storage(storage);
    return end(b);
  }

  Offset<fb::BackendDelegateInlineData> write_inline_data(const BackendDelegateInlineData& d) {
    auto data = aligned_bytes(d.data, options_.delegate_alignment);
    fb::BackendDelegateInlineDataBuilder b(fbb_);
    b.add_data(data);
    return end(b);
  }

  Offset<fb::DataSegment> write_segment(const DataSegment& s) {
    fb::DataSegmentBuilder b(fbb_);
    add_fields({{8, [&] { b.add_offset(s.offset); }}, {8, [&] { b.add_size(s.size); }}});
    return end(b);
  }

  Offset<fb::SubsegmentOffsets> write_subsegments(const SubsegmentOffsets& s) {
    auto offsets = vec(s.offsets);
    fb::SubsegmentOffsetsBuilder b(fbb_);
    add_fields({{4, [&] { b.add_segment_index(s.segment_index); }}, {4, [&] { b.add_offsets(offsets); }}});
    return end(b);
  }

  Offset<fb::NamedData> write_named(const NamedData& n) {
    auto key = str(n.key);
    fb::NamedDataBuilder b(fbb_);
    add_fields({{4, [&] { b.add_key(key); }}, {4, [&] { b.add_segment_index(n.segment_index); }}});
    return end(b);
  }

  Offset<fb::Program> write_program(const Program& p) {
    std::vector<Offset<fb::ExecutionPlan>> plan_offsets;
    for (size_t i = 0; i < p.execution_plan.size(); ++i) plan_offsets.push_back(write_plan(p.execution_plan[i], i));
    auto plans = vec(plan_offsets);
    std::vector<Offset<fb::Buffer>> buf_offsets;
    for (const auto& b : p.constant_buffer) buf_offsets.push_back(write_buffer(b));
    auto constant_buffer = vec(buf_offsets);
    std::vector<Offset<fb::BackendDelegateInlineData>> inline_offsets;
    for (const auto& d : p.backend_delegate_data) inline_offsets.push_back(write_inline_data(d));
    auto delegate_data = vec(inline_offsets);
    std::vector<Offset<fb::DataSegment>> seg_offsets;
    for (const auto& s : p.segments) seg_offsets.push_back(write_segment(s));
    auto segments = vec(seg_offsets);
    Offset<fb::SubsegmentOffsets> constant_segment;
    if (p.constant_segment) constant_segment = write_subsegments(*p.constant_segment);
    Offset<Vector<Offset<fb::SubsegmentOffsets>>> mutable_segments;
    if (p.mutable_data_segments) {
      std::vector<Offset<fb::SubsegmentOffsets>> m;
      for (const auto& s : *p.mutable_data_segments) m.push_back(write_subsegments(s));
      mutable_segments = vec(m);
    }
    Offset<Vector<Offset<fb::NamedData>>> named;
    if (p.named_data) {
      std::vector<Offset<fb::NamedData>> n;
      for (const auto& nd : *p.named_data) n.push_back(write_named(nd));
      named = vec(n);
    }
    fb::ProgramBuilder b(fbb_);
    add_fields({
        {4, [&] { b.add_version(p.version); }},
        {4, [&] { b.add_execution_plan(plans); }},
        {4, [&] { b.add_constant_buffer(constant_buffer); }},
        {4, [&] { b.add_backend_delegate_data(delegate_data); }},
        {4, [&] { b.add_segments(segments); }},
        {4, [&] { if (p.constant_segment) b.add_constant_segment(constant_segment); }},
        {4, [&] { if (p.mutable_data_segments) b.add_mutable_data_segments(mutable_segments); }},
        {4, [&] { if (p.named_data) b.add_named_data(named); }},
    });
    return end(b);
  }

  const SerializeOptions& options_;
  PteBuilder fbb_;
  /// The value being written (execution plan index, value index), for
  /// write_tensor's error pointer; built into text only for an error.
  std::optional<std::pair<size_t, size_t>> at_value_;
  std::string error_;
  std::string error_pointer_;
};

/// bound_program after checking the options; EMIT_LIMIT past kMaxFlatbuffer.
Result<uint64_t> checked_bound(const Program& program, const SerializeOptions& options) {
  for (uint64_t align : {options.constant_tensor_alignment, options.delegate_alignment}) {
    if (align == 0 || (align & (align - 1)) != 0 || align > (uint64_t{1} << 16)) {
      return make_error(ErrorCode::OPTION_INVALID, "force_align " + std::to_string(align) +
                                                       " is not a power of two up to 65536");
    }
  }
  uint64_t bound = bound_program(program, options);
  if (bound > kMaxFlatbuffer) {
    return make_error(ErrorCode::EMIT_LIMIT, "the program's flatbuffer could take up to " + std::to_string(bound) +
                                                 " bytes; the format allows at most " +
                                                 std::to_string(kMaxFlatbuffer));
  }
  return bound;
}

/// The builder's first buffer for a program whose flatbuffer takes at most
/// `bound` bytes: a quarter of it (the synthetic programs of
/// scripts/gen_synthetic.py take 13-14% of their bound), at least 4 KiB.
/// Growing from 4 KiB allocated about three times the final size in
/// successive buffers, each copied into the next: 55 MB of memory touched for
/// the first time at 100k nodes, the dearest part of serializing. A program
/// that needs more than a quarter grows as before.
size_t initial_builder_size(uint64_t bound) {
  return static_cast<size_t>(std::max<uint64_t>(bound / 4, 4096));
}

}  // namespace

Result<std::vector<uint8_t>> build_program_flatbuffer(const Program& program,
                                                      const SerializeOptions& options) {
  PTEFORGE_ASSIGN_OR_RETURN(uint64_t bound, checked_bound(program, options));
  FlatbufferWriter writer(options, initial_builder_size(bound));
  return writer.finish(program);
}

Result<FramedFlatbuffer> build_framed_program_flatbuffer(const Program& program,
                                                         const SerializeOptions& options,
                                                         const FlatbufferFraming& framing) {
  PTEFORGE_ASSIGN_OR_RETURN(uint64_t bound, checked_bound(program, options));
  FlatbufferWriter writer(options, initial_builder_size(bound));
  return writer.finish_framed(program, framing);
}

}  // namespace pteforge::emit
