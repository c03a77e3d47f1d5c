// Streaming stores (Note [Streaming stores] in ops/tensor_iterator.cpp): elementwise kernels
// whose output is large write it through an L1 buffer and non-temporal stores. Here the
// threshold is lowered to 0 so that small tensors take that path, and every result must
// equal the normal path's bit for bit: unaligned outputs, tails shorter than a block,
// broadcast and strided inputs, every element size, several threads, dtype conversions.
#include <cstring>
#include <limits>
#include <string>

#include "ember/ops/tensor_iterator.h"
#include "test_util.h"

namespace ember {
namespace {

// Sets the streaming threshold for one scope.
class StreamingThreshold {
 public:
  explicit StreamingThreshold(int64_t bytes) : saved_(streaming_store_bytes()) { set_streaming_store_bytes(bytes); }
  ~StreamingThreshold() { set_streaming_store_bytes(saved_); }
  StreamingThreshold(const StreamingThreshold&) = delete;
  StreamingThreshold& operator=(const StreamingThreshold&) = delete;

 private:
  int64_t saved_;
};

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

// fn() computed with every output streamed and with none; both must match exactly.
template <class F>
void expect_same_streamed(const F& fn) {
  Tensor plain, streamed;
  {
    StreamingThreshold never(kNever);
    plain = fn();
  }
  {
    StreamingThreshold always(0);
    streamed = fn();
  }
  ASSERT_EQ(plain.dtype(), streamed.dtype());
  ASSERT_EQ(plain.sizes(), streamed.sizes());
  const Tensor p = plain.contiguous(), s = streamed.contiguous();
  ASSERT_EQ(std::memcmp(p.data_ptr(), s.data_ptr(), size_t(p.numel()) * element_size(p.scalar_type())), 0);
}

// Lengths around the 4 KiB block: below two blocks (not streamed), exact blocks, and tails.
const int64_t kLengths[] = {7, 1500, 4096, 4096 * 3 + 37, 40000};

TEST(StreamingStores, BinaryOpsEveryElementSize) {
  manual_seed(1);
  for (ScalarType t : {kFloat, kDouble, kBFloat16, kHalf, kComplexFloat, kComplexDouble, kInt8, kInt64}) {
    for (int64_t n : kLengths) {
      SCOPED_TRACE(detail::str_cat(t, " n=", n));
      const Tensor a = (randn({n}) * 100).to(t), b = (randn({n}) * 100).to(t);
      expect_same_streamed([&] { return a + b; });
      expect_same_streamed([&] { return mul(a, b); });
      expect_same_streamed([&] { return a.eq(b); });  // bool output: 1-byte elements
    }
  }
}

TEST(StreamingStores, UnalignedOutputsAndOutVariants) {
  manual_seed(2);
  const int64_t n = 4096 * 2 + 11;
  const Tensor a = randn({n}), b = randn({n});
  // Output views starting 1..17 floats into a buffer: the head before the first 64-byte
  // line takes normal stores, the rest streams.
  for (int64_t off : {1, 3, 5, 16, 17}) {
    SCOPED_TRACE(off);
    expect_same_streamed([&] {
      Tensor buf = full({n + 32}, -7.0);
      Tensor out = buf.narrow(0, off, n);
      add_out(out, a, b);
      return buf;  // the elements around the view must be untouched
    });
  }
}

TEST(StreamingStores, BroadcastStridedAndMultiDim) {
  manual_seed(3);
  const Tensor m = randn({64, 3000}), row = randn({3000}), col = randn({64, 1});
  expect_same_streamed([&] { return m + row; });
  expect_same_streamed([&] { return m * col; });
  expect_same_streamed([&] { return m.t() + 1; });  // strided input, contiguous output
  const Tensor sq = randn({300, 300});
  expect_same_streamed([&] { return sq + sq.t(); });
  expect_same_streamed([&] { return sub(m.to(kBFloat16), row.to(kBFloat16), 3); });
}

TEST(StreamingStores, UnaryTernaryAndConversions) {
  manual_seed(4);
  const Tensor x = randn({20000}), y = randn({20000}), z = randn({20000});
  expect_same_streamed([&] { return x.exp(); });  // vectorized unary path
  expect_same_streamed([&] { return x.to(kBFloat16).tanh(); });
  expect_same_streamed([&] { return addcmul(x, y, z, 0.5); });
  expect_same_streamed([&] { return where(x.gt(0), y, z); });
  expect_same_streamed([&] { return x.to(kHalf); });
  expect_same_streamed([&] { return x.to(kDouble); });
  expect_same_streamed([&] { return x.to(kInt32); });
  expect_same_streamed([&] { return x.t().contiguous(); });
}

TEST(StreamingStores, ThreadsAndInPlace) {
  manual_seed(5);
  const int saved = get_num_threads();
  set_num_threads(2);
  const Tensor a = randn({300000}), b = randn({300000});
  expect_same_streamed([&] { return a + b; });
  expect_same_streamed([&] { return a.to(kBFloat16) * b.to(kBFloat16); });
  // In place: the output is an input, so it is not streamed, and must still be right.
  expect_same_streamed([&] {
    Tensor c = a.clone();
    c.add_(b);
    return c;
  });
  set_num_threads(saved);
}

TEST(StreamingStores, MatchesAPlainLoop) {
  // An independent reference for one case: float add against a C++ loop.
  StreamingThreshold always(0);
  const int64_t n = 4096 * 5 + 3;
  const Tensor a = randn({n}), b = randn({n});
  const Tensor c = a + b;
  const float *pa = a.data_ptr<float>(), *pb = b.data_ptr<float>(), *pc = c.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(pc[i], pa[i] + pb[i]) << i;
}

TEST(StreamingStores, ThresholdSetting) {
  const int64_t saved = streaming_store_bytes();
  EXPECT_GE(saved, 0);
  {
    StreamingThreshold t(123);
    EXPECT_EQ(streaming_store_bytes(), 123);
  }
  EXPECT_EQ(streaming_store_bytes(), saved);
  try {
    set_streaming_store_bytes(-1);
    ADD_FAILURE() << "set_streaming_store_bytes(-1) did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("set_streaming_store_bytes: expected bytes >= 0, got -1"), std::string::npos) << e.what();
  }
  EXPECT_EQ(streaming_store_bytes(), saved);
}

}  // namespace
}  // namespace ember
