// Generator: a Philox4x32-10 counter-based random stream (seed + offset). An op reserves a
// block of counter values up front and element i draws from counter (offset + i), so the
// numbers an op produces do not depend on how many threads compute them.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>

#include "ember/core/macros.h"

namespace ember {

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

// Uniform float in [0, 1) from 24 random bits; double from 53.
EMBER_HD float uniform_float(uint32_t x) { return float(x >> 8) * (1.0f / 16777216.0f); }
EMBER_HD double uniform_double(uint32_t hi, uint32_t lo) {
  return double((uint64_t(hi) << 32 | lo) >> 11) * (1.0 / 9007199254740992.0);
}

struct GeneratorImpl {
  std::mutex mutex;
  uint64_t seed = 67280421310721ull;
  uint64_t offset = 0;
};

class Generator {
 public:
  Generator();  // a new generator with the default seed
  explicit Generator(uint64_t seed);
  void set_current_seed(uint64_t seed);
  uint64_t current_seed() const;
  uint64_t seed();  // reseeds non-deterministically and returns the seed
  uint64_t get_offset() const;
  void set_offset(uint64_t off);
  // Reserves `n` counter values; returns {seed, first offset}. Thread-safe.
  std::pair<uint64_t, uint64_t> reserve(uint64_t n);
  GeneratorImpl* impl() const { return impl_.get(); }
  bool defined() const { return impl_ != nullptr; }

 private:
  std::shared_ptr<GeneratorImpl> impl_;
};

Generator& default_generator();
void manual_seed(uint64_t seed);

}  // namespace ember
