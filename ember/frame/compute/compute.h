// Column compute for ember::frame: arithmetic, comparisons, logic, null handling, casts,
// math, selection, aggregations, sorting and distinct values as free functions (TorchArrow's
// names where it has them, pandas' otherwise), with Column members forwarding to them
// (col.sum(), col.str().lower(): see the compute block of column.h). Include this header to
// use them; it also brings the .str() / .list() / .struct_() accessors and map/transform.
//
// Note [Compute semantics]
//  * Nulls propagate (Arrow/TorchArrow): null op x is null, in arithmetic and comparisons.
//    Logical and/or use Kleene logic (false & null = false, true | null = true). NaN is a
//    value, not a null (as in Arrow and polars): it propagates through sums, means and
//    variances; min, max, argmin, argmax, median and quantile skip it (pyarrow's min_max
//    and quantile); unique counts it once; and sorting puts it after every number, next
//    to the nulls (pyarrow's sort_indices).
//  * Type promotion is PyTorch's: bool < integers < floats by category, the wider type
//    within one; int32 + int64 -> int64; int64 + float32 -> float32; uint8 + int8 -> int16;
//    unsigned mixed with a signed type at least as wide -> the next wider signed type, and
//    uint64 with a signed type -> int64. bool acts as an integer (bool + bool -> int64, as
//    Python's True + True == 2). A scalar takes the column's type when its category is not
//    higher (int8 column + 3 -> int8; an int scalar that does not fit the type is an error);
//    a float scalar with an integer column gives float64.
//  * Division as pandas: int / int -> float64 (x / 0 -> inf or nan); // floors and % takes
//    the divisor's sign (Python); for floats, numpy's divmod (x // 0.0 -> +-inf, x % 0.0 ->
//    nan). Integer // 0 and % 0 raise an error naming the row (TorchArrow/Velox and pyarrow
//    refuse it too; pandas' numpy path gives inf, its masked arrays 0). Integer arithmetic
//    wraps on overflow (numpy, PyTorch); int ** negative int is an error (numpy's).
//  * Results are nullable when an input is (or the op can make nulls); a non-nullable
//    result never has nulls.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/frame/column.h"
#include "ember/frame/compute/lists.h"
#include "ember/frame/compute/strings.h"
#include "ember/frame/compute/udf.h"

