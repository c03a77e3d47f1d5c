// CUDA's DeviceConv (Note [Device convolutions], ember/ops/conv_device.h) on cuDNN's
// convolution API: forward, backward-data and backward-filter for float, double, half and
// bfloat16, 1 to 3 spatial dims (1-d runs as 2-d with a unit height), groups, dilation, NCHW
// and channels-last (the output keeps the layout conv_output_format picks, the weight is
// given to cuDNN in the same layout). Algorithms come from cuDNN's heuristics, or are timed
// when at::globalContext().benchmarkCuDNN() (cuDNN's Find), restricted to deterministic ones
// when deterministicCuDNN(); the choice is cached per geometry. float32 may use TF32 tensor
// cores unless allowTF32CuDNN() is off (PyTorch's default: on); half and bfloat16 use tensor
// cores. Workspaces come from the caching allocator (an algorithm whose workspace does not
// fit is skipped for the next). cuDNN is opened on first use (Note [CUDA libraries loaded on
// first use]); geometries cuDNN cannot take (asymmetric padding, more than 2^31-1 elements)
// run the composite, as does double in channels-last (cuDNN has no NHWC double kernels).
//
// Left for later: benchmark mode through cuDNN's Find*Ex with a workspace from the caching
// allocator (Find allocates its own, outside the allocator's view); moving on to the next
// algorithm when one fails to run (only a workspace that does not fit moves on now).
#include <cudnn.h>

#include <array>
#include <climits>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/cuda/check.h"
#include "ember/cuda/cuda.h"
#include "ember/cuda/guard.h"
#include "ember/cuda/lazy_library.h"
#include "ember/ops/conv_device.h"
#include "ember/ops/cuda/cudnn_common.h"
#include "ember/ops/functions.h"
#include "ember/ops/op_def.h"

