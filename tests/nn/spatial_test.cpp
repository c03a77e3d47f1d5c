// Spatial ops: every case of tests/golden/gen_nn_spatial.py (values and gradients from PyTorch
// 1.13, channels-last inputs), gradcheck in both modes, second order through the resampling
// kernel, dtypes, modules, and PyTorch's error messages, for padding, upsampling, vision
// (grid_sample, affine_grid), pixelshuffle and fold (ember/nn/{options,functional,modules}/).
#include <torch/torch.h>

#include <sstream>

#include "test_util.h"

namespace ember {
namespace {

namespace F = nn::functional;
using test::Json;

std::vector<int64_t> int_list(const Json& j) {
  std::vector<int64_t> v;
  for (const Json& e : j.items()) v.push_back(e.as_int());
  return v;
}

InterpolateMode interp_mode(const std::string& s) {
  static const std::map<std::string, InterpolateMode> m = {
      {"nearest", InterpolateMode::Nearest},     {"linear", InterpolateMode::Linear},
      {"bilinear", InterpolateMode::Bilinear},   {"bicubic", InterpolateMode::Bicubic},
      {"trilinear", InterpolateMode::Trilinear}, {"area", InterpolateMode::Area},
      {"nearest-exact", InterpolateMode::NearestExact}};
  return m.at(s);
}
PadMode pad_mode(const std::string& s) {
  static const std::map<std::string, PadMode> m = {{"constant", PadMode::Constant},
                                                   {"reflect", PadMode::Reflect},
                                                   {"replicate", PadMode::Replicate},
                                                   {"circular", PadMode::Circular}};
  return m.at(s);
}
F::GridSampleFuncOptions grid_options(const Json& a) {
  static const std::map<std::string, GridSampleMode> modes = {
      {"bilinear", GridSampleMode::Bilinear}, {"nearest", GridSampleMode::Nearest}, {"bicubic", GridSampleMode::Bicubic}};
  static const std::map<std::string, GridSamplePaddingMode> paddings = {{"zeros", GridSamplePaddingMode::Zeros},
                                                                        {"border", GridSamplePaddingMode::Border},
                                                                        {"reflection", GridSamplePaddingMode::Reflection}};
  return F::GridSampleFuncOptions()
      .mode(modes.at(a["mode"].as_string()))
      .padding_mode(paddings.at(a["padding"].as_string()))
      .align_corners(a["align"].as_bool());
}
F::InterpolateFuncOptions interp_options(const Json& a) {
  F::InterpolateFuncOptions o;
  o.mode(interp_mode(a["mode"].as_string())).antialias(a["antialias"].as_bool());
  if (!a["size"].is_null()) o.size(int_list(a["size"]));
  if (!a["scale"].is_null()) {
    std::vector<double> s;
    for (const Json& e : a["scale"].items()) s.push_back(e.as_double());
    o.scale_factor(s);
  }
  if (!a["align"].is_null()) o.align_corners(a["align"].as_bool());
  if (!a["recompute"].is_null()) o.recompute_scale_factor(a["recompute"].as_bool());
  return o;
}

// The op of a golden case on its inputs (x and, by op, grid or theta).
Tensor run_case(const Json& a, const std::map<std::string, Tensor>& in) {
  const std::string op = a["op"].as_string();
  const Tensor& x = in.count("x") ? in.at("x") : in.at("theta");
  if (op == "pad")
    return F::pad(x, F::PadFuncOptions(int_list(a["pad"])).mode(pad_mode(a["mode"].as_string())).value(a["value"].as_double()));
  if (op == "interpolate") return F::interpolate(x, interp_options(a));
  if (op == "grid_sample") return F::grid_sample(x, in.at("grid"), grid_options(a));
  if (op == "affine_grid") return F::affine_grid(x, int_list(a["size"]), a["align"].as_bool());
  if (op == "pixel_shuffle") return F::pixel_shuffle(x, a["r"].as_int());
  if (op == "pixel_unshuffle") return F::pixel_unshuffle(x, a["r"].as_int());
  if (op == "unfold")
    return F::unfold(x, F::UnfoldFuncOptions(int_list(a["k"])).dilation(int_list(a["d"])).padding(int_list(a["p"])).stride(int_list(a["s"])));
  if (op == "fold")
    return F::fold(x, F::FoldFuncOptions(int_list(a["out"]), int_list(a["k"]))
                          .dilation(int_list(a["d"])).padding(int_list(a["p"])).stride(int_list(a["s"])));
  if (op == "one_hot") return F::one_hot(x, a["n"].as_int());
  ADD_FAILURE() << "unknown op " << op;
  return {};
}

const serialize::SafetensorsContents& spatial_golden() {
  static const auto g = serialize::load_file(std::string(EMBER_GOLDEN_DIR) + "/nn_spatial.safetensors");
  return g;
}

// Every golden case: the output and the gradients of sum(y * gy) (float32 to 1e-5 relative,
// float64 to 1e-10), and the layout of a channels-last input kept.
TEST(Spatial, MatchesPyTorchGolden) {
  const auto& g = spatial_golden();
  ASSERT_GT(g.metadata.size(), 200u);
  for (const auto& [name, text] : g.metadata) {
    SCOPED_TRACE(name);
    const Json a = Json::parse(text);
    const bool f32 = a["dtype"].as_string() == "float32", cl = a.contains("cl") && a["cl"].as_bool();
    const double tol = f32 ? 1e-5 : 1e-10;
    std::map<std::string, Tensor> in;
    for (const char* k : {"x", "grid", "theta"}) {
      auto it = g.tensors.find(name + "." + k);
      if (it == g.tensors.end()) continue;
      Tensor t = it->second.clone();
      if (cl && std::string(k) == "x") t = t.contiguous(t.dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d);
      if (t.is_floating_point()) t.requires_grad_();
      in[k] = t;
    }
    const Tensor y = run_case(a, in);
    EXPECT_TENSOR_CLOSE(y, g.tensors.at(name + ".y"), tol, tol);
    const std::string op = a["op"].as_string();
    if (cl && op != "grid_sample" && !(op == "pad" && a["mode"].as_string() == "constant" && y.dim() == 5))
      EXPECT_TRUE(y.is_contiguous(y.dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d));
    if (!y.is_floating_point()) continue;
    y.mul(g.tensors.at(name + ".gy")).sum().backward();
    for (auto& [k, t] : in)
      if (t.requires_grad()) {
        const Tensor& want = g.tensors.at(name + ".g" + k);
        // nearest sampling: PyTorch fills the grid's gradient with zeros, ember leaves it undefined
        if (!t.grad().defined() && want.eq(0).all().item<bool>()) continue;
        EXPECT_TENSOR_CLOSE(t.grad(), want, tol, tol);
      }
  }
}

// The no-grad path and the autograd path compute the same values, and a non-contiguous
// input gives what its contiguous copy gives.
TEST(Spatial, LayoutsAndNoGradPath) {
  manual_seed(1);
  const Tensor x = randn({2, 6, 3, 5}).transpose(2, 3);  // neither contiguous nor channels-last
  for (auto mode : {InterpolateMode::Nearest, InterpolateMode::Bilinear, InterpolateMode::Bicubic}) {
    auto o = F::InterpolateFuncOptions().size(std::vector<int64_t>{7, 4}).mode(mode);
    const Tensor y = F::interpolate(x, o);
    EXPECT_TENSOR_EQ(y, F::interpolate(x.contiguous(), o));
    EXPECT_TENSOR_EQ(y, F::interpolate(x.detach().requires_grad_(), o).detach());
  }
  const Tensor p = pad_nd(x, {1, 2, 2, 1}, PadMode::Reflect);
  EXPECT_TENSOR_EQ(p, pad_nd(x.contiguous(), {1, 2, 2, 1}, PadMode::Reflect));
  // outputs past the caches' size take streaming stores: the values of small batches
  for (MemoryFormat f : {MemoryFormat::Contiguous, MemoryFormat::ChannelsLast}) {
    const Tensor big = randn({8, 16, 64, 64}).contiguous(f);
    auto o = F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2}).mode(kBilinear).align_corners(false);
    std::vector<Tensor> parts;
    for (int64_t i = 0; i < 8; ++i) parts.push_back(F::interpolate(big.narrow(0, i, 1), o));
    const Tensor y = F::interpolate(big, o);
    EXPECT_TENSOR_CLOSE(y, cat(parts, 0), 1e-6, 1e-6);
    EXPECT_TRUE(y.is_contiguous(f));
  }
}

