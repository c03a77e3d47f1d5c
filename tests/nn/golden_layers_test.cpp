// ember's activations, layers, losses and initializers against PyTorch 1.13
// (tests/golden/gen_nn_layers.py writes tests/golden/nn_layers.safetensors; its header
// documents the keys). One generic routine runs a case: it loads the module's parameters
// and buffers, feeds the inputs, and compares the output, the gradients of sum(out * r)
// with respect to inputs and parameters, and the state after the call. The cases below
// only say what ember calls; every expected number comes from the golden file.
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "test_util.h"

namespace ember::test {
namespace {

namespace F = nn::functional;
using In = std::vector<Tensor>;
using Fn = std::function<Tensor(const In&)>;

const std::map<std::string, Tensor>& layers_golden() {
  static const auto f = serialize::load_file(std::string(EMBER_GOLDEN_DIR) + "/nn_layers.safetensors").tensors;
  return f;
}
Tensor golden(const std::string& key) {
  auto it = layers_golden().find(key);
  return it == layers_golden().end() ? Tensor() : it->second;
}

// What a case runs: `fn` on the inputs, with `module`'s state loaded from the golden file.
struct Setup {
  std::shared_ptr<nn::Module> module;
  Fn fn;
};
struct Case {
  std::string name;
  std::function<Setup()> make;
  double rtol = 0;  // when nonzero: a looser float64 tolerance, for a documented PyTorch quirk
};

Case fn(std::string name, Fn f) {
  return {std::move(name), [f] { return Setup{nullptr, f}; }};
}
// A module case: `make` returns a module holder whose forward takes the case's inputs.
template <class Make>
Case mod(std::string name, Make make) {
  return {std::move(name), [make] {
            auto m = make();
            return Setup{m.ptr(), [m](const In& x) mutable {
                           if constexpr (requires { m->forward(x[0], x[1]); }) return m->forward(x[0], x[1]);
                           else return m->forward(x[0]);
                         }};
          }};
}
Case renamed(Case c, std::string name) {
  c.name = std::move(name);
  return c;
}
Case with_rtol(Case c, double rtol) {
  c.rtol = rtol;
  return c;
}

// A loss case per reduction: <name>_none, <name>_mean, <name>_sum (and _batchmean if asked).
using LossFn = std::function<Tensor(const In&, Reduction)>;
void losses(std::vector<Case>& v, const std::string& name, const LossFn& f, bool batchmean = false) {
  std::vector<std::pair<std::string, Reduction>> rs = {{"none", kNone}, {"mean", kMean}, {"sum", kSum}};
  if (batchmean) rs.emplace_back("batchmean", kBatchMean);
  for (const auto& [tag, r] : rs) v.push_back(fn(name + "_" + tag, [f, r = r](const In& x) { return f(x, r); }));
}

::testing::AssertionResult close(const Tensor& actual, const Tensor& expected, double rtol = 0) {
  const bool f32 = expected.scalar_type() == kFloat;
  return tensors_close(actual, expected, f32 ? 1e-5 : rtol > 0 ? rtol : 1e-10, f32 ? 1e-6 : 1e-12);
}

// The generic check (see the file comment).
void check_case(const Case& c) {
  const std::string& name = c.name;
  const Tensor expected = golden(name + ".out");
  ASSERT_TRUE(expected.defined()) << "no golden case " << name;
  Setup s = c.make();
  if (s.module) {
    s.module->to(expected.scalar_type());
    std::set<std::string> want, have;
    for (const auto& [key, t] : layers_golden())
      if (key.starts_with(name + ".p.")) want.insert(key.substr(name.size() + 3));
    NoGradGuard g;
    for (const auto& p : s.module->named_parameters()) {
      have.insert(p.key());
      Tensor v = golden(name + ".p." + p.key());
      ASSERT_TRUE(v.defined()) << "PyTorch has no parameter " << p.key();
      Tensor(p.value()).copy_(v);
    }
    EXPECT_EQ(have, want) << "parameter names differ from PyTorch's";
    for (const auto& b : s.module->named_buffers()) {
      Tensor v = golden(name + ".b." + b.key());
      ASSERT_TRUE(v.defined()) << "PyTorch has no buffer " << b.key();
      Tensor(b.value()).copy_(v);
    }
  }
  In in;
  for (int i = 0; golden(name + ".in." + std::to_string(i)).defined(); ++i) {
    Tensor t = golden(name + ".in." + std::to_string(i)).clone();
    if (golden(name + ".gin." + std::to_string(i)).defined()) t.requires_grad_(true);
    in.push_back(t);
  }
  Tensor out = s.fn(in);
  EXPECT_TRUE(close(out, expected)) << "output";
  if (Tensor r = golden(name + ".r"); r.defined()) {
    ASSERT_TRUE(out.requires_grad());
    out.mul(r).sum().backward();
    for (size_t i = 0; i < in.size(); ++i)
      if (in[i].requires_grad()) EXPECT_TRUE(close(in[i].grad(), golden(name + ".gin." + std::to_string(i)), c.rtol))
            << "gradient of input " << i;
  }
  if (!s.module) return;
  for (const auto& p : s.module->named_parameters()) {
    if (Tensor gp = golden(name + ".gp." + p.key()); gp.defined())
      EXPECT_TRUE(close(p.value().grad(), gp)) << "gradient of parameter " << p.key();
    EXPECT_TRUE(close(p.value(), golden(name + ".a." + p.key()))) << "parameter " << p.key() << " after the call";
  }
  for (const auto& b : s.module->named_buffers())
    EXPECT_TRUE(tensors_close(b.value(), golden(name + ".a." + b.key()), 1e-10, 1e-12))
        << "buffer " << b.key() << " after the call";
}

// ---- the cases ----------------------------------------------------------------------------
std::vector<Case> layer_cases() {
  std::vector<Case> v = {
      mod("relu", [] { return nn::ReLU(); }),
      mod("sigmoid", [] { return nn::Sigmoid(); }),
      mod("tanh", [] { return nn::Tanh(); }),
      mod("gelu", [] { return nn::GELU(); }),
      mod("gelu_tanh", [] { return nn::GELU(nn::GELUOptions().approximate("tanh")); }),
      mod("silu", [] { return nn::SiLU(); }),
      mod("mish", [] { return nn::Mish(); }),
      mod("selu", [] { return nn::SELU(); }),
      mod("relu6", [] { return nn::ReLU6(); }),
      mod("hardswish", [] { return nn::Hardswish(); }),
      // PyTorch's derivative is float(1/6) = 1/6 * (1 + 3e-8), also in float64
      with_rtol(mod("hardsigmoid", [] { return nn::Hardsigmoid(); }), 1e-7),
      mod("softsign", [] { return nn::Softsign(); }),
      mod("elu", [] { return nn::ELU(); }),
      mod("elu_a05", [] { return nn::ELU(nn::ELUOptions().alpha(0.5)); }),
      mod("celu", [] { return nn::CELU(); }),
      mod("celu_a2", [] { return nn::CELU(nn::CELUOptions().alpha(2.0)); }),
      mod("leaky_relu", [] { return nn::LeakyReLU(); }),
      mod("leaky_relu_02", [] { return nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)); }),
      mod("leaky_relu_neg", [] { return nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(-0.5)); }),
      mod("hardtanh", [] { return nn::Hardtanh(); }),
      mod("hardtanh_m2_05", [] { return nn::Hardtanh(nn::HardtanhOptions().min_val(-2).max_val(0.5)); }),
      mod("softplus", [] { return nn::Softplus(); }),
      mod("softplus_b2_t5", [] { return nn::Softplus(nn::SoftplusOptions().beta(2).threshold(5)); }),
      mod("softplus_b05", [] { return nn::Softplus(nn::SoftplusOptions().beta(0.5)); }),
      mod("threshold", [] { return nn::Threshold(0.5, -2.0); }),
      mod("threshold_0_0", [] { return nn::Threshold(0.0, 0.0); }),
      mod("logsigmoid", [] { return nn::LogSigmoid(); }),
      mod("tanhshrink", [] { return nn::Tanhshrink(); }),
      mod("hardshrink", [] { return nn::Hardshrink(); }),
      mod("hardshrink_1", [] { return nn::Hardshrink(1.0); }),
      mod("softshrink", [] { return nn::Softshrink(); }),
      mod("softshrink_1", [] { return nn::Softshrink(nn::SoftshrinkOptions().lambda(1.0)); }),
      mod("softmax_large", [] { return nn::Softmax(1); }),
      mod("log_softmax_large", [] { return nn::LogSoftmax(-1); }),
      mod("softmax_f32", [] { return nn::Softmax(1); }),
      mod("log_softmax_f32", [] { return nn::LogSoftmax(2); }),
      mod("softmax2d_4d", [] { return nn::Softmax2d(); }),
      mod("softmax2d_3d", [] { return nn::Softmax2d(); }),
      mod("glu", [] { return nn::GLU(); }),
      mod("glu_dim1", [] { return nn::GLU(1); }),
      mod("prelu_1", [] { return nn::PReLU(); }),
      mod("prelu_c", [] { return nn::PReLU(nn::PReLUOptions().num_parameters(4)); }),
      mod("prelu_c_2d", [] { return nn::PReLU(nn::PReLUOptions().num_parameters(4)); }),
      mod("prelu_1_1d", [] { return nn::PReLU(); }),
      mod("prelu_c_f32", [] { return nn::PReLU(nn::PReLUOptions().num_parameters(4)); }),
      // layers
      mod("linear", [] { return nn::Linear(5, 3); }),
      mod("linear_nobias", [] { return nn::Linear(nn::LinearOptions(5, 3).bias(false)); }),
      mod("linear_3d", [] { return nn::Linear(5, 3); }),
      mod("linear_1d", [] { return nn::Linear(5, 3); }),
      mod("linear_f32", [] { return nn::Linear(5, 3); }),
      mod("bilinear", [] { return nn::Bilinear(4, 3, 2); }),
      mod("bilinear_nobias", [] { return nn::Bilinear(nn::BilinearOptions(4, 3, 2).bias(false)); }),
      mod("bilinear_3d", [] { return nn::Bilinear(4, 3, 2); }),
      mod("embedding", [] { return nn::Embedding(10, 4); }),
      mod("embedding_pad", [] { return nn::Embedding(nn::EmbeddingOptions(10, 4).padding_idx(2)); }),
      mod("embedding_pad_neg", [] { return nn::Embedding(nn::EmbeddingOptions(10, 4).padding_idx(-3)); }),
      mod("embedding_max_norm", [] { return nn::Embedding(nn::EmbeddingOptions(10, 4).max_norm(1.5)); }),
      mod("embedding_max_norm_p1",
          [] { return nn::Embedding(nn::EmbeddingOptions(10, 4).max_norm(2.0).norm_type(1.0)); }),
      mod("embedding_max_norm_pad",
          [] { return nn::Embedding(nn::EmbeddingOptions(10, 4).max_norm(1.0).padding_idx(3)); }),
      mod("layer_norm_2d", [] { return nn::LayerNorm(nn::LayerNormOptions({3, 4})); }),
      mod("layer_norm_noaffine", [] { return nn::LayerNorm(nn::LayerNormOptions({6}).elementwise_affine(false)); }),
      mod("layer_norm_eps", [] { return nn::LayerNorm(nn::LayerNormOptions({6}).eps(1e-3)); }),
      fn("layer_norm_fn", [](const In& x) { return F::layer_norm(x[0], {6}, x[1], x[2], 1e-4); }),
      mod("layer_norm_f32", [] { return nn::LayerNorm(nn::LayerNormOptions({6})); }),
      mod("batch_norm1d_2d", [] { return nn::BatchNorm1d(3); }),
      mod("batch_norm1d_3d", [] { return nn::BatchNorm1d(3); }),
      mod("batch_norm2d", [] { return nn::BatchNorm2d(3); }),
      mod("batch_norm2d_momentum", [] { return nn::BatchNorm2d(nn::BatchNormOptions(3).momentum(0.3).eps(1e-3)); }),
      mod("batch_norm2d_cumulative", [] { return nn::BatchNorm2d(nn::BatchNormOptions(3).momentum(std::nullopt)); }),
      mod("batch_norm2d_noaffine", [] { return nn::BatchNorm2d(nn::BatchNormOptions(3).affine(false)); }),
      mod("batch_norm2d_nostats",
          [] { return nn::BatchNorm2d(nn::BatchNormOptions(3).track_running_stats(false)); }),
      mod("batch_norm2d_eval", [] { nn::BatchNorm2d m(3); m->eval(); return m; }),
      mod("batch_norm1d_eval", [] { nn::BatchNorm1d m(3); m->eval(); return m; }),
      mod("batch_norm2d_f32", [] { return nn::BatchNorm2d(3); }),
      fn("normalize", [](const In& x) { return F::normalize(x[0]); }),
      fn("normalize_p1_last", [](const In& x) { return F::normalize(x[0], 1.0, -1); }),
      fn("normalize_p3_dim0", [](const In& x) { return F::normalize(x[0], 3.0, 0); }),
      fn("normalize_eps", [](const In& x) { return F::normalize(x[0], 2.0, 1, 0.5); }),
      fn("normalize_f32", [](const In& x) { return F::normalize(x[0]); }),
      fn("pairwise_distance", [](const In& x) { return F::pairwise_distance(x[0], x[1]); }),
      fn("pairwise_distance_p1", [](const In& x) { return F::pairwise_distance(x[0], x[1], 1.0); }),
      fn("pairwise_distance_p3_keepdim",
         [](const In& x) { return F::pairwise_distance(x[0], x[1], 3.0, 1e-6, /*keepdim=*/true); }),
      fn("pairwise_distance_inf", [](const In& x) { return F::pairwise_distance(x[0], x[1], INFINITY); }),
      fn("pairwise_distance_bcast_eps", [](const In& x) { return F::pairwise_distance(x[0], x[1], 2.0, 1e-2); }),
      fn("pairwise_distance_1d", [](const In& x) { return F::pairwise_distance(x[0], x[1]); }),
      fn("cosine_similarity", [](const In& x) { return F::cosine_similarity(x[0], x[1]); }),
      fn("cosine_similarity_dim0", [](const In& x) { return F::cosine_similarity(x[0], x[1], 0); }),
      fn("cosine_similarity_bcast", [](const In& x) { return F::cosine_similarity(x[0], x[1], -1); }),
      fn("cosine_similarity_f32", [](const In& x) { return F::cosine_similarity(x[0], x[1]); }),
  };
  for (const char* name : {"gelu", "elu", "softplus", "hardswish", "mish"})
    for (const Case& c : std::vector<Case>(v))
      if (c.name == name) v.push_back(renamed(c, c.name + "_f32"));
  for (int64_t d : {0, 1, 2, -1}) {
    const std::string tag = d < 0 ? "m" + std::to_string(-d) : std::to_string(d);
    v.push_back(mod("softmax_" + tag, [d] { return nn::Softmax(d); }));
    v.push_back(mod("log_softmax_" + tag, [d] { return nn::LogSoftmax(d); }));
    v.push_back(mod("softmin_" + tag, [d] { return nn::Softmin(d); }));
  }
  return v;
}

