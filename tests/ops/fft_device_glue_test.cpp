// The op-level device path of torch::fft (Note [Device FFTs], ember/ops/fft_device.h), run
// here without a GPU: a stand-in DeviceFft on CPU tensors (computing with ember's CPU FFTs,
// the device path switched off inside it) checks the table's contract (contiguous tensors,
// rank 1 to 3, the shapes of r2c/c2r) and every torch::fft function through the device
// path is compared with the CPU path: 1 to 4 transformed dims in any order, non-contiguous
// and conjugated inputs, odd and even lengths, every norm mode, two-sided r2c, gradients.
// What cuFFT itself computes is tested on a GPU by tests/cuda/fft_test.cpp.
#include <stdexcept>
#include <string>
#include <vector>

#include "ember/ops/fft_device.h"
#include "test_util.h"

namespace ember::test {
namespace fft_glue {  // named: the tests build as one unity file

int calls = 0;

std::vector<int64_t> last_dims(const Tensor& t, int64_t rank) {
  if (rank < 1 || rank > 3 || rank > t.dim()) throw std::runtime_error("stand-in: rank " + std::to_string(rank));
  std::vector<int64_t> d;
  for (int64_t i = t.dim() - rank; i < t.dim(); ++i) d.push_back(i);
  return d;
}
void expect_contiguous(const Tensor& t, const char* what) {
  ++calls;
  if (!t.is_contiguous()) throw std::runtime_error(std::string("stand-in ") + what + ": not contiguous");
}

void c2c(const Tensor& x, int64_t rank, bool forward) {
  expect_contiguous(x, "c2c");
  fft_detail::ScopedDeviceFftForCpu off(nullptr);
  const auto d = last_dims(x, rank);
  // Unnormalised both ways: "backward" scales nothing forward, "forward" nothing backward.
  x.copy_(forward ? fft::fftn(x, std::nullopt, d, "backward") : fft::ifftn(x, std::nullopt, d, "forward"));
}
void r2c(const Tensor& in, const Tensor& out, int64_t rank) {
  expect_contiguous(in, "r2c in");
  expect_contiguous(out, "r2c out");
  fft_detail::ScopedDeviceFftForCpu off(nullptr);
  Tensor y = fft::rfftn(in, std::nullopt, last_dims(in, rank), "backward");
  if (y.sizes() != out.sizes()) throw std::runtime_error("stand-in r2c: output shape");
  out.copy_(y);
}
void c2r(const Tensor& in, const Tensor& out, int64_t rank) {
  expect_contiguous(in, "c2r in");
  expect_contiguous(out, "c2r out");
  fft_detail::ScopedDeviceFftForCpu off(nullptr);
  const auto d = last_dims(out, rank);
  std::vector<int64_t> s;
  for (int64_t i : d) s.push_back(out.size(i));
  if (in.size(-1) != out.size(-1) / 2 + 1) throw std::runtime_error("stand-in c2r: input bins");
  out.copy_(fft::irfftn(in, s, d, "forward"));
  in.fill_(0);  // as cuFFT may: c2r overwrites its input
}

const DeviceFft kStandIn{&c2c, &r2c, &c2r};

template <class F>
Tensor on_device_path(F&& f) {
  fft_detail::ScopedDeviceFftForCpu scope(&kStandIn);
  const int before = calls;
  Tensor r = f();
  EXPECT_GT(calls, before) << "the device path was not taken";
  return r;
}

TEST(FftDeviceGlue, ComplexTransformsOverAnyDims) {
  for (ScalarType t : {kComplexFloat, kComplexDouble}) {
    SCOPED_TRACE(toString(t));
    const double r = t == kComplexFloat ? 1e-4 : 1e-10;
    Tensor x = random_tensor({3, 5, 4, 6}, t);
    const Tensor keep = x.clone();
    for (const char* norm : {"backward", "ortho", "forward"}) {
      SCOPED_TRACE(norm);
      EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::fft(x, std::nullopt, 1, norm); }),
                          fft::fft(x, std::nullopt, 1, norm), r, r);
      EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::ifft(x, 7, 0, norm); }), fft::ifft(x, 7, 0, norm), r, r);
      EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::fft2(x, std::nullopt, {0, 2}, norm); }),
                          fft::fft2(x, std::nullopt, {0, 2}, norm), r, r);
      // Four dims (two groups), in a scrambled order.
      EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::fftn(x, std::nullopt, std::vector<int64_t>{2, 0, 3, 1}, norm); }),
                          fft::fftn(x, std::nullopt, std::vector<int64_t>{2, 0, 3, 1}, norm), r, r);
      EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::ifftn(x, std::vector<int64_t>{4, 3}, std::vector<int64_t>{3, 1}, norm); }),
                          fft::ifftn(x, std::vector<int64_t>{4, 3}, std::vector<int64_t>{3, 1}, norm), r, r);
    }
    // Non-contiguous and conjugated inputs; the input is never written.
    Tensor v = x.transpose(1, 3).conj();
    EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::fftn(v); }), fft::fftn(v), r, r);
    EXPECT_TENSOR_EQ(x, keep);
  }
}

