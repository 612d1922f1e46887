// Argument: the value union of torch.export (schema §3.4), and its helpers.
//
// Argument mirrors the JSON union one alternative per tag (ArgTag, in the
// order of the schema table); values are referenced by name (TensorArgument,
// SymIntArgument, ...). Build arguments with the factory functions below
// (arg_tensor("x"), arg_int(3), ...) and read them with tag()/get<Tag>().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/sym.h"
#include "ir/target.h"
#include "ir/tensor_meta.h"

namespace pteforge::ir {

class Graph;
class Argument;

/// Kind of value a name refers to (which table of the graph holds its metadata).
enum class ValueKind : uint8_t { Unknown, Tensor, SymInt, SymFloat, SymBool, CustomObj };
/// Number of ValueKind values (CustomObj must stay the last one).
inline constexpr size_t kValueKindCount = static_cast<size_t>(ValueKind::CustomObj) + 1;
std::string_view value_kind_name(ValueKind k);

/// Reference to a tensor value by name (TensorArgument, also TokenArgument).
struct TensorArgument {
  std::string name;
  bool operator==(const TensorArgument&) const = default;
};

/// A tensor reference or None (OptionalTensorArgument union).
struct OptionalTensorArgument {
  std::optional<std::string> name;  ///< nullopt = as_none
  bool is_none() const { return !name.has_value(); }
  bool operator==(const OptionalTensorArgument&) const = default;
};

/// SymIntArgument union: a SymInt value by name, or a literal.
struct SymIntArgument {
  std::optional<std::string> name;  ///< set = as_name
  int64_t value = 0;                ///< as_int when name is unset
  bool is_name() const { return name.has_value(); }
  bool operator==(const SymIntArgument&) const = default;
};

/// SymFloatArgument union: a SymFloat value by name, or a literal.
struct SymFloatArgument {
  std::optional<std::string> name;
  double value = 0.0;
  bool is_name() const { return name.has_value(); }
  bool operator==(const SymFloatArgument& o) const {
    return name == o.name && (name || same_double(value, o.value));
  }
};

/// SymBoolArgument union: a SymBool value by name, or a literal.
struct SymBoolArgument {
  std::optional<std::string> name;
  bool value = false;
  bool is_name() const { return name.has_value(); }
  bool operator==(const SymBoolArgument&) const = default;
};

/// TorchBind / opaque object reference (CustomObjArgument).
struct CustomObjArgument {
  std::string name;
  std::string class_fqn;
  bool operator==(const CustomObjArgument&) const = default;
};

/// An operator passed as a value (as_operator), e.g. to auto_functionalized.
struct OperatorArgument {
  OpTarget target;
  bool operator==(const OperatorArgument&) const = default;
};

/// Complex scalar (ComplexValue).
struct ComplexValue {
  double real = 0.0;
  double imag = 0.0;
  bool operator==(const ComplexValue& o) const {
    return same_double(real, o.real) && same_double(imag, o.imag);
  }
};

/// Owning, deep-copying pointer to a nested Graph (Graph is incomplete here).
class GraphBox {
 public:
  GraphBox();
  explicit GraphBox(Graph graph);
  GraphBox(const GraphBox& o);
  GraphBox(GraphBox&& o) noexcept;
  GraphBox& operator=(const GraphBox& o);
  GraphBox& operator=(GraphBox&& o) noexcept;
  ~GraphBox();

  Graph& operator*() { return *g_; }
  const Graph& operator*() const { return *g_; }
  Graph* operator->() { return g_.get(); }
  const Graph* operator->() const { return g_.get(); }
  Graph* get() { return g_.get(); }
  const Graph* get() const { return g_.get(); }
  /// Structural equality of the graphs.
  bool operator==(const GraphBox& o) const;

