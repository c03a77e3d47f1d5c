// Convolutions (ember/nn/{options,functional,modules}/conv.h). On oneDNN (float32, bfloat16;
// 1-D to 3-D; channels-last): values and gradients against PyTorch's
// (tests/golden/gen_nn_conv.py), against ember's float64 composite path, layouts, the
// weight-reorder cache, higher-order and forward-mode derivatives; transposed and complex
// convolutions; padding modes. Last, Conv1d/Conv2d against a naive double-precision
// convolution, gradients by gradcheck.
#include <torch/torch.h>

#include <cmath>
#include "test_util.h"

namespace ember {
namespace {

using nn::functional::conv_nd;

struct Case {
  const char* name;
  size_t d;
  std::vector<int64_t> stride;
  nn::ConvPadding padding;
  std::vector<int64_t> dilation;
  int64_t groups;
  bool channels_last;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"c1d", 1, {2}, std::vector<int64_t>{1}, {1}, 1, false},
      {"c1d_same_dil", 1, {1}, "same", {2}, 2, false},
      {"c2d", 2, {1, 1}, std::vector<int64_t>{1, 1}, {1, 1}, 1, false},
      {"c2d_strided", 2, {2, 3}, std::vector<int64_t>{1, 0}, {1, 2}, 2, false},
      {"c2d_same_even", 2, {1, 1}, "same", {1, 1}, 1, false},
      {"c2d_depthwise_cl", 2, {1, 1}, std::vector<int64_t>{1, 1}, {1, 1}, 6, true},
      {"c2d_cl", 2, {2, 2}, std::vector<int64_t>{1, 1}, {1, 1}, 1, true},
      {"c3d", 3, {1, 2, 1}, std::vector<int64_t>{1, 0, 1}, {1, 1, 1}, 1, false},
  };
  return c;
}

TEST(ConvDnnl, MatchesPyTorchValuesAndGradients) {
  const auto golden = serialize::load_file(std::string(EMBER_GOLDEN_DIR) + "/nn_conv.safetensors").tensors;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    auto get = [&](const char* k) { return golden.at(std::string(c.name) + "." + k); };
    Tensor x = get("x"), w = get("w").clone(), b = get("b").clone();
    if (c.channels_last) x = x.contiguous(MemoryFormat::ChannelsLast);
    x = x.clone(c.channels_last ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous).requires_grad_();
    w.requires_grad_();
    b.requires_grad_();
    const Tensor y = conv_nd(x, w, b, c.stride, c.padding, c.dilation, c.groups, c.d, c.name);
    EXPECT_TENSOR_CLOSE(y, get("y"), 1e-4, 1e-4);
    if (c.channels_last) EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast));
    y.mul(get("gy")).sum().backward();
    EXPECT_TENSOR_CLOSE(x.grad(), get("gx"), 1e-4, 1e-4);
    EXPECT_TENSOR_CLOSE(w.grad(), get("gw"), 1e-4, 1e-4);
    EXPECT_TENSOR_CLOSE(b.grad(), get("gb"), 1e-4, 1e-4);
  }
}

