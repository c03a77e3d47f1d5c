// Generator: the random stream an op draws from. On the CPU it is PyTorch's stream, an MT19937
// engine that ops draw from one element after another under the generator's lock, so that a
// seeded LibTorch program draws the same numbers here (Note [PyTorch's CPU stream]). Philox
// (counter-based, for devices that sample in parallel) is kept beside it for the CUDA backend.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "ember/core/device.h"
#include "ember/core/macros.h"
#include "ember/core/mt19937.h"

namespace ember {

class Tensor;

// Note [PyTorch's CPU stream]
// A CPU generator is an MT19937 engine seeded with the low 32 bits of the seed (as
// at::CPUGeneratorImpl). random() is one 32-bit output; random64() is two, the first one the
// high word. Samplers take their bits as PyTorch's transformations do (ops/random.cpp):
// float, half and bfloat16 uniforms use one random() and the dtype's mantissa width, double
// uniforms one random64(); normal draws keep Box-Muller's second value in the generator for
// the next scalar draw. get_state()/set_state() use torch.get_rng_state()'s 5056-byte layout.

// Philox4x32 with 10 rounds (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
struct Philox4x32 {
  static EMBER_HD std::array<uint32_t, 4> round(std::array<uint32_t, 4> ctr, std::array<uint32_t, 2> key) {
    constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
    for (int r = 0; r < 10; ++r) {
      uint64_t p0 = uint64_t(kM0) * ctr[0], p1 = uint64_t(kM1) * ctr[2];
      ctr = {uint32_t(p1 >> 32) ^ ctr[1] ^ key[0], uint32_t(p1), uint32_t(p0 >> 32) ^ ctr[3] ^ key[1],
             uint32_t(p0)};
      key[0] += kW0;
      key[1] += kW1;
    }
    return ctr;
  }
  // Four 32-bit random words for counter (offset, subsequence).
  static EMBER_HD std::array<uint32_t, 4> draw(uint64_t seed, uint64_t offset, uint64_t subseq = 0) {
    return round({uint32_t(offset), uint32_t(offset >> 32), uint32_t(subseq), uint32_t(subseq >> 32)},
                 {uint32_t(seed), uint32_t(seed >> 32)});
  }
};

// A generator's state. Users reach it through Generator; LibTorch code names it
// at::CPUGeneratorImpl (gen.get<at::CPUGeneratorImpl>()->random()).
class GeneratorImpl {
 public:
  explicit GeneratorImpl(uint64_t seed = kDefaultSeed, Device device = Device(kCPU));
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;

  // The lock an op holds while it draws (LibTorch: `std::lock_guard<std::mutex> l(gen.mutex())`).
  std::mutex mutex_;

  void set_current_seed(uint64_t seed);  // also forgets the cached normal values
  uint64_t current_seed() const { return engine_.seed(); }
  uint64_t seed();                       // reseeds non-deterministically, returns the seed
  Device device() const { return device_; }

  uint32_t random() { return engine_(); }
  uint64_t random64() {
    uint64_t hi = engine_();
    return hi << 32 | engine_();
  }
  // Box-Muller's second value, kept for the next scalar normal draw of that precision.
  std::optional<double> next_double_normal_sample() const { return next_double_; }
  std::optional<float> next_float_normal_sample() const { return next_float_; }
  void set_next_double_normal_sample(std::optional<double> v) { next_double_ = v; }
  void set_next_float_normal_sample(std::optional<float> v) { next_float_ = v; }
  const MT19937& engine() const { return engine_; }
  void set_engine(const MT19937& e) { engine_ = e; }

  // Philox counter space for samplers that draw in parallel (device generators).
  uint64_t philox_offset() const { return philox_offset_; }
  void set_philox_offset(uint64_t off) { philox_offset_ = off; }
  // Reserves `n` counter values; returns {seed, first offset}. Call with mutex_ held.
  std::pair<uint64_t, uint64_t> reserve_philox(uint64_t n) {
    uint64_t off = philox_offset_;
    philox_offset_ += n;
    return {engine_.seed(), off};
  }

  std::shared_ptr<GeneratorImpl> clone() const;

 private:
  Device device_;
  MT19937 engine_;
  std::optional<float> next_float_;
  std::optional<double> next_double_;
  uint64_t philox_offset_ = 0;
};
using CPUGeneratorImpl = GeneratorImpl;

// A shared handle: copies draw from the same stream (as at::Generator).
class Generator {
 public:
  Generator() = default;  // undefined, as at::Generator(): ops given one use the default
  explicit Generator(uint64_t seed);  // a new CPU generator (ember's shorthand)
  explicit Generator(std::shared_ptr<GeneratorImpl> impl) : impl_(std::move(impl)) {}

  void set_current_seed(uint64_t seed) const;
  uint64_t current_seed() const;
  uint64_t seed() const;  // reseeds non-deterministically and returns the seed
  // The state as a uint8 tensor of torch.get_rng_state()'s layout (5056 bytes); set_state
  // also takes PyTorch's legacy 5048-byte layout. A malformed state is an error.
  Tensor get_state() const;
  void set_state(const Tensor& state) const;
  Generator clone() const;

  std::mutex& mutex() const { return impl_->mutex_; }
  Device device() const { return impl_->device(); }
  GeneratorImpl* impl() const { return impl_.get(); }
  GeneratorImpl* operator->() const { return impl_.get(); }
  template <class T> T* get() const { return static_cast<T*>(impl_.get()); }
  bool defined() const { return impl_ != nullptr; }
  bool operator==(const Generator& o) const { return impl_ == o.impl_; }
  bool operator!=(const Generator& o) const { return impl_ != o.impl_; }

 private:
  std::shared_ptr<GeneratorImpl> impl_;
};

// LibTorch's factories: at::make_generator<at::CPUGeneratorImpl>(seed).
template <class Impl = GeneratorImpl, class... Args>
Generator make_generator(Args&&... args) {
  return Generator(std::make_shared<Impl>(std::forward<Args>(args)...));
}

Generator& default_generator();
void manual_seed(uint64_t seed);

}  // namespace ember
