// torch::fft on CUDA (cuFFT, Note [Device FFTs]) against the CPU: complex and real transforms
// over 1 to 4 dims, odd/even/prime lengths, non-contiguous input, every norm mode, batches,
// the plan cache across shapes, gradients, and stft. Results stay on the device. The op-level
// code is also run without a GPU by tests/ops/fft_device_glue_test. Skipped without a GPU.
#include <torch/torch.h>

#include "cuda_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace {

TEST(CudaFft, ComplexAndRealTransformsMatchTheCpu) {
  EMBER_REQUIRE_GPU();
  for (ScalarType t : {kFloat, kDouble}) {
    SCOPED_TRACE(torch_name(t));
    const double r = t == kFloat ? 1e-3 : 1e-9;
    const ScalarType ct = toComplexType(t);
    for (int64_t n : {16, 17, 97, 1000}) {
      Tensor x = random_tensor({3, n}, ct), xr = random_tensor({3, n}, t);
      Tensor y = torch::fft::fft(x.cuda());
      EXPECT_TRUE(y.is_cuda());
      EXPECT_TENSOR_CLOSE(y.cpu(), torch::fft::fft(x), r, r * n);
      EXPECT_TENSOR_CLOSE(torch::fft::ifft(x.cuda(), std::nullopt, -1, "ortho").cpu(),
                          torch::fft::ifft(x, std::nullopt, -1, "ortho"), r, r);
      EXPECT_TENSOR_CLOSE(torch::fft::rfft(xr.cuda()).cpu(), torch::fft::rfft(xr), r, r * n);
      Tensor X = torch::fft::rfft(xr);
      EXPECT_TENSOR_CLOSE(torch::fft::irfft(X.cuda(), n).cpu(), xr, r, r);
      EXPECT_TENSOR_CLOSE(torch::fft::hfft(X.cuda(), n).cpu(), torch::fft::hfft(X, n), r, r * n);
    }
    Tensor v = random_tensor({4, 6, 5, 8}, ct);
    EXPECT_TENSOR_CLOSE(torch::fft::fftn(v.cuda()).cpu(), torch::fft::fftn(v), r, r * 1000);
    EXPECT_TENSOR_CLOSE(torch::fft::fft2(v.cuda().transpose(1, 3), std::nullopt, {0, 2}, "forward").cpu(),
                        torch::fft::fft2(v.transpose(1, 3), std::nullopt, {0, 2}, "forward"), r, r);
    Tensor w = random_tensor({4, 6, 5, 8}, t);
    EXPECT_TENSOR_CLOSE(torch::fft::rfftn(w.cuda()).cpu(), torch::fft::rfftn(w), r, r * 1000);
    EXPECT_TENSOR_CLOSE(torch::fft::irfftn(torch::fft::rfftn(w).cuda(), w.sizes()).cpu(), w, r, r);
    EXPECT_TENSOR_CLOSE(torch::fft::rfft2(w.cuda(), std::nullopt, {1, 3}, "ortho").cpu(),
                        torch::fft::rfft2(w, std::nullopt, {1, 3}, "ortho"), r, r);
  }
}

TEST(CudaFft, GradientsAndStft) {
  EMBER_REQUIRE_GPU();
  Tensor x = random_tensor({2, 64}, kDouble);
  Tensor g = x.cuda().requires_grad_(), c = x.clone().requires_grad_();
  torch::fft::irfft(torch::fft::rfft(g).mul(torch::fft::fft(g.to(kComplexDouble)).narrow(-1, 0, 33)), 64).pow(2).sum().backward();
  torch::fft::irfft(torch::fft::rfft(c).mul(torch::fft::fft(c.to(kComplexDouble)).narrow(-1, 0, 33)), 64).pow(2).sum().backward();
  EXPECT_TENSOR_CLOSE(g.grad().cpu(), c.grad(), 1e-9, 1e-9);
  Tensor s = random_tensor({400}, kFloat), win = torch::hann_window(64);
  Tensor gs = torch::stft(s.cuda(), 64, 16, 64, win.cuda(), true, "reflect", false, std::nullopt, true);
  Tensor cs = torch::stft(s, 64, 16, 64, win, true, "reflect", false, std::nullopt, true);
  EXPECT_TENSOR_CLOSE(gs.cpu(), cs, 1e-4, 1e-3);
  Tensor back = torch::istft(gs, 64, 16, 64, win.cuda(), true, false, std::nullopt, 400);
  EXPECT_TENSOR_CLOSE(back.cpu(), s, 1e-4, 1e-4);
}

TEST(CudaFft, HalfPrecisionIsRefusedAsOnTheCpu) {
  EMBER_REQUIRE_GPU();
  Tensor h = torch::ones({8}, torch::TensorOptions().dtype(kHalf).device(torch::kCUDA));
  EXPECT_ERROR_WITH(torch::fft::fft(h.to(kComplexHalf)), "Unsupported dtype");
}

}  // namespace
}  // namespace ember::test
