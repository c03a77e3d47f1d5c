// Columns to and from tensors, for feeding frames to training.
//
//  * from_tensor: a 1-d CPU tensor of bool, uint8, int8/16/32/64, float32 or float64 becomes
//    a non-nullable column. A contiguous tensor is shared, not copied: the column's buffer
//    keeps the tensor's storage alive. Columns are immutable, so do not write to the tensor
//    while the column lives (pass t.clone() if you will). bool tensors are copied (Arrow
//    packs booleans into bits); non-contiguous tensors are made contiguous first.
//  * to_tensor: a numeric (or date32/timestamp: int32/int64) column without nulls becomes a
//    1-d tensor sharing the column's buffer (the tensor keeps it alive; do not write to it).
//    Copies: boolean columns (unpacked to kBool), uint16 -> kInt and uint32 -> kLong
//    (ember tensors have no such unsigned types). uint64 and non-numeric columns are
//    errors, and so is a column with nulls: use to_tensor_with_mask for those.
//  * to_tensor_with_mask: values plus a kBool presence mask (true where the element is not
//    null). Without nulls the values are shared as above; with nulls they are copied and
//    the null slots hold 0.
#pragma once
#include "ember/core/tensor.h"
#include "ember/frame/column.h"

namespace ember::frame {

Column from_tensor(const Tensor& t);
Tensor to_tensor(const Column& c);

struct MaskedTensor {
  Tensor values;
  Tensor mask;  // kBool, true where the column's element is present
};
MaskedTensor to_tensor_with_mask(const Column& c);

}  // namespace ember::frame
