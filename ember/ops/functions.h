// The free-function API of the tensor ops (LibTorch's torch::/at:: functions). Each op is
// defined once in the op table; Tensor's methods forward here.
#pragma once
#include <functional>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"
#include "ember/ops/pointwise_table.h"

namespace ember {

using OptGen = std::optional<Generator>;

// ---- factories ---------------------------------------------------------------
// torch.set_default_device / torch.get_default_device: where the factories (empty, zeros,
// ones, full, arange, linspace, logspace, eye, the random factories) put a tensor whose
// options name no device; initially the CPU. Per thread (a library's worker threads keep
// their own default), unlike PyTorch's process-wide setting. A model built with the meta
// device as default has parameters without memory (FSDP materializes them unit by unit).
void set_default_device(Device device);
Device get_default_device();

Tensor empty(IntArrayRef size, const TensorOptions& options = {},
             std::optional<MemoryFormat> memory_format = std::nullopt);
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options = {});
Tensor zeros(IntArrayRef size, const TensorOptions& options = {});
Tensor ones(IntArrayRef size, const TensorOptions& options = {});
Tensor full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& options = {});
Tensor arange(const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& options = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& options = {});
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0,
                const TensorOptions& options = {});
Tensor eye(int64_t n, const TensorOptions& options = {});
Tensor eye(int64_t n, int64_t m, const TensorOptions& options = {});
Tensor empty_like(const Tensor& t, const TensorOptions& options = {},
                  std::optional<MemoryFormat> memory_format = std::nullopt);
Tensor zeros_like(const Tensor& t, const TensorOptions& options = {},
                  std::optional<MemoryFormat> memory_format = std::nullopt);
Tensor ones_like(const Tensor& t, const TensorOptions& options = {},
                 std::optional<MemoryFormat> memory_format = std::nullopt);
Tensor full_like(const Tensor& t, const Scalar& fill_value, const TensorOptions& options = {},
                 std::optional<MemoryFormat> memory_format = std::nullopt);
Tensor rand_like(const Tensor& t, const TensorOptions& options = {});
Tensor randn_like(const Tensor& t, const TensorOptions& options = {});
Tensor randint_like(const Tensor& t, int64_t high, const TensorOptions& options = {});
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& options = {});
using Deleter = std::function<void(void*)>;
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, const Deleter& deleter, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const Deleter& deleter,
                 const TensorOptions& options = {});
Tensor rand(IntArrayRef size, const TensorOptions& options = {});
Tensor rand(IntArrayRef size, OptGen generator, const TensorOptions& options = {});
Tensor randn(IntArrayRef size, const TensorOptions& options = {});
Tensor randn(IntArrayRef size, OptGen generator, const TensorOptions& options = {});
Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& options = {});
Tensor randint(int64_t high, IntArrayRef size, OptGen generator, const TensorOptions& options = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& options = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef size, OptGen generator, const TensorOptions& options = {});
Tensor randperm(int64_t n, const TensorOptions& options = {});
Tensor randperm(int64_t n, OptGen generator, const TensorOptions& options = {});
Tensor normal(double mean, double std, IntArrayRef size, OptGen generator = std::nullopt,
              const TensorOptions& options = {});
Tensor normal(const Tensor& mean, const Tensor& std, OptGen generator = std::nullopt);
Tensor normal(const Tensor& mean, double std = 1, OptGen generator = std::nullopt);
Tensor normal(double mean, const Tensor& std, OptGen generator = std::nullopt);
Tensor bernoulli(const Tensor& p, OptGen generator = std::nullopt);
Tensor bernoulli(const Tensor& self, double p, OptGen generator = std::nullopt);
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = false,
                   OptGen generator = std::nullopt);
// In-place random fills (the Tensor methods of the same names), drawing PyTorch's CPU stream.
Tensor& uniform_(Tensor& self, double from = 0, double to = 1, OptGen generator = std::nullopt);
Tensor& normal_(Tensor& self, double mean = 0, double std = 1, OptGen generator = std::nullopt);
Tensor& log_normal_(Tensor& self, double mean = 1, double std = 2, OptGen generator = std::nullopt);
Tensor& bernoulli_(Tensor& self, double p = 0.5, OptGen generator = std::nullopt);
Tensor& bernoulli_(Tensor& self, const Tensor& p, OptGen generator = std::nullopt);
Tensor& random_(Tensor& self, int64_t from, std::optional<int64_t> to, OptGen generator = std::nullopt);
Tensor& exponential_(Tensor& self, double lambd = 1, OptGen generator = std::nullopt);
Tensor& cauchy_(Tensor& self, double median = 0, double sigma = 1, OptGen generator = std::nullopt);
Tensor& geometric_(Tensor& self, double p, OptGen generator = std::nullopt);