namespace ember::frame {

// ---- arithmetic (operators +, -, *, /, % and unary - in column.h) --------------------------
#define EMBER_FRAME_BINARY_OP(name)                      \
  Column name(const Column& a, const Column& b);         \
  Column name(const Column& a, const Value& b);          \
  Column name(const Value& a, const Column& b);
EMBER_FRAME_BINARY_OP(add)
EMBER_FRAME_BINARY_OP(sub)
EMBER_FRAME_BINARY_OP(mul)
EMBER_FRAME_BINARY_OP(div)       // true division (pandas truediv)
EMBER_FRAME_BINARY_OP(truediv)
EMBER_FRAME_BINARY_OP(floordiv)  // Python's //
EMBER_FRAME_BINARY_OP(mod)       // Python's %
EMBER_FRAME_BINARY_OP(pow)       // Python's **
// ---- comparisons -> boolean columns (operators <, <=, >, >= and == / != with a scalar) ---
EMBER_FRAME_BINARY_OP(eq)
EMBER_FRAME_BINARY_OP(ne)
EMBER_FRAME_BINARY_OP(lt)
EMBER_FRAME_BINARY_OP(le)
EMBER_FRAME_BINARY_OP(gt)
EMBER_FRAME_BINARY_OP(ge)
#undef EMBER_FRAME_BINARY_OP

Column neg(const Column& a);
Column abs(const Column& a);
Column ceil(const Column& a);   // integers unchanged
Column floor(const Column& a);
// numpy's round: half to even at 10^-decimals (decimals < 0 rounds integers to tens...).
Column round(const Column& a, int decimals = 0);
Column log(const Column& a);    // integers -> float64; log(0) = -inf, log(-1) = nan
Column exp(const Column& a);
Column sqrt(const Column& a);

// ---- logic on boolean columns (operators &, |, ^, ~ in column.h) -------------------------
Column logical_and(const Column& a, const Column& b);
Column logical_or(const Column& a, const Column& b);
Column logical_xor(const Column& a, const Column& b);  // null if either is null
Column logical_not(const Column& a);

// ---- nulls, membership, casts ---------------------------------------------------------
// Element i is in `values` (non-nullable booleans; a null element is in `values` only when
// `values` holds a null, as pyarrow's is_in). Values of another type that cannot equal an
// element (a string for an int column, 2.5 for an int column) simply never match.
Column isin(const Column& a, const std::vector<Value>& values);
Column is_null(const Column& a);   // non-nullable booleans (TorchArrow isnull)
Column is_valid(const Column& a);  // (TorchArrow notnull)
// Nulls replaced by `value` (converted to the column's type, or an error); the result's
// dtype is the column's, non-nullable unless `value` is null.
Column fill_null(const Column& a, const Value& value);
Column drop_null(const Column& a);
// To `dtype`: numbers, bool, strings (parsed and formatted as pyarrow does: "1.5", "1e+20",
// "true"), date32 and timestamps (ISO text; days and units since the epoch), large and
// dictionary variants, lists and structs of castable items. Nulls stay nulls: the result
// is nullable when the input or `dtype` is (a non-nullable `dtype` does not drop the
// input's nulls; fill_null does). See CastOptions (column.h) for overflow checks.
Column cast(const Column& a, const DType& dtype, const CastOptions& options = {});

// ---- selection ----------------------------------------------------------------------------
// The rows where `mask` (a boolean column of the same length) is true; null counts as false.
Column filter(const Column& a, const Column& mask);
// Rows `indices` (any integer column; negative values count from the end as in Python,
// out of range is an IndexError; a null index gives a null). Every type, nested included.
Column take(const Column& a, const Column& indices);
Column take(const Column& a, const std::vector<int64_t>& indices);
// The columns one after another (same dtype, nullable flags aside).
Column concat(const std::vector<Column>& columns);

// ---- aggregations (nulls skipped) ------------------------------------------------------
// Sum: Int (int64) for signed integers and bool, UInt for unsigned, Double for floats;
// 0 for an empty or all-null column (pandas' min_count=0). Integer sums wrap.
Value sum(const Column& a);
double mean(const Column& a);  // NaN without valid values
Value min(const Column& a);    // numbers, bool, strings, dates; null without valid values
Value max(const Column& a);
double stddev(const Column& a, int64_t ddof = 1);  // NaN with <= ddof valid values
double var(const Column& a, int64_t ddof = 1);
double median(const Column& a);
// Linear interpolation between order statistics (pandas' and numpy's default); q in [0, 1].
double quantile(const Column& a, double q);
std::vector<double> quantile(const Column& a, const std::vector<double>& qs);
int64_t count(const Column& a);  // non-null elements
bool any(const Column& a);       // booleans or numbers (non-zero); false when empty
bool all(const Column& a);       // true when empty
// Position of the first minimum / maximum (NaN skipped); an error without valid values.
int64_t argmin(const Column& a);
int64_t argmax(const Column& a);
// Running sums; nulls stay null and are skipped (pandas skipna). Signed integers and bool
// accumulate in int64, unsigned in uint64, floats in their own type.
Column cumsum(const Column& a);

// ---- sorting and distinct values ---------------------------------------------------------
// Stable sort order (int64 positions); see SortOptions (column.h).
Column argsort(const Column& a, const SortOptions& options = {});
Column sort(const Column& a, const SortOptions& options = {});
// Distinct values in order of first appearance; one null if there are nulls (pandas unique).
Column unique(const Column& a);
// Distinct values and their counts, most frequent first, ties in order of first appearance
// (pandas' value_counts): a struct column {values, counts: int64}; nulls counted as one
// value unless dropna. DataFrame::from_struct turns it into a frame.
Column value_counts(const Column& a, bool dropna = true);
int64_t nunique(const Column& a, bool dropna = true);

}  // namespace ember::frame
