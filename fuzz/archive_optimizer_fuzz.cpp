// Fuzzes loading optimizer checkpoints: InputArchive::load_from(data, size), then torch::load's
// optimizer reader into Adam (plain and amsgrad), SGD with momentum and LBFGS, each fresh or
// after a step; whether the load succeeded or failed, the next step must neither crash nor throw.
#include <functional>
#include <memory>

#include "ember/ember.h"
#include "fuzz_util.h"

namespace {

using namespace ember;

struct Kind {
  const char* name;
  std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)> make;
};

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> k = {
      {"Adam", [](std::vector<Tensor> p) { return std::make_unique<optim::Adam>(std::move(p), optim::AdamOptions(0.01)); }},
      {"Adam(amsgrad)",
       [](std::vector<Tensor> p) {
         return std::make_unique<optim::Adam>(std::move(p), optim::AdamOptions(0.01).amsgrad(true).weight_decay(0.1));
       }},
      {"SGD(momentum)",
       [](std::vector<Tensor> p) {
         return std::make_unique<optim::SGD>(std::move(p), optim::SGDOptions(0.05).momentum(0.9));
       }},
      {"LBFGS",
       [](std::vector<Tensor> p) {
         return std::make_unique<optim::LBFGS>(std::move(p), optim::LBFGSOptions(0.5).max_iter(3).history_size(4));
       }},
  };
  return k;
}

// One step of a tiny regression (LBFGS re-evaluates the closure).
void train_step(nn::Linear& model, optim::Optimizer& opt) {
  const Tensor x = arange(12, TensorOptions().dtype(kFloat)).reshape({4, 3}).div(7);
  const Tensor y = x.sum(1, true);
  auto closure = [&] {
    opt.zero_grad();
    Tensor loss = nn::functional::mse_loss(model(x), y);
    loss.backward();
    return loss;
  };
  opt.step(closure);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::setup();
  serialize::InputArchive archive;
  if (!fuzz::parse_archive(data, size, archive)) return 0;
  // The last byte decides whether the optimizers already have state when loading.
  const bool stepped_first = size > 0 && (data[size - 1] & 1);
  for (const Kind& kind : kinds()) {
    manual_seed(0);
    nn::Linear model(3, 1);
    std::unique_ptr<optim::Optimizer> opt = kind.make(model->parameters());
    if (stepped_first) train_step(model, *opt);
    try {
      archive >> *opt;
    } catch (const Error&) {
      // A failed load leaves the optimizer as it was: stepping still works.
    }
    // Stepping on must work (any ember::Error here escapes and is reported).
    train_step(model, *opt);
  }
  return 0;
}
