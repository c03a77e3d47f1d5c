// The reverse-mode engine, the graph's nodes and per-tensor autograd state.
//
// Note [Autograd graph]
// Each differentiable op that sees an input requiring grad (and GradMode on) records an
// OpNode: its next edges point at the inputs' gradient edges (their grad_fn and output
// number, or a leaf's AccumulateGrad), it saves what its vjp reads as SavedVariables, and
// the outputs get it as grad_fn. backward() counts dependencies from the roots, then runs
// ready nodes highest sequence number first (the reverse of creation order), summing the
// gradients that reach each node input. The engine checks every gradient a vjp returns
// against the forward tensor's metadata: a broadcast gradient is summed to the input's
// shape, a complex gradient of a real input keeps its real part (PyTorch's
// handle_r_to_c), and a dtype difference is cast, so vjps can be written without those
// details. Each backward call runs on the calling thread with its own buffers; nodes are
// locked while they run, so independent backward calls from several threads are safe.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <cmath>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "ember/autograd/autograd.h"
#include "ember/autograd/callbacks.h"
#include "ember/autograd/autograd_meta.h"
#include "ember/autograd/forward_ad.h"
#include "ember/autograd/functions.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/warning.h"
#include "ember/core/tracing_call.h"
#include "ember/ops/functions.h"
#include "ember/ops/views.h"

namespace ember::autograd {

namespace {
std::atomic<uint64_t> g_next_sequence_nr{0};
std::atomic<unsigned> g_next_hook_id{1};
}  // namespace

// ---- Node ---------------------------------------------------------------------------
Node::Node() : sequence_nr_(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}
Node::~Node() = default;

variable_list Node::operator()(variable_list&& grads) { return apply(std::move(grads)); }

uint32_t Node::add_input_metadata(const Tensor& t) {
  input_metadata_.push_back(InputMetadata{DimVector(t.sizes()), t.scalar_type(), t.device()});
  return uint32_t(input_metadata_.size() - 1);
}

unsigned Node::add_pre_hook(uint32_t input_nr, Hook h) {
  unsigned id = g_next_hook_id.fetch_add(1);
  pre_hooks_.push_back({id, input_nr, std::move(h)});
  return id;
}
void Node::remove_pre_hook(unsigned id) {
  pre_hooks_.erase(std::remove_if(pre_hooks_.begin(), pre_hooks_.end(), [&](const PreHook& h) { return h.id == id; }),
                   pre_hooks_.end());
}
void Node::set_retain_grad_hook(uint32_t input_nr, Hook h) {
  for (auto& [nr, fn] : retain_hooks_)
    if (nr == input_nr) {
      fn = std::move(h);
      return;
    }
  retain_hooks_.emplace_back(input_nr, std::move(h));
}
Tensor Node::run_pre_hooks(uint32_t input_nr, Tensor grad) {
  for (auto& h : pre_hooks_) {
    if (h.input_nr != input_nr) continue;
    Tensor r = h.fn(grad);
    if (r.defined()) grad = std::move(r);
  }
  for (auto& [nr, fn] : retain_hooks_)
    if (nr == input_nr) fn(grad);
  return grad;
}

// ---- SavedVariable --------------------------------------------------------------------
SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  // As LibTorch: an inference tensor has no version counter to guard a saved value with.
  EMBER_CHECK(!t.is_inference(), "Inference tensors cannot be saved for backward. To work around you can make a clone "
              "to get a normal tensor and use it in autograd.");
  was_defined_ = true;
  is_output_ = is_output;
  saved_version_ = uint32_t(t._version());
  AutogradMeta* m = get_meta(t);
  requires_grad_ = t.requires_grad();
  is_leaf_ = !m || !m->grad_fn_;
  if (m && m->grad_fn_) op_name_ = m->grad_fn_->name();
  if (is_output && m && m->grad_fn_) {
    // Keep the data and version counter, not the history (the node owns the history).
    output_nr_ = m->output_nr_;
    // The output's tangents, without their own reverse history: a tangent computed with
    // grad mode on usually depends on this very node (e.g. exp's tangent t * result), and
    // keeping that history here would make a reference cycle.
    for (auto& [level, tangent] : m->fw_grads_) fw_grads_.emplace_back(level, tangent.detach());
    {
      BelowAutogradGuard g;
      data_ = make_view(t, t.sizes(), t.strides(), t.storage_offset());
    }
    data_.unsafeGetTensorImpl()->set_autograd_meta(nullptr);
  } else {
    is_output_ = false;
    data_ = t;
  }
}