// ---- conversion and copies ---------------------------------------------------
Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format = std::nullopt);
Tensor& copy_(Tensor& self, const Tensor& src, bool non_blocking = false);
Tensor& fill_(Tensor& self, const Scalar& v);
Tensor& zero_(Tensor& self);
Tensor contiguous(const Tensor& self, MemoryFormat f = MemoryFormat::Contiguous);
Tensor _to_copy(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device,
                std::optional<MemoryFormat> memory_format);
const Tensor& resize_(const Tensor& self, IntArrayRef size, std::optional<MemoryFormat> f = std::nullopt);
Tensor detach(const Tensor& self);
Tensor alias(const Tensor& self);

// ---- views -------------------------------------------------------------------
Tensor view(const Tensor& self, IntArrayRef size);
Tensor reshape(const Tensor& self, IntArrayRef size);
Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes);
Tensor squeeze(const Tensor& self);
Tensor squeeze(const Tensor& self, int64_t dim);
Tensor unsqueeze(const Tensor& self, int64_t dim);
Tensor permute(const Tensor& self, IntArrayRef dims);
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1);
Tensor t(const Tensor& self);
Tensor expand(const Tensor& self, IntArrayRef size, bool implicit = false);
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& self, int64_t dim, int64_t index);
Tensor slice(const Tensor& self, int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
             std::optional<int64_t> end = std::nullopt, int64_t step = 1);
Tensor unfold(const Tensor& self, int64_t dim, int64_t size, int64_t step);
Tensor diagonal(const Tensor& self, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                  std::optional<int64_t> storage_offset = std::nullopt);
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& self, int64_t dim = 0);
Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination);
Tensor movedim(const Tensor& self, int64_t source, int64_t destination);
Tensor view_as_real(const Tensor& self);
Tensor view_as_complex(const Tensor& self);
Tensor real(const Tensor& self);
Tensor imag(const Tensor& self);
std::vector<Tensor> broadcast_tensors(TensorList tensors);
Tensor broadcast_to(const Tensor& self, IntArrayRef size);
std::vector<int64_t> broadcast_shapes(IntArrayRef a, IntArrayRef b);

// ---- pointwise ---------------------------------------------------------------
// The unary functions written from the op table's api column (ember/ops/pointwise_table.h).
#define EMBER_PW_FN(name, op)                               \
  Tensor name(const Tensor& self);                          \
  Tensor& name##_(Tensor& self);                            \
  Tensor& name##_out(Tensor& out, const Tensor& self);
EMBER_FOR_EACH_UNARY_FN()
EMBER_PW_FN(square, square) EMBER_PW_FN(relu6, hardtanh)
#undef EMBER_PW_FN
Tensor positive(const Tensor& self);
Tensor round(const Tensor& self, int64_t decimals = 0);
Tensor& round_(Tensor& self, int64_t decimals = 0);
Tensor angle(const Tensor& self);
Tensor isnan(const Tensor& self);
Tensor isinf(const Tensor& self);
Tensor isposinf(const Tensor& self);
Tensor isneginf(const Tensor& self);
Tensor isfinite(const Tensor& self);
Tensor isreal(const Tensor& self);
Tensor signbit(const Tensor& self);
Tensor conj(const Tensor& self);
Tensor conj_physical(const Tensor& self);
Tensor nan_to_num(const Tensor& self, std::optional<double> nan = std::nullopt,
                  std::optional<double> posinf = std::nullopt, std::optional<double> neginf = std::nullopt);
Tensor& nan_to_num_(Tensor& self, std::optional<double> nan = std::nullopt,
                    std::optional<double> posinf = std::nullopt, std::optional<double> neginf = std::nullopt);
Tensor logit(const Tensor& self, std::optional<double> eps = std::nullopt);
Tensor& logit_(Tensor& self, std::optional<double> eps = std::nullopt);
Tensor gelu(const Tensor& self, std::string_view approximate = "none");
Tensor& gelu_(Tensor& self, std::string_view approximate = "none");
Tensor softplus(const Tensor& self, const Scalar& beta = 1, const Scalar& threshold = 20);
Tensor hardtanh(const Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1);
Tensor& hardtanh_(Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1);
Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope = 0.01);
Tensor& leaky_relu_(Tensor& self, const Scalar& negative_slope = 0.01);
Tensor elu(const Tensor& self, const Scalar& alpha = 1, const Scalar& scale = 1, const Scalar& input_scale = 1);
Tensor& elu_(Tensor& self, const Scalar& alpha = 1, const Scalar& scale = 1, const Scalar& input_scale = 1);
Tensor celu(const Tensor& self, const Scalar& alpha = 1);
Tensor softshrink(const Tensor& self, const Scalar& lambd = 0.5);
Tensor hardshrink(const Tensor& self, const Scalar& lambd = 0.5);
Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value);
Tensor clamp(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max = std::nullopt);
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max = {});
Tensor& clamp_(Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max = std::nullopt);
Tensor& clamp_(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max = {});
Tensor clamp_min(const Tensor& self, const Scalar& min);
Tensor clamp_max(const Tensor& self, const Scalar& max);
Tensor clamp_min(const Tensor& self, const Tensor& min);
Tensor clamp_max(const Tensor& self, const Tensor& max);
Tensor clip(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max = std::nullopt);
Tensor polar(const Tensor& abs, const Tensor& angle);
Tensor complex(const Tensor& real, const Tensor& imag);

