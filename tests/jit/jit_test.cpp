// ember::jit (ember/jit/jit.h): tracing functions and modules into graphs, the graph passes,
// guards and re-tracing, training through a traced module, and saved programs. The reference
// is always the same code run eagerly (the graph runs the same ops, so CPU results are equal
// bit for bit).
#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <limits>
#include <random>

#include "ember/jit/cuda_codegen.h"
#include "ember/jit/fusion_group.h"
#include "ember/jit/jit.h"
#include "ember/ops/tensor_iterator.h"
#include "temp_files.h"
#include "test_util.h"

namespace ember::test {
namespace jit_test {  // named: the tests build as one unity file

using jit::TensorList;

// The disk kernel cache of these tests (Note [Kernel cache]) is in the build tree (a variable set
// by the caller wins); set before any kernel is compiled.
#ifdef EMBER_JIT_TEST_CACHE_DIR
const bool kCacheDirSet = ::setenv("EMBER_JIT_CACHE_DIR", EMBER_JIT_TEST_CACHE_DIR, /*overwrite=*/0) == 0;
#endif

size_t count_kind(const jit::Graph& g, std::string_view kind) {
  size_t n = 0;
  for (const auto& node : g.nodes()) n += node->kind() == kind ? 1 : 0;
  return n;
}

// tanh-GELU written out: eight pointwise ops and two scalar constants per use.
Tensor gelu_chain(const Tensor& x) {
  return 0.5 * x * (1 + torch::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

TEST(JitTrace, PointwiseChainMatchesEagerAndPrints) {
  torch::manual_seed(0);
  jit::TraceOptions unfused;  // the graph run op by op: the same ops as eager, bit for bit
  unfused.fuse = false;
  auto traced =
      jit::trace([](const TensorList& in) { return TensorList{gelu_chain(in[0])}; }, {torch::randn({4, 5})}, unfused);
  const jit::Graph& g = traced.graph();
  EXPECT_EQ(g.inputs().size(), 1u);
  EXPECT_EQ(g.outputs().size(), 1u);
  EXPECT_EQ(count_kind(g, "tanh"), 1u);
  // x * x * x, 0.044715 * (...), x + ..., 0.79 * ..., tanh, 1 + ..., 0.5 * x, ... * (...)
  EXPECT_EQ(g.nodes().size(), 9u) << g.str();
  const std::string text = g.str();
  EXPECT_NE(text.find("graph(%input0 : Float(4, 5)"), std::string::npos) << text;
  EXPECT_NE(text.find("= tanh("), std::string::npos) << text;
  EXPECT_NE(text.find("[wrapped]"), std::string::npos) << text;  // the Python-style numbers
  EXPECT_NE(g.to_dot().find("digraph"), std::string::npos);
  const Tensor x = torch::randn({4, 5});
  EXPECT_TENSOR_EQ(traced.forward(x), gelu_chain(x));
  // Integer inputs trace their own graph (new dtype): the wrapped numbers promote as in eager.
  const Tensor xi = torch::arange(20).reshape({4, 5});
  EXPECT_TENSOR_EQ(traced.forward(xi), gelu_chain(xi));
  EXPECT_EQ(traced.num_specializations(), 2u);
}

TEST(JitTrace, GuardsRetraceCountAndFallBack) {
  jit::reset_stats();
  jit::TraceOptions o;
  o.max_specializations = 2;
  auto traced = jit::trace([](const TensorList& in) { return TensorList{in[0].sum(1) * 2}; }, {torch::ones({2, 3})}, o);
  EXPECT_EQ(jit::stats().traces, 1);
  EXPECT_TENSOR_EQ(traced.forward(torch::ones({2, 3})), torch::full({2}, 6.0));
  EXPECT_EQ(jit::stats().retraces, 0);
  // A new size traces again (and keeps both), a transposed input is a new layout.
  EXPECT_TENSOR_EQ(traced.forward(torch::ones({5, 3})), torch::full({5}, 6.0));
  EXPECT_EQ(jit::stats().retraces, 1);
  EXPECT_EQ(traced.num_specializations(), 2u);
  const Tensor t = torch::arange(6.0).reshape({3, 2}).t();
  EXPECT_TENSOR_EQ(traced.forward(t), t.sum(1) * 2);  // beyond 2 specializations: eager
  const jit::Stats s = jit::stats();
  EXPECT_EQ(s.guard_failures, 2);
  EXPECT_EQ(s.eager_fallbacks, 1);
  EXPECT_EQ(s.runs, 3);
}

TEST(JitTrace, AnOpTheTracerDoesNotKnowIsAnErrorNotAFrozenValue) {
  // cumsum records no node: its result depends on the input and must not become a constant.
  EXPECT_ERROR_WITH(jit::trace([](const TensorList& in) { return TensorList{in[0].cumsum(0) + 1}; }, {torch::ones({3})}),
                    "an op the tracer does not record made during the trace");
  // A tensor from outside is a constant: the graph keeps using it.
  const Tensor c = torch::tensor({1.0, 2.0, 3.0});
  auto traced = jit::trace([&](const TensorList& in) { return TensorList{in[0] * c}; }, {torch::ones({3})});
  EXPECT_EQ(traced.graph().constants().size(), 1u);
  EXPECT_TENSOR_EQ(traced.forward(torch::full({3}, 2.0)), torch::tensor({2.0, 4.0, 6.0}));
}

TEST(JitPasses, CommonSubexpressionsDeadCodeAndConstantFolding) {
  const Tensor c = torch::tensor({1.0f, 2.0f});
  auto fn = [&](const TensorList& in) {
    Tensor unused = in[0].sin();   // dead
    Tensor a = in[0].exp(), b = in[0].exp();  // one of them goes
    Tensor k = c * 3 + 1;          // folded to one constant
    return TensorList{a + b + k};
  };
  jit::TraceOptions raw;
  raw.optimize = false;
  auto plain = jit::trace(fn, {torch::ones({2})}, raw);
  EXPECT_EQ(count_kind(plain.graph(), "exp"), 2u);
  EXPECT_EQ(count_kind(plain.graph(), "sin"), 1u);
  auto opt = jit::trace(fn, {torch::ones({2})});
  const jit::Graph& g = opt.graph();
  EXPECT_EQ(count_kind(g, "exp"), 1u) << g.str();
  EXPECT_EQ(count_kind(g, "sin"), 0u) << g.str();
  EXPECT_EQ(count_kind(g, "mul"), 0u) << g.str();
  EXPECT_EQ(g.nodes().size(), 3u) << g.str();  // exp, add, add
  const Tensor x = torch::tensor({0.5f, -1.0f});
  EXPECT_TENSOR_EQ(opt.forward(x), fn({x})[0]);
  EXPECT_TENSOR_EQ(plain.forward(x), fn({x})[0]);
}

TEST(JitPasses, InPlaceOpsAreKeptAndNotMerged) {
  auto fn = [](const TensorList& in) {
    Tensor y = in[0] * 2;
    Tensor z = in[0] * 2;  // equal to y until y is written: not merged
    y.add_(1);
    in[0].mul_(3);         // writes the caller's tensor, as eager does
    return TensorList{y, z};
  };
  Tensor example = torch::ones({3});
  auto traced = jit::trace(fn, {example});
  EXPECT_TENSOR_EQ(example, torch::full({3}, 3.0));  // the trace ran it once
  EXPECT_EQ(count_kind(traced.graph(), "mul"), 3u) << traced.graph().str();
  Tensor x = torch::tensor({1.0f, 2.0f, 3.0f});
  TensorList r = traced.forward(TensorList{x});
  EXPECT_TENSOR_EQ(r[0], torch::tensor({3.0f, 5.0f, 7.0f}));
  EXPECT_TENSOR_EQ(r[1], torch::tensor({2.0f, 4.0f, 6.0f}));
  EXPECT_TENSOR_EQ(x, torch::tensor({3.0f, 6.0f, 9.0f}));
}

struct MlpImpl : torch::nn::Module {
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::nn::LayerNorm ln{nullptr};
  MlpImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(6, 16));
    ln = register_module("ln", torch::nn::LayerNorm(torch::nn::LayerNormOptions({16})));
    fc2 = register_module("fc2", torch::nn::Linear(16, 3));
  }
  Tensor forward(const Tensor& x) {
    Tensor h = torch::gelu(ln(fc1(x)));
    return torch::log_softmax(fc2(h.view({x.size(0), 4, 4}).transpose(1, 2).reshape({x.size(0), 16})), 1);
  }
};
TORCH_MODULE(Mlp);

TEST(JitTrace, TracedModuleTrainsLikeTheModule) {
  torch::manual_seed(1);
  Mlp model, reference;
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < model->parameters().size(); ++i) reference->parameters()[i].copy_(model->parameters()[i]);
  }
  {
    jit::TraceOptions unfused;  // op by op: the same ops as eager, bit for bit
    unfused.fuse = false;
    auto traced = jit::trace(model, {torch::randn({8, 6})}, unfused);
    EXPECT_EQ(traced.graph().params().size(), 6u);  // two linears' weight and bias, the norm's
    EXPECT_EQ(count_kind(traced.graph(), "linear"), 2u) << traced.graph().str();
    torch::optim::SGD a(traced.parameters(), 0.1), b(reference->parameters(), 0.1);
    for (int step = 0; step < 5; ++step) {
      const Tensor x = torch::randn({8, 6}), y = torch::randint(3, {8});
      a.zero_grad(), b.zero_grad();
      Tensor la = torch::nll_loss(traced.forward(x), y), lb = torch::nll_loss(reference->forward(x), y);
      EXPECT_TENSOR_EQ(la, lb);
      la.backward(), lb.backward();
      for (size_t i = 0; i < model->parameters().size(); ++i)
        EXPECT_TENSOR_EQ(model->parameters()[i].grad(), reference->parameters()[i].grad());
      a.step(), b.step();
    }
  }
  // Fused (its layer norm one kernel with the GELU after it, and derived backward): as eager
  // within float rounding.
  auto fused = jit::trace(model, {torch::randn({8, 6})});
  EXPECT_EQ(count_kind(fused.fused_graph(), "layer_norm"), 0u) << fused.fused_graph().str();
  for (int step = 0; step < 3; ++step) {
    const Tensor x = torch::randn({8, 6}), y = torch::randint(3, {8});
    for (auto& p : model->parameters()) p.mutable_grad() = Tensor();
    for (auto& p : reference->parameters()) p.mutable_grad() = Tensor();
    Tensor la = torch::nll_loss(fused.forward(x), y), lb = torch::nll_loss(reference->forward(x), y);
    EXPECT_TENSOR_CLOSE(la, lb, 1e-5, 1e-6);
    la.backward(), lb.backward();
    for (size_t i = 0; i < model->parameters().size(); ++i)
      EXPECT_TENSOR_CLOSE(model->parameters()[i].grad(), reference->parameters()[i].grad(), 1e-4, 1e-6) << "parameter " << i;
  }
  EXPECT_EQ(jit::stats().fused_fallbacks, 0);
}

TEST(JitTrace, DropoutDrawsAtEveryRun) {
  auto fn = [](const TensorList& in) { return TensorList{torch::dropout(in[0], 0.5, true) * 2}; };
  jit::TraceOptions unfused;  // run op by op: eager's dropout, eager's draws
  unfused.fuse = false;
  auto traced = jit::trace(fn, {torch::ones({1000})}, unfused);
  EXPECT_EQ(count_kind(traced.graph(), "dropout"), 1u);
  torch::manual_seed(7);
  const Tensor a = traced.forward(torch::ones({1000}));
  const Tensor b = traced.forward(torch::ones({1000}));
  EXPECT_FALSE(torch::equal(a, b));  // a new mask each run
  torch::manual_seed(7);
  EXPECT_TENSOR_EQ(a, fn({torch::ones({1000})})[0]);  // the same draws as eager from the same seed
  // Fused (Note [Fused dropout]): its own stream, new at each run, repeatable from a seed.
  auto fused = jit::trace(fn, {torch::ones({1000})});
  torch::manual_seed(7);
  const Tensor c = fused.forward(torch::ones({1000}));
  EXPECT_FALSE(torch::equal(c, fused.forward(torch::ones({1000}))));
  torch::manual_seed(7);
  EXPECT_TENSOR_EQ(fused.forward(torch::ones({1000})), c);
}

