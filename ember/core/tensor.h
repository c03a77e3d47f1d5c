// Tensor: a cheap refcounted handle to a TensorImpl, with LibTorch's method API.
// Methods are declared here and defined in ember/ops/ (the op table), so this header
// stays light; free functions with the same names live in ember/ops/functions.h.
#pragma once
#include <functional>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ember/core/dimname.h"
#include "ember/core/generator.h"
#include "ember/core/list.h"
#include "ember/core/scalar.h"
#include "ember/core/stream.h"
#include "ember/core/tensor_impl.h"
#include "ember/core/tensor_options.h"
#include "ember/ops/pointwise_table.h"  // the op table declares the pointwise methods

namespace ember {

class Tensor;
namespace indexing { class TensorIndex; }
namespace autograd { struct Node; }
template <class T, size_t N> class TensorAccessor;
using TensorList = ArrayRef<Tensor>;
[[noreturn]] void throw_undefined_argument(const char* op, const char* arg);

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  // In-place methods are const, as LibTorch's are (`t.grad().zero_()`): constness is the
  // handle's, never the data's. Their definitions reach the handle through self().
  Tensor& self() const { return const_cast<Tensor&>(*this); }
  // Assigning to a tensor rebinds the handle, as in LibTorch (`t = t + 1`).
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  // Assigning to a temporary (`t[0] = 5`, `t.index({...}) = x`) writes into its data.
  Tensor& operator=(const Tensor& src) &&;
  Tensor& operator=(const Scalar& v) &&;

  // ---- metadata -------------------------------------------------------------
  bool defined() const { return impl_.defined(); }
  void reset() { impl_.reset(); }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const intrusive_ptr<TensorImpl>& getIntrusivePtr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  uint32_t use_count() const { return impl_.use_count(); }

