// TensorImpl's cached layout flags and the shape helpers.
#include "ember/core/tensor_impl.h"

#include "ember/core/tensor.h"

#include <algorithm>
#include <ostream>
#include <sstream>

namespace ember {

TensorImpl::~TensorImpl() = default;

void TensorImpl::throw_unallocated() const {
  std::ostringstream shape;
  shape << sizes();
  EMBER_CHECK(false, "The tensor has a non-zero number of elements (shape ", shape.str(), ", ", numel_, " elements, ",
              dtype_, " on ", device_.str(), "), but its data is not allocated: its storage holds no memory (it ",
              "was released under this tensor, e.g. a view of a FullyShardedDataParallel parameter kept after the ",
              "unit was resharded; take a clone() while the parameter is gathered)");
  __builtin_unreachable();
}

std::ostream& operator<<(std::ostream& os, IntArrayRef a) {
  os << "[";
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}

std::ostream& operator<<(std::ostream& os, MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous: return os << "Contiguous";
    case MemoryFormat::Preserve: return os << "Preserve";
    case MemoryFormat::ChannelsLast: return os << "ChannelsLast";
    case MemoryFormat::ChannelsLast3d: return os << "ChannelsLast3d";
  }
  return os;
}

std::ostream& operator<<(std::ostream& os, Layout) { return os << "Strided"; }

std::ostream& operator<<(std::ostream& os, const TensorOptions& o) {
  auto unset = [&](bool has) { return has ? "" : " (default)"; };
  os << "TensorOptions(dtype=" << o.dtype() << unset(o.has_dtype()) << ", device=" << o.device()
     << unset(o.has_device()) << ", layout=" << o.layout() << unset(o.has_layout())
     << ", requires_grad=" << (o.requires_grad() ? "true" : "false") << unset(o.has_requires_grad())
     << ", pinned_memory=false (default), memory_format=";
  if (o.memory_format_opt()) os << *o.memory_format_opt();
  else os << "(nullopt)";
  return os << ")";
}

DimVector contiguous_strides(IntArrayRef sizes, MemoryFormat f) {
  int64_t n = sizes.size();
  DimVector st(n);
  auto fill = [&](std::initializer_list<int64_t> order) {  // innermost first
    int64_t s = 1;
    for (int64_t d : order) { st[d] = s; s *= std::max<int64_t>(sizes[d], 1); }
  };
  if (f == MemoryFormat::ChannelsLast) {
    EMBER_CHECK(n == 4, "channels_last memory format requires a 4-d tensor, got sizes ", sizes);
    fill({1, 3, 2, 0});
  } else if (f == MemoryFormat::ChannelsLast3d) {
    EMBER_CHECK(n == 5, "channels_last_3d memory format requires a 5-d tensor, got sizes ", sizes);
    fill({1, 4, 3, 2, 0});
  } else {
    int64_t s = 1;
    for (int64_t d = n - 1; d >= 0; --d) { st[d] = s; s *= std::max<int64_t>(sizes[d], 1); }
  }
  return st;
}

bool compute_is_contiguous(IntArrayRef sizes, IntArrayRef strides, MemoryFormat f) {
  int64_t n = sizes.size();
  for (int64_t s : sizes) if (s == 0) return f == MemoryFormat::Contiguous ? true : n == (f == MemoryFormat::ChannelsLast ? 4 : 5);
  auto check = [&](std::initializer_list<int64_t> order) {
    int64_t expected = 1;
    for (int64_t d : order) {
      if (sizes[d] != 1) {
        if (strides[d] != expected) return false;
        expected *= sizes[d];
      }
    }
    return true;
  };
  if (f == MemoryFormat::ChannelsLast) return n == 4 && check({1, 3, 2, 0});
  if (f == MemoryFormat::ChannelsLast3d) return n == 5 && check({1, 4, 3, 2, 0});
  int64_t expected = 1;
  for (int64_t d = n - 1; d >= 0; --d) {
    if (sizes[d] != 1) {
      if (strides[d] != expected) return false;
      expected *= sizes[d];
    }
  }
  return true;
}

bool compute_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides) {
  int64_t n = sizes.size();
  if (n == 1) return sizes[0] < 2 || strides[0] == 1;
  SmallVector<int64_t, kDimVectorInline> perm(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t expected = 1;
  for (int64_t i = 0; i < n; ++i) {
    int64_t s = sizes[perm[i]];
    if (s < 2) return true;
    if (strides[perm[i]] != expected) return false;
    expected *= s;
  }
  return true;
}

void TensorImpl::refresh_flags() {
  numel_ = 1;
  for (int64_t s : sizes_) numel_ *= s;
  is_contiguous_ = compute_is_contiguous(sizes_, strides_, MemoryFormat::Contiguous);
  int64_t n = sizes_.size();
  is_channels_last_contiguous_ = n == 4 && compute_is_contiguous(sizes_, strides_, MemoryFormat::ChannelsLast);
  is_channels_last_3d_contiguous_ = n == 5 && compute_is_contiguous(sizes_, strides_, MemoryFormat::ChannelsLast3d);
  is_non_overlapping_and_dense_ = is_contiguous_ || is_channels_last_contiguous_ ||
                                  is_channels_last_3d_contiguous_ ||
                                  compute_non_overlapping_and_dense(sizes_, strides_);
}

void TensorImpl::set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides) {
  EMBER_INTERNAL_ASSERT(sizes.size() == strides.size());
  sizes_.assign(sizes.begin(), sizes.end());
  strides_.assign(strides.begin(), strides.end());
  refresh_flags();
}

void TensorImpl::set_sizes_contiguous(IntArrayRef sizes, MemoryFormat f) {
  sizes_.assign(sizes.begin(), sizes.end());
  strides_ = contiguous_strides(sizes, f);
  refresh_flags();
}

int64_t checked_numel(IntArrayRef sizes, const char* op) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, op, ": negative dimension ", s, " in size ", sizes);
    EMBER_CHECK(!__builtin_mul_overflow(n, s, &n), op, ": the number of elements of size ",
                sizes, " overflows int64");
  }
  return n;
}

int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, const char* op, bool wrap_scalar) {
  int64_t n = ndim;
  if (n == 0 && wrap_scalar) n = 1;
  EMBER_CHECK_INDEX(n > 0, op ? op : "dim", ": dimension specified as ", dim,
                    " but tensor has no dimensions");
  EMBER_CHECK_INDEX(dim >= -n && dim < n, op ? op : "dim",
                    ": dimension out of range (expected to be in range of [", -n, ", ", n - 1,
                    "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

void Tensor::undefined_tensor_error(const char* accessor) {
  EMBER_ERROR(accessor, "() called on an undefined Tensor (a default-constructed Tensor holds no data; "
              "give it a value first)");
}

void throw_undefined_argument(const char* op, const char* arg) {
  EMBER_ERROR(op, ": expected a defined tensor for argument '", arg,
              "' but got an undefined one (a default-constructed Tensor)");
}

}  // namespace ember
