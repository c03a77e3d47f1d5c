// LibTorch source compatibility: <torch/optim.h> brings in what <torch/torch.h> does.
#pragma once
#include <torch/torch.h>
