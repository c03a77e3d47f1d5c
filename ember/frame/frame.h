// ember::frame — a pandas/TorchArrow-style DataFrame on the Apache Arrow columnar format,
// with no Arrow library dependency. This umbrella header includes the whole core.
//
// Note [Frame design]
// Memory is Arrow's columnar format exactly (arrow.apache.org/docs/format/Columnar.html), so
// columns cross the Arrow C Data Interface (c_data.h) to pyarrow, polars or DuckDB without
// copies. The layers, bottom up:
//
//   Buffer      buffer.h      immutable bytes with shared ownership; 64-byte aligned and
//                             zero-padded to 64 bytes when ember allocates them; or foreign
//                             memory kept alive by an owner (a tensor's storage, an imported
//                             ArrowArray whose release runs when the last user goes).
//   DType       dtype.h       the type: id, parameters, TorchArrow's nullable flag.
//   ArrayData   array_data.h  Arrow's array: type, length, offset, null count, buffers,
//                             children, dictionary; validate() checks every invariant that
//                             reading relies on.
//   Column      column.h      a handle over ArrayData: typed access, slices, printing.
//   builders    builder.h     append values, finish() into a Column; factory.h adds
//                             column({1, 2, std::nullopt}) and friends.
//   DataFrame   dataframe.h   uniquely named columns of equal length; DataFrameBuilder.
//   C interface c_data.h      export/import of columns, frames and streams.
//   tensors     to_tensor.h   from_tensor / to_tensor, zero-copy where the layout allows.
//
// Layouts (buffers in Arrow's order; element i is slot offset + i; the validity bitmap,
// buffer 0, is LSB-first, bit set = valid, and is absent when there are no nulls):
//
//   boolean                     [validity, bits (LSB-first, 1 bit per element)]
//   int8..uint64, float32/64    [validity, values]
//   date32                      [validity, int32 days since 1970-01-01]
//   timestamp(unit, tz)         [validity, int64 units since 1970-01-01T00:00:00Z]
//   string, binary              [validity, int32 offsets (length + 1), bytes]
//   large_string, large_binary  [validity, int64 offsets, bytes]
//   list<T>, large_list<T>      [validity, int32 / int64 offsets]; child 0: the values
//   struct<fields>              [validity]; one child per field; element i of the struct
//                               is element offset + i of each child (the struct's offset
//                               applies to its children, as in Arrow)
//   map<K, V>                   [validity, int32 offsets]; child 0: a non-nullable
//                               struct<key: K not null, value: V> of all entries
//   dictionary<I, V>            [validity, I indices]; dictionary: an array of V
//
// Decisions:
//  * Immutable columns. Every column and buffer is read-only once built, so copies, slices,
//    exports and tensors share memory freely and without locks. Builders are the only
//    writers; they produce fresh buffers.
//  * Nullable flags are TorchArrow's: a non-nullable column has no nulls (validate()
//    enforces it) and builders refuse nulls for it. Arrow's field nullability maps to it.
//  * Strings are UTF-8, checked when appended (BinaryBuilder) and on import (by default).
//  * A DataFrame is a struct array without top-level nulls (TorchArrow's choice); it keeps
//    its columns as Columns so that df["a"] is O(1), and to_struct() builds the struct
//    array on demand without copying.
//  * Everything a reader trusts is checked by ArrayData::validate(), which Column's
//    public constructor and every import run: no hand-made or imported array can make a
//    reader go out of bounds. Kernels that build valid layouts skip it
//    (Column::from_data_unchecked).
//  * Errors are ember::Error (EMBER_CHECK) naming the op, the column/field path and the
//    expected type or size.
#pragma once

#include "ember/frame/array_data.h"
#include "ember/frame/buffer.h"
#include "ember/frame/builder.h"
#include "ember/frame/c_data.h"
#include "ember/frame/column.h"
#include "ember/frame/dataframe.h"
#include "ember/frame/dtype.h"
#include "ember/frame/factory.h"
#include "ember/frame/to_tensor.h"
#include "ember/frame/utf8.h"
#include "ember/frame/value.h"
// Compute, relational operations, I/O and tensors for training.
#include "ember/frame/compute/compute.h"
#include "ember/frame/io/csv.h"
#include "ember/frame/io/ipc.h"
#include "ember/frame/relational/relational.h"
#include "ember/frame/tensor_ops.h"
