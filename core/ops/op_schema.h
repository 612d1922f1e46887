// Operator schemas: the structured form of a native_functions.yaml `func:`
// string such as
//   add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
// (grammar: reference OPS.md §2), and parse_schema() that builds one.
//
// The operator table (op_table.h) holds one OpSchema per known overload; it
// is generated from core/ops/data/ by scripts/gen_ops.py.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace pteforge::ops {

/// Base type of an argument or return (OPS.md §2 "Base types").
enum class BaseType : uint8_t {
  Tensor,
  Int,           ///< int64
  SymInt,        ///< int64 that may be symbolic at export time
  Float,         ///< double
  Bool,
  Str,
  Scalar,        ///< any number (int, float, bool, complex)
  ScalarType,    ///< dtype enum
  MemoryFormat,
  Layout,
  Device,
  Generator,
  Dimname,
  DeviceIndex,
  Storage,
  Stream,
  QScheme,
  SymFloat,
  SymBool,
  Any,
};

/// Schema spelling of a base type ("Tensor", "SymInt", ...).
std::string_view base_type_name(BaseType t);
/// Inverse of base_type_name; nullopt for an unknown name.
std::optional<BaseType> base_type_from_name(std::string_view name);

/// Alias / mutation annotation on a Tensor type: `(a)`, `(a!)`, `(a -> *)`.
struct AliasInfo {
  std::string set;            ///< alias set name, e.g. "a"
  bool is_write = false;      ///< `!`: the op writes this tensor
  bool to_wildcard = false;   ///< `a -> *`: aliased by an unknown subset of the outputs
  /// Text inside the parentheses: "a!", "a", "a -> *".
  std::string to_string() const;
  bool operator==(const AliasInfo&) const = default;
};

/// A structured schema type, e.g. `Tensor`, `Tensor?`, `Tensor?[]`, `int[2]`,
/// `SymInt[]?`, `Tensor(a!)[]`.
struct Type {
  BaseType base = BaseType::Tensor;
  std::optional<AliasInfo> alias;  ///< annotation right after the base name
  bool is_list = false;            ///< `T[]` or `T[N]`
  int32_t list_size = 0;           ///< N of a sized list `T[N]`; 0 for `T[]`
  bool element_optional = false;   ///< list of optionals: `Tensor?[]`
  bool optional = false;           ///< the value may be None: `Tensor?`, `int[1]?`

  /// Schema spelling; `with_alias=false` drops the annotation.
  std::string to_string(bool with_alias = true) const;
  /// True when the annotation marks a written tensor (`Tensor(a!)`, `Tensor(a!)[]`).
  bool is_write() const { return alias && alias->is_write; }
  /// `Tensor` or `Tensor?` (not a list).
  bool is_tensor() const { return base == BaseType::Tensor && !is_list; }
  /// `Tensor[]` (elements not optional).
  bool is_tensor_list() const { return base == BaseType::Tensor && is_list && !element_optional; }
  /// `Tensor?[]`.
  bool is_optional_tensor_list() const {
    return base == BaseType::Tensor && is_list && element_optional;
  }
  bool operator==(const Type&) const = default;
};

/// c10 MemoryFormat numbering (what the emitter writes as Int, pipeline §3.6).
enum class MemoryFormat : int64_t { Contiguous = 0, Preserve = 1, ChannelsLast = 2, ChannelsLast3d = 3 };
/// c10 Layout numbering (strided = 0, sparse_coo = 1, ...).
enum class Layout : int64_t { Strided = 0, SparseCoo = 1, SparseCsr = 2, Mkldnn = 3, SparseCsc = 4, SparseBsr = 5, SparseBsc = 6, Jagged = 7 };

/// A typed default value. Scalar lists that a schema writes as one number
/// (`int[2] padding=0`) are broadcast to N elements, as torch does.
struct Value {
  enum class Kind : uint8_t {
    None,
    Bool,
    Int,           ///< also `int reduction=Mean` (at::Reduction: None=0, Mean=1, Sum=2)
    Double,        ///< may be ±inf or nan
    String,
    IntList,       ///< `[]`, `[-2,-1]`, broadcast `0` for `int[N]`
    DoubleList,
    BoolList,
    ScalarType,    ///< `long`: int_value holds the c10 code (ir::ScalarType numbering)
    MemoryFormat,  ///< `contiguous_format`: int_value holds the MemoryFormat number
    Layout,        ///< `strided`: int_value holds the Layout number
    Device,        ///< string_value holds the device text (e.g. "cpu")
  };
  Kind kind = Kind::None;
  bool bool_value = false;
  int64_t int_value = 0;
  double double_value = 0.0;
  std::string string_value;
  std::vector<int64_t> int_list;
  std::vector<double> double_list;
  std::vector<bool> bool_list;

  bool is_none() const { return kind == Kind::None; }
  bool operator==(const Value&) const = default;
};

/// One schema argument.
struct Argument {
  std::string name;
  Type type;
  bool kwarg_only = false;             ///< after `*`
  std::optional<Value> default_value;  ///< parsed default; nullopt when there is none
  std::string default_text;            ///< the default exactly as written ("" when none)

