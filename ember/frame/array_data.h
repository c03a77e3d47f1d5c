// ArrayData: Arrow's array in memory (type, length, offset, null count, buffers, children,
// dictionary) and validate(), the check that every reader of untrusted arrays runs first.
// Columns are handles over it; see ember/frame/frame.h for the layouts.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "ember/frame/buffer.h"
#include "ember/frame/dtype.h"

namespace ember::frame {

constexpr int64_t kUnknownNullCount = -1;
// The most elements an array may have (validation refuses more): element counts stay well
// below overflow of any byte computation.
constexpr int64_t kMaxArrayElements = int64_t(1) << 40;

struct ValidateOptions {
  // Also check that every valid string (string, large_string) is well-formed UTF-8.
  bool check_utf8 = false;
};

struct ArrayData;
using ArrayDataPtr = std::shared_ptr<const ArrayData>;

// Element i of the array is slot offset + i of its buffers. Buffers follow Arrow's order
// for the type (buffers[0] is always the validity bitmap, undefined when there are no
// nulls); children are lists' values, structs' fields, a map's entries struct; dictionary
// holds a dictionary array's values. Immutable once shared (the null count is a cache).
struct ArrayData {
  DType type;
  int64_t length = 0;
  int64_t offset = 0;
  std::vector<Buffer> buffers;
  std::vector<ArrayDataPtr> children;
  ArrayDataPtr dictionary;

  ArrayData(DType t, int64_t length, std::vector<Buffer> buffers, std::vector<ArrayDataPtr> children = {},
            int64_t null_count = kUnknownNullCount, int64_t offset = 0, ArrayDataPtr dictionary = nullptr);
  ArrayData(const ArrayData& o);
  ArrayData& operator=(const ArrayData&) = delete;

  static std::shared_ptr<ArrayData> make(DType t, int64_t length, std::vector<Buffer> buffers,
                                         std::vector<ArrayDataPtr> children = {},
                                         int64_t null_count = kUnknownNullCount, int64_t offset = 0,
                                         ArrayDataPtr dictionary = nullptr) {
    return std::make_shared<ArrayData>(std::move(t), length, std::move(buffers), std::move(children), null_count,
                                       offset, std::move(dictionary));
  }

  // The number of null elements, counted from the validity bitmap on first use.
  int64_t null_count() const;
  // The cached count, or kUnknownNullCount.
  int64_t known_null_count() const { return null_count_.load(std::memory_order_relaxed); }
  const uint8_t* validity() const { return buffers.empty() || !buffers[0].defined() ? nullptr : buffers[0].data(); }
  bool is_valid(int64_t i) const {
    const uint8_t* v = validity();
    return v == nullptr || bits::get(v, offset + i);
  }

  // Elements [offset, offset + length) of this array, sharing its buffers.
  std::shared_ptr<ArrayData> slice(int64_t offset, int64_t length) const;

  // Checks every invariant that reading the array relies on, recursively, and raises
  // ember::Error naming the first one broken (with the path of the child involved):
  //   lengths and offsets non-negative; the buffer and child counts of the type's layout;
  //   each buffer long enough for offset + length elements; a known null count that matches
  //   the bitmap, and none for a non-nullable type; offsets non-decreasing and inside the
  //   bytes or child they index; struct children long enough; map keys without nulls;
  //   dictionary indices inside the dictionary; children's types matching the parent's;
  //   and, with check_utf8, valid UTF-8 in every valid string.
  // Reads only the bytes these checks have shown to be there. O(length) (offsets, indices).
  void validate(const ValidateOptions& options = {}) const;

 private:
  mutable std::atomic<int64_t> null_count_;
};

// The type of a child as the parent's type says it must be: list/large_list items, the map
// entries struct, struct fields. Used by builders, validate() and the C Data Interface.
DType child_type(const DType& parent, size_t i);
size_t num_children(const DType& t);

}  // namespace ember::frame
