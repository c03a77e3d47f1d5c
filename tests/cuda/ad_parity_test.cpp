// Both AD modes on CUDA beyond the pointwise table: for each op below (reductions, scans,
// indexing, shape and view ops, matrix products, linear algebra, FFTs, convolutions,
// pooling, normalization, losses, attention), in double on the same inputs, the value, the
// gradient of every differentiable input (reverse mode, a random cotangent) and the tangent
// (forward mode, a random direction for every input at once) on CUDA must equal the CPU's.
// Skipped without a GPU.
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace {

namespace F = torch::nn::functional;
namespace fwd = autograd::forward_ad;
using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct Case {
  std::string name;
  std::vector<std::vector<int64_t>> shapes;  // the differentiable double inputs
  Fn fn;
  bool positive = false;  // inputs in [0.5, 1.5] (log, sqrt, norms of non-zero vectors...)
};

// The fixed, non-differentiable arguments (indices, targets) are built on the inputs' device.
Tensor on(const Tensor& like, const Tensor& t) { return t.to(like.device()); }
Tensor spd(const Tensor& a) {  // a symmetric positive-definite matrix from any square a
  return torch::matmul(a, a.transpose(-2, -1)).add(torch::eye(a.size(-1), a.options()).mul(a.size(-1)));
}

std::vector<Case> cases() {
  return {
      {"sum dims", {{4, 5, 6}}, [](auto& x) { return x[0].sum({0, 2}); }},
      {"mean keepdim", {{4, 5}}, [](auto& x) { return x[0].mean(1, true); }},
      {"var / std", {{4, 7}}, [](auto& x) { return x[0].var(1) + x[0].std(0).sum(); }},
      {"prod", {{3, 4}}, [](auto& x) { return x[0].prod(1); }, true},
      {"norm p=3", {{5, 6}}, [](auto& x) { return torch::linalg::vector_norm(x[0], 3, {1}); }, true},
      {"logsumexp", {{4, 9}}, [](auto& x) { return x[0].logsumexp(1); }},
      {"amax / max dim", {{4, 9}}, [](auto& x) { return x[0].amax(1) + std::get<0>(x[0].max(0)).sum(); }},
      {"softmax / log_softmax", {{3, 8}}, [](auto& x) { return x[0].softmax(1) + x[0].log_softmax(0); }},
      {"cumsum / cumprod", {{4, 6}}, [](auto& x) { return x[0].cumsum(1) + x[0].cumprod(0); }, true},
      {"cummax / logcumsumexp", {{4, 6}}, [](auto& x) { return std::get<0>(x[0].cummax(1)) + x[0].logcumsumexp(0); }},
      {"sort / topk", {{5, 7}}, [](auto& x) { return std::get<0>(x[0].sort(1)) .narrow(1, 0, 3) + std::get<0>(x[0].topk(3, 1)); }},
      {"index_select / gather", {{6, 5}}, [](auto& x) {
         Tensor i = on(x[0], torch::tensor({4, 0, 2, 2}, kLong));
         return x[0].index_select(0, i).sum(0) + x[0].gather(1, on(x[0], torch::tensor({{1}, {0}, {4}, {2}, {2}, {3}}, kLong))).sum();
       }},
      {"advanced indexing / index_put", {{6, 5}, {2, 5}}, [](auto& x) {
         Tensor i = on(x[0], torch::tensor({5, 1}, kLong));
         return x[0].index({i}).mul(2) + x[0].index_put({i}, x[1]).narrow(0, 0, 2);
       }},
      {"scatter_add / index_add", {{4, 5}, {4, 2}}, [](auto& x) {
         Tensor i = on(x[0], torch::tensor({{0, 4}, {1, 1}, {3, 2}, {0, 0}}, kLong));
         return x[0].scatter_add(1, i, x[1]) + x[0].index_add(1, on(x[0], torch::tensor({1, 3}, kLong)), x[1]);
       }},
      {"masked_fill / where", {{5, 6}, {5, 6}}, [](auto& x) {
         Tensor m = x[0].gt(0).detach();
         return x[0].masked_fill(m, 0.5) + torch::where(m, x[0], x[1]);
       }},
      {"cat / stack / split", {{3, 4}, {2, 4}}, [](auto& x) {
         Tensor c = torch::cat({x[0], x[1]}, 0);
         return c.split(2, 0)[1].sum(0) + torch::stack({x[0][0], x[1][1]}).sum(0);
       }},
      {"permute / unfold / flip / roll", {{4, 6}}, [](auto& x) {
         return x[0].t().flip({0}).roll(1, 1).sum(1).unsqueeze(1) + x[0].unfold(1, 3, 3).sum({1, 2}).sum();
       }},
      {"matmul / bmm / addmm", {{3, 4, 5}, {3, 5, 2}, {4, 2}}, [](auto& x) {
         return torch::bmm(x[0], x[1]) + torch::addmm(x[2], x[0][0], x[1][1]);
       }},
      {"einsum", {{3, 4}, {4, 5}, {5}}, [](auto& x) { return torch::einsum("ij,jk,k->i", {x[0], x[1], x[2]}); }},
      {"inv / det / solve", {{2, 4, 4}, {2, 4, 3}}, [](auto& x) {
         Tensor a = spd(x[0]);
         return torch::linalg::inv(a).sum(-1).unsqueeze(-1) + torch::linalg::det(a).view({2, 1, 1}) +
                torch::linalg::solve(a, x[1]).sum(-1, true);
       }},
      {"cholesky / eigh / slogdet", {{2, 4, 4}}, [](auto& x) {
         Tensor a = spd(x[0]);
         return torch::linalg::cholesky(a).sum(-1) + std::get<0>(torch::linalg::eigh(a)) +
                std::get<1>(torch::linalg::slogdet(a)).unsqueeze(-1);
       }},
      {"qr / svdvals", {{2, 5, 3}}, [](auto& x) {
         auto [q, r] = torch::linalg::qr(x[0]);
         return torch::matmul(q, r).sum(-1) + torch::linalg::svdvals(x[0]).sum(-1, true);
       }},
      {"fft / rfft / irfft", {{3, 16}}, [](auto& x) {
         return torch::real(torch::fft::fft(x[0])) + torch::fft::irfft(torch::fft::rfft(x[0]).mul(2), 16);
       }},
      {"conv2d / conv_transpose2d", {{2, 4, 7, 6}, {6, 2, 3, 3}, {6}}, [](auto& x) {
         Tensor y = F::conv2d(x[0], x[1], F::Conv2dFuncOptions().bias(x[2]).padding(1).groups(2));
         return F::conv_transpose2d(y, x[1], F::ConvTranspose2dFuncOptions().groups(2));
       }},
      {"conv1d / conv3d", {{2, 3, 9}, {4, 3, 3}, {1, 2, 4, 5, 4}, {3, 2, 2, 2, 2}}, [](auto& x) {
         return F::conv1d(x[0], x[1], F::Conv1dFuncOptions().stride(2)).sum() +
                F::conv3d(x[2], x[3], F::Conv3dFuncOptions().padding(1)).sum({1, 2, 3, 4});
       }},
      {"max / avg / adaptive pooling", {{2, 3, 8, 8}}, [](auto& x) {
         return torch::max_pool2d(x[0], 3, 2, 1).sum({2, 3}) + torch::avg_pool2d(x[0], 2).sum({2, 3}) +
                torch::adaptive_avg_pool2d(x[0], {3, 3}).sum({2, 3});
       }},
      {"batch / layer / group norm", {{4, 6, 5, 5}, {6}, {6}}, [](auto& x) {
         return F::batch_norm(x[0], Tensor(), Tensor(), F::BatchNormFuncOptions().weight(x[1]).bias(x[2]).training(true)) +
                F::layer_norm(x[0], F::LayerNormFuncOptions({5, 5})) + torch::group_norm(x[0], 3, x[1], x[2]);
       }},
      {"embedding / dropout p=0", {{10, 4}}, [](auto& x) {
         return F::embedding(on(x[0], torch::tensor({{1, 9}, {3, 3}}, kLong)), x[0]).sum(1) +
                F::dropout(x[0], F::DropoutFuncOptions().p(0.0)).narrow(0, 0, 2);
       }},
      {"losses", {{5, 4}, {5, 4}}, [](auto& x) {
         Tensor t = on(x[0], torch::tensor({0, 3, 1, 1, 2}, kLong));
         return F::cross_entropy(x[0], t) + F::mse_loss(x[0], x[1]) + F::smooth_l1_loss(x[0], x[1]) +
                F::kl_div(x[0].log_softmax(1), x[1].softmax(1), F::KLDivFuncOptions().reduction(torch::kBatchMean)) +
                F::binary_cross_entropy_with_logits(x[0], x[1].sigmoid());
       }},
      {"interpolate / pad", {{1, 2, 4, 5}}, [](auto& x) {
         return F::interpolate(F::pad(x[0], F::PadFuncOptions({1, 1, 2, 0}).mode(torch::kReflect)),
                               F::InterpolateFuncOptions().size(std::vector<int64_t>{7, 9}).mode(torch::kBilinear).align_corners(false));
       }},
      {"scaled attention (matmul softmax matmul)", {{2, 5, 8}, {2, 6, 8}, {2, 6, 8}}, [](auto& x) {
         return torch::matmul(torch::matmul(x[0], x[1].transpose(1, 2)).div(std::sqrt(8.0)).softmax(-1), x[2]);
       }},
  };
}

// One case on one device: its value, the gradients of its inputs for `cotangent` (reverse
// mode) and its tangent along `directions` (forward mode), all on the CPU.
struct Result {
  Tensor value, tangent;
  std::vector<Tensor> grads;
};
Result run_case(const Case& c, const std::vector<Tensor>& x, const std::vector<Tensor>& directions,
                const std::function<Tensor(IntArrayRef)>& cotangent, bool cuda) {
  Result r;
  std::vector<Tensor> leaves;
  for (const Tensor& t : x) leaves.push_back((cuda ? t.cuda() : t.clone()).requires_grad_());
  Tensor y = c.fn(leaves);
  r.value = y.detach().cpu();
  const Tensor cot = cotangent(y.sizes());
  y.backward(cuda ? cot.cuda() : cot);
  for (const Tensor& l : leaves) r.grads.push_back(l.grad().defined() ? l.grad().cpu() : Tensor());
  fwd::dual_level level;
  std::vector<Tensor> duals;
  for (size_t i = 0; i < x.size(); ++i)
    duals.push_back(fwd::make_dual(cuda ? x[i].cuda() : x[i], cuda ? directions[i].cuda() : directions[i]));
  Tensor t = fwd::unpack_dual(c.fn(duals)).tangent;
  r.tangent = t.defined() ? t.cpu() : t;
  return r;
}

struct Inputs {
  std::vector<Tensor> x, v;
};
Inputs inputs_of(const Case& c) {
  Inputs in;
  for (const auto& s : c.shapes) {
    Tensor t = random_tensor(s, kDouble);
    in.x.push_back(c.positive ? t.sigmoid().add(0.5) : t);
    in.v.push_back(random_tensor(s, kDouble));
  }
  return in;
}

// Runs here: every case computes in both AD modes on the CPU (so the GPU comparison below
// cannot fail for a reason unrelated to CUDA), with a gradient for every input and a tangent.
TEST(CudaAdParity, EveryCaseRunsInBothModesOnTheCpu) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Inputs in = inputs_of(c);
    Result r;
    ASSERT_NO_THROW(r = run_case(c, in.x, in.v, [](IntArrayRef s) { return random_tensor(s, kDouble); }, false));
    for (size_t i = 0; i < r.grads.size(); ++i) EXPECT_TRUE(r.grads[i].defined()) << "input " << i;
    EXPECT_TRUE(r.tangent.defined());
  }
}