TEST(JitSave, LoadedProgramRunsWithoutTheModule) {
  torch::manual_seed(2);
  Mlp model;
  model->eval();
  auto traced = jit::trace(model, {torch::randn({4, 6})});
  TempDir dir;
  const std::string path = dir / "mlp.ember";
  jit::save(traced, path);
  jit::TracedModule loaded = jit::load(path);
  const Tensor x = torch::randn({4, 6});
  EXPECT_TENSOR_EQ(loaded.forward(x), traced.forward(x));  // the same program
  EXPECT_TENSOR_CLOSE(loaded.forward(x), model->forward(x), 1e-5, 1e-6);  // its layer norm fused
  EXPECT_EQ(loaded.graph().str(), traced.graph().str());
  EXPECT_EQ(loaded.named_parameters().size(), 6u);
  EXPECT_TENSOR_EQ(loaded.named_parameters()["fc1.weight"], model->fc1->weight);
  EXPECT_FALSE(loaded.is_training());
  // A loaded program runs only what it was traced for, and says what differs.
  EXPECT_ERROR_WITH(loaded.forward(torch::randn({5, 6})), "input 0 is Float(5, 6), traced as Float(4, 6)");
  // Bad files: truncated, not a program, a newer version, an unknown op.
  const std::string bytes = read_bytes(path);
  EXPECT_ERROR_WITH(jit::load_from_bytes(bytes.data(), bytes.size() / 2), "");
  const std::string plain = serialize::to_safetensors({{"w", torch::ones({2})}});
  EXPECT_ERROR_WITH(jit::load_from_bytes(plain.data(), plain.size()), "not an ember program");
  auto edit = [&](const std::string& from, const std::string& to) {
    serialize::SafetensorsContents c = serialize::from_safetensors(bytes.data(), bytes.size());
    std::string& meta = c.metadata.at("ember.jit.program");
    const size_t at = meta.rfind(from);  // the last: the graph's outputs follow its nodes
    EXPECT_NE(at, std::string::npos) << from;
    meta.replace(at, from.size(), to);
    return serialize::to_safetensors(c.tensors, c.metadata);
  };
  const std::string newer = edit("\"version\":1", "\"version\":2");
  EXPECT_ERROR_WITH(jit::load_from_bytes(newer.data(), newer.size()), "version 2 is newer than this ember reads (1)");
  const std::string unknown = edit("\"op\":\"gelu\"", "\"op\":\"no_such_op\"");
  EXPECT_ERROR_WITH(jit::load_from_bytes(unknown.data(), unknown.size()), "op 'no_such_op', which this ember does not know");
  const std::string dangling = edit("\"outputs\":[", "\"outputs\":[99999,");
  EXPECT_ERROR_WITH(jit::load_from_bytes(dangling.data(), dangling.size()), "used before it is defined");
}

// The digits CNN of examples/ddp_digits.cpp: convolutions, pooling, flatten, linears.
TEST(JitTrace, ConvolutionalNetTracesTrainsAndSaves) {
  torch::manual_seed(3);
  using namespace torch::nn;
  Sequential net(Conv2d(Conv2dOptions(1, 4, 3).padding(1)), ReLU(), MaxPool2d(2), Flatten(), Linear(4 * 4 * 4, 10));
  auto traced = jit::trace(net, {torch::randn({2, 1, 8, 8})});
  const jit::Graph& g = traced.graph();
  EXPECT_EQ(count_kind(g, "conv"), 1u) << g.str();
  EXPECT_EQ(count_kind(g, "max_pool"), 1u) << g.str();
  EXPECT_EQ(count_kind(g, "relu"), 1u) << g.str();
  const Tensor x = torch::randn({2, 1, 8, 8}), y = torch::tensor({3, 7});
  Tensor loss = torch::nn::functional::cross_entropy(traced.forward(x), y);
  loss.backward();
  std::vector<Tensor> traced_grads;
  for (const Tensor& p : net->parameters()) traced_grads.push_back(p.grad().clone()), p.mutable_grad() = Tensor();
  Tensor eager_loss = torch::nn::functional::cross_entropy(net->forward(x), y);
  eager_loss.backward();
  EXPECT_TENSOR_EQ(loss, eager_loss);
  for (size_t i = 0; i < traced_grads.size(); ++i) EXPECT_TENSOR_EQ(traced_grads[i], net->parameters()[i].grad());
  TempDir dir;
  jit::save(traced, dir / "cnn.ember");
  EXPECT_TENSOR_EQ(jit::load(dir / "cnn.ember").forward(x), net->forward(x));
}

TEST(JitTrace, DetachStopsGradientsInTheGraphToo) {
  const Tensor w = torch::tensor({2.0}, torch::requires_grad());
  auto traced = jit::trace([&](const TensorList& in) { return TensorList{(in[0] * w).detach() * w}; }, {torch::ones({1})});
  EXPECT_EQ(count_kind(traced.graph(), "detach"), 1u) << traced.graph().str();
  traced.forward(torch::full({1}, 3.0)).sum().backward();
  EXPECT_TENSOR_EQ(w.grad(), torch::tensor({6.0}));  // d/dw of const(6) * w, not 2 * 3 * w
}

TEST(JitSave, NonFiniteAttributesRoundTrip) {
  const double inf = std::numeric_limits<double>::infinity();
  auto traced = jit::trace([&](const TensorList& in) { return TensorList{in[0].clamp(-inf, 1.5).nan_to_num(0.0, inf, -inf)}; },
                           {torch::ones({3})});
  const std::string bytes = jit::save_to_bytes(traced);
  jit::TracedModule loaded = jit::load_from_bytes(bytes.data(), bytes.size());
  const Tensor x = torch::tensor({-1e30f, 0.25f, 7.0f});
  EXPECT_TENSOR_EQ(loaded.forward(x), x.clamp(-inf, 1.5).nan_to_num(0.0, inf, -inf));
  EXPECT_EQ(loaded.graph().str(), traced.graph().str());
}

// ---- the fuser (Note [Pointwise fusion]) --------------------------------------------------------

size_t fused_nodes(const jit::Graph& g) { return count_kind(g, "fused"); }

TEST(JitFuser, PointwiseChainIsOneKernelAndMatchesEager) {
  jit::reset_stats();
  auto fn = [](const TensorList& in) { return TensorList{gelu_chain(in[0])}; };
  auto traced = jit::trace(fn, {torch::randn({64, 33})});
  ASSERT_EQ(fused_nodes(traced.fused_graph()), 1u) << traced.fused_graph().str();
  EXPECT_EQ(traced.fused_graph().nodes().size(), 1u) << traced.fused_graph().str();
  const std::string report = jit::fusion_report(traced.fused_graph());
  EXPECT_NE(report.find("tanh"), std::string::npos) << report;
  EXPECT_EQ(report.find("not compiled"), std::string::npos) << report;
  const Tensor x = torch::randn({64, 33}) * 3;
  EXPECT_TENSOR_CLOSE(traced.forward(x), gelu_chain(x), 1e-5, 1e-6);
  const jit::Stats s = jit::stats();
  EXPECT_EQ(s.fused_runs, 1);
  EXPECT_EQ(s.fused_fallbacks, 0);
  // The same group traced again (another shape) reuses the compiled kernel.
  const int64_t compiled = s.kernels_compiled;
  EXPECT_TENSOR_CLOSE(traced.forward(torch::ones({7})), gelu_chain(torch::ones({7})), 1e-5, 1e-6);
  EXPECT_EQ(jit::stats().kernels_compiled, compiled);
}

TEST(JitFuser, BroadcastAndNonContiguousInputs) {
  auto fn = [](const TensorList& in) { return TensorList{torch::exp(in[0] * in[1] + 1) - in[1].sigmoid()}; };
  const Tensor a = torch::randn({6, 1}), b = torch::randn({5, 6}).t();  // [6, 5], strides (1, 6)
  auto traced = jit::trace(fn, {a, b});
  EXPECT_EQ(fused_nodes(traced.fused_graph()), 1u) << traced.fused_graph().str();
  const Tensor a2 = torch::randn({6, 1}), b2 = torch::randn({5, 6}).t();
  EXPECT_TENSOR_CLOSE(traced.forward({a2, b2})[0], fn({a2, b2})[0], 1e-5, 1e-6);
  EXPECT_EQ(jit::stats().fused_fallbacks, 0);
}

// A fused group whose input needs a gradient runs its kernel and one FusedBackward node; the
// backward is a fused program derived from the ops' formulas (Note [Fused backward]).
TEST(JitFuser, GradientsRunAFusedBackwardDerivedFromTheFormulas) {
  jit::reset_stats();
  const Tensor w = torch::randn({8}, torch::dtype(torch::kDouble).requires_grad(true));
  auto fn = [&](const TensorList& in) { return TensorList{torch::tanh(in[0] * w + 1).square()}; };
  auto traced = jit::trace(fn, {torch::randn({8}, torch::kDouble)});
  EXPECT_EQ(fused_nodes(traced.fused_graph()), 1u) << traced.fused_graph().str();
  const Tensor x = torch::randn({8}, torch::kDouble);
  const Tensor y = traced.forward(x);
  ASSERT_TRUE(y.requires_grad());
  EXPECT_EQ(y.grad_fn()->name(), "FusedBackward");
  y.sum().backward();
  const Tensor traced_grad = w.grad().clone();
  w.mutable_grad() = Tensor();
  fn({x})[0].sum().backward();
  EXPECT_TENSOR_CLOSE(traced_grad, w.grad(), 1e-12, 1e-12);
  jit::Stats s = jit::stats();
  EXPECT_EQ(s.fused_fallbacks, 0);
  EXPECT_EQ(s.backward_graphs, 1);
  EXPECT_EQ(s.fused_runs, 2);  // the forward kernel and the backward's
  // A second backward reuses the derived program.
  traced.forward(x).sum().backward();
  EXPECT_EQ(jit::stats().backward_graphs, 1);
  {
    torch::NoGradGuard no_grad;  // no gradient needed: no node
    EXPECT_FALSE(traced.forward(x).requires_grad());
  }
}

// What eager autograd promises of a saved tensor holds for a fused group's saved inputs.
TEST(JitFuser, FusedBackwardChecksVersionsAndFreesItsInputs) {
  const Tensor x = torch::randn({16}, torch::requires_grad());
  auto traced = jit::trace([](const TensorList& in) { return TensorList{(in[0] * 2).exp() * in[0]}; }, {torch::randn({16})});
  Tensor a = x * 1;
  Tensor y = traced.forward(a);
  a.add_(1);  // the group saved a
  EXPECT_ERROR_WITH(y.sum().backward(), "modified by an inplace operation");
  Tensor b = x * 1;
  Tensor z = traced.forward(b).sum();
  z.backward();
  EXPECT_ERROR_WITH(z.backward(), "second time");
}

