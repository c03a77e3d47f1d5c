// Fuzzes loading a module from a checkpoint: InputArchive::load_from(data, size), then
// torch::load's module reader into a small nn::Sequential (Linear, BatchNorm1d, Linear) and,
// whether the load succeeded or not, a training forward/backward and an eval forward with what it read.
#include "ember/ember.h"
#include "fuzz_util.h"

namespace {

using namespace ember;

nn::Sequential make_net() { return nn::Sequential(nn::Linear(4, 3), nn::BatchNorm1d(3), nn::Linear(3, 2)); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::setup();
  serialize::InputArchive archive;
  if (!fuzz::parse_archive(data, size, archive)) return 0;
  manual_seed(0);
  nn::Sequential net = make_net();
  try {
    archive >> net;
  } catch (const Error&) {
    // A failed load leaves the module usable too.
  }
  // NaNs are fine; crashes and errors (which escape and are reported) are not.
  const Tensor x = randn({5, 4});
  net->train();
  Tensor loss = net->forward(x).pow(2).sum();
  loss.backward();
  for (const Tensor& p : net->parameters())
    if (!p.grad().defined()) fuzz::fail("module: a loaded parameter got no gradient");
  net->eval();
  NoGradGuard no_grad;
  (void)net->forward(x).sum().item<double>();
  return 0;
}
