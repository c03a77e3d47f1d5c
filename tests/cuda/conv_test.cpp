// Convolutions on CUDA through cuDNN (Note [Device convolutions]) against the CPU: conv1d/2d/3d
// and conv_transpose2d with strides, padding, dilation, groups and output padding, NCHW and
// channels-last (the output keeps the layout), every dtype cuDNN takes, gradients of input,
// weight and bias; the composite (asymmetric 'same' padding, cuDNN switched off) gives the
// same values; benchmark and deterministic modes. Skipped without a GPU.
#include <torch/torch.h>

#include "cuda_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace {

namespace F = torch::nn::functional;

// conv(x, w, b) and its gradients on CUDA and on the CPU (in double), compared.
template <class Conv>
void expect_conv_matches(const char* what, const Tensor& x, const Tensor& w, const Tensor& b, Conv&& conv,
                         ScalarType dt, bool channels_last = false) {
  SCOPED_TRACE(std::string(what) + " " + torch_name(dt));
  auto on = [&](const Tensor& t, torch::Device d, ScalarType type) {
    Tensor r = t.to(d, type);
    if (channels_last && r.dim() == 4) r = r.contiguous(torch::MemoryFormat::ChannelsLast);
    return r.detach().requires_grad_();
  };
  Tensor gx = on(x, torch::kCUDA, dt), gw = on(w, torch::kCUDA, dt), gb = on(b, torch::kCUDA, dt);
  Tensor cx = on(x, torch::kCPU, kDouble), cw = on(w, torch::kCPU, kDouble), cb = on(b, torch::kCPU, kDouble);
  Tensor gy = conv(gx, gw, gb), cy = conv(cx, cw, cb);
  if (channels_last) EXPECT_TRUE(gy.is_contiguous(torch::MemoryFormat::ChannelsLast));
  const double tol = dt == kDouble ? 1e-10 : dt == kFloat ? 2e-3 : 5e-2;
  EXPECT_TENSOR_CLOSE(gy.cpu().to(kDouble), cy.detach(), tol, tol);
  Tensor seed = random_tensor(cy.sizes(), kDouble);
  gy.backward(seed.to(torch::kCUDA, dt));
  cy.backward(seed);
  EXPECT_TENSOR_CLOSE(gx.grad().cpu().to(kDouble), cx.grad(), tol, tol * 10);
  EXPECT_TENSOR_CLOSE(gw.grad().cpu().to(kDouble), cw.grad(), tol, tol * 10);
  EXPECT_TENSOR_CLOSE(gb.grad().cpu().to(kDouble), cb.grad(), tol, tol * 10);
}

TEST(CudaConv, CudnnIsUsedWhenPresent) {
  EMBER_REQUIRE_GPU();
  EXPECT_TRUE(torch::cuda::cudnn_is_available()) << "the GPU machine's cuDNN did not open";
}

TEST(CudaConv, EveryGeometryAndDtypeMatchesTheCpu) {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kDouble, kFloat, kHalf, kBFloat16}) {
    Tensor x = random_tensor({2, 6, 11, 9}, kDouble), w = random_tensor({8, 3, 3, 3}, kDouble),
           b = random_tensor({8}, kDouble);
    for (bool cl : {false, true}) {
      expect_conv_matches("conv2d groups stride dilation", x, w, b, [](auto a, auto k, auto c) {
        return F::conv2d(a, k, F::Conv2dFuncOptions().bias(c).stride({2, 1}).padding({1, 2}).dilation({1, 2}).groups(2));
      }, dt, cl);
      expect_conv_matches("conv_transpose2d output_padding", x, random_tensor({6, 4, 3, 3}, kDouble),
                          random_tensor({8}, kDouble), [](auto a, auto k, auto c) {
                            return F::conv_transpose2d(
                                a, k, F::ConvTranspose2dFuncOptions().bias(c).stride(2).padding(1).output_padding(1).groups(2));
                          }, dt, cl);
    }
    expect_conv_matches("conv1d", random_tensor({3, 4, 17}, kDouble), random_tensor({5, 4, 4}, kDouble),
                        random_tensor({5}, kDouble), [](auto a, auto k, auto c) {
                          return F::conv1d(a, k, F::Conv1dFuncOptions().bias(c).stride(3).padding(2));
                        }, dt);
    expect_conv_matches("conv3d", random_tensor({2, 3, 5, 6, 7}, kDouble), random_tensor({4, 3, 2, 3, 2}, kDouble),
                        random_tensor({4}, kDouble), [](auto a, auto k, auto c) {
                          return F::conv3d(a, k, F::Conv3dFuncOptions().bias(c).padding(1));
                        }, dt);
    // 'same' with an even kernel pads asymmetrically: the composite, same values.
    expect_conv_matches("conv2d same even kernel", x, random_tensor({4, 6, 2, 4}, kDouble), random_tensor({4}, kDouble),
                        [](auto a, auto k, auto c) {
                          return F::conv2d(a, k, F::Conv2dFuncOptions().bias(c).padding(torch::kSame));
                        }, dt);
  }
}

TEST(CudaConv, SwitchesGiveTheSameValues) {
  EMBER_REQUIRE_GPU();
  Tensor x = random_tensor({4, 8, 16, 16}, kFloat).cuda(), w = random_tensor({16, 8, 3, 3}, kFloat).cuda();
  auto& ctx = at::globalContext();
  ctx.setAllowTF32CuDNN(false);
  const Tensor ref = torch::conv2d(x, w, {}, 1, 1).cpu();
  ctx.setBenchmarkCuDNN(true);
  EXPECT_TENSOR_CLOSE(torch::conv2d(x, w, {}, 1, 1).cpu(), ref, 1e-4, 1e-4);
  ctx.setBenchmarkCuDNN(false);
  ctx.setDeterministicCuDNN(true);
  Tensor a = torch::conv2d(x, w, {}, 1, 1).cpu(), b2 = torch::conv2d(x, w, {}, 1, 1).cpu();
  EXPECT_TENSOR_EQ(a, b2);
  ctx.setDeterministicCuDNN(false);
  ctx.setUserEnabledCuDNN(false);  // the composite
  EXPECT_TENSOR_CLOSE(torch::conv2d(x, w, {}, 1, 1).cpu(), ref, 1e-4, 1e-4);
  ctx.setUserEnabledCuDNN(true);
  ctx.setAllowTF32CuDNN(true);
  EXPECT_TENSOR_CLOSE(torch::conv2d(x, w, {}, 1, 1).cpu(), ref, 2e-2, 2e-2);  // TF32: 10-bit mantissas
}

}  // namespace
}  // namespace ember::test
