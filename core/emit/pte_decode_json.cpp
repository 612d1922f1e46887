// Decoded .pte → JSON (see decoded_pte_to_json in pte_decode.h).
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cmath>
#include <string>

#include "emit/pte_decode.h"
#include "support/utf8.h"

namespace pteforge::emit {
namespace {

using JsonWriter = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

class JsonOut {
 public:
  JsonOut() : w_(buf_) { w_.SetIndent(' ', 2); }

  JsonWriter& w() { return w_; }
  void key(const char* k) { w_.Key(k); }
  void str(const std::string& s) {
    std::string v = replace_invalid_utf8(s);
    w_.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
  }
  void num(double d) {
    if (std::isnan(d)) {
      w_.String("nan");
    } else if (std::isinf(d)) {
      w_.String(d > 0 ? "inf" : "-inf");
    } else {
      w_.Double(d);
    }
  }
  template <typename T>
  void ints(const std::vector<T>& v) {
    w_.StartArray();
    for (const auto& x : v) {
      if constexpr (std::is_signed_v<T>) {
        w_.Int64(static_cast<int64_t>(x));
      } else {
        w_.Uint64(static_cast<uint64_t>(x));
      }
    }
    w_.EndArray();
  }
  std::string finish() { return std::string(buf_.GetString(), buf_.GetSize()) + "\n"; }

 private:
  rapidjson::StringBuffer buf_;
  JsonWriter w_;
};

// ---------------------------------------------------------------------------
// flatc style: the document `flatc --json --strict-json` prints.

class FlatcJson {
 public:
  explicit FlatcJson(JsonOut& o) : o_(o), w_(o.w()) {}

  void program(const Program& p) {
    w_.StartObject();
    if (p.version != 0) {
      o_.key("version");
      w_.Uint(p.version);
    }
    o_.key("execution_plan");
    w_.StartArray();
    for (const auto& plan : p.execution_plan) this->plan(plan);
    w_.EndArray();
    o_.key("constant_buffer");
    w_.StartArray();
    for (const auto& b : p.constant_buffer) {
      w_.StartObject();
      o_.key("storage");
      o_.ints(b.storage);
      w_.EndObject();
    }
    w_.EndArray();
    o_.key("backend_delegate_data");
    w_.StartArray();
    for (const auto& b : p.backend_delegate_data) {
      w_.StartObject();
      o_.key("data");
      o_.ints(b.data);
      w_.EndObject();
    }
    w_.EndArray();
    o_.key("segments");
    w_.StartArray();
    for (const auto& s : p.segments) {
      w_.StartObject();
      if (s.offset != 0) {
        o_.key("offset");
        w_.Uint64(s.offset);
      }
      if (s.size != 0) {
        o_.key("size");
        w_.Uint64(s.size);
      }
      w_.EndObject();
    }
    w_.EndArray();
    if (p.constant_segment) {
      o_.key("constant_segment");
      sub(*p.constant_segment);
    }
    if (p.mutable_data_segments) {
      o_.key("mutable_data_segments");
      w_.StartArray();
      for (const auto& m : *p.mutable_data_segments) sub(m);
      w_.EndArray();
    }
    if (p.named_data) {
      o_.key("named_data");
      w_.StartArray();
      for (const auto& n : *p.named_data) {
        w_.StartObject();
        o_.key("key");
        o_.str(n.key);
        if (n.segment_index != 0) {
          o_.key("segment_index");
          w_.Uint(n.segment_index);
        }
        w_.EndObject();
      }
      w_.EndArray();
    }
    w_.EndObject();
  }

 private:
  // flatc prints a named enum value as its name, anything else as a number;
  // the *_name helpers return the number's digits for unnamed values.
  void enum_value(const std::string& name, int value) {
    if (name == std::to_string(value)) {
      w_.Int(value);
    } else {
      o_.str(name);
    }
  }