#define EMBER_BINARY_FN(name)                                                  \
  Tensor name(const Tensor& self, const Tensor& other);                        \
  Tensor name(const Tensor& self, const Scalar& other);                        \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other);
EMBER_BINARY_FN(mul) EMBER_BINARY_FN(multiply) EMBER_BINARY_FN(remainder) EMBER_BINARY_FN(fmod)
EMBER_BINARY_FN(floor_divide) EMBER_BINARY_FN(pow) EMBER_BINARY_FN(float_power)
EMBER_BINARY_FN(true_divide) EMBER_BINARY_FN(eq) EMBER_BINARY_FN(ne) EMBER_BINARY_FN(lt)
EMBER_BINARY_FN(le) EMBER_BINARY_FN(gt) EMBER_BINARY_FN(ge) EMBER_BINARY_FN(less)
EMBER_BINARY_FN(greater) EMBER_BINARY_FN(less_equal) EMBER_BINARY_FN(greater_equal)
EMBER_BINARY_FN(not_equal) EMBER_BINARY_FN(logical_and) EMBER_BINARY_FN(logical_or)
EMBER_BINARY_FN(logical_xor) EMBER_BINARY_FN(bitwise_and) EMBER_BINARY_FN(bitwise_or)
EMBER_BINARY_FN(bitwise_xor) EMBER_BINARY_FN(bitwise_left_shift) EMBER_BINARY_FN(bitwise_right_shift)
EMBER_BINARY_FN(xlogy)
#undef EMBER_BINARY_FN
Tensor remainder(const Scalar& self, const Tensor& other);
Tensor xlogy(const Scalar& self, const Tensor& other);
Tensor copysign(const Tensor& self, const Scalar& other);
Tensor pow(const Scalar& self, const Tensor& exponent);
Tensor float_power(const Scalar& self, const Tensor& exponent);
#define EMBER_BINARY_TENSOR_FN(name)                          \
  Tensor name(const Tensor& self, const Tensor& other);       \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other);
EMBER_BINARY_TENSOR_FN(atan2) EMBER_BINARY_TENSOR_FN(arctan2) EMBER_BINARY_TENSOR_FN(hypot)
EMBER_BINARY_TENSOR_FN(maximum) EMBER_BINARY_TENSOR_FN(minimum) EMBER_BINARY_TENSOR_FN(fmax)
EMBER_BINARY_TENSOR_FN(fmin) EMBER_BINARY_TENSOR_FN(copysign) EMBER_BINARY_TENSOR_FN(nextafter)
#undef EMBER_BINARY_TENSOR_FN
Tensor max(const Tensor& self, const Tensor& other);
Tensor min(const Tensor& self, const Tensor& other);
Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor& add_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor& sub_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor subtract(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor div(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode = std::nullopt);
Tensor div(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode = std::nullopt);
Tensor& div_out(Tensor& out, const Tensor& self, const Tensor& other,
                std::optional<std::string_view> rounding_mode = std::nullopt);
Tensor divide(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode = std::nullopt);
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight);
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight);
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);
Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other);
Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other);
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other);
std::vector<Tensor> where(const Tensor& condition);
Tensor isclose(const Tensor& self, const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
               bool equal_nan = false);
bool allclose(const Tensor& self, const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
              bool equal_nan = false);
bool equal(const Tensor& self, const Tensor& other);

