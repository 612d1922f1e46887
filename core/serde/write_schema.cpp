// Shared schema-type writers (see write_schema.h).
#include "serde/write_schema.h"

namespace pteforge::serde::detail {

void write_device(PyJsonWriter& w, const ir::Device& d) {
  w.begin_object();
  w.key("type");
  w.string(d.type);
  w.key("index");
  if (d.index) {
    w.int64(*d.index);
  } else {
    w.null();
  }
  w.end_object();
}

void write_sym_expr(PyJsonWriter& w, const ir::SymExpr& e) {
  w.begin_object();
  w.key("as_expr");
  w.begin_object();
  w.key("expr_str");
  w.string(e.expr_str);
  w.key("hint");
  if (!e.hint) {
    w.null();
  } else {
    w.begin_object();
    switch (e.hint->kind) {
      case ir::SymExprHint::Kind::Int:
        w.key("as_int");
        w.int64(e.hint->int_value);
        break;
      case ir::SymExprHint::Kind::Bool:
        w.key("as_bool");
        w.boolean(e.hint->bool_value);
        break;
      case ir::SymExprHint::Kind::Float:
        w.key("as_float");
        w.float64(e.hint->float_value);
        break;
    }
    w.end_object();
  }
  w.end_object();
  w.end_object();
}

void write_sym_int(PyJsonWriter& w, const ir::SymInt& s) {
  if (s.is_symbolic()) {
    write_sym_expr(w, s.expr());
    return;
  }
  w.begin_object();
  w.key("as_int");
  w.int64(s.value());
  w.end_object();
}

void write_tensor_meta(PyJsonWriter& w, const ir::TensorMeta& m) {
  w.begin_object();
  w.key("dtype");
  w.int64(ir::scalar_type_to_export(m.dtype).value_or(0));
  w.key("sizes");
  w.begin_array();
  for (const auto& s : m.sizes) write_sym_int(w, s);
  w.end_array();
  w.key("requires_grad");
  w.boolean(m.requires_grad);
  w.key("device");
  write_device(w, m.device);
  w.key("strides");
  w.begin_array();
  for (const auto& s : m.strides) write_sym_int(w, s);
  w.end_array();
  w.key("storage_offset");
  write_sym_int(w, m.storage_offset);
  w.key("layout");
  w.int64(static_cast<int64_t>(m.layout));
  w.end_object();
}

}  // namespace pteforge::serde::detail
