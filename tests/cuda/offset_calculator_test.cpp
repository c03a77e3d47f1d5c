// The CUDA elementwise engine's index arithmetic, checked on the CPU (it is plain C++ shared
// by host and device): the multiply-shift divider against true division, the offset
// calculator against TensorIterator's own walk for many layouts, and the 32-bit splitting
// of iteration spaces too large for 32-bit offsets.
#include <map>
#include <random>
#include <set>

#include "ember/ops/cuda/offset_calculator.h"
#include "test_util.h"

namespace ember::test {
namespace {

using cuda::IntDivider;
using cuda::IterDesc;
using cuda::OffsetCalculator;

TEST(CudaIntDivider, MatchesDivisionForEveryDivisorShape) {
  std::vector<uint32_t> divisors;
  for (uint32_t d = 1; d <= 1100; ++d) divisors.push_back(d);
  for (int s = 1; s < 31; ++s)
    for (int64_t e : {-1, 0, 1}) divisors.push_back(uint32_t((int64_t(1) << s) + e));
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) divisors.push_back(1 + rng() % 0x7fffffffu);
  const uint32_t kMaxN = 0x7fffffffu;
  for (uint32_t d : divisors) {
    IntDivider div(d);
    std::vector<uint32_t> ns = {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, kMaxN, kMaxN - 1, kMaxN - d};
    for (int i = 0; i < 64; ++i) ns.push_back(rng() % (kMaxN + 1u));
    for (uint32_t n : ns) {
      if (n > kMaxN) continue;
      ASSERT_EQ(div.div(n), n / d) << n << " / " << d;
    }
  }
}

// Every operand pointer, element by element, in TensorIterator's order.
std::vector<std::vector<char*>> walk(const TensorIterator& it) {
  std::vector<std::vector<char*>> r;
  it.serial_for_each(
      [&](char** data, const int64_t* strides, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          std::vector<char*> e;
          for (int k = 0; k < it.ntensors(); ++k) e.push_back(data[k] + i * strides[k]);
          r.push_back(e);
        }
      },
      0, it.numel());
  return r;
}

template <int N>
void expect_offsets_match(TensorIterator& it, const std::string& what) {
  SCOPED_TRACE(what);
  const auto expected = walk(it);
  IterDesc<N> d(it);
  ASSERT_TRUE(d.fits_32bit());
  OffsetCalculator<N> calc(d);
  ASSERT_EQ(int64_t(expected.size()), d.numel());
  for (size_t i = 0; i < expected.size(); ++i) {
    auto off = calc.get(uint32_t(i));
    for (int k = 0; k < N; ++k) ASSERT_EQ(d.data[k] + off.v[k], expected[i][k]) << "element " << i << " operand " << k;
  }
}

TEST(CudaOffsetCalculator, MatchesTheIteratorWalk) {
  Tensor a = random_tensor({4, 5, 6}, kFloat), b = random_tensor({6}, kFloat);
  {
    TensorIterator it = TensorIteratorConfig().add_output(Tensor()).add_input(a).add_input(b).build();
    expect_offsets_match<3>(it, "broadcast row");
  }
  {
    Tensor at = a.transpose(0, 2);  // 6 x 5 x 4, permuted strides
    TensorIterator it = TensorIteratorConfig().add_output(empty({6, 5, 4})).add_input(at).add_input(
        random_tensor({6, 1, 4}, kFloat)).build();
    expect_offsets_match<3>(it, "transposed and broadcast middle");
  }
  {
    Tensor x = random_tensor({2, 3, 5, 7}, kFloat).contiguous(MemoryFormat::ChannelsLast);
    Tensor y = random_tensor({2, 3, 5, 7}, kFloat);
    TensorIterator it = TensorIteratorConfig().add_output(Tensor()).add_input(x).add_input(y).build();
    expect_offsets_match<3>(it, "channels-last against contiguous");
  }
  {
    Tensor x = random_tensor({9, 8}, kDouble).slice(0, 1, 9, 2).slice(1, 0, 8, 3);  // steps
    TensorIterator it = TensorIteratorConfig().add_output(Tensor()).add_input(x).build();
    expect_offsets_match<2>(it, "sliced with steps");
  }
  {
    Tensor x = random_tensor({3, 1, 4, 1, 5, 1, 2}, kHalf).permute({6, 4, 2, 0, 1, 3, 5});
    Tensor y = random_tensor({1, 5, 4, 3, 1, 1, 1}, kHalf);
    Tensor z = random_tensor({2, 1, 1, 1, 1, 1, 1}, kHalf);
    TensorIterator it = TensorIteratorConfig().add_output(Tensor()).add_input(x).add_input(y).add_input(z).build();
    expect_offsets_match<4>(it, "seven dimensions, three inputs");
  }
}

