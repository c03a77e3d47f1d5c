// LibTorch source compatibility: <torch/nn/modules.h> brings in what <torch/torch.h> does.
#pragma once
#include <torch/torch.h>
