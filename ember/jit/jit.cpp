// The tracer, the graph runner and traced modules (jit.h).
//
// Note [JIT programs]: tracing runs the function once, eagerly, with a recorder installed on
// the thread (Note [Tracing hooks]); every traced op the call reaches becomes a node. Inputs and
// parameters are bound to graph values before the call; a tensor a node reads that is neither,
// nor the output of an earlier node, is a constant if it existed before the trace (a captured
// tensor; a number wrapped as a tensor) and an error if an op the tracer does not know made it
// during the trace: the graph never freezes a value that depends on the inputs. A traced
// module keeps one graph per input signature (guards: dtypes, sizes, strides, devices,
// requires_grad of inputs and parameters, the training flag); a call matching none traces again,
// up to TraceOptions::max_specializations, then runs the source eagerly (both counted in
// stats()). Running a graph calls each node's op again through its runner, so autograd, autocast
// and devices behave as in eager code: a traced module trains.
#include "ember/jit/jit.h"

#include "ember/jit/graph_builder.h"
#include "ember/jit/traced_module_impl.h"

#include <mutex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"

namespace ember::jit {

// ---- stats ---------------------------------------------------------------------------------

namespace {
std::mutex g_stats_mutex;
Stats g_stats;
void count(int64_t Stats::*field) {
  std::lock_guard<std::mutex> lock(g_stats_mutex);
  ++(g_stats.*field);
}
}  // namespace

void detail::count_fused(bool kernel) { count(kernel ? &Stats::fused_runs : &Stats::fused_fallbacks); }
void detail::count_compile(double seconds, bool loaded) {
  std::lock_guard<std::mutex> lock(g_stats_mutex);
  if (loaded) {
    ++g_stats.kernels_loaded;
    return;
  }
  ++g_stats.kernels_compiled;
  g_stats.compile_seconds += seconds;
}

void detail::count_backward_graph() { count(&Stats::backward_graphs); }

Stats stats() {
  std::lock_guard<std::mutex> lock(g_stats_mutex);
  return g_stats;
}
void reset_stats() {
  std::lock_guard<std::mutex> lock(g_stats_mutex);
  g_stats = Stats{};
}

// ---- signatures ------------------------------------------------------------------------------

std::string Signature::mismatch(const Signature& traced) const {
  std::ostringstream os;
  if (inputs.size() != traced.inputs.size())
    return "it was traced with " + std::to_string(traced.inputs.size()) + " inputs, got " + std::to_string(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!(inputs[i] == traced.inputs[i]))
      return "input " + std::to_string(i) + " is " + inputs[i].str() + ", traced as " + traced.inputs[i].str();
  for (size_t i = 0; i < params.size() && i < traced.params.size(); ++i)
    if (!(params[i] == traced.params[i]))
      return "parameter " + std::to_string(i) + " is " + params[i].str() + ", traced as " + traced.params[i].str();
  if (training != traced.training)
    return std::string("it was traced in ") + (traced.training ? "training" : "eval") + " mode";
  return "";
}

// ---- the tracer ------------------------------------------------------------------------------

namespace {

Signature signature_of(const TensorList& inputs, const TensorList& params, bool training) {
  Signature s;
  for (const Tensor& t : inputs) s.inputs.push_back(TensorType::of(t));
  for (const Tensor& t : params) s.params.push_back(TensorType::of(t));
  s.training = training;
  return s;
}

}  // namespace

// ---- running graphs --------------------------------------------------------------------------

namespace {
// A size-generic node's attributes at this call's sizes (Note [Dynamic sizes]).
tracing::Attrs sized_attrs(const Node& n, const std::vector<int64_t>& sizes) {
  tracing::Attrs a = n.attrs;
  for (const SizeUse& u : n.size_uses) {
    const int64_t v = sizes.at(u.symbol) * u.factor;
    tracing::Attr& slot = a.at(u.attr).second;
    if (u.element < 0) slot = Scalar(v);
    else std::get<std::vector<int64_t>>(slot).at(size_t(u.element)) = v;
  }
  return a;
}
}  // namespace

TensorList run_graph(const Graph& g, const TensorList& inputs, const TensorList& params) {
  return detail::run_graph_sized(g, inputs, params, nullptr);
}

TensorList detail::run_graph_sized(const Graph& g, const TensorList& inputs, const TensorList& params,
                                   const std::vector<int64_t>* sizes) {
  EMBER_CHECK(inputs.size() == g.inputs().size(), "jit: the program takes ", g.inputs().size(), " inputs, got ",
              inputs.size());
  EMBER_CHECK(params.size() == g.params().size(), "jit: the program has ", g.params().size(), " parameters, got ",
              params.size());
  std::vector<Tensor> env(g.num_values());
  // Each value is dropped after its last reader, as eager code drops its temporaries.
  std::vector<size_t> last_use(g.num_values(), 0);
  const auto& nodes = g.nodes();
  for (size_t k = 0; k < nodes.size(); ++k)
    for (const Value* v : nodes[k]->inputs)
      if (v) last_use[v->id] = k + 1;
  std::vector<bool> keep(g.num_values(), false);
  for (const Value* o : g.outputs()) keep[o->id] = true;
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(inputs[i].defined(), "jit: input ", i, " is undefined");
    env[g.inputs()[i]->id] = inputs[i];
  }
  for (size_t i = 0; i < params.size(); ++i) env[g.params()[i]->id] = params[i];
  for (const auto& [v, t] : g.constants()) env[v->id] = t;
  std::vector<Tensor> in;
  for (size_t k = 0; k < nodes.size(); ++k) {
    const Node& n = *nodes[k];
    in.clear();
    for (const Value* v : n.inputs) in.push_back(v ? env[v->id] : Tensor());
    TensorList out;
    if (n.fusion) {
      out = detail::run_fused(n, in);
    } else if (sizes && !n.size_uses.empty()) {
      out = n.op->run(*n.op, in, sized_attrs(n, *sizes));
    } else {
      out = n.op->run(*n.op, in, n.attrs);
    }
    EMBER_CHECK(out.size() == n.outputs.size(), "jit: ", n.kind(), " gave ", out.size(), " outputs, the graph expects ",
                n.outputs.size());
    for (size_t i = 0; i < out.size(); ++i) env[n.outputs[i]->id] = std::move(out[i]);
    for (const Value* v : n.inputs)
      if (v && last_use[v->id] == k + 1 && !keep[v->id]) env[v->id] = Tensor();
  }
  TensorList r;
  for (const Value* o : g.outputs()) r.push_back(env[o->id]);
  return r;
}