std::vector<Case> loss_cases() {
  std::vector<Case> v;
  losses(v, "l1", [](const In& x, Reduction r) { return nn::L1Loss(r)(x[0], x[1]); });
  losses(v, "mse", [](const In& x, Reduction r) { return nn::MSELoss(r)(x[0], x[1]); });
  losses(v, "smooth_l1", [](const In& x, Reduction r) { return nn::SmoothL1Loss(r)(x[0], x[1]); });
  losses(v, "smooth_l1_b05",
         [](const In& x, Reduction r) { return nn::SmoothL1Loss(nn::SmoothL1LossOptions(r).beta(0.5))(x[0], x[1]); });
  losses(v, "smooth_l1_b0",
         [](const In& x, Reduction r) { return nn::SmoothL1Loss(nn::SmoothL1LossOptions(r).beta(0))(x[0], x[1]); });
  losses(v, "huber", [](const In& x, Reduction r) { return nn::HuberLoss(r)(x[0], x[1]); });
  losses(v, "huber_d25",
         [](const In& x, Reduction r) { return nn::HuberLoss(nn::HuberLossOptions(r).delta(2.5))(x[0], x[1]); });
  v.push_back(fn("mse_f32_mean", [](const In& x) { return F::mse_loss(x[0], x[1]); }));

  // the class-weight inputs are x[2]
  using NO = nn::NLLLossOptions;
  losses(v, "nll", [](const In& x, Reduction r) { return nn::NLLLoss(NO().reduction(r))(x[0], x[1]); });
  losses(v, "nll_w", [](const In& x, Reduction r) { return nn::NLLLoss(NO().weight(x[2]).reduction(r))(x[0], x[1]); });
  losses(v, "nll_ignore",
         [](const In& x, Reduction r) { return nn::NLLLoss(NO().ignore_index(1).reduction(r))(x[0], x[1]); });
  losses(v, "nll_w_ignore", [](const In& x, Reduction r) {
    return nn::NLLLoss(NO().weight(x[2]).ignore_index(3).reduction(r))(x[0], x[1]);
  });
  losses(v, "nll_kdim",
         [](const In& x, Reduction r) { return nn::NLLLoss(NO().weight(x[2]).reduction(r))(x[0], x[1]); });
  losses(v, "nll_unbatched", [](const In& x, Reduction r) { return F::nll_loss(x[0], x[1], {}, -100, r); });
  losses(v, "nll_all_ignored",
         [](const In& x, Reduction r) { return nn::NLLLoss(NO().ignore_index(1).reduction(r))(x[0], x[1]); });

  using CO = nn::CrossEntropyLossOptions;
  auto ce = [](CO o) {
    return [o](const In& x, Reduction r) {
      CO opts = o;
      if (x.size() > 2) opts.weight(x[2]);
      return nn::CrossEntropyLoss(opts.reduction(r))(x[0], x[1]);
    };
  };
  losses(v, "ce", ce(CO()));
  losses(v, "ce_w", ce(CO()));
  losses(v, "ce_ignore", ce(CO().ignore_index(-1)));
  losses(v, "ce_ls", ce(CO().label_smoothing(0.2)));
  losses(v, "ce_w_ignore_ls", ce(CO().ignore_index(-1).label_smoothing(0.3)));
  losses(v, "ce_probs", ce(CO()));
  losses(v, "ce_probs_w_ls", ce(CO().label_smoothing(0.25)));
  losses(v, "ce_kdim", ce(CO().label_smoothing(0.1)));
  losses(v, "ce_kdim_probs", ce(CO()));
  losses(v, "ce_unbatched", ce(CO().label_smoothing(0.1)));
  losses(v, "ce_unbatched_probs", ce(CO()));
  v.push_back(fn("ce_f32_mean", [](const In& x) { return F::cross_entropy(x[0], x[1], x[2], -100, kMean, 0.1); }));

  auto bce = [](const In& x, Reduction r) {
    return nn::BCELoss(nn::BCELossOptions().weight(x.size() > 2 ? x[2] : Tensor()).reduction(r))(x[0], x[1]);
  };
  losses(v, "bce", bce);
  losses(v, "bce_soft", bce);
  losses(v, "bce_w", bce);
  losses(v, "bce_w_bcast", bce);
  using BO = nn::BCEWithLogitsLossOptions;
  losses(v, "bcel", [](const In& x, Reduction r) { return nn::BCEWithLogitsLoss(BO().reduction(r))(x[0], x[1]); });
  losses(v, "bcel_w",
         [](const In& x, Reduction r) { return nn::BCEWithLogitsLoss(BO().weight(x[2]).reduction(r))(x[0], x[1]); });
  losses(v, "bcel_pw", [](const In& x, Reduction r) {
    return nn::BCEWithLogitsLoss(BO().pos_weight(x[2]).reduction(r))(x[0], x[1]);
  });
  losses(v, "bcel_w_pw", [](const In& x, Reduction r) {
    return nn::BCEWithLogitsLoss(BO().weight(x[2]).pos_weight(x[3]).reduction(r))(x[0], x[1]);
  });

  losses(v, "kl_div", [](const In& x, Reduction r) { return nn::KLDivLoss(r)(x[0], x[1]); }, /*batchmean=*/true);
  losses(v, "kl_div_tgrad", [](const In& x, Reduction r) { return nn::KLDivLoss(r)(x[0], x[1]); });
  losses(v, "kl_div_log_target",
         [](const In& x, Reduction r) { return nn::KLDivLoss(nn::KLDivLossOptions(r).log_target(true))(x[0], x[1]); },
         /*batchmean=*/true);

  auto ranking = [](double margin) {
    return [margin](const In& x, Reduction r) {
      return nn::MarginRankingLoss(nn::MarginRankingLossOptions().margin(margin).reduction(r))(x[0], x[1], x[2]);
    };
  };
  losses(v, "margin_ranking", ranking(0));
  losses(v, "margin_ranking_m05", ranking(0.5));
  auto hinge = [](double margin) {
    return [margin](const In& x, Reduction r) {
      return nn::HingeEmbeddingLoss(nn::HingeEmbeddingLossOptions().margin(margin).reduction(r))(x[0], x[1]);
    };
  };
  losses(v, "hinge", hinge(1.0));
  losses(v, "hinge_m2", hinge(2.0));
  losses(v, "hinge_target0", hinge(1.0));
  auto cosine = [](double margin) {
    return [margin](const In& x, Reduction r) {
      return nn::CosineEmbeddingLoss(nn::CosineEmbeddingLossOptions().margin(margin).reduction(r))(x[0], x[1], x[2]);
    };
  };
  losses(v, "cosine_emb", cosine(0));
  losses(v, "cosine_emb_m03", cosine(0.3));
  losses(v, "cosine_emb_1d", cosine(0));
  using TO = nn::TripletMarginLossOptions;
  auto triplet = [](TO o) {
    return [o](const In& x, Reduction r) { return nn::TripletMarginLoss(TO(o).reduction(r))(x[0], x[1], x[2]); };
  };
  losses(v, "triplet", triplet(TO()));
  losses(v, "triplet_p1_m05", triplet(TO().margin(0.5).p(1)));
  losses(v, "triplet_swap", triplet(TO().margin(2.0).swap(true)));
  losses(v, "triplet_p3_eps", triplet(TO().margin(1.5).p(3).eps(1e-2)));
  v.push_back(fn("triplet_f32_mean", [](const In& x) { return F::triplet_margin_loss(x[0], x[1], x[2]); }));

  losses(v, "soft_margin", [](const In& x, Reduction r) { return nn::SoftMarginLoss(r)(x[0], x[1]); });
  auto mlsm = [](const In& x, Reduction r) {
    auto o = nn::MultiLabelSoftMarginLossOptions().weight(x.size() > 2 ? x[2] : Tensor()).reduction(r);
    return nn::MultiLabelSoftMarginLoss(o)(x[0], x[1]);
  };
  losses(v, "multilabel_soft_margin", mlsm);
  losses(v, "multilabel_soft_margin_w", mlsm);
  using MO = nn::MultiMarginLossOptions;
  losses(v, "multi_margin",
         [](const In& x, Reduction r) { return nn::MultiMarginLoss(MO().reduction(r))(x[0], x[1]); });
  losses(v, "multi_margin_p2_m05_w", [](const In& x, Reduction r) {
    return nn::MultiMarginLoss(MO().p(2).margin(0.5).weight(x[2]).reduction(r))(x[0], x[1]);
  });
  losses(v, "multi_margin_1d",
         [](const In& x, Reduction r) { return F::multi_margin_loss(x[0], x[1], 1, 1.0, {}, r); });
  losses(v, "multilabel_margin", [](const In& x, Reduction r) { return nn::MultiLabelMarginLoss(r)(x[0], x[1]); });
  losses(v, "multilabel_margin_1d", [](const In& x, Reduction r) { return F::multilabel_margin_loss(x[0], x[1], r); });
  using PO = nn::PoissonNLLLossOptions;
  losses(v, "poisson_nll", [](const In& x, Reduction r) { return nn::PoissonNLLLoss(PO().reduction(r))(x[0], x[1]); });
  losses(v, "poisson_nll_full",
         [](const In& x, Reduction r) { return nn::PoissonNLLLoss(PO().full(true).reduction(r))(x[0], x[1]); });
  losses(v, "poisson_nll_nolog", [](const In& x, Reduction r) {
    return nn::PoissonNLLLoss(PO().log_input(false).full(true).eps(1e-3).reduction(r))(x[0], x[1]);
  });
  using GO = nn::GaussianNLLLossOptions;
  auto gauss = [](GO o) {
    return [o](const In& x, Reduction r) { return nn::GaussianNLLLoss(GO(o).reduction(r))(x[0], x[1], x[2]); };
  };
  losses(v, "gaussian_nll", gauss(GO()));
  losses(v, "gaussian_nll_full_eps", gauss(GO().full(true).eps(0.3)));
  losses(v, "gaussian_nll_homo", gauss(GO()));
  losses(v, "gaussian_nll_homo1", gauss(GO()));
  return v;
}

