// The CUDA code generator of the fuser: CUDA C++ source for a fused group (cuda_codegen.h).
//
// Note [CUDA code generator]: a fused group on CUDA tensors (Note [Pointwise fusion]) becomes a
// kernel whose CUDA C++ is generated here from the same KernelSpec the CPU code generator
// compiles, compiled at run time by NVRTC (opened on first use, as cuBLAS is: Note [CUDA
// libraries loaded on first use]) into a CUDA binary for the device's architecture, loaded with
// the driver API and launched on the current stream (ember/jit/cuda/fused_cuda.cpp). The kernel
// is a grid-stride loop over the group's broadcast shape as TensorIterator laid it out (at most 8
// dimensions after coalescing, innermost first; byte strides per operand, outputs first), so
// broadcast, transposed and sliced operands need no copies. It computes as the CPU kernels do:
// float (double when an operand is double), half and bfloat16 widened on load and rounded to
// nearest even on store (no CUDA headers: the conversions are written out or one PTX
// instruction), bool as 0 or 1; libdevice's math (expf, tanhf, erff...), no fast-math.
// Compiled kernels are cached in memory per group and device, and on disk by source,
// architecture and NVRTC version (Note [Kernel cache]).
#include "ember/jit/cuda_codegen.h"

#include <sstream>

#include "ember/core/error.h"
#include "ember/jit/fusion_group.h"
#include "ember/jit/ir.h"

namespace ember::jit::detail {

namespace {

const char* storage_type(KTy t) {
  switch (t) {
    case KTy::F32: return "float";
    case KTy::F64: return "double";
    case KTy::F16:
    case KTy::BF16: return "unsigned short";
    case KTy::Bool: return "unsigned char";
    case KTy::C64:
    case KTy::C128: break;  // the fuser keeps complex groups off CUDA devices
  }
  EMBER_INTERNAL_ASSERT(false, "jit: the CUDA code generator has no complex kernels");
  return "?";
}

std::string number(double v, bool f64) {
  if (v != v) return f64 ? "__longlong_as_double(0x7ff8000000000000LL)" : "__uint_as_float(0x7fc00000u)";
  if (v == 1.0 / 0.0) return f64 ? "__longlong_as_double(0x7ff0000000000000LL)" : "__uint_as_float(0x7f800000u)";
  if (v == -1.0 / 0.0) return f64 ? "__longlong_as_double((long long)0xfff0000000000000ULL)" : "__uint_as_float(0xff800000u)";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);  // exact
  return f64 ? std::string("((double)") + buf + ")" : std::string("((float)") + buf + ")";
}

}  // namespace

