// Normalization (ember/nn/{options,functional,modules}/normalization.h): batch norm (1-3d),
// group norm, instance norm and local response norm against PyTorch 1.13
// (tests/golden/gen_nn_pool_norm.py) in float32 and float64, values, running statistics and
// gradients; channels-last layouts; the modules' parameters, buffers, train/eval and unbatched
// inputs; gradcheck in both modes; error messages. Last, BatchNorm, LayerNorm, F::layer_norm and
// F::normalize against their definitions.
#include <torch/torch.h>

#include <cmath>

#include "pool_norm_golden.h"
#include "test_util.h"

namespace ember {
namespace {

namespace F = nn::functional;
using test::Json;
using test::last_format;

TEST(NormGolden, ValuesRunningStatsAndGradientsMatchPyTorch) {
  const test::PoolNormGolden& g = test::pool_norm_golden();
  int cases = 0;
  for (const auto& [name, text] : g.meta) {
    const Json a = Json::parse(text);
    const std::string op = a["op"].as_string();
    if (op.find("norm") == std::string::npos) continue;
    ++cases;
    for (ScalarType dt : {kFloat, kDouble}) {
      SCOPED_TRACE(name + " " + test::torch_name(dt));
      Tensor x = g.get(name, "x", dt), w = g.get(name, "w", dt), b = g.get(name, "b", dt);
      Tensor rm = g.get(name, "rm", dt), rv = g.get(name, "rv", dt);
      const bool cl = a["cl"].as_bool();
      if (cl) x = x.contiguous(last_format(x));
      std::vector<Tensor> inputs{x.requires_grad_()};
      if (w.defined()) inputs.push_back(w.requires_grad_()), inputs.push_back(b.requires_grad_());
      Tensor y;
      if (op == "batch_norm")
        y = F::batch_norm(x, rm, rv, w, b, a["training"].as_bool(), a["momentum"].as_double(), a["eps"].as_double());
      else if (op == "group_norm")
        y = group_norm(x, a["num_groups"].as_int(), w, b, a["eps"].as_double());
      else if (op == "instance_norm")
        y = instance_norm(x, w, b, rm, rv, a["use_input_stats"].as_bool(), a["momentum"].as_double(),
                          a["eps"].as_double());
      else
        y = F::local_response_norm(x, F::LocalResponseNormFuncOptions(a["size"].as_int())
                                          .alpha(a["alpha"].as_double())
                                          .beta(a["beta"].as_double())
                                          .k(a["k"].as_double()));
      EXPECT_TENSOR_CLOSE(y, g.get(name, "y", dt), 1e-5, 1e-5);
      if (cl) EXPECT_TRUE(y.is_contiguous(last_format(y))) << "channels-last in, channels-last out";
      if (g.get(name, "rm_out", dt).defined()) {
        EXPECT_TENSOR_CLOSE(rm, g.get(name, "rm_out", dt), 1e-6, 1e-6);
        EXPECT_TENSOR_CLOSE(rv, g.get(name, "rv_out", dt), 1e-5, 1e-5);
      }
      const auto grads = autograd::grad({y}, inputs, {g.get(name, "gy", dt)});
      const char* keys[] = {"gx", "gw", "gb"};
      for (size_t i = 0; i < grads.size(); ++i) EXPECT_TENSOR_CLOSE(grads[i], g.get(name, keys[i], dt), 2e-5, 2e-5);
    }
  }
  EXPECT_EQ(cases, 19);
}

TEST(Norm, Gradcheck) {
  manual_seed(3);
  autograd::GradcheckOptions o;
  o.check_forward_ad = true;
  auto r = [](IntArrayRef s) { return randn(s, kDouble).requires_grad_(); };
  const Tensor x = r({2, 4, 3, 2}), w = r({4}), b = r({4}), x5 = r({2, 4, 2, 2, 3});
  const std::vector<std::pair<const char*, autograd::Fn>> fns = {
      {"group_norm", [](const autograd::variable_list& v) { return autograd::variable_list{group_norm(v[0], 2, v[1], v[2])}; }},
      {"instance_norm",
       [](const autograd::variable_list& v) {
         return autograd::variable_list{instance_norm(v[0], v[1], v[2], {}, {}, true, 0.1, 1e-5)};
       }},
      {"instance_norm running",
       [](const autograd::variable_list& v) {
         const Tensor rm = full({4}, 0.2, kDouble), rv = full({4}, 1.5, kDouble);
         return autograd::variable_list{instance_norm(v[0], v[1], v[2], rm, rv, false, 0.1, 1e-5)};
       }},
      {"batch_norm", [](const autograd::variable_list& v) { return autograd::variable_list{F::batch_norm(v[0], {}, {}, v[1], v[2], true)}; }},
      {"local_response_norm",
       [](const autograd::variable_list& v) { return autograd::variable_list{F::local_response_norm(v[0], 3, 0.5, 0.75, 1.0)}; }},
  };
  for (const auto& [name, f] : fns) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(autograd::gradcheck(f, {x, w, b}, o));
    EXPECT_TRUE(autograd::gradcheck(f, {x5, w, b}, o));
  }
  EXPECT_TRUE(autograd::gradgradcheck(fns[0].second, {x, w, b}));
}

TEST(Norm, BatchNorm3dModule) {
  manual_seed(1);
  nn::BatchNorm3d bn(nn::BatchNorm3dOptions(3).momentum(0.3));
  const Tensor x = randn({2, 3, 2, 3, 4}).mul(2).add(1);
  const Tensor y = bn(x);
  const Tensor mean = x.mean({0, 2, 3, 4}), var = x.var({0, 2, 3, 4}, false);
  EXPECT_TENSOR_CLOSE(y, x.sub(mean.view({1, 3, 1, 1, 1})).div(var.add(1e-5).sqrt().view({1, 3, 1, 1, 1})), 1e-5, 1e-5);
  EXPECT_TENSOR_CLOSE(bn->running_mean, mean.mul(0.3), 1e-6, 1e-6);
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  bn->eval();
  EXPECT_TENSOR_CLOSE(bn(x), x.sub(bn->running_mean.view({1, 3, 1, 1, 1}))
                                 .div(bn->running_var.add(1e-5).sqrt().view({1, 3, 1, 1, 1})),
                      1e-5, 1e-5);
  EXPECT_TRUE(bn(x.contiguous(MemoryFormat::ChannelsLast3d)).is_contiguous(MemoryFormat::ChannelsLast3d));
  EXPECT_ERROR_WITH(bn(randn({2, 3, 4, 4})), "BatchNorm3d: expected 5D input (got 4D input)");
  std::ostringstream s;
  s << *bn;
  EXPECT_EQ(s.str(), "torch::nn::BatchNorm3d(3, eps=1e-05, momentum=0.3, affine=true, track_running_stats=true)");
}

TEST(Norm, InstanceNormModules) {
  manual_seed(2);
  nn::InstanceNorm2d plain(3);
  EXPECT_EQ(plain->parameters().size(), 0u);
  EXPECT_EQ(plain->buffers().size(), 0u);
  const Tensor x = randn({2, 3, 4, 5}).mul(3).add(2);
  const Tensor y = plain(x);
  EXPECT_TENSOR_CLOSE(y.mean({2, 3}), zeros({2, 3}), 1e-5, 1e-5);
  EXPECT_TENSOR_CLOSE(y.var({2, 3}, false), ones({2, 3}), 1e-3, 1e-3);
  EXPECT_TENSOR_CLOSE(plain(x[0]), y[0], 1e-6, 1e-6);  // unbatched
  EXPECT_TRUE(plain(x.contiguous(MemoryFormat::ChannelsLast)).is_contiguous(MemoryFormat::ChannelsLast));

  nn::InstanceNorm2d tracked(nn::InstanceNorm2dOptions(3).affine(true).track_running_stats(true).momentum(0.5));
  EXPECT_EQ(tracked->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(tracked->named_buffers().keys(),
            (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));
  (void)tracked(x);
  EXPECT_TENSOR_CLOSE(tracked->running_mean, x.mean({2, 3}).mean(0).mul(0.5), 1e-5, 1e-5);
  EXPECT_TENSOR_CLOSE(tracked->running_var, x.var({2, 3}, true).mean(0).mul(0.5).add(0.5), 1e-4, 1e-4);
  tracked->eval();  // the running statistics now
  EXPECT_TENSOR_CLOSE(tracked(x), x.sub(tracked->running_mean.view({1, 3, 1, 1}))
                                      .div(tracked->running_var.add(1e-5).sqrt().view({1, 3, 1, 1})),
                      1e-5, 1e-5);
  nn::InstanceNorm1d in1(nn::InstanceNorm1dOptions(4).affine(true));
  EXPECT_TENSOR_CLOSE(in1(randn({2, 4, 7}).mul(2)).mean(2), zeros({2, 4}), 1e-5, 1e-5);
  nn::InstanceNorm3d in3(2);
  EXPECT_EQ(in3(randn({2, 3, 3, 3})).sizes(), IntArrayRef({2, 3, 3, 3}));  // unbatched (C, D, H, W)
  EXPECT_ERROR_WITH(plain(randn({3, 4})), "InstanceNorm2d: expected 3D or 4D input (got 2D input)");
  EXPECT_ERROR_WITH(in1(randn({2, 3, 5})), "expected input's size at dim=1 to match num_features (4), but got: 3.");
  EXPECT_ERROR_WITH(instance_norm(x, {}, {}, {}, {}, false, 0.1, 1e-5),
                    "Expected running_mean and running_var to be defined when use_input_stats is false");
  EXPECT_TENSOR_CLOSE(F::instance_norm(x, F::InstanceNormFuncOptions().eps(1e-5)), y, 1e-6, 1e-6);
  std::ostringstream s;
  s << *plain;
  EXPECT_EQ(s.str(), "torch::nn::InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=false, track_running_stats=false)");
}

TEST(Norm, GroupNormAndLocalResponseNormModules) {
  manual_seed(4);
  nn::GroupNorm gn(nn::GroupNormOptions(2, 6).eps(1e-3));
  EXPECT_EQ(gn->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  const Tensor x = randn({3, 6, 4, 2});
  const Tensor y = gn(x);
  const Tensor xg = x.view({3, 2, -1});
  EXPECT_TENSOR_CLOSE(y, xg.sub(xg.mean(2, true)).div(xg.var(2, false, true).add(1e-3).sqrt()).view_as(x), 1e-5, 1e-5);
  EXPECT_TENSOR_CLOSE(F::group_norm(x, F::GroupNormFuncOptions(2).eps(1e-3)), y, 1e-6, 1e-6);
  EXPECT_TRUE(gn(x.contiguous(MemoryFormat::ChannelsLast)).is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_EQ(nn::GroupNorm(nn::GroupNormOptions(3, 6).affine(false))->parameters().size(), 0u);
  EXPECT_ERROR_WITH(nn::GroupNorm(4, 6), "num_channels must be divisible by num_groups");
  EXPECT_ERROR_WITH(group_norm(randn({2, 5, 3}), 2),
                    "Expected number of channels in input to be divisible by num_groups, but got input of shape "
                    "[2, 5, 3] and num_groups=2");
  EXPECT_ERROR_WITH(group_norm(randn({2, 4, 5}), 2, ones({3})),
                    "Expected weight to be a vector of size equal to the number of channels in input, but got weight "
                    "of shape [3] and input of shape [2, 4, 5]");
  EXPECT_ERROR_WITH(group_norm(randn({4}), 2), "Expected at least 2 dimensions for input tensor but received 1");

  nn::LocalResponseNorm lrn(nn::LocalResponseNormOptions(3).alpha(0.2).k(2));
  // the definition, channel by channel
  const Tensor sq = x.square();
  for (int64_t c = 0; c < 6; ++c) {
    const int64_t lo = std::max<int64_t>(0, c - 1), hi = std::min<int64_t>(5, c + 1);
    const Tensor div = sq.narrow(1, lo, hi - lo + 1).sum(1).mul(0.2 / 3).add(2).pow(0.75);
    EXPECT_TENSOR_CLOSE(lrn(x).select(1, c), x.select(1, c).div(div), 1e-6, 1e-6);
  }
  EXPECT_TRUE(lrn(x.contiguous(MemoryFormat::ChannelsLast)).is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_ERROR_WITH(lrn(randn({2, 3})), "Expected 3D or higher dimensionality input (got 2 dimensions)");
  std::ostringstream s;
  s << *gn << " " << *lrn;
  EXPECT_EQ(s.str(), "torch::nn::GroupNorm(2, 6, eps=0.001, affine=true) "
                     "torch::nn::LocalResponseNorm(3, alpha=0.2, beta=0.75, k=2)");
}

}  // namespace
}  // namespace ember

namespace ember {
// Inference batch norm (running statistics, no autograd) runs in one pass with the factors in
// float: every dtype and layout against a float64 reference; reduced precision is within one
// rounding of the output (a bfloat16 scale would add its own rounding on top), and the layout
// is kept.
TEST(Norm, InferenceBatchNormMatchesFloat64InEveryLayout) {
  manual_seed(3);
  for (ScalarType dt : {kFloat, kDouble, kBFloat16, kHalf}) {
    for (int layout = 0; layout < 4; ++layout) {
      std::vector<int64_t> shape = layout == 2 ? std::vector<int64_t>{4, 37} : layout == 3 ? std::vector<int64_t>{2, 5, 3, 4, 6}
                                                                              : std::vector<int64_t>{3, 70, 9, 11};
      const int64_t C = shape[1];
      Tensor x = randn(shape, TensorOptions().dtype(kDouble)).mul(3).add(1);
      Tensor mean = randn({C}, TensorOptions().dtype(kDouble)), var = rand({C}, TensorOptions().dtype(kDouble)).add(0.1);
      Tensor w = randn({C}, TensorOptions().dtype(kDouble)), b = randn({C}, TensorOptions().dtype(kDouble));
      // The reference sees the same (rounded) inputs and parameters, in float64.
      auto round = [&](const Tensor& t) { return t.to(dt).to(kDouble); };
      x = round(x), mean = round(mean), var = round(var), w = round(w), b = round(b);
      std::vector<int64_t> cs(shape.size(), 1);
      cs[1] = C;
      Tensor ref = (x - mean.reshape(cs)) / (var.reshape(cs) + 1e-5).sqrt() * w.reshape(cs) + b.reshape(cs);
      Tensor xin = x.to(dt);
      if (layout == 1) xin = xin.contiguous(MemoryFormat::ChannelsLast);
      if (layout == 3) xin = xin.contiguous(MemoryFormat::ChannelsLast3d);
      Tensor y = nn::functional::batch_norm(xin, mean.to(dt), var.to(dt), w.to(dt), b.to(dt), /*training=*/false, 0.1,
                                            1e-5);
      ASSERT_EQ(y.scalar_type(), dt);
      if (layout == 1) EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast));
      if (layout == 3) EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast3d));
      // Allowed: float rounding of the computation plus one rounding of the output.
      double ulp = dt == kBFloat16 ? 1.0 / 256 : dt == kHalf ? 1.0 / 2048 : dt == kFloat ? 1e-6 : 1e-12;
      Tensor err = (y.to(kDouble) - ref).abs() - ref.abs() * ulp;
      EXPECT_LE(err.max().item<double>(), 1e-5 + (dt == kDouble ? 0 : 1e-4)) << dt << " layout " << layout;
    }
  }
  // With autograd the composite runs and gradients flow.
  Tensor x = randn({2, 3, 4, 4}).requires_grad_();
  Tensor y = nn::functional::batch_norm(x, zeros({3}), ones({3}), Tensor(), Tensor(), false, 0.1, 1e-5);
  y.sum().backward();
  EXPECT_TRUE(x.grad().defined());
}
}  // namespace ember