std::vector<std::string> names(const std::vector<Case>& cases) {
  std::vector<std::string> n;
  for (const Case& c : cases) n.push_back(c.name);
  return n;
}
const Case& find(const std::vector<Case>& cases, const std::string& name) {
  for (const Case& c : cases)
    if (c.name == name) return c;
  throw std::runtime_error("no case " + name);
}
std::string param_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

}  // namespace

class GoldenLayers : public ::testing::TestWithParam<std::string> {};
TEST_P(GoldenLayers, MatchesPyTorch) {
  static const std::vector<Case> cases = layer_cases();
  check_case(find(cases, GetParam()));
}
INSTANTIATE_TEST_SUITE_P(PyTorch, GoldenLayers, ::testing::ValuesIn(names(layer_cases())), param_name);

class GoldenLoss : public ::testing::TestWithParam<std::string> {};
TEST_P(GoldenLoss, MatchesPyTorch) {
  static const std::vector<Case> cases = loss_cases();
  check_case(find(cases, GetParam()));
}
INSTANTIATE_TEST_SUITE_P(PyTorch, GoldenLoss, ::testing::ValuesIn(names(loss_cases())), param_name);

// Every case in the golden file is checked by one of the tables above.
TEST(GoldenLayersTable, CoversTheGoldenFile) {
  std::set<std::string> known;
  for (const auto& n : names(layer_cases())) EXPECT_TRUE(known.insert(n).second) << "duplicate case " << n;
  for (const auto& n : names(loss_cases())) EXPECT_TRUE(known.insert(n).second) << "duplicate case " << n;
  for (const auto& [key, t] : layers_golden())
    if (key.ends_with(".out")) EXPECT_TRUE(known.count(key.substr(0, key.size() - 4))) << "unchecked case " << key;
}

