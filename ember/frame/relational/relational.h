// DataFrame operations on rows and columns (ember/frame/relational): select/assign/drop/
// rename/reorder, where (filter), append and concat, sort, groupby + agg, join,
// drop_duplicates and describe. The DataFrame members (df.sort(...), df.groupby(...),
// df.join(...)) are one-line forwarders declared in dataframe.h; this header holds the types
// they use and the free functions. TorchArrow's names where it has them, pandas' otherwise.
//
// Note [Relational semantics]
//  * Nulls. where() drops rows whose mask is null. sort() places nulls first or last per key.
//    groupby drops rows with a null key by default (pandas' dropna=True); with dropna=false a
//    null key is a group of its own, sorted last. Joins never match null keys (as pyarrow and
//    polars; pandas would match NaN with NaN): a row with a null in any key is unmatched.
//    drop_duplicates treats nulls as equal. Floats: NaN is a value (not a null): it sorts above
//    inf, groups with other NaNs, and -0.0 == 0.0 for grouping and joining.
//  * Row order. sort is stable. groupby(sort=true) orders groups by key (pandas' default);
//    sort=false keeps the order of first appearance. join follows pandas' merge: inner and
//    left in left row order (each left row followed by its matches in right order), right in
//    right row order (matches in left order), outer by key in ascending order (left-major
//    within a key), then the rows whose key has a null: the left ones in left order, then the
//    right ones. drop_duplicates keeps the surviving rows in their order.
//  * Names. agg names its outputs "<column>.<aggregation>" (TorchArrow's spelling: "v.sum",
//    "v.mean"); size() gives "size". join suffixes overlapping non-key columns ("_x", "_y").
//  * Types. Aggregations: count and size int64; sum int64 for signed integers and booleans,
//    uint64 for unsigned ones, float64 for floats; mean and std float64 (null for a group
//    without values, std also for one value: ddof = 1); min, max, first and last keep the
//    column's dtype (strings too; null where a group has no value; first/last skip nulls as
//    pandas); list gives List(dtype) of each group's values, nulls included, in row order.
//    Join: columns of the side that can miss (right in a left join, both in an outer join)
//    become nullable. describe(): float64 per numeric column (booleans excluded, as pandas),
//    with a "metric" column naming the rows; quantiles by linear interpolation.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/frame/dataframe.h"

namespace ember::frame {

enum class JoinHow : uint8_t { Inner, Left, Right, Outer };
const char* to_string(JoinHow how);

// df.join(right, options): pandas' merge(how, on / left_on + right_on, suffixes).
struct JoinOptions {
  JoinHow how = JoinHow::Inner;
  // (Every member has a default, so designated initializers may name any subset.)
  std::vector<std::string> on = {};        // key columns present in both frames, or
  std::vector<std::string> left_on = {};   // the left frame's keys ...
  std::vector<std::string> right_on = {};  // ... and the right frame's, pairwise
  std::pair<std::string, std::string> suffixes{"_x", "_y"};
};

// df.groupby(keys, sort, dropna): rows grouped by equal keys, then aggregated. Cheap to copy
// (the grouping is shared); the frame's columns are kept alive by it.
class GroupBy {
 public:
  GroupBy(const DataFrame& df, const std::vector<std::string>& keys, bool sort = true, bool dropna = true);

  int64_t ngroups() const;
  const std::vector<std::string>& keys() const;

  // The key columns (one row per group), then one column per requested aggregation, in the
  // order given: agg({{"v", {"sum", "mean"}}, {"w", {"max"}}}) gives k, v.sum, v.mean, w.max.
  // Aggregations: sum, mean, min, max, count, std, first, last, size, list.
  DataFrame agg(const std::vector<std::pair<std::string, std::vector<std::string>>>& spec) const;
  // One aggregation of every non-key column (TorchArrow's grouped.sum() ...).
  DataFrame sum() const;
  DataFrame mean() const;
  DataFrame min() const;
  DataFrame max() const;
  DataFrame count() const;
  DataFrame std() const;
  DataFrame first() const;
  DataFrame last() const;
  DataFrame list() const;
  // The keys and a "size" column: the number of rows of each group.
  DataFrame size() const;

  struct State;

 private:
  DataFrame agg_all(const std::string& aggregation) const;
  std::shared_ptr<const State> state_;
};

// The frames' rows one after another. Every frame must have the same column names (in any
// order; the first frame's order is kept) and dtypes (nullable flags aside; the result is
// nullable where any input is); an error names the first mismatching column and both dtypes.
DataFrame concat(const std::vector<DataFrame>& frames);

}  // namespace ember::frame