using autograd::GradcheckOptions;
void check_both_modes(const std::function<Tensor(const Tensor&)>& f, const Tensor& x) {
  GradcheckOptions o;
  o.check_forward_ad = true;
  const Tensor xi = x.to(kDouble).detach().requires_grad_();
  EXPECT_TRUE(autograd::gradcheck([&](const autograd::variable_list& v) { return autograd::variable_list{f(v[0])}; },
                                  {xi}, o));
}

TEST(Spatial, GradcheckPadBothModes) {
  manual_seed(2);
  for (PadMode m : {PadMode::Constant, PadMode::Reflect, PadMode::Replicate, PadMode::Circular}) {
    SCOPED_TRACE(mode_name(m));
    check_both_modes([&](const Tensor& x) { return pad_nd(x, {2, -1, 1, 2}, m); }, randn({1, 2, 3, 4}));
    check_both_modes([&](const Tensor& x) { return pad_nd(x, {1, 1, 0, 2, 2, 1}, m); }, randn({1, 1, 3, 3, 3}));
  }
}

TEST(Spatial, GradcheckInterpolateBothModes) {
  manual_seed(3);
  struct C { InterpolateMode mode; std::vector<int64_t> shape, size; std::optional<bool> align; bool aa; };
  const std::vector<C> cases = {
      {InterpolateMode::Nearest, {1, 2, 3, 4}, {5, 3}, std::nullopt, false},
      {InterpolateMode::NearestExact, {1, 1, 4}, {7}, std::nullopt, false},
      {InterpolateMode::Area, {1, 2, 5, 4}, {3, 3}, std::nullopt, false},
      {InterpolateMode::Linear, {2, 1, 4}, {7}, true, false},
      {InterpolateMode::Bilinear, {1, 2, 3, 4}, {5, 3}, false, false},
      {InterpolateMode::Bicubic, {1, 1, 4, 3}, {6, 5}, false, false},
      {InterpolateMode::Bicubic, {1, 1, 4, 5}, {3, 2}, true, true},
      {InterpolateMode::Trilinear, {1, 1, 2, 3, 2}, {3, 2, 4}, false, false},
  };
  for (const C& c : cases) {
    SCOPED_TRACE(mode_name(c.mode));
    auto o = F::InterpolateFuncOptions().size(c.size).mode(c.mode).align_corners(c.align).antialias(c.aa);
    check_both_modes([&](const Tensor& x) { return F::interpolate(x, o); }, randn(c.shape));
  }
  // channels-last
  check_both_modes([&](const Tensor& x) {
    return F::interpolate(x.contiguous(MemoryFormat::ChannelsLast),
                          F::InterpolateFuncOptions().scale_factor(std::vector<double>{1.5, 1.5}).mode(kBilinear).align_corners(false));
  }, randn({1, 3, 2, 3}));
}

