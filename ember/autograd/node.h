// The reverse-mode graph: Node (a backward function), Edge (which input of which node a
// gradient flows to) and SavedVariable (a tensor saved for backward, with its version).
// See Note [Autograd graph] in engine.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::autograd {

struct Node;
using variable_list = std::vector<Tensor>;
using tensor_list = std::vector<Tensor>;

struct Edge {
  Edge() = default;
  Edge(std::shared_ptr<Node> f, uint32_t nr) : function(std::move(f)), input_nr(nr) {}
  bool is_valid() const { return function != nullptr; }
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
};

// What a gradient flowing into a node's input must look like: the forward output's shape,
// dtype and device (the engine checks, sums broadcast gradients and casts).
struct InputMetadata {
  DimVector shape;
  ScalarType dtype = kFloat;
  Device device = kCPU;
};

struct Node : std::enable_shared_from_this<Node> {
  Node();
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Gradients of the forward outputs in, gradients of the forward inputs out (one per
  // next edge; undefined where there is none).
  virtual variable_list apply(variable_list&& grads) = 0;
  virtual std::string name() const = 0;
  // Drops saved tensors after a backward without retain_graph.
  virtual void release_variables() {}

  variable_list operator()(variable_list&& grads);

  uint32_t num_inputs() const { return uint32_t(input_metadata_.size()); }
  uint32_t num_outputs() const { return uint32_t(next_edges_.size()); }
  const std::vector<Edge>& next_edges() const { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  void add_next_edge(Edge e) { next_edges_.push_back(std::move(e)); }
  void set_next_edges(std::vector<Edge> e) { next_edges_ = std::move(e); }
  const InputMetadata& input_metadata(size_t i) const { return input_metadata_[i]; }
  uint32_t add_input_metadata(const Tensor& t);
  // An output that was not defined (custom functions): its gradient is always undefined.
  void add_undefined_input_metadata() { input_metadata_.push_back(InputMetadata{}); }
  uint64_t sequence_nr() const { return sequence_nr_; }
  // Whether the gradient for input i of the forward op is needed (its edge is valid).
  bool should_compute_output(size_t i) const { return i < next_edges_.size() && next_edges_[i].is_valid(); }

  // Hooks run on the gradient of forward output `input_nr` before apply (tensor hooks of
  // non-leaf tensors), and the retain_grad hook, which runs after them.
  using Hook = std::function<Tensor(const Tensor&)>;
  unsigned add_pre_hook(uint32_t input_nr, Hook h);
  void remove_pre_hook(unsigned id);
  void set_retain_grad_hook(uint32_t input_nr, Hook h);
  Tensor run_pre_hooks(uint32_t input_nr, Tensor grad);
  bool has_pre_hooks() const { return !pre_hooks_.empty() || !retain_hooks_.empty(); }

  // Anomaly mode: the forward op (and where) that created this node.
  const std::string& anomaly_context() const { return anomaly_context_; }
  void set_anomaly_context(std::string s) { anomaly_context_ = std::move(s); }

  std::mutex& mutex() { return mutex_; }

 protected:
  std::vector<Edge> next_edges_;
  std::vector<InputMetadata> input_metadata_;
  uint64_t sequence_nr_;
  struct PreHook { unsigned id; uint32_t input_nr; Hook fn; };
  std::vector<PreHook> pre_hooks_;
  std::vector<std::pair<uint32_t, Hook>> retain_hooks_;
  std::string anomaly_context_;
  std::mutex mutex_;
};

// A tensor saved for backward. Saving an output of the node that saves it keeps no strong
// reference to that node (no cycle); unpacking re-attaches it. Unpacking checks that the
// tensor was not modified in place since it was saved.
class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output);
  // `for_node`: the node doing the unpacking (needed to re-attach a saved output).
  Tensor unpack(const std::shared_ptr<Node>& for_node = nullptr) const;
  void reset();
  bool defined() const { return was_defined_; }
  // If this saves `t` itself (as an input), keep only its data and version (no history).
  void drop_history_if(const Tensor& t);

 private:
  Tensor data_;  // for outputs: an alias without autograd metadata
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool was_defined_ = false;
  bool is_output_ = false;
  bool requires_grad_ = false;
  bool is_leaf_ = false;
  bool released_ = false;
  std::string op_name_;  // the node that produced the tensor, for error messages
  std::vector<std::pair<uint64_t, Tensor>> fw_grads_;  // an output's tangents, restored on unpack
};

// The gradient edge of a tensor: its grad_fn and output number, or its grad accumulator
// when it is a leaf that requires grad; invalid otherwise.
Edge gradient_edge(const Tensor& t);
// Edges for a list of inputs (invalid where the input needs no gradient).
std::vector<Edge> collect_next_edges(const std::vector<Tensor>& inputs);

}  // namespace ember::autograd