  IntArrayRef sizes() const { return checked_impl("sizes")->sizes(); }
  IntArrayRef strides() const { return checked_impl("strides")->strides(); }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return checked_impl("dim")->dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return checked_impl("numel")->numel(); }
  int64_t storage_offset() const { return checked_impl("storage_offset")->storage_offset(); }
  size_t element_size() const { return checked_impl("element_size")->itemsize(); }
  size_t itemsize() const { return checked_impl("itemsize")->itemsize(); }
  size_t nbytes() const { return size_t(numel()) * itemsize(); }
  ScalarType scalar_type() const { return checked_impl("scalar_type")->dtype(); }
  TypeMeta dtype() const { return checked_impl("dtype")->dtype(); }
  Device device() const { return checked_impl("device")->device(); }
  Layout layout() const { return kStrided; }
  TensorOptions options() const { return TensorOptions().dtype(dtype()).device(device()).layout(kStrided); }
  const Storage& storage() const { return checked_impl("storage")->storage(); }
  bool is_alias_of(const Tensor& o) const { return storage().is_alias_of(o.storage()); }
  bool is_contiguous(MemoryFormat f = MemoryFormat::Contiguous) const { return checked_impl("is_contiguous")->is_contiguous(f); }
  bool is_non_overlapping_and_dense() const {
    return checked_impl("is_non_overlapping_and_dense")->is_non_overlapping_and_dense();
  }
  MemoryFormat suggest_memory_format(bool channels_last_strides_exact_match = false) const;
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_meta() const { return device().is_meta(); }
  bool is_complex() const { return isComplexType(dtype()); }
  bool is_floating_point() const { return isFloatingType(dtype()); }
  bool is_signed() const { return isSignedType(dtype()); }
  bool is_sparse() const { return false; }
  bool is_quantized() const { return false; }
  bool is_mkldnn() const { return false; }
  bool is_conj() const { return false; }
  bool is_neg() const { return false; }
  // The count of in-place writes (an inference tensor has none to report: LibTorch's error).
  int64_t _version() const {
    const TensorImpl* impl = checked_impl("_version");
    EMBER_CHECK(!impl->storage().is_inference(), "Inference tensors do not track version counter.");
    return impl->version();
  }
  int64_t version() const { return _version(); }
  // Allocated in InferenceMode (or a view of such a tensor).
  bool is_variable() const noexcept { return defined(); }  // (deprecated in LibTorch: every Tensor is a Variable)
  bool is_inference() const { return checked_impl("is_inference")->storage().is_inference(); }
  // The CUDA device's index; -1 for CPU tensors.
  int64_t get_device() const { return device().is_cpu() ? -1 : int64_t(device().index()); }
  // This tensor in other's dtype (a no-op when it already is).
  Tensor type_as(const Tensor& other) const;
  // The truth value of a one-element tensor (errors for more or fewer elements, as PyTorch's).
  bool is_nonzero() const;
  // Named tensors are not supported (Note [Named tensors] in dimname.h): names() is one
  // wildcard per dim, refine_names / rename accept only wildcards.
  DimnameList names() const { return default_names(size_t(dim())); }
  std::optional<DimnameList> opt_names() const { return std::nullopt; }
  bool has_names() const { return false; }
  Tensor refine_names(DimnameList names) const;
  Tensor rename(std::optional<DimnameList> names) const;
  const Tensor& rename_(std::optional<DimnameList> names) const;
  void bump_version() const { checked_impl("bump_version")->bump_version(); }
  std::string toString() const;
  void print() const;

  // ---- data access ----------------------------------------------------------
  void* data_ptr() const;
  template <class T> T* data_ptr() const;
  template <class T> T* mutable_data_ptr() const { return data_ptr<T>(); }
  template <class T> const T* const_data_ptr() const { return data_ptr<T>(); }
  Scalar item() const;
  template <class T> T item() const { return item().to<T>(); }
  template <class T, size_t N> TensorAccessor<T, N> accessor() const&;
  template <class T, size_t N> TensorAccessor<T, N> accessor() && = delete;

  // ---- autograd (filled in by ember/autograd) -------------------------------
  bool requires_grad() const;
  Tensor& requires_grad_(bool r = true) const;
  // LibTorch's set_data: this tensor takes `data`'s storage, dtype and geometry in place, so
  // every handle to it (a module's parameter, an optimizer's reference) sees the new data.
  void set_data(const Tensor& data) const;
  Tensor& set_requires_grad(bool r) const { return requires_grad_(r); }
  bool is_leaf() const;
  Tensor detach() const;
  Tensor& detach_() const;
  // The accumulated gradient (undefined until a backward reaches this leaf).
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  uint32_t output_nr() const;
  void retain_grad() const;
  bool retains_grad() const;
  // Backpropagates from this tensor (a scalar, or with `gradient` of its shape).
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false, std::optional<ArrayRef<Tensor>> inputs = std::nullopt) const;
  // hook(grad) runs when this tensor's gradient is computed; returning a tensor replaces it.
  template <class F>
  unsigned register_hook(F&& hook) const {
    if constexpr (std::is_void_v<std::invoke_result_t<F&, Tensor>>) {
      return _register_hook([h = std::forward<F>(hook)](const Tensor& g) mutable { h(g); return Tensor(); });
    } else {
      return _register_hook(std::function<Tensor(const Tensor&)>(std::forward<F>(hook)));
    }
  }
  void remove_hook(unsigned pos) const;
  unsigned _register_hook(std::function<Tensor(const Tensor&)> hook) const;
  bool is_view() const;
  const Tensor& _base() const;
  // A tensor sharing the data but not the autograd history or version counter.
  Tensor data() const;
  // Forward-mode tangent at `level` (undefined if none).
  Tensor _fw_grad(uint64_t level) const;

  // ---- conversion, copies ---------------------------------------------------
  Tensor to(ScalarType t, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> f = std::nullopt) const;
  Tensor to(TypeMeta t, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> f = std::nullopt) const {
    return to(t.toScalarType(), non_blocking, copy, f);
  }
  Tensor to(Device d, ScalarType t, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> f = std::nullopt) const;
  Tensor to(Device d, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> f = std::nullopt) const;
  // to(kCPU): a DeviceType alone converts to both Device and TensorOptions; this picks Device.
  Tensor to(DeviceType d, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> f = std::nullopt) const {
    return to(Device(d), non_blocking, copy, f);
  }
  Tensor to(TensorOptions o, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> f = std::nullopt) const;
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> f = std::nullopt) const;
  Tensor toType(ScalarType t) const { return to(t); }
  Tensor cpu() const { return to(Device(kCPU)); }
  Tensor cuda() const { return to(Device(kCUDA, 0)); }
  Tensor contiguous(MemoryFormat f = MemoryFormat::Contiguous) const;
  Tensor clone(std::optional<MemoryFormat> f = std::nullopt) const;
  Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  // random fills (ember/ops/random.cpp)
  Tensor& uniform_(double from = 0, double to = 1, std::optional<Generator> generator = std::nullopt) const;
  Tensor& normal_(double mean = 0, double std = 1, std::optional<Generator> generator = std::nullopt) const;
  Tensor& bernoulli_(double p = 0.5, std::optional<Generator> generator = std::nullopt) const;
  Tensor& bernoulli_(const Tensor& p, std::optional<Generator> generator = std::nullopt) const;
  Tensor bernoulli(double p, std::optional<Generator> generator = std::nullopt) const;
  Tensor& log_normal_(double mean = 1, double std = 2, std::optional<Generator> generator = std::nullopt) const;
  Tensor& cauchy_(double median = 0, double sigma = 1, std::optional<Generator> generator = std::nullopt) const;
  Tensor& geometric_(double p, std::optional<Generator> generator = std::nullopt) const;
  Tensor multinomial(int64_t num_samples, bool replacement = false,
                     std::optional<Generator> generator = std::nullopt) const;
  Tensor& exponential_(double lambd = 1, std::optional<Generator> generator = std::nullopt) const;
  Tensor& random_(int64_t from, std::optional<int64_t> to, std::optional<Generator> generator = std::nullopt) const;
  Tensor& random_(int64_t to, std::optional<Generator> generator = std::nullopt) const;
  Tensor& random_(std::optional<Generator> generator = std::nullopt) const;
  Tensor bernoulli(std::optional<Generator> generator = std::nullopt) const;
  Tensor& fill_(const Scalar& v) const;
  Tensor& fill_(const Tensor& v) const;
  Tensor& zero_() const;
  const Tensor& resize_(IntArrayRef size, std::optional<MemoryFormat> f = std::nullopt) const;
  Tensor& set_(const Tensor& source) const;

  // ---- views ----------------------------------------------------------------
  Tensor view(IntArrayRef size) const;
  Tensor view(ScalarType dtype) const;
  Tensor view_as(const Tensor& other) const;
  Tensor reshape(IntArrayRef size) const;
  Tensor reshape_as(const Tensor& other) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor& squeeze_() const;
  Tensor& squeeze_(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor& unsqueeze_(int64_t dim) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor& transpose_(int64_t dim0, int64_t dim1) const;
  Tensor swapaxes(int64_t a, int64_t b) const { return transpose(a, b); }
  Tensor swapdims(int64_t a, int64_t b) const { return transpose(a, b); }
  Tensor t() const;
  Tensor& t_() const;
  Tensor mT() const;
  Tensor mH() const;
  Tensor adjoint() const { return mH(); }
  Tensor expand(IntArrayRef size, bool implicit = false) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor unfold(int64_t dim, int64_t size, int64_t step) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor as_strided(IntArrayRef size, IntArrayRef stride,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> tensor_split(int64_t sections, int64_t dim = 0) const;
  std::vector<Tensor> tensor_split(IntArrayRef indices, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor moveaxis(int64_t source, int64_t destination) const { return movedim(source, destination); }
  Tensor real() const;
  Tensor imag() const;
  Tensor conj() const;
  Tensor resolve_conj() const { return *this; }
  Tensor resolve_neg() const { return *this; }

  // ---- indexing -------------------------------------------------------------
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& rhs) const;
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& rhs) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& v) const;
  Tensor operator[](int64_t index) const;
  Tensor operator[](const Tensor& index) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index, bool sparse_grad = false) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                        std::string_view reduce, bool include_self = true) const;
  Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce, bool include_self = true) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1) const;
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1) const;
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor& masked_fill_(const Tensor& mask, const Scalar& value) const;
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value) const;
  Tensor masked_select(const Tensor& mask) const;
  Tensor masked_scatter(const Tensor& mask, const Tensor& source) const;
  Tensor& masked_scatter_(const Tensor& mask, const Tensor& source) const;
  Tensor take(const Tensor& index) const;
  Tensor put(const Tensor& index, const Tensor& source, bool accumulate = false) const;
  Tensor& put_(const Tensor& index, const Tensor& source, bool accumulate = false) const;
  Tensor nonzero() const;
  std::vector<Tensor> nonzero_numpy() const;

  // ---- pointwise ------------------------------------------------------------
  // The unary methods written from the op table's api column (ember/ops/pointwise_table.h).
