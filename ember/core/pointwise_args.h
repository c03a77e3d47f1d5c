// The scalar arguments of a pointwise op (alpha, decimals, min/max, slopes...): what its
// functor is constructed from and what its derivative node keeps. In core because both the
// autograd recording API (OpNode, VjpCtx) and the ops that fill it need it.
#pragma once
#include <initializer_list>

#include "ember/core/scalar.h"

namespace ember {

struct PointwiseArgs {
  Scalar s[4];
  int n = 0;
  PointwiseArgs() = default;
  PointwiseArgs(std::initializer_list<Scalar> l) {
    for (const Scalar& v : l) s[n++] = v;
  }
};

}  // namespace ember
