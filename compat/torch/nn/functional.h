// LibTorch source compatibility: <torch/nn/functional.h> brings in what <torch/torch.h> does.
#pragma once
#include <torch/torch.h>
