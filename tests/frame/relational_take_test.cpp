// The row-selection kernels of ember/frame/relational (kernels.h): take for every column type
// (checked element by element against the source through Column::get_value, and each result
// through ArrayData::validate), mask positions and filter, concatenation (against the
// unsplit column), all-null columns; on small inputs and on inputs large enough to be split
// across threads; and their errors.
#include <random>

#include "ember/frame/frame.h"
#include "ember/frame/relational/kernels.h"
#include "frame/frame_fixtures.h"
#include "test_util.h"

namespace ember::frame {
namespace {




// `got` is src taken at idx: values from the source rows, nulls at negative positions.
void expect_taken(const Column& got, const Column& src, const std::vector<int64_t>& idx, const std::string& ctx) {
  ASSERT_NO_THROW(got.data()->validate({true})) << ctx;
  ASSERT_EQ(got.size(), int64_t(idx.size())) << ctx;
  bool any_null = false;
  for (int64_t k : idx) any_null |= k < 0;
  EXPECT_TRUE(got.dtype().equals(src.dtype(), false)) << ctx;
  EXPECT_EQ(got.dtype().nullable(), src.dtype().nullable() || any_null) << ctx;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (idx[i] < 0) {
      ASSERT_TRUE(got.is_null(int64_t(i))) << ctx << ", row " << i;
    } else {
      ASSERT_EQ(got.get_value(int64_t(i)), src.get_value(idx[i])) << ctx << ", row " << i;
    }
  }
}

TEST(FrameRelationalTake, EveryTypeWithNullPositions) {
  std::mt19937 rng(3);
  for (const auto& [name, col] : test::fixtures()) {
    for (int round = 0; round < 3; ++round) {
      const int64_t n = col.size();
      std::vector<int64_t> idx;
      for (int i = 0; i < 2 * n + 3; ++i) {
        const int64_t r = int64_t(rng() % uint32_t(n + 1)) - 1;  // -1 .. n-1
        idx.push_back(round == 0 && n > 0 ? std::max<int64_t>(r, 0) : r);
      }
      expect_taken(relational::take(col, idx), col, idx, name + " round " + std::to_string(round));
      std::vector<int32_t> idx32(idx.begin(), idx.end());
      expect_taken(relational::take(col, idx32.data(), int64_t(idx32.size())), col, idx, name + " (int32 positions)");
    }
    expect_taken(relational::take(col, std::vector<int64_t>{}), col, {}, name + " (no positions)");
  }
}

TEST(FrameRelationalTake, LargeInputsSplitAcrossThreads) {
  std::mt19937 rng(5);
  const int64_t n = 300000;
  std::vector<std::optional<std::string>> strs;
  std::vector<std::optional<int64_t>> ints;
  std::vector<std::optional<bool>> flags;
  for (int64_t i = 0; i < n; ++i) {
    strs.push_back(i % 17 == 0 ? std::nullopt : std::optional<std::string>(std::string(size_t(i % 9), char('a' + i % 26))));
    ints.push_back(i % 13 == 0 ? std::nullopt : std::optional<int64_t>(i * 7));
    flags.push_back(i % 11 == 0 ? std::nullopt : std::optional<bool>(i % 3 == 0));
  }
  const std::vector<Column> cols{column(strs).slice(5, n - 10), column(ints).slice(3, n - 3), column(flags).slice(1, n - 7),
                                 column(strs).dictionary_encode()};
  for (const Column& c : cols) {
    std::vector<int64_t> idx(static_cast<size_t>(n));
    for (auto& k : idx) k = int64_t(rng() % uint32_t(c.size() + 50)) - 50;  // some nulls
    expect_taken(relational::take(c, idx), c, idx, c.dtype().to_string());
  }
}

// Outputs of 4 MiB and more live in huge-page scratch blocks that are kept for reuse when
// freed (Note [Scratch memory]): results stay right while blocks go round, and when held.
TEST(FrameRelationalTake, LargeOutputsReuseMemory) {
  const int64_t n = 1 << 20;  // 8 MiB of int64 values
  std::vector<int64_t> v(static_cast<size_t>(n)), rev(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = i * 5 + 1, rev[size_t(i)] = n - 1 - i;
  const Column src = column(v);
  std::vector<Column> held;
  for (int round = 0; round < 6; ++round) {
    const Column got = relational::take(src, rev);
    ASSERT_EQ(got.size(), n);
    const int64_t* g = got.values<int64_t>();
    for (int64_t i = 0; i < n; i += 4099) ASSERT_EQ(g[i], (n - 1 - i) * 5 + 1) << "round " << round;
    ASSERT_EQ(g[n - 1], 1);
    if (round % 2 == 0) held.push_back(got);  // some kept alive while others are freed
  }
  for (const Column& h : held) EXPECT_TRUE(h.equals(held[0]));
  relational::release_scratch_memory();
  EXPECT_EQ(*held.back().get<int64_t>(0), (n - 1) * 5 + 1);
}

TEST(FrameRelationalTake, PositionsAsAColumnAndFrames) {
  const Column src = column({"a", "b", std::nullopt, "d"});
  const Column got = relational::take(src, column({3, std::nullopt, 0, 2}));
  EXPECT_EQ(got.to_values(), (std::vector<Value>{"d", Value(), "a", Value()}));
  EXPECT_TRUE(got.dtype() == dtypes::String(true));
  const DataFrame df{{"s", src}, {"i", column({1, 2, 3, 4})}};
  const std::vector<int64_t> rev{3, 2, 1, 0};
  const DataFrame r = relational::take(df, rev.data(), 4);
  EXPECT_EQ(r.row(0), (std::vector<Value>{"d", 4}));
  EXPECT_EQ(r.row(3), (std::vector<Value>{"a", 1}));
  // 0..n-1 shares the columns.
  const std::vector<int64_t> same{0, 1, 2, 3};
  EXPECT_EQ(relational::take(df, same.data(), 4)["i"].data(), df["i"].data());
}

TEST(FrameRelationalTake, Errors) {
  const Column src = column({1, 2, 3});
  EXPECT_ERROR_WITH(relational::take(src, std::vector<int64_t>{0, 3}), "row position 3 (at 1) is out of range for 3 rows");
  EXPECT_ERROR_WITH(relational::take(src, std::vector<int64_t>{0, 7}, "sort"), "sort: row position 7");
  EXPECT_ERROR_WITH(relational::take(src, column({1, -2})), "row position -2 (at 1) is negative");
  EXPECT_ERROR_WITH(relational::take(src, column({1.5})), "positions must be an integer column, got float64");
  try {
    relational::take(src, std::vector<int64_t>{5});
    ADD_FAILURE() << "expected an IndexError";
  } catch (const IndexError&) {
  }
}

TEST(FrameRelationalTake, MaskPositionsAndFilter) {
  std::vector<std::optional<bool>> m;
  std::vector<int64_t> values;
  for (int i = 0; i < 300; ++i) {
    m.push_back(i % 7 == 0 ? std::nullopt : std::optional<bool>(i % 3 != 1));
    values.push_back(i);
  }
  // Bit offsets that are not multiples of 8 exercise the unaligned word reads.
  for (int64_t off : {0, 1, 5, 8, 13}) {
    const Column mask = column(m).slice(off, 300 - off - 2);
    const Column vals = column(values).slice(off, 300 - off - 2);
    std::vector<int64_t> want;
    for (int64_t i = 0; i < mask.size(); ++i)
      if (mask.is_valid(i) && *mask.get<bool>(i)) want.push_back(i);
    const auto got = relational::mask_positions(mask);
    EXPECT_EQ(std::vector<int64_t>(got.begin(), got.end()), want) << "offset " << off;
    const Column f = relational::filter(vals, mask);
    ASSERT_EQ(f.size(), int64_t(want.size()));
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(*f.get<int64_t>(int64_t(i)), off + want[i]);
  }
  EXPECT_ERROR_WITH(relational::mask_positions(column({1, 2}), "where"), "where: the mask must be a boolean column, got int64");
  EXPECT_ERROR_WITH(relational::filter(column({1, 2}), column({true})), "filter: the mask has length 1 but the column has 2");
}

// filter(frame, mask): the straight-from-bits paths (fixed width, strings without nulls) and
// the positions path agree with take at the mask's positions, on chunked (large) inputs.
TEST(FrameRelationalTake, FilterFrameEveryPath) {
  for (int64_t n : {int64_t(0), int64_t(1), int64_t(100), int64_t(300001)}) {
    std::vector<int64_t> ints;
    std::vector<float> floats;
    std::vector<std::string> strs;
    std::vector<std::optional<double>> nullable;
    std::vector<bool> flags;
    std::vector<std::optional<bool>> mask;
    for (int64_t i = 0; i < n; ++i) {
      ints.push_back(i * 3 - 7);
      floats.push_back(float(i) / 4);
      strs.push_back(std::string(size_t(i % 13), char('a' + i % 26)));
      nullable.push_back(i % 5 == 0 ? std::nullopt : std::optional<double>(double(i)));
      flags.push_back(i % 3 == 0);
      // Long true runs (whole words copied at once), false runs and nulls.
      mask.push_back(i % 11 == 0 ? std::nullopt : std::optional<bool>((i / 200) % 3 != 1 && i % 7 != 3));
    }
    const DataFrame df{{"i", column(ints)},
                       {"f", column(floats)},
                       {"d", column(ints, dtypes::Timestamp(TimeUnit::Micro))},
                       {"s", column(strs)},
                       {"ls", column(strs, dtypes::large_string)},
                       {"n", column(nullable)},
                       {"b", column(flags)},
                       {"c", column(strs).dictionary_encode()}};
    for (int64_t off : {int64_t(0), int64_t(3)}) {
      if (off > n) continue;
      const DataFrame part = df.slice(off, n - off);
      const Column m = column(mask).slice(0, n - off);
      const DataFrame got = relational::filter(part, m);
      const auto pos = relational::mask_positions(m);
      const std::vector<int64_t> want(pos.begin(), pos.end());
      ASSERT_EQ(got.num_rows(), int64_t(want.size()));
      for (int64_t c = 0; c < df.num_columns(); ++c) {
        const std::string ctx = "n " + std::to_string(n) + ", column " + df.columns()[size_t(c)];
        ASSERT_NO_THROW(got.column(c).data()->validate({true})) << ctx;
        ASSERT_TRUE(got.column(c).dtype() == part.column(c).dtype()) << ctx;
        for (size_t i = 0; i < want.size(); ++i)
          ASSERT_EQ(got.column(c).get_value(int64_t(i)), part.column(c).get_value(want[i])) << ctx << ", row " << i;
      }
    }
  }
}

TEST(FrameRelationalConcat, EveryTypeFromPieces) {
  for (const auto& [name, col] : test::fixtures()) {
    const int64_t n = col.size();
    const int64_t a = n / 3, b = (2 * n) / 3;
    const Column got = relational::concat({col.slice(0, a), col.slice(a, b - a), col.slice(b, n - b)});
    ASSERT_NO_THROW(got.data()->validate({true})) << name;
    EXPECT_TRUE(got.equals(col)) << name << ":\n" << got.to_string() << "\nexpected\n" << col.to_string();
  }
}

TEST(FrameRelationalConcat, NullableFlagsAndDictionaries) {
  const Column got = relational::concat({column({1, 2}), column({3, std::nullopt})});
  EXPECT_TRUE(got.dtype() == dtypes::Int64(true));
  EXPECT_EQ(got.to_values(), (std::vector<Value>{1, 2, 3, Value()}));
  // Different dictionaries are unified: distinct values in order of first appearance.
  const Column d1 = column({"red", "green", "red"}).dictionary_encode();
  const Column d2 = column({"blue", std::nullopt, "green"}).dictionary_encode();
  const Column d = relational::concat({d1, d2});
  ASSERT_NO_THROW(d.data()->validate());
  EXPECT_EQ(d.to_values(), (std::vector<Value>{"red", "green", "red", "blue", Value(), "green"}));
  EXPECT_EQ(d.dictionary().to_values(), (std::vector<Value>{"red", "green", "blue"}));
  // Nested nullable flags merge too.
  const Column l1 = column(std::vector<std::vector<int64_t>>{{1}, {2, 3}});
  const Column l2 = column_from_values(std::vector<Value>{Value(Value::List{Value(), 4})}, dtypes::List(dtypes::Int64(true)));
  const Column l = relational::concat({l1, l2});
  ASSERT_NO_THROW(l.data()->validate());
  EXPECT_TRUE(l.dtype() == dtypes::List(dtypes::Int64(true)));
  EXPECT_EQ(l.get_value(2), (Value(Value::List{Value(), 4})));
}

TEST(FrameRelationalConcat, Errors) {
  EXPECT_ERROR_WITH(relational::concat({column({1, 2}), column({1.5})}), "concat: column 1 has dtype float64 but column 0 has int64");
  EXPECT_ERROR_WITH(relational::concat({}), "no columns to concatenate");
}

TEST(FrameRelationalNulls, NullableAndNot) {
  const Column a = relational::nulls(dtypes::String(true), 3);
  EXPECT_EQ(a.null_count(), 3);
  const Column b = relational::nulls(dtypes::Struct({{"x", dtypes::int64}}), 2);
  EXPECT_EQ(b.null_count(), 0);
  EXPECT_EQ(b.get_value(1), Value(Value::List{0}));
  const Column c = relational::as_nullable(column({1, 2}));
  EXPECT_TRUE(c.dtype() == dtypes::Int64(true));
}

}  // namespace
}  // namespace ember::frame
