// DataPipes over ember::frame DataFrames: a frame as a map-style pipe of rows, a frame as an
// iterable pipe of zero-copy batches, rows gathered into frames (TorchData's .dataframe()),
// and the Wire / Collated support that lets DataLoader2 workers (threads or processes),
// shuffle and sharding_filter carry DataFrame elements.
//
//   DataFrame df = frame::read_csv("train.csv");
//   auto pipe = frame_batches(df, 64).shuffle().sharding_filter().map([](const DataFrame& b) {
//     return std::pair{frame::to_tensor(b.select(features), kFloat), frame::to_tensor(b["label"])};
//   });
//   DataLoader2 loader(pipe, std::make_shared<MultiProcessingReadingService>(2));
//
// Note [Frame rows and batches]
//  * A row is the core's row: std::vector<frame::Value>, one Value per column in column order
//    (DataFrame::row, DataFrameBuilder::append_row), so rows round-trip through .dataframe()
//    and frame::dataframe(rows, dtype) and need no view that could outlive its frame. Rows
//    copy their values; for throughput iterate batches, not rows.
//  * A batch is DataFrame::slice: it shares the frame's buffers, so copying it (shuffle
//    buffers, worker copies of the graph, prefetch queues) copies a few handles, and its
//    numeric columns become tensors without copying (frame::to_tensor, tensor_ops.h).
//  * Worker threads share the frame (immutable, so without locks). Worker processes get
//    each batch encoded as an Arrow IPC stream (Wire<DataFrame>), rows as tagged Values.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ember/data/datapipes/collate.h"
#include "ember/data/datapipes/map.h"
#include "ember/data/datapipes/wire.h"
#include "ember/frame/dataframe.h"

namespace ember::data::datapipes {

using FrameRow = std::vector<frame::Value>;

// The rows of `df` as a map-style pipe indexed 0..num_rows-1 (safe to get() from several
// threads). `.shuffle()` / `.to_iter_datapipe()` iterate it; make_data_loader(frame_rows(df))
// gives LibTorch's loader over it.
MapDataPipe<FrameRow> frame_rows(frame::DataFrame df);

// `df` as consecutive zero-copy slices of `batch_size` rows (the last one shorter unless
// drop_last). One element per batch, so shuffle / sharding_filter move whole batches.
IterDataPipe<frame::DataFrame> frame_batches(frame::DataFrame df, int64_t batch_size, bool drop_last = false);

// The struct dtype that .dataframe(n, columns) infers from rows (exposed for tests and for
// fixing a schema once): per column, bool -> boolean, integers -> int64 (uint64 when a value
// exceeds INT64_MAX), integers and floats -> float64, strings -> string, lists -> List of
// the inferred item type; a column with a null is nullable, a column of only nulls is a
// nullable string column (read_csv's rule). Mixed kinds are an error naming the column.
frame::DType infer_struct_dtype(const std::vector<FrameRow>& rows, const std::vector<std::string>& columns);

template <>
IterDataPipe<frame::DataFrame> IterDataPipe<FrameRow>::dataframe(int64_t rows_per_frame,
                                                                 const frame::DType& dtype) const;
template <>
IterDataPipe<frame::DataFrame> IterDataPipe<FrameRow>::dataframe(int64_t rows_per_frame,
                                                                 std::vector<std::string> columns) const;

// Worker-process encodings.
template <>
struct Wire<frame::Value> {
  static void encode(const frame::Value& v, std::string& out);
  static frame::Value decode(WireReader& r);
};
// The frame as one Arrow IPC stream (schema and one record batch; every dtype, nullable
// flags kept), length-prefixed.
template <>
struct Wire<frame::DataFrame> {
  static void encode(const frame::DataFrame& df, std::string& out);
  static frame::DataFrame decode(WireReader& r);
};

// A batch of frames collates to their concatenation (frame::concat: same column names and
// types).
template <>
struct Collated<frame::DataFrame> {
  using type = frame::DataFrame;
  static type collate(std::vector<frame::DataFrame>&& batch);
};

}  // namespace ember::data::datapipes
