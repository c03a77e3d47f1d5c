// Pooling (ember/nn/{options,functional,modules}/pooling.h): values, indices and gradients
// against PyTorch 1.13 (tests/golden/gen_nn_pool_norm.py) on the oneDNN path (float32,
// bfloat16) and the composite (float64); channels-last layouts; second-order and forward-mode
// derivatives of the oneDNN path against the composite; gradcheck in both modes; modules and
// options; error messages. Last, 2-D max and average pooling against their definitions (naive
// loops in double).
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <numeric>

#include "pool_norm_golden.h"
#include "test_util.h"

namespace ember {
namespace {

namespace F = nn::functional;
using test::Json;
using test::ints;
using test::last_format;

std::vector<std::optional<int64_t>> opt_ints(const Json& j) {
  std::vector<std::optional<int64_t>> v;
  for (const Json& e : j.items()) v.push_back(e.is_null() ? std::nullopt : std::optional<int64_t>(e.as_int()));
  return v;
}

// Runs a pooling case's op: {y, indices (max pooling), y of the path without indices}.
std::vector<Tensor> run_pool(const std::string& op, const Json& a, const Tensor& x, const Tensor& idx) {
  const int d = op.back() == 'd' ? op[op.size() - 2] - '0' : 0;
  const auto k = ints(a["kernel"]), s = ints(a["stride"]), p = ints(a["padding"]);
  if (op.rfind("max_pool", 0) == 0) {
    const auto dil = ints(a["dilation"]);
    const bool ceil = a["ceil_mode"].as_bool();
    auto fns = std::make_tuple(&max_pool1d_with_indices, &max_pool2d_with_indices, &max_pool3d_with_indices);
    auto plain = std::make_tuple(&max_pool1d, &max_pool2d, &max_pool3d);
    std::tuple<Tensor, Tensor> r;
    Tensor fast;
    if (d == 1) r = std::get<0>(fns)(x, k, s, p, dil, ceil), fast = std::get<0>(plain)(x, k, s, p, dil, ceil);
    if (d == 2) r = std::get<1>(fns)(x, k, s, p, dil, ceil), fast = std::get<1>(plain)(x, k, s, p, dil, ceil);
    if (d == 3) r = std::get<2>(fns)(x, k, s, p, dil, ceil), fast = std::get<2>(plain)(x, k, s, p, dil, ceil);
    return {std::get<0>(r), std::get<1>(r), fast};
  }
  if (op.rfind("avg_pool", 0) == 0) {
    const bool ceil = a["ceil_mode"].as_bool(), inc = a["count_include_pad"].as_bool();
    const std::optional<int64_t> div =
        a["divisor_override"].is_null() ? std::nullopt : std::optional<int64_t>(a["divisor_override"].as_int());
    if (d == 1) return {avg_pool1d(x, k, s, p, ceil, inc)};
    if (d == 2) return {avg_pool2d(x, k, s, p, ceil, inc, div)};
    return {avg_pool3d(x, k, s, p, ceil, inc, div)};
  }
  if (op.rfind("adaptive_avg", 0) == 0) {
    const auto o = opt_ints(a["output_size"]);
    if (d == 1) return {F::adaptive_avg_pool1d(x, F::AdaptiveAvgPool1dFuncOptions(*o[0]))};
    if (d == 2) return {F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(o))};
    return {F::adaptive_avg_pool3d(x, F::AdaptiveAvgPool3dFuncOptions(o))};
  }
  if (op.rfind("adaptive_max", 0) == 0) {
    const auto o = opt_ints(a["output_size"]);
    std::tuple<Tensor, Tensor> r;
    Tensor fast;
    if (d == 1) {
      r = F::adaptive_max_pool1d_with_indices(x, F::AdaptiveMaxPool1dFuncOptions(*o[0]));
      fast = F::adaptive_max_pool1d(x, F::AdaptiveMaxPool1dFuncOptions(*o[0]));
    } else if (d == 2) {
      r = F::adaptive_max_pool2d_with_indices(x, F::AdaptiveMaxPool2dFuncOptions(o));
      fast = F::adaptive_max_pool2d(x, F::AdaptiveMaxPool2dFuncOptions(o));
    } else {
      r = F::adaptive_max_pool3d_with_indices(x, F::AdaptiveMaxPool3dFuncOptions(o));
      fast = F::adaptive_max_pool3d(x, F::AdaptiveMaxPool3dFuncOptions(o));
    }
    return {std::get<0>(r), std::get<1>(r), fast};
  }
  if (op.rfind("lp_pool", 0) == 0) {
    const double norm = a["norm_type"].as_double();
    const bool ceil = a["ceil_mode"].as_bool();
    if (d == 1) {
      F::LPPool1dFuncOptions o(norm, k);
      if (!s.empty()) o.stride(s);
      return {F::lp_pool1d(x, o.ceil_mode(ceil))};
    }
    F::LPPool2dFuncOptions o(norm, k);
    if (!s.empty()) o.stride(s);
    return {F::lp_pool2d(x, o.ceil_mode(ceil))};
  }
  if (op.rfind("max_unpool", 0) == 0) {
    std::optional<std::vector<int64_t>> size;
    if (!a["output_size"].is_null()) size = ints(a["output_size"]);
    if (d == 1) return {F::max_unpool1d(x, idx, F::MaxUnpool1dFuncOptions(k).stride(s).padding(p).output_size(size))};
    if (d == 2) return {F::max_unpool2d(x, idx, F::MaxUnpool2dFuncOptions(k).stride(s).padding(p).output_size(size))};
    return {F::max_unpool3d(x, idx, F::MaxUnpool3dFuncOptions(k).stride(s).padding(p).output_size(size))};
  }
  ADD_FAILURE() << "unknown op " << op;
  return {};
}

bool is_pool(const std::string& op) { return op.find("pool") != std::string::npos; }

TEST(PoolGolden, ValuesIndicesAndGradientsMatchPyTorch) {
  const test::PoolNormGolden& g = test::pool_norm_golden();
  int cases = 0;
  for (const auto& [name, text] : g.meta) {
    const Json a = Json::parse(text);
    const std::string op = a["op"].as_string();
    if (!is_pool(op)) continue;
    ++cases;
    const bool cl = a["cl"].as_bool();
    const bool maxlike = op.rfind("max_pool", 0) == 0 || op.rfind("adaptive_max", 0) == 0;
    // float32 and bfloat16 run on oneDNN where it applies, float64 on the composite
    for (ScalarType dt : {kFloat, kDouble, kBFloat16}) try {
      SCOPED_TRACE(name + " " + test::torch_name(dt));
      const double tol = dt == kBFloat16 ? 3e-2 : 1e-5;
      Tensor x = g.at(name, "x").to(dt);
      if (cl) x = x.contiguous(last_format(x));
      x.requires_grad_();
      const Tensor idx_in = g.has(name, "idx") && op.rfind("max_unpool", 0) == 0 ? g.at(name, "idx") : Tensor();
      const std::vector<Tensor> r = run_pool(op, a, x, idx_in);
      const Tensor& y = r[0];
      if (dt == kBFloat16 && !maxlike) {
        // rounding of bf16 inputs moves averages; compare with float32 on the rounded input
        EXPECT_TENSOR_CLOSE(y.to(kFloat), run_pool(op, a, x.detach().to(kFloat), idx_in)[0], 1e-2, 1e-2);
      } else {
        EXPECT_TENSOR_CLOSE(y.to(kFloat), g.at(name, "y").to(dt).to(kFloat), tol, tol);
      }
      if (cl) EXPECT_TRUE(y.is_contiguous(last_format(y))) << "channels-last in, channels-last out";
      if (maxlike) {
        if (dt != kBFloat16) EXPECT_TENSOR_EQ(r[1], g.at(name, "idx"));
        EXPECT_TENSOR_EQ(r[2], y);  // the path without indices (oneDNN) gives the same values
        if (cl) EXPECT_TRUE(r[1].is_contiguous(last_format(r[1])));
      }
      {
        NoGradGuard ng;  // the inference path
        EXPECT_TENSOR_EQ(run_pool(op, a, x.detach(), idx_in).back(), r.back());
      }
      const Tensor gy = g.at(name, "gy").to(dt);
      for (size_t i = 0; i < (maxlike ? 2u : 1u); ++i) {  // both max paths: oneDNN (r[2]) and gather (r[0])
        const Tensor gx = autograd::grad({maxlike && i == 0 ? r[2] : r[0]}, {x}, {gy}, true)[0];
        if (cl) EXPECT_TRUE(gx.is_contiguous(last_format(gx))) << "the gradient keeps the layout";
        if (dt != kBFloat16) {
          EXPECT_TENSOR_CLOSE(gx.to(kFloat), g.at(name, "gx").to(dt).to(kFloat), tol, tol);
        } else if (maxlike) {
          // bf16 rounding makes ties, so ember's indices may pick another input than PyTorch's
          // float ones: they must select a maximum, and each output's gradient lands there.
          const int64_t sd = op[op.size() - 2] - '0';  // spatial dims: max_pool2d -> 2
          const Tensor xs = x.detach().to(kFloat).contiguous().flatten(-sd);
          const Tensor is = r[1].contiguous().flatten(-sd);
          EXPECT_TENSOR_EQ(xs.gather(-1, is), y.detach().to(kFloat).contiguous().flatten(-sd));
          const Tensor expect = zeros_like(xs).scatter_add(-1, is, gy.to(kFloat).contiguous().flatten(-sd));
          EXPECT_TENSOR_CLOSE(gx.to(kFloat).contiguous().flatten(-sd), expect, 2e-2, 2e-2);
        } else {  // against float32 on the rounded input
          const Tensor xf = x.detach().to(kFloat).requires_grad_();
          const Tensor gxf = autograd::grad({run_pool(op, a, xf, idx_in)[0]}, {xf}, {gy.to(kFloat)})[0];
          EXPECT_TENSOR_CLOSE(gx.to(kFloat), gxf, 2e-2, 2e-2);
        }
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << " " << test::torch_name(dt) << ": " << e.what();
    }
  }
  EXPECT_EQ(cases, 52);
}

// ---- second order and forward mode of the oneDNN path ----------------------------------------

// (pool(x), d/dg <v, d pool(x)/dx ^T g>, tangent of pool at x in direction v) in dtype t.
std::vector<Tensor> derivatives(const std::function<Tensor(const Tensor&)>& pool, const Tensor& x64,
                                const Tensor& v64, ScalarType t, bool last) {
  auto prep = [&](const Tensor& a) { return last ? a.to(t).contiguous(MemoryFormat::ChannelsLast) : a.to(t); };
  Tensor x = prep(x64).requires_grad_();
  const Tensor y = pool(x);
  Tensor g = ones_like(y).mul(0.5).requires_grad_();
  const Tensor gx = autograd::grad({y}, {x}, {g}, true, true)[0];
  const Tensor gg = autograd::grad({gx.mul(prep(v64)).sum()}, {g})[0];
  autograd::forward_ad::dual_level level;
  const Tensor dual = autograd::forward_ad::make_dual(prep(x64), prep(v64));
  const Tensor tangent = autograd::forward_ad::unpack_dual(pool(dual)).tangent;
  return {y.detach(), gg, tangent};
}

TEST(PoolDnnl, SecondOrderAndForwardModeMatchTheComposite) {
  manual_seed(5);
  const Tensor x64 = randn({2, 3, 9, 8}, kDouble), v64 = randn({2, 3, 9, 8}, kDouble);
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> pools = {
      {"max", [](const Tensor& x) { return max_pool2d(x, {3, 3}, {2, 2}, {1, 1}); }},
      {"max dilated ceil", [](const Tensor& x) { return max_pool2d(x, {2, 3}, {2, 1}, {1, 1}, {2, 1}, true); }},
      {"avg", [](const Tensor& x) { return avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}); }},
      {"avg exclude", [](const Tensor& x) { return avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, false, false); }},
      {"avg include ceil", [](const Tensor& x) { return avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, true, true); }},
      {"avg divisor", [](const Tensor& x) { return avg_pool2d(x, {2, 2}, {1, 2}, {1, 0}, false, true, 3); }},
      {"adaptive avg", [](const Tensor& x) { return adaptive_avg_pool2d(x, {3, 4}); }},
      {"adaptive max", [](const Tensor& x) { return F::adaptive_max_pool2d(x, F::AdaptiveMaxPool2dFuncOptions(3)); }},
  };
  for (const auto& [name, pool] : pools)
    for (bool last : {false, true}) {
      SCOPED_TRACE(std::string(name) + (last ? " channels-last" : ""));
      const auto f = derivatives(pool, x64, v64, kFloat, last), d = derivatives(pool, x64, v64, kDouble, false);
      for (size_t i = 0; i < 3; ++i) EXPECT_TENSOR_CLOSE(f[i].to(kDouble), d[i], 1e-5, 1e-5);
    }
}