// ---- initialization ---------------------------------------------------------------------------
namespace {
using Init = std::function<Tensor()>;
using namespace nn::init;

Tensor d64(std::vector<int64_t> shape) { return empty(shape, dtype(kDouble)); }
const std::vector<int64_t> kShape = {64, 32, 3, 3};

// name -> ember's tensor, checked against init.<name>.{uniform,normal,trunc,exact,gram}.
std::vector<std::pair<std::string, Init>> init_cases() {
  auto param = [](auto make, const char* key) {
    return [make, key] { return make()->named_parameters()[key]; };
  };
  std::vector<std::pair<std::string, Init>> v = {
      {"linear_weight", param([] { return nn::Linear(300, 200); }, "weight")},
      {"linear_bias", param([] { return nn::Linear(300, 200); }, "bias")},
      {"linear_nobias_weight", param([] { return nn::Linear(nn::LinearOptions(7, 5000).bias(false)); }, "weight")},
      {"bilinear_weight", param([] { return nn::Bilinear(20, 30, 40); }, "weight")},
      {"bilinear_bias", param([] { return nn::Bilinear(20, 30, 40); }, "bias")},
      {"embedding_weight", param([] { return nn::Embedding(1000, 50); }, "weight")},
      {"conv2d_weight", param([] { return nn::Conv2d(nn::Conv2dOptions(16, 32, {3, 5})); }, "weight")},
      {"conv2d_bias", param([] { return nn::Conv2d(nn::Conv2dOptions(16, 32, {3, 5})); }, "bias")},
      {"conv2d_groups_weight", param([] { return nn::Conv2d(nn::Conv2dOptions(16, 32, 3).groups(4)); }, "weight")},
      {"conv2d_groups_bias", param([] { return nn::Conv2d(nn::Conv2dOptions(16, 32, 3).groups(4)); }, "bias")},
      {"layer_norm_weight", param([] { return nn::LayerNorm(nn::LayerNormOptions({3, 4})); }, "weight")},
      {"layer_norm_bias", param([] { return nn::LayerNorm(nn::LayerNormOptions({3, 4})); }, "bias")},
      {"prelu_weight", param([] { return nn::PReLU(nn::PReLUOptions().num_parameters(3)); }, "weight")},
      {"prelu_init_weight", param([] { return nn::PReLU(nn::PReLUOptions().num_parameters(2).init(0.1)); }, "weight")},
      {"batch_norm_weight", param([] { return nn::BatchNorm2d(5); }, "weight")},
      {"batch_norm_bias", param([] { return nn::BatchNorm2d(5); }, "bias")},
      {"uniform", [] { return uniform_(d64(kShape), -0.3, 0.7); }},
      {"normal", [] { return normal_(d64(kShape), 0.5, 2.0); }},
      {"xavier_uniform", [] { return xavier_uniform_(d64({300, 200})); }},
      {"xavier_uniform_gain", [] { return xavier_uniform_(d64(kShape), calculate_gain(kReLU)); }},
      {"xavier_normal", [] { return xavier_normal_(d64(kShape), 0.5); }},
      {"kaiming_uniform", [] { return kaiming_uniform_(d64(kShape)); }},
      {"kaiming_uniform_a", [] { return kaiming_uniform_(d64(kShape), std::sqrt(5.0)); }},
      {"kaiming_uniform_fan_out_relu", [] { return kaiming_uniform_(d64(kShape), 0, kFanOut, kReLU); }},
      {"kaiming_uniform_tanh", [] { return kaiming_uniform_(d64({300, 200}), 0, kFanIn, kTanh); }},
      {"kaiming_normal", [] { return kaiming_normal_(d64(kShape)); }},
      {"kaiming_normal_fan_out", [] { return kaiming_normal_(d64({300, 200}), 0.2, kFanOut); }},
      {"kaiming_normal_selu", [] { return kaiming_normal_(d64(kShape), 0, kFanIn, kSELU); }},
      {"kaiming_normal_linear", [] { return kaiming_normal_(d64(kShape), 0, kFanIn, kLinear); }},
      {"kaiming_normal_sigmoid", [] { return kaiming_normal_(d64({300, 200}), 0, kFanOut, kSigmoid); }},
      {"trunc_normal", [] { return trunc_normal_(d64({200, 300})); }},
      {"trunc_normal_shifted", [] { return trunc_normal_(d64({200, 300}), 0.5, 2.0, -1.0, 3.0); }},
      {"constant", [] { return constant_(randn({3, 4}, dtype(kDouble)), 0.3); }},
      {"zeros", [] { return zeros_(randn({3, 4}, dtype(kDouble))); }},
      {"ones", [] { return ones_(randn({3, 4}, dtype(kDouble))); }},
      {"eye", [] { return eye_(randn({3, 5}, dtype(kDouble))); }},
      {"eye_tall", [] { return eye_(randn({5, 3}, dtype(kDouble))); }},
      {"dirac_3d", [] { return dirac_(randn({4, 3, 5}, dtype(kDouble))); }},
      {"dirac_4d", [] { return dirac_(randn({3, 5, 3, 4}, dtype(kDouble))); }},
      {"dirac_5d", [] { return dirac_(randn({2, 2, 3, 2, 3}, dtype(kDouble))); }},
      {"orthogonal", [] { return orthogonal_(d64({6, 4})); }},
      {"orthogonal_wide", [] { return orthogonal_(d64({4, 6})); }},
      {"orthogonal_4d_gain", [] { return orthogonal_(d64({8, 3, 2, 2}), 2.0); }},
      {"orthogonal_wide_gain", [] { return orthogonal_(d64({3, 10}), 0.5); }},
  };
  return v;
}

// Sample mean/std against the distribution's, within 6 standard errors (deterministic seed).
void expect_moments(const Tensor& t, double mean, double std, double kurtosis) {
  const double n = double(t.numel());
  const double m = t.mean().item<double>(), s = t.std().item<double>();
  EXPECT_NEAR(m, mean, 6 * std / std::sqrt(n)) << "mean";
  EXPECT_NEAR(s / std, 1.0, 6 * std::sqrt((kurtosis - 1) / (4 * n))) << "std";
}

void check_init(const std::string& name, const Init& make) {
  manual_seed(7);
  const std::string key = "init." + name;
  const Tensor raw = make().detach();
  ASSERT_TRUE(raw.defined());
  const Tensor t = raw.to(kDouble).contiguous();
  if (Tensor u = golden(key + ".uniform"); u.defined()) {
    const double lo = u[0].item<double>(), hi = u[1].item<double>(), n = double(t.numel());
    EXPECT_GE(t.min().item<double>(), lo);
    EXPECT_LE(t.max().item<double>(), hi);
    // the extremes reach the bounds: P(min > lo + 20 (hi - lo) / n) < e^-20
    EXPECT_LT(t.min().item<double>(), lo + 20 * (hi - lo) / n);
    EXPECT_GT(t.max().item<double>(), hi - 20 * (hi - lo) / n);
    expect_moments(t, (lo + hi) / 2, (hi - lo) / std::sqrt(12.0), 1.8);
  } else if (Tensor g = golden(key + ".normal"); g.defined()) {
    expect_moments(t, g[0].item<double>(), g[1].item<double>(), 3.0);
  } else if (Tensor tr = golden(key + ".trunc"); tr.defined()) {
    EXPECT_GE(t.min().item<double>(), tr[2].item<double>());
    EXPECT_LE(t.max().item<double>(), tr[3].item<double>());
    expect_moments(t, tr[4].item<double>(), tr[5].item<double>(), 3.0);
  } else if (Tensor e = golden(key + ".exact"); e.defined()) {
    EXPECT_TENSOR_CLOSE(raw, e, 0, 0);
  } else if (Tensor gram = golden(key + ".gram"); gram.defined()) {
    // LibTorch's orthogonal_ factors a float32 matrix (torch::randn in the default dtype) whatever the
    // tensor's dtype, so Q is orthogonal to float precision (PyTorch's Python version uses the dtype).
    Tensor q = t.reshape({t.size(0), -1});
    EXPECT_TENSOR_CLOSE(q.size(0) >= q.size(1) ? q.t().matmul(q) : q.matmul(q.t()), gram, 1e-6, 1e-6);
  } else {
    FAIL() << "no golden entry for " << key;
  }
}
}  // namespace

