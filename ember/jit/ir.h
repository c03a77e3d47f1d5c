// The JIT's graph IR (Note [JIT graphs]): an SSA graph of traced op calls.
//
// Note [JIT graphs]: a Graph has inputs (the program's tensor arguments), parameters (named
// tensors bound at each run: a traced module's parameters and buffers, or a loaded program's),
// constants (tensors the graph owns: captured tensors, Python-style wrapped numbers, folded
// results) and nodes in execution order. A node is one traced op (tracing::TracedOp: its name is
// the node's kind) with its tensor inputs (values; null for an absent optional tensor), its
// attributes (the call's non-tensor arguments) and its outputs, each a new value. A node that
// mutates writes into its first input's tensor (an in-place op or an out= call) and gives the
// written tensor as its output: passes keep such nodes, never merge or fold them, and leave
// alone every node that reads a tensor sharing memory with a mutated one (alias_roots()).
// Values carry the type the trace saw (dtype, sizes, strides, device, requires_grad).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/tensor.h"
#include "ember/core/tracing.h"

namespace ember::jit {

struct TensorType {
  ScalarType dtype = kFloat;
  std::vector<int64_t> sizes, strides;
  Device device = kCPU;
  bool requires_grad = false;
  static TensorType of(const Tensor& t);
  std::string str() const;  // "Float(8, 16)"; strides shown when not contiguous
  bool operator==(const TensorType& o) const = default;
};

class Node;
struct FusionGroup;  // fuser.cpp

struct Value {
  int64_t id = 0;       // dense in the graph, printed as %id
  Node* node = nullptr;  // the producing node (null for inputs, parameters and constants)
  size_t index = 0;     // which of the producer's outputs
  TensorType type;
  std::string name;     // an input's or parameter's name; "" otherwise
  // A size-generic graph's values (Note [Dynamic sizes] in dynamic.cpp): the sizes the same value
  // had in the other trace the graph was generalized from (empty otherwise). The fuser groups
  // values whose sizes are equal in both.
  std::vector<int64_t> twin_sizes;
};

// An integer attribute of a size-generic graph's node that follows the inputs' sizes (Note
// [Dynamic sizes]): attrs[attr] (element `element` of an int list, or the number itself when
// -1) is size symbol `symbol` times `factor` at each run.
struct SizeUse {
  size_t attr = 0;
  int64_t element = -1;
  size_t symbol = 0;
  int64_t factor = 1;
};

class Node {
 public:
  const tracing::TracedOp* op = nullptr;
  std::vector<Value*> inputs;  // null: an absent optional tensor
  std::vector<Value*> outputs;
  tracing::Attrs attrs;
  bool mutates = false;
  // A fused group of pointwise nodes (Note [Pointwise fusion]): run by its kernel.
  std::shared_ptr<FusionGroup> fusion;
  std::vector<SizeUse> size_uses;  // a size-generic graph's (Note [Dynamic sizes])
  std::string_view kind() const { return op->name; }
  // Kept by every pass: writes an input, or draws random numbers.
  bool has_effects() const { return mutates || op->random; }
};

class EMBER_API Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  Graph(Graph&&) = default;
  Graph& operator=(Graph&&) = default;

  Value* add_input(std::string name, TensorType type);
  Value* add_param(std::string name, TensorType type);
  // A tensor the graph owns (a wrapped number keeps its flag: it promotes as a scalar does).
  Value* add_constant(Tensor value);
  Node* add_node(const tracing::TracedOp& op, std::vector<Value*> inputs, tracing::Attrs attrs,
                 std::vector<TensorType> output_types, bool mutates);
  // A node with new output values, not yet in the node list (passes that rebuild the list).
  std::unique_ptr<Node> make_node(const tracing::TracedOp& op, std::vector<Value*> inputs, tracing::Attrs attrs,
                                  std::vector<TensorType> output_types, bool mutates);
  std::vector<std::unique_ptr<Node>> take_nodes() { return std::move(nodes_); }
  void set_nodes(std::vector<std::unique_ptr<Node>> nodes) { nodes_ = std::move(nodes); }
  void set_outputs(std::vector<Value*> outputs) { outputs_ = std::move(outputs); }

  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& params() const { return params_; }
  const std::vector<std::pair<Value*, Tensor>>& constants() const { return constants_; }
  const std::vector<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  size_t num_values() const { return values_.size(); }
  const Tensor* constant_value(const Value* v) const;
  bool is_constant(const Value* v) const { return constant_value(v) != nullptr; }

  // Rewriting (passes): every use of `from` (node inputs, graph outputs) becomes `to`.
  void replace_uses(Value* from, Value* to);
  // Removes the nodes for which remove(node) is true, and constants no longer used.
  template <class F>
  void remove_nodes_if(F&& remove) {
    std::vector<std::unique_ptr<Node>> kept;
    for (auto& n : nodes_)
      if (!remove(*n)) kept.push_back(std::move(n));
    nodes_ = std::move(kept);
    drop_unused_constants();
  }
  void drop_unused_constants();
  // Each value's alias root: the value whose tensor it views or writes into, through view and
  // mutating nodes (itself otherwise); and the roots some node writes into.
  std::vector<const Value*> alias_roots() const;
  std::vector<bool> mutated_roots() const;  // indexed by value id

  // A copy: new values and nodes, the same constants (tensors shared) and fused groups.
  std::shared_ptr<Graph> clone() const;

  // Text: `graph(%0 : Float(8, 16), ...):` then a line per node (a fused node's group indented
  // under it), then `return (...)`.
  std::string str() const;
  // Graphviz: values as edges between the nodes.
  std::string to_dot() const;

 private:
  Value* new_value(TensorType type);
  std::vector<std::unique_ptr<Value>> values_;
  std::vector<Value*> inputs_, params_;
  std::vector<std::pair<Value*, Tensor>> constants_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<Value*> outputs_;
};

// An attribute as text, as printed in a graph ("[8, 16]", "2.5", "Float", "none").
EMBER_API std::string attr_str(const tracing::Attr& a);
// The nodes a fused node stands for (fuser.cpp); null for other nodes.
EMBER_API const Graph* fusion_subgraph(const Node& n);

}  // namespace ember::jit
