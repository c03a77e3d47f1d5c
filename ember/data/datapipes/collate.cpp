#include "ember/data/datapipes/collate.h"

#include <cstring>

#include "ember/ops/functions.h"

namespace ember::data::datapipes::detail {

void collate_mismatch(const char* what, size_t first, size_t other, size_t index) {
  EMBER_CHECK(false, "collate: element ", index, " of the batch has ", what, " ", other, " but element 0 has ",
              first, " (default collation needs equal ", what, "s; batch with a custom collate function or pad)");
}

Tensor collate_tensors(const std::vector<Tensor>& batch) {
  EMBER_CHECK(!batch.empty(), "collate: cannot stack an empty batch of tensors");
  for (size_t i = 1; i < batch.size(); ++i) {
    EMBER_CHECK(batch[i].sizes() == batch[0].sizes() && batch[i].scalar_type() == batch[0].scalar_type(),
                "collate: element ", i, " of the batch is a ", batch[i].scalar_type(), " tensor of shape ",
                batch[i].sizes(), " but element 0 is ", batch[0].scalar_type(), " ", batch[0].sizes(),
                " (default collation stacks equal shapes; pad, or pass a custom collate function)");
  }
  return stack(batch, 0);
}

template <class T>
static Tensor from_values(const std::vector<T>& v, ScalarType dtype) {
  Tensor t = empty({int64_t(v.size())}, TensorOptions().dtype(dtype));
  if (!v.empty()) std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(T));
  return t;
}

Tensor collate_bools(const std::vector<bool>& batch) {
  std::vector<uint8_t> bytes(batch.begin(), batch.end());
  return from_values(bytes, kBool);
}
Tensor collate_int64(const std::vector<int64_t>& batch) { return from_values(batch, kLong); }
Tensor collate_double(const std::vector<double>& batch) { return from_values(batch, kDouble); }

}  // namespace ember::data::datapipes::detail
