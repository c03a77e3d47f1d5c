// The short-time Fourier transform and its inverse (torch::stft, torch::istft) with PyTorch
// 1.13's arguments and rules: frames of n_fft samples every hop_length, a window of win_length
// centred in n_fft, optional centring by padding, one- or two-sided spectra; the inverse by
// overlap-add divided by the summed squared window. Composed of differentiable ops.
#include "ember/core/warning.h"
#include "ember/ops/fft.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"

namespace ember {

namespace {
// The window padded (centred) to n_fft, or ones; shape [n_fft].
Tensor full_window(const std::optional<Tensor>& window, int64_t n_fft, int64_t win_length, const Tensor& like,
                   const char* op) {
  if (!window || !window->defined()) {
    Tensor w = ones({win_length}, like.options().dtype(toRealValueType(like.scalar_type())).requires_grad(false));
    if (win_length < n_fft) {
      const int64_t left = (n_fft - win_length) / 2;
      w = constant_pad_nd(w, {left, n_fft - win_length - left});
    }
    return w;
  }
  EMBER_CHECK(window->dim() == 1 && window->size(0) == win_length, op,
              ": expected a 1D window tensor of size equal to win_length=", win_length, ", but got window with size ",
              window->sizes());
  if (win_length == n_fft) return *window;
  const int64_t left = (n_fft - win_length) / 2;
  return constant_pad_nd(*window, {left, n_fft - win_length - left});
}
}  // namespace

Tensor stft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length, std::optional<int64_t> win_length,
            const std::optional<Tensor>& window, bool center, std::string_view pad_mode, bool normalized,
            std::optional<bool> onesided, std::optional<bool> return_complex) {
  check_defined(self, "stft");
  if (EMBER_UNLIKELY(autocast::any_active())) {  // on PyTorch's float32 autocast list
    const Tensor w = window && window->defined() ? *window : Tensor();
    const std::vector<Tensor> c = autocast::cast_inputs(autocast::policies("stft"), {&self, &w});
    autocast::SuspendGuard suspend;
    return stft(c[0], n_fft, hop_length, win_length, c[1].defined() ? std::optional<Tensor>(c[1]) : std::nullopt,
                center, pad_mode, normalized, onesided, return_complex);
  }
  const bool complex_in = self.is_complex() || (window && window->defined() && window->is_complex());
  EMBER_CHECK(return_complex.has_value() || complex_in, "stft requires the return_complex parameter be given for "
              "real inputs, and will further require that return_complex=True in a future PyTorch release.");
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, "stft: expected a 1D or 2D tensor, but got a tensor of ",
              self.dim(), " dimensions");
  const int64_t hop = hop_length.value_or(n_fft / 4);
  const int64_t win = win_length.value_or(n_fft);
  Tensor x = self.dim() == 1 ? self.unsqueeze(0) : self;
  if (!x.is_floating_point() && !x.is_complex()) x = x.to(get_default_dtype());
  if (center) {
    const int64_t pad_amount = n_fft / 2;
    x = pad(x.unsqueeze(0), {pad_amount, pad_amount}, pad_mode).squeeze(0);
  }
  const int64_t len = x.size(-1);
  EMBER_CHECK(n_fft > 0 && n_fft <= len, "stft: expected 0 < n_fft < ", len, ", but got n_fft=", n_fft);
  EMBER_CHECK(hop > 0, "stft: expected hop_length > 0, but got hop_length=", hop);
  EMBER_CHECK(win > 0 && win <= n_fft, "stft: expected 0 < win_length <= n_fft, but got win_length=", win);
  const Tensor w = full_window(window, n_fft, win, x, "stft");
  Tensor frames = x.unfold(-1, n_fft, hop).mul(w);  // [B, n_frames, n_fft]
  const bool one = onesided.value_or(!complex_in);
  EMBER_CHECK(!one || !complex_in, "Cannot have onesided output if window or input is complex");
  const OptionalNorm norm = normalized ? OptionalNorm{"ortho"} : OptionalNorm{};
  Tensor spec = one ? fft::rfft(frames, std::nullopt, -1, norm) : fft::fft(frames, std::nullopt, -1, norm);
  spec = spec.transpose(-1, -2);  // [B, freq, n_frames]
  if (self.dim() == 1) spec = spec.squeeze(0);
  if (return_complex.value_or(true)) return spec;
  return view_as_real(spec.contiguous());
}

