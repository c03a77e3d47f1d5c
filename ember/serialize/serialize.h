// torch::save / torch::load with LibTorch's signatures, for tensors, tensor lists, modules
// and optimizers, over safetensors archives (ember/serialize/archive.h). Also the global
// random-number generator state, so a training run can resume bit-identically.
#pragma once
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/module.h"
#include "ember/optim/optimizer.h"
#include "ember/serialize/archive.h"

namespace ember {

namespace serialize {
OutputArchive& operator<<(OutputArchive& archive, const Tensor& tensor);  // key "0"
InputArchive& operator>>(InputArchive& archive, Tensor& tensor);
OutputArchive& operator<<(OutputArchive& archive, const std::vector<Tensor>& tensors);  // keys "0".."n-1"
InputArchive& operator>>(InputArchive& archive, std::vector<Tensor>& tensors);
OutputArchive& operator<<(OutputArchive& archive, const std::shared_ptr<nn::Module>& module);
InputArchive& operator>>(InputArchive& archive, const std::shared_ptr<nn::Module>& module);
template <class M, class = std::enable_if_t<std::is_base_of_v<nn::Module, M>>>
OutputArchive& operator<<(OutputArchive& archive, const std::shared_ptr<M>& module) {
  return archive << std::static_pointer_cast<nn::Module>(module);
}
template <class M, class = std::enable_if_t<std::is_base_of_v<nn::Module, M>>>
InputArchive& operator>>(InputArchive& archive, const std::shared_ptr<M>& module) {
  return archive >> std::static_pointer_cast<nn::Module>(module);
}
template <class M>
OutputArchive& operator<<(OutputArchive& archive, const nn::ModuleHolder<M>& module) {
  return archive << std::static_pointer_cast<nn::Module>(module.ptr());
}
template <class M>
InputArchive& operator>>(InputArchive& archive, nn::ModuleHolder<M>& module) {
  return archive >> std::static_pointer_cast<nn::Module>(module.ptr());
}
OutputArchive& operator<<(OutputArchive& archive, const optim::Optimizer& optimizer);
InputArchive& operator>>(InputArchive& archive, optim::Optimizer& optimizer);
}  // namespace serialize

// torch::save(value, "file.safetensors") / torch::save(value, stream).
template <class Value, class... SaveToArgs>
void save(const Value& value, SaveToArgs&&... args) {
  serialize::OutputArchive archive;
  archive << value;
  archive.save_to(std::forward<SaveToArgs>(args)...);
}
// torch::load(value, "file.safetensors") / torch::load(value, stream).
template <class Value, class... LoadFromArgs>
void load(Value& value, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  archive >> value;
}

// The default CPU generator's state as a uint8 tensor, as torch.get_rng_state /
// set_rng_state (PyTorch's 5056-byte layout: states move between the two).
Tensor get_rng_state();
void set_rng_state(const Tensor& state);

}  // namespace ember