class GoldenLayersInit : public ::testing::TestWithParam<std::string> {};
TEST_P(GoldenLayersInit, MatchesPyTorch) {
  for (const auto& [name, make] : init_cases())
    if (name == GetParam()) return check_init(name, make);
  FAIL() << "no init case " << GetParam();
}
INSTANTIATE_TEST_SUITE_P(PyTorch, GoldenLayersInit, ::testing::ValuesIn([] {
                           std::vector<std::string> n;
                           for (const auto& c : init_cases()) n.push_back(c.first);
                           return n;
                         }()),
                         param_name);

TEST(GoldenLayersInit, CoversTheGoldenFile) {
  std::set<std::string> known;
  for (const auto& c : init_cases()) known.insert(c.first);
  for (const auto& [key, t] : layers_golden())
    if (key.starts_with("init.")) {
      const std::string name = key.substr(5, key.rfind('.') - 5);
      EXPECT_TRUE(known.count(name)) << "unchecked " << key;
    }
}

TEST(GoldenLayersInit, CalculateGainAndFans) {
  using nn::init::Nonlinearity;
  const std::vector<std::tuple<std::string, Nonlinearity, double>> gains = {
      {"linear", Nonlinearity::Linear, 0.01},
      {"conv1d", Nonlinearity::Conv1D, 0.01},
      {"conv2d", Nonlinearity::Conv2D, 0.01},
      {"conv3d", Nonlinearity::Conv3D, 0.01},
      {"conv_transpose1d", Nonlinearity::ConvTranspose1D, 0.01},
      {"conv_transpose2d", Nonlinearity::ConvTranspose2D, 0.01},
      {"conv_transpose3d", Nonlinearity::ConvTranspose3D, 0.01},
      {"sigmoid", Nonlinearity::Sigmoid, 0.01},
      {"tanh", Nonlinearity::Tanh, 0.01},
      {"relu", Nonlinearity::ReLU, 0.01},
      {"leaky_relu", Nonlinearity::LeakyReLU, 0.01},
      {"leaky_relu_02", Nonlinearity::LeakyReLU, 0.2},
      {"selu", Nonlinearity::SELU, 0.01},
  };
  size_t checked = 0;
  for (const auto& [name, n, param] : gains) {
    Tensor g = golden("gain." + name);
    ASSERT_TRUE(g.defined()) << name;
    EXPECT_NEAR(nn::init::calculate_gain(n, param), g.item<double>(), 1e-15) << name;
    ++checked;
  }
  const std::map<std::string, std::vector<int64_t>> shapes = {
      {"2d", {5, 7}}, {"3d", {4, 6, 3}}, {"4d", {8, 3, 2, 5}}, {"5d", {2, 3, 4, 1, 2}}};
  for (const auto& [name, shape] : shapes) {
    Tensor f = golden("fan." + name);
    ASSERT_TRUE(f.defined()) << name;
    auto [in, out] = nn::init::_calculate_fan_in_and_fan_out(ember::empty(shape));
    EXPECT_EQ(in, f[0].item<int64_t>()) << name;
    EXPECT_EQ(out, f[1].item<int64_t>()) << name;
    ++checked;
  }
  size_t in_file = 0;
  for (const auto& [key, t] : layers_golden()) in_file += key.starts_with("gain.") || key.starts_with("fan.");
  EXPECT_EQ(checked, in_file);
}

}  // namespace ember::test