// ---- against their definitions (naive formulas in double) -------------------------------------
namespace {

namespace F = torch::nn::functional;
using ember::test::tensors_close;

TEST(BatchNorm, TrainingEvalAndRunningStats) {
  torch::manual_seed(0);
  torch::nn::BatchNorm2d bn(torch::nn::BatchNormOptions(3).momentum(0.2));
  bn->to(torch::kDouble);
  torch::Tensor x = torch::randn({4, 3, 5, 2}, torch::kDouble) * 2 + 1;
  torch::Tensor y = bn(x);
  torch::Tensor mean = x.mean({0, 2, 3}), var = x.var({0, 2, 3}, false);
  EXPECT_TRUE(tensors_close(y, (x - mean.view({1, 3, 1, 1})) / (var.view({1, 3, 1, 1}) + 1e-5).sqrt(), 1e-10, 1e-10));
  EXPECT_TRUE(tensors_close(bn->running_mean, mean * 0.2, 1e-12, 1e-12));
  EXPECT_TRUE(tensors_close(bn->running_var, torch::ones({3}, torch::kDouble) * 0.8 + x.var({0, 2, 3}, true) * 0.2,
                            1e-12, 1e-12));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  bn->eval();
  torch::Tensor z = bn(x);
  EXPECT_TRUE(tensors_close(z, (x - bn->running_mean.view({1, 3, 1, 1})) /
                                   (bn->running_var.view({1, 3, 1, 1}) + 1e-5).sqrt(), 1e-10, 1e-10));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);  // eval does not track
  EXPECT_EQ(bn->named_buffers().keys(), (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));
  EXPECT_ERROR_WITH(bn(torch::randn({2, 3}, torch::kDouble)), "expected 4D input");
  torch::nn::BatchNorm1d bn1(torch::nn::BatchNormOptions(2).affine(false).track_running_stats(false));
  EXPECT_EQ(bn1->parameters().size(), 0u);
  torch::Tensor a = torch::randn({6, 2});
  EXPECT_TRUE(tensors_close(bn1(a).mean(0), torch::zeros({2}), 1e-5, 1e-5));
  // gradients of training-mode batch norm
  torch::Tensor xi = torch::randn({3, 2, 2}, torch::dtype(torch::kDouble).requires_grad(true));
  torch::Tensor w = torch::randn({2}, torch::dtype(torch::kDouble).requires_grad(true));
  auto f = [&](const std::vector<torch::Tensor>& v) {
    return std::vector<torch::Tensor>{F::batch_norm(v[0], {}, {}, v[1], {}, true)};
  };
  EXPECT_TRUE(torch::autograd::gradcheck(f, {xi, w}));
}