std::string cuda_kernel_source(const KernelSpec& spec, const std::string& name) {
  const bool f64 = spec.f64;
  const std::string ct = f64 ? "double" : "float";
  auto fn = [&](const char* f) { return f64 ? std::string(f) : std::string(f) + "f"; };
  const size_t nout = spec.outputs.size(), nin = spec.inputs.size();
  std::ostringstream os;
  os << "// ember fused kernel: " << spec.str() << "\n"
     << "typedef long long i64;\n"
     << "struct EmberFusedArgs { char* data[" << kMaxKernelOperands << "]; i64 strides[" << kMaxKernelOperands << "]["
     << kMaxKernelDims << "]; i64 sizes[" << kMaxKernelDims << "]; int ndim; i64 n; };\n"
     << "static __device__ __forceinline__ float bf16_to_f(unsigned short h) { return __uint_as_float(((unsigned)h) << 16); }\n"
     << "static __device__ __forceinline__ unsigned short f_to_bf16(float f) {\n"
     << "  if (f != f) return 0x7FC0;\n"
     << "  unsigned b = __float_as_uint(f);\n"
     << "  return (unsigned short)((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);\n"
     << "}\n"
     << "static __device__ __forceinline__ float h_to_f(unsigned short h) { float f; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h)); return f; }\n"
     << "static __device__ __forceinline__ unsigned short f_to_h(float f) { unsigned short h; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f)); return h; }\n"
     << "extern \"C\" __global__ void " << name << "(EmberFusedArgs a) {\n"
     << "  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += (i64)gridDim.x * blockDim.x) {\n"
     << "    i64 off[" << (nout + nin) << "] = {0};\n"
     << "    i64 r = i;\n"
     << "    for (int d = 0; d < a.ndim; ++d) {\n"
     << "      const i64 s = a.sizes[d], x = r % s;\n"
     << "      r /= s;\n"
     << "      for (int k = 0; k < " << (nout + nin) << "; ++k) off[k] += x * a.strides[k][d];\n"
     << "    }\n";
  auto load = [&](size_t operand, KTy t) -> std::string {
    const std::string p = "(const " + std::string(storage_type(t)) + "*)(a.data[" + std::to_string(operand) + "] + off[" +
                          std::to_string(operand) + "])";
    switch (t) {
      case KTy::F32:
      case KTy::F64: return "(" + ct + ")*" + p;
      case KTy::F16: return "(" + ct + ")h_to_f(*" + p + ")";
      case KTy::BF16: return "(" + ct + ")bf16_to_f(*" + p + ")";
      case KTy::Bool: return "(*" + p + " ? (" + ct + ")1 : (" + ct + ")0)";
      case KTy::C64:
      case KTy::C128: break;  // storage_type refused it
    }
    return "";
  };
  for (size_t k = 0; k < nin; ++k) os << "    const " << ct << " v" << k << " = " << load(nout + k, spec.inputs[k]) << ";\n";
  for (size_t k = 0; k < spec.instrs.size(); ++k) {
    const KInstr& in = spec.instrs[k];
    auto arg = [&](size_t i) -> std::string {
      EMBER_INTERNAL_ASSERT(i < in.args.size() && in.args[i] >= 0 && size_t(in.args[i]) < nin + k,
                            "jit: a kernel instruction reads an undefined value");
      return "v" + std::to_string(in.args[i]);
    };
    auto s = [&](int i, double dflt) { return number(in.num_scalars > i ? in.scalars[i] : dflt, f64); };
    const std::string& o = in.op;
    const std::string zero = "(" + ct + ")0", one = "(" + ct + ")1";
    std::string e;
    if (o == "const") e = number(in.scalars[0], f64);
    else if (o == "add") e = arg(0) + " + " + s(0, 1) + " * " + arg(1);
    else if (o == "sub") e = arg(0) + " - " + s(0, 1) + " * " + arg(1);
    else if (o == "mul") e = arg(0) + " * " + arg(1);
    else if (o == "div_true") e = arg(0) + " / " + arg(1);
    else if (o == "neg") e = "-" + arg(0);
    else if (o == "reciprocal") e = one + " / " + arg(0);
    else if (o == "square") e = arg(0) + " * " + arg(0);
    else if (o == "exp" || o == "log" || o == "sin" || o == "cos" || o == "sqrt" || o == "rsqrt" || o == "tanh" || o == "erf")
      e = fn(o.c_str()) + "(" + arg(0) + ")";
    else if (o == "abs") e = fn("fabs") + "(" + arg(0) + ")";
    else if (o == "sigmoid") e = one + " / (" + one + " + " + fn("exp") + "(-" + arg(0) + "))";
    else if (o == "silu") e = arg(0) + " / (" + one + " + " + fn("exp") + "(-" + arg(0) + "))";
    else if (o == "relu") e = arg(0) + " < " + zero + " ? " + zero + " : " + arg(0);  // NaN stays NaN
    else if (o == "leaky_relu") e = arg(0) + " > " + zero + " ? " + arg(0) + " : " + arg(0) + " * " + s(0, 0.01);
    else if (o == "gelu") {
      const std::string x = arg(0);
      if (in.num_scalars > 0 && in.scalars[0] == 1)
        e = number(0.5, f64) + " * " + x + " * (" + one + " + " + fn("tanh") + "(" + number(0.7978845608028654, f64) + " * (" + x +
            " + " + number(0.044715, f64) + " * " + x + " * " + x + " * " + x + ")))";
      else
        e = x + " * " + number(0.5, f64) + " * (" + one + " + " + fn("erf") + "(" + x + " * " + number(0.70710678118654752440, f64) + "))";
    } else if (o == "maximum" || o == "minimum") {  // NaN wins, as in eager
      const std::string a0 = arg(0), a1 = arg(1), cmp = o == "maximum" ? " > " : " < ";
      e = "(" + a0 + " != " + a0 + ") ? " + a0 + " : (" + a1 + " != " + a1 + ") ? " + a1 + " : (" + a0 + cmp + a1 + " ? " + a0 + " : " + a1 + ")";
    } else if (o == "pow") e = fn("pow") + "(" + arg(0) + ", " + arg(1) + ")";
    else if (o == "gt" || o == "lt" || o == "ge" || o == "le" || o == "eq") {
      const char* c = o == "gt" ? " > " : o == "lt" ? " < " : o == "ge" ? " >= " : o == "le" ? " <= " : " == ";
      e = "(" + arg(0) + c + arg(1) + ") ? " + one + " : " + zero;
    } else if (o == "ne") e = "(" + arg(0) + " == " + arg(1) + ") ? " + zero + " : " + one;  // NaN != NaN
    else if (o == "where") e = "(" + arg(0) + " != " + zero + ") ? " + arg(1) + " : " + arg(2);
    else if (o == "sign" || o == "sgn") e = "(" + ct + ")((" + arg(0) + " > " + zero + ") - (" + arg(0) + " < " + zero + "))";
    else if (o == "conj_physical") e = arg(0);
    else if (o == "angle")  // real: pi below 0, else 0; NaN stays NaN
      e = "(" + arg(0) + " != " + arg(0) + ") ? " + arg(0) + " : (" + arg(0) + " < " + zero + " ? " + number(3.14159265358979323846, f64) + " : " + zero + ")";
    else if (o == "convert") {  // to half or bfloat16: rounded as a store would (Note [Fused casts])
      const KTy to = KTy(int(in.scalars[0]));
      e = to == KTy::F16 ? "(" + ct + ")h_to_f(f_to_h((float)" + arg(0) + "))"
          : to == KTy::BF16 ? "(" + ct + ")bf16_to_f(f_to_bf16((float)" + arg(0) + "))"
                            : arg(0);
    }
    else EMBER_ERROR("jit: the CUDA code generator has no rule for '", o, "'");
    os << "    const " << ct << " v" << (nin + k) << " = " << e << ";\n";
  }
  for (size_t k = 0; k < nout; ++k) {
    const int v = spec.output_values[k];
    EMBER_INTERNAL_ASSERT(v >= 0 && size_t(v) < nin + spec.instrs.size(), "jit: a kernel stores an undefined value");
    const std::string value = "v" + std::to_string(v);
    const std::string p = "(" + std::string(storage_type(spec.outputs[k])) + "*)(a.data[" + std::to_string(k) + "] + off[" +
                          std::to_string(k) + "])";
    std::string stored;
    switch (spec.outputs[k]) {
      case KTy::F32: stored = "(float)" + value; break;
      case KTy::F64: stored = "(double)" + value; break;
      case KTy::F16: stored = "f_to_h((float)" + value + ")"; break;
      case KTy::BF16: stored = "f_to_bf16((float)" + value + ")"; break;
      case KTy::Bool: stored = "(unsigned char)(" + value + " != 0)"; break;
      case KTy::C64:
      case KTy::C128: break;  // storage_type refused it
    }
    os << "    *" << p << " = " << stored << ";\n";
  }
  os << "  }\n}\n";
  return os.str();
}

std::vector<CudaGroupReport> compile_cuda_groups(const Graph& g, const std::string& arch) {
  std::vector<CudaGroupReport> r;
  for (const auto& n : g.nodes()) {
    if (!n->fusion) continue;
    CudaGroupReport rep;
    rep.source = cuda_kernel_source(n->fusion->spec, "ember_fused_test");
    rep.result = nvrtc_compile(rep.source, "ember_fused_test", arch);
    r.push_back(std::move(rep));
  }
  return r;
}

}  // namespace ember::jit::detail
