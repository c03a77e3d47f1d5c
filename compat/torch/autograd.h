// LibTorch source compatibility: <torch/autograd.h> brings in what <torch/torch.h> does.
#pragma once
#include <torch/torch.h>