namespace ember::test {

// Dropout draws from a different generator than PyTorch's, so its PyTorch semantics are
// checked as properties: kept entries scaled by 1 / (1 - p) (the gradient alike), whole
// channels for Dropout2d, the identity in eval mode or for p = 0, zeros for p = 1.
TEST(GoldenLayersDropout, PyTorchSemantics) {
  manual_seed(3);
  for (double p : {0.2, 0.5}) {
    SCOPED_TRACE(p);
    Tensor x = rand({200, 50}, dtype(kDouble)).add(1).requires_grad_(true);
    nn::Dropout drop(p);
    Tensor y = drop(x);
    y.sum().backward();
    Tensor kept = y.ne(0);
    EXPECT_TENSOR_CLOSE(y, where(kept, x.detach().div(1 - p), zeros_like(y)), 1e-15, 0);
    EXPECT_TENSOR_CLOSE(x.grad(), kept.to(kDouble).div(1 - p), 1e-15, 0);
    const double n = double(x.numel()), dropped = 1 - kept.to(kDouble).mean().item<double>();
    EXPECT_NEAR(dropped, p, 6 * std::sqrt(p * (1 - p) / n));
    drop->eval();
    EXPECT_TENSOR_EQ(drop(x), x);

    nn::Dropout2d drop2d(p);
    Tensor x4 = rand({40, 30, 3, 4}, dtype(kDouble)).add(1);
    Tensor y4 = drop2d(x4), kept4 = y4.ne(0).to(kLong).sum({2, 3});
    EXPECT_TRUE(kept4.eq(0).logical_or(kept4.eq(12)).all().item<bool>()) << "channels dropped as a whole";
    EXPECT_TENSOR_CLOSE(y4, where(y4.ne(0), x4.div(1 - p), zeros_like(y4)), 1e-15, 0);
  }
  Tensor x = randn({4, 5}, dtype(kDouble));
  EXPECT_TENSOR_EQ(nn::functional::dropout(x, 0.0), x);
  EXPECT_TENSOR_EQ(nn::functional::dropout(x, 1.0), zeros_like(x));
  EXPECT_TENSOR_EQ(nn::functional::dropout(x, 0.5, /*training=*/false), x);
}

TEST(GoldenLossErrors, BatchMeanIsKLDivOnly) {
  Tensor x = randn({3, 4}, dtype(kDouble)), t = randn({3, 4}, dtype(kDouble));
  EXPECT_ERROR_WITH(nn::functional::mse_loss(x, t, kBatchMean), "kBatchMean is only supported by kl_div");
  EXPECT_ERROR_WITH(nn::functional::cross_entropy(x, zeros({3}, dtype(kLong)), {}, -100, kBatchMean),
                    "kBatchMean is only supported by kl_div");
  EXPECT_ERROR_WITH(nn::functional::multi_margin_loss(x, zeros({3}, dtype(kLong)), 3), "only p == 1 and p == 2");
  EXPECT_ERROR_WITH(nn::functional::gaussian_nll_loss(x, t, ones({4}, dtype(kDouble))), "var is of incorrect size");
  EXPECT_ERROR_WITH(nn::functional::glu(randn({3, 5}), -1), "Halving dimension must be even");
  EXPECT_ERROR_WITH(nn::Softmax2d()(randn({2, 3})), "expected input to be 3D or 4D");
}

}  // namespace ember::test
