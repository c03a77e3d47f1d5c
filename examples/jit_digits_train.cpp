// Trains the digits CNN, traces it with ember::jit and saves the program (graph + weights):
//
//   build/examples/jit_digits_train digits.ember [digits.csv.gz] [epochs]
//   build/examples/jit_digits_run digits.ember [digits.csv.gz]     # no model source there
//
// Both print the held-out accuracy and a checksum of the held-out predictions: they agree.
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "ember/jit/jit.h"
#include "digits_data.h"

namespace {

struct NetImpl : torch::nn::Module {
  torch::nn::Sequential body{nullptr};
  NetImpl() {
    using namespace torch::nn;
    body = register_module("body", Sequential(Conv2d(Conv2dOptions(1, 16, 3).padding(1)), ReLU(), MaxPool2d(2),
                                              Flatten(), Linear(16 * 4 * 4, 64), ReLU(), Linear(64, 10)));
  }
  torch::Tensor forward(const torch::Tensor& x) { return body->forward(x); }
};
TORCH_MODULE(Net);

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) {
      std::fprintf(stderr, "usage: jit_digits_train <out.ember> [digits.csv.gz] [epochs]\n");
      return 2;
    }
    const std::string out = argv[1];
    const digits::Split data = digits::split(digits::load(argc > 2 ? argv[2] : EMBER_DIGITS_CSV));
    const int64_t epochs = argc > 3 ? std::atoll(argv[3]) : 6;
    torch::manual_seed(0);
    Net net;
    torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(2e-3));
    for (int64_t epoch = 0; epoch < epochs; ++epoch) {
      const torch::Tensor order = torch::randperm(data.train_x.size(0), torch::kLong);
      for (int64_t start = 0; start + 64 <= order.size(0); start += 64) {
        const torch::Tensor idx = order.slice(0, start, start + 64);
        opt.zero_grad();
        torch::nn::functional::cross_entropy(net->forward(data.train_x.index({idx})), data.train_y.index({idx})).backward();
        opt.step();
      }
    }
    net->eval();
    torch::NoGradGuard no_grad;
    auto traced = ember::jit::trace(net, {data.test_x});
    ember::jit::save(traced, out);
    const torch::Tensor eager = net->forward(data.test_x), jitted = traced.forward(data.test_x);
    std::printf("traced graph: %zu nodes (%zu after fusion), saved to %s\n", traced.graph().nodes().size(),
                traced.fused_graph().nodes().size(), out.c_str());
    digits::report("eager", eager, data.test_y);
    digits::report("traced", jitted, data.test_y);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jit_digits_train: %s\n", e.what());
    return 1;
  }
}
