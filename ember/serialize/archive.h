// LibTorch's serialize::OutputArchive / InputArchive over safetensors files: tensors under
// dotted keys ("fc1.weight", as PyTorch's state_dict names them), nested archives as key
// prefixes, and small values (IValue: bool, int, double, string, int list) as typed strings
// in the file's metadata. Module::save/load and the optimizers' serialize() build on them.
#pragma once
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ember/autograd/custom_function.h"
#include "ember/core/tensor.h"
#include "ember/serialize/safetensors.h"

namespace ember::serialize {

class OutputArchive {
 public:
  // A buffer is stored like a parameter; a non-buffer tensor that requires grad is marked so,
  // and a load into an undefined tensor gives it requires_grad again (as LibTorch's pickles do).
  void write(const std::string& key, const Tensor& tensor, bool is_buffer = false);
  void write(const std::string& key, const OutputArchive& nested_archive);
  // Bool, int, double, string, int list; a tensor IValue is written as a tensor.
  void write(const std::string& key, const IValue& value);

  void save_to(const std::string& filename) const;  // atomic
  void save_to(std::ostream& stream) const;
  // LibTorch's callback form: func(data, n) writes n bytes and returns how many it wrote.
  void save_to(const std::function<size_t(const void*, size_t)>& func) const;
  std::string to_bytes() const;

  const std::map<std::string, Tensor>& tensors() const { return tensors_; }

 private:
  void check_new_key(const std::string& key) const;
  std::map<std::string, Tensor> tensors_;
  std::map<std::string, std::string> values_;
  std::set<std::string> requires_grad_;
};

class InputArchive {
 public:
  // Reads into `tensor`: a defined tensor of the same shape is overwritten in place (its
  // dtype, device, layout and requires_grad kept, autograd off); otherwise it takes the stored
  // tensor (requiring grad when it was saved so, or when the defined tensor did).
  void read(const std::string& key, Tensor& tensor, bool is_buffer = false);
  bool try_read(const std::string& key, Tensor& tensor, bool is_buffer = false);
  void read(const std::string& key, InputArchive& nested_archive);
  bool try_read(const std::string& key, InputArchive& nested_archive);
  void read(const std::string& key, IValue& value);
  bool try_read(const std::string& key, IValue& value);

  void load_from(const std::string& filename);
  void load_from(std::istream& stream);
  void load_from(const void* data, size_t size);
  // LibTorch's callback form: size_func() is the archive's size in bytes, read_func(pos, buf, n)
  // copies up to n bytes from position pos into buf and returns how many it copied.
  void load_from(const std::function<size_t(uint64_t, void*, size_t)>& read_func,
                 const std::function<size_t()>& size_func);

  // Keys directly at this level (tensor names, value names and nested archive names).
  std::vector<std::string> keys() const;
  // `key` with this archive's prefix: its name in the file ("fc1.weight").
  std::string qualified(const std::string& key) const { return prefix_ + key; }
  // The metadata entries written by other tools (not ember's typed values).
  const std::map<std::string, std::string>& foreign_metadata() const { return foreign_; }

 private:
  void adopt(SafetensorsContents contents);
  [[noreturn]] void missing(const std::string& key, const char* what) const;
  std::shared_ptr<const std::map<std::string, Tensor>> tensors_ = std::make_shared<std::map<std::string, Tensor>>();
  std::shared_ptr<const std::map<std::string, std::string>> values_ =
      std::make_shared<std::map<std::string, std::string>>();
  std::map<std::string, std::string> foreign_;
  std::shared_ptr<const std::set<std::string>> requires_grad_ = std::make_shared<std::set<std::string>>();
  std::string prefix_;
  std::string source_ = "archive";
};

}  // namespace ember::serialize
