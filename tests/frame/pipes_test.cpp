// DataPipes over DataFrames (ember/data/datapipes/frame_pipes.h): rows as a map-style pipe,
// zero-copy batches, rows gathered into frames, and loaders (DataLoader2 with 0 and 2
// worker threads or processes, make_data_loader, checkpoints) covering every row once.
#include <algorithm>
#include <set>

#include "ember/data/data.h"
#include "ember/data/datapipes.h"
#include "ember/data/datapipes/frame_pipes.h"
#include "ember/frame/frame.h"
#include "ember/frame/tensor_ops.h"
#include "test_util.h"

namespace ember::data::datapipes {
namespace {

using frame::Column;
using frame::DataFrame;
using frame::Value;
namespace dt = frame::dtypes;

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// id 0..n-1, x = id / 2 (float64), name "r<id>" (null for multiples of 7), tags a list.
DataFrame sample_frame(int64_t n) {
  std::vector<int64_t> id;
  std::vector<double> x;
  std::vector<std::optional<std::string>> name;
  std::vector<std::vector<int64_t>> tags;
  for (int64_t i = 0; i < n; ++i) {
    id.push_back(i);
    x.push_back(double(i) / 2);
    name.push_back(i % 7 == 0 ? std::nullopt : std::optional<std::string>("r" + std::to_string(i)));
    tags.push_back(std::vector<int64_t>(size_t(i % 3), i));
  }
  return DataFrame{{"id", frame::column(id)}, {"x", frame::column(x)}, {"name", frame::column(name)},
                   {"tags", frame::column(tags)}};
}

std::vector<int64_t> ids_of(const DataFrame& b) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < b.num_rows(); ++i) out.push_back(*b["id"].get<int64_t>(i));
  return out;
}

// Every id of 0..n-1 exactly once.
void expect_each_once(std::vector<int64_t> ids, int64_t n) {
  std::sort(ids.begin(), ids.end());
  std::vector<int64_t> want(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) want[size_t(i)] = i;
  EXPECT_EQ(ids, want);
}

TEST(FramePipes, RowsAreAMapStylePipe) {
  DataFrame df = sample_frame(10);
  MapDataPipe<FrameRow> rows = frame_rows(df);
  EXPECT_EQ(rows.size(), 10);
  EXPECT_EQ(rows[3], (FrameRow{3, 1.5, "r3", Value::List{}}));
  EXPECT_EQ(rows[7], (FrameRow{7, 3.5, Value(), Value::List{7}}));
  EXPECT_EQ(rows[8], df.row(8));
  EXPECT_ERROR_WITH(rows[10], "FrameRows");
  EXPECT_ERROR_WITH(rows[-1], "FrameRows");
  // Iterated in order, or shuffled (each row once).
  std::vector<int64_t> in_order, shuffled;
  for (auto& r : rows.to_iter_datapipe()) in_order.push_back(r[0].as_int());
  for (auto& r : rows.shuffle()) shuffled.push_back(r[0].as_int());
  EXPECT_EQ(in_order, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  expect_each_once(shuffled, 10);
  // The map pipe composes: .map() to anything.
  auto xs = rows.map([](FrameRow r) { return r[1].as_double(); });
  EXPECT_EQ(xs[5], 2.5);
  // make_data_loader over it: LibTorch's loader with a sampler, batches of rows.
  auto seq = make_data_loader<samplers::SequentialSampler>(rows, DataLoaderOptions().batch_size(4));
  std::vector<size_t> sizes;
  std::vector<int64_t> seen;
  for (auto& batch : *seq) {
    sizes.push_back(batch.size());
    for (auto& r : batch) seen.push_back(r[0].as_int());
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{4, 4, 2}));
  EXPECT_EQ(seen, in_order);
  auto random = make_data_loader(rows, DataLoaderOptions().batch_size(3).workers(2));
  std::vector<int64_t> rseen;
  for (auto& batch : *random)
    for (auto& r : batch) rseen.push_back(r[0].as_int());
  expect_each_once(rseen, 10);
}

