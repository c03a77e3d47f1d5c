// Data-parallel training of the digits CNN with DistributedDataParallel over Gloo:
//
//   ember run --nproc-per-node 2 build/examples/ddp_digits [digits.csv.gz] [epochs]
//
// Every rank builds the same model (DDP broadcasts rank 0's weights), trains on its own
// half of each shuffled epoch (the same permutation on every rank, split by rank), and the
// gradients are averaged over the ranks, so the ranks take identical Adam steps on the
// global batch. Run without `ember run` it is a world of one. Rank 0 prints the held-out
// accuracy; the ranks' parameters are checked to be bitwise equal at the end.
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "digits_data.h"
#include "ember/distributed/ddp.h"

namespace dist = ember::distributed;

namespace {

struct NetImpl : torch::nn::Module {
  torch::nn::Sequential body{nullptr};
  NetImpl() {
    using namespace torch::nn;
    body = register_module("body", Sequential(Conv2d(Conv2dOptions(1, 32, 3).padding(1)), ReLU(),
                                              Conv2d(Conv2dOptions(32, 64, 3).padding(1)), ReLU(), MaxPool2d(2),
                                              Flatten(), Linear(64 * 4 * 4, 128), ReLU(), Linear(128, 10)));
  }
  torch::Tensor forward(const torch::Tensor& x) { return body->forward(x); }
};
TORCH_MODULE(Net);

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string path = argc > 1 ? argv[1] : EMBER_DIGITS_CSV;
    const int64_t epochs = argc > 2 ? std::atoll(argv[2]) : 8;
    if (std::getenv("WORLD_SIZE")) {
      dist::init_process_group("gloo");
    } else {
      dist::init_process_group("gloo", "", 1, 0, dist::kDefaultPgTimeout, std::make_shared<dist::HashStore>());
    }
    const int rank = dist::get_rank(), world = dist::get_world_size();
    torch::set_num_threads(1);  // the ranks share the machine's cores
    const digits::Data all = digits::load(path);
    // A fixed held-out fifth, the same on every rank.
    const int64_t n = all.y.size(0), n_test = n / 5;
    const torch::Tensor perm = torch::randperm(n, torch::Generator(20241129), torch::kLong);
    const torch::Tensor test_idx = perm.slice(0, 0, n_test), train_idx = perm.slice(0, n_test);
    torch::manual_seed(uint64_t(rank));  // differs per rank: DDP's broadcast makes the models equal
    Net net;
    ember::nn::parallel::DistributedDataParallelOptions opts;
    ember::nn::parallel::DistributedDataParallel<Net> ddp(net, nullptr, opts);
    torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(2e-3));
    const int64_t global_batch = 64, local_batch = global_batch / world;
    for (int64_t epoch = 0; epoch < epochs; ++epoch) {
      // The same shuffle on every rank; rank r takes its slice of each global batch.
      const torch::Tensor order = train_idx.index({torch::randperm(train_idx.size(0), torch::Generator(uint64_t(epoch)),
                                                                    torch::kLong)});
      double loss_sum = 0;
      int64_t steps = 0;
      for (int64_t start = 0; start + global_batch <= order.size(0); start += global_batch) {
        const torch::Tensor idx = order.slice(0, start + rank * local_batch, start + (rank + 1) * local_batch);
        opt.zero_grad();
        torch::Tensor loss = torch::nn::functional::cross_entropy(ddp(all.x.index({idx})), all.y.index({idx}));
        loss.backward();
        opt.step();
        loss_sum += loss.item<double>(), ++steps;
      }
      if (rank == 0) std::printf("epoch %lld: rank 0 mean loss %.4f\n", (long long)epoch + 1, loss_sum / double(steps));
    }
    torch::Tensor logits;
    {
      torch::NoGradGuard g;
      logits = net->forward(all.x.index({test_idx}));
    }
    const double acc = logits.argmax(1).eq(all.y.index({test_idx})).to(torch::kDouble).mean().item<double>();
    // Every rank holds the same parameters, bit for bit.
    std::vector<torch::Tensor> flat;
    for (const torch::Tensor& p : net->parameters()) flat.push_back(p.detach().reshape({-1}));
    torch::Tensor mine = torch::cat(flat), gathered = torch::empty({world * mine.numel()});
    dist::all_gather_into_tensor(gathered, mine);
    bool equal = true;
    for (int r = 0; r < world; ++r) equal = equal && torch::equal(gathered.narrow(0, r * mine.numel(), mine.numel()), mine);
    if (rank == 0)
      std::printf("world %d, held-out accuracy %.4f, parameters %s on every rank\n", world, acc,
                  equal ? "identical" : "DIFFERENT");
    dist::destroy_process_group();
    return equal ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ddp_digits: %s\n", e.what());
    return 2;
  }
}
