// Device: where a tensor's memory lives. kCPU, kCUDA (with an index) and kMeta, which
// carries shapes and dtypes but no data (deferred initialization of large models).
#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace ember {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1, Meta = 2 };
constexpr int kNumDeviceTypes = 3;
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kMeta = DeviceType::Meta;
using DeviceIndex = int8_t;

const char* to_string(DeviceType t);
// c10::DeviceTypeName: "CPU", "CUDA", "META" (or lower case).
std::string DeviceTypeName(DeviceType t, bool lower_case = false);
std::ostream& operator<<(std::ostream& os, DeviceType t);

class Device {
 public:
  using Type = DeviceType;  // c10::Device::Type
  // Inline: tensors make Devices on every op (the checks cost two compares).
  Device(DeviceType type, DeviceIndex index = -1) : type_(type), index_(index) {  // NOLINT: implicit like c10::Device
    if (__builtin_expect(index < -1 || (type == DeviceType::CPU && index > 0), 0)) bad_index(type, index);
  }
  // Parses "cpu", "cuda", "cuda:1", "meta".
  Device(const std::string& spec);  // NOLINT
  Device(const char* spec) : Device(std::string(spec)) {}  // NOLINT

  DeviceType type() const { return type_; }
  DeviceIndex index() const { return index_; }
  bool has_index() const { return index_ >= 0; }
  bool is_cpu() const { return type_ == kCPU; }
  bool is_cuda() const { return type_ == kCUDA; }
  bool is_meta() const { return type_ == kMeta; }
  std::string str() const;
  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }

 private:
  [[noreturn]] static void bad_index(DeviceType type, DeviceIndex index);
  DeviceType type_;
  DeviceIndex index_;
};
std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace ember

template <>
struct std::hash<ember::Device> {
  size_t operator()(const ember::Device& d) const {
    return (size_t(d.type()) << 8) ^ size_t(uint8_t(d.index()));
  }
};