// ember's float64 composite path as the reference for a float32/bfloat16 run.
void check_against_double(const Case& c, ScalarType dt, double tol) {
  SCOPED_TRACE(std::string(c.name) + (dt == kFloat ? " float32" : " bfloat16"));
  manual_seed(7);
  const int64_t C = c.groups * 2, O = c.groups * 3;
  std::vector<int64_t> xs{3, C}, ws{O, C / c.groups};
  for (size_t i = 0; i < c.d; ++i) xs.push_back(9 - int64_t(i)), ws.push_back(3);
  const Tensor x64 = randn(xs, kDouble), w64 = randn(ws, kDouble).mul(0.3), b64 = randn({O}, kDouble);
  auto run = [&](ScalarType t, bool track) {
    Tensor x = x64.to(t).detach(), w = w64.to(t).detach(), b = b64.to(t).detach();
    if (c.channels_last && c.d == 2) x = x.contiguous(MemoryFormat::ChannelsLast);
    x.requires_grad_(track), w.requires_grad_(track), b.requires_grad_(track);
    Tensor y = conv_nd(x, w, b, c.stride, c.padding, c.dilation, c.groups, c.d, c.name);
    std::vector<Tensor> g;
    const Tensor gy = arange(y.numel(), kDouble).cos().view(y.sizes()).to(t);  // independent of y
    if (track) g = autograd::grad({y}, {x, w, b}, {gy});
    return std::make_pair(y, g);
  };
  auto [y, g] = run(dt, true);
  auto [y_ref, g_ref] = run(kDouble, true);
  EXPECT_TENSOR_CLOSE(y.to(kDouble), y_ref, tol, tol);
  for (size_t i = 0; i < 3; ++i) EXPECT_TENSOR_CLOSE(g[i].to(kDouble), g_ref[i], tol, tol * 10);
  EXPECT_TENSOR_EQ(run(dt, false).first, y);  // the no-grad path computes the same
}

TEST(ConvDnnl, Float32AndBfloat16MatchTheFloat64Composite) {
  for (const Case& c : cases()) {
    check_against_double(c, kFloat, 1e-4);
    check_against_double(c, kBFloat16, 5e-2);
  }
}