// ---- reductions ----------------------------------------------------------------
Tensor sum(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor sum(const Tensor& self, OptionalIntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor nansum(const Tensor& self, OptionalIntArrayRef dim = std::nullopt, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& self, OptionalIntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor nanmean(const Tensor& self, OptionalIntArrayRef dim = std::nullopt, bool keepdim = false,
               std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& self, int64_t dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor amax(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
Tensor amin(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
Tensor max(const Tensor& self);
Tensor min(const Tensor& self);
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false);
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim = false);
std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor var(const Tensor& self, bool unbiased = true);
Tensor var(const Tensor& self, OptionalIntArrayRef dim, bool unbiased = true, bool keepdim = false);
Tensor var(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim = false);
Tensor std(const Tensor& self, bool unbiased = true);
Tensor std(const Tensor& self, OptionalIntArrayRef dim, bool unbiased = true, bool keepdim = false);
Tensor std(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim = false);
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, bool unbiased = true);
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, OptionalIntArrayRef dim, bool unbiased = true, bool keepdim = false);
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, bool unbiased = true);
// var(t, 1), std(t, 1), var_mean(t, 1), std_mean(t, 1): over dim 1, as LibTorch's overloads.
Tensor var(const Tensor& self, int dim);
Tensor std(const Tensor& self, int dim);
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, int dim);
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, int dim);
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, OptionalIntArrayRef dim, bool unbiased = true, bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim = false);
Tensor norm(const Tensor& self, const std::optional<Scalar>& p = 2);
Tensor norm(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim = false);
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim = false);
Tensor all(const Tensor& self);
Tensor all(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor any(const Tensor& self);
Tensor any(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim = std::nullopt);
Tensor count_nonzero(const Tensor& self, IntArrayRef dim);
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim);
Tensor logcumsumexp(const Tensor& self, int64_t dim);
Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor median(const Tensor& self);
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor nanmedian(const Tensor& self);
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim = false);
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim = -1, bool keepdim = false);
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                std::string_view interpolation = "linear");
Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, std::string_view interpolation = "linear");
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                   std::string_view interpolation = "linear");
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, std::string_view interpolation = "linear");
// out= variants of the reductions (sum/nansum/mean/prod compute in out's dtype unless dtype is given).
Tensor& sum_out(Tensor& out, const Tensor& self, OptionalIntArrayRef dim, bool keepdim = false,
                std::optional<ScalarType> dtype = std::nullopt);
Tensor& nansum_out(Tensor& out, const Tensor& self, OptionalIntArrayRef dim = std::nullopt, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
Tensor& mean_out(Tensor& out, const Tensor& self, OptionalIntArrayRef dim, bool keepdim = false,
                 std::optional<ScalarType> dtype = std::nullopt);
Tensor& prod_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false,
                 std::optional<ScalarType> dtype = std::nullopt);