 private:
  std::unique_ptr<Graph> g_;
};

/// A subgraph argument of a higher-order op (GraphArgument).
struct GraphArgument {
  std::string name;  ///< attribute name, e.g. "true_graph_0"
  GraphBox graph;
  bool operator==(const GraphArgument&) const = default;
};

/// A dict[str, Argument] argument (as_string_to_argument); entries in input order.
struct StringToArgument {
  std::vector<std::pair<std::string, Argument>> entries;
  bool operator==(const StringToArgument& o) const;
};

/// Tags of Argument alternatives, in variant order; names via arg_tag_name().
enum class ArgTag : uint8_t {
  None,             // as_none
  Tensor,           // as_tensor
  Tensors,          // as_tensors
  Int,              // as_int
  Ints,             // as_ints
  Float,            // as_float
  Floats,           // as_floats
  String,           // as_string
  Strings,          // as_strings
  SymInt,           // as_sym_int
  SymInts,          // as_sym_ints
  ScalarType,       // as_scalar_type
  MemoryFormat,     // as_memory_format
  Layout,           // as_layout
  Device,           // as_device
  Bool,             // as_bool
  Bools,            // as_bools
  SymBool,          // as_sym_bool
  SymBools,         // as_sym_bools
  OptionalTensors,  // as_optional_tensors
  Graph,            // as_graph
  CustomObj,        // as_custom_obj
  Operator,         // as_operator
  SymFloat,         // as_sym_float
  SymFloats,        // as_sym_floats
  OptionalTensor,   // as_optional_tensor
  Complex,          // as_complex
  NestedTensors,    // as_nested_tensors
  IntLists,         // as_int_lists
  StringToArgument, // as_string_to_argument
  FloatLists,       // as_float_lists
};
inline constexpr size_t kNumArgTags = 31;

/// JSON tag of an ArgTag, e.g. "as_tensor".
std::string_view arg_tag_name(ArgTag t);
/// Parses a JSON tag; nullopt when unknown.
std::optional<ArgTag> arg_tag_from_name(std::string_view name);

/// One value of the Argument union.
class Argument {
 public:
  using Variant = std::variant<std::monostate,                             // None
                               TensorArgument,                             // Tensor
                               std::vector<TensorArgument>,                // Tensors
                               int64_t,                                    // Int
                               std::vector<int64_t>,                       // Ints
                               double,                                     // Float
                               std::vector<double>,                        // Floats
                               std::string,                                // String
                               std::vector<std::string>,                   // Strings
                               SymIntArgument,                             // SymInt
                               std::vector<SymIntArgument>,                // SymInts
                               ScalarType,                                 // ScalarType
                               MemoryFormat,                               // MemoryFormat
                               Layout,                                     // Layout
                               Device,                                     // Device
                               bool,                                       // Bool
                               std::vector<bool>,                          // Bools
                               SymBoolArgument,                            // SymBool
                               std::vector<SymBoolArgument>,               // SymBools
                               std::vector<OptionalTensorArgument>,        // OptionalTensors
                               GraphArgument,                              // Graph
                               CustomObjArgument,                          // CustomObj
                               OperatorArgument,                           // Operator
                               SymFloatArgument,                           // SymFloat
                               std::vector<SymFloatArgument>,              // SymFloats
                               OptionalTensorArgument,                     // OptionalTensor
                               ComplexValue,                               // Complex
                               std::vector<std::vector<TensorArgument>>,   // NestedTensors
                               std::vector<std::vector<int64_t>>,          // IntLists
                               StringToArgument,                           // StringToArgument
                               std::vector<std::vector<double>>>;          // FloatLists

  /// The C++ type held for tag T.
  template <ArgTag T>
  using TypeOf = std::variant_alternative_t<static_cast<size_t>(T), Variant>;

  Argument() = default;  ///< None

  /// Builds an argument holding tag T constructed from `args`.
  template <ArgTag T, typename... A>
  static Argument make(A&&... args) {
    Argument a;
    a.v_.template emplace<static_cast<size_t>(T)>(std::forward<A>(args)...);
    return a;
  }

