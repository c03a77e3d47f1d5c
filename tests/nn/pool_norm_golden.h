// Shared by the nn tests: PyTorch's pooling and normalization cases
// (tests/golden/gen_nn_pool_norm.py writes nn_pool_norm.safetensors) and small helpers.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/serialize/safetensors.h"
#include "test_util.h"

namespace ember::test {

struct PoolNormGolden {
  std::map<std::string, Tensor> t;
  std::map<std::string, std::string> meta;
  const Tensor& at(const std::string& name, const char* key) const { return t.at(name + "." + key); }
  bool has(const std::string& name, const char* key) const { return t.count(name + "." + key) > 0; }
  // The tensor converted to `dt`, or an undefined tensor when the case has none.
  Tensor get(const std::string& name, const char* key, ScalarType dt) const {
    auto it = t.find(name + "." + key);
    return it == t.end() ? Tensor() : it->second.to(dt, false, true);
  }
};

inline const PoolNormGolden& pool_norm_golden() {
  static const PoolNormGolden g = [] {
    auto c = serialize::load_file(std::string(EMBER_GOLDEN_DIR) + "/nn_pool_norm.safetensors");
    return PoolNormGolden{c.tensors, c.metadata};
  }();
  return g;
}

// A JSON list of integers, one integer, or null (empty).
inline std::vector<int64_t> ints(const Json& j) {
  std::vector<int64_t> v;
  if (j.type() == Json::Type::Number) v.push_back(j.as_int());
  if (j.type() == Json::Type::Array)
    for (const Json& e : j.items()) v.push_back(e.as_int());
  return v;
}

// Channels-last for a 4-d tensor, channels-last-3d for a 5-d one.
inline MemoryFormat last_format(const Tensor& t) {
  return t.dim() == 5 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast;
}

}  // namespace ember::test
