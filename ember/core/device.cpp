// Device names and parsing.
#include "ember/core/device.h"

#include <cctype>

#include <ostream>

#include "ember/core/error.h"

namespace ember {

const char* to_string(DeviceType t) {
  switch (t) {
    case kCPU: return "cpu";
    case kCUDA: return "cuda";
    case kMeta: return "meta";
  }
  return "unknown";
}
std::ostream& operator<<(std::ostream& os, DeviceType t) { return os << to_string(t); }

void Device::bad_index(DeviceType type, DeviceIndex index) {
  EMBER_CHECK(index >= -1, "Device: index must be -1 (none) or non-negative, got ", int(index));
  EMBER_ERROR("Device: CPU device index must be -1 or 0, got ", int(index));
}

Device::Device(const std::string& spec) : type_(kCPU), index_(-1) {
  auto colon = spec.find(':');
  std::string name = spec.substr(0, colon);
  if (name == "cpu") type_ = kCPU;
  else if (name == "cuda") type_ = kCUDA;
  else if (name == "meta") type_ = kMeta;
  else EMBER_ERROR("Device: expected one of cpu, cuda, meta device type at start of device string: ", spec);
  if (colon != std::string::npos) {
    std::string idx = spec.substr(colon + 1);
    EMBER_CHECK(!idx.empty() && idx.size() <= 3 &&
                    idx.find_first_not_of("0123456789") == std::string::npos,
                "Device: invalid device string '", spec, "' (expected e.g. 'cuda:0')");
    int v = std::stoi(idx);
    EMBER_CHECK(v <= 127, "Device: index ", v, " too large in '", spec, "'");
    index_ = static_cast<DeviceIndex>(v);
    EMBER_CHECK(type_ != kCPU || index_ == 0, "Device: CPU device index must be 0, got ", spec);
  }
}

std::string Device::str() const {
  std::string s = to_string(type_);
  if (has_index()) s += ":" + std::to_string(int(index_));
  return s;
}
std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

std::string DeviceTypeName(DeviceType t, bool lower_case) {
  std::string name = to_string(t);
  for (char& c : name) c = char(lower_case ? std::tolower(c) : std::toupper(c));
  return name;
}

}  // namespace ember