Tensor& amax_out(Tensor& out, const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
Tensor& amin_out(Tensor& out, const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
std::tuple<Tensor&, Tensor&> max_out(Tensor& max, Tensor& max_values, const Tensor& self, int64_t dim, bool keepdim = false);
std::tuple<Tensor&, Tensor&> min_out(Tensor& min, Tensor& min_indices, const Tensor& self, int64_t dim, bool keepdim = false);
Tensor& argmax_out(Tensor& out, const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor& argmin_out(Tensor& out, const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor& all_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false);
Tensor& any_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false);
Tensor& var_out(Tensor& out, const Tensor& self, OptionalIntArrayRef dim, bool unbiased = true, bool keepdim = false);
Tensor& std_out(Tensor& out, const Tensor& self, OptionalIntArrayRef dim, bool unbiased = true, bool keepdim = false);
Tensor& norm_out(Tensor& out, const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim = false);
Tensor& logsumexp_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim = false);
Tensor& cumsum_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor& cumprod_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor& softmax_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor& log_softmax_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
namespace linalg {
Tensor& vector_norm_out(Tensor& out, const Tensor& x, const Scalar& ord = 2, OptionalIntArrayRef dim = std::nullopt,
                        bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
}  // namespace linalg

// ---- linear algebra ------------------------------------------------------------
Tensor matmul(const Tensor& self, const Tensor& other);
Tensor mm(const Tensor& self, const Tensor& mat2);
Tensor bmm(const Tensor& self, const Tensor& mat2);
Tensor mv(const Tensor& self, const Tensor& vec);
Tensor dot(const Tensor& self, const Tensor& other);
Tensor vdot(const Tensor& self, const Tensor& other);
Tensor outer(const Tensor& self, const Tensor& vec2);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor addbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor baddbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor addr(const Tensor& self, const Tensor& v1, const Tensor& v2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor& mm_out(Tensor& out, const Tensor& self, const Tensor& mat2);
Tensor& bmm_out(Tensor& out, const Tensor& self, const Tensor& mat2);
Tensor& mv_out(Tensor& out, const Tensor& self, const Tensor& vec);
Tensor& addmm_out(Tensor& out, const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor& baddbmm_out(Tensor& out, const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor& addbmm_out(Tensor& out, const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor& addmv_out(Tensor& out, const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor& matmul_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor einsum(std::string_view equation, TensorList tensors);
Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b);
Tensor kron(const Tensor& self, const Tensor& other);
Tensor inverse(const Tensor& self);
Tensor det(const Tensor& self);
Tensor trace(const Tensor& self);
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim = std::nullopt);
Tensor cholesky(const Tensor& self, bool upper = false);
namespace linalg {
Tensor inv(const Tensor& A);
Tensor solve(const Tensor& A, const Tensor& B, bool left = true);
Tensor det(const Tensor& A);
std::tuple<Tensor, Tensor> slogdet(const Tensor& A);
Tensor cholesky(const Tensor& A, bool upper = false);
std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode = "reduced");
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices = true);
Tensor svdvals(const Tensor& A);
Tensor svdvals(const Tensor& A, std::optional<std::string_view> driver);  // driver: CUDA-only in PyTorch
std::tuple<Tensor, Tensor> eigh(const Tensor& A, std::string_view uplo = "L");
Tensor eigvalsh(const Tensor& A, std::string_view uplo = "L");
Tensor vector_norm(const Tensor& x, const Scalar& ord = 2, OptionalIntArrayRef dim = std::nullopt,
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor matrix_norm(const Tensor& A, const Scalar& ord, IntArrayRef dim = {-2, -1}, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor matrix_norm(const Tensor& A, std::string_view ord = "fro", IntArrayRef dim = {-2, -1}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
// A string literal ord ("fro", "nuc") picks this one rather than converting to Scalar.
Tensor matrix_norm(const Tensor& A, const char* ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
Tensor norm(const Tensor& A, const std::optional<Scalar>& ord = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
            bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor cross(const Tensor& a, const Tensor& b, int64_t dim = -1);
}  // namespace linalg

// ---- indexing, sorting, shape ----------------------------------------------------
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad = false);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self = true);
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
Tensor masked_select(const Tensor& self, const Tensor& mask);
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
Tensor take(const Tensor& self, const Tensor& index);
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);
Tensor nonzero(const Tensor& self);
std::vector<Tensor> nonzero_numpy(const Tensor& self);
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1, bool descending = false);
std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim = -1, bool descending = false);
Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false);
Tensor argsort(const Tensor& self, bool stable, int64_t dim = -1, bool descending = false);
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true);
std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim = -1, bool keepdim = false);
// unique: returns (values, inverse, counts); inverse/counts are empty unless requested.
std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool sorted = true, bool return_inverse = false,
                                            bool return_counts = false);
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool sorted = true,
                                              bool return_inverse = false, bool return_counts = false);
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = std::nullopt, const std::optional<Tensor>& sorter = {});
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = std::nullopt, const std::optional<Tensor>& sorter = {});
Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32 = false, bool right = false);
Tensor tril(const Tensor& self, int64_t diagonal = 0);
Tensor triu(const Tensor& self, int64_t diagonal = 0);
Tensor cat(TensorList tensors, int64_t dim = 0);
Tensor concat(TensorList tensors, int64_t dim = 0);
Tensor stack(TensorList tensors, int64_t dim = 0);
Tensor hstack(TensorList tensors);
Tensor vstack(TensorList tensors);
Tensor dstack(TensorList tensors);
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim = std::nullopt);
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim = std::nullopt);
Tensor repeat_interleave(const Tensor& repeats);
Tensor tile(const Tensor& self, IntArrayRef dims);
Tensor flip(const Tensor& self, IntArrayRef dims);
Tensor fliplr(const Tensor& self);
Tensor flipud(const Tensor& self);
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {});
Tensor rot90(const Tensor& self, int64_t k = 1, IntArrayRef dims = {0, 1});
std::vector<Tensor> meshgrid(TensorList tensors, std::string_view indexing = "ij");
Tensor cartesian_prod(TensorList tensors);
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights = {}, int64_t minlength = 0);
Tensor histc(const Tensor& self, int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0);
Tensor diff(const Tensor& self, int64_t n = 1, int64_t dim = -1, const std::optional<Tensor>& prepend = {},
            const std::optional<Tensor>& append = {});
