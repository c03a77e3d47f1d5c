// Row order for DataFrame::sort: a stable sort by several keys, each ascending or descending
// with its nulls first or last. Internal to ember/frame/relational (DataFrame::sort and
// groupby's sorted output use it); see Note [Sorting rows] in sort.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ember/frame/column.h"
#include "ember/frame/relational/util.h"

namespace ember::frame::relational {

struct SortKey {
  Column column;     // bool, numbers, date32, timestamp, strings, binaries, or a dictionary of those
  std::string name;  // for errors
  bool ascending = true;
  bool nulls_first = false;
};

// Row positions in sorted order (the first key most significant; ties keep their input
// order). Floats order -inf < ... < -0.0 == 0.0 < ... < inf < NaN (NaN is a value, not a null;
// descending puts it first). Keys must have equal lengths.
std::vector<int64_t> sort_indices(const std::vector<SortKey>& keys, const char* op = "sort");
// The same as int32 positions, for fewer than 2^31 rows (half the memory traffic).
Vec<int32_t> sort_indices32(const std::vector<SortKey>& keys, const char* op = "sort");

}  // namespace ember::frame::relational
