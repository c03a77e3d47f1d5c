// What the CPU code generator compiles (Note [Pointwise fusion] in fuser.cpp): one fused group of
// pointwise ops as a list of instructions over the group's operands. Plain data, shared by
// libember (which builds it from a graph) and libember_llvm (which compiles it): both are built
// together, so the layout is one.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace ember::jit {

// Element types a kernel loads and stores. Half and BFloat16 are computed in float; Bool (one
// byte, 0 or 1) as 0.0 or 1.0 of the compute type.
enum class KTy : uint8_t { F32, F64, F16, BF16, Bool };
inline int ksize(KTy t) { return t == KTy::F64 ? 8 : t == KTy::F32 ? 4 : t == KTy::Bool ? 1 : 2; }
inline const char* kname(KTy t) {
  switch (t) {
    case KTy::F32: return "f32";
    case KTy::F64: return "f64";
    case KTy::F16: return "f16";
    case KTy::BF16: return "bf16";
    case KTy::Bool: return "bool";
  }
  return "?";
}

// Operands of the kernel, in TensorIterator's order: outputs first, then inputs. An input
// reference r in an instruction: r < num_inputs is input r; else the result of instruction
// r - num_inputs. Constants are instructions of op "const" (value in scalars[0]).
struct KInstr {
  std::string op;             // "add", "exp", ... (kernel_ops() lists them), or "const"
  std::vector<int> args;
  double scalars[4] = {0, 0, 0, 0};  // the op's scalar arguments (alpha, slopes, ...)
  int num_scalars = 0;
};

struct KernelSpec {
  std::vector<KTy> outputs, inputs;
  std::vector<int> output_values;  // which value each output stores
  std::vector<KInstr> instrs;
  bool f64 = false;  // compute in double (some operand is double), else float
  // A text form: the kernel caches' key and what error messages show.
  std::string str() const {
    std::string s = f64 ? "f64:" : "f32:";
    for (KTy t : outputs) s += std::string(" out ") + kname(t);
    for (KTy t : inputs) s += std::string(" in ") + kname(t);
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
    for (int v : output_values) s += " %" + std::to_string(v);
    return s;
  }
};

// The most operands (outputs and inputs) and iterator dimensions a CUDA kernel takes (Note [CUDA
// code generator]); the fuser keeps groups within the first (TensorIterator's own limit, 6).
constexpr int kMaxKernelOperands = 6;
constexpr int kMaxKernelDims = 8;

// The loop a compiled kernel is: TensorIterator's inner loop (byte strides, outputs first).
using KernelFn = void (*)(char** data, const int64_t* strides, int64_t n);

}  // namespace ember::jit