TEST(Layers, LayerNormMatchesItsFormula) {
  torch::manual_seed(2);
  torch::Tensor x = torch::randn({3, 4, 5}, torch::kDouble);
  torch::nn::LayerNorm ln(torch::nn::LayerNormOptions({4, 5}));
  ln->to(torch::kDouble);
  torch::Tensor mean = x.mean({1, 2}, true), var = x.var({1, 2}, false, true);
  EXPECT_TRUE(tensors_close(ln(x), (x - mean) / (var + 1e-5).sqrt(), 1e-10, 1e-10));
  EXPECT_EQ(ln->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  torch::Tensor w = torch::randn({5}, torch::dtype(torch::kDouble).requires_grad(true));
  torch::Tensor b = torch::randn({5}, torch::dtype(torch::kDouble).requires_grad(true));
  torch::Tensor xi = x.clone().requires_grad_();
  auto f = [](const std::vector<torch::Tensor>& v) {
    return std::vector<torch::Tensor>{F::layer_norm(v[0], {5}, v[1], v[2])};
  };
  EXPECT_TRUE(torch::autograd::gradcheck(f, {xi, w, b}));
  EXPECT_ERROR_WITH(F::layer_norm(x, {4}), "expected input with shape");
  torch::Tensor n = F::normalize(x, 2.0, 1);
  EXPECT_TRUE(tensors_close(n.norm(2, {1}), torch::ones({3, 5}, torch::kDouble)));
}

}  // namespace