  void sub(const SubsegmentOffsets& s) {
    w_.StartObject();
    if (s.segment_index != 0) {
      o_.key("segment_index");
      w_.Uint(s.segment_index);
    }
    o_.key("offsets");
    o_.ints(s.offsets);
    w_.EndObject();
  }

  void tensor(const Tensor& t) {
    w_.StartObject();
    if (t.scalar_type != ir::ScalarType::Byte) {
      o_.key("scalar_type");
      enum_value(scalar_type_pte_name(t.scalar_type), static_cast<int>(t.scalar_type));
    }
    if (t.storage_offset != 0) {
      o_.key("storage_offset");
      w_.Int(t.storage_offset);
    }
    o_.key("sizes");
    o_.ints(t.sizes);
    o_.key("dim_order");
    o_.ints(t.dim_order);
    if (t.requires_grad) {
      o_.key("requires_grad");
      w_.Bool(true);
    }
    if (t.data_buffer_idx != 0) {
      o_.key("data_buffer_idx");
      w_.Uint(t.data_buffer_idx);
    }
    if (t.allocation_info) {
      o_.key("allocation_info");
      w_.StartObject();
      const auto& a = *t.allocation_info;
      if (a.memory_id != 0) {
        o_.key("memory_id");
        w_.Uint(a.memory_id);
      }
      if ((a.memory_offset & 0xFFFFFFFFu) != 0) {
        o_.key("memory_offset_low");
        w_.Uint64(a.memory_offset & 0xFFFFFFFFu);
      }
      if ((a.memory_offset >> 32) != 0) {
        o_.key("memory_offset_high");
        w_.Uint64(a.memory_offset >> 32);
      }
      w_.EndObject();
    }
    if (t.layout != 0) {
      o_.key("layout");
      w_.Int(t.layout);
    }
    if (t.shape_dynamism != TensorShapeDynamism::Static) {
      o_.key("shape_dynamism");
      enum_value(shape_dynamism_name(t.shape_dynamism), static_cast<int>(t.shape_dynamism));
    }
    if (t.extra_tensor_info) {
      const auto& e = *t.extra_tensor_info;
      o_.key("extra_tensor_info");
      w_.StartObject();
      if (e.mutable_data_segments_idx != 0) {
        o_.key("mutable_data_segments_idx");
        w_.Uint64(e.mutable_data_segments_idx);
      }
      if (e.fully_qualified_name) {
        o_.key("fully_qualified_name");
        o_.str(*e.fully_qualified_name);
      }
      if (e.location != TensorDataLocation::Segment) {
        o_.key("location");
        enum_value(tensor_data_location_name(e.location), static_cast<int>(e.location));
      }
      if (e.device_type != DeviceType::Cpu) {
        o_.key("device_type");
        enum_value(device_type_name(e.device_type), static_cast<int>(e.device_type));
      }
      if (e.device_index != 0) {
        o_.key("device_index");
        w_.Int(e.device_index);
      }
      w_.EndObject();
    }
    w_.EndObject();
  }

  void value(const EValue& v) {
    w_.StartObject();
    o_.key("val_type");
    o_.str(std::string(kernel_type_name(v.val)));
    o_.key("val");
    std::visit(
        [this](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, Tensor>) {
            tensor(x);
            return;
          }
          w_.StartObject();
          if constexpr (std::is_same_v<T, Int>) {
            if (x.int_val != 0) {
              o_.key("int_val");
              w_.Int64(x.int_val);
            }
          } else if constexpr (std::is_same_v<T, Bool>) {
            if (x.bool_val) {
              o_.key("bool_val");
              w_.Bool(true);
            }
          } else if constexpr (std::is_same_v<T, Double>) {
            if (x.double_val != 0.0 || std::signbit(x.double_val)) {
              o_.key("double_val");
              o_.num(x.double_val);
            }
          } else if constexpr (std::is_same_v<T, String>) {
            o_.key("string_val");
            o_.str(x.string_val);
          } else if constexpr (std::is_same_v<T, IntList> || std::is_same_v<T, TensorList> ||
                               std::is_same_v<T, OptionalTensorList>) {
            o_.key("items");
            o_.ints(x.items);
          } else if constexpr (std::is_same_v<T, DoubleList>) {
            o_.key("items");
            w_.StartArray();
            for (double d : x.items) o_.num(d);
            w_.EndArray();
          } else if constexpr (std::is_same_v<T, BoolList>) {
            o_.key("items");
            w_.StartArray();
            for (bool b : x.items) w_.Bool(b);
            w_.EndArray();
          }
          if constexpr (!std::is_same_v<T, Tensor>) w_.EndObject();
        },
        v.val);
    w_.EndObject();
  }