TEST(CudaSplit32Bit, SmallSpacesAreOnePiece) {
  Tensor a = random_tensor({4, 5}, kFloat);
  TensorIterator it = TensorIteratorConfig().add_output(Tensor()).add_input(a.t()).build();
  int pieces = 0;
  cuda::split_32bit(IterDesc<2>(it), [&](const IterDesc<2>& p) {
    ++pieces;
    EXPECT_EQ(p.numel(), 20);
  });
  EXPECT_EQ(pieces, 1);
}

// Byte offsets (from a base address) of every element of a space, in walk order.
template <int N>
std::multiset<std::vector<int64_t>> all_offsets(const IterDesc<N>& d, char* const* base) {
  std::multiset<std::vector<int64_t>> r;
  std::vector<int64_t> idx(d.ndim, 0);
  for (int64_t e = 0; e < d.numel(); ++e) {
    std::vector<int64_t> o(N);
    for (int k = 0; k < N; ++k) {
      o[k] = d.data[k] - base[k];
      for (int i = 0; i < d.ndim; ++i) o[k] += idx[i] * d.strides[i][k];
    }
    r.insert(o);
    for (int i = 0; i < d.ndim && ++idx[i] == d.shape[i]; ++i) idx[i] = 0;
  }
  return r;
}

TEST(CudaSplit32Bit, LargeOffsetsSplitIntoPiecesThatFitAndCoverEverythingOnce) {
  // A few elements but strides that reach past 2^31 bytes (no memory is touched).
  IterDesc<2> d;
  d.ndim = 3;
  const int64_t shape[3] = {5, 7, 3};
  const int64_t out_strides[3] = {4, 20, int64_t(1) << 30};
  const int64_t in_strides[3] = {int64_t(3) << 29, 8, 0};
  for (int i = 0; i < 3; ++i) {
    d.shape[i] = shape[i];
    d.strides[i][0] = out_strides[i];
    d.strides[i][1] = in_strides[i];
  }
  char* base[2] = {reinterpret_cast<char*>(uintptr_t(1) << 40), reinterpret_cast<char*>(uintptr_t(1) << 41)};
  d.data[0] = base[0];
  d.data[1] = base[1];
  ASSERT_FALSE(d.fits_32bit());
  std::multiset<std::vector<int64_t>> got;
  int pieces = 0;
  cuda::split_32bit(d, [&](const IterDesc<2>& p) {
    ++pieces;
    EXPECT_TRUE(p.fits_32bit());
    // The piece's own offsets through the calculator, as a kernel would compute them.
    OffsetCalculator<2> calc(p);
    for (int64_t i = 0; i < p.numel(); ++i) {
      auto off = calc.get(uint32_t(i));
      got.insert({p.data[0] + off.v[0] - base[0], p.data[1] + off.v[1] - base[1]});
    }
  });
  EXPECT_GT(pieces, 1);
  EXPECT_EQ(got, all_offsets(d, base));
}

TEST(CudaSplit32Bit, ManyElementsSplitByCount) {
  // 3e9 elements of one byte each with stride 0 input: the count alone needs splitting.
  IterDesc<2> d;
  d.ndim = 1;
  d.shape[0] = 3000000000LL;
  d.strides[0][0] = 1;
  d.strides[0][1] = 0;
  char* base = reinterpret_cast<char*>(uintptr_t(1) << 40);  // never dereferenced
  d.data[0] = d.data[1] = base;
  int64_t total = 0, next = 0;
  cuda::split_32bit(d, [&](const IterDesc<2>& p) {
    EXPECT_TRUE(p.fits_32bit());
    EXPECT_EQ(p.data[0] - base, next) << "pieces are consecutive";
    EXPECT_EQ(p.data[1], base);
    next += p.shape[0];
    total += p.numel();
  });
  EXPECT_EQ(total, 3000000000LL);
}

}  // namespace
}  // namespace ember::test