namespace ember::cuda {

namespace {

using namespace cudnn_detail;

// ---- descriptors (RAII; TensorDesc is in cudnn_common.h) -------------------------------------

// A filter descriptor of w, which must be dense in NCHW or channels-last order.
struct FilterDesc {
  cudnnFilterDescriptor_t d = nullptr;
  FilterDesc(const Tensor& w, bool channels_last) {
    EMBER_CUDNN_CHECK(cudnn().create_filter(&d));
    std::vector<int> sizes;
    for (int64_t i = 0; i < w.dim(); ++i) sizes.push_back(int(w.size(i)));
    EMBER_CUDNN_CHECK(cudnn().set_filter(d, data_type(w.scalar_type()), channels_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                         int(w.dim()), sizes.data()));
  }
  ~FilterDesc() { cudnn().destroy_filter(d); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
};

// The convolution geometry with cuDNN's symmetric padding (pad_l), as 2-d at least.
struct Geometry {
  std::vector<int> pad, stride, dilation;
  int groups = 1;
};

struct ConvDesc {
  cudnnConvolutionDescriptor_t d = nullptr;
  ConvDesc(const Geometry& g, ScalarType t) {
    EMBER_CUDNN_CHECK(cudnn().create_conv(&d));
    // Half and bfloat16 accumulate in float; double in double.
    const cudnnDataType_t compute = t == kDouble ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    EMBER_CUDNN_CHECK(cudnn().set_conv(d, int(g.pad.size()), g.pad.data(), g.stride.data(), g.dilation.data(),
                                       CUDNN_CROSS_CORRELATION, compute));
    EMBER_CUDNN_CHECK(cudnn().set_groups(d, g.groups));
    cudnnMathType_t math = CUDNN_DEFAULT_MATH;
    if (t == kHalf || t == kBFloat16) math = CUDNN_TENSOR_OP_MATH;
    else if (t == kFloat && !globalContext().allowTF32CuDNN()) math = CUDNN_FMA_MATH;
    EMBER_CUDNN_CHECK(cudnn().set_math(d, math));
  }
  ~ConvDesc() { cudnn().destroy_conv(d); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
};

// ---- operands ---------------------------------------------------------------------------------

// A 1-d convolution's tensors gain a unit dim 2; its geometry a unit first entry.
Tensor as_2d(const Tensor& t) { return t.dim() == 3 ? t.unsqueeze(2) : t; }
Geometry geometry_of(const conv_detail::ConvShape& s) {
  Geometry g;
  const bool one_d = s.stride.size() == 1;
  if (one_d) g.pad.push_back(0), g.stride.push_back(1), g.dilation.push_back(1);
  for (size_t i = 0; i < s.stride.size(); ++i) {
    g.pad.push_back(int(s.pad_l[i]));
    g.stride.push_back(int(s.stride[i]));
    g.dilation.push_back(int(s.dilation[i]));
  }
  g.groups = int(s.groups);
  return g;
}

// ---- algorithm choice --------------------------------------------------------------------------

enum class Pass { Forward, BackwardData, BackwardFilter };

// The key of a geometry: pass, dtype, the sizes and strides of the data operands, the weight
// layout, the convolution and the switches that change the choice.
std::string key_of(Pass pass, const Tensor& x, const Tensor& w, const Tensor& y, bool w_last, const Geometry& g) {
  std::string k;
  auto put = [&](int64_t v) { k += std::to_string(v), k += ','; };
  put(int(pass)), put(int(x.scalar_type())), put(x.device().index()), put(w_last);
  for (const Tensor* t : {&x, &w, &y}) {
    for (int64_t i = 0; i < t->dim(); ++i) put(t->size(i)), put(t->stride(i));
    k += ';';
  }
  for (const auto* v : {&g.pad, &g.stride, &g.dilation})
    for (int e : *v) put(e);
  put(g.groups), put(globalContext().allowTF32CuDNN()), put(globalContext().benchmarkCuDNN()),
      put(globalContext().deterministicCuDNN());
  return k;
}

// An algorithm and the math type cuDNN ranked it with (one algorithm may come twice).
struct Algo {
  int algo;
  cudnnMathType_t math;
};

std::mutex cache_mutex;
std::unordered_map<std::string, std::vector<Algo>>& algo_cache() {
  static std::unordered_map<std::string, std::vector<Algo>> cache;
  return cache;
}

// The algorithms to try for `key`, best first: cuDNN's heuristics (or timings), only those
// that succeeded (and are deterministic when that is asked for; never one converting float
// data down to half). `query(count, returned, perf*)` fills cuDNN's perf structs.
template <class Perf, class Query>
std::vector<Algo> algorithms(const std::string& key, ScalarType t, Query&& query) {
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    auto it = algo_cache().find(key);
    if (it != algo_cache().end()) return it->second;
  }
  std::array<Perf, 16> perf{};
  int returned = 0;
  query(int(perf.size()), &returned, perf.data());
  std::vector<Algo> algos;
  for (int i = 0; i < returned; ++i) {
    const Perf& p = perf[size_t(i)];
    if (p.status != CUDNN_STATUS_SUCCESS) continue;
    if (globalContext().deterministicCuDNN() && p.determinism != CUDNN_DETERMINISTIC) continue;
    if ((t == kFloat || t == kDouble) && p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) continue;
    algos.push_back(Algo{int(p.algo), p.mathType});
  }
  EMBER_CHECK(!algos.empty(), "cuDNN: no ", globalContext().deterministicCuDNN() ? "deterministic " : "",
              "convolution algorithm for this geometry");
  std::lock_guard<std::mutex> lock(cache_mutex);
  algo_cache()[key] = algos;
  return algos;
}

// Runs `run(algo, workspace, bytes)` with the first algorithm whose workspace fits in memory,
// the convolution descriptor set to the math type the algorithm was ranked with.
template <class SizeOf, class Run>
void run_first_fitting(const std::vector<Algo>& algos, cudnnConvolutionDescriptor_t conv, const Tensor& like,
                       SizeOf&& size_of, Run&& run) {
  for (size_t i = 0; i < algos.size(); ++i) {
    EMBER_CUDNN_CHECK(cudnn().set_math(conv, algos[i].math));
    const size_t bytes = size_of(algos[i].algo);
    Tensor ws;
    try {
      ws = empty({int64_t(std::max<size_t>(bytes, 1))}, like.options().dtype(kByte).memory_format(MemoryFormat::Contiguous));
    } catch (const OutOfMemoryError&) {
      if (i + 1 == algos.size()) throw;
      continue;  // a slower algorithm with a smaller workspace
    }
    run(algos[i].algo, bytes ? ws.data_ptr() : nullptr, bytes);
    return;
  }
}


// ---- the primitives ---------------------------------------------------------------------------

bool fits_int(const Tensor& t) { return t.numel() <= INT_MAX; }

bool supports(const Tensor& x, const Tensor& w, const Tensor& b, const conv_detail::ConvShape& s, bool transposed) {
  if (!x.is_cuda() || !w.is_cuda() || x.device() != w.device() || !globalContext().userEnabledCuDNN()) return false;
  const ScalarType t = x.scalar_type();
  if (!(t == kFloat || t == kDouble || t == kHalf || t == kBFloat16) || w.scalar_type() != t) return false;
  if (b.defined() && (b.scalar_type() != t || b.device() != x.device())) return false;
  if (x.dim() < 3 || x.dim() > 5 || !fits_int(x) || !fits_int(w)) return false;
  if (x.numel() == 0 || w.numel() == 0) return false;  // zero-sized dims: cuDNN's descriptors refuse them
  // cuDNN has no NHWC algorithms for double (PyTorch keeps double NCHW): the composite.
  if (t == kDouble && conv_detail::conv_output_format(x, w) != MemoryFormat::Contiguous) return false;
  for (size_t i = 0; i < s.stride.size(); ++i) {
    if (s.pad_l[i] < 0 || s.pad_l[i] > INT_MAX || s.stride[i] > INT_MAX || s.dilation[i] > INT_MAX) return false;
    // cuDNN pads symmetrically; a transposed convolution's output padding must stay below
    // the stride (its backward-data reads the larger output as the forward's input).
    const int64_t extra = s.pad_l[i] - s.pad_r[i];
    if (transposed ? (extra < 0 || extra >= s.stride[i]) : extra != 0) return false;
  }
  // The output (forward) or the larger input (transposed) must fit cuDNN's int sizes too.
  int64_t out = x.size(0) * (transposed ? w.size(1) * s.groups : w.size(0));
  for (size_t i = 0; i < s.stride.size(); ++i) {
    const int64_t in = x.size(2 + int64_t(i)), span = s.dilation[i] * (w.size(2 + int64_t(i)) - 1) + 1;
    out *= transposed ? (in - 1) * s.stride[i] + span : (in + 2 * s.pad_l[i] - span) / s.stride[i] + 1;
  }
  if (out > INT_MAX) return false;
  return cudnn_opens();  // no cuDNN on this machine: the composite
}

// The weight dense in the layout cuDNN reads (the output's).
Tensor dense_weight(const Tensor& w, MemoryFormat fmt) { return w.contiguous(fmt); }

// One call's operands, 2-d at least and dense in the call's layout (x input-shaped, w the
// filter, y output-shaped, whichever the pass writes), and their descriptors.
struct ConvCall {
  Tensor x, w, y;
  bool last;
  Geometry g;
  TensorDesc xd, yd;
  FilterDesc wd;
  ConvDesc cd;
  cudnnHandle_t h;
  ScalarType t;
  Scaling sc;
  ConvCall(Tensor x_, Tensor w_, Tensor y_, bool channels_last, const conv_detail::ConvShape& s)
      : x(std::move(x_)), w(std::move(w_)), y(std::move(y_)), last(channels_last), g(geometry_of(s)), xd(x, last),
        yd(y, last), wd(w, last), cd(g, x.scalar_type()), h(handle_for(x.device().index())), t(x.scalar_type()) {}
  // Ranks the pass's algorithms (query: cuDNN's Find when benchmarking, else its heuristics)
  // and runs the first whose workspace fits.
  template <class Perf, class Find, class Heuristic, class Workspace, class Run>
  void run_pass(Pass pass, Find&& find, Heuristic&& heuristic, Workspace&& workspace, Run&& run) {
    const auto algos = algorithms<Perf>(key_of(pass, x, w, y, last, g), t, [&](int n, int* returned, Perf* perf) {
      EMBER_CUDNN_CHECK(globalContext().benchmarkCuDNN() ? find(n, returned, perf) : heuristic(n, returned, perf));
    });
    run_first_fitting(algos, cd.d, x, workspace, run);
  }
};

Tensor forward(const Tensor& input, const Tensor& weight, const Tensor& bias, const conv_detail::ConvShape& s) {
  CUDAGuard guard(input.device());
  const MemoryFormat fmt = conv_detail::conv_output_format(input, weight);
  const std::vector<int64_t> out_sizes = conv_detail::dnnl_output_sizes(input.sizes(), weight.sizes(), s);
  Tensor out = empty(out_sizes, input.options().memory_format(fmt));
  if (out.numel() == 0) return out;
  ConvCall c(as_2d(input.contiguous(fmt)), as_2d(dense_weight(weight, fmt)), as_2d(out),
             fmt != MemoryFormat::Contiguous, s);
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  c.run_pass<Perf>(
      Pass::Forward,
      [&](int n, int* r, Perf* p) { return cudnn().fwd_find(c.h, c.xd.d, c.wd.d, c.cd.d, c.yd.d, n, r, p); },
      [&](int n, int* r, Perf* p) { return cudnn().fwd_heuristic(c.h, c.xd.d, c.wd.d, c.cd.d, c.yd.d, n, r, p); },
      [&](int a) {
        size_t bytes = 0;
        EMBER_CUDNN_CHECK(cudnn().fwd_workspace(c.h, c.xd.d, c.wd.d, c.cd.d, c.yd.d, cudnnConvolutionFwdAlgo_t(a), &bytes));
        return bytes;
      },
      [&](int a, void* ws, size_t bytes) {
        EMBER_CUDNN_CHECK(cudnn().fwd(c.h, c.sc.one(c.t), c.xd.d, c.x.data_ptr(), c.wd.d, c.w.data_ptr(), c.cd.d,
                                      cudnnConvolutionFwdAlgo_t(a), ws, bytes, c.sc.zero(c.t), c.yd.d, c.y.data_ptr()));
      });
  if (bias.defined()) {
    std::vector<int64_t> bshape(size_t(out.dim()), 1);
    bshape[1] = out.size(1);
    out.add_(bias.view(bshape));
  }
  return out;
}

Tensor backward_data(const Tensor& grad_output, const Tensor& weight, IntArrayRef input_sizes, MemoryFormat input_format,
                     const conv_detail::ConvShape& s) {
  CUDAGuard guard(grad_output.device());
  const MemoryFormat fmt = input_format;
  Tensor gin = empty(input_sizes, grad_output.options().memory_format(fmt));
  if (gin.numel() == 0 || grad_output.numel() == 0) return gin.zero_();
  // x is what this pass writes (dx), y what it reads (dy).
  ConvCall c(as_2d(gin), as_2d(dense_weight(weight, fmt)), as_2d(grad_output.contiguous(fmt)),
             fmt != MemoryFormat::Contiguous, s);
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  c.run_pass<Perf>(
      Pass::BackwardData,
      [&](int n, int* r, Perf* p) { return cudnn().bwd_data_find(c.h, c.wd.d, c.yd.d, c.cd.d, c.xd.d, n, r, p); },
      [&](int n, int* r, Perf* p) { return cudnn().bwd_data_heuristic(c.h, c.wd.d, c.yd.d, c.cd.d, c.xd.d, n, r, p); },
      [&](int a) {
        size_t bytes = 0;
        EMBER_CUDNN_CHECK(cudnn().bwd_data_workspace(c.h, c.wd.d, c.yd.d, c.cd.d, c.xd.d,
                                                     cudnnConvolutionBwdDataAlgo_t(a), &bytes));
        return bytes;
      },
      [&](int a, void* ws, size_t bytes) {
        EMBER_CUDNN_CHECK(cudnn().bwd_data(c.h, c.sc.one(c.t), c.wd.d, c.w.data_ptr(), c.yd.d, c.y.data_ptr(), c.cd.d,
                                           cudnnConvolutionBwdDataAlgo_t(a), ws, bytes, c.sc.zero(c.t), c.xd.d,
                                           c.x.data_ptr()));
      });
  return gin;
}

std::pair<Tensor, Tensor> backward_weights(const Tensor& grad_output, const Tensor& input, IntArrayRef weight_sizes,
                                           bool bias, const conv_detail::ConvShape& s) {
  CUDAGuard guard(grad_output.device());
  const MemoryFormat fmt = conv_detail::conv_output_format(input, grad_output);
  Tensor gw = empty(weight_sizes, grad_output.options().memory_format(fmt));
  Tensor gb;
  if (bias) {
    std::vector<int64_t> reduce = {0};
    for (int64_t i = 2; i < grad_output.dim(); ++i) reduce.push_back(i);
    gb = grad_output.sum(reduce);
  }
  if (gw.numel() == 0) return {gw, gb};
  if (grad_output.numel() == 0 || input.numel() == 0) return {gw.zero_(), gb};
  // w is what this pass writes (dw).
  ConvCall c(as_2d(input.contiguous(fmt)), as_2d(gw), as_2d(grad_output.contiguous(fmt)),
             fmt != MemoryFormat::Contiguous, s);
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  c.run_pass<Perf>(
      Pass::BackwardFilter,
      [&](int n, int* r, Perf* p) { return cudnn().bwd_filter_find(c.h, c.xd.d, c.yd.d, c.cd.d, c.wd.d, n, r, p); },
      [&](int n, int* r, Perf* p) { return cudnn().bwd_filter_heuristic(c.h, c.xd.d, c.yd.d, c.cd.d, c.wd.d, n, r, p); },
      [&](int a) {
        size_t bytes = 0;
        EMBER_CUDNN_CHECK(cudnn().bwd_filter_workspace(c.h, c.xd.d, c.yd.d, c.cd.d, c.wd.d,
                                                       cudnnConvolutionBwdFilterAlgo_t(a), &bytes));
        return bytes;
      },
      [&](int a, void* ws, size_t bytes) {
        EMBER_CUDNN_CHECK(cudnn().bwd_filter(c.h, c.sc.one(c.t), c.xd.d, c.x.data_ptr(), c.yd.d, c.y.data_ptr(),
                                             c.cd.d, cudnnConvolutionBwdFilterAlgo_t(a), ws, bytes, c.sc.zero(c.t),
                                             c.wd.d, c.w.data_ptr()));
      });
  return {gw, gb};
}

const conv_detail::DeviceConv kCudnnConv{&supports, &forward, &backward_data, &backward_weights};
const conv_detail::DeviceConv* cudnn_conv() { return &kCudnnConv; }

const KernelRegistrar<conv_detail::DeviceConvFn> conv_reg("device_conv", kCUDA, CpuCapability::Default, &cudnn_conv);

}  // namespace

// PyTorch's torch::cuda::cudnn_is_available(): a GPU and a cuDNN library that opens.
bool cudnn_available_impl() { return is_available() && cudnn_detail::cudnn_opens(); }

}  // namespace ember::cuda