  void nonzero_int(const char* k, int64_t v) {
    if (v == 0) return;
    o_.key(k);
    w_.Int64(v);
  }

  void instruction(const Instruction& ins) {
    w_.StartObject();
    o_.key("instr_args_type");
    o_.str(std::string(instruction_type_name(ins.instr_args)));
    o_.key("instr_args");
    w_.StartObject();
    std::visit(
        [this](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, KernelCall>) {
            nonzero_int("op_index", x.op_index);
            o_.key("args");
            o_.ints(x.args);
          } else if constexpr (std::is_same_v<T, DelegateCall>) {
            nonzero_int("delegate_index", x.delegate_index);
            o_.key("args");
            o_.ints(x.args);
          } else if constexpr (std::is_same_v<T, MoveCall>) {
            nonzero_int("move_from", x.move_from);
            nonzero_int("move_to", x.move_to);
          } else if constexpr (std::is_same_v<T, JumpFalseCall>) {
            nonzero_int("cond_value_index", x.cond_value_index);
            nonzero_int("destination_instruction", x.destination_instruction);
          } else {
            nonzero_int("value_index", x.value_index);
          }
        },
        ins.instr_args);
    w_.EndObject();
    w_.EndObject();
  }

  void plan(const ExecutionPlan& plan) {
    w_.StartObject();
    o_.key("name");
    o_.str(plan.name);
    o_.key("container_meta_type");
    w_.StartObject();
    o_.key("encoded_inp_str");
    o_.str(plan.container_meta_type.encoded_inp_str);
    o_.key("encoded_out_str");
    o_.str(plan.container_meta_type.encoded_out_str);
    w_.EndObject();
    o_.key("values");
    w_.StartArray();
    for (const auto& v : plan.values) value(v);
    w_.EndArray();
    o_.key("inputs");
    o_.ints(plan.inputs);
    o_.key("outputs");
    o_.ints(plan.outputs);
    o_.key("chains");
    w_.StartArray();
    for (const auto& c : plan.chains) {
      w_.StartObject();
      o_.key("inputs");
      o_.ints(c.inputs);
      o_.key("outputs");
      o_.ints(c.outputs);
      o_.key("instructions");
      w_.StartArray();
      for (const auto& ins : c.instructions) instruction(ins);
      w_.EndArray();
      if (c.stacktrace) {
        o_.key("stacktrace");
        w_.StartArray();
        for (const auto& fl : *c.stacktrace) {
          w_.StartObject();
          o_.key("items");
          w_.StartArray();
          for (const auto& f : fl.items) {
            w_.StartObject();
            o_.key("filename");
            o_.str(f.filename);
            nonzero_int("lineno", f.lineno);
            o_.key("name");
            o_.str(f.name);
            o_.key("context");
            o_.str(f.context);
            w_.EndObject();
          }
          w_.EndArray();
          w_.EndObject();
        }
        w_.EndArray();
      }
      w_.EndObject();
    }
    w_.EndArray();
    o_.key("operators");
    w_.StartArray();
    for (const auto& op : plan.operators) {
      w_.StartObject();
      o_.key("name");
      o_.str(op.name);
      o_.key("overload");
      o_.str(op.overload);
      w_.EndObject();
    }
    w_.EndArray();
    o_.key("delegates");
    w_.StartArray();
    for (const auto& d : plan.delegates) {
      w_.StartObject();
      o_.key("id");
      o_.str(d.id);
      o_.key("processed");
      w_.StartObject();
      if (d.processed.location != DataLocation::Inline) {
        o_.key("location");
        enum_value(data_location_name(d.processed.location), static_cast<int>(d.processed.location));
      }
      if (d.processed.index != 0) {
        o_.key("index");
        w_.Uint(d.processed.index);
      }
      w_.EndObject();
      o_.key("compile_specs");
      w_.StartArray();
      for (const auto& cs : d.compile_specs) {
        w_.StartObject();
        o_.key("key");
        o_.str(cs.key);
        o_.key("value");
        o_.ints(cs.value);
        w_.EndObject();
      }
      w_.EndArray();
      w_.EndObject();
    }
    w_.EndArray();
    o_.key("non_const_buffer_sizes");
    o_.ints(plan.non_const_buffer_sizes);
    if (plan.non_const_buffer_device) {
      o_.key("non_const_buffer_device");
      w_.StartArray();
      for (const auto& d : *plan.non_const_buffer_device) {
        w_.StartObject();
        nonzero_int("buffer_idx", d.buffer_idx);
        if (d.device_type != DeviceType::Cpu) {
          o_.key("device_type");
          enum_value(device_type_name(d.device_type), static_cast<int>(d.device_type));
        }
        nonzero_int("device_index", d.device_index);
        w_.EndObject();
      }
      w_.EndArray();
    }
    w_.EndObject();
  }

