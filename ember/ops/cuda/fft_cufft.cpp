// CUDA's DeviceFft (Note [Device FFTs], ember/ops/fft_device.h) on cuFFT: 64-bit plans
// (cufftMakePlanMany64) over the last 1 to 3 dims of contiguous tensors, batched over the
// others, complex64/complex128 and their real types, on the current stream. Plans are cached
// per device (the kPlanCacheCapacity most recently used, keyed by type, sizes and batch) and
// set up under the cache's lock. A plan owns no workspace (auto-allocation off): each call
// takes one from the caching allocator on the current stream, as PyTorch does, so one plan
// may serve several streams and its memory shows in the allocator's statistics. Real input
// to R2C must be aligned as complex (fft.cpp copies it otherwise). cuFFT is opened on first
// use (Note [CUDA libraries loaded on first use]).
//
// Left for later: half and bfloat16 transforms (cuFFT has them for powers of two only; the op
// refuses them as on the CPU).
#include <cufft.h>

#include <array>
#include <list>
#include <mutex>
#include <vector>

#include "ember/cuda/check.h"
#include "ember/cuda/cuda.h"
#include "ember/cuda/guard.h"
#include "ember/cuda/lazy_library.h"
#include "ember/ops/fft_device.h"
#include "ember/ops/functions.h"
#include "ember/ops/op_def.h"