// Second derivatives: with create_graph the backward program runs under autograd, its own fused
// groups record FusedBackward nodes, and the result is eager's.
TEST(JitFuser, DoubleBackwardThroughFusedGroups) {
  jit::reset_stats();
  auto fn = [](const TensorList& in) { return TensorList{torch::sigmoid(in[0] * in[1]).mul(in[0]).sin()}; };
  auto traced = jit::trace(fn, {torch::randn({5, 4}, torch::kDouble), torch::randn({4}, torch::kDouble)});
  auto second = [](const std::function<TensorList(const TensorList&)>& f, const Tensor& x0, const Tensor& w0) {
    Tensor x = x0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true);
    Tensor y = f({x, w})[0];
    auto g = torch::autograd::grad({y.sum()}, {x, w}, {}, /*retain_graph=*/true, /*create_graph=*/true);
    (g[0].square().sum() + g[1].sum()).backward();
    return TensorList{g[0].detach(), g[1].detach(), x.grad(), w.grad()};
  };
  const Tensor x = torch::randn({5, 4}, torch::kDouble), w = torch::randn({4}, torch::kDouble);
  const TensorList got = second([&](const TensorList& in) { return traced.forward(in); }, x, w);
  const TensorList want = second(fn, x, w);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TENSOR_CLOSE(got[i], want[i], 1e-10, 1e-10) << "result " << i;
  EXPECT_GE(jit::stats().backward_graphs, 2);  // the group's, and its backward groups'
  EXPECT_EQ(jit::stats().fused_fallbacks, 0);
}

// Forward-mode AD runs fused groups op by op (each op's jvp), counted as fallbacks.
TEST(JitFuser, ForwardModeADRunsTheOpsAndMatchesEager) {
  jit::reset_stats();
  auto fn = [](const TensorList& in) { return TensorList{torch::tanh(in[0] * 3 + 1).mul(in[0])}; };
  auto traced = jit::trace(fn, {torch::randn({6}, torch::kDouble)});
  const Tensor x = torch::randn({6}, torch::kDouble), t = torch::randn({6}, torch::kDouble);
  Tensor got, want;
  {
    torch::autograd::forward_ad::dual_level level;
    got = torch::autograd::forward_ad::unpack_dual(traced.forward(torch::autograd::forward_ad::make_dual(x, t))).tangent;
    want = torch::autograd::forward_ad::unpack_dual(fn({torch::autograd::forward_ad::make_dual(x, t)})[0]).tangent;
  }
  ASSERT_TRUE(got.defined());
  EXPECT_TENSOR_CLOSE(got, want, 1e-12, 1e-12);
  EXPECT_EQ(jit::stats().fused_fallbacks, 1);
}

// where, comparisons, zeros_like/full_like and 0-dim constants fuse; bool values cross a group.
TEST(JitFuser, WhereComparisonsAndFillsFuse) {
  jit::reset_stats();
  auto fn = [](const TensorList& in) {
    const Tensor& x = in[0];
    Tensor mask = x.gt(0.5);
    Tensor y = torch::where(mask, x * 2, torch::zeros_like(x)) + torch::full_like(x, 0.25) * x.sign();
    return TensorList{y, mask, x.ne(y)};
  };
  auto traced = jit::trace(fn, {torch::randn({33, 7})});
  EXPECT_EQ(fused_nodes(traced.fused_graph()), 1u) << traced.fused_graph().str();
  EXPECT_EQ(traced.fused_graph().nodes().size(), 1u) << traced.fused_graph().str();
  Tensor x = torch::randn({33, 7});
  x[0][0] = 0.5;  // ties and a NaN
  x[1][1] = std::numeric_limits<float>::quiet_NaN();
  const TensorList got = traced.forward(TensorList{x}), want = fn({x});
  EXPECT_TRUE(torch::allclose(got[0], want[0], 1e-6, 1e-6, /*equal_nan=*/true));
  EXPECT_EQ(got[1].scalar_type(), torch::kBool);
  EXPECT_TENSOR_EQ(got[1], want[1]);
  EXPECT_TENSOR_EQ(got[2], want[2]);
  EXPECT_EQ(jit::stats().fused_fallbacks, 0);
  // relu's formula, where(y > 0, g, zeros({})), fuses into the backward with its forward.
  const Tensor w = torch::randn({33, 7}, torch::requires_grad());
  auto relu_fn = [&](const TensorList& in) { return TensorList{torch::relu(in[0] * w).exp()}; };
  auto relu_traced = jit::trace(relu_fn, {torch::randn({33, 7})});
  relu_traced.forward(x.nan_to_num()).sum().backward();
  const Tensor got_grad = w.grad().clone();
  w.mutable_grad() = Tensor();
  relu_fn({x.nan_to_num()})[0].sum().backward();
  EXPECT_TENSOR_CLOSE(got_grad, w.grad(), 1e-5, 1e-6);
  EXPECT_EQ(jit::stats().fused_fallbacks, 0);
}

// Horizontal fusion: groups of one shape that read a common tensor become one kernel, unless the
// later one needs a value computed after the earlier one starts (then two, same values).
TEST(JitFuser, SiblingGroupsReadingOneTensorMerge) {
  jit::reset_stats();
  auto siblings = [](const TensorList& in) {
    const Tensor& x = in[0];
    const auto [sd, mean] = torch::std_mean(x, {-1}, /*unbiased=*/true, /*keepdim=*/true);
    return TensorList{(x - mean) / (sd + 1e-5), (x * 2).amax(-1), (x + 1).sigmoid() * in[1]};
  };
  auto ts = jit::trace(siblings, {torch::randn({8, 200}), torch::randn({200})});
  EXPECT_EQ(ts.fused_graph().nodes().size(), 1u) << ts.fused_graph().str();
  const Tensor x = torch::randn({8, 200}), v = torch::randn({200});
  const TensorList got = ts.forward({x, v}), want = siblings({x, v});
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TENSOR_CLOSE(got[i], want[i], 1e-5, 1e-5) << "output " << i;
  // The second chain reads a matmul of the first's result: it cannot run where the first starts.
  const Tensor w = torch::randn({200, 200}) * 0.02;
  auto chained = [&](const TensorList& in) {
    const Tensor a = in[0].exp() * 2;
    const Tensor m = torch::matmul(a, w);
    return TensorList{a, (in[0] + m).tanh() * 3};
  };
  auto tc = jit::trace(chained, {torch::randn({8, 200})});
  EXPECT_EQ(fused_nodes(tc.fused_graph()), 2u) << tc.fused_graph().str();
  const TensorList gc = tc.forward(TensorList{x}), wc = chained({x});
  // (the kernel's exp and eager's may differ in the last bit, which the matmul spreads)
  for (size_t i = 0; i < gc.size(); ++i) EXPECT_TENSOR_CLOSE(gc[i], wc[i], 1e-4, 1e-4) << "output " << i;
  EXPECT_EQ(jit::stats().fused_fallbacks, 0);
}

// Note [Complex kernels]: complex64 and complex128 values fuse (with real ones, promoted as eager
// does): arithmetic, division, exp, conj, sgn, abs, angle, where and eq/ne, over broadcast and
// transposed inputs; complex and real outputs; gradients of complex and real inputs through the
// derived backward (itself fused) against eager autograd.
TEST(JitFuser, ComplexValuesFuseAndDifferentiate) {
  auto fn = [](const TensorList& in) {
    const Tensor &z = in[0], &w = in[1], &x = in[2];
    const Tensor shifted = w - 1.5;  // of w's shape: outside the group
    const Tensor zw = z * w;
    const Tensor a = (zw + x) / shifted;
    const Tensor b = (a * 0.5 + z.square() * 0.25).exp() * z.conj() - x * w;
    const Tensor m = zw.abs();  // real
    const Tensor c = torch::where(m.gt(1), z.reciprocal(), z.sgn()) + z.angle() * x;
    const Tensor d = torch::where(m.gt(1), zw, x);  // real (imaginary part 0) where m <= 1
    return TensorList{b, m + x, c, (z - x).eq(w - x), d.ne(d.conj())};
  };
  for (const ScalarType dtype : {torch::kComplexFloat, torch::kComplexDouble}) {
    SCOPED_TRACE(toString(dtype));
    const ScalarType real_type = dtype == torch::kComplexFloat ? torch::kFloat : torch::kDouble;
    const double tol = dtype == torch::kComplexFloat ? 1e-5 : 1e-12;
    auto inputs = [&] {
      Tensor z = torch::randn({17, 32}, dtype).t();  // [32, 17], transposed
      Tensor w = torch::randn({17}, dtype);          // broadcast along the rows
      w[3] = z[0][3];                                // a certain tie for eq
      return TensorList{z, w, torch::randn({32, 17}, real_type)};
    };
    jit::reset_stats();
    auto traced = jit::trace(fn, inputs());
    // One kernel (the eq, which reads only inputs, joins it: horizontal fusion) and w - 1.5, of
    // w's shape.
    EXPECT_EQ(fused_nodes(traced.fused_graph()), 1u) << traced.fused_graph().str();
    EXPECT_EQ(traced.fused_graph().nodes().size(), 2u) << traced.fused_graph().str();
    const std::string report = jit::fusion_report(traced.fused_graph());
    EXPECT_NE(report.find(dtype == torch::kComplexFloat ? "in c64" : "in c128"), std::string::npos) << report;
    EXPECT_EQ(report.find("not compiled"), std::string::npos) << report;
    const TensorList in = inputs();
    const TensorList got = traced.forward(in), want = fn(in);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(got[k].scalar_type(), want[k].scalar_type()) << "output " << k;
      EXPECT_TENSOR_CLOSE(got[k], want[k], tol, tol) << "output " << k;
    }
    EXPECT_TRUE(want[3].any().item<bool>());   // the tie
    EXPECT_FALSE(want[4].all().item<bool>());  // d's real elements
    EXPECT_TRUE(want[4].any().item<bool>());
    EXPECT_EQ(jit::stats().fused_runs, 1);
    EXPECT_EQ(jit::stats().fused_fallbacks, 0);
    // Gradients of the three inputs (a real loss of complex and real outputs).
    const TensorList base = inputs();
    auto run = [&](const std::function<TensorList(const TensorList&)>& f) {
      TensorList p;
      for (const Tensor& t : base) p.push_back(t.detach().clone().requires_grad_(true));
      const TensorList out = f(p);
      (torch::real(out[0] * out[0].conj()).sum() + out[1].sum() + torch::imag(out[2]).sum()).backward();
      return TensorList{p[0].grad(), p[1].grad(), p[2].grad()};
    };
    jit::reset_stats();
    const TensorList got_grad = run([&](const TensorList& i) { return traced.forward(i); });
    const jit::Stats s = jit::stats();
    const TensorList want_grad = run(fn);
    for (size_t k = 0; k < 3; ++k) {
      ASSERT_TRUE(got_grad[k].defined()) << "input " << k;
      EXPECT_EQ(got_grad[k].scalar_type(), want_grad[k].scalar_type()) << "input " << k;
      EXPECT_TENSOR_CLOSE(got_grad[k], want_grad[k], 10 * tol, 10 * tol) << "input " << k;
    }
    EXPECT_EQ(s.fused_fallbacks, 0);
    EXPECT_GE(s.fused_runs, 2) << s.fused_runs;  // the forward kernel and at least one of the backward's
  }
  // Complex ops without a rule (log, here) stay eager beside the fused complex arithmetic.
  auto log_fn = [](const TensorList& in) { return TensorList{torch::log(in[0] * 2 + 1) * in[0]}; };
  const Tensor z = torch::randn({8, 5}, torch::kComplexFloat);
  auto log_traced = jit::trace(log_fn, {z});
  EXPECT_EQ(count_kind(log_traced.fused_graph(), "log"), 1u) << log_traced.fused_graph().str();
  EXPECT_TENSOR_CLOSE(log_traced.forward(z), log_fn({z})[0], 1e-5, 1e-5);
}