void SavedVariable::drop_history_if(const Tensor& t) {
  if (is_output_ || !data_.defined() || !data_.is_same(t)) return;
  BelowAutogradGuard g;
  Tensor alias = make_view(t, t.sizes(), t.strides(), t.storage_offset());
  alias.unsafeGetTensorImpl()->set_autograd_meta(nullptr);
  data_ = alias;
  requires_grad_ = false;
}

void SavedVariable::reset() {
  data_ = Tensor();
  fw_grads_.clear();
  released_ = was_defined_;
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& for_node) const {
  if (!was_defined_) return Tensor();
  EMBER_CHECK(!released_, "Trying to backward through the graph a second time (or directly access saved tensors "
              "after they have already been freed). Saved intermediate values of the graph are freed when you call "
              ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a "
              "second time or if you need to access saved tensors after calling backward.");
  const uint32_t now = uint32_t(data_._version());
  if (now != saved_version_) {
    std::string desc = ember::detail::str_cat("[", data_.scalar_type(), " ", data_.sizes(), "]");
    std::string producer = is_leaf_ ? std::string(", which is a leaf tensor")
                                    : ember::detail::str_cat(", which is output ", output_nr_, " of ", op_name_);
    EMBER_ERROR("one of the variables needed for gradient computation has been modified by an inplace operation: ",
                desc, producer, ", is at version ", now, "; expected version ", saved_version_,
                " instead. Hint: the operation that failed to compute its gradient saved this tensor; "
                "avoid modifying it in place (use an out-of-place op or .clone() it first).");
  }
  if (!is_output_) return data_;
  // Re-attach the history: a fresh alias with grad_fn = the saving node.
  Tensor t;
  {
    BelowAutogradGuard g;
    t = make_view(data_, data_.sizes(), data_.strides(), data_.storage_offset());
  }
  t.unsafeGetTensorImpl()->set_autograd_meta(nullptr);
  if (requires_grad_ && for_node) {
    AutogradMeta* m = materialize_meta(t);
    m->grad_fn_ = for_node;
    m->output_nr_ = output_nr_;
  }
  if (!fw_grads_.empty()) materialize_meta(t)->fw_grads_ = fw_grads_;
  return t;
}

// ---- AutogradMeta ----------------------------------------------------------------------
void AutogradMeta::set_requires_grad(bool r) { requires_grad_ = r; }

