// What the CPU code generator compiles (Note [Pointwise fusion] in fuser.cpp): one fused group of
// pointwise ops as a list of instructions over the group's operands. Plain data, shared by
// libember (which builds it from a graph) and libember_llvm (which compiles it): both are built
// together, so the layout is one.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace ember::jit {

// FNV-1a: the 64-bit hash of cache keys and kernel names (both libraries use this one).
inline uint64_t fnv1a(std::string_view bytes, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Element types a kernel loads and stores. Half and BFloat16 are computed in float; Bool (one
// byte, 0 or 1) as 0.0 or 1.0 of the compute type; complex64 and complex128 (C64, C128: real
// part, then imaginary, as std::complex) as two values of the compute type (Note [Complex kernels]
// in cpu_codegen.cpp; CPU only).
enum class KTy : uint8_t { F32, F64, F16, BF16, Bool, C64, C128 };
inline int ksize(KTy t) {
  switch (t) {
    case KTy::F64: case KTy::C64: return 8;
    case KTy::F32: return 4;
    case KTy::Bool: return 1;
    case KTy::C128: return 16;
    default: return 2;
  }
}
inline bool kcomplex(KTy t) { return t == KTy::C64 || t == KTy::C128; }
inline const char* kname(KTy t) {
  switch (t) {
    case KTy::F32: return "f32";
    case KTy::F64: return "f64";
    case KTy::F16: return "f16";
    case KTy::BF16: return "bf16";
    case KTy::Bool: return "bool";
    case KTy::C64: return "c64";
    case KTy::C128: return "c128";
  }
  return "?";
}

// Note [Fused dropout]: dropout inside a fused group draws no mask tensor. A "dropout_seed" node
// draws one 64-bit seed from the default CPU generator per run (so manual_seed makes traced
// programs repeatable); element i (its row-major index in the output's shape) is kept when
// dropout_bits(seed, i) >> 40, a 24-bit uniform integer, is below dropout_threshold(p), and
// then scaled by 1 / (1 - p). The bits are SplitMix64's output function applied to a counter
// (a counter-based generator, as Philox is on GPUs): any element's bit is known without the
// others, so the kernel computes it where it needs it, the backward recomputes the same mask
// from the same seed, and the op-by-op path (fused_dropout in random_ops.cpp) gives the same
// values. The stream differs from eager dropout's (Bernoulli draws from the MT19937 generator,
// LibTorch's), as a fused program's does in PyTorch.
inline uint64_t dropout_bits(uint64_t seed, uint64_t index) {
  uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
inline uint64_t dropout_threshold(double keep_probability) {
  return static_cast<uint64_t>(keep_probability * 16777216.0 + 0.5);
}

// Operands of the kernel, in TensorIterator's order: outputs first, then inputs. An input
// reference r in an instruction: r < num_inputs is input r; else the result of instruction
// r - num_inputs. Constants are instructions of op "const" (value in scalars[0]).
struct KInstr {
  std::string op;             // "add", "exp", ... (kernel_ops() lists them), "const", or a row
                              // reduction: "row_sum" (scalars[0] is 1 for a mean), "row_max" or
                              // "row_min" (scalars[1] is 1 when NaN propagates: amax, amin)
  std::vector<int> args;
  double scalars[4] = {0, 0, 0, 0};  // the op's scalar arguments (alpha, slopes, ...)
  int num_scalars = 0;
  bool row_reduction() const { return op == "row_sum" || op == "row_max" || op == "row_min"; }
};

struct KernelSpec {
  std::vector<KTy> outputs, inputs;
  int seeds = 0;  // dropout seeds the kernel reads from its `extra` argument (Note [Fused dropout])
  std::vector<int> output_values;  // which value each output stores
  // Per output: 1 when it is a row reduction's (one value per call, the sum or mean of its
  // instruction's argument over the call's n elements, stored at the output's pointer).
  std::vector<uint8_t> output_rows;
  std::vector<KInstr> instrs;
  bool f64 = false;  // compute in double (some operand is double or complex128), else float
  // A text form: the kernel caches' key and what error messages show.
  std::string str() const {
    std::string s = f64 ? "f64:" : "f32:";
    for (KTy t : outputs) s += std::string(" out ") + kname(t);
    for (KTy t : inputs) s += std::string(" in ") + kname(t);
    if (seeds > 0) s += " seeds " + std::to_string(seeds);
    for (size_t k = 0; k < instrs.size(); ++k) {
      s += "; %" + std::to_string(inputs.size() + k) + " = " + instrs[k].op;
      for (int a : instrs[k].args) s += " %" + std::to_string(a);
      for (int i = 0; i < instrs[k].num_scalars; ++i) {
        char buf[40];
        std::snprintf(buf, sizeof buf, " %a", instrs[k].scalars[i]);  // exact: the key of a cache
        s += buf;
      }
    }
    s += "; store";
    for (size_t k = 0; k < output_values.size(); ++k)
      s += (k < output_rows.size() && output_rows[k] ? " row %" : " %") + std::to_string(output_values[k]);
    return s;
  }
};

// The most operands (outputs and inputs) and iterator dimensions a CUDA kernel takes (Note [CUDA
// code generator]); the fuser keeps groups within the first (TensorIterator's own limit, 6).
constexpr int kMaxKernelOperands = 6;
constexpr int kMaxKernelDims = 8;

// The loop a compiled kernel is: TensorIterator's inner loop (byte strides, outputs first).
// `extra` (kernels with seeds only): the row-major index of the loop's first element in the
// output, then the seeds.
using KernelFn = void (*)(char** data, const int64_t* strides, int64_t n, const uint64_t* extra);

}  // namespace ember::jit