TEST(FramePipes, BatchesAreZeroCopySlices) {
  DataFrame df = sample_frame(10);
  std::vector<DataFrame> batches;
  for (auto& b : frame_batches(df, 4)) batches.push_back(b);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(ids_of(batches[0]), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(ids_of(batches[2]), (std::vector<int64_t>{8, 9}));
  EXPECT_TRUE(batches[1].equals(df.slice(4, 4)));
  EXPECT_EQ(batches[1].columns(), df.columns());
  // Shared memory: the batch's values are the frame's, and so are its tensors.
  EXPECT_EQ(batches[1]["x"].values<double>(), df["x"].values<double>() + 4);
  EXPECT_EQ(frame::to_tensor(batches[1]["id"]).data_ptr(), static_cast<const void*>(df["id"].values<int64_t>() + 4));
  EXPECT_EQ(batches[2]["tags"].list_values().data().get(), df["tags"].list_values().data().get());
  // drop_last, and an epoch restarts from the top.
  auto dropped = frame_batches(df, 4, true);
  std::vector<int64_t> n;
  for (auto& b : dropped) n.push_back(b.num_rows());
  EXPECT_EQ(n, (std::vector<int64_t>{4, 4}));
  n.clear();
  for (auto& b : dropped) n.push_back(b.num_rows());
  EXPECT_EQ(n, (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(std::distance(frame_batches(DataFrame(), 3).begin(), frame_batches(DataFrame(), 3).end()), 0);
  EXPECT_ERROR_WITH(frame_batches(df, 0), "frame_batches: batch_size must be positive, got 0");

  // .map converts batches to tensors; .batch().collate() concatenates frames back.
  auto tensors = frame_batches(df, 3).map([](const DataFrame& b) {
    return std::pair{frame::to_tensor(b.select({"id", "x"}), kFloat), frame::pad_sequence(b["tags"], true, -1).padded};
  });
  std::vector<int64_t> rows;
  for (auto& [features, tags] : tensors) {
    rows.push_back(features.size(0));
    EXPECT_EQ(features.size(1), 2);
    EXPECT_EQ(tags.size(0), features.size(0));
  }
  EXPECT_EQ(rows, (std::vector<int64_t>{3, 3, 3, 1}));
  std::vector<DataFrame> merged;
  for (auto& f : frame_batches(df, 3).batch(2).collate()) merged.push_back(f);
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_TRUE(merged[0].equals(df.slice(0, 6)));
  EXPECT_TRUE(merged[1].equals(df.slice(6, 4)));
}

TEST(FramePipes, RowsGatheredIntoFrames) {
  std::vector<FrameRow> rows{{1, "a", 0.5}, {2, Value(), 1.5}, {3, "c", 2.5}, {4, "d", 3.5}, {5, "e", 4.5}};
  auto type = dt::Struct({{"n", dt::int64}, {"s", dt::String(true)}, {"f", dt::float64}});
  std::vector<DataFrame> frames;
  for (auto& f : IterableWrapper(rows).dataframe(2, type)) frames.push_back(f);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_TRUE(frames[0].equals(frame::dataframe({rows[0], rows[1]}, type)));
  EXPECT_TRUE(frames[1].equals(frame::dataframe({rows[2], rows[3]}, type)));
  EXPECT_TRUE(frames[2].equals(frame::dataframe({rows[4]}, type)));
  EXPECT_EQ(frames[0].dtype(), type);

  // Column names: types inferred per frame from the values.
  std::vector<FrameRow> mixed{{1, 0.5, true, "x", Value::List{1, 2}, Value()},
                              {2, 3, false, Value(), Value::List{}, Value()}};
  frames.clear();
  for (auto& f : IterableWrapper(mixed).dataframe(10, std::vector<std::string>{"i", "f", "b", "s", "l", "z"}))
    frames.push_back(f);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].dtype(), dt::Struct({{"i", dt::int64}, {"f", dt::float64}, {"b", dt::boolean},
                                           {"s", dt::String(true)}, {"l", dt::List(dt::int64)},
                                           {"z", dt::String(true)}}));
  EXPECT_EQ(frames[0].row(0), (FrameRow{1, 0.5, true, "x", Value::List{1, 2}, Value()}));
  EXPECT_EQ(*frames[0]["f"].get<double>(1), 3.0);
  EXPECT_EQ(infer_struct_dtype({{uint64_t(1) << 63}}, {"u"}), dt::Struct({{"u", dt::uint64}}));

  // The pipe round trip: frame -> rows -> frames.
  DataFrame df = sample_frame(9);
  DataFrame back;
  for (auto& f : frame_rows(df).to_iter_datapipe().dataframe(4, df.dtype()))
    back = back.num_columns() ? frame::concat({back, f}) : f;
  EXPECT_TRUE(back.equals(df));

  // Errors name the row, the column and what was expected.
  std::string err = error_of([&] {
    for (auto& f : IterableWrapper(std::vector<FrameRow>{{1, "a", 0.5}, {2, "b"}}).dataframe(5, type)) (void)f;
  });
  EXPECT_NE(err.find("dataframe: row 1 has 2 values, expected 3 (the fields of the dtype)"), std::string::npos) << err;
  err = error_of([&] {
    for (auto& f : IterableWrapper(std::vector<FrameRow>{{1}, {"b"}}).dataframe(5, std::vector<std::string>{"v"})) (void)f;
  });
  EXPECT_NE(err.find("dataframe: column 'v' mixes values of different kinds (number string ); pass a dtype"),
            std::string::npos) << err;
  err = error_of([&] {
    for (auto& f : IterableWrapper(std::vector<FrameRow>{{"a", 1, 0.5}}).dataframe(5, type)) (void)f;
  });
  EXPECT_NE(err.find("'a'"), std::string::npos) << err;  // the builder names the bad value
  EXPECT_ERROR_WITH(IterableWrapper(rows).dataframe(0, type), "rows_per_frame must be positive");
  EXPECT_ERROR_WITH(IterableWrapper(rows).dataframe(2, dt::int64), "expected a struct dtype");
}

// Ids that a DataLoader2 over shuffled, sharded batches of `df` yields in one epoch.
std::vector<int64_t> loader_ids(const DataFrame& df, std::shared_ptr<ReadingServiceInterface> rs) {
  auto pipe = frame_batches(df, 7).shuffle().sharding_filter();
  DataLoader2 loader(pipe, std::move(rs));
  loader.seed(3);
  std::vector<int64_t> ids;
  for (auto& b : loader) {
    EXPECT_LE(b.num_rows(), 7);
    auto i = ids_of(b);
    ids.insert(ids.end(), i.begin(), i.end());
  }
  return ids;
}

TEST(FramePipes, LoadersCoverEveryRowOnce) {
  DataFrame df = sample_frame(100);
  std::vector<int64_t> in_process = loader_ids(df, nullptr);
  expect_each_once(in_process, 100);
  EXPECT_NE(in_process, ids_of(df));  // shuffled (whole batches)
  std::vector<int64_t> threads = loader_ids(df, std::make_shared<MultiProcessingReadingService>(2));
  expect_each_once(threads, 100);
  // Worker processes send the frames back as Arrow IPC (strings, nulls, lists intact).
  auto procs = std::make_shared<MultiProcessingReadingService>(2, 2, nullptr, true, std::nullopt, true);
  std::vector<int64_t> processes = loader_ids(df, procs);
  EXPECT_EQ(processes, threads);  // same seeds, same order

  // Batches converted to tensors in the workers.
  auto tensors = frame_batches(df, 16).sharding_filter().map([](const DataFrame& b) {
    return frame::to_tensor_dict(b.select({"id", "x"}));
  });
  DataLoader2 tl(tensors, std::make_shared<MultiProcessingReadingService>(2));
  std::vector<int64_t> tids;
  for (auto& d : tl) {
    EXPECT_TRUE(d.at("x").equal(d.at("id").to(kDouble) / 2));
    Tensor ids = d.at("id");
    tids.insert(tids.end(), ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + ids.numel());
  }
  expect_each_once(tids, 100);

  // make_data_loader takes the frame pipe directly: batches of frames.
  auto ml = make_data_loader(frame_batches(df, 10).sharding_filter(), DataLoaderOptions().batch_size(2).workers(2));
  std::vector<int64_t> mids;
  for (auto& batch : *ml)
    for (auto& f : batch) {
      auto i = ids_of(f);
      mids.insert(mids.end(), i.begin(), i.end());
    }
  expect_each_once(mids, 100);
  // Rows through worker processes (Wire<Value>).
  DataLoader2 rl(frame_rows(df).to_iter_datapipe().sharding_filter(), procs);
  std::vector<int64_t> rids;
  for (auto& r : rl) {
    EXPECT_EQ(r, df.row(r[0].as_int()));
    rids.push_back(r[0].as_int());
  }
  expect_each_once(rids, 100);
}

TEST(FramePipes, CheckpointResumesThroughDataLoader2) {
  DataFrame df = sample_frame(200);
  auto pipe = frame_batches(df, 8).shuffle().sharding_filter().map([](const DataFrame& b) { return ids_of(b); });
  for (int64_t workers : {0, 2}) {
    SCOPED_TRACE(workers);
    DataLoader2 a(pipe, std::make_shared<MultiProcessingReadingService>(workers));
    a.seed(11);
    std::vector<std::vector<int64_t>> full;
    json::Value state;
    for (auto& b : a) {
      full.push_back(b);
      if (full.size() == 9) state = json::parse(json::dump(a.state_dict()));
    }
    ASSERT_EQ(full.size(), 25u);
    DataLoader2 b(pipe, std::make_shared<MultiProcessingReadingService>(workers));
    b.load_state_dict(state);
    std::vector<std::vector<int64_t>> rest(b.begin(), b.end());
    EXPECT_EQ(rest, std::vector<std::vector<int64_t>>(full.begin() + 9, full.end()));
    std::vector<int64_t> all;
    for (auto& v : full) all.insert(all.end(), v.begin(), v.end());
    expect_each_once(all, 200);
  }
}

TEST(FramePipes, WireRoundTripsFramesAndRejectsCorruptBytes) {
  DataFrame df = sample_frame(20).slice(3, 11);
  df.set_column("d", frame::column({"p", "q", "p", "r", "p", "q", "p", "r", "p", "q", "p"}).dictionary_encode());
  std::string bytes;
  Wire<DataFrame>::encode(df, bytes);
  WireReader r(bytes.data(), bytes.data() + bytes.size());
  DataFrame back = Wire<DataFrame>::decode(r);
  EXPECT_TRUE(r.done());
  EXPECT_TRUE(back.equals(df));
  EXPECT_EQ(back.dtype(), df.dtype());
  // Truncated or damaged bytes are errors, never out-of-bounds reads.
  for (size_t cut : {size_t(0), size_t(5), bytes.size() / 2, bytes.size() - 1}) {
    WireReader t(bytes.data(), bytes.data() + cut);
    EXPECT_THROW(Wire<DataFrame>::decode(t), Error) << cut;
  }
  std::string bad = bytes;
  for (size_t i = 12; i < bad.size(); i += 7) bad[i] = char(bad[i] ^ 0x5a);
  WireReader d(bad.data(), bad.data() + bad.size());
  EXPECT_THROW(Wire<DataFrame>::decode(d), Error);

  FrameRow row{Value(), true, -3, uint64_t(1) << 63, 2.5, "s", Value::List{1, Value::List{"x", Value()}}};
  std::string rb;
  Wire<FrameRow>::encode(row, rb);
  WireReader rr(rb.data(), rb.data() + rb.size());
  EXPECT_EQ(Wire<FrameRow>::decode(rr), row);
  std::string deep;
  for (int i = 0; i < 100; ++i) {
    deep.push_back(char(Value::Kind::List));
    Wire<uint64_t>::encode(1, deep);
  }
  WireReader dr(deep.data(), deep.data() + deep.size());
  EXPECT_ERROR_WITH(Wire<Value>::decode(dr), "nested deeper than 64");
  std::string kind(1, char(42));
  WireReader kr(kind.data(), kind.data() + kind.size());
  EXPECT_ERROR_WITH(Wire<Value>::decode(kr), "corrupt element (Value kind 42)");
}

}  // namespace
}  // namespace ember::data::datapipes
