// LibTorch source compatibility: <torch/utils.h> brings in what <torch/torch.h> does.
#pragma once
#include <torch/torch.h>
