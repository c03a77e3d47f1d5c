// TensorIterator: shape, dtype and stride computation (see the header's comment).
#include "ember/ops/tensor_iterator.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "ember/core/parallel.h"
#include "ember/ops/functions.h"
#include "ember/ops/op_def.h"
#include "ember/ops/type_promotion.h"

namespace ember {

DimVector infer_size(IntArrayRef a, IntArrayRef b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (ptrdiff_t i = n - 1; i >= 0; --i) {
    ptrdiff_t off = n - 1 - i;
    ptrdiff_t da = a.size() - 1 - off, db = b.size() - 1 - off;
    int64_t sa = da >= 0 ? a[da] : 1, sb = db >= 0 ? b[db] : 1;
    EMBER_CHECK(sa == sb || sa == 1 || sb == 1, op, ": the size of tensor a (", sa,
                ") must match the size of tensor b (", sb, ") at non-singleton dimension ", i,
                " (shapes ", a, " and ", b, " are not broadcastable)");
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

TensorIterator TensorIteratorConfig::build() {
  TensorIterator it;
  it.build(*this);
  return it;
}

void TensorIterator::build(TensorIteratorConfig& cfg) {
  name_ = cfg.name_;
  noutputs_ = static_cast<int>(cfg.outputs_.size());
  ntensors_ = noutputs_ + static_cast<int>(cfg.inputs_.size());
  EMBER_INTERNAL_ASSERT(ntensors_ <= kMaxOperands);
  operands_.resize(ntensors_);
  // The config's tensors move into the operands (a config builds one iterator): no
  // reference-count traffic per operand.
  for (int i = 0; i < noutputs_; ++i) {
    operands_[i].tensor = std::move(cfg.outputs_[i]);
    operands_[i].is_output = true;
  }
  for (size_t i = 0; i < cfg.inputs_.size(); ++i) {
    EMBER_CHECK(cfg.inputs_[i].defined(), name_, ": input ", i, " is an undefined tensor");
    operands_[noutputs_ + i].tensor = std::move(cfg.inputs_[i]);
  }
  cfg.outputs_.clear();
  cfg.inputs_.clear();
  Device dev = Device(kCPU);
  bool have_dev = false;
  for (auto& op : operands_) {
    if (!op.tensor.defined()) continue;
    // 0-dim CPU tensors may mix with tensors of any device (they act as scalars).
    if (op.tensor.dim() == 0 && op.tensor.is_cpu() && !op.is_output) continue;
    if (!have_dev) { dev = op.tensor.device(); have_dev = true; }
    EMBER_CHECK(op.tensor.device() == dev, name_, ": expected all tensors to be on the same device, "
                "but found at least two devices, ", dev, " and ", op.tensor.device());
  }
  if (!fast_setup(cfg)) {
    compute_shape(cfg);
    compute_types(cfg);
    compute_strides();
    reorder_dimensions();
    allocate_outputs();
    coalesce_dimensions();
  }
  for (auto& op : operands_) op.data = static_cast<char*>(op.tensor.unsafeGetTensorImpl()->data());
}

// PyTorch's fast setup: inputs of one shape and one dtype, all contiguous, and outputs that are
// new or already right (same shape, contiguous, the result dtype) need no broadcasting, type
// promotion, stride sorting or coalescing: the iterator is one dimension of numel elements and
// new outputs are contiguous. (As in PyTorch, an input that is contiguous and channels-last at
// once, N x C x 1 x 1, counts as contiguous.) Anything else takes the general path.
bool TensorIterator::fast_setup(const TensorIteratorConfig& cfg) {
  if (cfg.has_static_shape_ || ntensors_ == noutputs_) return false;
  const Tensor& first = operands_[noutputs_].tensor;
  const IntArrayRef sizes = first.sizes();
  const ScalarType dt = first.scalar_type();
  const Device dev = first.device();
  if (sizes.empty() || !first.is_contiguous()) return false;
  for (int i = noutputs_ + 1; i < ntensors_; ++i) {
    const Tensor& t = operands_[i].tensor;
    if (t.scalar_type() != dt || !(t.sizes() == sizes) || t.device() != dev || !t.is_contiguous()) return false;
  }
  if (cfg.static_common_dtype_ && *cfg.static_common_dtype_ != dt) return false;
  if (cfg.int_to_float_ && isIntegralType(dt, /*include_bool=*/true)) return false;
  const ScalarType out_dtype = cfg.static_out_dtype_ ? *cfg.static_out_dtype_
                             : cfg.output_to_real_   ? toRealValueType(dt)
                                                     : dt;
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) return false;
  for (int i = 0; i < noutputs_; ++i) {
    const Tensor& t = operands_[i].tensor;
    if (t.defined() && (!(t.sizes() == sizes) || t.scalar_type() != out_dtype || t.device() != dev ||
                        !t.is_contiguous()))
      return false;
  }
  common_dtype_ = dt;
  numel_ = numel;
  shape_.clear();
  shape_.push_back(numel);
  for (int i = 0; i < ntensors_; ++i) {
    Operand& op = operands_[i];
    op.dtype = i < noutputs_ ? out_dtype : dt;
    if (i < noutputs_ && !op.tensor.defined()) {
      op.tensor = empty(sizes, TensorOptions().dtype(out_dtype).device(dev));
      op.will_resize = true;
    }
    op.strides.clear();
    op.strides.push_back(int64_t(element_size(op.dtype)));
  }
  return true;
}

void TensorIterator::compute_shape(TensorIteratorConfig& cfg) {
  if (cfg.has_static_shape_) {
    shape_ = cfg.static_shape_;
    for (int i = noutputs_; i < ntensors_; ++i)
      EMBER_CHECK(IntArrayRef(infer_size(shape_, operands_[i].tensor.sizes(), name_)) == IntArrayRef(shape_), name_,
                  ": input of shape ", operands_[i].tensor.sizes(), " cannot be broadcast to ", IntArrayRef(shape_));
  } else {
    bool first = true;
    for (int i = noutputs_; i < ntensors_; ++i) {
      IntArrayRef s = operands_[i].tensor.sizes();
      if (first) { shape_ = DimVector(s); first = false; }
      else if (!(IntArrayRef(shape_) == s)) shape_ = infer_size(shape_, s, name_);
    }
    if (first) {  // no inputs: iterate over the (first) output
      EMBER_INTERNAL_ASSERT(noutputs_ > 0 && operands_[0].tensor.defined());
      shape_ = DimVector(operands_[0].tensor.sizes());
    }
  }
  numel_ = checked_numel(shape_, name_);
  for (int i = 0; i < noutputs_; ++i) {
    Operand& op = operands_[i];
    if (!op.tensor.defined()) { op.will_resize = true; continue; }
    if (op.tensor.sizes() == IntArrayRef(shape_)) continue;
    EMBER_CHECK(!cfg.inplace_ && cfg.resize_outputs_, name_, ": output with shape ",
                op.tensor.sizes(), " doesn't match the broadcast shape ", IntArrayRef(shape_));
    resize_(op.tensor, shape_);
    op.will_resize = true;  // freshly resized: lay it out like the inputs
  }
}

void TensorIterator::compute_types(TensorIteratorConfig& cfg) {
  // The common dtype.
  if (cfg.static_common_dtype_) {
    common_dtype_ = *cfg.static_common_dtype_;
  } else if (ntensors_ > noutputs_) {
    if (cfg.same_dtype_ || !cfg.promote_) {
      common_dtype_ = operands_[noutputs_].tensor.scalar_type();
      if (cfg.same_dtype_)
        for (int i = noutputs_ + 1; i < ntensors_; ++i)
          EMBER_CHECK_TYPE(operands_[i].tensor.scalar_type() == common_dtype_, name_,
                           ": expected all inputs to have the same dtype, got ", common_dtype_,
                           " and ", operands_[i].tensor.scalar_type());
    } else {
      ResultTypeState st;
      for (int i = noutputs_; i < ntensors_; ++i) st = update_result_type_state(operands_[i].tensor, st);
      common_dtype_ = result_type(st);
    }
  } else {
    common_dtype_ = operands_[0].tensor.defined() ? operands_[0].tensor.scalar_type() : get_default_dtype().toScalarType();
  }
  if (cfg.int_to_float_ && isIntegralType(common_dtype_, /*include_bool=*/true))
    common_dtype_ = get_default_dtype();

  ScalarType out_dtype = cfg.static_out_dtype_ ? *cfg.static_out_dtype_
                       : cfg.output_to_real_ ? toRealValueType(common_dtype_)
                                             : common_dtype_;
  for (int i = 0; i < noutputs_; ++i) {
    Operand& op = operands_[i];
    op.dtype = out_dtype;
    if (!op.tensor.defined()) continue;
    ScalarType given = op.tensor.scalar_type();
    if (given == out_dtype) continue;
    EMBER_CHECK_TYPE(cfg.cast_outputs_, name_, ": expected output dtype ", out_dtype, " but got ", given);
    EMBER_CHECK_TYPE(canCast(out_dtype, given), name_, ": result type ", out_dtype,
                     " can't be cast to the desired output type ", given);
    // Compute into a temporary of the result dtype, copied back by cast_outputs().
    op.original = op.tensor;
    op.tensor = empty_like(op.original, TensorOptions().dtype(out_dtype));
    op.will_resize = false;
  }
  for (int i = noutputs_; i < ntensors_; ++i) {
    Operand& op = operands_[i];
    op.dtype = op.tensor.scalar_type();
    if (cfg.promote_ && !cfg.same_dtype_ && op.dtype != common_dtype_) {
      op.tensor = op.tensor.to(common_dtype_);
      op.dtype = common_dtype_;
    }
  }
}

void TensorIterator::compute_strides() {
  int64_t nd = shape_.size();
  for (auto& op : operands_) {
    op.strides.resize(nd, 0);
    if (!op.tensor.defined() || op.will_resize) continue;
    IntArrayRef sz = op.tensor.sizes(), st = op.tensor.strides();
    int64_t offset = nd - int64_t(sz.size());
    int64_t isz = element_size(op.tensor.scalar_type());
    for (int64_t d = 0; d < int64_t(sz.size()); ++d)
      op.strides[offset + d] = (sz[d] == 1 && shape_[offset + d] != 1) ? 0 : st[d] * isz;
    // iterator order: innermost first
    std::reverse(op.strides.begin(), op.strides.end());
  }
  std::reverse(shape_.begin(), shape_.end());
}

void TensorIterator::reorder_dimensions() {
  int nd = ndim();
  perm_.resize(nd);
  for (int i = 0; i < nd; ++i) perm_[i] = i;
  if (nd <= 1) return;
  // Sort dims by stride, innermost first, with PyTorch's ambiguity-tolerant comparison:
  // the first operand (outputs first) that orders a pair decides.
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (const auto& op : operands_) {
      if (op.will_resize || !op.tensor.defined()) continue;
      int64_t s0 = op.strides[d0], s1 = op.strides[d1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape_[d0] > shape_[d1]) return 1;
    }
    return 0;
  };
  for (int i = 1; i < nd; ++i) {
    int d1 = i;
    for (int d0 = i - 1; d0 >= 0; --d0) {
      int c = should_swap(perm_[d0], perm_[d1]);
      if (c > 0) { std::swap(perm_[d0], perm_[d1]); d1 = d0; }
      else if (c < 0) break;
    }
  }
  bool identity = true;
  for (int i = 0; i < nd; ++i) identity &= perm_[i] == i;
  if (identity) return;
  auto apply = [&](DimVector& v) {
    DimVector old = v;
    for (int i = 0; i < nd; ++i) v[i] = old[perm_[i]];
  };
  apply(shape_);
  for (auto& op : operands_) apply(op.strides);
}

void TensorIterator::allocate_outputs() {
  int nd = ndim();
  for (int i = 0; i < noutputs_; ++i) {
    Operand& op = operands_[i];
    if (!op.will_resize) continue;
    int64_t isz = element_size(op.dtype);
    // Dense strides in iterator order, mapped back to tensor dims (innermost first -> reversed).
    DimVector tsizes(nd), tstrides(nd);
    int64_t s = 1;
    for (int d = 0; d < nd; ++d) {
      int64_t tdim = nd - 1 - perm_[d];
      tsizes[tdim] = shape_[d];
      tstrides[tdim] = s;
      op.strides[d] = s * isz;
      s *= std::max<int64_t>(shape_[d], 1);
    }
    Device dev = Device(kCPU);
    for (int j = noutputs_; j < ntensors_; ++j)
      if (operands_[j].tensor.dim() > 0 || !operands_[j].tensor.is_cpu()) { dev = operands_[j].tensor.device(); break; }
    if (op.tensor.defined()) {
      // A resized caller output: restride it in place over its own storage.
      op.tensor.unsafeGetTensorImpl()->set_sizes_and_strides(tsizes, tstrides);
    } else {
      op.tensor = empty_strided(tsizes, tstrides, TensorOptions().dtype(op.dtype).device(dev));
    }
  }
}

void TensorIterator::coalesce_dimensions() {
  int nd = ndim();
  if (nd <= 1) return;
  auto can_coalesce = [&](int d0, int d1) {
    if (shape_[d0] == 1 || shape_[d1] == 1) return true;
    for (const auto& op : operands_)
      if (op.strides[d0] * shape_[d0] != op.strides[d1]) return false;
    return true;
  };
  int prev = 0;
  for (int d = 1; d < nd; ++d) {
    if (can_coalesce(prev, d)) {
      if (shape_[prev] == 1)
        for (auto& op : operands_) op.strides[prev] = op.strides[d];
      shape_[prev] *= shape_[d];
    } else {
      ++prev;
      if (prev != d) {
        shape_[prev] = shape_[d];
        for (auto& op : operands_) op.strides[prev] = op.strides[d];
      }
    }
  }
  shape_.resize(prev + 1);
  for (auto& op : operands_) op.strides.resize(prev + 1);
}

bool TensorIterator::is_contiguous() const {
  if (numel_ == 1) return true;
  if (ndim() != 1) return false;
  for (const auto& op : operands_)
    if (op.strides[0] != int64_t(element_size(op.dtype))) return false;
  return true;
}

bool TensorIterator::is_scalar(int arg) const {
  for (int64_t s : operands_[arg].strides) if (s != 0) return false;
  return true;
}

void TensorIterator::serial_for_each_impl(LoopRef loop, int64_t begin, int64_t end) const {
  if (begin >= end) return;
  int nt = ntensors_;
  char* ptrs[kMaxOperands];
  int64_t inner[kMaxOperands];
  int nd = ndim();
  if (nd <= 1) {
    for (int k = 0; k < nt; ++k) {
      inner[k] = nd == 1 ? operands_[k].strides[0] : 0;
      ptrs[k] = operands_[k].data + begin * inner[k];
    }
    loop(ptrs, inner, end - begin);
    return;
  }
  int64_t counter[16];
  EMBER_CHECK(nd <= 16, name_, ": tensors with more than 16 dimensions that cannot be merged are not supported "
              "(got ", nd, " after merging)");
  int64_t idx = begin;
  for (int d = 0; d < nd; ++d) { counter[d] = idx % shape_[d]; idx /= shape_[d]; }
  for (int k = 0; k < nt; ++k) inner[k] = operands_[k].strides[0];
  int64_t remaining = end - begin;
  while (remaining > 0) {
    for (int k = 0; k < nt; ++k) {
      char* p = operands_[k].data;
      for (int d = 0; d < nd; ++d) p += counter[d] * operands_[k].strides[d];
      ptrs[k] = p;
    }
    int64_t n = std::min(shape_[0] - counter[0], remaining);
    loop(ptrs, inner, n);
    remaining -= n;
    counter[0] += n;
    for (int d = 0; d < nd - 1 && counter[d] == shape_[d]; ++d) {
      counter[d] = 0;
      ++counter[d + 1];
    }
  }
}

// Note [Streaming stores]
// A normal store to a line that is not in cache first reads the line (read-for-ownership):
// an out-of-place add moves four lines for the three it needs, and its output evicts the
// inputs. An output too large to stay in cache for the next op anyway is better written
// with non-temporal (streaming) stores: for_each_overwrite runs the kernel's inner loop on
// blocks of kStreamBlock bytes whose output goes to an L1 buffer, then streams each block
// to the output. Below the threshold, a normal store wins (the next op finds the output in
// cache). Only loops that never read their output may be streamed, and in-place ops are
// not (their lines are in cache already). Measured in bench/RESULTS.md ("Streaming stores").
namespace {

int64_t streaming_store_bytes_from_env() {
  constexpr int64_t kDefault = int64_t(32) << 20;
  const char* env = std::getenv("EMBER_STREAMING_STORES_MB");
  if (!env || !*env) return kDefault;
  if (std::strcmp(env, "off") == 0) return std::numeric_limits<int64_t>::max();
  char* end = nullptr;
  const long long mb = std::strtoll(env, &end, 10);
  if (end == env || *end != '\0' || mb < 0 || mb >= (int64_t(1) << 40)) {
    // Read on first use inside a kernel, where throwing would fail an unrelated op.
    std::fprintf(stderr, "ember: ignoring EMBER_STREAMING_STORES_MB='%s' (expected MiB >= 0 or 'off')\n", env);
    return kDefault;
  }
  return int64_t(mb) << 20;
}

std::atomic<int64_t>& streaming_store_threshold() {
  static std::atomic<int64_t> bytes{streaming_store_bytes_from_env()};
  return bytes;
}

constexpr int64_t kStreamBlock = 4096;

// Copies `bytes` from an L1 buffer to dst with streaming stores (the caller fences); whole
// 64-byte lines in one store each where the CPU has AVX-512 (measured faster than four
// 16-byte stores per line).
#if defined(__x86_64__)
__attribute__((target("avx512f"))) void stream_lines_avx512(char* dst, const char* src, int64_t bytes) {
  for (int64_t i = 0; i < bytes; i += 64)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i), _mm512_loadu_si512(src + i));
}
#endif