// ---- gradcheck (float64, composite) ----------------------------------------------------------

TEST(PoolGradcheck, ReverseAndForwardMode) {
  manual_seed(2);
  autograd::GradcheckOptions o;
  o.check_forward_ad = true;
  // distinct values so that small steps do not move a maximum
  auto input = [](IntArrayRef shape) {
    return randperm(std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>()), kDouble)
        .div(7)
        .view(shape)
        .requires_grad_();
  };
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> fns = {
      {"max1d", [](const Tensor& x) { return max_pool1d(x, 3, 2, 1, 2, true); }},
      {"max2d indices", [](const Tensor& x) { return std::get<0>(max_pool2d_with_indices(x, {2, 3}, {1, 2}, 1)); }},
      {"max3d", [](const Tensor& x) { return max_pool3d(x, 2, 1, 1); }},
      {"avg1d exclude ceil", [](const Tensor& x) { return avg_pool1d(x, 3, 2, 1, true, false); }},
      {"avg2d include ceil", [](const Tensor& x) { return avg_pool2d(x, 3, 2, 1, true, true); }},
      {"avg3d divisor", [](const Tensor& x) { return avg_pool3d(x, 2, 1, 1, false, true, 3); }},
      {"adaptive avg2d", [](const Tensor& x) { return adaptive_avg_pool2d(x, {2, 3}); }},
      {"adaptive avg1d", [](const Tensor& x) { return adaptive_avg_pool1d(x, 3); }},
      {"adaptive max2d", [](const Tensor& x) { return std::get<0>(adaptive_max_pool2d(x, {3, 2})); }},
      {"adaptive max3d", [](const Tensor& x) { return std::get<0>(adaptive_max_pool3d(x, 2)); }},
      {"lp2d", [](const Tensor& x) { return F::lp_pool2d(x.abs().add(0.5), F::LPPool2dFuncOptions(2.5, 2)); }},
      {"lp1d", [](const Tensor& x) { return F::lp_pool1d(x.abs().add(0.5), F::LPPool1dFuncOptions(2, 3).stride(2)); }},
      {"unpool2d",
       [](const Tensor& x) {
         const Tensor idx = std::get<1>(max_pool2d_with_indices(x.detach(), 2));
         return F::max_unpool2d(max_pool2d(x, 2), idx, F::MaxUnpool2dFuncOptions(2));
       }},
  };
  for (const auto& [name, fn] : fns) {
    SCOPED_TRACE(name);
    const std::string n = name;
    const Tensor x = input(n.find("1d") != std::string::npos   ? IntArrayRef{2, 3, 7}
                           : n.find("3d") != std::string::npos ? IntArrayRef{1, 2, 3, 3, 4}
                                                               : IntArrayRef{2, 3, 6, 4});
    auto f = [&fn = fn](const autograd::variable_list& v) { return autograd::variable_list{fn(v[0])}; };
    EXPECT_TRUE(autograd::gradcheck(f, {x}, o));
  }
  const Tensor x = input({1, 2, 5, 5});
  EXPECT_TRUE(autograd::gradgradcheck(
      [](const autograd::variable_list& v) { return autograd::variable_list{max_pool2d(v[0], 3, 2, 1)}; }, {x}));
  EXPECT_TRUE(autograd::gradgradcheck(
      [](const autograd::variable_list& v) { return autograd::variable_list{avg_pool2d(v[0], 3, 2, 1, true)}; }, {x}));
}

