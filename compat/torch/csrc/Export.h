// LibTorch compatibility: TORCH_API and friends (empty: ember's symbols are visible by default).
#pragma once
#include "c10/macros/Macros.h"