// dst is 64-byte aligned (streamed_loop stores the elements before the first line normally).
void stream_out(char* dst, const char* src, int64_t bytes) {
#if defined(__x86_64__)
  const int64_t lines = bytes & ~int64_t(63);
  static const bool avx512 = best_cpu_capability() == CpuCapability::AVX512;
  if (avx512) {
    stream_lines_avx512(dst, src, lines);
  } else {
    for (int64_t j = 0; j < lines; j += 16)
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + j), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + j)));
  }
  std::memcpy(dst + lines, src + lines, size_t(bytes - lines));  // the last block's partial line
#else
  std::memcpy(dst, src, size_t(bytes));
#endif
}

// One inner loop of for_each_overwrite, streamed: loop computes kStreamBlock bytes of
// output at a time into buf.
void streamed_loop(const TensorIterator::LoopRef& loop, int nt, int64_t elem, char** data,
                   const int64_t* strides, int64_t n) {
  if (strides[0] != elem || n * elem < 2 * kStreamBlock) return loop(data, strides, n);
  alignas(64) char buf[kStreamBlock];
  char* ptrs[kMaxIteratorOperands];
  char* out = data[0];
  auto run = [&](int64_t b, int64_t m, bool streamed) {
    for (int k = 1; k < nt; ++k) ptrs[k] = data[k] + b * strides[k];
    ptrs[0] = streamed ? buf : out + b * elem;
    loop(ptrs, strides, m);
    if (streamed) stream_out(out + b * elem, buf, m * elem);
  };
  // Elements before the output's first 64-byte line boundary take normal stores, so that
  // every block streams whole lines.
  int64_t b = std::min<int64_t>(n, int64_t((64 - (reinterpret_cast<uintptr_t>(out) & 63)) & 63) / elem);
  if (b > 0) run(0, b, false);
  for (const int64_t block = kStreamBlock / elem; b < n; b += block) run(b, std::min(block, n - b), true);
#if defined(__x86_64__)
  _mm_sfence();  // streaming stores are weakly ordered: publish them before the loop returns
#endif
}

}  // namespace

