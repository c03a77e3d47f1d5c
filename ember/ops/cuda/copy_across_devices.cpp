// copy_ between the CPU and a CUDA device, and between two CUDA devices: the bytes move with
// one cudaMemcpyAsync on the current stream of the CUDA device; a dtype change or a layout
// the destination does not share happens on the device that has the data first (or, for a
// destination that is not dense, after the transfer). Pinned host memory makes non_blocking
// copies asynchronous (Note [Pinned host memory]); otherwise copy_ returns when the copy is
// done, as in PyTorch.
#include <cuda_runtime_api.h>

#include "ember/cuda/caching_allocator.h"
#include "ember/cuda/check.h"
#include "ember/cuda/event.h"
#include "ember/cuda/guard.h"
#include "ember/ops/functions.h"
#include "ember/ops/op_def.h"

namespace ember::cuda {
namespace {

// The strides a dense copy of `like`'s shape takes: like's own when it is dense (so
// channels-last and other permuted layouts travel as they are), contiguous otherwise.
DimVector target_strides(const Tensor& like) {
  if (like.is_non_overlapping_and_dense()) return DimVector(like.strides());
  DimVector s(like.dim());
  int64_t run = 1;
  for (int64_t d = like.dim() - 1; d >= 0; --d) {
    s[d] = run;
    run *= std::max<int64_t>(like.size(d), 1);
  }
  return s;
}

bool same_strides(IntArrayRef sizes, IntArrayRef a, IntArrayRef b) {
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] > 1 && a[d] != b[d]) return false;
  return true;
}

void transfer(void* dst, Device dd, const void* src, Device sd, size_t n, bool non_blocking) {
  if (n == 0) return;
  if (dd.is_cuda() && sd.is_cuda() && dd != sd) {
    // Peer copy on the destination's stream, ordered after the source's queued work; the
    // source's stream then waits for the copy before it may reuse the source's memory.
    CUDAStream src_stream = getCurrentCUDAStream(sd.index()), dst_stream = getCurrentCUDAStream(dd.index());
    CUDAEvent ready;
    ready.record(src_stream);
    ready.block(dst_stream);
    {
      CUDAGuard g(dd.index());
      EMBER_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dd.index(), src, sd.index(), n, dst_stream.stream()));
    }
    CUDAEvent done;
    done.record(dst_stream);
    done.block(src_stream);
    if (!non_blocking) dst_stream.synchronize();
    return;
  }
  const Device cuda_dev = dd.is_cuda() ? dd : sd;
  CUDAGuard g(cuda_dev.index());
  cudaStream_t stream = getCurrentCUDAStream(cuda_dev.index()).stream();
  const cudaMemcpyKind kind = dd.is_cuda() ? (sd.is_cuda() ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                                           : cudaMemcpyDeviceToHost;
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, kind, stream));
  if (non_blocking) {
    const void* host = dd.is_cpu() ? dst : sd.is_cpu() ? src : nullptr;
    if (host) record_pinned_use(host, stream);
  } else {
    EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
}

void copy_across_devices(Tensor& dst, const Tensor& src, bool non_blocking) {
  EMBER_CHECK((dst.is_cuda() || dst.is_cpu()) && (src.is_cuda() || src.is_cpu()), "copy_: cannot copy from ",
              src.device(), " to ", dst.device());
  Tensor s = src;
  if (!(s.sizes() == dst.sizes())) s = s.expand(dst.sizes());
  // On the source's device: dst's dtype, in the layout that will travel.
  const DimVector layout = target_strides(dst);
  if (s.scalar_type() != dst.scalar_type() || !s.is_non_overlapping_and_dense() ||
      !same_strides(dst.sizes(), s.strides(), layout)) {
    Tensor t = empty_strided(dst.sizes(), layout, s.options().dtype(dst.scalar_type()));
    t.copy_(s);
    s = t;
  }
  const size_t nbytes = size_t(dst.numel()) * dst.element_size();
  if (dst.is_non_overlapping_and_dense()) {
    transfer(dst.data_ptr(), dst.device(), s.data_ptr(), s.device(), nbytes, non_blocking);
    return;
  }
  // A destination with gaps or overlaps: land densely on its device, then scatter there.
  Tensor staged = empty_strided(dst.sizes(), layout, dst.options());
  transfer(staged.data_ptr(), staged.device(), s.data_ptr(), s.device(), nbytes, non_blocking);
  dst.copy_(staged, non_blocking);
}

using CopyAcrossFn = void (*)(Tensor&, const Tensor&, bool);
const KernelRegistrar<CopyAcrossFn> copy_across_reg("copy_across_devices", kCUDA, CpuCapability::Default,
                                                    &copy_across_devices);

}  // namespace
}  // namespace ember::cuda
