// Collation: a batch transform from a vector of examples to one value (LibTorch's
// Collation / Collate aliases).
#pragma once
#include <vector>

#include "ember/data/example.h"
#include "ember/data/transforms/lambda.h"

namespace ember::data::transforms {

template <typename T, typename BatchType = std::vector<T>>
using Collation = BatchTransform<BatchType, T>;

template <typename T, typename BatchType = std::vector<T>>
using Collate = BatchLambda<BatchType, T>;

}  // namespace ember::data::transforms
