// Philox4x32-10 (Philox4x32 in ember/core/generator.h, what the device samplers draw) against
// the known-answer vectors published with Random123 (kat_vectors: counter, key -> output),
// and the counter layout of Note [Device sampling].
#include <gtest/gtest.h>

#include <set>

#include "ember/core/generator.h"

namespace ember::test {
namespace {

using Words = std::array<uint32_t, 4>;

TEST(Philox, MatchesRandom123KnownAnswers) {
  EXPECT_EQ(Philox4x32::round({0, 0, 0, 0}, {0, 0}), (Words{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(Philox4x32::round({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}),
            (Words{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(Philox4x32::round({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}),
            (Words{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(Philox, DrawUsesTheWholeCounterAndSeed) {
  const uint64_t seed = 0x123456789abcdefull;
  // draw(seed, n): counter {low, high word of n, 0, 0}, key {low, high word of the seed}.
  EXPECT_EQ(Philox4x32::draw(seed, (1ull << 32) + 5),
            Philox4x32::round({5, 1, 0, 0}, {uint32_t(seed), uint32_t(seed >> 32)}));
  EXPECT_NE(Philox4x32::draw(seed, 5)[0], Philox4x32::draw(seed, (1ull << 32) + 5)[0]);
  EXPECT_NE(Philox4x32::draw(1, 0)[0], Philox4x32::draw(1 + (1ull << 32), 0)[0]);
  std::set<uint32_t> firsts;
  for (uint64_t i = 0; i < 1000; ++i) firsts.insert(Philox4x32::draw(seed, i)[0]);
  EXPECT_GT(firsts.size(), 990u);
}

}  // namespace
}  // namespace ember::test
