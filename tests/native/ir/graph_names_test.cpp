// Graph::unique_name's per-stem cache and the incremental insert_input /
// erase_input give exactly what the plain definitions give: the first free
// `stem_<i>`, and the value table (input_index, def_count) of set_inputs.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ir/graph.h"

using namespace pteforge::ir;

namespace {

/// unique_name by its definition: base, else the first free base_1, base_2, ...
std::string naive_unique(const Graph& g, const std::string& base) {
  auto taken = [&](const std::string& n) { return g.find_value(n) != nullptr || g.find_node(n) != nullptr; };
  if (!taken(base)) return base;
  for (int i = 1;; ++i) {
    std::string c = base + "_" + std::to_string(i);
    if (!taken(c)) return c;
  }
}

Node relu(const std::string& in, const std::string& name) {
  return Node(OpTarget("torch.ops.aten.relu.default"), {positional("self", arg_tensor(in))}, {arg_tensor(name)}, name);
}

/// input_index and def_count of every input name, as text.
std::string input_table(const Graph& g) {
  std::string s;
  for (const Argument& a : g.inputs()) {
    const Value* v = g.find_value(a.tensor_name());
    s += a.tensor_name() + "@" + std::to_string(v ? v->input_index : -9) + "/" + std::to_string(v ? v->def_count : 0) +
         " ";
  }
  return s;
}

}  // namespace

TEST_CASE("graph: unique_name with its cache equals the first free suffix after adds and erases") {
  Graph g;
  g.set_inputs({arg_tensor("x")});
  std::vector<Node*> made;
  uint32_t seed = 7;
  auto rnd = [&seed](uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % n;
  };
  for (int step = 0; step < 400; ++step) {
    if (!made.empty() && rnd(3) == 0) {
      // Erase any of them (nothing uses them), often one below the highest suffix.
      size_t k = rnd(static_cast<uint32_t>(made.size()));
      Node* n = made[k];
      made.erase(made.begin() + static_cast<std::ptrdiff_t>(k));
      REQUIRE(g.erase(*n).ok());
    } else {
      std::string expected = naive_unique(g, "alloc");
      std::string got = g.unique_name("alloc");
      REQUIRE(got == expected);
      made.push_back(&g.append(relu("x", got)));
    }
  }
  CHECK(g.unique_name("alloc") == naive_unique(g, "alloc"));
  // Renaming frees the old name too.
  Node* n = g.find_node("alloc_3");
  if (n) {
    n->set_name("renamed");
    CHECK(g.unique_name("alloc") == naive_unique(g, "alloc"));
  }
}

TEST_CASE("graph: insert_input / erase_input keep input_index and def_count as set_inputs does") {
  Graph g;
  g.set_inputs({arg_tensor("a"), arg_tensor("b"), arg_tensor("c")});
  g.append(relu("b", "r"));
  g.insert_input(1, arg_tensor("n"));
  CHECK(input_table(g) == "a@0/1 n@1/1 b@2/1 c@3/1 ");
  g.insert_input(99, arg_tensor("z"));  // past the end: appended
  CHECK(input_table(g) == "a@0/1 n@1/1 b@2/1 c@3/1 z@4/1 ");
  g.erase_input(0);
  CHECK(input_table(g) == "n@0/1 b@1/1 c@2/1 z@3/1 ");
  CHECK(g.find_value("a") == nullptr);  // nothing refers to it any more
  g.erase_input(1);                     // b is still used by %r: kept, no longer defined
  CHECK(input_table(g) == "n@0/1 c@1/1 z@2/1 ");
  const Value* b = g.find_value("b");
  REQUIRE(b);
  CHECK(b->def_count == 0);
  CHECK(b->input_index == -1);
  // The same table set_inputs builds from scratch.
  Graph h;
  h.set_inputs(g.inputs());
  CHECK(input_table(h) == input_table(g));
  g.erase_input(7);  // out of range: nothing happens
  CHECK(g.inputs().size() == 3);
}

namespace {

/// Users of each name, then use_count and the kind counts, as text.
std::string uses_table(const Graph& g, const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) {
    s += n + ":";
    for (const Node* u : g.users(n)) s += " " + u->name();
    const Value* v = g.find_value(n);
    s += " #" + std::to_string(g.use_count(n)) + " t" +
         std::to_string(v ? v->refs_as(ValueKind::Tensor) : 0) + "; ";
  }
  return s;
}

Node add(const std::string& a, const std::string& b, const std::string& name) {
  return Node(OpTarget("torch.ops.aten.add.Tensor"),
              {positional("self", arg_tensor(a)), positional("other", arg_tensor(b))}, {arg_tensor(name)},
              name);
}

}  // namespace

TEST_CASE(
    "graph: input mutators move the node behind the other users of each value it reads, as torch.fx does") {
  Graph g;
  g.set_inputs({arg_tensor("x"), arg_tensor("y"), arg_tensor("z")});
  Node& first = g.append(add("x", "y", "first"));
  g.append(add("x", "z", "second"));
  const std::vector<std::string> names{"x", "y", "z"};
  CHECK(uses_table(g, names) == "x: first second #2 t3; y: first #1 t2; z: second #1 t2; ");

  // torch.fx re-registers every input of a node whose args change
  // (Node.__update_args_kwargs), so %first now comes after %second for x too.
  first.add_input(keyword("alpha", arg_tensor("z")));
  CHECK(uses_table(g, names) == "x: second first #2 t3; y: first #1 t2; z: second first #2 t3; ");
  first.set_input(1, arg_tensor("z"));  // other: y -> z
  CHECK(uses_table(g, names) == "x: second first #2 t3; y: #0 t1; z: second first #3 t4; ");
  first.erase_input(2);
  CHECK(uses_table(g, names) == "x: second first #2 t3; y: #0 t1; z: second first #2 t3; ");

  // take_inputs + set_inputs: a rewrite without copies, same table at the end.
  std::vector<NamedArgument> taken = first.take_inputs();
  CHECK(taken.size() == 2);
  CHECK(first.inputs().empty());
  CHECK(uses_table(g, names) == "x: second #1 t2; y: #0 t1; z: second #1 t2; ");
  first.set_inputs(std::move(taken));
  CHECK(uses_table(g, names) == "x: second first #2 t3; y: #0 t1; z: second first #2 t3; ");

  // The counts equal those of the same graph built with set_inputs.
  Graph h;
  h.set_inputs(g.inputs());
  h.append(add("x", "z", "first"));
  h.append(add("x", "z", "second"));
  auto counts = [&names](const Graph& graph) {
    std::string s;
    for (const std::string& n : names) {
      const Value* v = graph.find_value(n);
      s += std::to_string(graph.use_count(n)) + "/" + std::to_string(v ? v->refs_as(ValueKind::Tensor) : 0) +
           " ";
    }
    return s;
  };
  CHECK(counts(g) == counts(h));
  CHECK(counts(g) == "2/3 0/1 2/3 ");
}