  ArgTag tag() const { return static_cast<ArgTag>(v_.index()); }
  std::string_view tag_name() const { return arg_tag_name(tag()); }
  template <ArgTag T>
  bool is() const { return v_.index() == static_cast<size_t>(T); }
  /// The payload of tag T (precondition: is<T>()).
  template <ArgTag T>
  TypeOf<T>& get() { return std::get<static_cast<size_t>(T)>(v_); }
  template <ArgTag T>
  const TypeOf<T>& get() const { return std::get<static_cast<size_t>(T)>(v_); }
  /// Pointer to the payload of tag T, or nullptr.
  template <ArgTag T>
  TypeOf<T>* get_if() { return std::get_if<static_cast<size_t>(T)>(&v_); }
  template <ArgTag T>
  const TypeOf<T>* get_if() const { return std::get_if<static_cast<size_t>(T)>(&v_); }

  Variant& variant() { return v_; }
  const Variant& variant() const { return v_; }

  bool is_none() const { return is<ArgTag::None>(); }
  bool is_tensor() const { return is<ArgTag::Tensor>(); }
  /// Name of the referenced tensor (precondition: is_tensor()).
  const std::string& tensor_name() const { return get<ArgTag::Tensor>().name; }
  /// Name of the single value this argument refers to (as_tensor, as_sym_int/float/bool
  /// by name, as_custom_obj, as_optional_tensor holding a tensor); nullptr otherwise.
  const std::string* value_name() const;

  bool operator==(const Argument& o) const;

