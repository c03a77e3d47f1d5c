// DataPipes over DataFrames (see Note [Frame rows and batches] in frame_pipes.h).
#include "ember/data/datapipes/frame_pipes.h"

#include <sstream>

#include "ember/frame/io/ipc.h"
#include "ember/frame/relational/relational.h"

namespace ember::data::datapipes {

using frame::DataFrame;
using frame::DType;
using frame::Value;

namespace {

class FrameRowsNode final : public NodeImpl<FrameRowsNode, MapNode<FrameRow, int64_t>> {
 public:
  explicit FrameRowsNode(DataFrame df) : df_(std::move(df)) {}
  const char* name() const override { return "FrameRows"; }
  FrameRow get(const int64_t& i) override {
    detail::check_index(name(), i, size());
    return df_.row(i);
  }
  int64_t size() const override { return df_.num_rows(); }

 private:
  DataFrame df_;  // immutable: workers read it concurrently
};

class FrameBatchesNode final : public IterNodeImpl<FrameBatchesNode, DataFrame> {
 public:
  FrameBatchesNode(DataFrame df, int64_t batch_size, bool drop_last)
      : df_(std::move(df)), batch_size_(batch_size), drop_last_(drop_last) {}
  const char* name() const override { return "FrameBatches"; }
  void reset() override { pos_ = 0; }
  std::optional<DataFrame> next() override {
    const int64_t n = df_.num_rows();
    if (pos_ >= n || (drop_last_ && n - pos_ < batch_size_)) return std::nullopt;
    const int64_t len = std::min(batch_size_, n - pos_);
    DataFrame out = df_.slice(pos_, len);
    pos_ += len;
    return out;
  }

 private:
  DataFrame df_;
  int64_t batch_size_;
  bool drop_last_;
  int64_t pos_ = 0;  // the first row of the next batch
};

// Rows -> frames of up to rows_per_frame rows: of a fixed dtype, or inferred per frame.
class RowsToFrameNode final : public IterNodeImpl<RowsToFrameNode, DataFrame> {
 public:
  RowsToFrameNode(std::shared_ptr<IterNode<FrameRow>> src, int64_t rows_per_frame, std::optional<DType> dtype,
                  std::vector<std::string> columns)
      : src_(std::move(src)), rows_per_frame_(rows_per_frame), dtype_(std::move(dtype)), columns_(std::move(columns)) {}
  const char* name() const override { return "DataFrameMaker"; }
  std::vector<NodeBase*> children() const override { return {src_.get()}; }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }
  void reset() override { rows_seen_ = 0; }
  std::optional<DataFrame> next() override {
    const size_t width = dtype_ ? dtype_->fields().size() : columns_.size();
    std::vector<FrameRow> rows;
    while (int64_t(rows.size()) < rows_per_frame_) {
      std::optional<FrameRow> row = pull(*src_);
      if (!row) break;
      EMBER_CHECK(row->size() == width, "dataframe: row ", rows_seen_, " has ", row->size(), " values, expected ",
                  width, dtype_ ? " (the fields of the dtype)" : " (the column names)");
      ++rows_seen_;
      rows.push_back(std::move(*row));
    }
    if (rows.empty()) return std::nullopt;
    return frame::dataframe(rows, dtype_ ? *dtype_ : infer_struct_dtype(rows, columns_));
  }

 private:
  std::shared_ptr<IterNode<FrameRow>> src_;
  int64_t rows_per_frame_;
  std::optional<DType> dtype_;
  std::vector<std::string> columns_;
  int64_t rows_seen_ = 0;  // rows taken this epoch, for errors
};

// The type of `values` (the non-null ones decide; `where` names them in errors).
DType infer_type(const std::vector<const Value*>& values, const std::string& where) {
  bool has_null = false, has_bool = false, has_int = false, has_uint = false, has_double = false, has_string = false,
       has_list = false;
  for (const Value* v : values) {
    switch (v->kind()) {
      case Value::Kind::Null: has_null = true; break;
      case Value::Kind::Bool: has_bool = true; break;
      case Value::Kind::Int: has_int = true; break;
      case Value::Kind::UInt: has_uint = true; break;
      case Value::Kind::Double: has_double = true; break;
      case Value::Kind::String: has_string = true; break;
      case Value::Kind::List: has_list = true; break;
    }
  }
  const bool numeric = has_int || has_uint || has_double;
  const int kinds = int(has_bool) + int(numeric) + int(has_string) + int(has_list);
  EMBER_CHECK_TYPE(kinds <= 1, "dataframe: ", where, " mixes values of different kinds (",
                   has_bool ? "bool " : "", numeric ? "number " : "", has_string ? "string " : "",
                   has_list ? "list " : "", "); pass a dtype");
  if (has_bool) return frame::dtypes::Boolean(has_null);
  if (has_double) return frame::dtypes::Float64(has_null);
  if (has_uint) return frame::dtypes::UInt64(has_null);
  if (has_int) return frame::dtypes::Int64(has_null);
  if (has_list) {
    std::vector<const Value*> items;
    for (const Value* v : values)
      if (v->is_list())
        for (const Value& x : v->as_list()) items.push_back(&x);
    return frame::dtypes::List(infer_type(items, "the items of " + where), has_null);
  }
  return frame::dtypes::String(has_null || !has_string);
}

}  // namespace