// Note [Row reductions]: a sum or mean over the last dimension ends the group (one pass), with
// keepdim or not, beside elementwise outputs; gradients through it; an empty last dimension.
TEST(JitFuser, RowReductionsEndAGroup) {
  jit::reset_stats();
  const Tensor w = torch::randn({33}, torch::dtype(torch::kDouble).requires_grad(true));
  auto fn = [&](const TensorList& in) {
    Tensor d = (in[0] * w - in[1]).square();
    return TensorList{d.mean(-1), (d * 2).sum(-1, /*keepdim=*/true), d.exp()};
  };
  const Tensor x = torch::randn({7, 5, 33}, torch::kDouble), y = torch::randn({33}, torch::kDouble);
  auto traced = jit::trace(fn, {x, y});
  EXPECT_EQ(fused_nodes(traced.fused_graph()), 1u) << traced.fused_graph().str();
  EXPECT_EQ(traced.fused_graph().nodes().size(), 1u) << traced.fused_graph().str();
  const TensorList got = traced.forward({x, y}), want = fn({x, y});
  ASSERT_EQ(got[0].sizes(), (std::vector<int64_t>{7, 5}));
  ASSERT_EQ(got[1].sizes(), (std::vector<int64_t>{7, 5, 1}));
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TENSOR_CLOSE(got[i], want[i], 1e-12, 1e-12) << "output " << i;
  (got[0].sum() + got[1].sum() + got[2].sum()).backward();
  const Tensor traced_grad = w.grad().clone();
  w.mutable_grad() = Tensor();
  (want[0].sum() + want[1].sum() + want[2].sum()).backward();
  EXPECT_TENSOR_CLOSE(traced_grad, w.grad(), 1e-10, 1e-10);
  EXPECT_EQ(jit::stats().fused_fallbacks, 0);
  // float and bfloat16 rows (accumulated in float), a transposed input.
  for (torch::Dtype dt : {torch::kFloat, torch::kBFloat16}) {
    auto f = [](const TensorList& in) { return TensorList{(in[0].sigmoid() * in[1]).sum(-1)}; };
    const Tensor a = torch::randn({64, 300}).to(dt), b = torch::randn({300, 64}).to(dt).t();
    auto t = jit::trace(f, {a, b});
    EXPECT_EQ(fused_nodes(t.fused_graph()), 1u) << t.fused_graph().str();
    const Tensor ref = f({a.to(torch::kDouble), b.to(torch::kDouble)})[0];
    EXPECT_TENSOR_CLOSE(t.forward({a, b})[0].to(torch::kDouble), ref, dt == torch::kFloat ? 1e-5 : 2e-2, 1e-4);
  }
  // An empty last dimension: sums are 0, means NaN, as in eager.
  auto e = [](const TensorList& in) { return TensorList{in[0].exp().sum(-1), in[0].exp().mean(-1)}; };
  auto te = jit::trace(e, {torch::randn({3, 4})});
  const TensorList empty_rows = te.forward(TensorList{torch::randn({3, 0})});
  EXPECT_TENSOR_EQ(empty_rows[0], torch::zeros({3}));
  EXPECT_TRUE(empty_rows[1].isnan().all().item<bool>());
}

// layer_norm over the last dimension becomes its arithmetic, one kernel with what feeds it (three
// loops over each row: mean, variance, normalize); its backward is derived from those ops. As
// eager within rounding, forward and backward, in float and double (half and bfloat16:
// HalfAndBfloat16RowsComputeInFloat).
TEST(JitFuser, LayerNormIsOneKernelWithItsNeighbours) {
  for (torch::Dtype dt : {torch::kFloat, torch::kDouble}) {
    jit::reset_stats();
    auto ln = torch::nn::LayerNorm(torch::nn::LayerNormOptions({96}));
    {
      torch::NoGradGuard g;
      ln->weight.copy_(torch::randn({96}));
      ln->bias.copy_(torch::randn({96}));
    }
    ln->to(dt);
    auto fn = [&](const TensorList& in) { return TensorList{torch::gelu(ln(in[0] + in[1] * 0.5))}; };
    const Tensor a = torch::randn({3, 17, 96}, dt).requires_grad_(), b = (torch::randn({3, 17, 96}, dt) * 3).requires_grad_();
    auto traced = jit::trace(fn, {a.detach(), b.detach()});
    EXPECT_EQ(traced.fused_graph().nodes().size(), 1u) << traced.fused_graph().str();
    const Tensor got = traced.forward({a, b})[0];
    const Tensor g = torch::randn({3, 17, 96}, dt);
    got.backward(g);
    const TensorList got_grads = {a.grad().clone(), b.grad().clone(), ln->weight.grad().clone(), ln->bias.grad().clone()};
    a.mutable_grad() = Tensor(), b.mutable_grad() = Tensor();
    ln->weight.mutable_grad() = Tensor(), ln->bias.mutable_grad() = Tensor();
    const Tensor want = fn({a, b})[0];
    want.backward(g);
    const TensorList want_grads = {a.grad(), b.grad(), ln->weight.grad(), ln->bias.grad()};
    const double tol = dt == torch::kDouble ? 1e-10 : 2e-5;
    EXPECT_TENSOR_CLOSE(got, want, tol, tol) << dt;
    for (size_t i = 0; i < got_grads.size(); ++i) EXPECT_TENSOR_CLOSE(got_grads[i], want_grads[i], 20 * tol, 20 * tol) << dt << ", gradient " << i;
    EXPECT_EQ(jit::stats().fused_fallbacks, 0);
  }
}

// softmax and log_softmax over the last dimension become a max, an exp and a sum over each row
// in one kernel with their neighbours; large and -inf inputs (masks) as eager; gradients.
TEST(JitFuser, SoftmaxIsOneKernelWithItsNeighbours) {
  for (torch::Dtype dt : {torch::kFloat, torch::kDouble}) {
    jit::reset_stats();
    const Tensor w = (torch::randn({140}, dt) * 30).requires_grad_();
    auto fn = [&](const TensorList& in) {
      Tensor scores = in[0] * w + in[1];  // in[1]: 0 or -inf (a mask)
      return TensorList{scores.softmax(-1) * 2, torch::log_softmax(scores, 1).exp() + 1};
    };
    Tensor x = torch::randn({6, 140}, dt);
    Tensor mask = torch::where(torch::rand({6, 140}).lt(0.3), torch::full({6, 140}, -1.0 / 0.0), torch::zeros({6, 140})).to(dt);
    auto traced = jit::trace(fn, {x, mask});
    EXPECT_EQ(count_kind(traced.fused_graph(), "softmax"), 0u) << traced.fused_graph().str();
    EXPECT_LE(traced.fused_graph().nodes().size(), 2u) << traced.fused_graph().str();
    const TensorList got = traced.forward({x, mask});
    (got[0] * torch::linspace(0, 1, 140, dt)).sum().backward();
    const Tensor got_grad = w.grad().clone();
    w.mutable_grad() = Tensor();
    const TensorList want = fn({x, mask});
    (want[0] * torch::linspace(0, 1, 140, dt)).sum().backward();
    const double tol = dt == torch::kDouble ? 1e-12 : 1e-5;
    for (size_t i = 0; i < got.size(); ++i) EXPECT_TENSOR_CLOSE(got[i], want[i], tol, tol) << dt << ", output " << i;
    EXPECT_TENSOR_CLOSE(got_grad, w.grad(), 100 * tol, 100 * tol) << dt;
    EXPECT_EQ(jit::stats().fused_fallbacks, 0);
  }
  // Contiguous inputs of one shape (the iterator would coalesce the rows into one loop): each row
  // still reduces alone.
  auto plain = [](const TensorList& in) {
    return TensorList{in[0].softmax(-1), torch::log_softmax(in[0], -1), torch::layer_norm(in[0] * 2, {130})};
  };
  Tensor x = torch::randn({5, 3, 130}) * 4;
  x.index_put_({1, 2, 7}, std::numeric_limits<float>::quiet_NaN());  // a NaN row: NaN everywhere, as eager
  auto traced_plain = jit::trace(plain, {x});
  EXPECT_EQ(count_kind(traced_plain.fused_graph(), "softmax") + count_kind(traced_plain.fused_graph(), "log_softmax") +
                count_kind(traced_plain.fused_graph(), "layer_norm"),
            0u)
      << traced_plain.fused_graph().str();
  const TensorList got = traced_plain.forward(TensorList{x}), want = plain({x});
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TENSOR_CLOSE(got[i], want[i], 1e-5, 1e-5) << "output " << i;
}

// Note [Fused casts]: layer_norm, softmax and var_mean over half or bfloat16 rows compute in float
// inside the kernel (as eager's kernels do) and round once; explicit casts fuse, rounding where
// the program rounds (bit for bit as eager); gradients through them; the op-by-op path (forward-
// mode AD) computes in float too.
TEST(JitFuser, HalfAndBfloat16RowsComputeInFloat) {
  for (const torch::Dtype dt : {torch::kBFloat16, torch::kHalf}) {
    SCOPED_TRACE(toString(dt));
    jit::reset_stats();
    // The reference: the same program in float on the same (rounded) numbers, rounded at the end.
    auto ln32 = torch::nn::LayerNorm(torch::nn::LayerNormOptions({160}));
    auto ln = torch::nn::LayerNorm(torch::nn::LayerNormOptions({160}));
    {
      torch::NoGradGuard no_grad;
      ln->weight.copy_(torch::randn({160}) * 0.5 + 1);
      ln->bias.copy_(torch::randn({160}));
      ln->to(dt);
      ln32->weight.copy_(ln->weight);
      ln32->bias.copy_(ln->bias);
    }
    auto program = [](torch::nn::LayerNorm& norm, const TensorList& in) {
      const Tensor h = norm(in[0] * 2 + in[1]);
      const auto [var, mean] = torch::var_mean(in[0], {-1}, /*unbiased=*/true, /*keepdim=*/true);
      return TensorList{torch::gelu(h), h.softmax(-1), (in[0] - mean) * var};
    };
    auto fn = [&](const TensorList& in) { return program(ln, in); };
    auto inputs = [&] { return TensorList{torch::randn({6, 160}).to(dt), torch::randn({160}).to(dt)}; };
    auto traced = jit::trace(fn, inputs());
    const jit::Graph& fg = traced.fused_graph();
    EXPECT_EQ(count_kind(fg, "layer_norm") + count_kind(fg, "softmax") + count_kind(fg, "var_mean"), 0u) << fg.str();
    EXPECT_EQ(count_kind(fg, "_to_copy"), 0u) << fg.str();  // the conversions are inside kernels
    EXPECT_LE(fused_nodes(fg), 2u) << fg.str();
    const std::string report = jit::fusion_report(fg);
    EXPECT_NE(report.find("convert"), std::string::npos) << report;
    EXPECT_EQ(report.find("not compiled"), std::string::npos) << report;
    const double tol = dt == torch::kBFloat16 ? 1.6e-2 : 2e-3;  // two units in the last place
    TensorList in = inputs(), wide;
    for (Tensor& t : in) {
      t.requires_grad_(true);
      wide.push_back(t.detach().to(torch::kFloat).requires_grad_(true));
    }
    const TensorList got = traced.forward(in);
    const Tensor g0 = torch::randn({6, 160}).to(dt), g1 = torch::randn({6, 160}).to(dt);
    torch::autograd::backward({got[0], got[1], got[2]}, {g0, g1, g0});
    const TensorList want = program(ln32, wide);
    torch::autograd::backward({want[0], want[1], want[2]}, {g0.to(torch::kFloat), g1.to(torch::kFloat), g0.to(torch::kFloat)});
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].scalar_type(), dt) << "output " << i;
      EXPECT_TENSOR_CLOSE(got[i], want[i].to(dt), tol, tol) << "output " << i;
    }
    // Gradients: the fused backward rounds between its kernels.
    const TensorList got_grads = {in[0].grad(), in[1].grad(), ln->weight.grad(), ln->bias.grad()};
    const TensorList want_grads = {wide[0].grad(), wide[1].grad(), ln32->weight.grad(), ln32->bias.grad()};
    for (size_t i = 0; i < got_grads.size(); ++i) {
      EXPECT_EQ(got_grads[i].scalar_type(), dt) << "gradient " << i;
      EXPECT_TENSOR_CLOSE(got_grads[i], want_grads[i].to(dt), 4 * tol, 4 * tol) << "gradient " << i;
    }
    EXPECT_EQ(jit::stats().fused_fallbacks, 0);
    // Forward-mode AD runs the groups op by op: in float between the conversions.
    {
      namespace fwad = torch::autograd::forward_ad;
      fwad::dual_level level;
      const Tensor t0 = torch::randn({6, 160}).to(dt);
      const TensorList gd = traced.forward(TensorList{fwad::make_dual(in[0].detach(), t0), in[1].detach()});
      const TensorList wd = program(ln32, {fwad::make_dual(wide[0].detach(), t0.to(torch::kFloat)), wide[1].detach()});
      for (size_t i = 0; i < gd.size(); ++i) {
        const auto pg = fwad::unpack_dual(gd[i]), pw = fwad::unpack_dual(wd[i]);
        EXPECT_TENSOR_CLOSE(pg.primal, pw.primal.to(dt), tol, tol) << "forward AD output " << i;
        EXPECT_TENSOR_CLOSE(pg.tangent, pw.tangent.to(dt), 4 * tol, 4 * tol) << "forward AD tangent " << i;
      }
    }
    EXPECT_GT(jit::stats().fused_fallbacks, 0);
  }
  // An explicit cast inside a group rounds there, bit for bit as eager.
  auto casts = [](const TensorList& in) {
    const Tensor r = (in[0] * 3).to(torch::kBFloat16).to(torch::kFloat) + 1;
    return TensorList{r, (r.to(torch::kHalf) * 2).exp()};
  };
  auto tc = jit::trace(casts, {torch::randn({50, 30})});
  EXPECT_EQ(tc.fused_graph().nodes().size(), 1u) << tc.fused_graph().str();
  const Tensor x = torch::randn({50, 30});
  const TensorList got = tc.forward(TensorList{x}), want = casts({x});
  EXPECT_TENSOR_EQ(got[0], want[0]);
  EXPECT_EQ(got[1].scalar_type(), torch::kHalf);
  EXPECT_TENSOR_CLOSE(got[1], want[1], 2e-3, 2e-3);  // eager rounds r * 2 to half before the exp
  EXPECT_FALSE(torch::equal(got[0], (x * 3 + 1)));  // the rounding happened
}