Tensor diag(const Tensor& self, int64_t diagonal = 0);
Tensor diag_embed(const Tensor& self, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor diagflat(const Tensor& self, int64_t offset = 0);
Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value = 0);
// torch.nn.functional.pad: mode "constant", "reflect", "replicate" or "circular".
Tensor pad(const Tensor& self, IntArrayRef pad, std::string_view mode = "constant", std::optional<double> value = std::nullopt);
Tensor one_hot(const Tensor& self, int64_t num_classes = -1);
// unique without counts: (values, inverse); inverse is empty unless requested.
std::tuple<Tensor, Tensor> _unique(const Tensor& self, bool sorted = true, bool return_inverse = false);
// out= variants: out is resized to the result's shape when it differs; the result's dtype
// must be castable to out's (indices outputs must be Long).
Tensor& cat_out(Tensor& out, TensorList tensors, int64_t dim = 0);
Tensor& stack_out(Tensor& out, TensorList tensors, int64_t dim = 0);
Tensor& index_select_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
Tensor& gather_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad = false);
Tensor& masked_select_out(Tensor& out, const Tensor& self, const Tensor& mask);
Tensor& take_out(Tensor& out, const Tensor& self, const Tensor& index);
Tensor& nonzero_out(Tensor& out, const Tensor& self);
Tensor& where_out(Tensor& out, const Tensor& condition, const Tensor& self, const Tensor& other);
Tensor& tril_out(Tensor& out, const Tensor& self, int64_t diagonal = 0);
Tensor& triu_out(Tensor& out, const Tensor& self, int64_t diagonal = 0);
std::tuple<Tensor&, Tensor&> sort_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t dim = -1,
                                      bool descending = false);
std::tuple<Tensor&, Tensor&> topk_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t k, int64_t dim = -1,
                                      bool largest = true, bool sorted = true);
Tensor& searchsorted_out(Tensor& out, const Tensor& sorted_sequence, const Tensor& self, bool out_int32 = false,
                         bool right = false, std::optional<std::string_view> side = std::nullopt,
                         const std::optional<Tensor>& sorter = {});


// ---- compositions (ops/math_composites.cpp, shape_composites.cpp, linalg_composites.cpp,
// stft.cpp): LibTorch functions ember writes with its other ops --------------------------------
Tensor logaddexp(const Tensor& self, const Tensor& other);
Tensor logaddexp2(const Tensor& self, const Tensor& other);
Tensor ldexp(const Tensor& self, const Tensor& other);
Tensor& ldexp_(Tensor& self, const Tensor& other);
Tensor heaviside(const Tensor& self, const Tensor& values);
Tensor& heaviside_(Tensor& self, const Tensor& values);
Tensor gcd(const Tensor& self, const Tensor& other);
Tensor& gcd_(Tensor& self, const Tensor& other);
Tensor lcm(const Tensor& self, const Tensor& other);
Tensor& lcm_(Tensor& self, const Tensor& other);
std::tuple<Tensor, Tensor> frexp(const Tensor& self);
Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p = 2);
Tensor inner(const Tensor& self, const Tensor& other);
Tensor prelu(const Tensor& input, const Tensor& weight);
Tensor renorm(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm);
Tensor& renorm_(Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm);
Tensor cov(const Tensor& self, int64_t correction = 1, const std::optional<Tensor>& fweights = {},
           const std::optional<Tensor>& aweights = {});
Tensor corrcoef(const Tensor& self);
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);
Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapz(const Tensor& y, double dx = 1, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);
Tensor vander(const Tensor& x, std::optional<int64_t> N = std::nullopt, bool increasing = false);
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2, std::optional<int64_t> compute_mode = std::nullopt);
Tensor pdist(const Tensor& self, double p = 2);
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique = false, bool invert = false);
Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique = false, bool invert = false);
Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique = false, bool invert = false);

Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
                     std::optional<int64_t> end = std::nullopt, int64_t step = 1);
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index);
Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim = std::nullopt);
Tensor sum_to_size(const Tensor& self, IntArrayRef size);
Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length);
Tensor ravel(const Tensor& self);
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> unsafe_chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> unsafe_split(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> unsafe_split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0);
Tensor atleast_1d(const Tensor& self);
Tensor atleast_2d(const Tensor& self);
Tensor atleast_3d(const Tensor& self);
std::vector<Tensor> atleast_1d(TensorList tensors);
std::vector<Tensor> atleast_2d(TensorList tensors);
std::vector<Tensor> atleast_3d(TensorList tensors);
Tensor block_diag(TensorList tensors);
Tensor combinations(const Tensor& self, int64_t r = 2, bool with_replacement = false);
Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0, const TensorOptions& options = {});
Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0, const TensorOptions& options = {});
Tensor argwhere(const Tensor& self);
Tensor msort(const Tensor& self);

Tensor logdet(const Tensor& self);
Tensor matrix_power(const Tensor& self, int64_t n);
Tensor matrix_exp(const Tensor& self);
Tensor pinverse(const Tensor& self, double rcond = 1e-15);
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& self, bool some = true, bool compute_uv = true);
std::tuple<Tensor, Tensor> qr(const Tensor& self, bool some = true);
std::tuple<Tensor, Tensor> triangular_solve(const Tensor& self, const Tensor& A, bool upper = true,
                                            bool transpose = false, bool unitriangular = false);
