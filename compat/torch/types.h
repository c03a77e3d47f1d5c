// LibTorch source compatibility: <torch/types.h> brings in what <torch/torch.h> does.
#pragma once
#include <torch/torch.h>
