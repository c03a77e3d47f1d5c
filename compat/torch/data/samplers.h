// LibTorch source compatibility: <torch/data/samplers.h> brings in what <torch/torch.h> does.
#pragma once
#include <torch/torch.h>
