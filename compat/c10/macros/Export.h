// LibTorch compatibility: the export markers (empty: ember's symbols are visible by default).
#pragma once
#include "c10/macros/Macros.h"