TEST(CudaAdParity, ValuesGradientsAndTangentsMatchTheCpu) {
  EMBER_REQUIRE_GPU();
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Inputs in = inputs_of(c);
    Tensor cot;
    auto cotangent = [&](IntArrayRef s) {
      if (!cot.defined()) cot = random_tensor(s, kDouble);  // the same one on both devices
      return cot;
    };
    const Result cpu = run_case(c, in.x, in.v, cotangent, false);
    const Result gpu = run_case(c, in.x, in.v, cotangent, true);
    EXPECT_TENSOR_CLOSE(gpu.value, cpu.value, 1e-8, 1e-8);
    for (size_t i = 0; i < cpu.grads.size(); ++i) {
      SCOPED_TRACE("gradient of input " + std::to_string(i));
      ASSERT_EQ(cpu.grads[i].defined(), gpu.grads[i].defined());
      if (cpu.grads[i].defined()) EXPECT_TENSOR_CLOSE(gpu.grads[i], cpu.grads[i], 1e-8, 1e-8);
    }
    ASSERT_EQ(cpu.tangent.defined(), gpu.tangent.defined());
    if (cpu.tangent.defined()) EXPECT_TENSOR_CLOSE(gpu.tangent, cpu.tangent, 1e-8, 1e-8);
  }
}

}  // namespace
}  // namespace ember::test