namespace ember::cuda {
namespace {

// The cuFFT entry points ember calls, typed from cufft.h.
struct Cufft {
  decltype(&cufftCreate) create;
  decltype(&cufftMakePlanMany64) make_plan_many64;
  decltype(&cufftSetStream) set_stream;
  decltype(&cufftDestroy) destroy;
  decltype(&cufftSetAutoAllocation) set_auto_allocation;
  decltype(&cufftSetWorkArea) set_work_area;
  decltype(&cufftExecC2C) exec_c2c;
  decltype(&cufftExecZ2Z) exec_z2z;
  decltype(&cufftExecR2C) exec_r2c;
  decltype(&cufftExecD2Z) exec_d2z;
  decltype(&cufftExecC2R) exec_c2r;
  decltype(&cufftExecZ2D) exec_z2d;
};

const Cufft& cufft() {
  static const Cufft api = [] {
    static detail::LazyLibrary lib(EMBER_CUDA_SONAME("libcufft", CUFFT_VER_MAJOR), "cuFFT");
#define EMBER_RESOLVE(name) lib.resolve(&name, #name)
    return Cufft{EMBER_RESOLVE(cufftCreate),  EMBER_RESOLVE(cufftMakePlanMany64), EMBER_RESOLVE(cufftSetStream),
                 EMBER_RESOLVE(cufftDestroy), EMBER_RESOLVE(cufftSetAutoAllocation), EMBER_RESOLVE(cufftSetWorkArea),
                 EMBER_RESOLVE(cufftExecC2C),        EMBER_RESOLVE(cufftExecZ2Z),
                 EMBER_RESOLVE(cufftExecR2C), EMBER_RESOLVE(cufftExecD2Z),        EMBER_RESOLVE(cufftExecC2R),
                 EMBER_RESOLVE(cufftExecZ2D)};
#undef EMBER_RESOLVE
  }();
  return api;
}

const char* result_name(cufftResult r) {
  switch (r) {
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "an unknown cuFFT result";
  }
}

#define EMBER_CUFFT_CHECK(expr)                                                                        \
  do {                                                                                                 \
    const cufftResult ember_cufft_r_ = (expr);                                                         \
    EMBER_CHECK(ember_cufft_r_ == CUFFT_SUCCESS, "cuFFT error: ", result_name(ember_cufft_r_), " (",   \
                int(ember_cufft_r_), ") in ", #expr);                                                  \
  } while (0)

struct PlanKey {
  cufftType type;
  std::vector<long long> n;  // the signal sizes (the real sizes for R2C / C2R)
  long long batch;
  bool operator==(const PlanKey&) const = default;
};

constexpr size_t kPlanCacheCapacity = 64;

struct Plan {
  cufftHandle handle = 0;
  size_t workspace = 0;  // bytes each call must provide
};

// The plans of one device, most recently used first.
struct PlanCache {
  std::mutex mutex;
  std::list<std::pair<PlanKey, Plan>> plans;

  // The plan for `key` (made on a miss, evicting the least recently used); call with the lock held.
  Plan get(const PlanKey& key) {
    for (auto it = plans.begin(); it != plans.end(); ++it)
      if (it->first == key) {
        plans.splice(plans.begin(), plans, it);
        return plans.front().second;
      }
    Plan p;
    EMBER_CUFFT_CHECK(cufft().create(&p.handle));
    std::vector<long long> n = key.n;
    // Contiguous signals (null embeds): each transform's input and output are dense.
    cufftResult r = cufft().set_auto_allocation(p.handle, 0);
    if (r == CUFFT_SUCCESS)
      r = cufft().make_plan_many64(p.handle, int(n.size()), n.data(), nullptr, 1, 0, nullptr, 1, 0, key.type,
                                   key.batch, &p.workspace);
    if (r != CUFFT_SUCCESS) {
      cufft().destroy(p.handle);
      EMBER_CUFFT_CHECK(r);
    }
    if (plans.size() == kPlanCacheCapacity) {
      // Transforms queued with the evicted plan may still read its tables.
      EMBER_CUDA_CHECK(cudaDeviceSynchronize());
      cufft().destroy(plans.back().second.handle);
      plans.pop_back();
    }
    plans.emplace_front(key, p);
    return p;
  }
};

PlanCache& cache_of(DeviceIndex dev) {
  static std::array<PlanCache, kMaxDevices> caches;
  return caches[size_t(dev)];
}

// The last `rank` sizes of `t` (the signal) and the product of the others (the batch).
PlanKey key_of(cufftType type, const Tensor& signal_shape, int64_t rank) {
  EMBER_INTERNAL_ASSERT(rank >= 1 && rank <= 3 && rank <= signal_shape.dim(), "cuFFT: rank ", rank, " for ",
                        signal_shape.sizes());
  PlanKey k{type, {}, 1};
  for (int64_t d = 0; d < signal_shape.dim(); ++d) {
    if (d < signal_shape.dim() - rank) k.batch *= signal_shape.size(d);
    else k.n.push_back(signal_shape.size(d));
  }
  return k;
}

// Runs exec(plan) on the current stream of t's device with the plan for `key` and a
// workspace from the caching allocator (freed in stream order after the transform).
template <class Exec>
void run(const Tensor& t, const PlanKey& key, Exec&& exec) {
  CUDAGuard guard(t.device());
  const DeviceIndex dev = t.device().index();
  PlanCache& cache = cache_of(dev);
  std::lock_guard<std::mutex> lock(cache.mutex);
  const Plan plan = cache.get(key);
  const Tensor workspace = empty({int64_t(std::max<size_t>(plan.workspace, 1))}, t.options().dtype(kByte));
  EMBER_CUFFT_CHECK(cufft().set_stream(plan.handle, getCurrentCUDAStream(dev).stream()));
  EMBER_CUFFT_CHECK(cufft().set_work_area(plan.handle, workspace.data_ptr()));
  exec(plan.handle);
}

void check_dense(const Tensor& t, const char* what) {
  EMBER_INTERNAL_ASSERT(t.is_cuda() && t.is_contiguous(), "cuFFT ", what, ": expected a contiguous CUDA tensor, got ",
                        t.sizes(), " with strides ", t.strides(), " on ", t.device());
}

void c2c(const Tensor& x, int64_t rank, bool forward) {
  check_dense(x, "c2c");
  const bool single = x.scalar_type() == kComplexFloat;
  EMBER_INTERNAL_ASSERT(single || x.scalar_type() == kComplexDouble, "cuFFT c2c: ", x.scalar_type());
  const int direction = forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  run(x, key_of(single ? CUFFT_C2C : CUFFT_Z2Z, x, rank), [&](cufftHandle plan) {
    if (single) {
      auto* p = static_cast<cufftComplex*>(x.data_ptr());
      EMBER_CUFFT_CHECK(cufft().exec_c2c(plan, p, p, direction));
    } else {
      auto* p = static_cast<cufftDoubleComplex*>(x.data_ptr());
      EMBER_CUFFT_CHECK(cufft().exec_z2z(plan, p, p, direction));
    }
  });
}

void r2c(const Tensor& in, const Tensor& out, int64_t rank) {
  check_dense(in, "r2c");
  check_dense(out, "r2c");
  const bool single = in.scalar_type() == kFloat;
  run(in, key_of(single ? CUFFT_R2C : CUFFT_D2Z, in, rank), [&](cufftHandle plan) {
    if (single)
      EMBER_CUFFT_CHECK(cufft().exec_r2c(plan, static_cast<cufftReal*>(in.data_ptr()),
                                         static_cast<cufftComplex*>(out.data_ptr())));
    else
      EMBER_CUFFT_CHECK(cufft().exec_d2z(plan, static_cast<cufftDoubleReal*>(in.data_ptr()),
                                         static_cast<cufftDoubleComplex*>(out.data_ptr())));
  });
}

void c2r(const Tensor& in, const Tensor& out, int64_t rank) {
  check_dense(in, "c2r");
  check_dense(out, "c2r");
  const bool single = out.scalar_type() == kFloat;
  // The plan is keyed by the real (output) sizes.
  run(in, key_of(single ? CUFFT_C2R : CUFFT_Z2D, out, rank), [&](cufftHandle plan) {
    if (single)
      EMBER_CUFFT_CHECK(cufft().exec_c2r(plan, static_cast<cufftComplex*>(in.data_ptr()),
                                         static_cast<cufftReal*>(out.data_ptr())));
    else
      EMBER_CUFFT_CHECK(cufft().exec_z2d(plan, static_cast<cufftDoubleComplex*>(in.data_ptr()),
                                         static_cast<cufftDoubleReal*>(out.data_ptr())));
  });
}

const DeviceFft kCufft{&c2c, &r2c, &c2r};
const DeviceFft* cufft_table() { return &kCufft; }

const KernelRegistrar<DeviceFftFn> fft_reg("device_fft", kCUDA, CpuCapability::Default, &cufft_table);

}  // namespace
}  // namespace ember::cuda
