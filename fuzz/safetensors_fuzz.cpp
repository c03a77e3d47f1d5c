// Fuzzes serialize::from_safetensors (ember/serialize/safetensors.h) on arbitrary bytes: it
// must raise ember::Error or give tensors whose every byte can be read, and what it gives
// must write back (to_safetensors) and read again to the same dtypes, shapes and bytes.
#include <cstring>

#include "ember/ember.h"
#include "fuzz_util.h"

namespace {

using namespace ember;

bool same_bytes(const Tensor& a, const Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  const size_t n = size_t(ca.numel()) * ca.element_size();
  return n == 0 || std::memcmp(ca.data_ptr(), cb.data_ptr(), n) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::setup();
  EMBER_FUZZ_TRY({
    serialize::SafetensorsContents c = serialize::from_safetensors(data, size, "fuzz input");
    for (auto& [name, t] : c.tensors) (void)t.clone();  // every byte of every tensor
    const std::string again = serialize::to_safetensors(c.tensors, c.metadata);
    serialize::SafetensorsContents back = serialize::from_safetensors(again.data(), again.size(), "rewritten");
    if (back.tensors.size() != c.tensors.size()) fuzz::fail("safetensors: a rewritten file lost tensors");
    for (auto& [name, t] : c.tensors) {
      auto it = back.tensors.find(name);
      if (it == back.tensors.end() || !same_bytes(t, it->second))
        fuzz::fail("safetensors: tensor '" + name + "' differs after writing and reading it back");
    }
    if (back.metadata != c.metadata) fuzz::fail("safetensors: metadata differs after writing and reading it back");
  });
  return 0;
}