// amax and amin over the last dimension are row reductions (NaN propagates; the gradient is
// shared among ties, as eager); var, std, var_mean and std_mean over it become means in the same
// kernel. Values and gradients as eager, in float and double; other dims and dtypes stay eager.
TEST(JitFuser, ExtremaVarianceAndStdFuseOverRows) {
  for (torch::Dtype dt : {torch::kFloat, torch::kDouble}) {
    jit::reset_stats();
    const Tensor w = torch::randn({40}, dt).requires_grad_();
    auto fn = [&](const TensorList& in) {
      Tensor d = in[0] * w + in[1];
      auto [v, m] = torch::var_mean(d, {-1}, /*unbiased=*/false, /*keepdim=*/true);
      auto [s, sm] = torch::std_mean(d, {-1});
      return TensorList{d.amax(-1),  d.amin(-1, /*keepdim=*/true) * 2, d.var(-1), d.std(-1, true, true) + 1, v * m,
                        s,           sm,                                   torch::max(d), d.tanh().amax({1}),
                        (in[1] * 1.5).amax(-1)};
    };
    // Small integers: in[1] (40 values of -2..2 per row) ties at every row's maximum, so the last
    // output's gradient is shared; in[1] also needs a gradient.
    const Tensor x = torch::randint(-3, 4, {6, 40}).to(dt), y = (torch::randint(-2, 3, {6, 40}).to(dt)).requires_grad_();
    auto traced = jit::trace(fn, {x, y.detach()});
    const jit::Graph& fg = traced.fused_graph();
    for (const char* k : {"amax", "amin", "var", "std", "var_mean", "std_mean"})
      // max() (all dims) and the amax of tanh (Note [Extrema of library calls]: not in tanh's group)
      EXPECT_EQ(count_kind(fg, k), std::string_view(k) == "amax" ? 2u : 0u) << k << "\n" << fg.str();
    EXPECT_LE(fg.nodes().size(), 5u) << fg.str();  // the group, max(), the amax of tanh, std's sqrt of dropped dims
    const TensorList got = traced.forward({x, y});
    Tensor probe = torch::randn({6}, dt);
    auto loss = [&](const TensorList& o) {
      Tensor l = o[8].sum();
      for (size_t i = 0; i < 8; ++i) l = l + (o[i] * (i + 1)).sum();
      l = l + (o[9] * probe).sum();
      return l + (o[0] * probe).sum();
    };
    loss(got).backward();
    const Tensor gw = w.grad().clone(), gy = y.grad().clone();
    w.mutable_grad() = Tensor(), y.mutable_grad() = Tensor();
    const TensorList want = fn({x, y});
    loss(want).backward();
    const double tol = dt == torch::kDouble ? 1e-12 : 1e-5;
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].sizes(), want[i].sizes()) << "output " << i;
      EXPECT_TENSOR_CLOSE(got[i], want[i], tol, tol) << dt << ", output " << i;
    }
    EXPECT_TENSOR_CLOSE(gw, w.grad(), 100 * tol, 100 * tol) << dt;
    EXPECT_TENSOR_CLOSE(gy, y.grad(), 100 * tol, 100 * tol) << dt;
    EXPECT_EQ(jit::stats().fused_fallbacks, 0);
  }
  // NaN propagates through amax and amin (the first, a middle and the last element of a row).
  auto ext = [](const TensorList& in) { return TensorList{(in[0] * 2).amax(-1), (in[0] + 1).amin(-1), in[0].exp().amax(-1)}; };
  Tensor x = torch::randn({5, 300});
  x.index_put_({0, 0}, std::numeric_limits<float>::quiet_NaN());
  x.index_put_({2, 150}, std::numeric_limits<float>::quiet_NaN());
  x.index_put_({4, 299}, std::numeric_limits<float>::quiet_NaN());
  x.index_put_({3, 7}, std::numeric_limits<float>::infinity());
  auto te = jit::trace(ext, {x});
  // (the amax of exp runs alone: Note [Extrema of library calls])
  EXPECT_EQ(count_kind(te.fused_graph(), "amax") + count_kind(te.fused_graph(), "amin"), 1u) << te.fused_graph().str();
  const TensorList got = te.forward(TensorList{x}), want = ext({x});
  // (the kernel's exp and eager's may differ in the last bit)
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TENSOR_CLOSE(got[i], want[i], 1e-6, 0) << "output " << i;
  EXPECT_TRUE(got[0][2].isnan().item<bool>());
  // Over another dimension: eager nodes, same values.
  auto other = [](const TensorList& in) { return TensorList{in[0].amax(0), in[0].var(0), in[0].to(torch::kBFloat16).var(0)}; };
  auto to = jit::trace(other, {torch::randn({4, 9})});
  EXPECT_EQ(count_kind(to.fused_graph(), "amax") + count_kind(to.fused_graph(), "var"), 3u) << to.fused_graph().str();
  const Tensor z = torch::randn({4, 9});
  const TensorList go = to.forward(TensorList{z}), wo = other({z});
  for (size_t i = 0; i < go.size(); ++i) EXPECT_TENSOR_EQ(go[i], wo[i]) << "output " << i;
}

// max/min along a dim, argmax and argmin are recorded (they run as their ops in the program).
TEST(JitTrace, SelectingReductionsAreRecorded) {
  auto fn = [](const TensorList& in) {
    auto [v, i] = torch::max(in[0], 1);
    auto [u, j] = in[0].min(0, /*keepdim=*/true);
    return TensorList{v * 2, i, u, j, in[0].argmax(1), in[0].argmin(), torch::min(in[0])};
  };
  auto traced = jit::trace(fn, {torch::randn({4, 6})});
  for (const char* k : {"max_dim", "min_dim", "argmax", "argmin", "amin"}) EXPECT_EQ(count_kind(traced.graph(), k), 1u) << k;
  const Tensor x = torch::randn({4, 6});
  const TensorList got = traced.forward(TensorList{x}), want = fn({x});
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TENSOR_EQ(got[i], want[i]) << "output " << i;
  Tensor a = torch::randn({4, 6}).requires_grad_();
  traced.forward(TensorList{a})[0].sum().backward();
  Tensor b = a.detach().clone().requires_grad_();
  fn({b})[0].sum().backward();
  EXPECT_TENSOR_EQ(a.grad(), b.grad());
}

// Past TensorIterator's operands (6) a CPU group runs row by row, up to 16 operands; more cut
// the group into groups that fit.
TEST(JitFuser, AGroupWithTooManyOperandsIsCut) {
  auto fn = [](const TensorList& in) {
    Tensor acc = in[0].exp();
    for (size_t i = 1; i < in.size(); ++i) acc = acc * in[i].sigmoid() + in[i];
    return TensorList{acc};
  };
  for (int inputs : {9, 24}) {
    TensorList in;
    for (int i = 0; i < inputs; ++i) in.push_back(torch::randn({10, 3}, torch::kDouble));
    auto traced = jit::trace(fn, in);
    EXPECT_EQ(fused_nodes(traced.fused_graph()), inputs == 9 ? 1u : 2u) << traced.fused_graph().str();
    for (const auto& n : traced.fused_graph().nodes())
      if (n->fusion) EXPECT_LE(n->inputs.size() + n->outputs.size(), 16u);
    EXPECT_TENSOR_CLOSE(traced.forward(in)[0], fn(in)[0], 1e-12, 1e-12);
  }
}

// Note [Fused dropout]: dropout joins the fused group (no mask tensor), drops about p of the
// elements, scales the rest, draws anew at each run and repeats under manual_seed; the backward
// applies the same mask; the op-by-op path gives the kernel's values.
TEST(JitFuser, DropoutFusesAndItsBackwardReusesTheMask) {
  jit::reset_stats();
  const Tensor w = torch::randn({256}, torch::requires_grad());
  auto fn = [&](const TensorList& in) {
    return TensorList{torch::nn::functional::dropout((in[0] * w).tanh(), torch::nn::functional::DropoutFuncOptions().p(0.3)) + 1};
  };
  auto traced = jit::trace(fn, {torch::randn({512, 256})});
  EXPECT_EQ(fused_nodes(traced.fused_graph()), 1u) << traced.fused_graph().str();
  EXPECT_EQ(count_kind(traced.fused_graph(), "dropout"), 0u) << traced.fused_graph().str();
  const Tensor x = torch::randn({512, 256});
  torch::manual_seed(11);
  const Tensor y = traced.forward(TensorList{x})[0];
  const Tensor kept = y.ne(1);
  const double dropped = 1 - kept.to(torch::kDouble).mean().item<double>();
  EXPECT_NEAR(dropped, 0.3, 0.01);  // 131,072 draws: the standard deviation is 0.0013
  const Tensor base = (x * w).tanh().detach();
  EXPECT_TENSOR_CLOSE(torch::where(kept, y - 1, torch::zeros_like(y)), torch::where(kept, base / 0.7, torch::zeros_like(y)), 1e-5, 1e-6);
  // The gradient of sum(y) through x * w: the same mask, scaled.
  y.sum().backward();
  const Tensor want = (torch::where(kept, torch::full_like(y, 1 / 0.7), torch::zeros_like(y)) * (1 - base.square()) * x).sum(0);
  EXPECT_TENSOR_CLOSE(w.grad(), want, 1e-4, 1e-4);
  EXPECT_EQ(jit::stats().fused_fallbacks, 0);
  // Another run draws another mask; the same seed draws the same.
  EXPECT_FALSE(torch::equal(traced.forward(TensorList{x})[0], y));
  torch::manual_seed(11);
  EXPECT_TENSOR_EQ(traced.forward(TensorList{x})[0], y);
  // Op by op (forward-mode AD runs the ops): the same values as the kernel.
  torch::manual_seed(11);
  Tensor eager;
  {
    torch::autograd::forward_ad::dual_level level;
    eager = torch::autograd::forward_ad::unpack_dual(
                traced.forward(TensorList{torch::autograd::forward_ad::make_dual(x, torch::ones_like(x))})[0])
                .primal;
  }
  EXPECT_TENSOR_CLOSE(eager, y, 1e-6, 1e-6);
  // In eval mode dropout is the identity: nothing random is left.
  auto eval_traced = jit::trace(
      [](const TensorList& in) {
        return TensorList{torch::nn::functional::dropout(in[0].exp(), torch::nn::functional::DropoutFuncOptions().p(0.3).training(false))};
      },
      {torch::randn({4})});
  EXPECT_TENSOR_CLOSE(eval_traced.forward(TensorList{x})[0], x.exp(), 1e-6, 1e-6);
}