TEST(Spatial, SecondOrderThroughTheResampleKernel) {
  manual_seed(4);
  const Tensor x = randn({1, 2, 3, 4}, kDouble).requires_grad_();
  auto f = [](const autograd::variable_list& v) {
    auto o = F::InterpolateFuncOptions().size(std::vector<int64_t>{5, 6}).mode(kBicubic).align_corners(false);
    return autograd::variable_list{F::interpolate(v[0], o).pow(2)};
  };
  EXPECT_TRUE(autograd::gradgradcheck(f, {x}));
  auto g = [](const autograd::variable_list& v) {
    return autograd::variable_list{pad_nd(v[0], {2, 1, 1, 2}, PadMode::Reflect).pow(2)};
  };
  EXPECT_TRUE(autograd::gradgradcheck(g, {x}));
}

TEST(Spatial, GradcheckGridSampleAffineGridUnfoldFold) {
  manual_seed(5);
  const Tensor x = randn({1, 2, 3, 4}, kDouble), x3 = randn({1, 1, 3, 2, 3}, kDouble);
  for (auto mode : {GridSampleMode::Bilinear, GridSampleMode::Bicubic})
    for (auto pad : {GridSamplePaddingMode::Zeros, GridSamplePaddingMode::Border, GridSamplePaddingMode::Reflection})
      for (bool align : {false, true}) {
        SCOPED_TRACE(std::to_string(int(mode)) + "/" + std::to_string(int(pad)) + "/" + std::to_string(align));
        const Tensor grid = rand({1, 3, 2, 2}, kDouble).mul(2.4).sub(1.2).requires_grad_();
        const Tensor xi = x.detach().requires_grad_();
        auto opts = F::GridSampleFuncOptions().mode(mode).padding_mode(pad).align_corners(align);
        GradcheckOptions o;
        o.check_forward_ad = true;
        EXPECT_TRUE(autograd::gradcheck(
            [&](const autograd::variable_list& v) { return autograd::variable_list{F::grid_sample(v[0], v[1], opts)}; },
            {xi, grid}, o));
      }
  const Tensor grid3 = rand({1, 2, 2, 1, 3}, kDouble).mul(2.4).sub(1.2);
  check_both_modes([&](const Tensor& g) { return F::grid_sample(x3, g, F::GridSampleFuncOptions().align_corners(false)); },
                   grid3);
  check_both_modes([&](const Tensor& t) { return F::affine_grid(t, {2, 1, 3, 4}, false); }, randn({2, 2, 3}));
  check_both_modes([&](const Tensor& t) { return F::affine_grid(t, {1, 1, 2, 3, 2}, true); }, randn({1, 3, 4}));
  const auto uo = F::UnfoldFuncOptions({2, 2}).padding(1).stride({2, 1});
  check_both_modes([&](const Tensor& v) { return F::unfold(v, uo); }, randn({1, 2, 3, 4}));
  check_both_modes([&](const Tensor& v) { return F::fold(v, F::FoldFuncOptions({3, 4}, {2, 2}).padding(1).stride({2, 1})); },
                   randn({1, 8, 10}));
  check_both_modes([&](const Tensor& v) { return F::pixel_shuffle(v, 2); }, randn({1, 4, 2, 3}));
}