AutogradMeta* materialize_meta(const Tensor& t) {
  TensorImpl* impl = t.unsafeGetTensorImpl();
  auto* m = impl->autograd_meta();
  if (auto* am = dynamic_cast<AutogradMeta*>(m)) return am;
  auto fresh = std::make_unique<AutogradMeta>();
  if (m) fresh->requires_grad_ = m->requires_grad();
  AutogradMeta* raw = fresh.get();
  impl->set_autograd_meta(std::move(fresh));
  return raw;
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, uint32_t output_nr) {
  AutogradMeta* m = materialize_meta(t);
  m->grad_fn_ = fn;
  m->output_nr_ = output_nr;
  m->requires_grad_ = false;
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  AutogradMeta* m = materialize_meta(leaf);
  std::lock_guard<std::mutex> lock(m->mutex_);
  if (auto acc = m->grad_accumulator_.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(leaf);
  m->grad_accumulator_ = acc;
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return {};
  AutogradMeta* m = get_meta(t);
  if (!m) return {};
  if (m->grad_fn_) return Edge(m->grad_fn_, m->output_nr_);
  if (m->requires_grad_) return Edge(grad_accumulator(t), 0);
  return {};
}

std::vector<Edge> collect_next_edges(const std::vector<Tensor>& inputs) {
  std::vector<Edge> r;
  r.reserve(inputs.size());
  for (const Tensor& t : inputs) r.push_back(GradMode::is_enabled() ? gradient_edge(t) : Edge());
  return r;
}

// ---- post-accumulate hooks (callbacks.h) ---------------------------------------------------
// Kept beside the leaves (few leaves have them: DDP's parameters), found by the leaf's impl.
struct PostAccumulateHooks {
  std::mutex mutex;
  std::unordered_map<const void*, std::vector<std::pair<unsigned, std::function<void(const Tensor&)>>>> by_leaf;
  std::atomic<size_t> count{0};
};
PostAccumulateHooks& post_accumulate_hooks() {
  static PostAccumulateHooks h;
  return h;
}

void run_post_accumulate_hooks(const Tensor& leaf) {
  PostAccumulateHooks& h = post_accumulate_hooks();
  if (h.count.load(std::memory_order_relaxed) == 0) return;
  std::vector<std::function<void(const Tensor&)>> hooks;
  {
    std::lock_guard<std::mutex> lock(h.mutex);
    auto it = h.by_leaf.find(leaf.unsafeGetTensorImpl());
    if (it == h.by_leaf.end()) return;
    for (auto& [id, f] : it->second) hooks.push_back(f);
  }
  for (auto& f : hooks) f(leaf);
}

// ---- AccumulateGrad ----------------------------------------------------------------------
AccumulateGrad::AccumulateGrad(Tensor leaf) : variable(std::move(leaf)) {
  add_input_metadata(variable);
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Tensor g = std::move(grads[0]);
  if (!g.defined()) return {};
  AutogradMeta* m = materialize_meta(variable);
  for (auto& [id, hook] : m->leaf_hooks_) {
    Tensor r = hook(g);
    if (r.defined()) g = std::move(r);
  }
  std::unique_lock<std::mutex> lock(m->mutex_);
  Tensor& acc = m->grad_;
  if (!acc.defined()) {
    // Own the gradient: the caller may still hold the tensor (the `gradient` argument of
    // backward, a hook's input), so it is copied and later accumulation cannot write into it.
    if (GradMode::is_enabled()) {
      acc = g;
    } else if (g.use_count() == 1 && g.storage().use_count() == 1 && !g.requires_grad()) {
      acc = std::move(g);  // nobody else holds it (a fresh vjp result): keep it, as LibTorch does
    } else {
      BelowAutogradGuard below;
      acc = g.clone();
    }
  } else if (GradMode::is_enabled()) {
    acc = acc.add(g);  // create_graph: keep the history of both terms
  } else {
    BelowAutogradGuard below;
    acc.add_(g);
  }
  lock.unlock();
  run_post_accumulate_hooks(variable);
  return {};
}

// ---- GraphRoot ---------------------------------------------------------------------------
GraphRoot::GraphRoot(std::vector<Edge> roots, variable_list grads) : grads_(std::move(grads)) {
  set_next_edges(std::move(roots));
}

// ---- engine -----------------------------------------------------------------------------
Tensor sum_to(const Tensor& t, IntArrayRef shape) {
  if (t.sizes() == shape) return t;
  const int64_t lead = t.dim() - int64_t(shape.size());
  DimVector dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1 && t.size(lead + int64_t(i)) != 1) dims.push_back(lead + int64_t(i));
  Tensor r = dims.empty() ? t : t.sum(IntArrayRef(dims), /*keepdim=*/true);
  return lead > 0 || r.sizes() != shape ? r.view(shape) : r;
}

