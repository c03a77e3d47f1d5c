// Frames and list columns to tensors (see Note [Frame tensor conversions] in tensor_ops.h).
#include "ember/frame/tensor_ops.h"

#include <algorithm>
#include <cstring>

#include "ember/core/error.h"
#include "ember/ops/functions.h"

namespace ember::frame {

bool has_tensor_form(const DType& t) {
  switch (t.id()) {
    case TypeId::Bool:
    case TypeId::Int8:
    case TypeId::Int16:
    case TypeId::Int32:
    case TypeId::Int64:
    case TypeId::UInt8:
    case TypeId::UInt16:
    case TypeId::UInt32:
    case TypeId::Float32:
    case TypeId::Float64:
    case TypeId::Date32:
    case TypeId::Timestamp: return true;
    default: return false;
  }
}

namespace {

// Why column `name` has no tensor form, for the frame-level conversions.
void check_convertible(const char* op, const std::string& name, const Column& c, bool allow_nulls) {
  const DType& t = c.dtype();
  EMBER_CHECK_TYPE(!t.is_string() && !(t.id() == TypeId::Dictionary && t.value_type().is_string()), op,
                   ": column '", name, "' is a ", t.to_string(),
                   " column; strings stay strings (read them with to_strings(df[\"", name,
                   "\"])) and tensors come from the numeric columns (select() them)");
  EMBER_CHECK_TYPE(!t.is_list_like(), op, ": column '", name, "' is a ", t.to_string(),
                   " column; pad it with pad_sequence(df[\"", name, "\"]) (TorchArrow's PadSequence)");
  EMBER_CHECK_TYPE(has_tensor_form(t), op, ": column '", name, "' of type ", t.to_string(),
                   " has no tensor form (numeric, boolean, date32 and timestamp columns do)");
  EMBER_CHECK(allow_nulls || c.null_count() == 0, op, ": column '", name, "' (", t.to_string(), ") has ",
              c.null_count(), " nulls; use the _with_mask form, or fill_null / drop_null first");
}

}  // namespace

std::map<std::string, Tensor> to_tensor_dict(const DataFrame& df) {
  std::map<std::string, Tensor> out;
  for (int64_t j = 0; j < df.num_columns(); ++j) {
    check_convertible("to_tensor_dict", df.columns()[j], df.column(j), false);
    out.emplace(df.columns()[j], to_tensor(df.column(j)));
  }
  return out;
}

std::map<std::string, MaskedTensor> to_tensor_dict_with_mask(const DataFrame& df) {
  std::map<std::string, MaskedTensor> out;
  for (int64_t j = 0; j < df.num_columns(); ++j) {
    check_convertible("to_tensor_dict_with_mask", df.columns()[j], df.column(j), true);
    out.emplace(df.columns()[j], to_tensor_with_mask(df.column(j)));
  }
  return out;
}

std::vector<Tensor> to_tensors(const DataFrame& df) {
  std::vector<Tensor> out;
  for (int64_t j = 0; j < df.num_columns(); ++j) {
    check_convertible("to_tensors", df.columns()[j], df.column(j), false);
    out.push_back(to_tensor(df.column(j)));
  }
  return out;
}

std::vector<MaskedTensor> to_tensors_with_mask(const DataFrame& df) {
  std::vector<MaskedTensor> out;
  for (int64_t j = 0; j < df.num_columns(); ++j) {
    check_convertible("to_tensors_with_mask", df.columns()[j], df.column(j), true);
    out.push_back(to_tensor_with_mask(df.column(j)));
  }
  return out;
}

Tensor to_tensor(const DataFrame& df, ScalarType dtype) {
  for (int64_t j = 0; j < df.num_columns(); ++j) check_convertible("to_tensor(DataFrame)", df.columns()[j], df.column(j), false);
  Tensor out = ember::empty({df.num_rows(), df.num_columns()}, TensorOptions().dtype(dtype));
  // Column by column into the strided column of the result (copy_ converts the dtype).
  for (int64_t j = 0; j < df.num_columns(); ++j) out.select(1, j).copy_(to_tensor(df.column(j)));
  return out;
}

std::vector<std::string> to_strings(const Column& c) {
  const DType& t = c.dtype();
  EMBER_CHECK_TYPE(t.is_string() || (t.id() == TypeId::Dictionary && t.value_type().is_string()),
                   "to_strings: expected a string, large_string or dictionary-of-string column, got ", t.to_string());
  std::vector<std::string> out;
  out.reserve(size_t(c.size()));
  for (int64_t i = 0; i < c.size(); ++i) {
    std::optional<std::string_view> s = c.get_string(i);
    EMBER_CHECK(s.has_value(), "to_strings: row ", i, " is null (fill_null(\"\") or drop_null() first)");
    out.emplace_back(*s);
  }
  return out;
}

namespace {

// Rows [0, n) of a list-like column: their ranges in the child, checked for nulls.
struct ListRows {
  std::vector<int64_t> begin, length;
  int64_t max_len = 0;
  int64_t child_begin = 0, child_end = 0;  // the span of the child that the rows use
  bool adjacent = true;                    // row i + 1 starts where row i ends
};

ListRows list_rows(const Column& c, const char* what) {
  ListRows r;
  const int64_t n = c.size();
  r.begin.resize(size_t(n));
  r.length.resize(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    EMBER_CHECK(c.is_valid(i), "pad_sequence: ", what, " ", i, " is null (fill_null or drop_null first)");
    auto [b, e] = c.list_range(i);
    r.begin[size_t(i)] = b;
    r.length[size_t(i)] = e - b;
    r.max_len = std::max(r.max_len, e - b);
    if (i == 0) {
      r.child_begin = b;
      r.child_end = e;
    } else {
      if (b != r.child_end) r.adjacent = false;
      r.child_begin = std::min(r.child_begin, b);
      r.child_end = std::max(r.child_end, e);
    }
  }
  return r;
}

// The child's items [b, e) as a contiguous 1-d tensor (shared when to_tensor shares).
Tensor item_tensor(const Column& child, int64_t b, int64_t e) {
  const DType& t = child.dtype();
  EMBER_CHECK_TYPE(has_tensor_form(t), "pad_sequence: items of type ", t.to_string(),
                   " have no tensor form (numeric, boolean, date32 and timestamp items do)");
  Column items = child.slice(b, e - b);
  if (items.null_count() != 0) {
    for (int64_t k = 0; k < items.size(); ++k)
      EMBER_CHECK(items.is_valid(k), "pad_sequence: item ", b + k, " of the list values is null (fill_null first)");
  }
  return to_tensor(items).contiguous();
}

Tensor lengths_tensor(const std::vector<int64_t>& len) {
  Tensor t = ember::empty({int64_t(len.size())}, TensorOptions().dtype(kLong));
  if (!len.empty()) std::memcpy(t.data_ptr(), len.data(), len.size() * sizeof(int64_t));
  return t;
}

}  // namespace

PaddedSequence pad_sequence(const Column& c, bool batch_first, double padding_value) {
  const DType& t = c.dtype();
  EMBER_CHECK_TYPE(t.id() == TypeId::List || t.id() == TypeId::LargeList,
                   "pad_sequence: expected a list or large_list column, got ", t.to_string());
  const int64_t n = c.size();
  const ListRows rows = list_rows(c, "row");
  const Column child = c.list_values();
  PaddedSequence out;
  out.lengths = lengths_tensor(rows.length);

  const DType& item = t.value_type();
  if (item.id() == TypeId::List || item.id() == TypeId::LargeList) {
    // list<list<T>>: the inner lists used by the rows, then their items.
    const Column inner = child.slice(rows.child_begin, rows.child_end - rows.child_begin);
    const ListRows in = list_rows(inner, "inner list (of the list values)");
    const int64_t max_outer = rows.max_len, max_inner = in.max_len;
    const Tensor values = item_tensor(inner.list_values(), in.child_begin, in.child_end);
    Tensor padded = ember::full({n, max_outer, max_inner}, padding_value, TensorOptions().dtype(values.scalar_type()));
    Tensor inner_len = ember::zeros({n, max_outer}, TensorOptions().dtype(kLong));
    const size_t es = values.itemsize();
    const auto* src = static_cast<const uint8_t*>(values.data_ptr());
    auto* dst = static_cast<uint8_t*>(padded.data_ptr());
    int64_t* il = inner_len.data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = 0; k < rows.length[size_t(i)]; ++k) {
        const size_t j = size_t(rows.begin[size_t(i)] - rows.child_begin + k);  // index into `inner`
        const int64_t len = in.length[j];
        il[i * max_outer + k] = len;
        if (len > 0)
          std::memcpy(dst + size_t((i * max_outer + k) * max_inner) * es,
                      src + size_t(in.begin[j] - in.child_begin) * es, size_t(len) * es);
      }
    }
    out.padded = batch_first ? padded : padded.transpose(0, 1).contiguous();
    out.inner_lengths = batch_first ? inner_len : inner_len.transpose(0, 1).contiguous();
    return out;
  }

  const Tensor values = item_tensor(child, rows.child_begin, rows.child_end);
  const int64_t max_len = rows.max_len;
  const bool uniform = n > 0 && std::all_of(rows.length.begin(), rows.length.end(), [&](int64_t l) { return l == max_len; });
  if (batch_first && uniform && rows.adjacent) {
    // Every row is full and they lie end to end: the child's items are the padded tensor.
    out.padded = values.view({n, max_len});
    return out;
  }
  Tensor padded = ember::full({n, max_len}, padding_value, TensorOptions().dtype(values.scalar_type()));
  const size_t es = values.itemsize();
  const auto* src = static_cast<const uint8_t*>(values.data_ptr());
  auto* dst = static_cast<uint8_t*>(padded.data_ptr());
  for (int64_t i = 0; i < n; ++i) {
    const int64_t len = rows.length[size_t(i)];
    if (len > 0)
      std::memcpy(dst + size_t(i * max_len) * es, src + size_t(rows.begin[size_t(i)] - rows.child_begin) * es,
                  size_t(len) * es);
  }
  out.padded = batch_first ? padded : padded.transpose(0, 1).contiguous();
  return out;
}

}  // namespace ember::frame