// ---- dtypes, layouts, modules, errors --------------------------------------------------------

TEST(Pool, OtherDtypesAndLayouts) {
  manual_seed(4);
  const Tensor x = randn({2, 3, 7, 6});
  const Tensor ref_max = max_pool2d(x, 3, 2, 1), ref_avg = avg_pool2d(x, 3, 2, 1, true);
  for (ScalarType dt : {kHalf, kDouble}) {
    EXPECT_TENSOR_CLOSE(max_pool2d(x.to(dt), 3, 2, 1).to(kFloat), ref_max.to(dt).to(kFloat), 0, 0);
    EXPECT_TENSOR_CLOSE(avg_pool2d(x.to(dt), 3, 2, 1, true).to(kFloat), ref_avg, 2e-3, 2e-3);
  }
  // integers: C++ division of the window sums, as PyTorch
  const Tensor xi = arange(2 * 5 * 5, kLong).view({1, 2, 5, 5}).sub(20);
  EXPECT_TENSOR_EQ(avg_pool2d(xi, 2), avg_pool2d(xi.to(kDouble), 2).trunc().to(kLong));
  EXPECT_EQ(avg_pool2d(xi, 2).scalar_type(), kLong);
  // channels-last through every path: oneDNN, indices, composite, adaptive
  const Tensor cl = x.contiguous(MemoryFormat::ChannelsLast);
  for (const Tensor& y : {max_pool2d(cl, 2), std::get<0>(max_pool2d_with_indices(cl, 2)),
                          avg_pool2d(cl.to(kDouble), 3, 2, 1), adaptive_avg_pool2d(cl, {3, 4}),
                          std::get<0>(adaptive_max_pool2d(cl, {3, 4})), max_pool2d(cl.to(kBFloat16), 2)})
    EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TENSOR_EQ(max_pool2d(cl, 2), max_pool2d(x, 2));
  // empty batch
  EXPECT_EQ(max_pool2d(randn({0, 2, 4, 4}), 2).sizes(), IntArrayRef({0, 2, 2, 2}));
  EXPECT_EQ(avg_pool2d(randn({0, 2, 4, 4}), 2).sizes(), IntArrayRef({0, 2, 2, 2}));
}