// fold is unfold's adjoint: <unfold(x), c> == <x, fold(c)>.
TEST(Spatial, FoldIsTheAdjointOfUnfold) {
  manual_seed(6);
  const auto uo = F::UnfoldFuncOptions({3, 2}).dilation({1, 2}).padding({2, 1}).stride({2, 3});
  const Tensor x = randn({2, 3, 8, 9}, kDouble), u = F::unfold(x, uo), c = randn(u.sizes(), kDouble);
  const Tensor f = F::fold(c, F::FoldFuncOptions({8, 9}, {3, 2}).dilation({1, 2}).padding({2, 1}).stride({2, 3}));
  EXPECT_NEAR(u.mul(c).sum().item<double>(), x.mul(f).sum().item<double>(), 1e-9);
  EXPECT_TENSOR_EQ(F::pixel_unshuffle(F::pixel_shuffle(x.view({2, 12, 2, 9}), 2), 2), x.view({2, 12, 2, 9}));
}

TEST(Spatial, Dtypes) {
  manual_seed(7);
  // nearest and padding copy any dtype
  const Tensor xi = randint(0, 100, {2, 3, 4, 5}, kLong);
  const auto o = F::InterpolateFuncOptions().scale_factor(std::vector<double>{2.0, 1.5});
  EXPECT_TENSOR_EQ(F::interpolate(xi.to(kByte), o), F::interpolate(xi.to(kDouble), o).to(kByte));
  EXPECT_TENSOR_EQ(pad_nd(xi, {2, 2, 1, 0}, PadMode::Reflect), pad_nd(xi.to(kDouble), {2, 2, 1, 0}, PadMode::Reflect).to(kLong));
  EXPECT_TENSOR_EQ(pad_nd(xi[0].to(kComplexDouble), {1, 2}, PadMode::Circular),
                   pad_nd(xi[0].to(kDouble), {1, 2}, PadMode::Circular).to(kComplexDouble));
  // bfloat16 resamples in float32
  const Tensor x = randn({1, 2, 5, 6});
  const auto bo = F::InterpolateFuncOptions().size(std::vector<int64_t>{8, 3}).mode(kBilinear).align_corners(true);
  EXPECT_TENSOR_CLOSE(F::interpolate(x.to(kBFloat16), bo).to(kFloat), F::interpolate(x.to(kBFloat16).to(kFloat), bo),
                      1e-2, 1e-2);
  EXPECT_ERROR_WITH(F::interpolate(xi, F::InterpolateFuncOptions().size(std::vector<int64_t>{3, 3}).mode(kBilinear)),
                    "\"upsample_bilinear2d\" not implemented for 'Long'");
}