Scalar conj_scalar(const Scalar& s) {
  if (!s.isComplex()) return s;
  Complex<double> z = s.toComplexDouble();
  return Scalar(Complex<double>(z.real(), -z.imag()));
}

std::string backward_name(std::string_view op) {
  std::string r;
  bool up = true;
  for (char c : op) {
    if (c == '_') { up = true; continue; }
    r += up ? char(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return r + "Backward0";
}

namespace {

// Reduces `g` to the shape of `meta` (summing broadcast dims), takes the real part of a
// complex gradient for a real tensor, and casts to the tensor's dtype; errors otherwise.
Tensor validate_grad(Tensor g, const InputMetadata& meta, const Node& fn, size_t index) {
  if (!g.defined()) return g;
  if (g.sizes() != IntArrayRef(meta.shape)) {
    bool expandable = g.dim() >= int64_t(meta.shape.size());
    for (size_t i = 0; expandable && i < meta.shape.size(); ++i) {
      int64_t gs = g.size(g.dim() - int64_t(meta.shape.size()) + int64_t(i));
      expandable = meta.shape[i] == gs || meta.shape[i] == 1;
    }
    EMBER_CHECK(expandable, "Function ", fn.name(), " returned an invalid gradient at index ", index, " - got ",
                g.sizes(), " but expected shape compatible with ", IntArrayRef(meta.shape));
    g = sum_to(g, meta.shape);
  }
  if (isComplexType(g.scalar_type()) && !isComplexType(meta.dtype)) g = real(g);
  if (g.scalar_type() != meta.dtype) g = g.to(meta.dtype);
  return g;
}

Tensor accumulate(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return a.add(b);
}

struct NodeTask {
  Node* fn;
  uint64_t seq;
  bool operator<(const NodeTask& o) const { return seq < o.seq; }
};

struct GraphTask {
  bool keep_graph = false;
  bool create_graph = false;
  bool accumulate_grad = true;  // backward(): into leaves; grad(): into `captures`
  std::unordered_map<Node*, int> deps;
  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  std::unordered_map<Node*, std::shared_ptr<Node>> owners;
  // Nodes that lead to a requested input (grad() / backward(inputs=)); empty = all.
  std::unordered_set<Node*> needed;
  std::unordered_set<Node*> targets;
  bool restrict_to_needed = false;
  // (node, input_nr) -> capture slot
  std::vector<std::pair<Edge, size_t>> capture_edges;
  variable_list captures;
};

void compute_dependencies(GraphTask& task, Node* root) {
  std::vector<Node*> stack{root};
  std::unordered_set<Node*> seen{root};
  while (!stack.empty()) {
    Node* fn = stack.back();
    stack.pop_back();
    for (const Edge& e : fn->next_edges()) {
      Node* next = e.function.get();
      if (!next) continue;
      task.deps[next] += 1;
      task.owners.emplace(next, e.function);
      if (seen.insert(next).second) stack.push_back(next);
    }
  }
}

// Marks the nodes whose results reach a requested input: only they run.
void compute_needed(GraphTask& task, Node* root) {
  std::unordered_set<Node*> targets;
  for (auto& [e, slot] : task.capture_edges) targets.insert(e.function.get());
  std::unordered_map<Node*, bool> reaches;  // fn is a target or leads to one
  std::vector<std::pair<Node*, size_t>> stack{{root, 0}};
  std::unordered_set<Node*> on_stack{root};
  while (!stack.empty()) {
    auto& [fn, i] = stack.back();
    if (i < fn->next_edges().size()) {
      Node* next = fn->next_edges()[i++].function.get();
      if (next && !reaches.count(next) && !on_stack.count(next)) {
        stack.push_back({next, 0});
        on_stack.insert(next);
      }
      continue;
    }
    bool leads = false;
    for (const Edge& e : fn->next_edges())
      if (e.function && reaches[e.function.get()]) leads = true;
    reaches[fn] = leads || targets.count(fn) > 0;
    if (leads) task.needed.insert(fn);
    on_stack.erase(fn);
    stack.pop_back();
  }
  task.targets = std::move(targets);
}

void check_anomaly(Node& fn, const variable_list& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& g = outputs[i];
    if (!g.defined() || !(g.is_floating_point() || g.is_complex())) continue;
    if (g.isnan().any().item<bool>()) {
      // As PyTorch: the forward call goes to a warning, the error itself is the bare sentence.
      if (!fn.anomaly_context().empty())
        EMBER_WARN("Error detected in ", fn.name(), ". The forward call that created it: ", fn.anomaly_context());
      EMBER_ERROR("Function '", fn.name(), "' returned nan values in its ", i, "th output.");
    }
  }
}

void execute(GraphTask& task, const std::shared_ptr<Node>& root) {
  AutoGradMode grad_mode(task.create_graph);
  std::priority_queue<NodeTask> ready;
  ready.push({root.get(), UINT64_MAX});
  task.owners.emplace(root.get(), root);
  while (!ready.empty()) {
    Node* fn = ready.top().fn;
    ready.pop();
    std::shared_ptr<Node> owner = task.owners[fn];
    std::vector<Tensor> inputs = std::move(task.buffers[fn]);
    task.buffers.erase(fn);
    inputs.resize(fn->num_inputs());

    // Tensor hooks, then captures for grad().
    if (fn->has_pre_hooks())
      for (uint32_t i = 0; i < inputs.size(); ++i)
        if (inputs[i].defined()) inputs[i] = fn->run_pre_hooks(i, std::move(inputs[i]));
    for (auto& [edge, slot] : task.capture_edges)
      if (edge.function.get() == fn) task.captures[slot] = accumulate(task.captures[slot], inputs[edge.input_nr]);

    const bool is_acc = dynamic_cast<AccumulateGrad*>(fn) != nullptr;
    bool run = true;
    if (task.restrict_to_needed) run = is_acc ? task.accumulate_grad && task.targets.count(fn) : task.needed.count(fn) > 0;
    variable_list outputs;
    if (run) {
      std::lock_guard<std::mutex> lock(fn->mutex());
      outputs = (*fn)(std::move(inputs));
      if (!task.keep_graph) fn->release_variables();
    }
    if (!outputs.empty() && AnomalyMode::is_enabled()) check_anomaly(*fn, outputs);

    const auto& edges = fn->next_edges();
    EMBER_CHECK(outputs.empty() || outputs.size() == edges.size(), "Function ", fn->name(), " returned ",
                outputs.size(), " gradients, expected ", edges.size());
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      Node* next = e.function.get();
      if (!next) continue;
      if (!outputs.empty() && outputs[i].defined()) {
        Tensor g = validate_grad(std::move(outputs[i]), next->input_metadata(e.input_nr), *fn, i);
        auto& buf = task.buffers[next];
        if (buf.size() < next->num_inputs()) buf.resize(next->num_inputs());
        buf[e.input_nr] = accumulate(buf[e.input_nr], g);
      }
      if (--task.deps[next] == 0) ready.push({next, next->sequence_nr()});
    }
  }
}

// The callbacks of the backward pass running on this thread (queue_callback).
thread_local std::vector<std::function<void()>>* current_callbacks = nullptr;

struct CallbackScope {
  std::vector<std::function<void()>> callbacks;
  std::vector<std::function<void()>>* previous;
  CallbackScope() : previous(current_callbacks) { current_callbacks = &callbacks; }
  ~CallbackScope() { current_callbacks = previous; }
  // Runs what the pass queued (a callback may queue more) while still the current scope.
  void run() {
    for (size_t i = 0; i < callbacks.size(); ++i) {
      std::function<void()> cb = std::move(callbacks[i]);
      cb();
    }
    callbacks.clear();
  }
};

// Runs the graph from `roots` seeded with `grads`.
variable_list run_backward(const variable_list& roots, const variable_list& grad_outputs, bool keep_graph,
                           bool create_graph, const variable_list& inputs, bool allow_unused, bool accumulate_grad,
                           const char* api) {
  EMBER_CHECK(!roots.empty(), api, ": got no tensors to differentiate");
  EMBER_CHECK(grad_outputs.empty() || grad_outputs.size() == roots.size(), api, ": got ", grad_outputs.size(),
              " gradients for ", roots.size(), " tensors");
  std::vector<Edge> root_edges;
  variable_list root_grads;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    EMBER_CHECK(r.defined(), api, ": tensor ", i, " is undefined");
    Edge e = gradient_edge(r);
    EMBER_CHECK(e.is_valid(), "element ", i, " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      EMBER_CHECK(r.numel() == 1, "grad can be implicitly created only for scalar outputs (", api, " got a tensor of "
                  "shape ", r.sizes(), "; pass a gradient of that shape)");
      g = ones_like(r, {}, MemoryFormat::Contiguous);
    } else {
      EMBER_CHECK(g.sizes() == r.sizes(), api, ": Mismatch in shape: grad_output[", i, "] has a shape of ",
                  g.sizes(), " and output[", i, "] has a shape of ", r.sizes(), ".");
      EMBER_CHECK(isComplexType(g.scalar_type()) == isComplexType(r.scalar_type()), api,
                  ": For complex Tensors, both grad_output and output are required to have the same dtype. "
                  "Mismatch in dtype: grad_output[", i, "] has a dtype of ", g.scalar_type(), " and output[", i,
                  "] has a dtype of ", r.scalar_type(), ".");
      EMBER_CHECK(g.device() == r.device(), api, ": gradient ", i, " is on ", g.device(), " but the tensor is on ",
                  r.device());
    }
    root_edges.push_back(std::move(e));
    root_grads.push_back(std::move(g));
  }

  GraphTask task;
  task.keep_graph = keep_graph;
  task.create_graph = create_graph;
  task.accumulate_grad = accumulate_grad;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& in = inputs[i];
    EMBER_CHECK(in.defined(), api, ": input ", i, " is undefined");
    Edge e = gradient_edge(in);
    EMBER_CHECK(e.is_valid() || !accumulate_grad, api, ": One of the differentiated Tensors does not require grad");
    EMBER_CHECK(e.is_valid(), "One of the differentiated Tensors does not require grad");
    task.capture_edges.emplace_back(std::move(e), i);
  }
  task.captures.resize(inputs.size());

  auto root = std::make_shared<GraphRoot>(std::move(root_edges), std::move(root_grads));
  compute_dependencies(task, root.get());
  if (!inputs.empty()) {
    task.restrict_to_needed = true;
    compute_needed(task, root.get());
  }
  {
    CallbackScope callbacks;
    execute(task, root);
    callbacks.run();
  }

  if (accumulate_grad) {
    // backward(inputs=) on a non-leaf: its gradient goes to its .grad.
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].is_leaf() || !task.captures[i].defined()) continue;
      Tensor& g = inputs[i].mutable_grad();
      Tensor c = create_graph ? task.captures[i] : task.captures[i].detach();
      g = g.defined() ? g.add(c) : c;
    }
  } else {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!task.captures[i].defined()) {
        EMBER_CHECK(allow_unused, "One of the differentiated Tensors appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.");
      }
    }
    return std::move(task.captures);
  }
  return {};
}

}  // namespace