TEST(Pool, ModulesAndOptions) {
  manual_seed(6);
  const Tensor x = randn({2, 3, 8, 8});
  nn::MaxPool2d mp(nn::MaxPool2dOptions(3).stride(2).padding(1));
  EXPECT_TENSOR_EQ(mp(x), max_pool2d(x, 3, 2, 1));
  auto [v, i] = mp->forward_with_indices(x);
  EXPECT_TENSOR_EQ(v, mp(x));
  EXPECT_TENSOR_EQ(x.flatten(2).gather(2, i.flatten(2)).view_as(v), v);
  EXPECT_TENSOR_EQ(nn::MaxPool2d(2)(x), max_pool2d(x, 2, 2));  // stride defaults to the kernel
  EXPECT_TENSOR_EQ(nn::MaxPool2d(nn::Pool2dOptions(2))(x), max_pool2d(x, 2));
  EXPECT_TENSOR_EQ(F::max_pool2d(x, F::MaxPool2dFuncOptions({3, 2}).dilation(2)), max_pool2d(x, {3, 2}, {3, 2}, 0, 2));
  EXPECT_TENSOR_EQ(nn::MaxPool1d(3)(x.flatten(2)), max_pool1d(x.flatten(2), 3));
  EXPECT_TENSOR_EQ(nn::MaxPool3d(nn::MaxPool3dOptions(2).ceil_mode(true))(x), max_pool3d(x, 2, 2, 0, 1, true));
  EXPECT_TENSOR_EQ(nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(2).divisor_override(4))(x),
                   avg_pool2d(x, 3, 2, 0, false, true, 4));
  EXPECT_TENSOR_EQ(nn::AvgPool1d(nn::AvgPool1dOptions(2).padding(1).count_include_pad(false))(x[0]),
                   avg_pool1d(x[0], 2, 2, 1, false, false));
  EXPECT_TENSOR_EQ(nn::AvgPool3d(2)(x), avg_pool3d(x, 2));
  EXPECT_TENSOR_EQ(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({3, std::nullopt}))(x),
                   adaptive_avg_pool2d(x, {3, 8}));
  EXPECT_TENSOR_EQ(nn::AdaptiveAvgPool1d(3)(x[0]), adaptive_avg_pool1d(x[0], 3));
  EXPECT_TENSOR_EQ(nn::AdaptiveAvgPool3d(2)(x), adaptive_avg_pool3d(x, 2));
  nn::AdaptiveMaxPool2d amp(nn::AdaptiveMaxPool2dOptions({5, 3}));
  EXPECT_TENSOR_EQ(amp(x), std::get<0>(adaptive_max_pool2d(x, {5, 3})));
  EXPECT_TENSOR_EQ(std::get<1>(amp->forward_with_indices(x)), std::get<1>(adaptive_max_pool2d(x, {5, 3})));
  EXPECT_TENSOR_EQ(nn::AdaptiveMaxPool1d(4)(x[0]), std::get<0>(adaptive_max_pool1d(x[0], 4)));
  EXPECT_TENSOR_EQ(nn::AdaptiveMaxPool3d(nn::AdaptiveMaxPool3dOptions({std::nullopt, 2, 2}))(x),
                   std::get<0>(adaptive_max_pool3d(x, {3, 2, 2})));
  const Tensor xp = x.abs().add(0.1);
  EXPECT_TENSOR_CLOSE(nn::LPPool2d(nn::LPPool2dOptions(2, 2))(xp),
                      avg_pool2d(xp.square(), 2).mul(4).sqrt(), 1e-6, 1e-6);
  EXPECT_TENSOR_CLOSE(nn::LPPool1d(nn::LPPool1dOptions(1, 3).stride(1))(xp[0]),
                      avg_pool1d(xp[0], 3, 1).mul(3), 1e-6, 1e-6);
  // unpooling puts each maximum back at its index, zeros elsewhere
  nn::MaxUnpool2d unpool(nn::MaxUnpool2dOptions(2));
  auto [pv, pi] = nn::MaxPool2d(2)->forward_with_indices(x);
  const Tensor u = unpool(pv, pi);
  EXPECT_EQ(u.sizes(), x.sizes());
  EXPECT_TENSOR_EQ(u.flatten(2).gather(2, pi.flatten(2)), pv.flatten(2));
  EXPECT_EQ(u.ne(0).sum().item<int64_t>(), pv.numel());
  EXPECT_EQ(unpool(pv, pi, std::vector<int64_t>{9, 9}).sizes(), IntArrayRef({2, 3, 9, 9}));
  EXPECT_TENSOR_EQ(max_unpool2d(pv, pi, {8, 8}), u);
  EXPECT_TENSOR_EQ(nn::MaxUnpool1d(2)(std::get<0>(max_pool1d_with_indices(x[0], 2)),
                                      std::get<1>(max_pool1d_with_indices(x[0], 2))),
                   F::max_unpool1d(std::get<0>(max_pool1d_with_indices(x[0], 2)),
                                   std::get<1>(max_pool1d_with_indices(x[0], 2)), F::MaxUnpool1dFuncOptions(2)));
  auto [v3, i3] = max_pool3d_with_indices(x, 2);
  EXPECT_TENSOR_EQ(max_unpool3d(v3, i3, {2, 8, 8}, {2, 2, 2}, {0, 0, 0}), nn::MaxUnpool3d(2)(v3, i3));
  // printing, cloning, Sequential
  std::ostringstream s;
  s << *mp;
  EXPECT_EQ(s.str(), "torch::nn::MaxPool2d(kernel_size=[3, 3], stride=[2, 2], padding=[1, 1], dilation=[1, 1], "
                     "ceil_mode=false)");
  s.str("");
  s << nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({3, std::nullopt}));
  EXPECT_EQ(s.str(), "torch::nn::AdaptiveAvgPool2d(output_size=[3, None])");
  auto copy = std::dynamic_pointer_cast<nn::MaxPool2dImpl>(mp->clone());
  EXPECT_TENSOR_EQ(copy->forward(x), mp(x));
  nn::Sequential seq(nn::MaxPool2d(2), nn::AvgPool2d(2), nn::AdaptiveAvgPool2d(1));
  EXPECT_EQ(seq->forward(x).sizes(), IntArrayRef({2, 3, 1, 1}));
}