  JsonOut& o_;
  JsonWriter& w_;
};

// ---------------------------------------------------------------------------
// Readable style: every field spelled out, plus derived facts.

class ReadableJson {
 public:
  explicit ReadableJson(JsonOut& o) : o_(o), w_(o.w()) {}

  void document(const DecodedPte& d) {
    const Program& p = d.program;
    w_.StartObject();
    file(d.info, d.layout_problems);
    o_.key("version");
    w_.Uint(p.version);
    o_.key("execution_plan");
    w_.StartArray();
    for (const auto& plan : p.execution_plan) this->plan(plan);
    w_.EndArray();
    o_.key("segments");
    w_.StartArray();
    for (size_t i = 0; i < p.segments.size(); ++i) {
      const auto& s = p.segments[i];
      w_.StartObject();
      o_.key("index");
      w_.Uint64(i);
      o_.key("offset");
      w_.Uint64(s.offset);
      o_.key("size");
      w_.Uint64(s.size);
      o_.key("file_offset");  // null: past the end of the file
      if (const std::optional<uint64_t> at = segment_file_offset(d.info, s)) {
        w_.Uint64(*at);
      } else {
        w_.Null();
      }
      w_.EndObject();
    }
    w_.EndArray();
    o_.key("constant_segment");
    if (p.constant_segment) {
      sub(*p.constant_segment);
    } else {
      w_.Null();
    }
    o_.key("constant_buffer");
    sizes_of(p.constant_buffer, [](const Buffer& b) { return b.storage.size(); });
    o_.key("backend_delegate_data");
    sizes_of(p.backend_delegate_data, [](const BackendDelegateInlineData& b) { return b.data.size(); });
    o_.key("mutable_data_segments");
    if (p.mutable_data_segments) {
      w_.StartArray();
      for (const auto& m : *p.mutable_data_segments) sub(m);
      w_.EndArray();
    } else {
      w_.Null();
    }
    o_.key("named_data");
    if (p.named_data) {
      w_.StartArray();
      for (const auto& n : *p.named_data) {
        w_.StartObject();
        o_.key("key");
        o_.str(n.key);
        o_.key("segment_index");
        w_.Uint(n.segment_index);
        w_.EndObject();
      }
      w_.EndArray();
    } else {
      w_.Null();
    }
    w_.EndObject();
  }

