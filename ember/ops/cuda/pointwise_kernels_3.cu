// Part 3 of the pointwise table's CUDA kernels (pointwise_kernels.cuh).
#define EMBER_CUDA_PW_PART 3
#include "ember/ops/cuda/pointwise_kernels.cuh"
