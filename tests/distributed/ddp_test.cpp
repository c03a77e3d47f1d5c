// DistributedDataParallel (ember/distributed/ddp.h, Note [DDP gradient buckets]) on two
// forked ranks over Gloo: parameters broadcast from rank 0, gradients equal to the average
// over the ranks (against the same model differentiated on the whole batch in one process),
// several buckets, bitwise-equal parameters after optimizer steps, no_sync accumulation,
// find_unused_parameters (a parameter unused on one rank only is averaged with zeros there;
// one unused everywhere keeps its .grad), and the error for an unused parameter without it.
#include <torch/torch.h>

#include "ember/distributed/ddp.h"
#include "store_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace ddp {  // named: the tests build as one unity file

namespace dist = ember::distributed;
using dist::store_testing::require;
using namespace std::chrono_literals;

struct NetImpl : torch::nn::Module {
  torch::nn::Linear a{nullptr}, b{nullptr}, unused{nullptr};
  explicit NetImpl(bool with_unused = false) {
    a = register_module("a", torch::nn::Linear(6, 8));
    b = register_module("b", torch::nn::Linear(8, 3));
    if (with_unused) unused = register_module("unused", torch::nn::Linear(3, 3));
  }
  torch::Tensor forward(const torch::Tensor& x) { return b(torch::relu(a(x))); }
};
TORCH_MODULE(Net);

bool close(const Tensor& a, const Tensor& b) { return a.allclose(b, 1e-5, 1e-6); }

// Runs body(rank) in two forked ranks that share a default Gloo group.
void on_two_ranks(const std::function<void(int)>& body) {
  uint16_t port = 0;
  ::close(dist::store_testing::bound_socket(port));
  std::vector<pid_t> kids;
  for (int rank = 0; rank < 2; ++rank)
    kids.push_back(dist::store_testing::fork_child([&, rank] {
      dist::init_process_group("gloo", "tcp://127.0.0.1:" + std::to_string(port), 2, rank, 20s);
      body(rank);
      dist::destroy_process_group();
    }));
  dist::store_testing::expect_children_succeed(kids);
}

// The whole batch (both ranks' halves) and the reference gradients of a copy of `net`.
struct Data {
  Tensor x, y;
};
Data data(int step) {
  torch::manual_seed(100 + uint64_t(step));
  return {torch::randn({8, 6}), torch::randn({8, 3})};
}

TEST(DistributedDataParallel, GradientsAreTheAverageAndParametersStayEqual) {
  on_two_ranks([](int rank) {
    torch::manual_seed(uint64_t(rank));  // different initial weights: DDP broadcasts rank 0's
    Net net;
    nn::parallel::DistributedDataParallelOptions o;
    o.bucket_cap_mb = 1e-4;  // ~100 bytes: several buckets
    nn::parallel::DistributedDataParallel<Net> ddp(net, nullptr, o);
    require(ddp.reducer().bucket_indices().size() >= 3, "several buckets");
    torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
    for (int step = 0; step < 3; ++step) {
      const Data d = data(step);
      // The reference: a copy of the current model on the whole batch (mean of the halves' means).
      Net ref;
      {
        torch::NoGradGuard g;
        for (size_t i = 0; i < ref->parameters().size(); ++i) ref->parameters()[i].copy_(net->parameters()[i]);
      }
      (torch::mse_loss(ref(d.x), d.y)).backward();
      opt.zero_grad();
      const Tensor xs = d.x.narrow(0, 4 * rank, 4), ys = d.y.narrow(0, 4 * rank, 4);
      torch::mse_loss(ddp(xs), ys).backward();
      for (size_t i = 0; i < ref->parameters().size(); ++i)
        require(close(net->parameters()[i].grad(), ref->parameters()[i].grad()), "averaged gradient " + std::to_string(i));
      opt.step();
    }
    // Bitwise-equal parameters on both ranks.
    std::vector<Tensor> flat;
    for (const Tensor& p : net->parameters()) flat.push_back(p.detach().reshape({-1}));
    Tensor mine = torch::cat(flat), both = torch::empty({2 * mine.numel()});
    dist::all_gather_into_tensor(both, mine);
    require(torch::equal(both.narrow(0, 0, mine.numel()), both.narrow(0, mine.numel(), mine.numel())),
            "bitwise-equal parameters");
  });
}

TEST(DistributedDataParallel, NoSyncAccumulatesLocally) {
  on_two_ranks([](int rank) {
    Net net;
    nn::parallel::DistributedDataParallel<Net> ddp(net);
    const Data d1 = data(1), d2 = data(2);
    Net ref;
    {
      torch::NoGradGuard g;
      for (size_t i = 0; i < ref->parameters().size(); ++i) ref->parameters()[i].copy_(net->parameters()[i]);
    }
    // Reference: the sum over the two micro-batches of the whole-batch gradients.
    torch::mse_loss(ref(d1.x), d1.y).backward();
    torch::mse_loss(ref(d2.x), d2.y).backward();
    {
      auto guard = ddp.no_sync();
      torch::mse_loss(ddp(d1.x.narrow(0, 4 * rank, 4)), d1.y.narrow(0, 4 * rank, 4)).backward();
    }
    torch::mse_loss(ddp(d2.x.narrow(0, 4 * rank, 4)), d2.y.narrow(0, 4 * rank, 4)).backward();
    for (size_t i = 0; i < ref->parameters().size(); ++i)
      require(close(net->parameters()[i].grad(), ref->parameters()[i].grad()), "accumulated, then averaged");
  });
}

