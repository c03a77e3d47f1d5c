// LibTorch source compatibility: <torch/data/dataloader.h> brings in what <torch/torch.h> does.
#pragma once
#include <torch/torch.h>
