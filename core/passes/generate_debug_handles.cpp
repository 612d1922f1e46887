// generate_debug_handles: numbers every node (placeholders and the output are
// not nodes in our IR) from 1 upwards, visiting the graph and then its nested
// graphs breadth first, node order within a graph. Nodes that share their
// oldest ancestor share a handle. The handles go to MethodState::debug_handles
// (replacing earlier ones); the graph is not changed.
//
// Mirrors ExecuTorch's DebugHandleGeneratorPass, the last to_edge pass
// (executorch-pipeline.md §1.2 step 11): a node's oldest ancestor is found by
// following its `from_node` provenance (the last record, then that record's
// last `from_node`, ...), identified by name and graph id. In our IR:
//   - when the node's metadata carries `from_node` (JSON text written by newer
//     torch.export, torch-export-format.md §6), that chain decides, exactly as
//     in ExecuTorch; so nodes decomposed from one source op share a handle;
//   - otherwise the ancestor is the node of the input document the node came
//     from: its origin (graph pointer and node index), which nodes created by
//     passes copy from the node they replace or serve (Node::inherit_from).
//     This is what ExecuTorch computes for a loaded program without
//     `from_node`: its first retrace records the loaded node as the ancestor
//     of every node made from it;
//   - a node with no known origin (built in memory) is its own ancestor.
// Preconditions: none.
//
// Example: %scalar_tensor (inherited from %mul) and %mul share handle 2 when
// %relu (handle 1) comes first.
#include <rapidjson/document.h>
#include <tsl/robin_map.h>

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "passes/edge_utils.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"
#include "support/name_map.h"

namespace pteforge::passes {
namespace {

/// "name#graph_id" of the oldest record of a from_node JSON list; "" when the
/// text is not a non-empty list of records.
std::string oldest_from_node(const std::string& json) {
  rapidjson::Document doc;
  // Iterative: metadata text is input, and nesting must not recurse.
  doc.Parse<rapidjson::kParseIterativeFlag>(json.c_str(), json.size());
  if (doc.HasParseError() || !doc.IsArray() || doc.Empty()) return {};
  const rapidjson::Value* rec = &doc[doc.Size() - 1];
  for (int depth = 0; depth < 10000; ++depth) {
    if (!rec->IsObject()) return {};
    auto it = rec->FindMember("from_node");
    if (it == rec->MemberEnd() || !it->value.IsArray() || it->value.Empty()) break;
    rec = &it->value[it->value.Size() - 1];
  }
  if (!rec->IsObject()) return {};
  std::string key;
  for (const char* field : {"name", "node_name"}) {
    auto it = rec->FindMember(field);
    if (it != rec->MemberEnd() && it->value.IsString()) {
      key.assign(it->value.GetString(), it->value.GetStringLength());
      break;
    }
  }
  key += '#';
  auto gid = rec->FindMember("graph_id");
  if (gid != rec->MemberEnd()) {
    if (gid->value.IsInt64()) {
      key += std::to_string(gid->value.GetInt64());
    } else if (gid->value.IsUint64()) {
      key += std::to_string(gid->value.GetUint64());
    } else if (gid->value.IsString()) {
      key.append(gid->value.GetString(), gid->value.GetStringLength());
    }
  }
  return key;
}

/// Identity of a node's oldest ancestor (see the header comment): the text
/// key of its `from_node` chain, else its origin (graph pointer text, node
/// index), else the node itself. Kept as views and numbers: building a
/// string per node cost several allocations per node.
struct AncestorKey {
  enum class Kind : uint8_t { FromNode, Origin, Node };
  Kind kind;
  std::string text;            ///< FromNode: oldest_from_node's key
  std::string_view graph;      ///< Origin: the graph's JSON pointer
  const void* node = nullptr;  ///< Node: the node itself
  int64_t index = 0;           ///< Origin: the node's index in that graph

