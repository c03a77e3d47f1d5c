// LibTorch source compatibility: <torch/cuda.h> brings in what <torch/torch.h> does.
#pragma once
#include <torch/torch.h>