#define EMBER_PW_METHOD(name, op) Tensor name() const; Tensor& name##_() const;
  EMBER_FOR_EACH_UNARY_METHOD()
  EMBER_PW_METHOD(square, square)
#undef EMBER_PW_METHOD
  Tensor positive() const;
  Tensor round(int64_t decimals = 0) const;
  Tensor& round_(int64_t decimals = 0) const;
  Tensor angle() const;
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isposinf() const;
  Tensor isneginf() const;
  Tensor isfinite() const;
  Tensor isreal() const;
  Tensor signbit() const;
  Tensor nan_to_num(std::optional<double> nan = std::nullopt, std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  Tensor& nan_to_num_(std::optional<double> nan = std::nullopt, std::optional<double> posinf = std::nullopt,
                      std::optional<double> neginf = std::nullopt) const;
  Tensor logit(std::optional<double> eps = std::nullopt) const;
  Tensor& logit_(std::optional<double> eps = std::nullopt) const;
  Tensor clamp(const std::optional<Scalar>& min, const std::optional<Scalar>& max = std::nullopt) const;
  Tensor clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max = {}) const;
  Tensor& clamp_(const std::optional<Scalar>& min, const std::optional<Scalar>& max = std::nullopt) const;
  Tensor& clamp_(const std::optional<Tensor>& min, const std::optional<Tensor>& max = {}) const;
  Tensor clamp_min(const Scalar& min) const;
  Tensor& clamp_min_(const Scalar& min) const;
  Tensor clamp_max(const Scalar& max) const;
  Tensor& clamp_max_(const Scalar& max) const;
  Tensor clamp_min(const Tensor& min) const;
  Tensor& clamp_min_(const Tensor& min) const;
  Tensor clamp_max(const Tensor& max) const;
  Tensor& clamp_max_(const Tensor& max) const;
  Tensor copysign(const Scalar& other) const;
  Tensor& copysign_(const Scalar& other) const;
  Tensor clip(const std::optional<Scalar>& min, const std::optional<Scalar>& max = std::nullopt) const;
  Tensor& clip_(const std::optional<Scalar>& min, const std::optional<Scalar>& max = std::nullopt) const;

