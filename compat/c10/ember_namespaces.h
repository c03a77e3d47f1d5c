// The LibTorch compatibility layer's base: c10::, at:: and torch:: are ember. Each namespace
// pulls in ember with a using-directive (so c10::Error, at::Tensor and torch::zeros resolve);
// the headers under compat/ add the names LibTorch spells differently. Not a LibTorch path:
// every hand-written compat header includes it first.
#pragma once
#include "ember/core/error.h"
#include "ember/core/warning.h"
#include "ember/data/data.h"
#include "ember/ember.h"

namespace c10 {
using namespace ::ember;
}  // namespace c10
namespace at {
using namespace ::ember;
}  // namespace at
namespace torch {
using namespace ::ember;
}  // namespace torch