  bool operator==(const AncestorKey& o) const {
    return kind == o.kind && text == o.text && graph == o.graph && node == o.node && index == o.index;
  }
};

struct AncestorKeyHash {
  size_t operator()(const AncestorKey& k) const {
    const size_t h = k.kind == AncestorKey::Kind::FromNode ? NameHash{}(k.text)
                     : k.kind == AncestorKey::Kind::Origin  ? NameHash{}(k.graph)
                                                            : PtrHash{}(k.node);
    return h ^ (static_cast<size_t>(k.index) * 0x9e3779b97f4a7c15ull) ^ static_cast<size_t>(k.kind);
  }
};

AncestorKey ancestor_key(const ir::Node& node) {
  if (const std::string* from = node.metadata().find_other("from_node")) {
    std::string key = oldest_from_node(*from);
    if (!key.empty()) return {AncestorKey::Kind::FromNode, std::move(key), {}, nullptr, 0};
  }
  if (node.origin().known()) {
    return {AncestorKey::Kind::Origin, {}, *node.origin().graph_pointer, nullptr, node.origin().index};
  }
  return {AncestorKey::Kind::Node, {}, {}, &node, 0};
}

class GenerateDebugHandles final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"generate_debug_handles", "number nodes for the debug-handle map", "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    auto& handles = ctx.state().debug_handles;
    handles.clear();
    const std::vector<ir::Graph*> graphs = edge::graphs_bfs(ep.graph());
    size_t nodes = 0;
    for (const ir::Graph* graph : graphs) nodes += graph->num_nodes();
    handles.reserve(nodes);
    // Handles are numbered in order of first appearance of an ancestor. The
    // usual ancestor, a node's origin in the input document, is looked up in
    // a dense table per origin graph, indexed by the node's index there; a
    // hash table of every ancestor (88-byte buckets at half load) was 46 MB
    // of memory touched for the first time at 100k nodes. Other ancestors
    // (from_node chains, nodes without an origin, far-out indices) use one.
    OriginTables origins(2 * nodes + 1024);
    tsl::robin_map<AncestorKey, int64_t, AncestorKeyHash> by_ancestor;
    int64_t count = 0;
    for (ir::Graph* graph : graphs) {
      for (const ir::Node& node : *graph) {
        AncestorKey key = ancestor_key(node);
        if (int64_t* slot =
                key.kind == AncestorKey::Kind::Origin ? origins.slot(key.graph, key.index) : nullptr) {
          if (*slot == 0) *slot = ++count;
          handles[&node] = *slot;
          continue;
        }
        auto [it, inserted] = by_ancestor.emplace(std::move(key), count + 1);
        if (inserted) ++count;
        handles[&node] = it->second;
      }
    }
    ctx.stat("handles", count);
    return !handles.empty();
  }

 private:
  /// Handles of origin ancestors: per origin graph (by its JSON pointer's
  /// text), the handle of each node index, 0 while unnumbered.
  class OriginTables {
   public:
    explicit OriginTables(int64_t max_index) : max_index_(max_index) {}
    /// The handle slot of (graph, index), or nullptr when index is past the limit.
    int64_t* slot(std::string_view graph, int64_t index) {
      if (index < 0 || index > max_index_) return nullptr;
      if (last_ == nullptr || last_->graph.data() != graph.data() || last_->graph != graph) {
        last_ = nullptr;
        for (Table& t : tables_) {
          if (t.graph == graph) {
            last_ = &t;
            break;
          }
        }
        if (last_ == nullptr) last_ = &tables_.emplace_back(Table{graph, {}});
      }
      std::vector<int64_t>& h = last_->handles;
      if (static_cast<size_t>(index) >= h.size()) h.resize(static_cast<size_t>(index) + 1, 0);
      return &h[static_cast<size_t>(index)];
    }

   private:
    struct Table {
      std::string_view graph;
      std::vector<int64_t> handles;
    };
    int64_t max_index_;
    std::deque<Table> tables_;  // stable addresses for last_
    Table* last_ = nullptr;
  };
};

}  // namespace

std::unique_ptr<Pass> make_generate_debug_handles_pass() { return std::make_unique<GenerateDebugHandles>(); }

}  // namespace pteforge::passes
