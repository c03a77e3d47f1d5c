// MT19937: the 32-bit Mersenne Twister (Matsumoto & Nishimura, 1998), the engine behind
// PyTorch's CPU generator. Its outputs equal std::mt19937 seeded with the low 32 bits of the
// seed; its state is kept in PyTorch's form (`left`, `next`) so that a state saved by
// torch.get_rng_state() restores here and the other way round (Note [PyTorch's CPU stream]).
#pragma once
#include <array>
#include <cstdint>

namespace ember {

class MT19937 {
 public:
  static constexpr int kN = 624;
  static constexpr int kM = 397;

  // The whole state, as PyTorch's mt19937_data_pod holds it.
  struct State {
    uint64_t seed = 0;   // the seed it started from (only its low 32 bits shaped the stream)
    int left = 1;        // outputs left before the next twist, in [1, kN]
    bool seeded = false;
    uint32_t next = 0;   // index of the next word of `words` to temper, in [0, kN]
    std::array<uint32_t, kN> words{};
  };

  explicit MT19937(uint64_t seed = 5489) { reseed(seed); }

  void reseed(uint64_t seed) {
    s_.seed = seed;
    s_.seeded = true;
    s_.words[0] = uint32_t(seed);
    for (int i = 1; i < kN; ++i) {
      uint32_t prev = s_.words[i - 1];
      s_.words[i] = 1812433253u * (prev ^ (prev >> 30)) + uint32_t(i);
    }
    s_.left = 1;  // the first draw twists
    s_.next = 0;
  }

  uint32_t operator()() {
    if (--s_.left == 0) twist();
    uint32_t y = s_.words[s_.next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }

  uint64_t seed() const { return s_.seed; }
  const State& state() const { return s_; }
  // A state is usable when it was seeded and its counters are in range.
  static bool valid(const State& s) { return s.seeded && s.left > 0 && s.left <= kN && s.next <= uint32_t(kN); }
  void set_state(const State& s) { s_ = s; }

 private:
  static uint32_t mix(uint32_t upper, uint32_t lower) {
    uint32_t y = (upper & 0x80000000u) | (lower & 0x7fffffffu);
    return (y >> 1) ^ ((lower & 1u) ? 0x9908b0dfu : 0u);
  }
  void twist() {
    auto& w = s_.words;
    int i = 0;
    for (; i < kN - kM; ++i) w[i] = w[i + kM] ^ mix(w[i], w[i + 1]);
    for (; i < kN - 1; ++i) w[i] = w[i + kM - kN] ^ mix(w[i], w[i + 1]);
    w[kN - 1] = w[kM - 1] ^ mix(w[kN - 1], w[0]);
    s_.left = kN;
    s_.next = 0;
  }

  State s_;
};

}  // namespace ember
