// LibTorch source compatibility: <torch/nn/module.h> brings in what <torch/torch.h> does.
#pragma once
#include <torch/torch.h>