TEST(FftDeviceGlue, RealTransformsAndTheirInverses) {
  for (ScalarType t : {kFloat, kDouble}) {
    SCOPED_TRACE(toString(t));
    const double r = t == kFloat ? 1e-4 : 1e-10;
    Tensor x = random_tensor({4, 5, 6, 3}, t);
    for (const char* norm : {"backward", "ortho", "forward"}) {
      SCOPED_TRACE(norm);
      EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::rfft(x, std::nullopt, 2, norm); }),
                          fft::rfft(x, std::nullopt, 2, norm), r, r);
      EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::rfft(x, 7, 1, norm); }), fft::rfft(x, 7, 1, norm), r, r);
      EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::rfft2(x, std::nullopt, {0, 2}, norm); }),
                          fft::rfft2(x, std::nullopt, {0, 2}, norm), r, r);
      EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::rfftn(x, std::nullopt, std::vector<int64_t>{3, 1, 0, 2}, norm); }),
                          fft::rfftn(x, std::nullopt, std::vector<int64_t>{3, 1, 0, 2}, norm), r, r);
      Tensor X = fft::rfftn(x, std::nullopt, std::vector<int64_t>{1, 2}, norm);
      for (int64_t n : {6, 7}) {
        EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::irfft(X, n, 2, norm); }), fft::irfft(X, n, 2, norm), r, r);
        EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::hfft(X, n, 1, norm); }), fft::hfft(X, n, 1, norm), r, r);
      }
      const Tensor keep = X.clone();
      EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::irfftn(X, std::vector<int64_t>{5, 6}, std::vector<int64_t>{1, 2}, norm); }),
                          fft::irfftn(X, std::vector<int64_t>{5, 6}, std::vector<int64_t>{1, 2}, norm), r, r);
      EXPECT_TENSOR_EQ(X, keep);  // c2r's scratch is a copy
      Tensor Y = random_tensor({3, 4, 5, 4, 2}, toComplexType(t));
      EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::irfftn(Y, std::nullopt, std::vector<int64_t>{0, 1, 2, 3}, norm); }),
                          fft::irfftn(Y, std::nullopt, std::vector<int64_t>{0, 1, 2, 3}, norm), r, r);
      EXPECT_TENSOR_CLOSE(on_device_path([&] { return fft::ihfft(x, std::nullopt, 0, norm); }),
                          fft::ihfft(x, std::nullopt, 0, norm), r, r);
    }
  }
}

TEST(FftDeviceGlue, TwoSidedRealTransformAndGradients) {
  Tensor x = random_tensor({3, 8}, kDouble);
  EXPECT_TENSOR_CLOSE(on_device_path([&] { return _fft_r2c(x, {1}, 0, false); }), _fft_r2c(x, {1}, 0, false), 1e-10, 1e-10);
  auto grad_of = [](const Tensor& in, bool device) {
    Tensor a = in.clone().requires_grad_();
    fft_detail::ScopedDeviceFftForCpu scope(device ? &kStandIn : nullptr);
    Tensor y = fft::irfft(fft::rfft(a).mul(fft::rfft(a).conj()), 8);
    y.pow(2).sum().backward();
    return a.grad();
  };
  const int before = calls;
  EXPECT_TENSOR_CLOSE(grad_of(x, true), grad_of(x, false), 1e-9, 1e-9);
  EXPECT_GT(calls, before);
}

}  // namespace fft_glue
}  // namespace ember::test
