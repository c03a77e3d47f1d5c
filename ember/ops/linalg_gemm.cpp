// The tensor-level GEMM driver of the linear-algebra ops (linalg_utils.h): the op-table
// entries of the matmul family and their CPU kernel, and gemm_into, which turns strided,
// transposed, broadcast or aliased tensors into one strided-batched GemmArgs (blas.h).
#include <algorithm>
#include <optional>
#include <string_view>

#include "ember/cuda/guard.h"
#include "ember/ops/blas.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/functions.h"
#include "ember/ops/linalg_utils.h"
#include "ember/ops/op_def.h"
#include "ember/ops/type_promotion.h"

namespace ember {

namespace {
constexpr DtypeSet kGemmTypes = kAllTypes - kBoolType;
}  // namespace

// The op-table entries. "mm" owns the CPU GEMM kernel that the whole family runs on; the
// others carry the per-op metadata (dtypes, autocast, derivative slots).
#define EMBER_GEMM_OP(var, opname)                                                             \
  OpDef<GemmFn> var(OpInfo{.name = opname, .fusion = FusionClass::Opaque, .dtypes = kGemmTypes});
EMBER_GEMM_OP(mm_op, "mm")
EMBER_GEMM_OP(bmm_op, "bmm")
EMBER_GEMM_OP(addmm_op, "addmm")
EMBER_GEMM_OP(baddbmm_op, "baddbmm")
EMBER_GEMM_OP(addbmm_op, "addbmm")
EMBER_GEMM_OP(mv_op, "mv")
EMBER_GEMM_OP(addmv_op, "addmv")
EMBER_GEMM_OP(dot_op, "dot")
EMBER_GEMM_OP(vdot_op, "vdot")
#undef EMBER_GEMM_OP
// Every op of the family runs the same strided-batched GEMM on CPU.
#define EMBER_GEMM_REG(opname) \
  const KernelRegistrar<GemmFn> opname##_cpu_reg(#opname, kCPU, CpuCapability::Default, &cpu_gemm);
EMBER_GEMM_REG(mm) EMBER_GEMM_REG(bmm) EMBER_GEMM_REG(addmm) EMBER_GEMM_REG(baddbmm) EMBER_GEMM_REG(addbmm)
EMBER_GEMM_REG(mv) EMBER_GEMM_REG(addmv) EMBER_GEMM_REG(dot) EMBER_GEMM_REG(vdot)
#undef EMBER_GEMM_REG

namespace {
// The table entry whose kernel runs a GEMM for `op` ("addmm_" -> addmm); mm otherwise
// (matmul, einsum, tensordot and the other composites).
const OpDef<GemmFn>& gemm_op_for(std::string_view op) {
  if (!op.empty() && op.back() == '_') op.remove_suffix(1);
  for (const OpDef<GemmFn>* d : {&bmm_op, &addmm_op, &baddbmm_op, &addbmm_op, &mv_op, &addmv_op, &dot_op, &vdot_op})
    if (d->name == op) return *d;
  return mm_op;
}
}  // namespace

namespace linalg_detail {

const char* cpp_type_name(ScalarType t) {
  return TypeMeta(t).name().data();  // the names are string literals
}

void check_same_device(const char* op, std::initializer_list<const Tensor*> tensors) {
  const Tensor* first = nullptr;
  for (const Tensor* t : tensors) {
    EMBER_CHECK(t->defined(), op, ": expected a defined tensor");
    if (!first) first = t;
    EMBER_CHECK(t->device() == first->device(), op, ": Expected all tensors to be on the same device, but found at "
                "least two devices, ", first->device(), " and ", t->device(), "!");
  }
}

void check_gemm_dtype(const char* op, ScalarType t) {
  EMBER_CHECK_TYPE(kGemmTypes.contains(t), "\"", op, "\" not implemented for '", t, "'");
}

namespace {

struct Layout {
  BlasTrans trans;
  int64_t ld;
};

// How BLAS can read a rows x cols matrix with strides (rs, cs) in place: row-major (unit
// column stride, rows at least a row apart) or column-major, read as a transpose.
std::optional<Layout> blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if ((cs == 1 || cols <= 1) && (rows <= 1 || rs >= std::max<int64_t>(cols, 1)))
    return Layout{BlasTrans::N, rows <= 1 ? std::max<int64_t>(cols, 1) : rs};
  if ((rs == 1 || rows <= 1) && (cols <= 1 || cs >= std::max<int64_t>(rows, 1)))
    return Layout{BlasTrans::T, cols <= 1 ? std::max<int64_t>(rows, 1) : cs};
  return std::nullopt;
}

struct Operand {
  Tensor keep;  // owns the data: the input, or a contiguous copy of it
  Layout layout;
  int64_t batch_stride;
};

// A 3-D operand as BLAS reads it; a matrix broadcast over the batch keeps batch stride 0.
Operand make_operand(const Tensor& x) {
  const int64_t rows = x.size(1), cols = x.size(2);
  const bool broadcast = x.size(0) <= 1 || x.stride(0) == 0;
  if (auto l = blas_layout(rows, cols, x.stride(1), x.stride(2))) return {x, *l, broadcast ? 0 : x.stride(0)};
  Tensor t = broadcast ? x.narrow(0, 0, std::min<int64_t>(x.size(0), 1)).contiguous() : x.contiguous();
  return {t, Layout{BlasTrans::N, std::max<int64_t>(cols, 1)}, broadcast ? 0 : t.stride(0)};
}

BlasTrans flip(BlasTrans t) { return t == BlasTrans::N ? BlasTrans::T : BlasTrans::N; }

// A broadcast batch operand converted to dtype w without materialising the broadcast.
Tensor widen(const Tensor& x, ScalarType w) {
  if (x.size(0) > 1 && x.stride(0) == 0) return x.narrow(0, 0, 1).to(w).expand(x.sizes());
  return x.to(w);
}

}  // namespace

void run_gemm(GemmArgs& g, Device d, const char* op) {
  GemmFn k = gemm_op_for(op).kernel(d.type());
  EMBER_CHECK(k != nullptr, op, ": no kernel for device ", d);
  DeviceGuard guard(d);  // a CUDA kernel runs on the operands' device
  k(g);
}

void gemm_into(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& alpha, const Scalar& beta,
               const char* op) {
  EMBER_INTERNAL_ASSERT(c.dim() == 3 && a.dim() == 3 && b.dim() == 3, op, ": gemm_into needs 3-D operands");
  const int64_t B = c.size(0), m = c.size(1), n = c.size(2), k = a.size(2);
  EMBER_INTERNAL_ASSERT(a.size(1) == m && b.size(1) == k && b.size(2) == n && a.size(0) == B && b.size(0) == B,
                        op, ": gemm_into shapes ", a.sizes(), " ", b.sizes(), " ", c.sizes());
  const ScalarType dt = c.scalar_type();
  check_gemm_dtype(op, dt);
  if (B == 0 || m == 0 || n == 0 || c.is_meta()) return;
  EMBER_INTERNAL_ASSERT(a.scalar_type() == dt && b.scalar_type() == dt, op, ": gemm_into dtypes");
  const bool beta_zero = beta.toComplexDouble() == Complex<double>(0);
  if (dt == kComplexHalf || (dt == kHalf && !c.is_cuda())) {
    // No BLAS library multiplies these on CPU (nor complex32 on CUDA): compute in Float /
    // ComplexFloat, round once.
    const ScalarType w = computeType(dt);
    Tensor cw = beta_zero ? empty(c.sizes(), c.options().dtype(w)) : c.to(w);
    gemm_into(cw, widen(a, w), widen(b, w), alpha, beta, op);
    const_cast<Tensor&>(c).copy_(cw);
    return;
  }
  // C must be written in place as row-major (or column-major, computing C^T = B^T A^T),
  // must not overlap itself across the batch, and must not alias an input.
  const int64_t rs = c.stride(1), cs = c.stride(2), bs = c.stride(0);
  const bool row_major = (cs == 1 || n <= 1) && (m <= 1 || rs >= std::max<int64_t>(n, 1)) &&
                         (B <= 1 || bs >= (m <= 1 ? 0 : (m - 1) * rs) + n);
  const bool col_major = !row_major && (rs == 1 || m <= 1) && (n <= 1 || cs >= std::max<int64_t>(m, 1)) &&
                         (B <= 1 || bs >= (n <= 1 ? 0 : (n - 1) * cs) + m);
  const bool aliased = c.is_alias_of(a) || c.is_alias_of(b);
  if ((!row_major && !col_major) || aliased) {
    Tensor tmp = beta_zero ? empty(c.sizes(), c.options()) : c.clone(MemoryFormat::Contiguous);
    gemm_into(tmp, a, b, alpha, beta, op);
    const_cast<Tensor&>(c).copy_(tmp);
    return;
  }
  Operand A = make_operand(a), Bm = make_operand(b);
  GemmArgs g;
  g.dtype = dt, g.batch = B, g.k = k, g.alpha = alpha, g.beta = beta;
  g.c = c.data_ptr();
  g.stride_c = B <= 1 ? 0 : bs;
  if (row_major) {
    g.m = m, g.n = n, g.ldc = m <= 1 ? std::max<int64_t>(n, 1) : rs;
    g.ta = A.layout.trans, g.a = A.keep.data_ptr(), g.lda = A.layout.ld, g.stride_a = A.batch_stride;
    g.tb = Bm.layout.trans, g.b = Bm.keep.data_ptr(), g.ldb = Bm.layout.ld, g.stride_b = Bm.batch_stride;
  } else {
    // C^T (n x m, row-major with row stride cs) = op(B)^T (n x k) @ op(A)^T (k x m).
    g.m = n, g.n = m, g.ldc = n <= 1 ? std::max<int64_t>(m, 1) : cs;
    g.ta = flip(Bm.layout.trans), g.a = Bm.keep.data_ptr(), g.lda = Bm.layout.ld, g.stride_a = Bm.batch_stride;
    g.tb = flip(A.layout.trans), g.b = A.keep.data_ptr(), g.ldb = A.layout.ld, g.stride_b = A.batch_stride;
  }
  run_gemm(g, c.device(), op);
  c.bump_version();
}

bool gemm_bias_into(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias) {
  if (out.is_cpu() || a.dim() != 2 || b.dim() != 2 || bias.dim() != 1 || !bias.is_contiguous()) return false;
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  // As PyTorch, unit dims stay on cuBLAS (cuBLASLt has had bugs with leading dims far
  // above the row count there).
  if (m <= 1 || n <= 1 || k <= 1 || bias.size(0) != n || !out.is_contiguous()) return false;
  const ScalarType dt = out.scalar_type();
  if (a.scalar_type() != dt || b.scalar_type() != dt || bias.scalar_type() != dt) return false;
  const auto fn = reinterpret_cast<GemmBiasFn>(lookup_kernel("gemm_bias", out.device().type()));
  const auto la = blas_layout(m, k, a.stride(0), a.stride(1)), lb = blas_layout(k, n, b.stride(0), b.stride(1));
  if (!fn || !la || !lb) return false;
  GemmArgs g;
  g.dtype = dt, g.m = m, g.n = n, g.k = k;
  g.ta = la->trans, g.a = a.data_ptr(), g.lda = la->ld;
  g.tb = lb->trans, g.b = b.data_ptr(), g.ldb = lb->ld;
  g.c = out.data_ptr(), g.ldc = n;
  DeviceGuard guard(out.device());
  if (!fn(g, bias.data_ptr())) return false;
  out.bump_version();
  return true;
}

Tensor sum_dims_keepdim(const Tensor& t, IntArrayRef dims) {
  const int64_t nd = t.dim();
  std::vector<bool> summed(nd, false);
  for (int64_t d : dims) summed[maybe_wrap_dim(d, nd, "sum")] = true;
  std::vector<int64_t> perm, keep_sizes, out_sizes(t.sizes().begin(), t.sizes().end());
  int64_t R = 1, S = 1;
  for (int64_t d = 0; d < nd; ++d)
    if (!summed[d]) perm.push_back(d), R *= t.size(d);
  for (int64_t d = 0; d < nd; ++d)
    if (summed[d]) perm.push_back(d), S *= t.size(d), out_sizes[d] = 1;
  Tensor x = t.permute(perm).reshape({R, S});
  Tensor r = mv(x, ones({S}, t.options()));
  return r.view(out_sizes);
}

}  // namespace linalg_detail

}  // namespace ember
