// LibTorch compatibility: <torch/all.h> is covered by <torch/torch.h>.
#pragma once
#include <torch/torch.h>
