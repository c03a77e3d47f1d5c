// Internal interface between the indexing/sorting ops (ops/indexing.cpp, index_ops.cpp,
// sort_ops.cpp, shape_ops.cpp) and their per-ISA CPU kernels (ops/cpu/index_kernels.cpp,
// ops/cpu/sort_kernels.cpp): kernel signatures, argument structs and shared helpers.
#pragma once
#include <functional>
#include <optional>
#include <vector>

#include "ember/core/scalar.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/op_def.h"
#include "ember/ops/tensor_iterator.h"

namespace ember {

// ---- advanced indexing (Note [Indexing by byte offsets]) ----------------------------
// Advanced indexing is reduced to one TensorIterator over the result shape with operands
// (out, src, offsets): `src` is the indexed tensor restrided with stride 0 over the index
// dims, `offsets` holds, per index position, the byte offset sum_k idx_k * stride_k
// (stride 0 over the other dims). The kernel then reads or writes *(src + offset).
// Gather: operands (out, src, offsets).
using IndexFn = void (*)(TensorIterator& it);
// Scatter: operands (dst, values, offsets). Accumulating writes run serially (indices may
// repeat) and compute dst += alpha * value in the compute type.
using IndexPutFn = void (*)(TensorIterator& it, bool accumulate, const Scalar& alpha);

// How out-of-range indices are reported (each op has PyTorch's own wording).
enum class IndexErrorStyle : uint8_t {
  Advanced,   // "index 5 is out of bounds for dimension 0 with size 3"; negatives wrap
  Take,       // "out of range: tried to access index 5 on a tensor of 3 elements."; wrap
  Select,     // "index out of range in self"; no negatives (index_select, index_add)
  IndexCopy,  // "index_copy_(): index 5 is out of bounds for dimension 0 with size 3"; no negatives
  IndexFill,  // like Advanced, with the real dim; negatives wrap
};
// The style and the op that every message starts with ("index_select(): index out of range in self").
struct IndexErrors {
  IndexErrorStyle style;
  const char* op;
};

// Indexes dims [first_dim, first_dim + indices.size()) of self with integer index tensors
// (int64 or int32, broadcast together); the result has the broadcast index shape in place
// of those dims. `dims_for_errors` names the dims in error messages (default: 0, 1, ...).
Tensor index_dims(const Tensor& self, int64_t first_dim, const std::vector<Tensor>& indices, IndexErrors errors,
                  const std::vector<int64_t>& dims_for_errors = {});
// Writes values (broadcast to the shape index_dims would return) into those positions.
// All indices are validated before anything is written.
void index_put_dims(const Tensor& self, int64_t first_dim, const std::vector<Tensor>& indices, const Tensor& values,
                    bool accumulate, const Scalar& alpha, IndexErrors errors,
                    const std::vector<int64_t>& dims_for_errors = {});

// Calls on_error(v) with the first element v of `index` (an integer tensor on any device)
// outside [lo, size), if there is one. On a device the check is a min/max reduction there and
// one synchronization; the tensor is copied to the host only to find the offender.
void check_index_range(const Tensor& index, int64_t lo, int64_t size, const std::function<void(int64_t)>& on_error);

// Errors when an in-place op would write one memory location through several elements
// (an expanded self), as PyTorch does.
void check_no_internal_overlap(const Tensor& self, const char* op);


// ---- scatter / gather (Note [Scatter-gather iteration]) ---------------------------------
// The iterator runs over index.sizes() with `dim` collapsed to size 1; each kernel loop
// element walks the index along `dim`. Operands: gather (out, self, index), scatter
// (self, index, src) or, for ScatterFill, (self, index).
enum class ScatterMode : uint8_t { Gather, Scatter, ScatterFill, Sum, Prod, Amax, Amin };
struct ScatterGatherArgs {
  ScatterMode mode;
  int64_t dim;               // for error messages
  int64_t index_dim_size;    // index.size(dim)
  int64_t self_dim_size;     // bound for index values
  int64_t self_dim_stride;   // bytes
  int64_t index_dim_stride;  // bytes
  int64_t other_dim_stride;  // bytes: out's (gather) or src's (scatter) stride along dim
  Scalar value;              // ScatterFill
};
using ScatterGatherFn = void (*)(TensorIterator& it, const ScatterGatherArgs& args);

// ---- masks and selection ----------------------------------------------------------------
// Operands (self, mask): self[i] = value where mask[i] (mask is bool or uint8).
using MaskedFillFn = void (*)(TensorIterator& it, const Scalar& value);
// Operands (out, cond, a, b): out = cond ? a : b (a, b and out share a dtype).
using WhereFn = void (*)(TensorIterator& it);
// Coordinates of the non-zero elements of a contiguous tensor: [nnz, ndim] int64.
using NonzeroFn = Tensor (*)(const Tensor& self);
// Operands (out, src): a plain copy where src may have negative strides (flip).
using FlipFn = void (*)(TensorIterator& it);
// Lower/upper triangle copy of a contiguous batch of matrices.
using TriluFn = void (*)(const Tensor& self, Tensor& out, int64_t diagonal, bool lower);

// ---- sorting ----------------------------------------------------------------------------
// values must be a copy of self (sorted in place along dim); indices an int64 tensor of
// the same shape. NaNs order above every number (last ascending, first descending).
using SortFn = void (*)(Tensor& values, Tensor& indices, int64_t dim, bool descending, bool stable);
// values/indices have size k along dim; self is read.
using TopkFn = void (*)(const Tensor& self, Tensor& values, Tensor& indices, int64_t k, int64_t dim, bool largest,
                        bool sorted);
// values/indices have size 1 along dim (kept dim); self is read; k is 1-based.
using KthvalueFn = void (*)(const Tensor& self, Tensor& values, Tensor& indices, int64_t k, int64_t dim);
// boundaries: contiguous [B..., M] (or [M] shared); values contiguous [B..., N]; sorter
// optional (same shape as boundaries, int64); out int64 or int32, shape of values.
using SearchsortedFn = void (*)(const Tensor& boundaries, const Tensor& values, const Tensor* sorter, Tensor& out,
                                bool right);

// Element-size dispatch for ops that only move bytes: f(TypeTag<U>) with an unsigned type of
// element size n (Bytes16 for 16), on the CPU and in CUDA kernels alike.
struct alignas(16) Bytes16 { uint64_t lo, hi; };
template <class F>
void visit_element_size(size_t n, const char* op, const F& f) {
  switch (n) {
    case 1: return f(TypeTag<uint8_t>{});
    case 2: return f(TypeTag<uint16_t>{});
    case 4: return f(TypeTag<uint32_t>{});
    case 8: return f(TypeTag<uint64_t>{});
    case 16: return f(TypeTag<Bytes16>{});
    default: EMBER_INTERNAL_ASSERT(false, op, ": unexpected element size ", n);
  }
}

}  // namespace ember