// DDP reads .grad after accumulation: a gradient hook registered after DDP (here doubling
// the gradient) is part of what is averaged (PyTorch's post-accumulate semantics).
TEST(DistributedDataParallel, GradientHooksRegisteredAfterDdpCount) {
  on_two_ranks([](int rank) {
    Net net;
    nn::parallel::DistributedDataParallel<Net> ddp(net);
    Net ref;
    {
      torch::NoGradGuard g;
      for (size_t i = 0; i < ref->parameters().size(); ++i) ref->parameters()[i].copy_(net->parameters()[i]);
    }
    for (torch::Tensor& p : net->parameters()) p.register_hook([](const torch::Tensor& g) { return g.mul(2); });
    const Data d = data(3);
    torch::mse_loss(ref(d.x), d.y).backward();
    torch::mse_loss(ddp(d.x.narrow(0, 4 * rank, 4)), d.y.narrow(0, 4 * rank, 4)).backward();
    for (size_t i = 0; i < ref->parameters().size(); ++i)
      require(close(net->parameters()[i].grad(), ref->parameters()[i].grad().mul(2)), "the doubled gradient, averaged");
  });
}

TEST(DistributedDataParallel, UnusedParameters) {
  on_two_ranks([](int rank) {
    Net net(/*with_unused=*/true);
    nn::parallel::DistributedDataParallelOptions o;
    o.find_unused_parameters = true;
    nn::parallel::DistributedDataParallel<Net> ddp(net, nullptr, o);
    const Data d = data(0);
    torch::mse_loss(ddp(d.x.narrow(0, 4 * rank, 4)), d.y.narrow(0, 4 * rank, 4)).backward();
    // Unused on every rank: its .grad is left as it was (undefined), as PyTorch's.
    require(!net->unused->weight.grad().defined(), "a globally unused parameter's gradient is untouched");
    require(net->a->weight.grad().abs().sum().item<double>() > 0, "the used ones are reduced");
  });
  // Used on rank 1 only: rank 0's part counts as zero in the average.
  struct SometimesImpl : torch::nn::Module {
    torch::nn::Linear a{nullptr}, extra{nullptr};
    int rank;
    explicit SometimesImpl(int r) : rank(r) {
      a = register_module("a", torch::nn::Linear(6, 3));
      extra = register_module("extra", torch::nn::Linear(3, 3));
    }
    torch::Tensor forward(const torch::Tensor& x) { return rank == 1 ? extra(a(x)) : a(x); }
  };
  on_two_ranks([](int rank) {
    auto m = std::make_shared<SometimesImpl>(rank);
    torch::nn::ModuleHolder<SometimesImpl> holder(m);
    nn::parallel::DistributedDataParallelOptions o;
    o.find_unused_parameters = true;
    nn::parallel::DistributedDataParallel<torch::nn::ModuleHolder<SometimesImpl>> ddp(holder, nullptr, o);
    const Data d = data(0);
    torch::mse_loss(ddp(d.x.narrow(0, 4 * rank, 4)), d.y.narrow(0, 4 * rank, 4)).backward();
    require(m->extra->weight.grad().defined(), "used on one rank: reduced everywhere");
    // Rank 0 contributed zeros: both ranks hold half of rank 1's gradient.
    Tensor g = m->extra->weight.grad().clone(), both = torch::empty({2 * g.numel()});
    dist::all_gather_into_tensor(both, g.reshape({-1}));
    require(torch::equal(both.narrow(0, 0, g.numel()), both.narrow(0, g.numel(), g.numel())), "same on both ranks");
  });
  on_two_ranks([](int rank) {
    Net net(/*with_unused=*/true);
    nn::parallel::DistributedDataParallel<Net> ddp(net);
    const Data d = data(0);
    bool raised = false;
    try {
      torch::mse_loss(ddp(d.x.narrow(0, 4 * rank, 4)), d.y.narrow(0, 4 * rank, 4)).backward();
    } catch (const Error& e) {
      raised = std::string(e.what()).find("unused.weight") != std::string::npos &&
               std::string(e.what()).find("find_unused_parameters") != std::string::npos;
    }
    require(raised, "the unused parameter is named in the error");
  });
}

TEST(DistributedDataParallel, DifferentModelsOnTheRanksAreAnErrorEverywhere) {
  on_two_ranks([](int rank) {
    Net net(/*with_unused=*/rank == 1);
    try {
      nn::parallel::DistributedDataParallel<Net> ddp(net);
    } catch (const std::exception& e) {
      const std::string m = e.what();
      require(m.find("group rank(s) 1 differ from rank 0's") != std::string::npos, m);
      require(rank == 0 || m.find("here 6 parameters and buffers, on rank 0 4") != std::string::npos, m);
      return;
    }
    require(false, "expected an error");
  });
}

}  // namespace ddp
}  // namespace ember::test
