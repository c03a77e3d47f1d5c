// LibTorch source compatibility: `#include <torch/torch.h>` maps torch::, at:: and c10::
// onto ember, so programs written against LibTorch's C++ frontend compile unchanged.
// Each namespace pulls in ember with a using-directive (so torch::Tensor, torch::zeros,
// torch::indexing::Slice all resolve) and adds the few names LibTorch spells differently.
#pragma once
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "c10/ember_namespaces.h"
#include "ember/autograd/autograd_meta.h"
#include "c10/macros/Macros.h"
#include "c10/util/C++17.h"
#include "c10/util/accumulate.h"
#include "c10/util/Exception.h"
#include "c10/util/Optional.h"
#include "c10/util/StringUtil.h"
#include "c10/util/flat_hash_map.h"
#include "c10/util/irange.h"
#include "c10/util/tempfile.h"
#include "c10/util/typeid.h"
#include "c10/util/variant.h"
#include "c10/core/ScalarType.h"
#include "ATen/Dispatch.h"
#include "torch/csrc/utils/variadic.h"
#include "torch/detail/static.h"

namespace c10 {
template <class T> using complex = ::ember::Complex<T>;
using string_view = std::string_view;
}  // namespace c10

// The c10 names LibTorch's at:: and torch:: also offer. (Selected: a using-directive of all of
// c10 would make torch::complex, ember's function, clash with the c10::complex template.)
namespace at {
using c10::irange;
using c10::scalarTypeToTypeMeta;
using c10::str;
using c10::typeMetaToScalarType;
}  // namespace at
namespace torch {
using c10::irange;
using c10::scalarTypeToTypeMeta;
using c10::str;
using c10::typeMetaToScalarType;
}  // namespace torch

namespace c10 {
using ::c10::guts::to_string;  // c10::to_string(x)
namespace detail {
using namespace ::ember::detail;
constexpr uint64_t default_rng_seed_val = ::ember::GeneratorImpl::kDefaultSeed;
}  // namespace detail
}  // namespace c10

// Generators by LibTorch's factory names (ember/core/generator.h has the rest).
namespace at {
namespace detail {
using namespace ::ember::detail;
inline Generator createCPUGenerator(uint64_t seed = c10::detail::default_rng_seed_val) {
  return make_generator<CPUGeneratorImpl>(seed);
}
inline const Generator& getDefaultCPUGenerator() { return default_generator(); }
}  // namespace detail
}  // namespace at

namespace torch {
using std::make_unique;  // torch::make_unique (LibTorch's, from before C++14)
// torch::cuda:: is ember::cuda:: (is_available, device_count, synchronize, manual_seed_all...);
// c10::cuda:: and at::cuda:: reach it through the using-directives above (CUDAStream,
// CUDAGuard, CUDAEvent, CUDACachingAllocator).
namespace cuda {
using namespace ::ember::cuda;
}  // namespace cuda
}  // namespace torch