TEST(Spatial, ModulesAndLibTorchSpelling) {
  manual_seed(8);
  const torch::Tensor x = torch::randn({2, 3, 4, 5});
  namespace tnn = torch::nn;
  EXPECT_TENSOR_EQ(tnn::ReflectionPad2d(tnn::ReflectionPad2dOptions({1, 1, 2, 0}))(x),
                   F::pad(x, F::PadFuncOptions({1, 1, 2, 0}).mode(torch::kReflect)));
  EXPECT_TENSOR_EQ(tnn::ReplicationPad1d(2)(x[0]), F::pad(x[0], F::PadFuncOptions({2, 2}).mode(torch::kReplicate)));
  EXPECT_TENSOR_EQ(tnn::ReplicationPad3d(1)(x), pad_nd(x, {1, 1, 1, 1, 1, 1}, PadMode::Replicate));
  EXPECT_TENSOR_EQ(tnn::ReflectionPad1d(tnn::ReflectionPad1dOptions({1, 2}))(x[0]), pad_nd(x[0], {1, 2}, PadMode::Reflect));
  EXPECT_TENSOR_EQ(tnn::ReflectionPad3d(1)(x), pad_nd(x, {1, 1, 1, 1, 1, 1}, PadMode::Reflect));
  EXPECT_TENSOR_EQ(tnn::ZeroPad2d(tnn::ZeroPad2dOptions({1, 1, 2, 0}))(x), F::pad(x, F::PadFuncOptions({1, 1, 2, 0})));
  EXPECT_TENSOR_EQ(tnn::ConstantPad3d(tnn::ConstantPad3dOptions(1, 3.5))(x),
                   F::pad(x, F::PadFuncOptions({1, 1, 1, 1, 1, 1}).mode(torch::kConstant).value(3.5)));
  EXPECT_TENSOR_EQ(tnn::ConstantPad1d(tnn::ConstantPad1dOptions({3, 1}, -1.0))(x), pad_nd(x, {3, 1}, PadMode::Constant, -1));
  tnn::Upsample up(tnn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(torch::kBilinear).align_corners(false));
  EXPECT_TENSOR_EQ(up(x), F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2})
                                               .mode(torch::kBilinear).align_corners(false)));
  tnn::Upsample up1(tnn::UpsampleOptions().size(std::vector<int64_t>{9}).mode(torch::kLinear));
  EXPECT_EQ(up1(x[0]).sizes(), IntArrayRef({3, 4, 9}));
  std::ostringstream s;
  s << *up << "|" << *tnn::ReflectionPad2d(2) << "|" << *tnn::ConstantPad2d(tnn::ConstantPad2dOptions({1, 2, 3, 4}, 0.5))
    << "|" << *tnn::PixelShuffle(2) << "|" << *tnn::Unfold(tnn::UnfoldOptions(3).stride(2));
  EXPECT_EQ(s.str(), "torch::nn::Upsample(scale_factor=[2, 2], mode=kBilinear)|torch::nn::ReflectionPad2d(padding=[2, 2, 2, 2])"
                     "|torch::nn::ConstantPad2d(padding=[1, 2, 3, 4], value=0.5)|torch::nn::PixelShuffle(upscale_factor=2)"
                     "|torch::nn::Unfold(kernel_size=[3, 3], dilation=[1, 1], padding=[0, 0], stride=[2, 2])");
  EXPECT_TENSOR_EQ(tnn::PixelUnshuffle(2)(tnn::PixelShuffle(2)(x.view({2, 12, 1, 5}))), x.view({2, 12, 1, 5}));
  tnn::Fold fold(tnn::FoldOptions({4, 5}, {2, 3}));
  tnn::Unfold unfold(tnn::UnfoldOptions({2, 3}));
  EXPECT_EQ(fold(unfold(x)).sizes(), x.sizes());
  // the string conversion lets a mode constant fill a string option
  EXPECT_EQ(std::string(torch::kCircular), "circular");
  EXPECT_TENSOR_EQ(F::one_hot(torch::tensor({2, 0}).to(torch::kLong), 4),
                   torch::tensor({{0, 0, 1, 0}, {1, 0, 0, 0}}).to(torch::kLong));
}