Tensor cholesky_solve(const Tensor& self, const Tensor& input2, bool upper = false);
Tensor cholesky_inverse(const Tensor& self, bool upper = false);
namespace linalg {
Tensor matrix_power(const Tensor& A, int64_t n);
Tensor matrix_exp(const Tensor& A);
Tensor pinv(const Tensor& A, double rcond = 1e-15, bool hermitian = false);
Tensor pinv(const Tensor& A, const std::optional<double>& atol, const std::optional<double>& rtol,
            bool hermitian = false);
Tensor matrix_rank(const Tensor& A, const std::optional<double>& atol = std::nullopt,
                   const std::optional<double>& rtol = std::nullopt, bool hermitian = false);
Tensor matrix_rank(const Tensor& A, double tol, bool hermitian = false);
Tensor multi_dot(TensorList tensors);
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true, bool unitriangular = false);
std::tuple<Tensor, Tensor> solve_ex(const Tensor& A, const Tensor& B, bool left = true, bool check_errors = false);
std::tuple<Tensor, Tensor> inv_ex(const Tensor& A, bool check_errors = false);
std::tuple<Tensor, Tensor> cholesky_ex(const Tensor& A, bool upper = false, bool check_errors = false);
Tensor tensorinv(const Tensor& A, int64_t ind = 2);
Tensor tensorsolve(const Tensor& A, const Tensor& B, OptionalIntArrayRef dims = std::nullopt);
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices, std::optional<std::string_view> driver);
Tensor linalg_det(const Tensor& A);
}  // namespace linalg
// LU (ops/linalg_lu.cpp) and least squares (ops/linalg_lstsq.cpp).
namespace linalg {
std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& A, bool pivot = true);
std::tuple<Tensor, Tensor> lu_factor(const Tensor& A, bool pivot = true);
std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& A, bool pivot = true, bool check_errors = false);
Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true, bool adjoint = false);
std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& A, const Tensor& B,
                                                 std::optional<double> rcond = std::nullopt,
                                                 std::optional<std::string_view> driver = std::nullopt);
}  // namespace linalg
// Eigendecomposition of general square matrices and products of Householder reflectors
// (ops/linalg_eig.cpp). Eigenvalues and eigenvectors are complex whatever the input.
namespace linalg {
std::tuple<Tensor, Tensor> eig(const Tensor& A);
Tensor eigvals(const Tensor& A);
Tensor householder_product(const Tensor& A, const Tensor& tau);
// Bunch-Kaufman LDL factorization of symmetric (or, with hermitian, Hermitian) matrices and its
// solve (ops/linalg_ldl.cpp); LAPACK's compact LD and 1-based pivots; not differentiable.
std::tuple<Tensor, Tensor, Tensor> ldl_factor_ex(const Tensor& A, bool hermitian = false, bool check_errors = false);
std::tuple<Tensor, Tensor> ldl_factor(const Tensor& A, bool hermitian = false);
Tensor ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian = false);
}  // namespace linalg
// LAPACK's QR factorization as stored by geqrf: R on and above the diagonal, the Householder
// vectors below it, and their scalars tau (not differentiable, as in PyTorch).
std::tuple<Tensor, Tensor> geqrf(const Tensor& self);
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU_data, const Tensor& LU_pivots, bool unpack_data = true,
                                             bool unpack_pivots = true);
