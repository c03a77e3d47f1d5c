// LibTorch compatibility: <torch/jit.h> is <torch/script.h> (ember runs no TorchScript).
#pragma once
#include <torch/script.h>
