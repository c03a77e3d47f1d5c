// LibTorch source compatibility: <torch/data/datasets/mnist.h> brings in what <torch/torch.h> does.
#pragma once
#include <torch/torch.h>