 private:
  template <typename T, typename F>
  void sizes_of(const std::vector<T>& list, F size) {
    w_.StartArray();
    for (size_t i = 0; i < list.size(); ++i) {
      w_.StartObject();
      o_.key("index");
      w_.Uint64(i);
      o_.key("size");
      w_.Uint64(size(list[i]));
      w_.EndObject();
    }
    w_.EndArray();
  }

  /// The "file" object; "layout_problems" ([{pointer, message}]) only when there are some.
  void file(const PteFileInfo& info, const std::vector<LoadProblem>& layout_problems) {
    o_.key("file");
    w_.StartObject();
    o_.key("size");
    w_.Uint64(info.file_size);
    o_.key("identifier");
    o_.str(info.identifier);
    o_.key("extended_header");
    if (info.extended_header) {
      const auto& h = *info.extended_header;
      w_.StartObject();
      o_.key("length");
      w_.Uint(h.length);
      o_.key("program_size");
      w_.Uint64(h.program_size);
      o_.key("segment_base_offset");
      w_.Uint64(h.segment_base_offset);
      o_.key("segment_data_size");
      if (h.segment_data_size) {
        w_.Uint64(*h.segment_data_size);
      } else {
        w_.Null();
      }
      w_.EndObject();
    } else {
      w_.Null();
    }
    o_.key("program_size");
    w_.Uint64(info.program_size);
    o_.key("segment_base_offset");
    w_.Uint64(info.segment_base_offset);
    o_.key("segment_data_size");
    w_.Uint64(info.segment_data_size);
    if (!layout_problems.empty()) {
      o_.key("layout_problems");
      w_.StartArray();
      for (const LoadProblem& lp : layout_problems) {
        w_.StartObject();
        o_.key("pointer");
        o_.str(lp.pointer);
        o_.key("message");
        o_.str(lp.message);
        w_.EndObject();
      }
      w_.EndArray();
    }
    w_.EndObject();
  }

  void sub(const SubsegmentOffsets& s) {
    w_.StartObject();
    o_.key("segment_index");
    w_.Uint(s.segment_index);
    o_.key("offsets");
    o_.ints(s.offsets);
    w_.EndObject();
  }

  void tensor_fields(const Tensor& t) {
    o_.key("scalar_type");
    o_.str(scalar_type_pte_name(t.scalar_type));
    o_.key("sizes");
    o_.ints(t.sizes);
    o_.key("dim_order");
    o_.ints(t.dim_order);
    o_.key("storage_offset");
    w_.Int(t.storage_offset);
    o_.key("requires_grad");
    w_.Bool(t.requires_grad);
    o_.key("layout");
    w_.Int(t.layout);
    o_.key("shape_dynamism");
    o_.str(shape_dynamism_name(t.shape_dynamism));
    o_.key("data_buffer_idx");
    w_.Uint(t.data_buffer_idx);
    o_.key("nbytes");
    if (auto n = tensor_nbytes(t)) {
      w_.Uint64(*n);
    } else {
      w_.Null();
    }
    o_.key("allocation_info");
    if (t.allocation_info) {
      w_.StartObject();
      o_.key("memory_id");
      w_.Uint(t.allocation_info->memory_id);
      o_.key("memory_offset");
      w_.Uint64(t.allocation_info->memory_offset);
      w_.EndObject();
    } else {
      w_.Null();
    }
    o_.key("extra_tensor_info");
    if (t.extra_tensor_info) {
      const auto& e = *t.extra_tensor_info;
      w_.StartObject();
      o_.key("mutable_data_segments_idx");
      w_.Uint64(e.mutable_data_segments_idx);
      o_.key("fully_qualified_name");
      if (e.fully_qualified_name) {
        o_.str(*e.fully_qualified_name);
      } else {
        w_.Null();
      }
      o_.key("location");
      o_.str(tensor_data_location_name(e.location));
      o_.key("device_type");
      o_.str(device_type_name(e.device_type));
      o_.key("device_index");
      w_.Int(e.device_index);
      w_.EndObject();
    } else {
      w_.Null();
    }
  }