MapDataPipe<FrameRow> frame_rows(DataFrame df) {
  return MapDataPipe<FrameRow>(std::make_shared<FrameRowsNode>(std::move(df)));
}

IterDataPipe<DataFrame> frame_batches(DataFrame df, int64_t batch_size, bool drop_last) {
  EMBER_CHECK(batch_size > 0, "frame_batches: batch_size must be positive, got ", batch_size);
  return IterDataPipe<DataFrame>(std::make_shared<FrameBatchesNode>(std::move(df), batch_size, drop_last));
}

DType infer_struct_dtype(const std::vector<FrameRow>& rows, const std::vector<std::string>& columns) {
  std::vector<frame::Field> fields;
  for (size_t j = 0; j < columns.size(); ++j) {
    std::vector<const Value*> values;
    values.reserve(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      EMBER_CHECK(rows[i].size() == columns.size(), "dataframe: row ", i, " has ", rows[i].size(),
                  " values, expected ", columns.size(), " (the column names)");
      values.push_back(&rows[i][j]);
    }
    fields.push_back({columns[j], infer_type(values, "column '" + columns[j] + "'")});
  }
  return frame::dtypes::Struct(std::move(fields));
}

template <>
IterDataPipe<DataFrame> IterDataPipe<FrameRow>::dataframe(int64_t rows_per_frame, const DType& dtype) const {
  EMBER_CHECK(rows_per_frame > 0, "dataframe: rows_per_frame must be positive, got ", rows_per_frame);
  EMBER_CHECK_TYPE(dtype.id() == frame::TypeId::Struct, "dataframe: expected a struct dtype (one field per column), got ",
                   dtype.to_string());
  return IterDataPipe<DataFrame>(std::make_shared<RowsToFrameNode>(node_, rows_per_frame, dtype, std::vector<std::string>{}));
}

template <>
IterDataPipe<DataFrame> IterDataPipe<FrameRow>::dataframe(int64_t rows_per_frame, std::vector<std::string> columns) const {
  EMBER_CHECK(rows_per_frame > 0, "dataframe: rows_per_frame must be positive, got ", rows_per_frame);
  EMBER_CHECK(!columns.empty(), "dataframe: give the column names (or a dtype)");
  return IterDataPipe<DataFrame>(std::make_shared<RowsToFrameNode>(node_, rows_per_frame, std::nullopt, std::move(columns)));
}

// ---- Wire ------------------------------------------------------------------------------

namespace {
constexpr int kMaxValueDepth = 64;  // nesting of decoded lists (frames nest far less)

void encode_value(const Value& v, std::string& out) {
  out.push_back(char(v.kind()));
  switch (v.kind()) {
    case Value::Kind::Null: break;
    case Value::Kind::Bool: out.push_back(v.as_bool() ? 1 : 0); break;
    case Value::Kind::Int: Wire<int64_t>::encode(v.as_int(), out); break;
    case Value::Kind::UInt: Wire<uint64_t>::encode(v.as_uint(), out); break;
    case Value::Kind::Double: Wire<double>::encode(v.as_double(), out); break;
    case Value::Kind::String: Wire<std::string>::encode(v.as_string(), out); break;
    case Value::Kind::List: {
      Wire<uint64_t>::encode(v.as_list().size(), out);
      for (const Value& x : v.as_list()) encode_value(x, out);
      break;
    }
  }
}

Value decode_value(WireReader& r, int depth) {
  EMBER_CHECK(depth < kMaxValueDepth, "worker process: corrupt element (Values nested deeper than ", kMaxValueDepth, ")");
  const auto kind = Value::Kind(r.pod<char>());
  switch (kind) {
    case Value::Kind::Null: return Value();
    case Value::Kind::Bool: return Value(r.pod<char>() != 0);
    case Value::Kind::Int: return Value(r.pod<int64_t>());
    case Value::Kind::UInt: return Value(r.pod<uint64_t>());
    case Value::Kind::Double: return Value(r.pod<double>());
    case Value::Kind::String: return Value(Wire<std::string>::decode(r));
    case Value::Kind::List: {
      const uint64_t n = r.count();
      Value::List items;
      items.reserve(n);
      for (uint64_t i = 0; i < n; ++i) items.push_back(decode_value(r, depth + 1));
      return Value(std::move(items));
    }
  }
  EMBER_ERROR("worker process: corrupt element (Value kind ", int(kind), ")");
}
}  // namespace

void Wire<Value>::encode(const Value& v, std::string& out) { encode_value(v, out); }
Value Wire<Value>::decode(WireReader& r) { return decode_value(r, 0); }

void Wire<DataFrame>::encode(const DataFrame& df, std::string& out) {
  std::ostringstream s;
  // One record batch whatever the length; no compression (the bytes cross a local pipe).
  frame::write_ipc_stream(df, s, frame::IpcWriteOptions().with_max_rows_per_batch(0));
  Wire<std::string>::encode(s.str(), out);
}

DataFrame Wire<DataFrame>::decode(WireReader& r) {
  std::string bytes = Wire<std::string>::decode(r);
  frame::IpcStreamReader reader(frame::Buffer::copy_of(bytes.data(), int64_t(bytes.size())), "worker process element");
  return reader.read_table();
}

DataFrame Collated<DataFrame>::collate(std::vector<DataFrame>&& batch) {
  EMBER_CHECK(!batch.empty(), "collate: an empty batch of DataFrames");
  return frame::concat(batch);
}

}  // namespace ember::data::datapipes