TEST(Pool, ErrorMessages) {
  const Tensor x = randn({1, 2, 5, 5});
  EXPECT_ERROR_WITH(max_pool2d(x, 2, 2, 2), "pad should be at most half of kernel size, but got pad=2 and kernel_size=2");
  EXPECT_ERROR_WITH(avg_pool3d(randn({1, 2, 5, 5, 5}), 2, 2, {1, 2, 1}), "pad should be at most half of kernel size");
  EXPECT_ERROR_WITH(max_pool2d(x, {2, 7}),
                    "Given input size: (2x5x5). Calculated output size: (2x2x0). Output size is too small");
  EXPECT_ERROR_WITH(max_pool1d(randn({1, 5, 5}), 7), "Calculated output size: (5x0). Output size is too small");
  EXPECT_ERROR_WITH(max_pool2d(x, -1), "kernel size should be greater than zero, but got kH: -1 kW: -1");
  EXPECT_ERROR_WITH(max_pool2d(x, 2, 0), "stride should be greater than zero");
  EXPECT_ERROR_WITH(max_pool2d(x, 3, 1, 0, 0), "dilation should be greater than zero, but got dilationH: 0 dilationW: 0");
  EXPECT_ERROR_WITH(max_pool2d(x, {2, 2, 2}), "max_pool2d: kernel_size must either be a single int, or a tuple of two ints");
  EXPECT_ERROR_WITH(max_pool2d(randn({5, 5}), 2),
                    "max_pool2d: Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input");
  EXPECT_ERROR_WITH(max_pool2d(randn({1, 0, 5, 5}), 2), "but got:[1, 0, 5, 5]");
  EXPECT_ERROR_WITH(avg_pool1d(randn({5}), 2), "avg_pool1d: Expected 2D or 3D (batch mode) tensor");
  EXPECT_ERROR_WITH(max_pool2d(x.to(kLong), 2), "\"max_pool2d\" not implemented for 'Long'");
  EXPECT_ERROR_WITH(max_pool2d(x.to(kComplexFloat), 2), "\"max_pool2d\" not implemented for 'ComplexFloat'");
  EXPECT_ERROR_WITH(avg_pool2d(x.to(kComplexFloat), 2), "\"avg_pool2d\" not implemented for 'ComplexFloat'");
  EXPECT_ERROR_WITH(avg_pool2d(x, 2, {}, 0, false, true, 0), "divisor must be not zero");
  EXPECT_ERROR_WITH(adaptive_avg_pool2d(randn({5, 5}), 2), "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got: [5, 5]");
  EXPECT_ERROR_WITH(adaptive_max_pool3d(randn({1, 2, 0, 5, 5}), 2),
                    "adaptive_max_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input "
                    "has sizes [1, 2, 0, 5, 5] with dimension 2 being empty");
  EXPECT_ERROR_WITH(adaptive_avg_pool2d(x, {-1, -1}),
                    "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {-1, -1}");
  EXPECT_ERROR_WITH(adaptive_avg_pool3d(randn({1, 2, 5, 5, 5}), {2, 2}), "adaptive_avg_pool3d: output_size must be 3");
  EXPECT_ERROR_WITH(adaptive_max_pool2d(x.to(kLong), 2), "\"adaptive_max_pool2d\" not implemented for 'Long'");
  const Tensor v = randn({1, 2, 2, 2});
  EXPECT_ERROR_WITH(max_unpool2d(v, full({1, 2, 2, 2}, 100, kLong), {4, 4}),
                    "Found an invalid max index: 100 (output volumes are of size 4x4");
  EXPECT_ERROR_WITH(max_unpool2d(v, full({1, 2, 2, 2}, -1, kLong), {4, 4}), "Found an invalid max index: -1");
  EXPECT_ERROR_WITH(max_unpool2d(v, zeros({1, 2, 2, 3}, kLong), {4, 4}),
                    "Expected shape of indices to be same as that of the input tensor ([1, 2, 2, 2]) but got indices "
                    "tensor with shape: [1, 2, 2, 3]");
  EXPECT_ERROR_WITH(max_unpool2d(v, zeros({1, 2, 2, 2}, kInt), {4, 4}), "elements in indices should be type int64 but got: Int");
  EXPECT_ERROR_WITH(max_unpool2d(randn({2, 2}), zeros({2, 2}, kLong), {4, 4}),
                    "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with 2 dimensions.");
  EXPECT_ERROR_WITH(F::max_unpool2d(v, zeros({1, 2, 2, 2}, kLong), F::MaxUnpool2dFuncOptions(2).output_size(
                                                                       std::vector<int64_t>{9, 9})),
                    "invalid output_size \"(9, 9)\" (dim 0 must be between 2 and 6)");
  EXPECT_ERROR_WITH(F::max_unpool2d(v, zeros({1, 2, 2, 2}, kLong), F::MaxUnpool2dFuncOptions(2).output_size(
                                                                       std::vector<int64_t>{4})),
                    "output_size should be a sequence containing 2 or 4 elements, but it has a length of '1'");
}

}  // namespace
}  // namespace ember