TEST(ConvDnnl, LayoutsFollowTheInputAndWeight) {
  nn::Conv2d conv(nn::Conv2dOptions(4, 8, 3).padding(1));
  const Tensor x = randn({2, 4, 6, 6});
  EXPECT_TRUE(conv(x).is_contiguous());
  EXPECT_TRUE(conv(x.contiguous(MemoryFormat::ChannelsLast)).is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TENSOR_CLOSE(conv(x.contiguous(MemoryFormat::ChannelsLast)), conv(x), 1e-5, 1e-5);
  conv->to(MemoryFormat::ChannelsLast);  // a channels-last weight makes the output channels-last too
  EXPECT_TRUE(conv->weight.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(conv(x).is_contiguous(MemoryFormat::ChannelsLast));
  // Unbatched input.
  EXPECT_EQ(conv(x[0]).sizes(), IntArrayRef({8, 6, 6}));
}

TEST(ConvDnnl, ReorderedWeightsFollowInPlaceUpdates) {
  nn::Conv2d conv(nn::Conv2dOptions(8, 16, 3));
  const Tensor x = randn({1, 8, 5, 5});
  NoGradGuard ng;
  const Tensor before = conv(x);
  EXPECT_TENSOR_EQ(conv(x), before);  // the cached reorder gives the same result
  conv->weight.mul_(2);               // an optimizer step: the version changes
  EXPECT_TENSOR_CLOSE(conv(x), before.sub(conv->bias.view({1, 16, 1, 1})).mul(2).add(conv->bias.view({1, 16, 1, 1})),
                      1e-5, 1e-5);
}

TEST(ConvDnnl, SecondOrderAndForwardModeDerivatives) {
  // create_graph through the float32 oneDNN convolution equals float64's composite.
  manual_seed(3);
  const Tensor x64 = randn({2, 3, 6, 6}, kDouble), w64 = randn({4, 3, 3, 3}, kDouble);
  auto second = [&](ScalarType t) {
    Tensor x = x64.to(t).requires_grad_(), w = w64.to(t).requires_grad_();
    Tensor y = nn::functional::conv2d(x, w, Tensor(), {1, 1}, std::vector<int64_t>{1});
    Tensor gx = autograd::grad({y.square().sum()}, {x}, {}, true, true)[0];
    return autograd::grad({gx.sum()}, {w})[0];
  };
  EXPECT_TENSOR_CLOSE(second(kFloat).to(kDouble), second(kDouble), 1e-4, 1e-3);
  // Forward mode: jvp of the float32 path against the float64 composite.
  auto jvp = [&](ScalarType t) {
    autograd::forward_ad::dual_level level;
    Tensor x = autograd::forward_ad::make_dual(x64.to(t), x64.to(t).mul(0.5));
    Tensor w = autograd::forward_ad::make_dual(w64.to(t), ones_like(w64).to(t));
    return autograd::forward_ad::unpack_dual(nn::functional::conv2d(x, w)).tangent;
  };
  EXPECT_TENSOR_CLOSE(jvp(kFloat).to(kDouble), jvp(kDouble), 1e-4, 1e-4);
}

TEST(ConvDnnl, Conv3dModule) {
  nn::Conv3d conv(nn::Conv3dOptions(2, 4, {3, 3, 1}).stride(2).padding(1));
  const Tensor y = conv(randn({1, 2, 7, 7, 3}));
  EXPECT_EQ(y.sizes(), IntArrayRef({1, 4, 4, 4, 3}));
  EXPECT_ERROR_WITH(conv(randn({2, 7, 7})), "conv3d: Expected 4D (unbatched) or 5D (batched) input");
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

struct TCase {
  const char* name;
  size_t d;
  std::vector<int64_t> stride, padding, output_padding, dilation;
  int64_t groups;
  bool channels_last;
};

const std::vector<TCase>& tcases() {
  static const std::vector<TCase> c = {
      {"t1d", 1, {2}, {1}, {1}, {1}, 1, false},
      {"t2d", 2, {2, 2}, {1, 1}, {1, 0}, {1, 1}, 2, false},
      {"t2d_dil", 2, {1, 1}, {2, 1}, {0, 0}, {2, 1}, 1, false},
      {"t2d_outpad_gt_pad", 2, {3, 3}, {0, 0}, {2, 1}, {1, 1}, 1, false},
      {"t2d_cl", 2, {2, 2}, {1, 1}, {0, 0}, {1, 1}, 1, true},
      {"t3d", 3, {2, 1, 2}, {0, 1, 0}, {1, 0, 0}, {1, 1, 1}, 1, false},
  };
  return c;
}

TEST(ConvTranspose, MatchesPyTorchValuesAndGradients) {
  const auto golden = serialize::load_file(std::string(EMBER_GOLDEN_DIR) + "/nn_conv.safetensors").tensors;
  for (const TCase& c : tcases()) {
    for (ScalarType dt : {kFloat, kDouble}) {  // oneDNN (or the composite when it cannot) and the composite
      SCOPED_TRACE(std::string(c.name) + (dt == kFloat ? " float32" : " float64"));
      auto get = [&](const char* k) { return golden.at(std::string(c.name) + "." + k).to(dt); };
      Tensor x = get("x").clone(c.channels_last ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous);
      Tensor w = get("w").clone(), b = get("b").clone();
      x.requires_grad_(), w.requires_grad_(), b.requires_grad_();
      const Tensor y = nn::functional::conv_transpose_nd(x, w, b, c.stride, c.padding, c.output_padding, c.groups,
                                                         c.dilation, c.d, c.name);
      EXPECT_TENSOR_CLOSE(y, get("y"), 1e-4, 1e-4);
      y.mul(get("gy")).sum().backward();
      EXPECT_TENSOR_CLOSE(x.grad(), get("gx"), 1e-4, 1e-4);
      EXPECT_TENSOR_CLOSE(w.grad(), get("gw"), 1e-4, 1e-4);
      EXPECT_TENSOR_CLOSE(b.grad(), get("gb"), 1e-4, 1e-4);
    }
  }
}

TEST(ConvTranspose, GradcheckAndSecondOrder) {
  manual_seed(5);
  const Tensor x = randn({1, 2, 3, 3}, kDouble).requires_grad_(), w = randn({2, 2, 2, 2}, kDouble).requires_grad_();
  const Tensor b = randn({2}, kDouble).requires_grad_();
  auto f = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{nn::functional::conv_transpose2d(in[0], in[1], in[2], {2, 1}, {0, 1}, {1, 0})};
  };
  EXPECT_TRUE(autograd::gradcheck(f, {x, w, b}));
  EXPECT_TRUE(autograd::gradgradcheck(f, {x, w, b}));
  // create_graph through the float32 oneDNN path equals float64's composite.
  auto second = [&](ScalarType t) {
    Tensor xs = x.detach().to(t).requires_grad_(), ws = w.detach().to(t).requires_grad_();
    Tensor y = nn::functional::conv_transpose2d(xs, ws, Tensor(), {2, 2}, {1, 1}, {1, 1});
    Tensor gx = autograd::grad({y.square().sum()}, {xs}, {}, true, true)[0];
    return autograd::grad({gx.sum()}, {ws})[0];
  };
  EXPECT_TENSOR_CLOSE(second(kFloat).to(kDouble), second(kDouble), 1e-4, 1e-4);
}

TEST(ConvTranspose, ModulesOutputSizeAndErrors) {
  // DCGAN's generator input: a 1x1 latent to 4x4, then doubling.
  nn::ConvTranspose2d up0(nn::ConvTranspose2dOptions(16, 8, 4).bias(false));
  nn::ConvTranspose2d up1(nn::ConvTranspose2dOptions(8, 4, 4).stride(2).padding(1));
  const Tensor z = randn({2, 16, 1, 1});
  const Tensor h = up0(z);
  EXPECT_EQ(h.sizes(), IntArrayRef({2, 8, 4, 4}));
  EXPECT_EQ(up1(h).sizes(), IntArrayRef({2, 4, 8, 8}));
  EXPECT_EQ(up0->weight.sizes(), IntArrayRef({16, 8, 4, 4}));
  nn::ConvTranspose2d up2(nn::ConvTranspose2dOptions(4, 2, 3).stride(2).padding(1));
  const Tensor x = randn({1, 4, 5, 5});
  EXPECT_EQ(up2(x).sizes(), IntArrayRef({1, 2, 9, 9}));
  EXPECT_EQ(up2(x, std::vector<int64_t>{10, 10}).sizes(), IntArrayRef({1, 2, 10, 10}));
  EXPECT_ERROR_WITH(up2(x, std::vector<int64_t>{12, 12}), "valid sizes range from 9 to 10");
  EXPECT_ERROR_WITH(nn::functional::conv_transpose2d(x, up2->weight, Tensor(), {1}, {0}, {1}),
                    "output padding must be smaller than either stride or dilation");
  EXPECT_ERROR_WITH(up1(x), "expected input[1, 4, 5, 5] to have 8 channels, but got 4 channels instead");
  nn::ConvTranspose1d t1(nn::ConvTranspose1dOptions(2, 3, 3));
  nn::ConvTranspose3d t3(nn::ConvTranspose3dOptions(2, 3, 2).stride(2));
  EXPECT_EQ(t1(randn({2, 5})).sizes(), IntArrayRef({3, 7}));  // unbatched
  EXPECT_EQ(t3(randn({1, 2, 2, 3, 4})).sizes(), IntArrayRef({1, 3, 4, 6, 8}));
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

TEST(ConvComplex, MatchesPyTorchInComplex64AndComplex32) {
  const auto golden = serialize::load_file(std::string(EMBER_GOLDEN_DIR) + "/nn_conv.safetensors").tensors;
  auto get = [&](const std::string& name, const char* k) { return view_as_complex(golden.at(name + "." + k)); };
  auto run = [&](const std::string& name, const Tensor& x, const Tensor& w, const Tensor& b) {
    if (name == "cx2d") return nn::functional::conv2d(x, w, b, {2, 1}, std::vector<int64_t>{1, 0});
    return nn::functional::conv1d(x, w, b, {1}, std::vector<int64_t>{1}, {1}, 2);
  };
  for (const std::string name : {"cx2d", "cx1d"}) {
    for (ScalarType dt : {kComplexFloat, kComplexHalf}) {
      SCOPED_TRACE(name + (dt == kComplexHalf ? " complex32" : " complex64"));
      const double tol = dt == kComplexHalf ? 2e-2 : 1e-5;
      Tensor x = get(name, "x").to(dt).requires_grad_(), w = get(name, "w").to(dt).requires_grad_();
      Tensor b = get(name, "b").to(dt).requires_grad_();
      const Tensor y = run(name, x, w, b);
      EXPECT_EQ(y.scalar_type(), dt);
      EXPECT_TENSOR_CLOSE(y.to(kComplexFloat), get(name, "y"), tol, tol * 5);
      y.backward(get(name, "gy").to(dt));
      EXPECT_TENSOR_CLOSE(x.grad().to(kComplexFloat), get(name, "gx"), tol, tol * 5);
      EXPECT_TENSOR_CLOSE(w.grad().to(kComplexFloat), get(name, "gw"), tol, tol * 5);
      EXPECT_TENSOR_CLOSE(b.grad().to(kComplexFloat), get(name, "gb"), tol, tol * 5);
    }
  }
}

TEST(ConvComplex, TransposedMatchesItsDefinitionThroughRealTransposedConvolutions) {
  manual_seed(11);
  const Tensor x = randn({2, 2, 4, 3}, kComplexFloat), w = randn({2, 3, 3, 3}, kComplexFloat), b = randn({3}, kComplexFloat);
  auto ct = [](const Tensor& a, const Tensor& k) { return nn::functional::conv_transpose2d(a, k, {}, {2}, {1}, {1}); };
  const Tensor y = nn::functional::conv_transpose2d(x, w, b, {2}, {1}, {1});
  const Tensor xr = real(x).to(kDouble), xi = imag(x).to(kDouble), wr = real(w).to(kDouble), wi = imag(w).to(kDouble);
  const Tensor re = ct(xr, wr).sub(ct(xi, wi)).add(real(b).to(kDouble).view({1, 3, 1, 1}));
  const Tensor im = ct(xr, wi).add(ct(xi, wr)).add(imag(b).to(kDouble).view({1, 3, 1, 1}));
  EXPECT_TENSOR_CLOSE(y.to(kComplexDouble), complex(re, im), 1e-5, 1e-5);
}

TEST(ConvComplex, ComplexModulesAndGradcheck) {
  nn::Conv2d conv(nn::Conv2dOptions(2, 3, 3).padding(1));
  conv->to(kComplexFloat);
  EXPECT_EQ(conv(randn({1, 2, 4, 4}, kComplexFloat)).scalar_type(), kComplexFloat);
  EXPECT_ERROR_WITH(conv(randn({1, 2, 4, 4})), "convolution: expected input, weight and bias of one dtype");
  nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(2, 2, 2).stride(2));
  up->to(kComplexDouble);
  const Tensor x = randn({1, 2, 2, 2}, kComplexDouble).requires_grad_();
  auto f = [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{up(in[0])}; };
  EXPECT_TRUE(autograd::gradcheck(f, {x}));
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

TEST(ConvDnnl, ChannelsLastStaysThroughAResidualBlock) {
  // conv -> batch norm -> relu -> conv -> batch norm, + residual, relu, max pool: every
  // intermediate keeps the channels-last layout, and the values equal the contiguous run.
  manual_seed(2);
  nn::Conv2d c1(nn::Conv2dOptions(8, 8, 3).padding(1).bias(false)), c2(nn::Conv2dOptions(8, 8, 3).padding(1).bias(false));
  nn::BatchNorm2d b1(8), b2(8);
  const auto CL = MemoryFormat::ChannelsLast;
  auto block = [&](const Tensor& x, bool check) {
    std::vector<Tensor> stages;
    stages.push_back(c1(x));
    stages.push_back(b1(stages.back()));
    stages.push_back(relu(stages.back()));
    stages.push_back(b2(c2(stages.back())));
    stages.push_back(relu(stages.back().add(x)));
    stages.push_back(max_pool2d(stages.back(), {3, 3}, {2, 2}, {1, 1}));
    if (check)
      for (size_t i = 0; i < stages.size(); ++i) EXPECT_TRUE(stages[i].is_contiguous(CL)) << "stage " << i;
    return stages.back();
  };
  for (bool training : {true, false}) {
    b1->train(training), b2->train(training);
    const Tensor x = randn({2, 8, 10, 10});
    const Tensor xc = x.clone().requires_grad_(), xl = x.contiguous(CL).requires_grad_();
    const Tensor yc = block(xc, false), yl = block(xl, true);
    EXPECT_TENSOR_CLOSE(yl, yc, 1e-5, 1e-5);
    yl.sum().backward();
    yc.sum().backward();
    EXPECT_TENSOR_CLOSE(xl.grad(), xc.grad(), 1e-4, 1e-4);
  }
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

TEST(ConvPaddingMode, MatchesPyTorchModules) {
  const auto golden = serialize::load_file(std::string(EMBER_GOLDEN_DIR) + "/nn_conv.safetensors").tensors;
  auto check = [&](const std::string& name, auto module) {
    SCOPED_TRACE(name);
    auto get = [&](const char* k) { return golden.at(name + "." + k); };
    {
      NoGradGuard ng;
      module->weight.copy_(get("w"));
      module->bias.copy_(get("b"));
    }
    const Tensor x = get("x").clone().requires_grad_();
    const Tensor y = module(x);
    EXPECT_TENSOR_CLOSE(y, get("y"), 1e-5, 1e-5);
    y.mul(get("gy")).sum().backward();
    EXPECT_TENSOR_CLOSE(x.grad(), get("gx"), 1e-4, 1e-4);
    EXPECT_TENSOR_CLOSE(module->weight.grad(), get("gw"), 1e-4, 1e-4);
    EXPECT_TENSOR_CLOSE(module->bias.grad(), get("gb"), 1e-4, 1e-4);
  };
  check("pm_reflect2d", nn::Conv2d(nn::Conv2dOptions(2, 3, 3).padding(1).padding_mode(kReflect)));
  check("pm_replicate_same", nn::Conv2d(nn::Conv2dOptions(2, 2, {4, 3}).padding("same").padding_mode("replicate")));
  check("pm_circular1d", nn::Conv1d(nn::Conv1dOptions(3, 2, 3).padding(2).dilation(2).padding_mode(kCircular)));
  check("pm_circular3d",
        nn::Conv3d(nn::Conv3dOptions(1, 2, 3).padding({1, 0, 1}).stride(2).padding_mode("circular")));
  EXPECT_ERROR_WITH(nn::Conv2d(nn::Conv2dOptions(1, 1, 3).padding_mode("mirror")),
                    "padding_mode must be one of 'zeros', 'reflect', 'replicate' or 'circular'");
}

}  // namespace
}  // namespace ember

// ---- against a naive double-precision convolution --------------------------------------------
namespace {

namespace F = torch::nn::functional;
using ember::test::tensors_close;

// out[n, o, y, x] = b[o] + sum_{c in group(o), i, j} in[n, c, y*s - p + i*d, x*s - p + j*d] w[o, c', i, j]
torch::Tensor naive_conv2d(const torch::Tensor& in, const torch::Tensor& w, const torch::Tensor& b, int64_t s,
                           int64_t p, int64_t d, int64_t groups) {
  const int64_t N = in.size(0), C = in.size(1), H = in.size(2), W = in.size(3), O = w.size(0), KH = w.size(2),
                KW = w.size(3);
  const int64_t OH = (H + 2 * p - d * (KH - 1) - 1) / s + 1, OW = (W + 2 * p - d * (KW - 1) - 1) / s + 1;
  auto a = in.accessor<double, 4>();
  auto k = w.accessor<double, 4>();
  torch::Tensor out = torch::zeros({N, O, OH, OW}, torch::kDouble);
  auto r = out.accessor<double, 4>();
  const int64_t cg = C / groups, og = O / groups;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t y = 0; y < OH; ++y)
        for (int64_t x = 0; x < OW; ++x) {
          double acc = b.defined() ? b[o].item<double>() : 0.0;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t i = 0; i < KH; ++i)
              for (int64_t j = 0; j < KW; ++j) {
                const int64_t yy = y * s - p + i * d, xx = x * s - p + j * d;
                if (yy < 0 || yy >= H || xx < 0 || xx >= W) continue;
                acc += a[n][(o / og) * cg + c][yy][xx] * k[o][c][i][j];
              }
          r[n][o][y][x] = acc;
        }
  return out;
}

TEST(Conv, Conv2dMatchesTheNaiveConvolution) {
  torch::manual_seed(0);
  torch::Tensor in = torch::randn({2, 4, 9, 8}, torch::kDouble);
  for (int64_t groups : {1, 2}) {
    for (auto [s, p, d] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{1, 0, 1}, {2, 1, 1}, {1, 2, 2}, {2, 1, 2}}) {
      SCOPED_TRACE(std::to_string(groups) + " " + std::to_string(s) + std::to_string(p) + std::to_string(d));
      torch::Tensor w = torch::randn({6, 4 / groups, 3, 2}, torch::kDouble), b = torch::randn({6}, torch::kDouble);
      torch::Tensor got = F::conv2d(in, w, b, {s, s}, std::vector<int64_t>{p, p}, {d, d}, groups);
      EXPECT_TRUE(tensors_close(got, naive_conv2d(in, w, b, s, p, d, groups), 1e-10, 1e-10));
    }
  }
  // "same" keeps the size; unbatched input; the module with PyTorch's default init
  torch::Tensor w = torch::randn({3, 4, 3, 3}, torch::kDouble);
  EXPECT_EQ(F::conv2d(in, w, {}, {1, 1}, std::string("same")).sizes(), torch::IntArrayRef({2, 3, 9, 8}));
  EXPECT_TRUE(tensors_close(F::conv2d(in[0], w), F::conv2d(in, w)[0]));
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(4, 8, 3).stride({2, 2}).padding(std::vector<int64_t>{1}));
  EXPECT_EQ(conv->weight.sizes(), torch::IntArrayRef({8, 4, 3, 3}));
  EXPECT_LE(conv->weight.abs().max().item<float>(), 1 / std::sqrt(36.0f) + 1e-6f);
  EXPECT_EQ(conv(torch::randn({1, 4, 9, 8})).sizes(), torch::IntArrayRef({1, 8, 5, 4}));
  // conv1d as conv2d with a unit height
  torch::Tensor x1 = torch::randn({2, 4, 10}, torch::kDouble), w1 = torch::randn({5, 4, 3}, torch::kDouble);
  EXPECT_TRUE(tensors_close(F::conv1d(x1, w1, {}, {2}, std::vector<int64_t>{1}),
                            F::conv2d(x1.unsqueeze(2), w1.unsqueeze(2), {}, {1, 2}, std::vector<int64_t>{0, 1}).squeeze(2)));
  EXPECT_ERROR_WITH(F::conv2d(in, torch::randn({3, 3, 3, 3}, torch::kDouble)), "channels");
  EXPECT_ERROR_WITH(F::conv2d(in, w, {}, {2, 2}, std::string("same")), "strided");
  EXPECT_ERROR_WITH(F::conv2d(torch::randn({1, 4, 2, 2}, torch::kDouble), w), "Kernel size can't be greater");
}

TEST(Conv, GradientsByGradcheck) {
  torch::manual_seed(1);
  torch::Tensor x = torch::randn({1, 2, 5, 4}, torch::dtype(torch::kDouble).requires_grad(true));
  torch::Tensor w = torch::randn({2, 1, 2, 3}, torch::dtype(torch::kDouble).requires_grad(true));
  torch::Tensor b = torch::randn({2}, torch::dtype(torch::kDouble).requires_grad(true));
  auto f = [](const std::vector<torch::Tensor>& v) {
    return std::vector<torch::Tensor>{F::conv2d(v[0], v[1], v[2], {2, 1}, std::vector<int64_t>{1, 1}, {1, 2}, 2)};
  };
  torch::autograd::GradcheckOptions o;
  o.check_forward_ad = true;
  EXPECT_TRUE(torch::autograd::gradcheck(f, {x, w, b}, o));
}

}  // namespace
