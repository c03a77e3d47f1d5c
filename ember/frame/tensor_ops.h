// Whole frames and list columns to tensors, for training: TorchArrow's df.to_tensor() (a
// dict of column tensors), tensors in column order, a stacked feature matrix, and
// tensor.PadSequence for list columns. Single columns are in to_tensor.h.
//
// Note [Frame tensor conversions]
//  * Numeric, boolean, date32 and timestamp columns convert as to_tensor(Column) does:
//    zero-copy when the column's buffer can be shared (see to_tensor.h), so a frame_batches
//    slice (ember/data/datapipes/frame_pipes.h) becomes tensors without copying its values.
//  * Nulls: the plain forms raise an error naming the column and its null count; the
//    *_with_mask forms give {values, mask} (MaskedTensor) for every column, the mask true
//    where a value is present.
//  * Strings stay strings: a tensor has no string dtype, so string columns are an error in
//    the tensor forms (naming the column); read them with to_strings(df["name"]) (or keep
//    the Column) and select() the numeric columns for the tensors.
//  * List columns are an error in the tensor forms too (their rows differ in length); pad
//    them with pad_sequence / PadSequence, which gives the padded tensor and the lengths.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/frame/dataframe.h"
#include "ember/frame/to_tensor.h"

namespace ember::frame {

// Whether to_tensor(Column) accepts a column of this type (nulls aside).
bool has_tensor_form(const DType& t);

// Column name -> tensor for every column (TorchArrow's dict). No nulls, no string or list
// columns (errors name the column).
std::map<std::string, Tensor> to_tensor_dict(const DataFrame& df);
// Column name -> {values, presence mask}; null slots of the values hold 0.
std::map<std::string, MaskedTensor> to_tensor_dict_with_mask(const DataFrame& df);
// One tensor per column, in column order (TorchArrow's tuple form).
std::vector<Tensor> to_tensors(const DataFrame& df);
std::vector<MaskedTensor> to_tensors_with_mask(const DataFrame& df);
// The frame as one [num_rows, num_columns] tensor of `dtype` (pandas' to_numpy(): column j
// is df.column(j) converted). Always a copy; nulls are an error naming the column.
Tensor to_tensor(const DataFrame& df, ScalarType dtype);

// The strings of a string or large_string column (a dictionary of strings is decoded);
// nulls are an error naming the row (fill_null("") first).
std::vector<std::string> to_strings(const Column& c);

// pad_sequence's result. For list<T>: padded is [n, max_len] (batch_first) or [max_len, n],
// lengths is kLong [n]. For list<list<T>>: padded is [n, max_outer, max_inner] (or
// [max_outer, n, max_inner]), lengths the outer lengths [n] and inner_lengths the length of
// each inner list, kLong [n, max_outer] (0 in padding).
struct PaddedSequence {
  Tensor padded;
  Tensor lengths;
  Tensor inner_lengths;  // list<list<T>> only; undefined otherwise
};

// Pads the rows of a list or large_list column of a numeric (or boolean, date32,
// timestamp) type, or of a list of such lists, to the longest row, filling with
// `padding_value` (as torch.nn.utils.rnn.pad_sequence on the rows). The tensor's dtype is
// to_tensor's for the item type. Zero-copy when batch_first, every row has the same length,
// the rows are adjacent in the child (always, unless the column was built unusually) and
// the child's values can be shared: padded is then a view of the child's buffer. A null row,
// a null item or a null inner list is an error naming the row (fill or drop nulls first).
PaddedSequence pad_sequence(const Column& c, bool batch_first = false, double padding_value = 0);

// TorchArrow's tensor.PadSequence as a conversion object: PadSequence{true, -1}(df["ids"]).
struct PadSequence {
  bool batch_first = false;
  double padding_value = 0;
  PaddedSequence operator()(const Column& c) const { return pad_sequence(c, batch_first, padding_value); }
};

}  // namespace ember::frame