#define EMBER_BINARY_METHOD(name)                                   \
  Tensor name(const Tensor& other) const;                           \
  Tensor name(const Scalar& other) const;                           \
  Tensor& name##_(const Tensor& other) const;                       \
  Tensor& name##_(const Scalar& other) const;
  EMBER_BINARY_METHOD(mul) EMBER_BINARY_METHOD(multiply) EMBER_BINARY_METHOD(remainder)
  EMBER_BINARY_METHOD(fmod) EMBER_BINARY_METHOD(floor_divide) EMBER_BINARY_METHOD(pow)
  EMBER_BINARY_METHOD(float_power) EMBER_BINARY_METHOD(true_divide)
  EMBER_BINARY_METHOD(eq) EMBER_BINARY_METHOD(ne) EMBER_BINARY_METHOD(lt) EMBER_BINARY_METHOD(le)
  EMBER_BINARY_METHOD(gt) EMBER_BINARY_METHOD(ge) EMBER_BINARY_METHOD(less) EMBER_BINARY_METHOD(greater)
  EMBER_BINARY_METHOD(less_equal) EMBER_BINARY_METHOD(greater_equal) EMBER_BINARY_METHOD(not_equal)
  EMBER_BINARY_METHOD(logical_and) EMBER_BINARY_METHOD(logical_or) EMBER_BINARY_METHOD(logical_xor)
  EMBER_BINARY_METHOD(bitwise_and) EMBER_BINARY_METHOD(bitwise_or) EMBER_BINARY_METHOD(bitwise_xor)
  EMBER_BINARY_METHOD(bitwise_left_shift) EMBER_BINARY_METHOD(bitwise_right_shift)
  EMBER_BINARY_METHOD(xlogy)