Tensor lu_solve(const Tensor& self, const Tensor& LU_data, const Tensor& LU_pivots);  // deprecated in PyTorch
// ATen's spellings (torch::linalg_lu_factor, ...).
inline std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot = true) { return linalg::lu(A, pivot); }
inline std::tuple<Tensor, Tensor> linalg_eig(const Tensor& A) { return linalg::eig(A); }
inline Tensor linalg_eigvals(const Tensor& A) { return linalg::eigvals(A); }
inline std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view uplo = "L") {
  return linalg::eigh(A, uplo);
}
inline Tensor linalg_eigvalsh(const Tensor& A, std::string_view uplo = "L") { return linalg::eigvalsh(A, uplo); }
inline Tensor linalg_householder_product(const Tensor& A, const Tensor& tau) {
  return linalg::householder_product(A, tau);
}
inline Tensor orgqr(const Tensor& self, const Tensor& input2) { return linalg::householder_product(self, input2); }
inline Tensor linalg_det(const Tensor& A) { return linalg::det(A); }
inline std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& A, bool hermitian = false,
                                                               bool check_errors = false) {
  return linalg::ldl_factor_ex(A, hermitian, check_errors);
}
inline std::tuple<Tensor, Tensor> linalg_ldl_factor(const Tensor& A, bool hermitian = false) {
  return linalg::ldl_factor(A, hermitian);
}
inline Tensor linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian = false) {
  return linalg::ldl_solve(LD, pivots, B, hermitian);
}
inline Tensor linalg_inv(const Tensor& A) { return linalg::inv(A); }
inline std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors = false) {
  return linalg::inv_ex(A, check_errors);
}
inline Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left = true) { return linalg::solve(A, B, left); }
inline std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left = true,
                                                  bool check_errors = false) {
  return linalg::solve_ex(A, B, left, check_errors);
}
inline Tensor linalg_cholesky(const Tensor& A, bool upper = false) { return linalg::cholesky(A, upper); }
inline std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper = false, bool check_errors = false) {
  return linalg::cholesky_ex(A, upper, check_errors);
}
inline std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) { return linalg::slogdet(A); }
inline std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode = "reduced") {
  return linalg::qr(A, mode);
}
inline std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices = true,
                                                     std::optional<std::string_view> driver = std::nullopt) {
  return linalg::svd(A, full_matrices, driver);
}
inline Tensor linalg_svdvals(const Tensor& A, std::optional<std::string_view> driver = std::nullopt) {
  return linalg::svdvals(A, driver);
}
inline Tensor linalg_matrix_exp(const Tensor& A) { return linalg::matrix_exp(A); }
inline Tensor linalg_matrix_power(const Tensor& A, int64_t n) { return linalg::matrix_power(A, n); }
inline Tensor linalg_multi_dot(TensorList tensors) { return linalg::multi_dot(tensors); }
inline Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true,
                                      bool unitriangular = false) {
  return linalg::solve_triangular(A, B, upper, left, unitriangular);
}
inline Tensor linalg_tensorinv(const Tensor& A, int64_t ind = 2) { return linalg::tensorinv(A, ind); }
inline Tensor linalg_tensorsolve(const Tensor& A, const Tensor& B, OptionalIntArrayRef dims = std::nullopt) {
  return linalg::tensorsolve(A, B, dims);
}
inline std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot = true) {
  return linalg::lu_factor(A, pivot);
}
inline std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot = true,
                                                              bool check_errors = false) {
  return linalg::lu_factor_ex(A, pivot, check_errors);
}
inline Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true,
                              bool adjoint = false) {
  return linalg::lu_solve(LU, pivots, B, left, adjoint);
}
inline std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq(const Tensor& A, const Tensor& B,
                                                               std::optional<double> rcond = std::nullopt,
                                                               std::optional<std::string_view> driver = std::nullopt) {
  return linalg::lstsq(A, B, rcond, driver);
}
inline Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim = -1) { return linalg::cross(a, b, dim); }

// Window functions (ops/windows.cpp); `periodic` (the default) suits stft.
Tensor hann_window(int64_t window_length, const TensorOptions& options = {});
Tensor hann_window(int64_t window_length, bool periodic, const TensorOptions& options = {});
Tensor hamming_window(int64_t window_length, const TensorOptions& options = {});
Tensor hamming_window(int64_t window_length, bool periodic, const TensorOptions& options = {});
Tensor hamming_window(int64_t window_length, bool periodic, double alpha, const TensorOptions& options = {});
Tensor hamming_window(int64_t window_length, bool periodic, double alpha, double beta,
                      const TensorOptions& options = {});
Tensor blackman_window(int64_t window_length, const TensorOptions& options = {});
Tensor blackman_window(int64_t window_length, bool periodic, const TensorOptions& options = {});
Tensor bartlett_window(int64_t window_length, const TensorOptions& options = {});
Tensor bartlett_window(int64_t window_length, bool periodic, const TensorOptions& options = {});
Tensor kaiser_window(int64_t window_length, const TensorOptions& options = {});
Tensor kaiser_window(int64_t window_length, bool periodic, const TensorOptions& options = {});
Tensor kaiser_window(int64_t window_length, bool periodic, double beta, const TensorOptions& options = {});

// torch::stft / torch::istft (LibTorch's two stft overloads: with and without `center`).
Tensor stft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length, std::optional<int64_t> win_length,
            const std::optional<Tensor>& window, bool normalized, std::optional<bool> onesided = std::nullopt,
            std::optional<bool> return_complex = std::nullopt);
Tensor stft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length = std::nullopt,
            std::optional<int64_t> win_length = std::nullopt, const std::optional<Tensor>& window = {},
            bool center = true, std::string_view pad_mode = "reflect", bool normalized = false,
            std::optional<bool> onesided = std::nullopt, std::optional<bool> return_complex = std::nullopt);
Tensor istft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length = std::nullopt,
             std::optional<int64_t> win_length = std::nullopt, const std::optional<Tensor>& window = {},
             bool center = true, bool normalized = false, std::optional<bool> onesided = std::nullopt,
             std::optional<int64_t> length = std::nullopt, bool return_complex = false);

}  // namespace ember
