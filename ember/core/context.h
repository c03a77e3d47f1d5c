// at::Context: the process-wide switches (at::globalContext()).
#pragma once
#include <atomic>

namespace ember {
// So far the CUDA backend's switches: TF32 tensor cores for float32 matrix products (cuBLAS)
// and convolutions (cuDNN), off and on by default as in PyTorch since 1.12
// (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32); and cuDNN's
// (torch.backends.cudnn.enabled / benchmark / deterministic): whether convolutions on CUDA
// use it at all, whether its algorithms are timed (on first use of each geometry) rather
// than picked by its heuristics, and whether only deterministic algorithms are allowed.
class Context {
 public:
  bool allowTF32CuBLAS() const { return allow_tf32_cublas_; }
  void setAllowTF32CuBLAS(bool b) { allow_tf32_cublas_ = b; }
  bool allowTF32CuDNN() const { return allow_tf32_cudnn_; }
  void setAllowTF32CuDNN(bool b) { allow_tf32_cudnn_ = b; }
  bool userEnabledCuDNN() const { return user_enabled_cudnn_; }
  void setUserEnabledCuDNN(bool b) { user_enabled_cudnn_ = b; }
  bool benchmarkCuDNN() const { return benchmark_cudnn_; }
  void setBenchmarkCuDNN(bool b) { benchmark_cudnn_ = b; }
  bool deterministicCuDNN() const { return deterministic_cudnn_; }
  void setDeterministicCuDNN(bool b) { deterministic_cudnn_ = b; }

 private:
  std::atomic<bool> allow_tf32_cublas_{false}, allow_tf32_cudnn_{true};
  std::atomic<bool> user_enabled_cudnn_{true}, benchmark_cudnn_{false}, deterministic_cudnn_{false};
};
Context& globalContext();
}  // namespace ember
