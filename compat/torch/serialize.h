// LibTorch source compatibility: <torch/serialize.h> brings in what <torch/torch.h> does.
#pragma once
#include <torch/torch.h>