void queue_callback(std::function<void()> callback) {
  EMBER_CHECK(current_callbacks != nullptr, "queue_callback: no backward pass is running on this thread (call it "
              "from a hook or a node during backward)");
  current_callbacks->push_back(std::move(callback));
}

bool in_backward_pass() { return current_callbacks != nullptr; }

unsigned register_post_accumulate_grad_hook(const Tensor& leaf, std::function<void(const Tensor&)> hook) {
  EMBER_CHECK(leaf.defined() && leaf.requires_grad() && leaf.is_leaf(),
              "register_post_accumulate_grad_hook: expected a leaf tensor that requires grad");
  PostAccumulateHooks& h = post_accumulate_hooks();
  const unsigned id = g_next_hook_id.fetch_add(1);
  std::lock_guard<std::mutex> lock(h.mutex);
  h.by_leaf[leaf.unsafeGetTensorImpl()].emplace_back(id, std::move(hook));
  h.count.fetch_add(1);
  return id;
}

void remove_post_accumulate_grad_hook(const Tensor& leaf, unsigned id) {
  PostAccumulateHooks& h = post_accumulate_hooks();
  std::lock_guard<std::mutex> lock(h.mutex);
  auto it = h.by_leaf.find(leaf.unsafeGetTensorImpl());
  if (it == h.by_leaf.end()) return;
  auto& v = it->second;
  const size_t before = v.size();
  v.erase(std::remove_if(v.begin(), v.end(), [&](const auto& e) { return e.first == id; }), v.end());
  h.count.fetch_sub(before - v.size());
  if (v.empty()) h.by_leaf.erase(it);
}

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  EMBER_CHECK(!inputs.empty(), "grad requires at least one input");
  return run_backward(outputs, grad_outputs, retain_graph.value_or(create_graph), create_graph, inputs, allow_unused,
                      /*accumulate_grad=*/false, "autograd::grad");
}