 private:
  Variant v_;
};

/// An argument of a node call (NamedArgument): schema argument name, value, and kind.
enum class ArgumentKind : uint8_t { Unknown = 0, Positional = 1, Keyword = 2 };

struct NamedArgument {
  std::string name;  ///< schema argument name; "" for positional higher-order-op arguments
  Argument arg;
  std::optional<ArgumentKind> kind;  ///< null in old files (§5.2)
  bool operator==(const NamedArgument&) const = default;
};

// ---- factories -----------------------------------------------------------
inline Argument arg_none() { return Argument(); }
inline Argument arg_tensor(std::string name) { return Argument::make<ArgTag::Tensor>(TensorArgument{std::move(name)}); }
Argument arg_tensors(const std::vector<std::string>& names);
inline Argument arg_int(int64_t v) { return Argument::make<ArgTag::Int>(v); }
inline Argument arg_ints(std::vector<int64_t> v) { return Argument::make<ArgTag::Ints>(std::move(v)); }
inline Argument arg_float(double v) { return Argument::make<ArgTag::Float>(v); }
inline Argument arg_floats(std::vector<double> v) { return Argument::make<ArgTag::Floats>(std::move(v)); }
inline Argument arg_bool(bool v) { return Argument::make<ArgTag::Bool>(v); }
inline Argument arg_string(std::string v) { return Argument::make<ArgTag::String>(std::move(v)); }
inline Argument arg_dtype(ScalarType t) { return Argument::make<ArgTag::ScalarType>(t); }
inline Argument arg_memory_format(MemoryFormat f) { return Argument::make<ArgTag::MemoryFormat>(f); }
inline Argument arg_layout(Layout l) { return Argument::make<ArgTag::Layout>(l); }
inline Argument arg_device(Device d) { return Argument::make<ArgTag::Device>(std::move(d)); }
inline Argument arg_sym_int(std::string name) {
  return Argument::make<ArgTag::SymInt>(SymIntArgument{std::move(name), 0});
}
inline Argument arg_sym_bool(std::string name) {
  return Argument::make<ArgTag::SymBool>(SymBoolArgument{std::move(name), false});
}
inline Argument arg_sym_float(std::string name) {
  return Argument::make<ArgTag::SymFloat>(SymFloatArgument{std::move(name), 0.0});
}
inline Argument arg_custom_obj(std::string name, std::string class_fqn) {
  return Argument::make<ArgTag::CustomObj>(CustomObjArgument{std::move(name), std::move(class_fqn)});
}
inline NamedArgument positional(std::string name, Argument arg) {
  return NamedArgument{std::move(name), std::move(arg), ArgumentKind::Positional};
}
inline NamedArgument keyword(std::string name, Argument arg) {
  return NamedArgument{std::move(name), std::move(arg), ArgumentKind::Keyword};
}

// ---- value-name visitors -------------------------------------------------

/// Calls f(const std::string& name, ValueKind kind) for every value name the
/// argument refers to, in order (nested subgraphs are separate namespaces and
/// are not visited).
template <typename F>
void for_each_value_name(const Argument& a, F&& f);
/// Same, with a mutable name (f(std::string& name, ValueKind kind)), e.g. for renaming.
template <typename F>
void for_each_value_name_mut(Argument& a, F&& f);

namespace detail {
template <typename A, typename F>
void visit_names(A& a, F& f) {
  switch (a.tag()) {
    case ArgTag::Tensor: f(a.template get<ArgTag::Tensor>().name, ValueKind::Tensor); break;
    case ArgTag::Tensors:
      for (auto& t : a.template get<ArgTag::Tensors>()) f(t.name, ValueKind::Tensor);
      break;
    case ArgTag::NestedTensors:
      for (auto& l : a.template get<ArgTag::NestedTensors>())
        for (auto& t : l) f(t.name, ValueKind::Tensor);
      break;
    case ArgTag::OptionalTensor: {
      auto& o = a.template get<ArgTag::OptionalTensor>();
      if (o.name) f(*o.name, ValueKind::Tensor);
      break;
    }
    case ArgTag::OptionalTensors:
      for (auto& o : a.template get<ArgTag::OptionalTensors>())
        if (o.name) f(*o.name, ValueKind::Tensor);
      break;
    case ArgTag::SymInt: {
      auto& s = a.template get<ArgTag::SymInt>();
      if (s.name) f(*s.name, ValueKind::SymInt);
      break;
    }
    case ArgTag::SymInts:
      for (auto& s : a.template get<ArgTag::SymInts>())
        if (s.name) f(*s.name, ValueKind::SymInt);
      break;
    case ArgTag::SymFloat: {
      auto& s = a.template get<ArgTag::SymFloat>();
      if (s.name) f(*s.name, ValueKind::SymFloat);
      break;
    }
    case ArgTag::SymFloats:
      for (auto& s : a.template get<ArgTag::SymFloats>())
        if (s.name) f(*s.name, ValueKind::SymFloat);
      break;
    case ArgTag::SymBool: {
      auto& s = a.template get<ArgTag::SymBool>();
      if (s.name) f(*s.name, ValueKind::SymBool);
      break;
    }
    case ArgTag::SymBools:
      for (auto& s : a.template get<ArgTag::SymBools>())
        if (s.name) f(*s.name, ValueKind::SymBool);
      break;
    case ArgTag::CustomObj: f(a.template get<ArgTag::CustomObj>().name, ValueKind::CustomObj); break;
    case ArgTag::StringToArgument:
      for (auto& e : a.template get<ArgTag::StringToArgument>().entries) visit_names(e.second, f);
      break;
    default: break;
  }
}
}  // namespace detail

template <typename F>
void for_each_value_name(const Argument& a, F&& f) {
  detail::visit_names(a, f);
}
template <typename F>
void for_each_value_name_mut(Argument& a, F&& f) {
  detail::visit_names(a, f);
}

/// Relative JSON pointer (from the Argument object) of the first place where
/// `name` is referenced, e.g. "/as_tensors/2/name"; empty when not referenced.
std::string argument_name_pointer(const Argument& a, std::string_view name);

}  // namespace pteforge::ir