// Note [Dynamic sizes]: a second batch size makes the graph size-generic; later sizes neither
// trace nor compile, in training too (the fused backward programs are derived per size from
// cached kernels).
TEST(JitDynamic, VariableBatchSizesTraceTwiceAndCompileEachGroupOnce) {
  torch::manual_seed(3);
  auto net = torch::nn::Sequential(torch::nn::Linear(12, 16), torch::nn::Functional(std::function<Tensor(Tensor)>([](Tensor x) { return gelu_chain(x); })),
                                   torch::nn::Linear(16, 4));
  auto forward = [&](const TensorList& in) {
    const Tensor& x = in[0];  // [batch, 3, 4] flattened to [batch, 12], and [batch * 4] at the end
    return TensorList{net->forward(x.view({x.size(0), 12})).sigmoid().mul(2).reshape({x.size(0) * 4})};
  };
  jit::reset_stats();
  auto traced = jit::trace_module(net.ptr(), forward, {torch::randn({5, 3, 4})});
  torch::optim::SGD opt(net->parameters(), 0.1);
  int64_t compiled_after_second = -1;
  for (int64_t batch : {5, 8, 3, 17, 8, 64, 2}) {
    const Tensor x = torch::randn({batch, 3, 4});
    opt.zero_grad();
    const Tensor y = traced.forward(TensorList{x})[0];
    ASSERT_EQ(y.sizes(), (std::vector<int64_t>{batch * 4}));
    y.square().sum().backward();
    TensorList got_grads;
    for (const Tensor& p : net->parameters()) got_grads.push_back(p.grad().clone());
    opt.zero_grad();
    const Tensor want = forward({x})[0];
    want.square().sum().backward();
    EXPECT_TENSOR_CLOSE(y, want, 1e-5, 1e-5) << "batch " << batch;
    for (size_t k = 0; k < got_grads.size(); ++k)
      EXPECT_TENSOR_CLOSE(got_grads[k], net->parameters()[k].grad(), 1e-4, 1e-5) << "batch " << batch << ", parameter " << k;
    opt.step();
    if (batch == 8 && compiled_after_second < 0) compiled_after_second = jit::stats().kernels_compiled;
  }
  const jit::Stats s = jit::stats();
  EXPECT_EQ(s.traces, 2);  // the first size and the second; the second made the graph size-generic
  EXPECT_EQ(s.dynamic_graphs, 1);
  EXPECT_EQ(traced.num_specializations(), 2u);
  EXPECT_EQ(s.eager_fallbacks, 0);
  EXPECT_EQ(s.fused_fallbacks, 0);
  EXPECT_EQ(s.kernels_compiled, compiled_after_second);  // no size after the second compiled anything
  EXPECT_GT(s.fused_runs, 7);
  // Size 1 is not generic (broadcasting treats it apart): its own trace.
  EXPECT_TENSOR_CLOSE(traced.forward(TensorList{torch::ones({1, 3, 4})})[0], forward({torch::ones({1, 3, 4})})[0], 1e-5, 1e-5);
  EXPECT_EQ(jit::stats().traces, 3);
}

// A size-generic program saves as one: the loaded program runs any batch size, without source.
TEST(JitDynamic, ASizeGenericProgramSavesAndLoadsGeneric) {
  torch::manual_seed(4);
  auto lin = torch::nn::Linear(12, 5);
  auto fwd = [&](const TensorList& in) {
    const Tensor& x = in[0];
    return TensorList{torch::gelu(lin->forward(x.reshape({x.size(0), 12}))).mul(2).sigmoid().view({x.size(0) * 5})};
  };
  auto traced = jit::trace_module(lin.ptr(), fwd, {torch::randn({4, 3, 4})});
  (void)traced.forward(TensorList{torch::randn({6, 3, 4})});  // a second size: generic
  ASSERT_EQ(traced.num_specializations(), 2u);
  TempDir dir;
  jit::save(traced, dir / "generic.ember");
  auto loaded = jit::load(dir / "generic.ember");
  for (int64_t batch : {9, 2, 31}) {
    const Tensor x = torch::randn({batch, 3, 4});
    torch::NoGradGuard g;
    EXPECT_TENSOR_CLOSE(loaded.forward(TensorList{x})[0], fwd({x})[0], 1e-6, 1e-6) << "batch " << batch;
  }
  EXPECT_EQ(loaded.num_specializations(), 1u);
  EXPECT_ERROR_WITH(loaded.forward(TensorList{torch::randn({1, 3, 4})}), "cannot run on these inputs");  // size 1
  EXPECT_ERROR_WITH(loaded.forward(TensorList{torch::randn({5, 3, 5})}), "cannot run on these inputs");  // another dim
}

// A size that reaches the program another way than an op's size argument (here a number) keeps
// one graph per size: never a generic graph that would compute with the first size.
TEST(JitDynamic, SizesTheGraphCannotExplainStaySpecialized) {
  jit::reset_stats();
  auto fn = [](const TensorList& in) { return TensorList{in[0] * double(in[0].size(0)) + 1}; };
  auto traced = jit::trace(fn, {torch::ones({3, 2})});
  for (int64_t batch : {4, 6}) EXPECT_TENSOR_EQ(traced.forward(TensorList{torch::ones({batch, 2})})[0], fn({torch::ones({batch, 2})})[0]);
  EXPECT_EQ(jit::stats().dynamic_graphs, 0);
  EXPECT_EQ(traced.num_specializations(), 3u);
  // Two inputs whose batch sizes were equal when traced must stay equal for the generic graph.
  auto pair = [](const TensorList& in) { return TensorList{(in[0] + in[1]).view({in[0].size(0) * 2})}; };
  auto traced_pair = jit::trace(pair, {torch::ones({3, 2}), torch::ones({3, 2})});
  EXPECT_TENSOR_EQ(traced_pair.forward({torch::ones({5, 2}), torch::ones({5, 2})})[0], torch::full({10}, 2.0));
  EXPECT_EQ(jit::stats().dynamic_graphs, 1);
  EXPECT_TENSOR_EQ(traced_pair.forward({torch::ones({7, 2}), torch::ones({7, 2})})[0], torch::full({14}, 2.0));
  EXPECT_ERROR_WITH(traced_pair.forward({torch::ones({7, 2}), torch::ones({6, 2})}), "");  // eager's error, from a trace
}

// batch_norm (which writes its running statistics at every run), avg pooling, embedding and
// logsumexp are recorded: a small CNN and an embedding bag train traced as they do eagerly.
TEST(JitTrace, BatchNormPoolingAndEmbeddingTrainAsEager) {
  torch::manual_seed(5);
  auto make_cnn = [] {
    return torch::nn::Sequential(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1)), torch::nn::BatchNorm2d(8),
                                 torch::nn::ReLU(), torch::nn::AvgPool2d(2), torch::nn::AdaptiveAvgPool2d(1),
                                 torch::nn::Flatten(), torch::nn::Linear(8, 4));
  };
  auto eager = make_cnn();
  auto traced_net = make_cnn();
  for (size_t i = 0; i < eager->parameters().size(); ++i) {
    torch::NoGradGuard g;
    traced_net->parameters()[i].copy_(eager->parameters()[i]);
  }
  // Tracing runs the module once (as torch.jit.trace does): its batch statistics count.
  const Tensor example = torch::randn({2, 3, 8, 8});
  auto traced = jit::trace(traced_net, {example});
  (void)eager->forward(example);
  torch::optim::SGD opt_e(eager->parameters(), 0.1), opt_t(traced_net->parameters(), 0.1);
  for (int step = 0; step < 3; ++step) {
    const Tensor x = torch::randn({2, 3, 8, 8});
    opt_e.zero_grad();
    opt_t.zero_grad();
    eager->forward(x).logsumexp(1).sum().backward();
    traced.forward(x).logsumexp(1).sum().backward();
    opt_e.step();
    opt_t.step();
  }
  for (size_t i = 0; i < eager->parameters().size(); ++i)
    EXPECT_TENSOR_CLOSE(traced_net->parameters()[i], eager->parameters()[i], 1e-5, 1e-6) << "parameter " << i;
  for (size_t i = 0; i < eager->buffers().size(); ++i)  // running mean, var and the batch count
    EXPECT_TENSOR_CLOSE(traced_net->buffers()[i], eager->buffers()[i], 1e-5, 1e-6) << "buffer " << i;
  eager->eval();
  traced.eval();
  const Tensor x = torch::randn({2, 3, 8, 8});
  EXPECT_TENSOR_CLOSE(traced.forward(x), eager->forward(x), 1e-5, 1e-6);  // eval mode traces again
  // Embedding: indices in, the rows' gradients out.
  auto emb = torch::nn::Embedding(torch::nn::EmbeddingOptions(10, 6).padding_idx(0));
  auto traced_emb = jit::trace(emb, {torch::tensor({1, 2, 0, 3}, torch::kLong)});
  const Tensor idx = torch::tensor({{4, 0}, {9, 4}}, torch::kLong);
  Tensor y = traced_emb.forward(idx);
  EXPECT_TENSOR_EQ(y, emb->forward(idx));
  y.sum().backward();
  EXPECT_TENSOR_EQ(emb->weight.grad().sum(1), torch::tensor({0.0f, 0, 0, 0, 12, 0, 0, 0, 0, 6}));
}

// zeros, ones and full inside a traced function: "full" nodes, folded to constants.
TEST(JitTrace, FactoriesAreRecorded) {
  auto fn = [](const TensorList& in) {
    return TensorList{in[0] + torch::ones({3}) * 2 + torch::full({3}, 0.5, torch::kDouble).to(torch::kFloat) +
                      torch::zeros_like(in[0])};
  };
  auto traced = jit::trace(fn, {torch::randn({2, 3})});
  const Tensor x = torch::randn({2, 3});
  EXPECT_TENSOR_EQ(traced.forward(x), fn({x})[0]);
  EXPECT_EQ(count_kind(traced.graph(), "full"), 0u) << traced.graph().str();  // folded
}

// Random pointwise graphs (the fuser's generator test): chains of the code generator's ops over
// inputs that broadcast and may be transposed, in every floating dtype, against eager: float and
// double op by op; half and bfloat16 against eager in float rounded once (a fused group keeps
// its intermediates in float and rounds what it stores). For float and double also the
// gradients of every input (the fused backward programs) against eager autograd.
// Each leaf's gradient (zeros where none reached it).
TensorList grads_or_zeros(const TensorList& leaves) {
  TensorList r;
  for (const Tensor& l : leaves) r.push_back(l.grad().defined() ? l.grad() : torch::zeros_like(l));
  return r;
}

