// Internal: dense linear algebra on a device (ops/linalg_*.cpp -> ops/cuda/linalg_cusolver.cpp).
//
// Note [Device linear algebra]
// The LAPACK-backed ops (inv, solve, det, slogdet, cholesky, lu_factor, lu_solve, qr, geqrf,
// householder_product, svd, svdvals, eigh, eigvalsh) keep one op-level implementation: the
// checks, autograd, shapes, empty cases and PyTorch's error messages are written once, and
// the factorisations themselves run on the tensor's device through a DeviceLapack table
// that the device registers by name ("device_lapack", as "device_sample"). The table's
// routines take batches of column-major matrices packed one after another (the layout of
// linalg_detail::colmajor_copy: sizes (*, m, n), strides (.., 1, m)) and write their results
// in place or into tensors the op allocated on the same device; they never synchronise the
// host. The op then reads the per-matrix infos back once (the one host synchronisation, as
// PyTorch's checked ops do) to raise PyTorch's error for the first failed matrix.
// linalg.eig/eigvals, ldl_factor/ldl_solve and lstsq with drivers other than 'gels' compute
// on the CPU and copy back, as PyTorch's CUDA eig does; lstsq's 'gels' runs as QR on the
// device (PyTorch's only CUDA driver).
#pragma once
#include <cstdint>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

struct DeviceLapack {
  // LU with partial pivoting of every a (m x n) in place; pivots (*, min(m, n)) int32 and
  // 1-based as LAPACK's, infos (*) int32 (i > 0: U[i-1, i-1] is exactly zero).
  void (*getrf)(const Tensor& a, const Tensor& pivots, const Tensor& infos);
  // b (*, n, k) = op(A)^-1 b from getrf's factors of square A; trans 'N', 'T' or 'C'.
  void (*getrs)(const Tensor& lu, const Tensor& pivots, const Tensor& b, char trans);
  // Cholesky factor of every a (n x n) in its `upper` or lower triangle (the other left as
  // it was); infos: i > 0 when the leading minor of order i is not positive-definite.
  void (*potrf)(const Tensor& a, bool upper, const Tensor& infos);
  // Householder QR of every a (m x n) in place (R on and above the diagonal, the reflectors
  // below it); tau (*, min(m, n)).
  void (*geqrf)(const Tensor& a, const Tensor& tau);
  // The first n columns of Q = H_0 ... H_{k-1} (k = tau.size(-1) <= n <= m) into a (m x n),
  // whose first k columns hold the reflectors on entry.
  void (*orgqr)(const Tensor& a, const Tensor& tau);
  // Eigenvalues (ascending) of every Hermitian a (n x n), read from its `upper` or lower
  // triangle, into w (*, n) (real dtype); a is overwritten by the eigenvectors when
  // `vectors` (else destroyed). infos: i > 0 when the algorithm did not converge.
  void (*syevd)(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& infos);
  // SVD of every a (m x n, m >= n; destroyed): s (*, n) real, descending; when jobz is 'S'
  // (reduced) or 'A' (complete) also u (m x n or m x m) and vh (n x n). infos: i > 0 when
  // the algorithm did not converge.
  void (*gesvd)(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vh, char jobz, const Tensor& infos);
};

// What a device registers: KernelRegistrar<DeviceLapackFn>("device_lapack", kCUDA, ...).
using DeviceLapackFn = const DeviceLapack* (*)();

namespace linalg_detail {

// Whether A's factorisations go through a DeviceLapack (A is not on the CPU, or a test asked
// for the device path with ScopedDeviceLapackForCpu).
bool on_device_lapack(const Tensor& A);
// The table for A's device; raises, naming `api` and the device, when it has none.
const DeviceLapack& device_lapack(const Tensor& A, const char* api);
// The int32 infos of a DeviceLapack call, copied to the host (the op's one synchronisation).
std::vector<int> host_infos(const Tensor& infos);

// Testing only: while one is alive on this thread, CPU tensors take the device path with
// `table` (a LAPACK-backed stand-in), so the op-level device code runs without a GPU.
class ScopedDeviceLapackForCpu {
 public:
  explicit ScopedDeviceLapackForCpu(const DeviceLapack* table);
  ~ScopedDeviceLapackForCpu();
  ScopedDeviceLapackForCpu(const ScopedDeviceLapackForCpu&) = delete;
  ScopedDeviceLapackForCpu& operator=(const ScopedDeviceLapackForCpu&) = delete;

 private:
  const DeviceLapack* previous_;
};

}  // namespace linalg_detail
}  // namespace ember