Tensor stft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length, std::optional<int64_t> win_length,
            const std::optional<Tensor>& window, bool normalized, std::optional<bool> onesided,
            std::optional<bool> return_complex) {
  return stft(self, n_fft, hop_length, win_length, window, /*center=*/false, "reflect", normalized, onesided,
              return_complex);
}

Tensor istft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length, std::optional<int64_t> win_length,
             const std::optional<Tensor>& window, bool center, bool normalized, std::optional<bool> onesided,
             std::optional<int64_t> length, bool return_complex) {
  check_defined(self, "istft");
  Tensor spec = self;
  if (!spec.is_complex()) {
    EMBER_CHECK(spec.dim() >= 1 && spec.size(-1) == 2, "istft requires a complex-valued input tensor");
    EMBER_WARN("istft will require a complex-valued input tensor in a future PyTorch release. Matching the output "
               "from stft with return_complex=True.");
    spec = view_as_complex(spec.contiguous());
  }
  EMBER_CHECK(spec.dim() == 2 || spec.dim() == 3, "istft: expected a tensor with 2 or 3 dimensions of complex, got ",
              spec.dim());
  const bool batched = spec.dim() == 3;
  if (!batched) spec = spec.unsqueeze(0);
  const int64_t hop = hop_length.value_or(n_fft / 4);
  const int64_t win = win_length.value_or(n_fft);
  const int64_t n_freq = spec.size(1), n_frames = spec.size(2);
  const bool one = onesided.value_or(n_freq != n_fft);
  if (one)
    EMBER_CHECK(n_fft / 2 + 1 == n_freq, "istft: expected the frequency dimension (", n_freq, ") of the input to "
                "equal n_fft / 2 + 1 when onesided=True, but got ", n_freq);
  else
    EMBER_CHECK(n_fft == n_freq, "istft: expected the frequency dimension (", n_freq, ") of the input to equal n_fft "
                "when onesided=False, but got ", n_freq);
  EMBER_CHECK(hop > 0 && hop <= win, "istft: expected 0 < hop_length <= win_length");
  EMBER_CHECK(win > 0 && win <= n_fft, "istft: expected 0 < win_length <= n_fft");
  EMBER_CHECK(!(one && return_complex), "cannot have onesided output if window or input is complex");
  const Tensor w = full_window(window, n_fft, win, spec, "istft");
  const OptionalNorm norm = normalized ? OptionalNorm{"ortho"} : OptionalNorm{"backward"};
  Tensor frames_f = spec.transpose(1, 2);  // [B, n_frames, freq]
  Tensor frames = one ? fft::irfft(frames_f, n_fft, -1, norm) : fft::ifft(frames_f, n_fft, -1, norm);
  if (!return_complex && frames.is_complex()) {
    EMBER_CHECK(frames.imag().abs().max().item<double>() < 1e-6 * std::max(1.0, frames.abs().max().item<double>()),
                "istft: the inverse transform has a non-zero imaginary part; pass return_complex=true");
    frames = real(frames);
  }
  frames = frames.mul(w);  // [B, n_frames, n_fft]
  // Overlap-add of the frames and of the squared window.
  const int64_t total = n_fft + hop * (n_frames - 1);
  const TensorOptions index_opts = TensorOptions().dtype(kLong).device(frames.device());
  const Tensor pos = arange(n_frames, index_opts).mul(hop).unsqueeze(1).add(arange(n_fft, index_opts).unsqueeze(0)).flatten();
  const int64_t B = frames.size(0);
  Tensor y = zeros({B, total}, frames.options().requires_grad(false)).index_add(1, pos, frames.reshape({B, -1}));
  Tensor env = zeros({total}, w.options().requires_grad(false)).index_add(0, pos, w.square().repeat({n_frames}));
  const int64_t start = center ? n_fft / 2 : 0;
  int64_t end = total;
  if (length) end = start + *length;
  else if (center) end = total - n_fft / 2;
  end = std::min(end, total);
  y = y.slice(1, start, end);
  env = env.slice(0, start, end);
  EMBER_CHECK(env.numel() == 0 || env.abs().min().item<double>() > 1e-11,
              "istft: window overlap add min: ", env.numel() ? env.abs().min().item<double>() : 0.0,
              " (the window must be nonzero where frames overlap)");
  y = y.div(env);
  if (length && y.size(1) < *length) y = constant_pad_nd(y, {0, *length - y.size(1)});
  return batched ? y : y.squeeze(0);
}

}  // namespace ember
