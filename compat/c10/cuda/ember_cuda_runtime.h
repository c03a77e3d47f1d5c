// Not a LibTorch path. LibTorch's CUDA headers (<c10/cuda/CUDAStream.h>, <ATen/cuda/CUDAEvent.h>,
// <torch/cuda.h>...) bring the CUDA runtime's declarations (cudaStream_t, cudaEventDefault,
// cudaMemcpy...), so ember's forwarding headers for those paths include this too: the runtime's
// header when ember was built with CUDA (the ember::torch target then adds its include path).
#pragma once
#include <torch/torch.h>
#if defined(EMBER_WITH_CUDA) && __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#endif