  void value(size_t index, const EValue& v) {
    w_.StartObject();
    o_.key("index");
    w_.Uint64(index);
    o_.key("type");
    o_.str(std::string(kernel_type_name(v.val)));
    std::visit(
        [this](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, Tensor>) {
            tensor_fields(x);
          } else if constexpr (std::is_same_v<T, Int>) {
            o_.key("value");
            w_.Int64(x.int_val);
          } else if constexpr (std::is_same_v<T, Bool>) {
            o_.key("value");
            w_.Bool(x.bool_val);
          } else if constexpr (std::is_same_v<T, Double>) {
            o_.key("value");
            o_.num(x.double_val);
          } else if constexpr (std::is_same_v<T, String>) {
            o_.key("value");
            o_.str(x.string_val);
          } else if constexpr (std::is_same_v<T, IntList> || std::is_same_v<T, TensorList> ||
                               std::is_same_v<T, OptionalTensorList>) {
            o_.key("items");
            o_.ints(x.items);
          } else if constexpr (std::is_same_v<T, DoubleList>) {
            o_.key("items");
            w_.StartArray();
            for (double d : x.items) o_.num(d);
            w_.EndArray();
          } else if constexpr (std::is_same_v<T, BoolList>) {
            o_.key("items");
            w_.StartArray();
            for (bool b : x.items) w_.Bool(b);
            w_.EndArray();
          }
        },
        v.val);
    w_.EndObject();
  }

  void instruction(const ExecutionPlan& plan, size_t index, const Instruction& ins) {
    w_.StartObject();
    o_.key("index");
    w_.Uint64(index);
    o_.key("type");
    o_.str(std::string(instruction_type_name(ins.instr_args)));
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, KernelCall>) {
            o_.key("op_index");
            w_.Int(x.op_index);
            o_.key("operator");
            if (x.op_index >= 0 && static_cast<size_t>(x.op_index) < plan.operators.size()) {
              o_.str(operator_qualified_name(plan.operators[static_cast<size_t>(x.op_index)]));
            } else {
              w_.Null();
            }
            o_.key("args");
            o_.ints(x.args);
          } else if constexpr (std::is_same_v<T, DelegateCall>) {
            o_.key("delegate_index");
            w_.Int(x.delegate_index);
            o_.key("delegate");
            if (x.delegate_index >= 0 && static_cast<size_t>(x.delegate_index) < plan.delegates.size()) {
              o_.str(plan.delegates[static_cast<size_t>(x.delegate_index)].id);
            } else {
              w_.Null();
            }
            o_.key("args");
            o_.ints(x.args);
          } else if constexpr (std::is_same_v<T, MoveCall>) {
            o_.key("move_from");
            w_.Int(x.move_from);
            o_.key("move_to");
            w_.Int(x.move_to);
          } else if constexpr (std::is_same_v<T, JumpFalseCall>) {
            o_.key("cond_value_index");
            w_.Int(x.cond_value_index);
            o_.key("destination_instruction");
            w_.Int(x.destination_instruction);
          } else {
            o_.key("value_index");
            w_.Int(x.value_index);
          }
        },
        ins.instr_args);
    o_.key("text");
    o_.str(format_instruction(plan, ins));
    w_.EndObject();
  }

  void plan(const ExecutionPlan& plan) {
    w_.StartObject();
    o_.key("name");
    o_.str(plan.name);
    o_.key("container_meta_type");
    w_.StartObject();
    o_.key("encoded_inp_str");
    o_.str(plan.container_meta_type.encoded_inp_str);
    o_.key("encoded_out_str");
    o_.str(plan.container_meta_type.encoded_out_str);
    w_.EndObject();
    o_.key("inputs");
    o_.ints(plan.inputs);
    o_.key("outputs");
    o_.ints(plan.outputs);
    o_.key("non_const_buffer_sizes");
    o_.ints(plan.non_const_buffer_sizes);
    o_.key("non_const_buffer_device");
    if (plan.non_const_buffer_device) {
      w_.StartArray();
      for (const auto& d : *plan.non_const_buffer_device) {
        w_.StartObject();
        o_.key("buffer_idx");
        w_.Int(d.buffer_idx);
        o_.key("device_type");
        o_.str(device_type_name(d.device_type));
        o_.key("device_index");
        w_.Int(d.device_index);
        w_.EndObject();
      }
      w_.EndArray();
    } else {
      w_.Null();
    }
    o_.key("values");
    w_.StartArray();
    for (size_t i = 0; i < plan.values.size(); ++i) value(i, plan.values[i]);
    w_.EndArray();
    o_.key("operators");
    w_.StartArray();
    for (size_t i = 0; i < plan.operators.size(); ++i) {
      w_.StartObject();
      o_.key("index");
      w_.Uint64(i);
      o_.key("name");
      o_.str(plan.operators[i].name);
      o_.key("overload");
      o_.str(plan.operators[i].overload);
      w_.EndObject();
    }
    w_.EndArray();
    o_.key("chains");
    w_.StartArray();
    for (const auto& c : plan.chains) {
      w_.StartObject();
      o_.key("inputs");
      o_.ints(c.inputs);
      o_.key("outputs");
      o_.ints(c.outputs);
      o_.key("instructions");
      w_.StartArray();
      for (size_t i = 0; i < c.instructions.size(); ++i) instruction(plan, i, c.instructions[i]);
      w_.EndArray();
      o_.key("stacktrace");
      if (c.stacktrace) {
        w_.StartArray();
        for (const auto& fl : *c.stacktrace) {
          w_.StartArray();
          for (const auto& f : fl.items) {
            w_.StartObject();
            o_.key("filename");
            o_.str(f.filename);
            o_.key("lineno");
            w_.Int(f.lineno);
            o_.key("name");
            o_.str(f.name);
            o_.key("context");
            o_.str(f.context);
            w_.EndObject();
          }
          w_.EndArray();
        }
        w_.EndArray();
      } else {
        w_.Null();
      }
      w_.EndObject();
    }
    w_.EndArray();
    o_.key("delegates");
    w_.StartArray();
    for (size_t i = 0; i < plan.delegates.size(); ++i) {
      const auto& d = plan.delegates[i];
      w_.StartObject();
      o_.key("index");
      w_.Uint64(i);
      o_.key("id");
      o_.str(d.id);
      o_.key("processed");
      w_.StartObject();
      o_.key("location");
      o_.str(data_location_name(d.processed.location));
      o_.key("index");
      w_.Uint(d.processed.index);
      w_.EndObject();
      o_.key("compile_specs");
      w_.StartArray();
      for (const auto& cs : d.compile_specs) {
        w_.StartObject();
        o_.key("key");
        o_.str(cs.key);
        o_.key("size");
        w_.Uint64(cs.value.size());
        o_.key("value");
        o_.ints(cs.value);
        w_.EndObject();
      }
      w_.EndArray();
      w_.EndObject();
    }
    w_.EndArray();
    w_.EndObject();
  }

  JsonOut& o_;
  JsonWriter& w_;
};

}  // namespace

std::string decoded_pte_to_json(const DecodedPte& decoded, PteJsonStyle style) {
  JsonOut out;
  if (style == PteJsonStyle::Flatc) {
    FlatcJson(out).program(decoded.program);
  } else {
    ReadableJson(out).document(decoded);
  }
  return out.finish();
}

}  // namespace pteforge::emit
