// The matmul family on CUDA (cuBLAS) against the CPU: every floating and complex dtype,
// transposed and broadcast operands, batches, addmm's scaling, the TF32 switch, and the
// error for integer types (as PyTorch). Skipped without a GPU.
#include <torch/torch.h>

#include "cuda_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace {

TEST(CudaMatmul, MatchesTheCpuForEveryFloatingType) {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kComplexFloat, kComplexDouble}) {
    SCOPED_TRACE(torch_name(dt));
    Tensor a = random_tensor({33, 17}, dt), b = random_tensor({17, 29}, dt), c = random_tensor({33, 29}, dt);
    Tensor ga = a.cuda(), gb = b.cuda(), gc = c.cuda();
    const double t = cuda_rtol(dt);
    EXPECT_TENSOR_CLOSE(torch::mm(ga, gb).cpu(), torch::mm(a, b), t, t);
    EXPECT_TENSOR_CLOSE(torch::mm(gb.t(), ga.t()).cpu(), torch::mm(b.t(), a.t()), t, t);  // transposed reads
    EXPECT_TENSOR_CLOSE(torch::addmm(gc, ga, gb, 0.5, 2).cpu(), torch::addmm(c, a, b, 0.5, 2), t, t);
    Tensor x = random_tensor({4, 33, 17}, dt), y = random_tensor({17, 5}, dt);
    EXPECT_TENSOR_CLOSE(torch::matmul(x.cuda(), y.cuda()).cpu(), torch::matmul(x, y), t, t);  // broadcast
    Tensor p = random_tensor({3, 8, 6}, dt), q = random_tensor({3, 6, 7}, dt);
    EXPECT_TENSOR_CLOSE(torch::bmm(p.cuda(), q.cuda()).cpu(), torch::bmm(p, q), t, t);
    Tensor v = random_tensor({17}, dt);
    EXPECT_TENSOR_CLOSE(torch::mv(ga, v.cuda()).cpu(), torch::mv(a, v), t, t);
  }
}

TEST(CudaMatmul, LinearAndItsGradients) {
  EMBER_REQUIRE_GPU();
  Tensor x = random_tensor({8, 16}, kFloat), w = random_tensor({4, 16}, kFloat), b = random_tensor({4}, kFloat);
  Tensor gx = x.cuda().requires_grad_(), gw = w.cuda().requires_grad_();
  Tensor y = torch::nn::functional::linear(gx, gw, b.cuda());
  EXPECT_TENSOR_CLOSE(y.cpu(), torch::nn::functional::linear(x, w, b), 1e-4, 1e-4);
  // d(sum y)/dx = ones @ w: the backward's matmuls run on the device too.
  y.backward(torch::ones_like(y));
  EXPECT_TENSOR_CLOSE(gx.grad().cpu(), torch::ones({8, 4}).mm(w), 1e-4, 1e-4);
  EXPECT_TENSOR_CLOSE(gw.grad().cpu(), torch::ones({4, 8}).mm(x), 1e-4, 1e-4);
}

TEST(CudaMatmul, Tf32IsOptIn) {
  EMBER_REQUIRE_GPU();
  EXPECT_FALSE(at::globalContext().allowTF32CuBLAS()) << "off by default, as PyTorch since 1.12";
  Tensor a = random_tensor({256, 256}, kFloat), b = random_tensor({256, 256}, kFloat);
  Tensor exact = torch::mm(a.to(kDouble), b.to(kDouble));
  Tensor fp32 = torch::mm(a.cuda(), b.cuda()).cpu().to(kDouble);
  at::globalContext().setAllowTF32CuBLAS(true);
  Tensor tf32 = torch::mm(a.cuda(), b.cuda()).cpu().to(kDouble);
  at::globalContext().setAllowTF32CuBLAS(false);
  const double e32 = (fp32 - exact).abs().max().item<double>(), etf = (tf32 - exact).abs().max().item<double>();
  EXPECT_LT(e32, 1e-3);
  EXPECT_LT(etf, 0.5);  // 10-bit mantissas: larger error, still close
}

// Note [GEMM with bias on cuBLASLt]: addmm with a row-broadcast bias (and linear, whose
// leading dims flatten into it) adds the bias in the GEMM's epilogue.
TEST(CudaMatmul, BiasEpilogueMatchesTheCpu) {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kFloat, kHalf, kBFloat16}) {
    SCOPED_TRACE(torch_name(dt));
    const double t = cuda_rtol(dt) * 5;
    Tensor a = random_tensor({37, 24}, dt), w = random_tensor({19, 24}, dt), bias = random_tensor({19}, dt);
    EXPECT_TENSOR_CLOSE(torch::addmm(bias.cuda(), a.cuda(), w.cuda().t()).cpu().to(kDouble),
                        torch::addmm(bias.to(kDouble), a.to(kDouble), w.to(kDouble).t()), t, t);
    EXPECT_TENSOR_CLOSE(torch::addmm(bias.cuda().unsqueeze(0), a.cuda().t().contiguous().t(), w.cuda().t()).cpu().to(kDouble),
                        torch::addmm(bias.to(kDouble), a.to(kDouble), w.to(kDouble).t()), t, t);
    Tensor x = random_tensor({3, 5, 24}, dt);
    EXPECT_TENSOR_CLOSE(torch::nn::functional::linear(x.cuda(), w.cuda(), bias.cuda()).cpu().to(kDouble),
                        torch::nn::functional::linear(x.to(kDouble), w.to(kDouble), bias.to(kDouble)), t, t);
  }
  // Gradients through linear with a 3-d input.
  Tensor x = random_tensor({4, 3, 8}, kFloat), w = random_tensor({5, 8}, kFloat), b = random_tensor({5}, kFloat);
  Tensor gx = x.cuda().requires_grad_(), gw = w.cuda().requires_grad_(), gb = b.cuda().requires_grad_();
  Tensor cx = x.clone().requires_grad_(), cw = w.clone().requires_grad_(), cb = b.clone().requires_grad_();
  torch::nn::functional::linear(gx, gw, gb).pow(2).sum().backward();
  torch::nn::functional::linear(cx, cw, cb).pow(2).sum().backward();
  EXPECT_TENSOR_CLOSE(gx.grad().cpu(), cx.grad(), 1e-4, 1e-4);
  EXPECT_TENSOR_CLOSE(gw.grad().cpu(), cw.grad(), 1e-4, 1e-4);
  EXPECT_TENSOR_CLOSE(gb.grad().cpu(), cb.grad(), 1e-4, 1e-4);
}

TEST(CudaMatmul, IntegerTypesAreNotImplemented) {
  EMBER_REQUIRE_GPU();
  Tensor a = torch::ones({2, 2}, torch::TensorOptions().dtype(kLong).device(torch::kCUDA));
  EXPECT_ERROR_WITH(torch::mm(a, a), "not implemented for 'Long'");
}

}  // namespace
}  // namespace ember::test