// A random chain of ops for the random-graph tests: step k applies a unary op to the value before
// it or a binary op to that value and an earlier one (the inputs are the first values).
struct RandomChain {
  struct Step {
    std::string op;
    int a, b;  // b < 0: unary
  };
  std::vector<Step> steps;
  RandomChain(const std::function<int(int)>& pick, int inputs, const std::vector<std::string>& unary,
              const std::vector<std::string>& binary) {
    const int n = 2 + pick(7);
    for (int k = 0; k < n; ++k) {
      const int avail = inputs + k;
      if (pick(2) == 0) steps.push_back({unary[size_t(pick(int(unary.size())))], avail - 1, -1});
      else steps.push_back({binary[size_t(pick(int(binary.size())))], avail - 1, pick(avail)});
    }
  }
  // The inputs followed by each step's value.
  template <class Unary, class Binary>
  TensorList run(const TensorList& in, Unary&& unary, Binary&& binary) const {
    TensorList v = in;
    for (const Step& st : steps)
      v.push_back(st.b < 0 ? unary(st.op, v[size_t(st.a)]) : binary(st.op, v[size_t(st.a)], v[size_t(st.b)]));
    return v;
  }
};

// Random complex graphs (Note [Complex kernels]): chains of the ops with a complex rule over
// complex64 or complex128 inputs and a real one (promoted where they meet; abs and angle give real
// values back), values and gradients of every input against eager.
TEST(JitFuser, RandomComplexGraphsMatchEager) {
  jit::reset_stats();
  std::mt19937 rng(20261208);
  auto pick = [&](int n) { return int(rng() % uint32_t(n)); };
  const std::vector<std::string> unary = {"neg", "square", "exp", "conj", "sgn", "reciprocal", "abs", "angle", "scale"};
  const std::vector<std::string> binary = {"add", "sub", "mul", "div", "where", "add_alpha"};
  auto apply_unary = [](const std::string& op, const Tensor& x) -> Tensor {
    if (op == "neg") return -x;
    if (op == "square") return x.square();
    if (op == "exp") return (x * 0.25).exp();
    if (op == "conj") return x.conj();
    if (op == "sgn") return x.sgn();
    if (op == "reciprocal") return (x + 3).reciprocal();
    if (op == "abs") return x.abs();
    if (op == "angle") return x.angle();
    return x * 1.5 - 0.25;
  };
  auto apply_binary = [](const std::string& op, const Tensor& a, const Tensor& b) -> Tensor {
    if (op == "add") return a + b;
    if (op == "sub") return a - b;
    if (op == "mul") return a * b;
    if (op == "div") return a / (b * 0.5 + 2);
    if (op == "where") return torch::where(a.abs().gt(1), a, b);
    return torch::add(a, b, 0.5);
  };
  const int trials = test::kSanitizerBuild ? 25 : 100;
  int fused_graphs = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const torch::Dtype dt = pick(2) ? torch::kComplexFloat : torch::kComplexDouble;
    const torch::Dtype real_dt = dt == torch::kComplexFloat ? torch::kFloat : torch::kDouble;
    const std::vector<int64_t> full = {1 + pick(6), 2 + pick(9)};
    const bool transposed = pick(3) == 0, broadcast = pick(2) == 0;
    const RandomChain chain(pick, 3, unary, binary);  // inputs: z, w (complex, maybe broadcast), x (real)
    auto program = [&](const TensorList& in) {
      const TensorList v = chain.run(in, apply_unary, apply_binary);
      return TensorList{v.back() * in[0], v[3 + chain.steps.size() / 2]};  // the first keeps the graph complex
    };
    auto make_inputs = [&] {
      Tensor z = transposed ? torch::randn({full[1], full[0]}, dt).t() : torch::randn(full, dt);
      Tensor w = torch::randn(broadcast ? std::vector<int64_t>{full[1]} : full, dt);
      return TensorList{z, w, torch::randn(full, real_dt)};
    };
    auto traced = jit::trace(program, make_inputs());
    fused_graphs += fused_nodes(traced.fused_graph()) > 0 ? 1 : 0;
    const TensorList in = make_inputs();
    const TensorList got = traced.forward(in), want = program(in);
    const double tol = dt == torch::kComplexFloat ? 1e-4 : 1e-10;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].scalar_type(), want[i].scalar_type()) << "trial " << trial;
      EXPECT_TRUE(tensors_close(got[i], want[i], tol, tol)) << "trial " << trial << ", " << dt << "\n" << traced.fused_graph().str();
    }
    auto grads = [&](const std::function<TensorList(const TensorList&)>& f) {
      TensorList leaves;
      for (const Tensor& t : in) leaves.push_back(t.detach().requires_grad_(true));
      const TensorList out = f(leaves);
      Tensor loss = torch::real(out[0] * out[0].conj()).sum() + torch::real(out[1] * 0.5).sum();
      if (out[1].is_complex()) loss = loss + torch::imag(out[1]).sum();
      loss.backward();
      return grads_or_zeros(leaves);
    };
    const TensorList got_grads = grads([&](const TensorList& x) { return traced.forward(x); });
    const TensorList want_grads = grads(program);
    for (size_t i = 0; i < in.size(); ++i)
      EXPECT_TRUE(tensors_close(got_grads[i], want_grads[i], 10 * tol, 10 * tol))
          << "trial " << trial << ", gradient of input " << i << ", " << dt << "\n" << traced.fused_graph().str();
  }
  EXPECT_GT(fused_graphs, trials * 3 / 4);
  EXPECT_EQ(jit::stats().fused_fallbacks, 0);
  EXPECT_GT(jit::stats().backward_graphs, trials / 2);
}

TEST(JitFuser, RandomGraphsMatchEager) {
  jit::reset_stats();
  std::mt19937 rng(20261207);
  auto pick = [&](int n) { return int(rng() % uint32_t(n)); };
  const std::vector<std::string> unary = {"exp", "tanh", "sigmoid", "sin", "cos", "erf", "relu", "gelu", "gelu_tanh",
                                          "silu", "abs", "neg", "square", "rsqrt_abs", "log_abs", "sqrt_abs", "leaky"};
  const std::vector<std::string> binary = {"add", "sub", "mul", "div_safe", "maximum", "minimum", "add_alpha", "scale"};
  auto apply_unary = [](const std::string& op, const Tensor& x) -> Tensor {
    if (op == "exp") return (x * 0.25).exp();
    if (op == "tanh") return x.tanh();
    if (op == "sigmoid") return x.sigmoid();
    // sin and cos of a bounded argument: of a huge one (an exp's), two correct libraries'
    // argument reductions may disagree in every digit.
    if (op == "sin") return (x.tanh() * 4).sin();
    if (op == "cos") return (x.tanh() * 4).cos();
    if (op == "erf") return x.erf();
    if (op == "relu") return x.relu();
    if (op == "gelu") return torch::gelu(x);
    if (op == "gelu_tanh") return torch::gelu(x, "tanh");
    if (op == "silu") return torch::silu(x);
    if (op == "abs") return x.abs();
    if (op == "neg") return -x;
    if (op == "square") return x.square();
    if (op == "rsqrt_abs") return (x.abs() + 1).rsqrt();
    if (op == "log_abs") return (x.abs() + 1).log();
    if (op == "sqrt_abs") return x.abs().sqrt();
    return torch::leaky_relu(x, 0.2);
  };
  auto apply_binary = [](const std::string& op, const Tensor& a, const Tensor& b) -> Tensor {
    if (op == "add") return a + b;
    if (op == "sub") return a - b;
    if (op == "mul") return a * b;
    if (op == "div_safe") return a / (b.square() + 1);
    if (op == "maximum") return torch::maximum(a, b);
    if (op == "minimum") return torch::minimum(a, b);
    if (op == "add_alpha") return torch::add(a, b, 0.5);
    return a * 1.5 - 0.25;
  };
  const std::vector<torch::Dtype> dtypes = {torch::kFloat, torch::kDouble, torch::kBFloat16, torch::kHalf};
  int fused_graphs = 0, gradient_trials = 0;
  // 200 graphs; 50 in the sanitizer build (test_util.h: what it looks for, the paths find).
  const int trials = test::kSanitizerBuild ? 50 : 200;
  for (int trial = 0; trial < trials; ++trial) {
    const torch::Dtype dt = dtypes[pick(4)];
    const int ninputs = 1 + pick(3);
    const std::vector<int64_t> full = {1 + pick(5), 1 + pick(7), 2 + pick(9)};
    std::vector<std::vector<int64_t>> shapes;
    std::vector<bool> transposed;
    for (int i = 0; i < ninputs; ++i) {
      std::vector<int64_t> s = full;
      if (i > 0)
        for (auto& d : s)
          if (pick(3) == 0) d = 1;
      shapes.push_back(s);
      transposed.push_back(pick(3) == 0);
    }
    const RandomChain chain(pick, ninputs, unary, binary);
    const int nsteps = int(chain.steps.size());
    // 0: none; over the last dimension 1: a sum; 2: a mean keeping it; 3: amax; 4: var keeping it
    const int reduce = pick(5);
    auto program = [&](const TensorList& in) {
      const TensorList v = chain.run(in, apply_unary, apply_binary);
      const Tensor& b = v.back();
      const Tensor last = reduce == 0   ? b
                          : reduce == 1 ? b.sum(-1)
                          : reduce == 2 ? b.mean(-1, true)
                          : reduce == 3 ? b.amax(-1)
                                        : b.var(-1, /*unbiased=*/true, /*keepdim=*/true);
      return TensorList{last, v[ninputs + nsteps / 2]};
    };
    auto make_inputs = [&] {
      TensorList in;
      for (int i = 0; i < ninputs; ++i) {
        std::vector<int64_t> s = shapes[i];
        if (transposed[i]) std::swap(s[1], s[2]);
        Tensor t = torch::randn(s, torch::kDouble).to(dt);
        in.push_back(transposed[i] ? t.transpose(1, 2) : t);
      }
      return in;
    };
    auto traced = jit::trace(program, make_inputs());
    fused_graphs += fused_nodes(traced.fused_graph()) > 0 ? 1 : 0;
    const TensorList in = make_inputs();
    const TensorList got = traced.forward(in);
    TensorList want;
    if (dt == torch::kBFloat16 || dt == torch::kHalf) {
      TensorList wide;
      for (const Tensor& t : in) wide.push_back(t.to(torch::kFloat));
      for (const Tensor& t : program(wide)) want.push_back(t.to(dt));
    } else {
      want = program(in);
    }
    const double rtol = dt == torch::kDouble ? 1e-10 : dt == torch::kFloat ? 1e-4 : 2e-2;
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(tensors_close(got[i], want[i], rtol, rtol)) << "trial " << trial << ", " << dt << "\n" << traced.fused_graph().str();
    if (dt != torch::kDouble && dt != torch::kFloat) continue;
    // Gradients of every input (leaves under the transposes), through the fused backward.
    auto grads = [&](const std::function<TensorList(const TensorList&)>& f) {
      TensorList leaves, views;
      for (int i = 0; i < ninputs; ++i) {
        leaves.push_back((transposed[i] ? in[i].transpose(1, 2) : in[i]).detach().requires_grad_(true));
        views.push_back(transposed[i] ? leaves.back().transpose(1, 2) : leaves.back());
      }
      const TensorList out = f(views);
      Tensor loss = (out[0] * torch::linspace(-1, 1, std::max<int64_t>(out[0].numel(), 2), dt).narrow(0, 0, out[0].numel()).view_as(out[0])).sum() + out[1].sum();
      loss.backward();
      return grads_or_zeros(leaves);
    };
    const TensorList got_grads = grads([&](const TensorList& x) { return traced.forward(x); });
    const TensorList want_grads = grads(program);
    const double gtol = dt == torch::kDouble ? 1e-9 : 1e-3;
    for (int i = 0; i < ninputs; ++i)
      EXPECT_TRUE(tensors_close(got_grads[i], want_grads[i], gtol, gtol))
          << "trial " << trial << ", gradient of input " << i << ", " << dt << "\n" << traced.fused_graph().str();
    ++gradient_trials;
  }
  EXPECT_GT(fused_graphs, trials * 3 / 4);
  EXPECT_GT(gradient_trials, trials * 2 / 5);
  EXPECT_EQ(jit::stats().fused_fallbacks, 0);
  EXPECT_GT(jit::stats().fused_runs, trials * 3 / 4);
  EXPECT_GT(jit::stats().backward_graphs, trials * 2 / 5);
}