  /// An out argument: keyword-only and written (`*, Tensor(a!) out`).
  bool is_out() const { return kwarg_only && type.is_write(); }
  /// Schema spelling: `Tensor(a!) out`, `int[2] padding=0`.
  std::string to_string() const;
  bool operator==(const Argument&) const = default;
};

/// One schema return; `name` is documentation only (often empty).
struct Return {
  std::string name;
  Type type;
  std::string to_string() const;
  bool operator==(const Return&) const = default;
};

/// Schema kinds of executorch-pipeline.md §4.2.
enum class SchemaKind : uint8_t {
  Functional,  ///< none of the below
  Inplace,     ///< base name ends in `_` (or `__iand__`-style dunder)
  Out,         ///< keyword-only written arguments
  Mutable,     ///< a written positional argument
  Scratch,     ///< only `_scratch_*` keyword-only written arguments
};

/// Tags of native_functions.yaml (tags.yaml order; generated list).
enum class Tag : uint8_t {
#define PTEFORGE_OP_TAG(id, yaml_name) id,
#include "ops/op_tags.def"
#undef PTEFORGE_OP_TAG
};
/// Number of Tag values.
inline constexpr int kTagCount = 0
#define PTEFORGE_OP_TAG(id, yaml_name) +1
#include "ops/op_tags.def"
#undef PTEFORGE_OP_TAG
    ;
/// The tags.yaml name of a tag ("core", "pointwise", ...).
std::string_view tag_name(Tag t);
/// Inverse of tag_name.
std::optional<Tag> tag_from_name(std::string_view name);

/// One operator overload.
struct OpSchema {
  std::string ns = "aten";   ///< namespace: aten, dim_order_ops, executorch_prim, ...
  std::string name;          ///< e.g. "add", "add_", "_to_dim_order_copy"
  std::string overload;      ///< e.g. "Tensor", "out"; "" for the default overload
  std::vector<Argument> arguments;
  std::vector<Return> returns;
  uint32_t tags = 0;         ///< bit i = Tag(i)

  bool has_tag(Tag t) const { return (tags >> static_cast<unsigned>(t)) & 1u; }
  SchemaKind kind() const;
  bool is_functional() const { return kind() == SchemaKind::Functional; }
  bool is_inplace() const { return kind() == SchemaKind::Inplace; }
  bool is_out_variant() const { return kind() == SchemaKind::Out; }
  bool is_mutable() const { return kind() == SchemaKind::Mutable; }
  /// An aliasing view: functional, and a return aliases an input (`-> Tensor(a)`).
  bool is_view() const;
  /// Name without the in-place marker: `add_` → `add`, `__iand__` → `__and__`.
  std::string base_name() const;

  /// "aten::add" (namespace and name, no overload).
  std::string qualified_name() const;
  /// "aten::add.Tensor"; "aten::relu" for the default overload.
  std::string full_name() const;
  /// "torch.ops.aten.add.Tensor"; "torch.ops.aten.relu.default" for the default overload.
  std::string torch_name() const;
  /// The schema string, namespace included: "aten::add.Tensor(Tensor self, ...) -> Tensor".
  std::string to_string() const;

  /// Indices (into `arguments`) of the out arguments, in schema order.
  std::vector<size_t> out_argument_indices() const;
  /// Names of the out arguments, in schema order (e.g. {"out", "indices"}).
  std::vector<std::string> out_argument_names() const;
  /// Number of arguments before the first keyword-only one.
  size_t num_positional() const;
  /// The argument called `name`, or nullptr.
  const Argument* find_argument(std::string_view name) const;

 private:
  friend class OpTable;
  /// kind() of a schema of the op table, set once when the table parses it
  /// (the table's schemas never change after): passes ask every node's
  /// schema for it. A copy does not keep it (a copy may be changed), so any
  /// other schema computes kind() on each call.
  struct KindCache {
    std::optional<SchemaKind> kind;
    KindCache() = default;
    KindCache(const KindCache&) {}
    KindCache& operator=(const KindCache&) {
      kind.reset();
      return *this;
    }
  };
  KindCache kind_cache_;
  SchemaKind compute_kind() const;
};

/// Parses a schema string (OPS.md §2 grammar). A name without `ns::` gets
/// `default_ns`. Defaults are parsed into typed Values per the argument type.
/// Errors: INPUT_SCHEMA with the byte offset of the problem in `where.byte_offset`.
Result<OpSchema> parse_schema(std::string_view text, std::string_view default_ns = "aten");

/// Parses a default value written as `text` for an argument of type `type`
/// (e.g. "0" for `int[2]` gives IntList {0, 0}). Errors: INPUT_SCHEMA.
Result<Value> parse_default_value(const Type& type, std::string_view text);

/// The Core ATen opset: the op carries tag `core` in native_functions.yaml.
inline bool is_core_aten(const OpSchema& op) { return op.has_tag(Tag::Core); }

}  // namespace pteforge::ops
