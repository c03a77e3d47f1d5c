// ember::jit: trace a model or function into a graph of op calls, optimize it, run it, save it
// and run it in a program without the model's source (torch.jit.trace's names; LibTorch's C++
// side has no tracer). Note [JIT programs] in jit.cpp.
//
//   auto traced = ember::jit::trace(model, {example});   // runs model once, recording its ops
//   Tensor y = traced.forward(x);                          // runs the graph (trains: autograd as eager)
//   std::cout << traced.graph().str();
//   ember::jit::save(traced, "model.ember");
//   auto loaded = ember::jit::load("model.ember");         // no model source needed
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "ember/core/tracing_call.h"
#include "ember/jit/ir.h"
#include "ember/nn/module.h"

namespace ember::jit {

using TensorList = std::vector<Tensor>;
using TracedFn = std::function<TensorList(const TensorList&)>;

// What the JIT did (process-wide, all programs).
struct Stats {
  int64_t traces = 0;          // graphs recorded (first traces and re-traces)
  int64_t runs = 0;            // calls of traced programs
  int64_t guard_failures = 0;  // calls whose inputs differed from every specialization
  int64_t retraces = 0;        // ... answered by tracing again
  int64_t eager_fallbacks = 0; // ... answered by running the source eagerly (too many specializations)
  int64_t fused_runs = 0;      // fused groups run by their kernel
  int64_t fused_fallbacks = 0; // fused groups run op by op (not on the CPU, forward-mode AD, no kernel)
  int64_t kernels_compiled = 0;  // distinct fused kernels compiled (both caches missed)
  double compile_seconds = 0;    // spent compiling them (LLVM: IR, O3, machine code)
  int64_t kernels_loaded = 0;    // ... found in the disk cache instead (Note [Kernel cache])
  int64_t backward_graphs = 0;   // fused groups' backward programs derived (Note [Fused backward])
  int64_t dynamic_graphs = 0;    // re-traces that made a graph size-generic (Note [Dynamic sizes])
};
EMBER_API Stats stats();
EMBER_API void reset_stats();

// What a specialization assumed of its inputs and parameters: dtype, sizes, strides, device,
// requires_grad; and the module's training flag.
struct Signature {
  std::vector<TensorType> inputs, params;
  bool training = false;
  bool operator==(const Signature& o) const = default;
  std::string mismatch(const Signature& traced) const;  // "" when equal, else what differs
};

struct TraceOptions {
  bool optimize = true;        // dead code, common subexpressions, constant folding
  bool fuse = true;            // pointwise chains run as generated kernels (Note [Pointwise fusion])
  int max_specializations = 8; // more distinct input signatures run eagerly (counted)
};

class EMBER_API TracedModule {
 public:
  TracedModule() = default;

  // Runs the program; new input shapes, dtypes, devices or layouts re-trace (when traced from
  // source) or raise an error naming the difference (a loaded program). A re-trace for new
  // sizes of contiguous inputs makes the graph size-generic where the two traces differ only by
  // those sizes (Note [Dynamic sizes]): a training loop over varying batch sizes traces twice.
  TensorList forward(const TensorList& inputs);
  Tensor forward(const Tensor& x);  // one input, one output
  TensorList operator()(const TensorList& inputs) { return forward(inputs); }

  // The graph of the most recent specialization, and what runs: the same with its pointwise
  // chains fused (fusion_report() says what each group compiled to).
  const Graph& graph() const;
  const Graph& fused_graph() const;
  size_t num_specializations() const;

  // A traced module's parameters are the module's own (training the traced module trains it);
  // a loaded program's are its own.
  std::vector<Tensor> parameters() const;
  OrderedDict<std::string, Tensor> named_parameters() const;
  OrderedDict<std::string, Tensor> named_buffers() const;
  void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const;

  struct Impl;
  explicit TracedModule(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

// Traces fn on example inputs. Tensors fn uses that are not inputs become constants of the
// graph (those that require grad are kept by reference: gradients reach them).
EMBER_API TracedModule trace_function(TracedFn fn, const TensorList& example_inputs, TraceOptions options = {});
template <class F>
concept ModuleHolderLike = requires(F f) { f.ptr(); };
template <class F>
  requires(!ModuleHolderLike<F> && std::is_invocable_r_v<TensorList, F&, const TensorList&>)
TracedModule trace(F fn, const TensorList& example_inputs, TraceOptions options = {}) {
  return trace_function(TracedFn(std::move(fn)), example_inputs, options);
}
// Traces a module: its parameters and buffers are graph parameters, bound at every call.
EMBER_API TracedModule trace_module(std::shared_ptr<nn::Module> module, TracedFn forward, const TensorList& example_inputs,
                                    TraceOptions options = {});
template <ModuleHolderLike M>
TracedModule trace(M module, const TensorList& example_inputs, TraceOptions options = {}) {
  TracedFn call = [m = module.ptr()](const TensorList& in) -> TensorList {
    if constexpr (requires { m->forward(in[0]); }) {
      EMBER_CHECK(in.size() == 1, "jit::trace: the module's forward takes 1 tensor, got ", in.size());
      return tracing::as_outputs(m->forward(in[0]));
    } else if constexpr (requires { m->forward(in[0], in[1]); }) {
      EMBER_CHECK(in.size() == 2, "jit::trace: the module's forward takes 2 tensors, got ", in.size());
      return tracing::as_outputs(m->forward(in[0], in[1]));
    } else {
      EMBER_CHECK(in.size() == 3, "jit::trace: the module's forward takes 3 tensors, got ", in.size());
      return tracing::as_outputs(m->forward(in[0], in[1], in[2]));
    }
  };
  return trace_module(module.ptr(), std::move(call), example_inputs, options);
}

// Graph passes (passes.cpp). Each keeps nodes with effects and what aliases a mutated tensor.
EMBER_API void eliminate_dead_code(Graph& g);
EMBER_API void eliminate_common_subexpressions(Graph& g);
EMBER_API void fold_constants(Graph& g, int64_t max_numel = 65536);
// x * 1, x / 1, x + 0, x - 0 (numbers) are x when that changes no dtype or shape; not in graphs
// that write into tensors.
EMBER_API void simplify_arithmetic(Graph& g);
EMBER_API void optimize(Graph& g);  // the four, to a fixed point

// Runs a graph on inputs and parameters (in the graph's order).
EMBER_API TensorList run_graph(const Graph& g, const TensorList& inputs, const TensorList& params);

// The fuser (fuser.cpp, Note [Pointwise fusion]): groups pointwise chains into fused nodes.
EMBER_API void fuse_pointwise(Graph& g);
// Each fused group of g: its kernel's description, and why it was not compiled if it was not.
EMBER_API std::string fusion_report(const Graph& g);
namespace detail {
TensorList run_fused(const Node& n, const TensorList& inputs);
void count_fused(bool kernel);
void count_compile(double seconds, bool loaded);
void count_backward_graph();
// run_graph with the values of a size-generic graph's size symbols (null: none).
TensorList run_graph_sized(const Graph& g, const TensorList& inputs, const TensorList& params,
                           const std::vector<int64_t>* sizes);
}  // namespace detail

// Saved programs (program_io.cpp, Note [Saved programs]): the latest specialization's graph and
// the parameters' current values in one safetensors file, written atomically.
EMBER_API void save(const TracedModule& module, const std::string& path);
EMBER_API TracedModule load(const std::string& path);
EMBER_API std::string save_to_bytes(const TracedModule& module);
EMBER_API TracedModule load_from_bytes(const void* data, size_t size, const std::string& what = "program");

}  // namespace ember::jit
