// Row-selection kernels under the relational operations (sort, filter, join, groupby,
// concat): take/gather by row positions for every column type, positions from a boolean
// mask, concatenation of columns, all-null columns. They work on the raw Arrow buffers and
// split large inputs across ember's threads. Shared with the rest of ember::frame: they sit
// in ember::frame::relational until the column-compute module offers its own.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ember/frame/column.h"
#include "ember/frame/dataframe.h"
#include "ember/frame/relational/util.h"

namespace ember::frame::relational {

// Element i of the result is element idx[i] of `src`, or a null where idx[i] is negative
// (the result's dtype is then nullable). Every type is supported: strings and binaries,
// lists and maps (their values gathered, offsets rebuilt), structs (fields gathered),
// dictionaries (indices gathered, the dictionary shared). Positions past the end raise
// IndexError naming `op`. The output never shares the input's buffers, except a
// dictionary's dictionary.
Column take(const Column& src, const int64_t* idx, int64_t n, const char* op = "take");
Column take(const Column& src, const int32_t* idx, int64_t n, const char* op = "take");
inline Column take(const Column& src, const std::vector<int64_t>& idx, const char* op = "take") {
  return take(src, idx.data(), int64_t(idx.size()), op);
}
// Positions as an integer column; its nulls give nulls.
Column take(const Column& src, const Column& indices, const char* op = "take");
// Every column of `df` taken at the same positions (zero-copy when they are 0..n-1).
DataFrame take(const DataFrame& df, const int64_t* idx, int64_t n, const char* op = "take");
DataFrame take(const DataFrame& df, const int32_t* idx, int64_t n, const char* op = "take");

// take() for positions computed by a kernel, known to be below the source's length (no
// bounds pass); has_nulls says whether any is negative.
Column take_trusted(const Column& src, const int64_t* idx, int64_t n, bool has_nulls);
Column take_trusted(const Column& src, const int32_t* idx, int64_t n, bool has_nulls);
DataFrame take_trusted(const DataFrame& df, const int64_t* idx, int64_t n, bool has_nulls);
DataFrame take_trusted(const DataFrame& df, const int32_t* idx, int64_t n, bool has_nulls);

// Whether idx is 0, 1, ..., n - 1.
bool is_identity(const int64_t* idx, int64_t n);
bool is_identity(const int32_t* idx, int64_t n);

// The positions where a boolean column `mask` is true (nulls count as false). `op` names the
// caller in errors (a non-boolean mask).
Vec<int64_t> mask_positions(const Column& mask, const char* op = "filter");
// The same as int32 positions, for masks shorter than 2^31 (half the memory traffic).
Vec<int32_t> mask_positions32(const Column& mask, const char* op = "filter");
// The elements of `src` where `mask` is true; lengths must agree.
Column filter(const Column& src, const Column& mask);
// The rows of `df` where `mask` (of df's length) is true: columns of fixed-width types and
// binaries without nulls are copied straight from the mask's bits, the others taken at
// the mask's positions.
DataFrame filter(const DataFrame& df, const Column& mask);

// The columns one after another. Their dtypes must be equal apart from nullable flags (the
// result is nullable where any input is); dictionaries with different dictionaries are
// unified (the dictionary of distinct values in order of first appearance).
Column concat(const std::vector<Column>& columns, const char* op = "concat");

// `n` nulls of `type` (nullable), or `n` empty values (0, "", [], ...) for a non-nullable type.
Column nulls(const DType& type, int64_t n);
// The same column with its dtype marked nullable (shares the buffers).
Column as_nullable(const Column& c);
// `a` with each nullable flag (nested ones too) set where `a` or `b` has it; a and b must
// be equal apart from nullable flags.
DType merge_nullable(const DType& a, const DType& b);

}  // namespace ember::frame::relational
