// Autograd benchmark cases, written against the LibTorch API so the same source builds
// against ember (through compat/torch/torch.h) and against LibTorch (see bench/compare.sh,
// BENCH=autograd_bench). Prints "<name> <seconds per iteration> <work> <unit>" per case.
// The forward-mode case (jvp through the MLP w.r.t. its input, against the plain forward)
// uses ember's
// forward_ad API, which LibTorch's C++ frontend does not expose; it runs on ember only.
// Usage: autograd_bench [threads] [filter-substring]
#include <torch/torch.h>

#include "bench_util.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

using bench::time_per_iter;

using bench::Case;

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  std::string filter = argc > 2 ? argv[2] : "";
  torch::set_num_threads(threads);
  torch::manual_seed(0);

  // A chain of 1000 one-element ops (alternating mul and add), forward + backward.
  auto x1 = torch::ones({1}, torch::requires_grad());
  auto chain = [&] {
    torch::Tensor y = x1;
    for (int i = 0; i < 500; ++i) {
      y = y * 1.0001;
      y = y + 0.5;
    }
    y.backward();
    x1.mutable_grad().reset();
  };

  // MLP 784-512-512-10, batch 128, forward + backward (mean of log_softmax as the loss).
  auto w1 = (torch::randn({784, 512}) * 0.03).requires_grad_();
  auto b1 = torch::zeros({512}, torch::requires_grad());
  auto w2 = (torch::randn({512, 512}) * 0.04).requires_grad_();
  auto b2 = torch::zeros({512}, torch::requires_grad());
  auto w3 = (torch::randn({512, 10}) * 0.04).requires_grad_();
  auto b3 = torch::zeros({10}, torch::requires_grad());
  auto batch = torch::randn({128, 784});
  auto mlp = [&](const torch::Tensor& in) {
    auto h1 = torch::relu(torch::addmm(b1, in, w1));
    auto h2 = torch::relu(torch::addmm(b2, h1, w2));
    return torch::addmm(b3, h2, w3);
  };
  const double mlp_flops = 2.0 * 128 * (784 * 512 + 512 * 512 + 512 * 10);
  auto train_step = [&] {
    auto loss = torch::log_softmax(mlp(batch), 1).mean();
    loss.backward();
    for (auto* p : {&w1, &b1, &w2, &b2, &w3, &b3}) p->mutable_grad().reset();
  };

  std::vector<Case> cases = {
      {"chain 1000 x 1-element fwd+bwd", 1000.0, "op", chain},
      {"MLP 784-512-512-10 b128 fwd+bwd", 3 * mlp_flops, "FLOP", train_step},
  };
#ifdef EMBER_CHECK
  // Forward mode: a jvp of the MLP's output with respect to its input along a direction
  // (the input as a dual tensor), against the plain forward.
  namespace fwd = torch::autograd::forward_ad;
  auto direction = torch::randn({128, 784});
  auto plain_forward = [&] {
    torch::NoGradGuard g;
    auto out = mlp(batch);
  };
  auto jvp_forward = [&] {
    torch::NoGradGuard g;
    fwd::dual_level level;
    auto out = mlp(fwd::make_dual(batch, direction));
    auto t = fwd::unpack_dual(out).tangent;
  };
  cases.push_back({"MLP forward (no grad)", mlp_flops, "FLOP", plain_forward});
  cases.push_back({"MLP jvp (forward mode)", mlp_flops, "FLOP", jvp_forward});
#endif
  bench::run_cases(cases, filter, 0.05);
  return 0;
}