// ---- traced modules --------------------------------------------------------------------------

std::shared_ptr<Graph> TracedModule::Impl::trace_now(const TensorList& inputs) {
  auto g = std::make_shared<Graph>();
  detail::GraphBuilder b(*g);
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(inputs[i].defined(), "jit::trace: example input ", i, " is undefined");
    b.bind(inputs[i], g->add_input("input" + std::to_string(i), TensorType::of(inputs[i])));
  }
  for (const auto& [name, value] : bound())
    if (value.defined()) b.bind(value, g->add_param(name, TensorType::of(value)));
  TensorList outs;
  {
    tracing::RecorderGuard recording(&b);
    outs = fn(inputs);
  }
  std::vector<Value*> out_values;
  for (size_t k = 0; k < outs.size(); ++k) out_values.push_back(b.output_value(outs[k], k));
  g->set_outputs(std::move(out_values));
  if (options.optimize) optimize(*g);
  count(&Stats::traces);
  return g;
}

namespace {
std::shared_ptr<TracedModule::Impl> new_impl(std::shared_ptr<nn::Module> module, TracedFn fn, TraceOptions options) {
  auto impl = std::make_shared<TracedModule::Impl>();
  impl->module = std::move(module);
  impl->fn = std::move(fn);
  impl->options = options;
  return impl;
}

TensorList defined_params(const TracedModule::Impl& impl) {
  TensorList r;
  for (const auto& [name, t] : impl.bound())
    if (t.defined()) r.push_back(t);
  return r;
}
}  // namespace

TracedModule trace_function(TracedFn fn, const TensorList& example_inputs, TraceOptions options) {
  EMBER_CHECK(fn, "jit::trace: no function given");
  auto impl = new_impl(nullptr, std::move(fn), options);
  auto g = impl->trace_now(example_inputs);
  impl->specializations.push_back(impl->specialize(signature_of(example_inputs, {}, false), std::move(g)));
  return TracedModule(std::move(impl));
}

