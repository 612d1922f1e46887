// Writers for schema types shared by the program and payload-config writers
// (internal to serde).
#pragma once

#include "ir/sym.h"
#include "ir/tensor_meta.h"
#include "serde/py_json_writer.h"

namespace pteforge::serde::detail {

void write_device(PyJsonWriter& w, const ir::Device& d);
void write_sym_expr(PyJsonWriter& w, const ir::SymExpr& e);
void write_sym_int(PyJsonWriter& w, const ir::SymInt& s);
void write_tensor_meta(PyJsonWriter& w, const ir::TensorMeta& m);

}  // namespace pteforge::serde::detail