#undef EMBER_BINARY_METHOD
#define EMBER_BINARY_TENSOR_METHOD(name) Tensor name(const Tensor& other) const; Tensor& name##_(const Tensor& other) const;
  EMBER_BINARY_TENSOR_METHOD(atan2) EMBER_BINARY_TENSOR_METHOD(arctan2) EMBER_BINARY_TENSOR_METHOD(hypot)
  EMBER_BINARY_TENSOR_METHOD(copysign) EMBER_BINARY_TENSOR_METHOD(nextafter)
#undef EMBER_BINARY_TENSOR_METHOD
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor& add_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor& sub_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor subtract(const Tensor& other, const Scalar& alpha = 1) const { return sub(other, alpha); }
  Tensor div(const Tensor& other) const;
  Tensor div(const Scalar& other) const;
  Tensor div(const Tensor& other, std::optional<std::string_view> rounding_mode) const;
  Tensor div(const Scalar& other, std::optional<std::string_view> rounding_mode) const;
  Tensor& div_(const Tensor& other) const;
  Tensor& div_(const Scalar& other) const;
  Tensor& div_(const Tensor& other, std::optional<std::string_view> rounding_mode) const;
  Tensor& div_(const Scalar& other, std::optional<std::string_view> rounding_mode) const;
  Tensor divide(const Tensor& other) const { return div(other); }
  Tensor divide(const Tensor& other, std::optional<std::string_view> m) const { return div(other, m); }
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor fmax(const Tensor& other) const;
  Tensor fmin(const Tensor& other) const;
  Tensor max(const Tensor& other) const;
  Tensor min(const Tensor& other) const;
  Tensor lerp(const Tensor& end, const Scalar& weight) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  Tensor& lerp_(const Tensor& end, const Scalar& weight) const;
  Tensor& lerp_(const Tensor& end, const Tensor& weight) const;
  Tensor addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor& addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor& addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor where(const Tensor& condition, const Tensor& other) const;
  Tensor where(const Tensor& condition, const Scalar& other) const;
  Tensor isclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08, bool equal_nan = false) const;
  bool allclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08, bool equal_nan = false) const;
  bool equal(const Tensor& other) const;

  // ---- reductions -----------------------------------------------------------
  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor sum(OptionalIntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nansum(OptionalIntArrayRef dim = std::nullopt, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(OptionalIntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nanmean(OptionalIntArrayRef dim = std::nullopt, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(int64_t dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor amax(IntArrayRef dim = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dim = {}, bool keepdim = false) const;
  Tensor max() const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> aminmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor var(bool unbiased = true) const;
  Tensor var(OptionalIntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  Tensor var(OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim = false) const;
  Tensor std(bool unbiased = true) const;
  Tensor std(OptionalIntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  Tensor std(OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim = false) const;
  // var(1) / std(1) reduce over dim 1 (int -> bool would otherwise pick the `unbiased`
  // overload; LibTorch has these overloads for the same reason).
  Tensor var(int dim) const;
  Tensor std(int dim) const;
  Tensor norm(const std::optional<Scalar>& p = 2) const;
  Tensor norm(const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim = false) const;
  Tensor logsumexp(IntArrayRef dim, bool keepdim = false) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  Tensor count_nonzero(std::optional<int64_t> dim = std::nullopt) const;
  Tensor count_nonzero(IntArrayRef dim) const;
  Tensor cumsum(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor& cumsum_(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor cumprod(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor& cumprod_(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  std::tuple<Tensor, Tensor> cummax(int64_t dim) const;
  std::tuple<Tensor, Tensor> cummin(int64_t dim) const;
  Tensor logcumsumexp(int64_t dim) const;
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor log_softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor median() const;
  std::tuple<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;
  Tensor nanmedian() const;
  std::tuple<Tensor, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> mode(int64_t dim = -1, bool keepdim = false) const;
  Tensor quantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  Tensor quantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  Tensor nanquantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     std::string_view interpolation = "linear") const;
  Tensor nanquantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     std::string_view interpolation = "linear") const;

  // ---- linear algebra -------------------------------------------------------
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;
  Tensor mv(const Tensor& vec) const;
  Tensor dot(const Tensor& other) const;
  Tensor vdot(const Tensor& other) const;
  Tensor outer(const Tensor& other) const;
  Tensor ger(const Tensor& other) const { return outer(other); }
  Tensor addmm(const Tensor& m1, const Tensor& m2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor& addmm_(const Tensor& m1, const Tensor& m2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor addbmm(const Tensor& b1, const Tensor& b2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor& addbmm_(const Tensor& b1, const Tensor& b2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor baddbmm(const Tensor& b1, const Tensor& b2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor& baddbmm_(const Tensor& b1, const Tensor& b2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor& addmv_(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor addr(const Tensor& v1, const Tensor& v2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor& addr_(const Tensor& v1, const Tensor& v2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor kron(const Tensor& other) const;
  Tensor inverse() const;
  Tensor det() const;
  Tensor cholesky(bool upper = false) const;
  Tensor lu_solve(const Tensor& LU_data, const Tensor& LU_pivots) const;
  Tensor cross(const Tensor& other, std::optional<int64_t> dim = std::nullopt) const;
  Tensor trace() const;

  // ---- shape and ordering ---------------------------------------------------
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> sort(std::optional<bool> stable, int64_t dim = -1, bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(bool stable, int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true) const;
  std::tuple<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor& tril_(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor& triu_(int64_t diagonal = 0) const;
  Tensor repeat(IntArrayRef repeats) const;
  Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim = std::nullopt) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt) const;
  Tensor tile(IntArrayRef dims) const;
  Tensor flip(IntArrayRef dims) const;
  Tensor fliplr() const;
  Tensor flipud() const;
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  Tensor rot90(int64_t k = 1, IntArrayRef dims = {0, 1}) const;
  Tensor diff(int64_t n = 1, int64_t dim = -1, const std::optional<Tensor>& prepend = {},
              const std::optional<Tensor>& append = {}) const;
  Tensor bincount(const std::optional<Tensor>& weights = {}, int64_t minlength = 0) const;
  Tensor histc(int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0) const;
  Tensor diag(int64_t diagonal = 0) const;
  Tensor diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;

  // ---- more of LibTorch's methods (ops/tensor_methods.cpp) ---------------------
  // ATen's index_put with c10::List indices (one optional index tensor per leading dim).
  Tensor& index_put_(const List<std::optional<Tensor>>& indices, const Tensor& values, bool accumulate = false) const;
  Tensor index_put(const List<std::optional<Tensor>>& indices, const Tensor& values, bool accumulate = false) const;
  // The deprecated Tensor::type(): the dtype and device as one value ("CPUFloatType").
  struct DeprecatedTypeProperties {
    ScalarType scalar_type_;
    DeviceType device_type_;
    ScalarType scalarType() const { return scalar_type_; }
    DeviceType device_type() const { return device_type_; }
    bool is_cuda() const { return device_type_ == kCUDA; }
    bool is_sparse() const { return false; }
    std::string toString() const;
    TensorOptions options() const;
    bool operator==(const DeprecatedTypeProperties& o) const {
      return scalar_type_ == o.scalar_type_ && device_type_ == o.device_type_;
    }
    bool operator!=(const DeprecatedTypeProperties& o) const { return !(*this == o); }
  };
  DeprecatedTypeProperties type() const { return {scalar_type(), device().type()}; }
  // New tensors with self's dtype and device unless the options say otherwise.
  Tensor new_empty(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options = {}) const;
  Tensor new_full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& options = {}) const;
  Tensor new_zeros(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_ones(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor alias() const;
  Tensor variable_data() const;  // the data without autograd history (a detached alias)
  Tensor tensor_data() const;
  Tensor to_dense(std::optional<ScalarType> dtype = std::nullopt) const;
  bool is_pinned(std::optional<Device> device = std::nullopt) const;
  Tensor pin_memory(std::optional<Device> device = std::nullopt) const;
  // Marks the memory as used by work queued on `s` (a CUDA tensor's block is not reused
  // until that work is done); defined by the CUDA runtime (ember/cuda).
  void record_stream(Stream s) const;
  bool is_same_size(const Tensor& other) const { return sizes() == other.sizes(); }
  bool is_set_to(const Tensor& tensor) const;
  Tensor conj_physical() const;
  Tensor& conj_physical_() const;
  Tensor argwhere() const;
  Tensor broadcast_to(IntArrayRef size) const;
  Tensor ravel() const;
  Tensor narrow_copy(int64_t dim, int64_t start, int64_t length) const;
  Tensor sum_to_size(IntArrayRef size) const;
  Tensor take_along_dim(const Tensor& indices, std::optional<int64_t> dim = std::nullopt) const;
  Tensor slice_scatter(const Tensor& src, int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
                       std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor select_scatter(const Tensor& src, int64_t dim, int64_t index) const;
  Tensor diagonal_scatter(const Tensor& src, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  std::vector<Tensor> hsplit(int64_t sections) const;
  std::vector<Tensor> hsplit(IntArrayRef indices) const;
  std::vector<Tensor> vsplit(int64_t sections) const;
  std::vector<Tensor> vsplit(IntArrayRef indices) const;
  std::vector<Tensor> dsplit(int64_t sections) const;
  std::vector<Tensor> dsplit(IntArrayRef indices) const;
  std::vector<Tensor> unsafe_chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> unsafe_split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> unsafe_split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  Tensor msort() const;
  Tensor diagflat(int64_t offset = 0) const;
  Tensor logaddexp(const Tensor& other) const;
  Tensor logaddexp2(const Tensor& other) const;
  Tensor ldexp(const Tensor& other) const;
  Tensor& ldexp_(const Tensor& other) const;
  Tensor heaviside(const Tensor& values) const;
  Tensor& heaviside_(const Tensor& values) const;
  Tensor gcd(const Tensor& other) const;
  Tensor& gcd_(const Tensor& other) const;
  Tensor lcm(const Tensor& other) const;
  Tensor& lcm_(const Tensor& other) const;
  std::tuple<Tensor, Tensor> frexp() const;
  Tensor dist(const Tensor& other, const Scalar& p = 2) const;
  Tensor inner(const Tensor& other) const;
  Tensor renorm(const Scalar& p, int64_t dim, const Scalar& maxnorm) const;
  Tensor& renorm_(const Scalar& p, int64_t dim, const Scalar& maxnorm) const;
  Tensor mvlgamma(int64_t p) const;
  Tensor& mvlgamma_(int64_t p) const;
  Tensor polygamma(int64_t n) const;
  Tensor& polygamma_(int64_t n) const;
  Tensor igamma(const Tensor& other) const;
  Tensor& igamma_(const Tensor& other) const;
  Tensor igammac(const Tensor& other) const;
  Tensor& igammac_(const Tensor& other) const;
  Tensor cov(int64_t correction = 1, const std::optional<Tensor>& fweights = {},
             const std::optional<Tensor>& aweights = {}) const;
  Tensor corrcoef() const;
  Tensor prelu(const Tensor& weight) const;
  Tensor logdet() const;
  std::tuple<Tensor, Tensor> slogdet() const;
  Tensor matrix_exp() const;
  Tensor matrix_power(int64_t n) const;
  Tensor pinverse(double rcond = 1e-15) const;
  std::tuple<Tensor, Tensor, Tensor> svd(bool some = true, bool compute_uv = true) const;
  std::tuple<Tensor, Tensor> qr(bool some = true) const;
  std::tuple<Tensor, Tensor> triangular_solve(const Tensor& A, bool upper = true, bool transpose = false,
                                              bool unitriangular = false) const;
  Tensor cholesky_solve(const Tensor& input2, bool upper = false) const;
  Tensor cholesky_inverse(bool upper = false) const;
  Tensor stft(int64_t n_fft, std::optional<int64_t> hop_length, std::optional<int64_t> win_length,
              const std::optional<Tensor>& window, bool normalized, std::optional<bool> onesided = std::nullopt,
              std::optional<bool> return_complex = std::nullopt) const;
  Tensor stft(int64_t n_fft, std::optional<int64_t> hop_length = std::nullopt,
              std::optional<int64_t> win_length = std::nullopt, const std::optional<Tensor>& window = {},
              bool center = true, std::string_view pad_mode = "reflect", bool normalized = false,
              std::optional<bool> onesided = std::nullopt, std::optional<bool> return_complex = std::nullopt) const;
  Tensor istft(int64_t n_fft, std::optional<int64_t> hop_length = std::nullopt,
               std::optional<int64_t> win_length = std::nullopt, const std::optional<Tensor>& window = {},
               bool center = true, bool normalized = false, std::optional<bool> onesided = std::nullopt,
               std::optional<int64_t> length = std::nullopt, bool return_complex = false) const;

 private:
  // Every accessor of the impl checks that there is one: an op given an undefined tensor
  // (`torch::Tensor t; t.sum()`) throws instead of dereferencing null. Ops name themselves
  // in their own checks (check_defined); this is the net under all of them.
  TensorImpl* checked_impl(const char* accessor) const {
    if (EMBER_UNLIKELY(!impl_.defined())) undefined_tensor_error(accessor);
    return impl_.get();
  }
  [[noreturn]] static void undefined_tensor_error(const char* accessor);

  intrusive_ptr<TensorImpl> impl_;
};

// Throws "<op>: expected a defined tensor for argument '<arg>' ..." when t is undefined.
inline void check_defined(const Tensor& t, const char* op, const char* arg = "self") {
  if (EMBER_UNLIKELY(!t.defined())) throw_undefined_argument(op, arg);
}

// ---- operators ---------------------------------------------------------------
Tensor operator-(const Tensor& a);
Tensor operator~(const Tensor& a);
#define EMBER_DECLARE_OPERATOR(op)                                  \
  Tensor operator op(const Tensor& a, const Tensor& b);             \
  Tensor operator op(const Tensor& a, const Scalar& b);             \
  Tensor operator op(const Scalar& a, const Tensor& b);
EMBER_DECLARE_OPERATOR(+) EMBER_DECLARE_OPERATOR(-) EMBER_DECLARE_OPERATOR(*)
EMBER_DECLARE_OPERATOR(/) EMBER_DECLARE_OPERATOR(%) EMBER_DECLARE_OPERATOR(&)
EMBER_DECLARE_OPERATOR(|) EMBER_DECLARE_OPERATOR(^) EMBER_DECLARE_OPERATOR(<<)
EMBER_DECLARE_OPERATOR(>>) EMBER_DECLARE_OPERATOR(==) EMBER_DECLARE_OPERATOR(!=)
EMBER_DECLARE_OPERATOR(<) EMBER_DECLARE_OPERATOR(<=) EMBER_DECLARE_OPERATOR(>)
EMBER_DECLARE_OPERATOR(>=)
#undef EMBER_DECLARE_OPERATOR
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Scalar& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Scalar& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Scalar& b);

std::ostream& operator<<(std::ostream& os, const Tensor& t);
// LibTorch's torch::print: the tensor as operator<< prints it, wrapping rows at linesize
// characters; the one-argument form writes to std::cout.
std::ostream& print(std::ostream& stream, const Tensor& t, int64_t linesize);
void print(const Tensor& t, int64_t linesize = 80);

// ---- typed data access --------------------------------------------------------
void check_data_ptr_type(const Tensor& t, ScalarType requested);
template <class T>
T* Tensor::data_ptr() const {
  check_data_ptr_type(*this, scalar_type_of<std::remove_cv_t<T>>);
  return static_cast<T*>(checked_impl("data_ptr")->data());
}

// TensorAccessor<T, N>: `a[i][j]` element access with strides, as in LibTorch.
template <class T, size_t N>
class TensorAccessor {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(data_ + strides_[0] * i, sizes_ + 1, strides_ + 1);
  }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  IntArrayRef sizes() const { return {sizes_, N}; }
  IntArrayRef strides() const { return {strides_, N}; }
  T* data() const { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};
template <class T>
class TensorAccessor<T, 1> {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  T& operator[](int64_t i) const { return data_[strides_[0] * i]; }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  T* data() const { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

template <class T, size_t N>
TensorAccessor<T, N> Tensor::accessor() const& {
  EMBER_CHECK(size_t(dim()) == N, "accessor: expected a ", N, "-dim tensor, got ", dim(), " dims");
  return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
}

}  // namespace ember
