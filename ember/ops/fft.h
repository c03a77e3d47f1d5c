// torch::fft: discrete Fourier transforms of tensors (fft, ifft, rfft, irfft, hfft, ihfft, their
// 2-d and n-d forms, fftfreq, rfftfreq, fftshift, ifftshift) with PyTorch 1.13's semantics:
// argument rules, dtype promotion, "backward"/"forward"/"ortho" normalization, and reverse- and
// forward-mode derivatives. Computed by ember's own FFT core (ember/ops/fft_plan.h).
#pragma once
#include <optional>
#include <string_view>

#include "ember/core/tensor.h"

namespace ember {

// The three transforms everything is built from (ATen's _fft_c2c, _fft_r2c, _fft_c2r), each
// differentiable. `normalization`: 0 none, 1 by 1/sqrt(n), 2 by 1/n, n being the signal size.
// r2c transforms dim.back() real-to-half-spectrum, then the other dims; c2r the reverse, to a
// real last dim of last_dim_size.
Tensor _fft_c2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward);
Tensor _fft_r2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided);
Tensor _fft_c2r(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size);

using OptionalNorm = std::optional<std::string_view>;

namespace fft {
Tensor fft(const Tensor& self, std::optional<int64_t> n = std::nullopt, int64_t dim = -1, OptionalNorm norm = {});
Tensor ifft(const Tensor& self, std::optional<int64_t> n = std::nullopt, int64_t dim = -1, OptionalNorm norm = {});
Tensor rfft(const Tensor& self, std::optional<int64_t> n = std::nullopt, int64_t dim = -1, OptionalNorm norm = {});
Tensor irfft(const Tensor& self, std::optional<int64_t> n = std::nullopt, int64_t dim = -1, OptionalNorm norm = {});
Tensor hfft(const Tensor& self, std::optional<int64_t> n = std::nullopt, int64_t dim = -1, OptionalNorm norm = {});
Tensor ihfft(const Tensor& self, std::optional<int64_t> n = std::nullopt, int64_t dim = -1, OptionalNorm norm = {});

Tensor fft2(const Tensor& self, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
            OptionalNorm norm = {});
Tensor ifft2(const Tensor& self, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
             OptionalNorm norm = {});
Tensor rfft2(const Tensor& self, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
             OptionalNorm norm = {});
Tensor irfft2(const Tensor& self, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
              OptionalNorm norm = {});
Tensor hfft2(const Tensor& self, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
             OptionalNorm norm = {});
Tensor ihfft2(const Tensor& self, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
              OptionalNorm norm = {});

Tensor fftn(const Tensor& self, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
            OptionalNorm norm = {});
Tensor ifftn(const Tensor& self, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
             OptionalNorm norm = {});
Tensor rfftn(const Tensor& self, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
             OptionalNorm norm = {});
Tensor irfftn(const Tensor& self, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
              OptionalNorm norm = {});
// LibTorch 1.13's C++ hfftn/ihfftn default to the last two dims (its header says so).
Tensor hfftn(const Tensor& self, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = IntArrayRef{-2, -1},
             OptionalNorm norm = {});
Tensor ihfftn(const Tensor& self, OptionalIntArrayRef s = std::nullopt,
              OptionalIntArrayRef dim = IntArrayRef{-2, -1}, OptionalNorm norm = {});

Tensor fftfreq(int64_t n, double d, const TensorOptions& options = {});
Tensor fftfreq(int64_t n, const TensorOptions& options = {});
Tensor rfftfreq(int64_t n, double d, const TensorOptions& options = {});
Tensor rfftfreq(int64_t n, const TensorOptions& options = {});
Tensor fftshift(const Tensor& x, OptionalIntArrayRef dim = std::nullopt);
Tensor ifftshift(const Tensor& x, OptionalIntArrayRef dim = std::nullopt);
}  // namespace fft

// ATen's flat names (torch::fft_fft, torch::fft_rfftn, ...).
#define EMBER_FFT_ALIAS(name)                                                  \
  template <class... A>                                                        \
  Tensor fft_##name(A&&... a) { return fft::name(std::forward<A>(a)...); }
EMBER_FFT_ALIAS(fft) EMBER_FFT_ALIAS(ifft) EMBER_FFT_ALIAS(rfft) EMBER_FFT_ALIAS(irfft)
EMBER_FFT_ALIAS(hfft) EMBER_FFT_ALIAS(ihfft) EMBER_FFT_ALIAS(fft2) EMBER_FFT_ALIAS(ifft2)
EMBER_FFT_ALIAS(rfft2) EMBER_FFT_ALIAS(irfft2) EMBER_FFT_ALIAS(hfft2) EMBER_FFT_ALIAS(ihfft2)
EMBER_FFT_ALIAS(fftn) EMBER_FFT_ALIAS(ifftn) EMBER_FFT_ALIAS(rfftn) EMBER_FFT_ALIAS(irfftn)
EMBER_FFT_ALIAS(hfftn) EMBER_FFT_ALIAS(ihfftn) EMBER_FFT_ALIAS(fftfreq) EMBER_FFT_ALIAS(rfftfreq)
EMBER_FFT_ALIAS(fftshift) EMBER_FFT_ALIAS(ifftshift)
#undef EMBER_FFT_ALIAS

}  // namespace ember
