// LibTorch compatibility: <torch/script.h>. ember has no TorchScript interpreter, so a program
// that includes this header compiles, and torch::jit::load fails with an error that says what to
// use instead: ember's own checkpoints (torch::save / torch::load of a C++ module's
// parameters, in safetensors files) or ember's traced programs (ember::jit) where the build
// has them.
#pragma once
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

namespace torch::jit {

using ::ember::IValue;

namespace compat_detail {
[[noreturn]] inline void no_torchscript(const std::string& what) {
  throw ::c10::Error(
      what + ": ember cannot run TorchScript (it has no TorchScript interpreter). Keep the model as a C++ "
             "module: save its parameters with torch::save(module, \"model.safetensors\") and restore them with "
             "torch::load(module, \"model.safetensors\") (safetensors files, readable by the Python safetensors "
             "package), or trace it with ember::jit and save the traced program where the build has ember::jit.");
}
}  // namespace compat_detail

// A TorchScript module. ember cannot load one, so every Module is empty and its methods throw.
class Module {
 public:
  Module() = default;
  IValue forward(std::vector<IValue>) { compat_detail::no_torchscript("torch::jit::Module::forward"); }
  IValue run_method(const std::string& method_name, std::vector<IValue> = {}) {
    compat_detail::no_torchscript("torch::jit::Module::run_method('" + method_name + "')");
  }
  void eval() { training_ = false; }
  void train(bool on = true) { training_ = on; }
  bool is_training() const { return training_; }
  void to(Device, bool = false) {}
  void to(ScalarType, bool = false) {}
  void save(const std::string& filename) const {
    compat_detail::no_torchscript("torch::jit::Module::save('" + filename + "')");
  }
  std::vector<Tensor> parameters(bool = true) const { return {}; }

 private:
  bool training_ = true;
};

namespace script {
using Module = ::torch::jit::Module;
}  // namespace script

// Always throws c10::Error: TorchScript files cannot be loaded by ember.
inline Module load(const std::string& filename, std::optional<Device> = std::nullopt) {
  compat_detail::no_torchscript("torch::jit::load('" + filename + "')");
}
inline Module load(std::istream&, std::optional<Device> = std::nullopt) {
  compat_detail::no_torchscript("torch::jit::load(stream)");
}

}  // namespace torch::jit
