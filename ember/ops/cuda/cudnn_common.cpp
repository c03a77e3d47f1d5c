#include "ember/ops/cuda/cudnn_common.h"

#include <algorithm>
#include <array>
#include <vector>

#include "ember/cuda/lazy_library.h"
#include "ember/cuda/stream.h"

namespace ember::cuda::cudnn_detail {

namespace {
detail::LazyLibrary& cudnn_library() {
  static detail::LazyLibrary lib(EMBER_CUDA_SONAME("libcudnn", CUDNN_MAJOR), "cuDNN");
  return lib;
}

}  // namespace

const Cudnn& cudnn() {
  static const Cudnn api = [] {
    detail::LazyLibrary& lib = cudnn_library();
#define EMBER_RESOLVE(name) lib.resolve(&name, #name)
    return Cudnn{EMBER_RESOLVE(cudnnCreate),
                 EMBER_RESOLVE(cudnnSetStream),
                 EMBER_RESOLVE(cudnnGetErrorString),
                 EMBER_RESOLVE(cudnnCreateTensorDescriptor),
                 EMBER_RESOLVE(cudnnSetTensorNdDescriptor),
                 EMBER_RESOLVE(cudnnDestroyTensorDescriptor),
                 EMBER_RESOLVE(cudnnCreateFilterDescriptor),
                 EMBER_RESOLVE(cudnnSetFilterNdDescriptor),
                 EMBER_RESOLVE(cudnnDestroyFilterDescriptor),
                 EMBER_RESOLVE(cudnnCreateConvolutionDescriptor),
                 EMBER_RESOLVE(cudnnSetConvolutionNdDescriptor),
                 EMBER_RESOLVE(cudnnSetConvolutionGroupCount),
                 EMBER_RESOLVE(cudnnSetConvolutionMathType),
                 EMBER_RESOLVE(cudnnDestroyConvolutionDescriptor),
                 EMBER_RESOLVE(cudnnGetConvolutionForwardAlgorithm_v7),
                 EMBER_RESOLVE(cudnnFindConvolutionForwardAlgorithm),
                 EMBER_RESOLVE(cudnnGetConvolutionForwardWorkspaceSize),
                 EMBER_RESOLVE(cudnnConvolutionForward),
                 EMBER_RESOLVE(cudnnGetConvolutionBackwardDataAlgorithm_v7),
                 EMBER_RESOLVE(cudnnFindConvolutionBackwardDataAlgorithm),
                 EMBER_RESOLVE(cudnnGetConvolutionBackwardDataWorkspaceSize),
                 EMBER_RESOLVE(cudnnConvolutionBackwardData),
                 EMBER_RESOLVE(cudnnGetConvolutionBackwardFilterAlgorithm_v7),
                 EMBER_RESOLVE(cudnnFindConvolutionBackwardFilterAlgorithm),
                 EMBER_RESOLVE(cudnnGetConvolutionBackwardFilterWorkspaceSize),
                 EMBER_RESOLVE(cudnnConvolutionBackwardFilter),
                 EMBER_RESOLVE(cudnnDeriveBNTensorDescriptor),
                 EMBER_RESOLVE(cudnnBatchNormalizationForwardTraining),
                 EMBER_RESOLVE(cudnnBatchNormalizationForwardInference),
                 EMBER_RESOLVE(cudnnBatchNormalizationBackward)};
#undef EMBER_RESOLVE
  }();
  return api;
}

bool cudnn_opens() {
  try {
    cudnn_library().symbol("cudnnGetVersion");
    return true;
  } catch (const Error&) {
    return false;
  }
}

// One handle per device and thread, bound to the current stream at each call. Never
// destroyed: the driver may be gone at exit.
cudnnHandle_t handle_for(DeviceIndex dev) {
  thread_local std::array<cudnnHandle_t, kMaxDevices> handles{};
  cudnnHandle_t& h = handles[size_t(dev)];
  if (!h) EMBER_CUDNN_CHECK(cudnn().create(&h));
  EMBER_CUDNN_CHECK(cudnn().set_stream(h, getCurrentCUDAStream(dev).stream()));
  return h;
}

cudnnDataType_t data_type(ScalarType t) {
  switch (t) {
    case kFloat: return CUDNN_DATA_FLOAT;
    case kDouble: return CUDNN_DATA_DOUBLE;
    case kHalf: return CUDNN_DATA_HALF;
    case kBFloat16: return CUDNN_DATA_BFLOAT16;
    default: EMBER_CHECK_TYPE(false, "cuDNN convolution: unsupported dtype ", t);
  }
  return CUDNN_DATA_FLOAT;
}

TensorDesc::TensorDesc(const Tensor& t, bool channels_last) {
  EMBER_CUDNN_CHECK(cudnn().create_tensor(&d));
  const int64_t n = t.dim();
  std::vector<int> sizes(static_cast<size_t>(n)), strides(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) sizes[size_t(i)] = int(t.size(i));
  // The dims from the innermost out: channels-last is C, then the spatial dims last to
  // first, then N; contiguous is the dims last to first.
  std::vector<int64_t> order;
  if (channels_last) {
    order.push_back(1);
    for (int64_t i = n - 1; i >= 2; --i) order.push_back(i);
    order.push_back(0);
  } else {
    for (int64_t i = n - 1; i >= 0; --i) order.push_back(i);
  }
  int64_t stride = 1;
  for (int64_t i : order) strides[size_t(i)] = int(stride), stride *= std::max<int64_t>(t.size(i), 1);
  EMBER_CUDNN_CHECK(cudnn().set_tensor(d, data_type(t.scalar_type()), int(t.dim()), sizes.data(), strides.data()));
}

TensorDesc::TensorDesc(IntArrayRef sizes, cudnnDataType_t type) {
  EMBER_CUDNN_CHECK(cudnn().create_tensor(&d));
  std::vector<int> s(sizes.begin(), sizes.end()), st(sizes.size());
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) st[i] = int(stride), stride *= std::max<int64_t>(sizes[i], 1);
  EMBER_CUDNN_CHECK(cudnn().set_tensor(d, type, int(s.size()), s.data(), st.data()));
}

TensorDesc::~TensorDesc() {
  if (d) cudnn().destroy_tensor(d);
}

}  // namespace ember::cuda::cudnn_detail