// Note [Kernel cache]: a second process loads from the disk cache what the first compiled (the
// child is this binary, running JitKernelCache.Child with EMBER_JIT_CACHE_CHILD set).
TEST(JitKernelCache, Child) {
  if (!std::getenv("EMBER_JIT_CACHE_CHILD")) GTEST_SKIP() << "run as a child by JitKernelCache.*Process*";
  jit::reset_stats();
  const Tensor w = torch::linspace(-1, 1, 24, torch::kDouble).requires_grad_();
  auto fn = [&](const TensorList& in) { return TensorList{(in[0] * w).cos().mul(in[0]).add(0.125).erf()}; };
  auto traced = jit::trace(fn, {torch::ones({24}, torch::kDouble)});
  const Tensor x = torch::linspace(0, 2, 24, torch::kDouble);
  const Tensor y = traced.forward(TensorList{x})[0];
  y.sum().backward();
  const jit::Stats s = jit::stats();
  std::printf("result %.17g %.17g compiled %lld loaded %lld\n", y.sum().item<double>(), w.grad().sum().item<double>(),
              (long long)s.kernels_compiled, (long long)s.kernels_loaded);
}

TEST(JitKernelCache, ASecondProcessLoadsWhatTheFirstCompiled) {
  TempDir dir;
  auto child = [&] {
    // Not a shard of the suite (make test runs this binary in GoogleTest shards): the whole filter.
    const std::string cmd = "env -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX EMBER_JIT_CACHE_CHILD=1 EMBER_JIT_CACHE_DIR=" +
                            (dir / "kernels") + " " +
                            std::filesystem::read_symlink("/proc/self/exe").string() +
                            " --gtest_filter=JitKernelCache.Child 2>&1";
    FILE* pipe = ::popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    EXPECT_EQ(::pclose(pipe), 0) << out;
    const size_t at = out.find("result ");
    EXPECT_NE(at, std::string::npos) << out;
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  auto field = [](const std::string& line, const std::string& key) {
    const size_t at = line.find(key + " ");
    return at == std::string::npos ? -1 : std::stoll(line.substr(at + key.size() + 1));
  };
  const std::string first = child();
  EXPECT_GE(field(first, "compiled"), 2) << first;  // the forward kernel and the backward's
  EXPECT_EQ(field(first, "loaded"), 0) << first;
  const std::string second = child();
  EXPECT_EQ(field(second, "compiled"), 0) << second;
  EXPECT_EQ(field(second, "loaded"), field(first, "compiled")) << second;
  EXPECT_EQ(second.substr(0, second.find(" compiled")), first.substr(0, first.find(" compiled")));  // same results
  // A damaged file is a miss: compiled again (and rewritten), never a crash or a wrong kernel.
  for (const auto& f : std::filesystem::directory_iterator(dir / "kernels")) std::filesystem::resize_file(f.path(), 100);
  const std::string damaged = child();
  EXPECT_EQ(field(damaged, "compiled"), field(first, "compiled")) << damaged;
  EXPECT_EQ(damaged.substr(0, damaged.find(" compiled")), first.substr(0, first.find(" compiled")));
  EXPECT_EQ(field(child(), "loaded"), field(first, "compiled"));
}

// Note [CUDA code generator]: every fused group's CUDA C++ compiles with NVRTC (no GPU needed),
// for PTX and for a CUDA binary, in every dtype and with every op the code generator knows.
TEST(JitCuda, NvrtcCompilesEveryGeneratedKernel) {
  if (!jit::detail::nvrtc_compile("extern \"C\" __global__ void k() {}", "k", "compute_90").available)
    GTEST_SKIP() << "NVRTC is not available in this build: the CUDA kernels' sources were not compiled";
  const std::vector<std::function<TensorList(const TensorList&)>> programs = {
      [](const TensorList& in) { return TensorList{gelu_chain(in[0]) * in[1]}; },
      [](const TensorList& in) { return TensorList{(in[0].exp() - in[1].sigmoid()).square().div(in[1].abs() + 1)}; },
      [](const TensorList& in) {
        return TensorList{torch::gelu(in[0]) + torch::silu(in[1]) - torch::leaky_relu(in[0], 0.25), in[0].gt(in[1])};
      },
      [](const TensorList& in) {
        return TensorList{torch::where(in[0].ne(in[1]), torch::maximum(in[0], in[1]), torch::minimum(in[0], in[1]).relu()) *
                          in[0].sign()};
      },
      [](const TensorList& in) {
        return TensorList{((in[0].abs() + 1).log() + (in[1].abs() + 1).rsqrt() + in[0].sin() * in[1].cos()).tanh().erf()};
      },
      [](const TensorList& in) { return TensorList{torch::pow(in[0].abs() + 0.5, in[1]) * torch::gelu(in[1], "tanh") + 1.0 / 0.0}; },
      [](const TensorList& in) {  // fused casts (Note [Fused casts]), conj and angle of real values
        const bool wide = in[0].scalar_type() == torch::kDouble;
        const Tensor r = wide ? in[0] * 2 : (in[0] * 2).to(torch::kBFloat16).to(torch::kHalf).to(torch::kFloat);
        return TensorList{(r + in[1].conj()).angle() + r};
      },
  };
  int compiled = 0;
  for (torch::Dtype dt : {torch::kFloat, torch::kDouble, torch::kHalf, torch::kBFloat16}) {
    for (size_t p = 0; p < programs.size(); ++p) {
      auto traced = jit::trace(programs[p], {torch::randn({4, 6}).to(dt), torch::randn({6}).to(dt)});
      const auto reports = jit::detail::compile_cuda_groups(traced.fused_graph(), "compute_90");
      EXPECT_FALSE(reports.empty()) << traced.fused_graph().str();
      for (const auto& r : reports) {
        EXPECT_NE(r.result.code.find(".entry ember_fused_test"), std::string::npos)
            << "program " << p << ", " << dt << ":\n" << r.result.log << "\n" << r.source;
        ++compiled;
      }
      if (p == 0) {  // a CUDA binary for the H100/H200 (sm_90)
        for (const auto& n : traced.fused_graph().nodes())
          if (n->fusion) {
            const auto cubin = jit::detail::nvrtc_compile(
                jit::detail::cuda_kernel_source(n->fusion->spec, "ember_fused_test"), "ember_fused_test", "sm_90");
            EXPECT_EQ(cubin.code.substr(0, 4), "\x7f" "ELF") << cubin.log;
          }
      }
    }
  }
  EXPECT_GE(compiled, 24);
}

// On a GPU: fused groups run their NVRTC kernels, forward and backward, as eager does.
TEST(JitCuda, FusedGroupsRunOnTheGpuLikeEager) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the fused CUDA kernels were not run";
  jit::reset_stats();
  const Tensor w = torch::randn({64}, torch::dtype(torch::kFloat).device(torch::kCUDA).requires_grad(true));
  auto fn = [&](const TensorList& in) { return TensorList{gelu_chain(in[0] * w + 1).square(), in[0].gt(0)}; };
  auto traced = jit::trace(fn, {torch::randn({8, 64}, torch::kCUDA)});
  EXPECT_EQ(fused_nodes(traced.fused_graph()), 1u) << traced.fused_graph().str();
  for (torch::Dtype dt : {torch::kFloat, torch::kBFloat16}) {
    const Tensor x = torch::randn({32, 64}, torch::kCUDA).to(dt).t().contiguous().t();  // [32, 64], transposed layout
    const Tensor xf = x.to(torch::kFloat);
    const TensorList got = traced.forward(TensorList{xf});
    got[0].sum().backward();
    const Tensor got_grad = w.grad().clone();
    w.mutable_grad() = Tensor();
    const TensorList want = fn({xf});
    want[0].sum().backward();
    EXPECT_TENSOR_CLOSE(got[0].cpu(), want[0].cpu(), 1e-5, 1e-5);
    EXPECT_TENSOR_EQ(got[1].cpu(), want[1].cpu());
    EXPECT_TENSOR_CLOSE(got_grad.cpu(), w.grad().cpu(), 1e-4, 1e-4);
    w.mutable_grad() = Tensor();
  }
  EXPECT_EQ(jit::stats().fused_fallbacks, 0) << jit::fusion_report(traced.fused_graph());
  EXPECT_GE(jit::stats().fused_runs, 4);
}

// examples/jit_digits_train.cpp trains the digits CNN, traces and saves it; examples/
// jit_digits_run.cpp, which has no model source, loads the file and predicts the same classes.
TEST(JitExample, ALoadedProgramPredictsLikeTheTrainedModel) {
#if !defined(EMBER_JIT_TRAIN_EXAMPLE) || !defined(EMBER_JIT_RUN_EXAMPLE)
  GTEST_SKIP() << "the jit_digits examples are not built in this build";
#else
  auto run = [](const std::string& cmd) {
    FILE* pipe = ::popen((cmd + " 2>&1").c_str(), "r");
    std::string out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    EXPECT_EQ(::pclose(pipe), 0) << cmd << "\n" << out;
    return out;
  };
  auto field = [](const std::string& out, const std::string& who, const std::string& key) {
    const size_t line = out.find(who + ": held-out accuracy");
    EXPECT_NE(line, std::string::npos) << out;
    const size_t at = out.find(key, line);
    if (line == std::string::npos || at == std::string::npos) return std::string();
    const size_t end = out.find_first_of(", \n", at + key.size());
    return out.substr(at + key.size(), end == std::string::npos ? std::string::npos : end - at - key.size());
  };
  TempDir dir;
  const std::string program = dir / "digits.ember";
  const std::string trained = run(std::string(EMBER_JIT_TRAIN_EXAMPLE) + " " + program);
  const std::string loaded = run(std::string(EMBER_JIT_RUN_EXAMPLE) + " " + program);
  const std::string checksum = field(trained, "eager", "checksum ");
  EXPECT_FALSE(checksum.empty()) << trained;
  EXPECT_EQ(field(trained, "traced", "checksum "), checksum) << trained;
  EXPECT_EQ(field(loaded, "loaded", "checksum "), checksum) << trained << loaded;
  EXPECT_GE(std::stod(field(loaded, "loaded", "accuracy ")), 0.85) << loaded;
#endif
}

TEST(JitTrace, EveryTracedOpHasARunner) {
  size_t pointwise = 0;
  for (const tracing::TracedOp* op : tracing::traced_ops()) {
    EXPECT_NE(op->run, nullptr) << op->name;
    pointwise += op->fusion == tracing::Fusion::Pointwise ? 1 : 0;
  }
  EXPECT_GT(pointwise, 100u);  // every row of the pointwise table
  for (const char* name : {"view", "reshape", "permute", "transpose", "expand", "select", "slice", "as_strided", "sum",
                           "mean", "softmax", "log_softmax", "matmul", "linear", "layer_norm", "dropout", "clone", "conv", "max_pool", "cat", "nll_loss", "detach"})
    EXPECT_NE(tracing::find_traced_op(name), nullptr) << name;
}

}  // namespace jit_test
}  // namespace ember::test