TracedModule trace_module(std::shared_ptr<nn::Module> module, TracedFn forward, const TensorList& example_inputs,
                          TraceOptions options) {
  EMBER_CHECK(module, "jit::trace: no module given");
  auto impl = new_impl(std::move(module), std::move(forward), options);
  auto g = impl->trace_now(example_inputs);
  impl->specializations.push_back(
      impl->specialize(signature_of(example_inputs, defined_params(*impl), impl->training()), std::move(g)));
  return TracedModule(std::move(impl));
}

TensorList TracedModule::forward(const TensorList& inputs) {
  EMBER_CHECK(impl_, "jit::TracedModule: empty (default-constructed) module");
  Impl& m = *impl_;
  const TensorList params = defined_params(m);
  const Signature sig = signature_of(inputs, params, m.training());
  std::shared_ptr<Graph> g;
  std::vector<int64_t> sizes;
  bool sized = false;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    for (const auto& s : m.specializations)
      if (s.matches(sig, &sizes)) {
        g = s.exec;
        sized = !s.symbols.empty();
        break;
      }
    if (!g) {
      count(&Stats::guard_failures);
      EMBER_CHECK(m.fn, "jit: this loaded program cannot run on these inputs: ",
                  sig.mismatch(m.specializations.front().signature),
                  " (a loaded program runs only on what it was traced for)");
      if (int(m.specializations.size()) >= m.options.max_specializations) {
        count(&Stats::eager_fallbacks);
      } else {
        count(&Stats::retraces);
        std::shared_ptr<Graph> traced = m.trace_now(inputs);
        std::optional<Impl::Specialization> generic;
        for (size_t k = m.specializations.size(); k-- > 0 && !generic;)
          if (m.specializations[k].symbols.empty()) generic = m.generalize(m.specializations[k], sig, traced);
        if (generic) {
          count(&Stats::dynamic_graphs);
          m.specializations.push_back(std::move(*generic));
          const bool ok = m.specializations.back().matches(sig, &sizes);
          EMBER_INTERNAL_ASSERT(ok, "jit: a size-generic graph does not match the call it was traced for");
          sized = true;
        } else {
          m.specializations.push_back(m.specialize(sig, traced));
        }
        g = m.specializations.back().exec;
      }
    }
  }
  count(&Stats::runs);
  if (!g) return m.fn(inputs);
  return detail::run_graph_sized(*g, inputs, params, sized ? &sizes : nullptr);
}

Tensor TracedModule::forward(const Tensor& x) {
  TensorList r = forward(TensorList{x});
  EMBER_CHECK(r.size() == 1, "jit::TracedModule::forward(Tensor): the program returns ", r.size(),
              " tensors; call forward(std::vector<Tensor>)");
  return r[0];
}

const Graph& TracedModule::graph() const {
  EMBER_CHECK(impl_ && !impl_->specializations.empty(), "jit::TracedModule: empty (default-constructed) module");
  return *impl_->specializations.back().graph;
}

const Graph& TracedModule::fused_graph() const {
  EMBER_CHECK(impl_ && !impl_->specializations.empty(), "jit::TracedModule: empty (default-constructed) module");
  return *impl_->specializations.back().exec;
}

TracedModule::Impl::Specialization TracedModule::Impl::specialize(Signature sig, std::shared_ptr<Graph> g) const {
  Specialization s{std::move(sig), g, g, {}, {}};
  if (options.fuse) {
    s.exec = g->clone();
    fuse_pointwise(*s.exec);
  }
  return s;
}

size_t TracedModule::num_specializations() const { return impl_ ? impl_->specializations.size() : 0; }

std::vector<Tensor> TracedModule::parameters() const {
  std::vector<Tensor> r;
  for (const auto& p : named_parameters()) r.push_back(p.value());
  return r;
}

OrderedDict<std::string, Tensor> TracedModule::named_parameters() const {
  if (!impl_) return OrderedDict<std::string, Tensor>("Parameter");
  return impl_->module ? impl_->module->named_parameters() : impl_->own_params;
}

OrderedDict<std::string, Tensor> TracedModule::named_buffers() const {
  if (!impl_) return OrderedDict<std::string, Tensor>("Buffer");
  return impl_->module ? impl_->module->named_buffers() : impl_->own_buffers;
}

void TracedModule::train(bool on) {
  EMBER_CHECK(impl_, "jit::TracedModule: empty (default-constructed) module");
  if (impl_->module) impl_->module->train(on);
  else impl_->own_training = on;
}

bool TracedModule::is_training() const { return impl_ && impl_->training(); }

}  // namespace ember::jit
