// Internal helpers of the .str() kernels (strings.cpp, regex.cpp): per-row boolean and
// integer outputs, list<string> outputs, and the input column's layout.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ember/frame/compute/kernels.h"

namespace ember::frame::compute_detail {

// A boolean column with the input's validity: pred(string_view) for each valid row.
template <class P>
Column string_predicate(const ArrayData& a, const P& pred) {
  const int64_t n = a.length;
  const StringAccess s = string_access(a);
  MutableBuffer out = allocate(num_words(n) * 8);
  uint64_t* w = out.as<uint64_t>();
  const bool has_nulls = a.validity() != nullptr && a.null_count() > 0;
  parallel_for(0, num_words(n), kGrain / 64, [&](int64_t kb, int64_t ke) {
    for (int64_t k = kb; k < ke; ++k) {
      const int64_t base = k * 64;
      const int m = int(std::min<int64_t>(64, n - base));
      const uint64_t valid = has_nulls ? validity_word(a, k) : ~uint64_t(0);
      uint64_t x = 0;
      for (int j = 0; j < m; ++j)
        if ((valid >> j) & 1) x |= uint64_t(pred(s.get(base + j)) ? 1 : 0) << j;
      w[k] = x;
    }
  });
  return make_bool(n, out.buffer, validity_of(a), a.type.nullable());
}

// An int64 column with the input's validity: f(string_view) for each valid row.
template <class F>
Column string_to_int64(const ArrayData& a, const F& f) {
  const int64_t n = a.length;
  const StringAccess s = string_access(a);
  MutableBuffer out = allocate(n * 8);
  int64_t* o = out.as<int64_t>();
  parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) o[i] = a.is_valid(i) ? f(s.get(i)) : 0;
  });
  return make_fixed(DType(TypeId::Int64, a.type.nullable()), n, out.buffer, validity_of(a));
}

// Builds a list<string> column row by row: begin a row, add pieces, end it (or a null row).
class StringListOutput {
 public:
  explicit StringListOutput(int64_t n) { offsets_.reserve(size_t(n) + 1); offsets_.push_back(0); }
  void add(std::string_view piece) {
    bytes_.append(piece);
    item_ends_.push_back(int64_t(bytes_.size()));
  }
  void end_row(bool valid) {
    offsets_.push_back(int64_t(item_ends_.size()));
    valid_.push_back(valid);
    if (!valid) ++nulls_;
  }
  Column finish(const char* op, bool nullable, bool large_items);

 private:
  std::string bytes_;
  std::vector<int64_t> item_ends_;
  std::vector<int64_t> offsets_;
  std::vector<bool> valid_;
  int64_t nulls_ = 0;
};

}  // namespace ember::frame::compute_detail