int64_t streaming_store_bytes() { return streaming_store_threshold().load(std::memory_order_relaxed); }

void set_streaming_store_bytes(int64_t bytes) {
  EMBER_CHECK(bytes >= 0, "set_streaming_store_bytes: expected bytes >= 0, got ", bytes);
  streaming_store_threshold().store(bytes, std::memory_order_relaxed);
}

bool TensorIterator::streams_output() const {
  if (noutputs_ != 1 || numel_ * int64_t(element_size(operands_[0].dtype)) < streaming_store_bytes()) return false;
  for (int k = 1; k < ntensors_; ++k)
    if (operands_[k].data == operands_[0].data) return false;  // in place
  return true;
}

void TensorIterator::for_each_impl(LoopRef loop, int64_t grain_size, bool overwrites) {
  if (numel_ == 0) return;
  if (overwrites && streams_output()) {
    const int nt = ntensors_;
    const int64_t elem = int64_t(element_size(operands_[0].dtype));
    auto streamed = [&](char** data, const int64_t* strides, int64_t n) { streamed_loop(loop, nt, elem, data, strides, n); };
    for_each_impl(LoopRef(streamed), grain_size);
    return;
  }
  if (numel_ < grain_size || get_num_threads() == 1 || in_parallel_region()) {
    serial_for_each_impl(loop, 0, numel_);
    return;
  }
  parallel_for(0, numel_, grain_size, [&](int64_t b, int64_t e) { serial_for_each_impl(loop, b, e); });
}

void TensorIterator::cast_outputs() {
  for (int i = 0; i < noutputs_; ++i) {
    Operand& op = operands_[i];
    if (op.original.defined()) {
      op.original.copy_(op.tensor);
      op.tensor = op.original;
      op.original = Tensor();
    }
  }
}

}  // namespace ember
