// Distributed figures of issue 17 (run by bench/dist_bench.sh under `ember run`):
//   1. all-reduce of float32 buffers, ember (dist::all_reduce through ProcessGroupGloo) against
//      Gloo's own allreduce called directly on a context of its own (the engine without
//      ember's wrapper): bus bandwidth 2 (n - 1) / n * bytes / time, and the ratio;
//   2. DistributedDataParallel's step overhead over the same step without DDP on each rank
//      (forward, backward, SGD) for an MLP and the digits CNN.
// Rank 0 prints "<case>\t<value>" lines.
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <utility>
#include <vector>
#include <string>

#include "bench/bench_util.h"
#include "ember/distributed/ddp.h"

namespace dist = ember::distributed;

namespace {

// Gloo's rendezvous through an ember store.
class Bridge : public gloo::rendezvous::Store {
 public:
  explicit Bridge(std::shared_ptr<dist::Store> s) : s_(std::move(s)) {}
  void set(const std::string& k, const std::vector<char>& v) override { s_->set(k, std::vector<uint8_t>(v.begin(), v.end())); }
  std::vector<char> get(const std::string& k) override {
    auto v = s_->get(k);
    return {v.begin(), v.end()};
  }
  void wait(const std::vector<std::string>& keys) override { s_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& t) override { s_->wait(keys, t); }

 private:
  std::shared_ptr<dist::Store> s_;
};

template <class F>
double seconds_per(F&& f) {
  return bench::time_per_iter(f, 0.2);
}

// Seconds per call of a collective `a` and of `b`: the calls alternate one by one (a, b, a,
// b, ...) and each is timed alone; the medians are compared, so the machine's drift and
// bursts hit both alike. The ranks agree on the number of calls (the larger of their
// calibrations to ~1 s), so they make the same calls.
std::pair<double, double> alternating(const std::function<void()>& a, const std::function<void()>& b) {
  for (int i = 0; i < 3; ++i) a(), b();
  const auto t0 = std::chrono::steady_clock::now();
  a();
  const double once = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  torch::Tensor agreed = torch::full({1}, int64_t(std::clamp(0.5 / std::max(once, 1e-6), 20.0, 2000.0)));
  dist::all_reduce(agreed, dist::ReduceOp::MAX);
  const int64_t calls = agreed.item<int64_t>();
  std::vector<double> ta, tb;
  dist::barrier();
  for (int64_t r = 0; r < calls; ++r) {
    for (auto [f, out] : {std::pair{&a, &ta}, std::pair{&b, &tb}}) {
      const auto s0 = std::chrono::steady_clock::now();
      (*f)();
      out->push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count());
    }
  }
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  return {ta[ta.size() / 2], tb[tb.size() / 2]};
}

}  // namespace

int main() {
  dist::init_process_group("gloo");
  const int rank = dist::get_rank(), world = dist::get_world_size();
  torch::set_num_threads(1);
  // A raw Gloo context beside ember's group, meeting through a store of its own prefix.
  const dist::RendezvousEnv env = dist::rendezvous_env();
  auto store = std::make_shared<dist::TCPStore>(env.master_addr, uint16_t(env.master_port + 1), world, rank == 0);
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, world);
  Bridge bridge(store);
  gloo::rendezvous::PrefixStore prefixed("raw_gloo_bench", bridge);
  ctx->connectFullMesh(prefixed, device);
  auto print = [&](const std::string& name, double v) {
    if (rank == 0) std::printf("%s\t%.4g\n", name.c_str(), v);
    std::fflush(stdout);
  };
  for (int64_t mib : {1, 4, 16, 64}) {
    const int64_t n = mib * 1024 * 1024 / 4;
    torch::Tensor t = torch::ones({n});
    std::vector<float> raw(size_t(n), 1.0f);
    uint32_t tag = 1000;
    const auto [ember_s, gloo_s] = alternating([&] { dist::all_reduce(t); },
                                               [&] {
                                                 gloo::AllreduceOptions o(ctx);
                                                 o.setOutput(raw.data(), raw.size());
                                                 o.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, size_t)>(
                                                     &gloo::sum<float>));
                                                 o.setTag(tag++);
                                                 gloo::allreduce(o);
                                               });
    const double bus = 2.0 * (world - 1) / world * double(n) * 4;
    print("allreduce " + std::to_string(mib) + " MiB busbw ember GB/s", bus / ember_s / 1e9);
    print("allreduce " + std::to_string(mib) + " MiB busbw gloo GB/s", bus / gloo_s / 1e9);
    print("allreduce " + std::to_string(mib) + " MiB ratio ember/gloo (bandwidth)", gloo_s / ember_s);
  }
  // DDP step overhead.
  auto overhead = [&](const std::string& name, auto make, torch::Tensor x, torch::Tensor y) {
    auto local = make();
    auto wrapped = make();
    ember::nn::parallel::DistributedDataParallel<decltype(wrapped)> ddp(wrapped);
    torch::optim::SGD opt_local(local->parameters(), 0.01), opt_ddp(wrapped->parameters(), 0.01);
    dist::barrier();
    const double t_local = seconds_per([&] {
      opt_local.zero_grad();
      torch::nn::functional::cross_entropy(local->forward(x), y).backward();
      opt_local.step();
    });
    dist::barrier();
    const double t_ddp = seconds_per([&] {
      opt_ddp.zero_grad();
      torch::nn::functional::cross_entropy(ddp(x), y).backward();
      opt_ddp.step();
    });
    print(name + " step local ms", t_local * 1e3);
    print(name + " step DDP ms", t_ddp * 1e3);
    print(name + " DDP overhead %", (t_ddp / t_local - 1) * 100);
  };
  torch::manual_seed(0);
  overhead("MLP 784-1024-1024-10 b64", [] {
    using namespace torch::nn;
    return Sequential(Linear(784, 1024), ReLU(), Linear(1024, 1024), ReLU(), Linear(1024, 10));
  }, torch::randn({64, 784}), torch::randint(0, 10, {64}));
  overhead("digits CNN b32", [] {
    using namespace torch::nn;
    return Sequential(Conv2d(Conv2dOptions(1, 32, 3).padding(1)), ReLU(), Conv2d(Conv2dOptions(32, 64, 3).padding(1)),
                      ReLU(), MaxPool2d(2), Flatten(), Linear(64 * 4 * 4, 128), ReLU(), Linear(128, 10));
  }, torch::randn({32, 1, 8, 8}), torch::randint(0, 10, {32}));
  dist::destroy_process_group();
  return 0;
}
