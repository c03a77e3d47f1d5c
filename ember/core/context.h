// at::Context: the process-wide switches (at::globalContext()).
#pragma once
#include <atomic>

namespace ember {
// So far the CUDA backend's switches: TF32 tensor cores for float32 matrix products (cuBLAS)
// and convolutions (cuDNN), off and on by default as in PyTorch since 1.12
// (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32).
class Context {
 public:
  bool allowTF32CuBLAS() const { return allow_tf32_cublas_; }
  void setAllowTF32CuBLAS(bool b) { allow_tf32_cublas_ = b; }
  bool allowTF32CuDNN() const { return allow_tf32_cudnn_; }
  void setAllowTF32CuDNN(bool b) { allow_tf32_cudnn_ = b; }

 private:
  std::atomic<bool> allow_tf32_cublas_{false}, allow_tf32_cudnn_{true};
};
Context& globalContext();
}  // namespace ember
