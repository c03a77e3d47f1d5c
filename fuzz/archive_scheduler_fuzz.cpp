// Fuzzes loading LR scheduler checkpoints: InputArchive::load_from(data, size), then
// LRScheduler::load (StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LambdaLR,
// CosineAnnealingWarmRestarts, OneCycleLR, LinearLR, ConstantLR, SequentialLR) and
// ReduceLROnPlateau::load_state_dict of the archive's "scheduler_state"; then a few steps.
#include <functional>
#include <memory>

#include "ember/ember.h"
#include "fuzz_util.h"

namespace {

using namespace ember;
using namespace ember::optim;

using MakeScheduler = std::function<std::shared_ptr<LRScheduler>(Optimizer&)>;

const std::vector<MakeScheduler>& schedulers() {
  static const std::vector<MakeScheduler> s = {
      [](Optimizer& o) { return std::make_shared<StepLR>(o, 3, 0.5); },
      [](Optimizer& o) { return std::make_shared<MultiStepLR>(o, std::vector<int64_t>{2, 5}, 0.5); },
      [](Optimizer& o) { return std::make_shared<ExponentialLR>(o, 0.9); },
      [](Optimizer& o) { return std::make_shared<CosineAnnealingLR>(o, 10, 0.001); },
      [](Optimizer& o) { return std::make_shared<LambdaLR>(o, [](int64_t e) { return 1.0 / double(1 + (e & 1023)); }); },
      [](Optimizer& o) { return std::make_shared<CosineAnnealingWarmRestarts>(o, 3, 2, 0.001); },
      [](Optimizer& o) { return std::make_shared<CosineAnnealingWarmRestarts>(o, 4, 1); },
      [](Optimizer& o) { return std::make_shared<OneCycleLR>(o, 0.1, OneCycleLROptions().total_steps(20)); },
      [](Optimizer& o) {
        return std::make_shared<OneCycleLR>(o, 0.1, OneCycleLROptions().epochs(3).steps_per_epoch(4).three_phase(true).anneal_strategy("linear"));
      },
      [](Optimizer& o) { return std::make_shared<LinearLR>(o, 0.25, 1.0, 4); },
      [](Optimizer& o) { return std::make_shared<ConstantLR>(o, 0.5, 3); },
      [](Optimizer& o) {
        std::vector<std::shared_ptr<LRScheduler>> parts{std::make_shared<ConstantLR>(o, 0.5, 2),
                                                        std::make_shared<ExponentialLR>(o, 0.9)};
        return std::make_shared<SequentialLR>(o, parts, std::vector<int64_t>{2});
      },
  };
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::setup();
  serialize::InputArchive archive;
  if (!fuzz::parse_archive(data, size, archive)) return 0;
  const Tensor w = zeros({2}).requires_grad_(true);
  for (const MakeScheduler& make : schedulers()) {
    SGD opt({w}, SGDOptions(0.1).momentum(0.9));
    std::shared_ptr<LRScheduler> s = make(opt);
    s->step();
    bool loaded = false;
    try {
      s->load(archive);
      loaded = true;
    } catch (const Error&) {
    }
    // Loaded or not, the scheduler steps on. OneCycleLR refuses steps past its total (an
    // error PyTorch raises too), so its errors are expected after a load.
    try {
      for (int i = 0; i < 3; ++i) s->step();
      (void)s->get_last_lr();
    } catch (const Error&) {
      if (!loaded || !dynamic_cast<OneCycleLR*>(s.get())) throw;
    }
  }
  {
    SGD opt({w}, SGDOptions(0.1).momentum(0.9));
    ReduceLROnPlateau plateau(opt, ReduceLROnPlateau::min, 0.5, 1);
    EMBER_FUZZ_TRY({
      IValue v;
      archive.read("scheduler_state", v);
      plateau.load_state_dict(json::parse(v.toStringRef(), "scheduler_state"));
    });
    for (double metric : {1.0, 2.0, 0.5}) plateau.step(metric);
    (void)plateau.get_last_lr();
  }
  return 0;
}