void backward(const variable_list& tensors, const variable_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph, const variable_list& inputs) {
  run_backward(tensors, grad_tensors, retain_graph.value_or(create_graph), create_graph, inputs,
               /*allow_unused=*/true, /*accumulate_grad=*/true, "backward");
}

}  // namespace ember::autograd

// ---- Tensor's autograd methods -----------------------------------------------------------
namespace ember {
using autograd::AutogradMeta;
using autograd::BelowAutogradGuard;
using autograd::get_meta;

namespace {
const Tensor& undefined_tensor() {
  static const Tensor t;
  return t;
}
const std::shared_ptr<autograd::Node>& null_node() {
  static const std::shared_ptr<autograd::Node> n;
  return n;
}
}  // namespace

bool Tensor::requires_grad() const {
  if (!impl_.defined()) return false;  // as LibTorch: an undefined tensor requires no grad
  auto* m = impl_->autograd_meta();
  return m && m->requires_grad();
}
Tensor& Tensor::requires_grad_(bool r) const {
  check_defined(self(), "requires_grad_");
  EMBER_CHECK(!r || is_floating_point() || is_complex(), "requires_grad_: only Tensors of floating point and "
              "complex dtype can require gradients (got ", dtype(), ")");
  AutogradMeta* existing = get_meta(self());
  if (!r && (!existing || !existing->requires_grad())) return self();
  AutogradMeta* m = autograd::materialize_meta(self());
  EMBER_CHECK(!m->grad_fn_ || r, "you can only change requires_grad flags of leaf variables. If you want to use a "
              "computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  if (m->grad_fn_) return self();
  m->requires_grad_ = r;
  return self();
}
bool Tensor::is_leaf() const {
  AutogradMeta* m = get_meta(*this);
  return !m || !m->grad_fn_;
}
namespace {
// Traced (Note [Tracing hooks]): an alias that stops gradients.
const tracing::TracedOpDef detach_traced{{"detach", tracing::Fusion::View, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  (void)a;
  return {detach(in.at(0))};
}}};
}  // namespace
Tensor Tensor::detach() const { return ember::detach(*this); }
Tensor detach(const Tensor& self) {
  if (tracing::active()) return tracing::traced_call(detach_traced, {self}, {}, [&] { return detach(self); });
  check_defined(self, "detach");
  autograd::BelowAutogradGuard below;  // an alias with no history, sharing the version counter
  Tensor r = make_view(self, self.sizes(), self.strides(), self.storage_offset());
  r.unsafeGetTensorImpl()->set_autograd_meta(nullptr);
  return r;
}
Tensor& Tensor::detach_() const {
  AutogradMeta* m = get_meta(self());
  if (m) {
    EMBER_CHECK(!m->is_view_, "detach_: Can't detach views in-place. Use detach() instead.");
    m->grad_fn_ = nullptr;
    m->requires_grad_ = false;
    m->output_nr_ = 0;
  }
  return self();
}
const Tensor& Tensor::grad() const {
  AutogradMeta* m = get_meta(*this);
  if (!m) return undefined_tensor();
  return m->retained_grad_ ? *m->retained_grad_ : m->grad_;
}
Tensor& Tensor::mutable_grad() const {
  check_defined(*this, "mutable_grad");
  AutogradMeta* m = autograd::materialize_meta(*this);
  return m->retained_grad_ ? *m->retained_grad_ : m->grad_;
}
const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const {
  AutogradMeta* m = get_meta(*this);
  return m ? m->grad_fn_ : null_node();
}
uint32_t Tensor::output_nr() const {
  AutogradMeta* m = get_meta(*this);
  return m ? m->output_nr_ : 0;
}
void Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  AutogradMeta* m = get_meta(*this);
  if (!m->grad_fn_ || m->retains_grad_) return;  // leaves keep their grad anyway
  m->retains_grad_ = true;
  // The hook writes into a cell the tensor shares, so it never refers to a dead tensor.
  m->retained_grad_ = std::make_shared<Tensor>();
  m->grad_fn_->set_retain_grad_hook(m->output_nr_, [cell = m->retained_grad_](const Tensor& g) {
    BelowAutogradGuard below;
    *cell = cell->defined() ? cell->add(g) : g.detach().clone();
    return Tensor();
  });
}
bool Tensor::retains_grad() const {
  AutogradMeta* m = get_meta(*this);
  return m && m->retains_grad_;
}
void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      std::optional<ArrayRef<Tensor>> inputs) const {
  check_defined(*this, "backward");
  if (inputs) EMBER_CHECK(!inputs->empty(), "backward: 'inputs' argument to backward() cannot be empty.");
  autograd::backward({*this}, gradient.defined() ? std::vector<Tensor>{gradient} : std::vector<Tensor>{}, retain_graph,
                     create_graph, inputs ? std::vector<Tensor>(inputs->begin(), inputs->end()) : std::vector<Tensor>{});
}
unsigned Tensor::_register_hook(std::function<Tensor(const Tensor&)> hook) const {
  EMBER_CHECK(requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta* m = get_meta(*this);
  if (m->grad_fn_) return m->grad_fn_->add_pre_hook(m->output_nr_, std::move(hook));
  unsigned id = autograd::g_next_hook_id.fetch_add(1);
  m->leaf_hooks_.emplace_back(id, std::move(hook));
  return id;
}
void Tensor::remove_hook(unsigned pos) const {
  AutogradMeta* m = get_meta(*this);
  if (!m) return;
  if (m->grad_fn_) m->grad_fn_->remove_pre_hook(pos);
  auto& v = m->leaf_hooks_;
  v.erase(std::remove_if(v.begin(), v.end(), [&](const auto& h) { return h.first == pos; }), v.end());
}
bool Tensor::is_view() const {
  AutogradMeta* m = get_meta(*this);
  return m && m->is_view_;
}
const Tensor& Tensor::_base() const {
  AutogradMeta* m = get_meta(*this);
  EMBER_CHECK(m && m->is_view_, "_base: the tensor is not a view");
  return m->base_;
}
Tensor Tensor::data() const {
  auto impl = make_intrusive<TensorImpl>(storage(), scalar_type(), device());
  impl->set_sizes_and_strides(sizes(), strides());
  impl->set_storage_offset(storage_offset());
  return Tensor(std::move(impl));
}
Tensor Tensor::_fw_grad(uint64_t level) const { return autograd::fw_grad(*this, level); }

}  // namespace ember
