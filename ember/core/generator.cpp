// Generators, the default CPU generator, and their state in torch.get_rng_state()'s layout.
#include "ember/core/generator.h"

#include <pthread.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/seed_hooks.h"
#include "ember/core/tensor.h"
#include "ember/core/tensor_impl.h"

namespace ember {

namespace {

// PyTorch's CPUGeneratorImplStateLegacy and CPUGeneratorImplState, field for field, so that
// states move between torch.get_rng_state() and ember. The legacy fields PyTorch no longer
// uses (normal_x, normal_rho) are written as zeros.
struct LegacyState {
  uint64_t the_initial_seed;
  int32_t left;
  int32_t seeded;
  uint64_t next;
  uint64_t state[MT19937::kN];
  double normal_x;
  double normal_y;
  double normal_rho;
  int32_t normal_is_valid;
};
struct CurrentState {
  LegacyState legacy;
  float next_float_normal_sample;
  bool is_next_float_normal_sample_valid;
};
static_assert(sizeof(LegacyState) == 5048 && sizeof(CurrentState) == 5056,
              "the generator state must keep PyTorch's byte layout");

// As c10::detail::getNonDeterministicRandom for the CPU: 64 bits from the system's source.
uint64_t nondeterministic_seed() {
  std::random_device rd;
  return (uint64_t(rd()) << 32) | rd();
}

}  // namespace

GeneratorImpl::GeneratorImpl(uint64_t seed, Device device) : device_(device), engine_(seed) {}

void GeneratorImpl::set_current_seed(uint64_t seed) {
  next_float_.reset();
  next_double_.reset();
  engine_ = MT19937(seed);
  philox_offset_ = 0;
}

uint64_t GeneratorImpl::seed() {
  uint64_t s = nondeterministic_seed();
  set_current_seed(s);
  return s;
}

std::shared_ptr<GeneratorImpl> GeneratorImpl::clone() const {
  auto g = std::make_shared<GeneratorImpl>(0, device_);
  g->engine_ = engine_;
  g->next_float_ = next_float_;
  g->next_double_ = next_double_;
  g->philox_offset_ = philox_offset_;
  return g;
}

Generator::Generator(uint64_t seed) : impl_(std::make_shared<GeneratorImpl>(seed)) {}

namespace {
GeneratorImpl& checked(const std::shared_ptr<GeneratorImpl>& impl, const char* what) {
  EMBER_CHECK(impl != nullptr, "Generator::", what, ": the generator is undefined (default-constructed); "
              "create one with at::make_generator<at::CPUGeneratorImpl>(seed)");
  return *impl;
}
}  // namespace

void Generator::set_current_seed(uint64_t seed) const {
  GeneratorImpl& g = checked(impl_, "set_current_seed");
  std::lock_guard<std::mutex> lock(g.mutex_);
  g.set_current_seed(seed);
}
uint64_t Generator::current_seed() const { return checked(impl_, "current_seed").current_seed(); }
uint64_t Generator::seed() const {
  GeneratorImpl& g = checked(impl_, "seed");
  std::lock_guard<std::mutex> lock(g.mutex_);
  return g.seed();
}
Generator Generator::clone() const {
  GeneratorImpl& g = checked(impl_, "clone");
  std::lock_guard<std::mutex> lock(g.mutex_);
  return Generator(g.clone());
}

Tensor Generator::get_state() const {
  GeneratorImpl& g = checked(impl_, "get_state");
  CurrentState s;
  std::memset(&s, 0, sizeof s);  // padding bytes too: equal states give equal tensors
  {
    std::lock_guard<std::mutex> lock(g.mutex_);
    const MT19937::State& e = g.engine().state();
    s.legacy.the_initial_seed = e.seed;
    s.legacy.left = e.left;
    s.legacy.seeded = e.seeded;
    s.legacy.next = e.next;
    for (int i = 0; i < MT19937::kN; ++i) s.legacy.state[i] = e.words[size_t(i)];
    if (auto d = g.next_double_normal_sample()) {
      s.legacy.normal_is_valid = 1;
      s.legacy.normal_y = *d;
    }
    if (auto f = g.next_float_normal_sample()) {
      s.is_next_float_normal_sample_valid = true;
      s.next_float_normal_sample = *f;
    }
  }
  auto impl = make_intrusive<TensorImpl>(Storage::allocate(sizeof s, Device(kCPU)), kByte, Device(kCPU));
  impl->set_sizes_contiguous({int64_t(sizeof s)}, MemoryFormat::Contiguous);
  Tensor t(std::move(impl));
  std::memcpy(t.data_ptr(), &s, sizeof s);
  return t;
}

void Generator::set_state(const Tensor& state) const {
  GeneratorImpl& g = checked(impl_, "set_state");
  EMBER_CHECK(state.defined(), "Generator::set_state: the state is an undefined tensor");
  EMBER_CHECK_TYPE(state.scalar_type() == kByte && state.device().is_cpu(),
                   "Generator::set_state: RNG state must be a torch.ByteTensor on the CPU, got ",
                   state.scalar_type(), " on ", state.device());
  EMBER_CHECK(state.is_contiguous(), "Generator::set_state: RNG state must be contiguous");
  const int64_t n = state.numel();
  EMBER_CHECK(n == int64_t(sizeof(LegacyState)) || n == int64_t(sizeof(CurrentState)),
              "Generator::set_state: expected either a CPUGeneratorImplStateLegacy of size ", sizeof(LegacyState),
              " or a CPUGeneratorImplState of size ", sizeof(CurrentState),
              " but found the input RNG state size to be ", n);
  CurrentState s;
  std::memset(&s, 0, sizeof s);
  std::memcpy(&s, state.data_ptr(), size_t(n));

  MT19937::State e;
  e.seed = s.legacy.the_initial_seed;
  e.left = s.legacy.left;
  e.seeded = s.legacy.seeded != 0;
  e.next = uint32_t(s.legacy.next);
  for (int i = 0; i < MT19937::kN; ++i) e.words[size_t(i)] = uint32_t(s.legacy.state[i]);
  EMBER_CHECK(MT19937::valid(e) && s.legacy.next <= uint64_t(MT19937::kN),
              "Generator::set_state: invalid mt19937 state (seeded=", s.legacy.seeded, ", left=", s.legacy.left,
              ", next=", s.legacy.next, ")");
  std::optional<double> next_double;
  std::optional<float> next_float;
  if (n == int64_t(sizeof(LegacyState))) {
    // The legacy layout kept Box-Muller's radius and angle instead of the value.
    if (s.legacy.normal_is_valid)
      next_double = s.legacy.normal_rho * std::sin(2.0 * 3.14159265358979323846 * s.legacy.normal_x);
  } else {
    if (s.legacy.normal_is_valid) next_double = s.legacy.normal_y;
    if (s.is_next_float_normal_sample_valid) next_float = s.next_float_normal_sample;
  }
  MT19937 engine;
  engine.set_state(e);
  std::lock_guard<std::mutex> lock(g.mutex_);
  g.set_engine(engine);
  g.set_next_double_normal_sample(next_double);
  g.set_next_float_normal_sample(next_float);
}

Generator& default_generator() {
  // As PyTorch: the default CPU generator starts from a nondeterministic seed.
  static Generator g = [] {
    Generator gen(nondeterministic_seed());
    // Forked data loader workers must not inherit the lock held by another thread.
    pthread_atfork([] { default_generator().mutex().lock(); }, [] { default_generator().mutex().unlock(); },
                   [] { default_generator().mutex().unlock(); });
    return gen;
  }();
  return g;
}
namespace {
std::mutex& seed_hooks_mutex() {
  static std::mutex m;
  return m;
}
std::vector<void (*)(uint64_t)>& seed_hooks() {
  static std::vector<void (*)(uint64_t)> hooks;
  return hooks;
}
}  // namespace

void detail::add_manual_seed_hook(void (*hook)(uint64_t)) {
  std::lock_guard<std::mutex> lock(seed_hooks_mutex());
  seed_hooks().push_back(hook);
}

void manual_seed(uint64_t seed) {
  default_generator().set_current_seed(seed);
  std::vector<void (*)(uint64_t)> hooks;
  {
    std::lock_guard<std::mutex> lock(seed_hooks_mutex());
    hooks = seed_hooks();
  }
  for (auto* hook : hooks) hook(seed);
}

}  // namespace ember