// PyTorch 1.13's messages (torch.nn.functional and ATen).
TEST(Spatial, Errors) {
  const Tensor x4 = randn({1, 2, 3, 3}), x3 = randn({2, 3, 4});
  auto pad = [](const Tensor& x, std::vector<int64_t> p, PadMode m, double v = 0) { return pad_nd(x, p, m, v); };
  EXPECT_ERROR_WITH(pad(x4, {3, 3, 0, 0}, PadMode::Reflect), "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (3, 3) at dimension 3");
  EXPECT_ERROR_WITH(pad(x4, {0, 0, 3, 0}, PadMode::Reflect), "Argument #6: Padding size should be less than");
  EXPECT_ERROR_WITH(pad(x4, {1, 1, 1}, PadMode::Reflect), "Padding length must be divisible by 2");
  EXPECT_ERROR_WITH(pad(x4, std::vector<int64_t>(10, 1), PadMode::Constant), "Padding length too large");
  EXPECT_ERROR_WITH(pad(x4, {1, 1}, PadMode::Reflect, 2.0), "Padding mode \"reflect\" doesn't take in value argument");
  EXPECT_ERROR_WITH(pad(x4, {4, 4, 0, 0}, PadMode::Circular), "Padding value causes wrapping around more than once.");
  EXPECT_ERROR_WITH(pad(x3, {1, 1, 1, 1}, PadMode::Circular), "Invalid padding size, expected 2 but got 4");
  EXPECT_ERROR_WITH(pad(randn({1, 2, 3, 3}), {-2, -2, 0, 0}, PadMode::Circular), "Negative padding value is resulting in an empty dimension");
  EXPECT_ERROR_WITH(pad(randn({3}), {1, 1}, PadMode::Reflect), "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  EXPECT_ERROR_WITH(pad(randn({2, 3}), {-2, -2}, PadMode::Replicate), "input (W: 3) is too small. Calculated output W: -1");
  EXPECT_ERROR_WITH(pad(randn({2, 0, 3}), {1, 1}, PadMode::Replicate), "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: [2, 0, 3]");

  using IO = F::InterpolateFuncOptions;
  const std::vector<int64_t> s44{4, 4};
  EXPECT_ERROR_WITH(F::interpolate(x4, IO().scale_factor(std::vector<double>{2}).align_corners(true)), "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear");
  EXPECT_ERROR_WITH(F::interpolate(x4, IO().size(s44).scale_factor(std::vector<double>{2})), "only one of size or scale_factor should be defined");
  EXPECT_ERROR_WITH(F::interpolate(x4, IO()), "either size or scale_factor should be defined");
  EXPECT_ERROR_WITH(F::interpolate(x4, IO().size(std::vector<int64_t>{2, 3, 4})), "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of [3, 3] and output size of [2, 3, 4].");
  EXPECT_ERROR_WITH(F::interpolate(x4, IO().scale_factor(std::vector<double>{2, 3, 4})), "Input and scale_factor must have the same number of spatial dimensions, but got input with spatial dimensions of [3, 3] and scale_factor of shape [2, 3, 4].");
  EXPECT_ERROR_WITH(F::interpolate(x4, IO().size(s44).recompute_scale_factor(true)), "recompute_scale_factor is not meaningful with an explicit size.");
  EXPECT_ERROR_WITH(F::interpolate(x3, IO().size(std::vector<int64_t>{4}).mode(kBilinear)), "Got 3D input, but bilinear mode needs 4D input");
  EXPECT_ERROR_WITH(F::interpolate(x4, IO().size(s44).mode(torch::kLinear)), "Got 4D input, but linear mode needs 3D input");
  EXPECT_ERROR_WITH(F::interpolate(x4, IO().size(s44).mode(kTrilinear)), "Got 4D input, but trilinear mode needs 5D input");
  EXPECT_ERROR_WITH(F::interpolate(x4, IO().size(std::vector<int64_t>{0, 4}).mode(kBilinear)), "Input and output sizes should be greater than 0, but got input (H: 3, W: 3) output (H: 0, W: 4)");
  EXPECT_ERROR_WITH(F::interpolate(randn({1, 2, 0, 3}), IO().size(std::vector<int64_t>{2, 2})), "Input and output sizes should be greater than 0, but got input (H: 0, W: 3) output (H: 2, W: 2)");
  EXPECT_ERROR_WITH(F::interpolate(x3, IO().size(std::vector<int64_t>{4}).mode(torch::kLinear).antialias(true)), "Anti-alias option is only supported for bilinear and bicubic modes");
  EXPECT_ERROR_WITH(F::interpolate(randn({2, 3}), IO().size(std::vector<int64_t>{4})), "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of [] and output size of [4]");

  const Tensor idx = tensor({1, 2}).to(kLong);
  EXPECT_ERROR_WITH(F::one_hot(tensor({1.0})), "one_hot is only applicable to index tensor.");
  EXPECT_ERROR_WITH(F::one_hot(tensor({-1}).to(kLong)), "Class values must be non-negative.");
  EXPECT_ERROR_WITH(F::one_hot(idx, 2), "Class values must be smaller than num_classes.");
  EXPECT_ERROR_WITH(F::one_hot(idx, -2), "Class values must be smaller than num_classes.");
  EXPECT_ERROR_WITH(F::one_hot(empty({0}, kLong)), "Can not infer total number of classes from empty tensor.");
  EXPECT_EQ(F::one_hot(empty({0}, kLong), 3).sizes(), IntArrayRef({0, 3}));

  EXPECT_ERROR_WITH(F::pixel_shuffle(randn({2, 3}), 2), "pixel_shuffle expects input to have at least 3 dimensions, but got input with 2 dimension(s)");
  EXPECT_ERROR_WITH(F::pixel_shuffle(randn({2, 5, 3, 3}), 2), "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=5 is not divisible by 4");
  EXPECT_ERROR_WITH(F::pixel_shuffle(randn({2, 4, 3, 3}), 0), "pixel_shuffle expects a positive upscale_factor, but got 0");
  EXPECT_ERROR_WITH(F::pixel_unshuffle(randn({2, 3}), 2), "pixel_unshuffle expects input to have at least 3 dimensions, but got input with 2 dimension(s)");
  EXPECT_ERROR_WITH(F::pixel_unshuffle(randn({2, 4, 3, 4}), 2), "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=3 is not divisible by 2");
  EXPECT_ERROR_WITH(F::pixel_unshuffle(randn({2, 4, 4, 3}), 2), "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=3 is not divisible by 2");
  EXPECT_ERROR_WITH(F::pixel_unshuffle(randn({2, 4, 4, 4}), 0), "pixel_unshuffle expects a positive downscale_factor, but got 0");

  EXPECT_ERROR_WITH(F::affine_grid(randn({1, 2, 3}).to(kLong), {1, 1, 2, 2}), "Expected theta to have floating point type");
  EXPECT_ERROR_WITH(F::affine_grid(randn({1, 3, 3}), {1, 1, 2, 2}), "Expected a batch of 2D affine matrices of shape Nx2x3 for size [1, 1, 2, 2]. Got [1, 3, 3].");
  EXPECT_ERROR_WITH(F::affine_grid(randn({1, 2, 3}), {1, 1, 2, 2, 2}), "Expected a batch of 3D affine matrices of shape Nx3x4 for size [1, 1, 2, 2, 2]. Got [1, 2, 3].");
  EXPECT_ERROR_WITH(F::affine_grid(randn({1, 2, 3}), {1, 1, 2}), "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size [1, 1, 2].");
  EXPECT_ERROR_WITH(F::affine_grid(randn({1, 2, 3}), {1, 1, 0, 2}), "Expected non-zero, positive output size. Got [1, 1, 0, 2]");

  EXPECT_ERROR_WITH(F::grid_sample(x4, randn({1, 2, 2, 2, 3})), "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes [1, 2, 2, 2, 3]");
  EXPECT_ERROR_WITH(F::grid_sample(x4, randn({2, 2, 2, 2})), "grid_sampler(): expected grid and input to have same batch size, but got input with sizes [1, 2, 3, 3] and grid with sizes [2, 2, 2, 2]");
  EXPECT_ERROR_WITH(F::grid_sample(randn({1, 2, 0, 3}), randn({1, 2, 2, 2})), "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes [1, 2, 0, 3] with dimension 2 being empty");
  EXPECT_ERROR_WITH(F::grid_sample(randn({1, 2, 3, 3, 3}), randn({1, 2, 2, 2, 3}), F::GridSampleFuncOptions().mode(kBicubic)), "grid_sampler(): bicubic interpolation only supports 4D input");
  EXPECT_ERROR_WITH(F::grid_sample(x4, randn({1, 2, 2, 2}, kDouble)), "expected scalar type Float but found Double");
  EXPECT_ERROR_WITH(F::grid_sample(x4, randn({1, 2, 2, 2, 2})), "grid_sampler(): expected 4D input and grid with same number of dimensions");

  using UO = F::UnfoldFuncOptions;
  EXPECT_ERROR_WITH(F::unfold(x4, UO(4)), "Given input with spatial size (3, 3), kernel_size=(4, 4), dilation=(1, 1), padding=(0, 0), calculated shape of the array of sliding blocks as (0, 0), but its components must be at least one.");
  EXPECT_ERROR_WITH(F::unfold(x4, UO(0)), "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0");
  EXPECT_ERROR_WITH(F::unfold(x4, UO(2).stride(0)), "stride should be greater than zero, but got stride_height: 0 stride_width: 0");
  EXPECT_ERROR_WITH(F::unfold(x4, UO(2).dilation(0)), "dilation should be greater than zero, but got dilation_height: 0 dilation_width: 0");
  EXPECT_ERROR_WITH(F::unfold(x4, UO(2).padding(-1)), "padding should be non-negative, but got pad_height: -1 pad_width: -1");
  EXPECT_ERROR_WITH(F::unfold(randn({2, 0, 3, 3}), UO(2)), "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: [2, 0, 3, 3]");
  using FO = F::FoldFuncOptions;
  EXPECT_ERROR_WITH(F::fold(randn({2, 4, 4}), FO(3, 3)), "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=4 and kernel_size=(3, 3).");
  EXPECT_ERROR_WITH(F::fold(randn({2, 4, 5}), FO(3, 2)), "Given output_size=(3, 3), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), stride=(1, 1), expected size of input's dimension 2 to match the calculated number of sliding blocks 2 * 2 = 4, but got input.size(2)=5.");
  EXPECT_ERROR_WITH(F::fold(randn({4}), FO(3, 2)), "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: [4]");
  EXPECT_EQ(F::fold(randn({4, 4}), FO(3, 2)).sizes(), IntArrayRef({1, 3, 3}));
  EXPECT_EQ(F::unfold(randn({2, 3, 3}), UO(2)).sizes(), IntArrayRef({8, 4}));
}

}  // namespace
}  // namespace ember
