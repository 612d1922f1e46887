// The Program model: plain C++ structs mirroring core/schema/program.fbs.
//
// The emitter builds a Program, the serializer (pte_writer.h) turns it into
// .pte bytes, and the decoder (pte_decode.h) reads a .pte back into one.
// Struct and field names follow the schema (executorch-pipeline.md §2.2,
// §5.5), so a reader of program.fbs can find every field. Differences from
// the wire form, all deliberate:
// - AllocationDetails holds one 64-bit `memory_offset`; the writer splits it
//   into memory_offset_low / memory_offset_high (§5.5).
// - Unions are std::variant; the variant index + 1 is the union type code
//   (KernelTypes: Null=1 ... OptionalTensorList=11; InstructionArguments:
//   KernelCall=1 ... FreeCall=5).
// - Strings are always written (an empty string stays an empty string) and
//   read back as "" when absent; vectors likewise. Fields that ExecuTorch
//   leaves out when unset are std::optional.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/dtype.h"

namespace pteforge::emit {

/// Tensor shape kind (program.fbs TensorShapeDynamism). DynamicUnbound is
/// never written by ExecuTorch's emitter (executorch-pipeline.md §8.12).
enum class TensorShapeDynamism : int8_t { Static = 0, DynamicBound = 1, DynamicUnbound = 2 };
/// Where a tensor's bytes live (program.fbs TensorDataLocation).
enum class TensorDataLocation : int8_t { Segment = 0, External = 1 };
/// Device kind (program.fbs DeviceType); absent means CPU.
enum class DeviceType : int8_t { Cpu = 0, Cuda = 1 };
/// Where a delegate blob lives (program.fbs DataLocation).
enum class DataLocation : int8_t { Inline = 0, Segment = 1 };

/// Pytree spec strings of a method's inputs and outputs (§3.10); "" = none.
struct ContainerMetadata {
  std::string encoded_inp_str;
  std::string encoded_out_str;
  bool operator==(const ContainerMetadata&) const = default;
};

/// Placement of a memory-planned tensor: pool `memory_id`, byte offset in it.
/// Written as memory_offset_low = offset & 0xFFFFFFFF, memory_offset_high =
/// offset >> 32 (executorch-pipeline.md §5.5).
struct AllocationDetails {
  uint32_t memory_id = 0;
  uint64_t memory_offset = 0;  ///< bytes from the start of the pool
  bool operator==(const AllocationDetails&) const = default;
};

/// Rare tensor attributes (program.fbs ExtraTensorInfo).
struct ExtraTensorInfo {
  uint64_t mutable_data_segments_idx = 0;
  std::optional<std::string> fully_qualified_name;  ///< absent unless set
  TensorDataLocation location = TensorDataLocation::Segment;
  DeviceType device_type = DeviceType::Cpu;
  int8_t device_index = 0;
  bool operator==(const ExtraTensorInfo&) const = default;
};

/// A serialized tensor (executorch-pipeline.md §5.5). `sizes` are elements
/// per dimension (upper bounds when DynamicBound); `dim_order` has the same
/// length as `sizes`.
struct Tensor {
  ir::ScalarType scalar_type = ir::ScalarType::Byte;
  int32_t storage_offset = 0;  ///< in elements; the runtime accepts only 0
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  bool requires_grad = false;
  /// 0 = no stored data; else constant index (no allocation_info) or mutable
  /// data index (with allocation_info), see §5.5.
  uint32_t data_buffer_idx = 0;
  std::optional<AllocationDetails> allocation_info;
  int8_t layout = 0;  ///< 0 = strided
  TensorShapeDynamism shape_dynamism = TensorShapeDynamism::Static;
  std::optional<ExtraTensorInfo> extra_tensor_info;
  bool operator==(const Tensor&) const = default;
};

/// The None value.
struct Null {
  bool operator==(const Null&) const = default;
};
struct Int {
  int64_t int_val = 0;
  bool operator==(const Int&) const = default;
};
struct Bool {
  bool bool_val = false;
  bool operator==(const Bool&) const = default;
};
/// ±infinity is allowed (§2.2).
struct Double {
  double double_val = 0.0;
  bool operator==(const Double&) const = default;
};
struct String {
  std::string string_val;
  bool operator==(const String&) const = default;
};
/// Holds value indices of boxed Int values, by ExecuTorch's convention (§8.2),
/// although the wire type is int64.
struct IntList {
  std::vector<int64_t> items;
  bool operator==(const IntList&) const = default;
};
struct DoubleList {
  std::vector<double> items;
  bool operator==(const DoubleList&) const = default;
};
struct BoolList {
  std::vector<bool> items;
  bool operator==(const BoolList&) const = default;
};
/// Value indices of Tensor values.
struct TensorList {
  std::vector<int32_t> items;
  bool operator==(const TensorList&) const = default;
};
/// Value indices of Tensor or Null values.
struct OptionalTensorList {
  std::vector<int32_t> items;
  bool operator==(const OptionalTensorList&) const = default;
};

/// program.fbs union KernelTypes; index() + 1 is the wire type code.
using KernelTypes = std::variant<Null, Int, Bool, Double, Tensor, String, IntList, DoubleList,
                                 BoolList, TensorList, OptionalTensorList>;

/// One entry of an ExecutionPlan's values table.
struct EValue {
  KernelTypes val;
  bool operator==(const EValue&) const = default;
};

/// A kernel name and overload, e.g. {"aten::add", "out"}; overload may be "".
struct Operator {
  std::string name;
  std::string overload;
  bool operator==(const Operator&) const = default;
};

/// Call operators[op_index] with the values at `args` (value indices).
struct KernelCall {
  int32_t op_index = 0;
  std::vector<int32_t> args;
  bool operator==(const KernelCall&) const = default;
};
/// Call delegates[delegate_index] with the values at `args`.
struct DelegateCall {
  int32_t delegate_index = 0;
  std::vector<int32_t> args;
  bool operator==(const DelegateCall&) const = default;
};
/// values[move_to] = values[move_from].
struct MoveCall {
  int32_t move_from = 0;
  int32_t move_to = 0;
  bool operator==(const MoveCall&) const = default;
};
/// Jump to destination_instruction when values[cond_value_index] is false.
struct JumpFalseCall {
  int32_t cond_value_index = 0;
  int32_t destination_instruction = 0;
  bool operator==(const JumpFalseCall&) const = default;
};
/// Free the memory of the tensor values[value_index].
struct FreeCall {
  int32_t value_index = 0;
  bool operator==(const FreeCall&) const = default;
};

/// program.fbs union InstructionArguments; index() + 1 is the wire type code.
using InstructionArguments = std::variant<KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall>;

struct Instruction {
  InstructionArguments instr_args;
  bool operator==(const Instruction&) const = default;
};

/// One stack frame of an instruction (optional debug data).
struct Frame {
  std::string filename;
  int32_t lineno = 0;
  std::string name;
  std::string context;
  bool operator==(const Frame&) const = default;
};
struct FrameList {
  std::vector<Frame> items;
  bool operator==(const FrameList&) const = default;
};

/// A list of instructions; ExecuTorch writes exactly one chain per plan,
/// with empty inputs and outputs (§2.2).
struct Chain {
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<Instruction> instructions;
  std::optional<std::vector<FrameList>> stacktrace;  ///< absent unless emitted
  bool operator==(const Chain&) const = default;
};

/// Reference to a delegate blob: Inline → Program.backend_delegate_data[index],
/// Segment → Program.segments[index].
struct BackendDelegateDataReference {
  DataLocation location = DataLocation::Inline;
  uint32_t index = 0;
  bool operator==(const BackendDelegateDataReference&) const = default;
};

struct CompileSpec {
  std::string key;
  std::vector<uint8_t> value;
  bool operator==(const CompileSpec&) const = default;
};

/// A lowered subgraph (§3.12).
struct BackendDelegate {
  std::string id;  ///< backend name, e.g. "QnnBackend"
  BackendDelegateDataReference processed;
  std::vector<CompileSpec> compile_specs;
  bool operator==(const BackendDelegate&) const = default;
};

/// Device of one planned memory pool.
struct NonConstBufferDevice {
  int32_t buffer_idx = 0;
  DeviceType device_type = DeviceType::Cpu;
  int8_t device_index = 0;
  bool operator==(const NonConstBufferDevice&) const = default;
};

/// One method of the program.
struct ExecutionPlan {
  std::string name;
  ContainerMetadata container_meta_type;
  std::vector<EValue> values;
  std::vector<int32_t> inputs;   ///< value indices
  std::vector<int32_t> outputs;  ///< value indices
  std::vector<Chain> chains;
  std::vector<Operator> operators;
  std::vector<BackendDelegate> delegates;
  /// Bytes per memory pool (pool id = index); [0] is unused, written as 0 (§6.5).
  std::vector<int64_t> non_const_buffer_sizes;
  std::optional<std::vector<NonConstBufferDevice>> non_const_buffer_device;
  bool operator==(const ExecutionPlan&) const = default;
};

/// Inline constant bytes: the deprecated layout (§2.5). The decoder fills
/// these from old files; the serializer never writes entries.
struct Buffer {
  std::vector<uint8_t> storage;
  bool operator==(const Buffer&) const = default;
};

/// Inline delegate blob (kept inline only when empty, or when delegate
/// segments are not extracted).
struct BackendDelegateInlineData {
  std::vector<uint8_t> data;
  bool operator==(const BackendDelegateInlineData&) const = default;
};

/// A byte range after the flatbuffer; `offset` is relative to the segment
/// base offset of the extended header (§2.4).
struct DataSegment {
  uint64_t offset = 0;
  uint64_t size = 0;  ///< bytes
  bool operator==(const DataSegment&) const = default;
};

/// Byte offsets of pieces inside segments[segment_index].
struct SubsegmentOffsets {
  uint32_t segment_index = 0;
  std::vector<uint64_t> offsets;
  bool operator==(const SubsegmentOffsets&) const = default;
};

/// A named blob stored in segments[segment_index] (§2.8).
struct NamedData {
  std::string key;
  uint32_t segment_index = 0;
  bool operator==(const NamedData&) const = default;
};

/// The root of a .pte (program.fbs Program).
struct Program {
  uint32_t version = 0;  ///< ExecuTorch writes 0 (§9)
  std::vector<ExecutionPlan> execution_plan;
  std::vector<Buffer> constant_buffer;  ///< deprecated; empty in files we write
  std::vector<BackendDelegateInlineData> backend_delegate_data;
  std::vector<DataSegment> segments;
  std::optional<SubsegmentOffsets> constant_segment;
  std::optional<std::vector<SubsegmentOffsets>> mutable_data_segments;
  std::optional<std::vector<NamedData>> named_data;
  bool operator==(const Program&) const = default;
};

/// Names as flatc prints them ("Tensor", "KernelCall", "FLOAT", "DYNAMIC_BOUND",
/// "SEGMENT", ...); for a number outside the enum, the number in decimal.
std::string_view kernel_type_name(const KernelTypes& v);
std::string_view instruction_type_name(const InstructionArguments& v);
std::string scalar_type_pte_name(ir::ScalarType t);
std::string shape_dynamism_name(TensorShapeDynamism d);
std::string tensor_data_location_name(TensorDataLocation l);
std::string device_type_name(DeviceType d);
std::string data_location_name(DataLocation l);

/// "name.overload", or "name" when the overload is empty (ExecuTorch's
/// qualified operator name).
std::string operator_qualified_name(const Operator& op);

/// Bytes of the tensor's data: product of sizes × element size; nullopt when
/// a size is negative, the element size is unknown, or it overflows uint64.
std::optional<uint64_t> tensor_nbytes(const Tensor& t);

}  // namespace pteforge::emit