// ---- against their definitions (naive loops in double) -----------------------------------------
namespace {

namespace F = torch::nn::functional;
using ember::test::tensors_close;

// naive pooling over (N, C, H, W)
torch::Tensor naive_pool(const torch::Tensor& x, int64_t k, int64_t s, int64_t p, bool ceil, bool max,
                         bool include_pad) {
  const int64_t H = x.size(2), W = x.size(3);
  auto osz = [&](int64_t in) {
    int64_t num = in + 2 * p - k, o = (ceil ? (num + s - 1) / s : num / s) + 1;
    if (ceil && (o - 1) * s >= in + p) --o;
    return o;
  };
  const int64_t OH = osz(H), OW = osz(W);
  torch::Tensor out = torch::empty({x.size(0), x.size(1), OH, OW}, torch::kDouble);
  for (int64_t n = 0; n < x.size(0); ++n)
    for (int64_t c = 0; c < x.size(1); ++c)
      for (int64_t i = 0; i < OH; ++i)
        for (int64_t j = 0; j < OW; ++j) {
          double acc = max ? -INFINITY : 0;
          int64_t cnt = 0;
          const int64_t h0 = i * s - p, w0 = j * s - p;
          const int64_t h1 = std::min(h0 + k, H + p), w1 = std::min(w0 + k, W + p);
          for (int64_t h = h0; h < h0 + k; ++h)
            for (int64_t w = w0; w < w0 + k; ++w) {
              const bool inside = h >= 0 && h < H && w >= 0 && w < W;
              if (inside) acc = max ? std::max(acc, x[n][c][h][w].item<double>()) : acc + x[n][c][h][w].item<double>();
              if (inside || (include_pad && h < h1 && w < w1)) ++cnt;
            }
          out[n][c][i][j].fill_(max ? acc : acc / double(cnt));
        }
  return out;
}

TEST(Pool, MaxAndAvgMatchNaiveLoops) {
  torch::manual_seed(1);
  torch::Tensor x = torch::randn({2, 2, 7, 6}, torch::kDouble);
  for (auto [k, s, p, ceil] : std::vector<std::tuple<int64_t, int64_t, int64_t, bool>>{
           {2, 2, 0, false}, {3, 2, 1, false}, {3, 2, 1, true}, {2, 3, 1, true}}) {
    SCOPED_TRACE(std::to_string(k) + std::to_string(s) + std::to_string(p) + (ceil ? " ceil" : ""));
    EXPECT_TRUE(tensors_close(F::max_pool2d(x, {k, k}, {s, s}, {p, p}, {1, 1}, ceil), naive_pool(x, k, s, p, ceil, true, true)));
    for (bool inc : {true, false})
      EXPECT_TRUE(tensors_close(F::avg_pool2d(x, {k, k}, {s, s}, {p, p}, ceil, inc), naive_pool(x, k, s, p, ceil, false, inc)));
  }
  torch::nn::MaxPool2d mp(torch::nn::Pool2dOptions(2));
  EXPECT_EQ(mp(torch::randn({1, 3, 8, 8})).sizes(), torch::IntArrayRef({1, 3, 4, 4}));
  EXPECT_ERROR_WITH(F::max_pool2d(x, {2, 2}, {2, 2}, {2, 2}), "pad should be at most half");
  torch::Tensor xi = torch::randn({1, 1, 4, 5}, torch::dtype(torch::kDouble).requires_grad(true));
  auto f = [](const std::vector<torch::Tensor>& v) {
    return std::vector<torch::Tensor>{F::max_pool2d(v[0], {2, 2}, {1, 2}, {1, 0}), F::avg_pool2d(v[0], {3, 3}, {2, 2}, {1, 1})};
  };
  EXPECT_TRUE(torch::autograd::gradcheck(f, {xi}));
}

}  // namespace
