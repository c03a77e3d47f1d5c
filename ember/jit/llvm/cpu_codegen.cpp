// The CPU code generator of the fuser (Note [Pointwise fusion], Note [LLVM backend]): compiles a
// KernelSpec to machine code with LLVM's ORC JIT. Built as libember_llvm.so, which libember
// opens on first use (as it opens cuBLAS): a program that never fuses never loads LLVM.
//
// Note [LLVM backend]: LLVM 14, Debian's, because the sanitizer build's clang-14 already needs
// it (one LLVM on the machine) and its ORC LLJIT, new pass manager and x86 AVX-512 and AArch64
// (NEON) code generation are what the fuser needs. A kernel is TensorIterator's inner loop,
//   void kernel(char** data, const int64_t* strides, int64_t n)
// with two bodies: every operand contiguous (typed loads and stores at i, which the loop
// vectorizer widens to the machine's vectors) and any strides (byte offsets i * stride). Values
// are computed in float (double when an operand is double): half and bfloat16 load widened and
// store rounded to nearest even, as the eager kernels do per op; a fused group rounds only what it
// stores. exp, log, sin, cos, tanh and erf call libm, which the vectorizer maps to glibc's libmvec
// (the same functions, 8 or 16 lanes) on x86-64. The module is optimized at O3 for the host CPU (its
// features, 512-bit vectors where AVX-512 is there), compiled to an object file and added to
// ORC's JIT.
//
// Note [Complex kernels]: a complex64 or complex128 operand is two values of the compute type (its
// real and imaginary parts, loaded from and stored to the element's two halves); a real value read
// as complex has imaginary part 0, as eager promotes it. The ops with a complex rule (the fuser's
// complex_kernel_ops) compute as ember's Complex<T> does: add, sub, mul and square by their
// definitions, div_true and reciprocal by Smith's algorithm, exp as e^re (cos im, sin im), sgn as
// z / |z| (0 at 0), abs and angle as hypot and atan2 (real results), conj_physical, where, eq and
// ne on both parts. Complex64 is computed in float (eager evaluates its exp in double and rounds
// once: the fused value may differ in the last bits).
//
// The kernels' object files are what libember keeps in its disk cache (Note [Kernel cache] in
// ember/jit/kernel_cache.cpp); ember_llvm_host() says what they were compiled for.
#include <dlfcn.h>

#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <mutex>
#include <stdexcept>
#include <string>

#include "ember/jit/kernel_spec.h"

namespace ember::jit::llvm_backend {
namespace {

using namespace llvm;

struct Jit {
  std::unique_ptr<orc::LLJIT> jit;
  std::unique_ptr<TargetMachine> tm;
  bool avx512 = false, avx2 = false;
  std::string host;  // what a kernel is compiled for: CPU name, features, this library's digest
};

// A digest of this library's own file (libember_llvm.so): a new code generator, a new cache.
std::string self_digest() {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void*>(&self_digest), &info) || !info.dli_fname) return "unknown";
  std::ifstream f(info.dli_fname, std::ios::binary);
  std::stringstream bytes;
  bytes << f.rdbuf();
  const std::string b = bytes.str();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx:%zu", (unsigned long long)fnv1a(b), b.size());
  return buf;
}


std::string error_text(Error e) {
  std::string s;
  raw_string_ostream os(s);
  os << e;
  return os.str();
}

Jit& jit() {
  static Jit* j = [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
    auto* r = new Jit;
    auto jtmb = orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) throw std::runtime_error("jit: LLVM cannot describe this CPU: " + error_text(jtmb.takeError()));
    jtmb->setCodeGenOptLevel(CodeGenOpt::Aggressive);
    const SubtargetFeatures& f = jtmb->getFeatures();
    for (const std::string& feature : f.getFeatures()) {
      if (feature == "+avx512f") r->avx512 = true;
      if (feature == "+avx2") r->avx2 = true;
    }
    auto tm = jtmb->createTargetMachine();
    if (!tm) throw std::runtime_error("jit: LLVM cannot target this CPU: " + error_text(tm.takeError()));
    r->tm = std::move(*tm);
    auto built = orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
    if (!built) throw std::runtime_error("jit: cannot start LLVM's JIT: " + error_text(built.takeError()));
    r->jit = std::move(*built);
    // libm and libmvec (the vectorized math the loops call) resolve from the process.
    ::dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL);
    auto gen = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(r->jit->getDataLayout().getGlobalPrefix());
    if (!gen) throw std::runtime_error("jit: " + error_text(gen.takeError()));
    r->jit->getMainJITDylib().addGenerator(std::move(*gen));
    r->host = sys::getHostCPUName().str();
    for (const std::string& feature : f.getFeatures()) r->host += "," + feature;
    r->host += ";" + self_digest();
    return r;
  }();
  return *j;
}

// The vector variants glibc's libmvec offers beyond LLVM 14's own LIBMVEC-X86 list (tanh, erf).
// x86-64 only: LLVM 14 knows no vector library for AArch64's libmvec (glibc 2.36 has a few AdvSIMD
// functions), so on Arm the math calls stay scalar libm calls inside the vectorized loops.
void add_libmvec(TargetLibraryInfoImpl& tli, const Triple& target, bool avx512, bool avx2) {
  if (!target.isX86()) return;
  tli.addVectorizableFunctionsFromVecLib(TargetLibraryInfoImpl::LIBMVEC_X86);
  std::vector<VecDesc> extra;
  if (avx512) {
    extra.push_back({"tanhf", "_ZGVeN16v_tanhf", ElementCount::getFixed(16)});
    extra.push_back({"erff", "_ZGVeN16v_erff", ElementCount::getFixed(16)});
    extra.push_back({"tanh", "_ZGVeN8v_tanh", ElementCount::getFixed(8)});
    extra.push_back({"erf", "_ZGVeN8v_erf", ElementCount::getFixed(8)});
  }
  if (avx2) {
    extra.push_back({"tanhf", "_ZGVdN8v_tanhf", ElementCount::getFixed(8)});
    extra.push_back({"erff", "_ZGVdN8v_erff", ElementCount::getFixed(8)});
    extra.push_back({"tanh", "_ZGVdN4v_tanh", ElementCount::getFixed(4)});
    extra.push_back({"erf", "_ZGVdN4v_erf", ElementCount::getFixed(4)});
  }
  tli.addVectorizableFunctions(extra);
}

class Emitter {
 public:
  Emitter(LLVMContext& ctx, Module& m, const KernelSpec& spec) : ctx_(ctx), m_(m), spec_(spec), b_(ctx) {
    ct_ = spec.f64 ? Type::getDoubleTy(ctx) : Type::getFloatTy(ctx);
  }

  Function* emit(const std::string& name) {
    Type* i8pp = Type::getInt8PtrTy(ctx_)->getPointerTo();
    Type* i64 = Type::getInt64Ty(ctx_);
    auto* fty = FunctionType::get(Type::getVoidTy(ctx_), {i8pp, i64->getPointerTo(), i64, i64->getPointerTo()}, false);
    Function* f = Function::Create(fty, Function::ExternalLinkage, name, m_);
    f->addFnAttr(Attribute::NoUnwind);
    if (jit().avx512) f->addFnAttr("prefer-vector-width", "512");
    Argument* data = f->getArg(0);
    Argument* strides = f->getArg(1);
    Argument* n = f->getArg(2);
    Argument* extra = f->getArg(3);
    BasicBlock* entry = BasicBlock::Create(ctx_, "entry", f);
    b_.SetInsertPoint(entry);
    if (spec_.seeds > 0) {  // Note [Fused dropout]: the first element's index, then the seeds
      first_index_ = b_.CreateLoad(i64, extra);
      for (int k = 0; k < spec_.seeds; ++k) seeds_.push_back(b_.CreateLoad(i64, b_.CreateConstGEP1_64(i64, extra, 1 + k)));
    }
    const size_t nops = spec_.outputs.size() + spec_.inputs.size();
    std::vector<Value*> base(nops), stride(nops);
    Value* contiguous = b_.getTrue();
    for (size_t k = 0; k < nops; ++k) {
      base[k] = b_.CreateLoad(Type::getInt8PtrTy(ctx_), b_.CreateConstGEP1_64(Type::getInt8PtrTy(ctx_), data, k));
      stride[k] = b_.CreateLoad(i64, b_.CreateConstGEP1_64(i64, strides, k));
      if (row_output(k)) continue;  // stored once, at its pointer
      contiguous = b_.CreateAnd(contiguous, b_.CreateICmpEQ(stride[k], b_.getInt64(ksize(type_of(k)))));
    }
    BasicBlock* fast = BasicBlock::Create(ctx_, "contiguous", f);
    BasicBlock* slow = BasicBlock::Create(ctx_, "strided", f);
    BasicBlock* done = BasicBlock::Create(ctx_, "done", f);
    b_.CreateCondBr(contiguous, fast, slow);
    compute_stages();
    for (const bool contiguous_variant : {true, false}) {
      // One loop over the row per stage (Note [Row reductions] in fuser.cpp), chained.
      finals_.assign(spec_.inputs.size() + spec_.instrs.size(), nullptr);
      BasicBlock* head = contiguous_variant ? fast : slow;
      for (int s = 0; s <= last_stage_; ++s) {
        BasicBlock* next = s == last_stage_ ? done : BasicBlock::Create(ctx_, "stage" + std::to_string(s + 1), f);
        emit_loop(f, head, next, base, stride, n, contiguous_variant, s);
        head = next;
      }
    }
    b_.SetInsertPoint(done);
    b_.CreateRetVoid();
    return f;
  }

 private:
  // Note [Row reductions]: a value's stage is the loop over the row that computes it: 0 for
  // inputs and constants; a reduction's sum is complete after the loop of its argument's stage,
  // so values that read it are one stage later (LLVM hoists their row-invariant parts).
  void compute_stages() {
    const size_t nin = spec_.inputs.size();
    stage_.assign(nin + spec_.instrs.size(), 0);
    last_stage_ = 0;
    for (size_t k = 0; k < spec_.instrs.size(); ++k) {
      const KInstr& in = spec_.instrs[k];
      int st = 0;
      for (int a : in.args)
        if (a >= 0 && size_t(a) < nin + k) st = std::max(st, stage_[size_t(a)]);
      stage_[nin + k] = in.row_reduction() ? st + 1 : st;
    }
    for (size_t k = 0; k < spec_.outputs.size(); ++k) {
      const int v = spec_.output_values[k];
      if (v < 0 || size_t(v) >= stage_.size()) throw std::runtime_error("jit: a kernel stores an undefined value");
      last_stage_ = std::max(last_stage_, store_stage(size_t(v)));
    }
  }
  // The loop that stores value v: a reduction's after the loop that accumulates it.
  int store_stage(size_t v) const {
    const size_t nin = spec_.inputs.size();
    if (v >= nin && spec_.instrs[v - nin].row_reduction()) return stage_[v] - 1;
    return stage_[v];
  }
  bool has_reductions() const {
    for (const KInstr& in : spec_.instrs)
      if (in.row_reduction()) return true;
    return false;
  }
  bool row_output(size_t operand) const {
    return operand < spec_.output_rows.size() && spec_.output_rows[operand] != 0;
  }
  KTy type_of(size_t operand) const {
    return operand < spec_.outputs.size() ? spec_.outputs[operand] : spec_.inputs[operand - spec_.outputs.size()];
  }
  // What a load or store moves (a complex number's part, for complex types).
  Type* storage(KTy t) {
    switch (t) {
      case KTy::F32: case KTy::C64: return Type::getFloatTy(ctx_);
      case KTy::F64: case KTy::C128: return Type::getDoubleTy(ctx_);
      case KTy::F16: return Type::getHalfTy(ctx_);
      case KTy::BF16: return Type::getInt16Ty(ctx_);
      case KTy::Bool: return Type::getInt8Ty(ctx_);
    }
    return nullptr;
  }

  // The real type of a complex type's parts.
  static KTy part(KTy t) { return t == KTy::C64 ? KTy::F32 : t == KTy::C128 ? KTy::F64 : t; }

  Value* widen(Value* v, KTy t) {
    t = part(t);
    Type* f32 = Type::getFloatTy(ctx_);
    if (t == KTy::Bool) return b_.CreateUIToFP(b_.CreateICmpNE(v, b_.getInt8(0)), ct_);
    if (t == KTy::BF16) {
      Value* bits = b_.CreateShl(b_.CreateZExt(v, b_.getInt32Ty()), 16);
      v = b_.CreateBitCast(bits, f32);
    } else if (t == KTy::F16) {
      v = b_.CreateFPExt(v, f32);
    }
    if (v->getType() != ct_) v = v->getType()->isDoubleTy() ? b_.CreateFPTrunc(v, ct_) : b_.CreateFPExt(v, ct_);
    return v;
  }

  Value* narrow(Value* v, KTy t) {
    Type* f32 = Type::getFloatTy(ctx_);
    switch (part(t)) {
      case KTy::Bool: return b_.CreateZExt(b_.CreateFCmpUNE(v, c(0)), b_.getInt8Ty());
      case KTy::F64: return ct_->isDoubleTy() ? v : b_.CreateFPExt(v, Type::getDoubleTy(ctx_));
      case KTy::F32: return ct_->isDoubleTy() ? b_.CreateFPTrunc(v, f32) : v;
      case KTy::F16: return b_.CreateFPTrunc(v, Type::getHalfTy(ctx_));
      case KTy::BF16: {
        if (ct_->isDoubleTy()) v = b_.CreateFPTrunc(v, f32);
        // Round to nearest even; NaN stays a (quiet) NaN.
        Value* bits = b_.CreateBitCast(v, b_.getInt32Ty());
        Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, 16), 1);
        Value* rounded = b_.CreateLShr(b_.CreateAdd(bits, b_.CreateAdd(lsb, b_.getInt32(0x7FFF))), 16);
        Value* nan = b_.CreateFCmpUNO(v, v);
        return b_.CreateTrunc(b_.CreateSelect(nan, b_.getInt32(0x7FC0), rounded), b_.getInt16Ty());
      }
      case KTy::C64: case KTy::C128: break;  // part() made it real
    }
    return v;
  }

  Value* c(double x) { return ConstantFP::get(ct_, x); }

  // A libm function of the compute type (f32_name or f64_name) on args, which are that type too.
  Value* call(const char* f32_name, const char* f64_name, std::initializer_list<Value*> args) {
    const char* name = ct_->isDoubleTy() ? f64_name : f32_name;
    const std::vector<Type*> types(args.size(), ct_);
    FunctionCallee fn = m_.getOrInsertFunction(name, FunctionType::get(ct_, types, false));
    if (auto* decl = dyn_cast<Function>(fn.getCallee())) {
      decl->setDoesNotThrow();
      decl->setDoesNotAccessMemory();
    }
    CallInst* ci = b_.CreateCall(fn, args);
    ci->setDoesNotAccessMemory();
    ci->setDoesNotThrow();
    return ci;
  }
  Value* intrinsic(Intrinsic::ID id, Value* x) { return b_.CreateUnaryIntrinsic(id, x); }
  // A comparison's result as the compute type's 0.0 or 1.0 (how bool values live in a kernel).
  Value* flag(Value* i1) { return b_.CreateSelect(i1, c(1), c(0)); }
  Value* sigmoid(Value* x) { return b_.CreateFDiv(c(1), b_.CreateFAdd(c(1), intrinsic(Intrinsic::exp, b_.CreateFNeg(x)))); }

  Value* op(const KInstr& in, const std::vector<Value*>& a) {
    const std::string& o = in.op;
    auto s = [&](int i, double dflt) { return in.num_scalars > i ? in.scalars[i] : dflt; };
    if (o == "const") return c(in.scalars[0]);
    if (o == "add") return b_.CreateFAdd(a[0], s(0, 1) == 1 ? a[1] : b_.CreateFMul(c(s(0, 1)), a[1]));
    if (o == "sub") return b_.CreateFSub(a[0], s(0, 1) == 1 ? a[1] : b_.CreateFMul(c(s(0, 1)), a[1]));
    if (o == "mul") return b_.CreateFMul(a[0], a[1]);
    if (o == "div_true") return b_.CreateFDiv(a[0], a[1]);
    if (o == "neg") return b_.CreateFNeg(a[0]);
    if (o == "reciprocal") return b_.CreateFDiv(c(1), a[0]);
    if (o == "square") return b_.CreateFMul(a[0], a[0]);
    if (o == "exp") return intrinsic(Intrinsic::exp, a[0]);
    if (o == "log") return intrinsic(Intrinsic::log, a[0]);
    if (o == "sin") return intrinsic(Intrinsic::sin, a[0]);
    if (o == "cos") return intrinsic(Intrinsic::cos, a[0]);
    if (o == "sqrt") return intrinsic(Intrinsic::sqrt, a[0]);
    if (o == "rsqrt") return b_.CreateFDiv(c(1), intrinsic(Intrinsic::sqrt, a[0]));
    if (o == "abs") return intrinsic(Intrinsic::fabs, a[0]);
    if (o == "tanh") return call("tanhf", "tanh", {a[0]});
    if (o == "erf") return call("erff", "erf", {a[0]});
    if (o == "sigmoid") return sigmoid(a[0]);
    if (o == "silu") return b_.CreateFDiv(a[0], b_.CreateFAdd(c(1), intrinsic(Intrinsic::exp, b_.CreateFNeg(a[0]))));
    if (o == "relu") {  // NaN stays NaN
      return b_.CreateSelect(b_.CreateFCmpOLT(a[0], c(0)), c(0), a[0]);
    }
    if (o == "leaky_relu") return b_.CreateSelect(b_.CreateFCmpOGT(a[0], c(0)), a[0], b_.CreateFMul(a[0], c(s(0, 0.01))));
    if (o == "gelu") {
      Value* x = a[0];
      if (s(0, 0) == 1) {
        Value* inner = b_.CreateFMul(c(0.7978845608028654),
                                     b_.CreateFAdd(x, b_.CreateFMul(c(0.044715), b_.CreateFMul(x, b_.CreateFMul(x, x)))));
        return b_.CreateFMul(b_.CreateFMul(c(0.5), x), b_.CreateFAdd(c(1), call("tanhf", "tanh", {inner})));
      }
      return b_.CreateFMul(b_.CreateFMul(x, c(0.5)), b_.CreateFAdd(c(1), call("erff", "erf", {b_.CreateFMul(x, c(0.70710678118654752440))})));
    }
    if (o == "maximum" || o == "minimum") {  // NaN wins, as in eager
      Value* pick = o == "maximum" ? b_.CreateFCmpOGT(a[0], a[1]) : b_.CreateFCmpOLT(a[0], a[1]);
      Value* r = b_.CreateSelect(pick, a[0], a[1]);
      r = b_.CreateSelect(b_.CreateFCmpUNO(a[1], a[1]), a[1], r);
      return b_.CreateSelect(b_.CreateFCmpUNO(a[0], a[0]), a[0], r);
    }
    if (o == "pow") return b_.CreateBinaryIntrinsic(Intrinsic::pow, a[0], a[1]);
    // Comparisons are ordered (false with a NaN) except ne, as in eager.
    if (o == "gt") return flag(b_.CreateFCmpOGT(a[0], a[1]));
    if (o == "lt") return flag(b_.CreateFCmpOLT(a[0], a[1]));
    if (o == "ge") return flag(b_.CreateFCmpOGE(a[0], a[1]));
    if (o == "le") return flag(b_.CreateFCmpOLE(a[0], a[1]));
    if (o == "eq") return flag(b_.CreateFCmpOEQ(a[0], a[1]));
    if (o == "ne") return flag(b_.CreateFCmpUNE(a[0], a[1]));
    if (o == "where") return b_.CreateSelect(b_.CreateFCmpUNE(a[0], c(0)), a[1], a[2]);
    if (o == "sign" || o == "sgn") {  // real: -1, 0 or 1; NaN gives 0, as math::sign
      return b_.CreateFSub(flag(b_.CreateFCmpOGT(a[0], c(0))), flag(b_.CreateFCmpOLT(a[0], c(0))));
    }
    if (o == "conj_physical") return a[0];
    if (o == "convert") {  // to half or bfloat16: rounded as a store would (Note [Fused casts] in fuser.cpp)
      const KTy to = KTy(int(s(0, 0)));
      return to == KTy::F16 || to == KTy::BF16 ? widen(narrow(a[0], to), to) : a[0];
    }
    if (o == "angle") {  // real: pi below 0, else 0; NaN stays NaN
      Value* r = b_.CreateSelect(b_.CreateFCmpOLT(a[0], c(0)), c(3.14159265358979323846), c(0));
      return b_.CreateSelect(b_.CreateFCmpUNO(a[0], a[0]), a[0], r);
    }
    if (o == "fused_dropout") {  // dropout_bits(seed, first + i) in kernel_spec.h, written out
      const double p = s(0, 0);
      Value* seed = seeds_.at(size_t(s(1, 0)));
      Value* z = b_.CreateAdd(seed, b_.CreateMul(b_.CreateAdd(b_.CreateAdd(first_index_, index_), b_.getInt64(1)),
                                                   b_.getInt64(0x9E3779B97F4A7C15ull)));
      z = b_.CreateMul(b_.CreateXor(z, b_.CreateLShr(z, 30)), b_.getInt64(0xBF58476D1CE4E5B9ull));
      z = b_.CreateMul(b_.CreateXor(z, b_.CreateLShr(z, 27)), b_.getInt64(0x94D049BB133111EBull));
      z = b_.CreateXor(z, b_.CreateLShr(z, 31));
      Value* keep = b_.CreateICmpULT(b_.CreateLShr(z, 40), b_.getInt64(dropout_threshold(1 - p)));
      return b_.CreateSelect(keep, b_.CreateFMul(a[0], c(1 / (1 - p))), c(0));
    }
    throw std::runtime_error("jit: the CPU code generator has no rule for '" + o + "'");
  }

  // A complex value: its parts (im null for a real value, read as 0).
  struct Cx {
    Value* re;
    Value* im;
  };
  Cx cmul(Cx a, Cx b) {
    return {b_.CreateFSub(b_.CreateFMul(a.re, b.re), b_.CreateFMul(a.im, b.im)),
            b_.CreateFAdd(b_.CreateFMul(a.re, b.im), b_.CreateFMul(a.im, b.re))};
  }
  Cx cdiv(Cx a, Cx b) {  // Smith's algorithm, as Complex<T>'s operator/ (both branches, selected)
    Value* wide = b_.CreateFCmpOGE(intrinsic(Intrinsic::fabs, b.re), intrinsic(Intrinsic::fabs, b.im));
    Value* r1 = b_.CreateFDiv(b.im, b.re);
    Value* d1 = b_.CreateFAdd(b.re, b_.CreateFMul(b.im, r1));
    Value* re1 = b_.CreateFDiv(b_.CreateFAdd(a.re, b_.CreateFMul(a.im, r1)), d1);
    Value* im1 = b_.CreateFDiv(b_.CreateFSub(a.im, b_.CreateFMul(a.re, r1)), d1);
    Value* r2 = b_.CreateFDiv(b.re, b.im);
    Value* d2 = b_.CreateFAdd(b.im, b_.CreateFMul(b.re, r2));
    Value* re2 = b_.CreateFDiv(b_.CreateFAdd(b_.CreateFMul(a.re, r2), a.im), d2);
    Value* im2 = b_.CreateFDiv(b_.CreateFSub(b_.CreateFMul(a.im, r2), a.re), d2);
    return {b_.CreateSelect(wide, re1, re2), b_.CreateSelect(wide, im1, im2)};
  }
  Value* cabs(Cx a) { return call("hypotf", "hypot", {a.re, a.im}); }

  // An instruction with a complex argument (Note [Complex kernels]); the fuser admits only the
  // ops listed here.
  Cx complex_op(const KInstr& in, const std::vector<Value*>& re, const std::vector<Value*>& im) {
    const std::string& o = in.op;
    std::vector<Cx> a;
    for (size_t k = 0; k < re.size(); ++k) a.push_back({re[k], im[k] ? im[k] : c(0)});
    auto scaled = [&](Cx z) {  // add's and sub's alpha (real)
      const double alpha = in.num_scalars > 0 ? in.scalars[0] : 1;
      return alpha == 1 ? z : Cx{b_.CreateFMul(c(alpha), z.re), b_.CreateFMul(c(alpha), z.im)};
    };
    if (o == "add") {
      const Cx b = scaled(a[1]);
      return {b_.CreateFAdd(a[0].re, b.re), b_.CreateFAdd(a[0].im, b.im)};
    }
    if (o == "sub") {
      const Cx b = scaled(a[1]);
      return {b_.CreateFSub(a[0].re, b.re), b_.CreateFSub(a[0].im, b.im)};
    }
    if (o == "mul") return cmul(a[0], a[1]);
    if (o == "square") return cmul(a[0], a[0]);
    if (o == "div_true") return cdiv(a[0], a[1]);
    if (o == "reciprocal") return cdiv({c(1), c(0)}, a[0]);
    if (o == "neg") return {b_.CreateFNeg(a[0].re), b_.CreateFNeg(a[0].im)};
    if (o == "conj_physical") return {a[0].re, b_.CreateFNeg(a[0].im)};
    if (o == "exp") {
      Value* m = intrinsic(Intrinsic::exp, a[0].re);
      return {b_.CreateFMul(m, intrinsic(Intrinsic::cos, a[0].im)), b_.CreateFMul(m, intrinsic(Intrinsic::sin, a[0].im))};
    }
    if (o == "sgn") {
      Value* m = cabs(a[0]);
      Value* zero = b_.CreateFCmpOEQ(m, c(0));
      return {b_.CreateSelect(zero, c(0), b_.CreateFDiv(a[0].re, m)), b_.CreateSelect(zero, c(0), b_.CreateFDiv(a[0].im, m))};
    }
    if (o == "abs") return {cabs(a[0]), nullptr};
    if (o == "angle") return {call("atan2f", "atan2", {a[0].im, a[0].re}), nullptr};
    if (o == "eq") return {flag(b_.CreateAnd(b_.CreateFCmpOEQ(a[0].re, a[1].re), b_.CreateFCmpOEQ(a[0].im, a[1].im))), nullptr};
    if (o == "ne") return {flag(b_.CreateOr(b_.CreateFCmpUNE(a[0].re, a[1].re), b_.CreateFCmpUNE(a[0].im, a[1].im))), nullptr};
    if (o == "where") {
      Value* pick = b_.CreateFCmpUNE(a[0].re, c(0));
      return {b_.CreateSelect(pick, a[1].re, a[2].re), b_.CreateSelect(pick, a[1].im, a[2].im)};
    }
    throw std::runtime_error("jit: the CPU code generator has no complex rule for '" + o + "'");
  }

  void emit_loop(Function* f, BasicBlock* head, BasicBlock* done, const std::vector<Value*>& base,
                 const std::vector<Value*>& stride, Value* n, bool contiguous, int stage) {
    Type* i64 = Type::getInt64Ty(ctx_);
    const std::string tag = std::string(contiguous ? "c" : "s") + std::to_string(stage);
    BasicBlock* body = BasicBlock::Create(ctx_, tag + ".body", f);
    b_.SetInsertPoint(head);
    // A kernel with reductions runs on whole rows (n >= 1: the row driver); its later loops read
    // the sums the earlier ones leave, so every loop runs.
    if (has_reductions()) b_.CreateBr(body);
    else b_.CreateCondBr(b_.CreateICmpSGT(n, b_.getInt64(0)), body, done);
    b_.SetInsertPoint(body);
    PHINode* i = b_.CreatePHI(i64, 2, "i");
    i->addIncoming(b_.getInt64(0), head);
    index_ = i;
    const size_t nout = spec_.outputs.size(), nin = spec_.inputs.size();
    // Where operand k's element i is (a complex element's real part: its imaginary part follows).
    auto address = [&](size_t k) -> Value* {
      Type* t = storage(type_of(k));
      if (row_output(k)) return b_.CreateBitCast(base[k], t->getPointerTo());  // one value per row
      if (contiguous) {
        Value* at = kcomplex(type_of(k)) ? b_.CreateShl(i, 1, "", /*HasNUW=*/true, /*HasNSW=*/true) : i;
        return b_.CreateInBoundsGEP(t, b_.CreateBitCast(base[k], t->getPointerTo()), at);
      }
      Value* p = b_.CreateInBoundsGEP(b_.getInt8Ty(), base[k], b_.CreateMul(i, stride[k]));
      return b_.CreateBitCast(p, t->getPointerTo());
    };
    auto imag_address = [&](size_t k) { return b_.CreateConstInBoundsGEP1_64(storage(type_of(k)), address(k), 1); };
    // Each value's real value (or real part), and a complex value's imaginary part (else null).
    std::vector<Value*> values(nin + spec_.instrs.size(), nullptr), imags(values.size(), nullptr);
    for (size_t k = 0; k < nin; ++k) {
      const KTy t = spec_.inputs[k];
      values[k] = widen(b_.CreateLoad(storage(t), address(nout + k)), t);
      if (kcomplex(t)) imags[k] = widen(b_.CreateLoad(storage(t), imag_address(nout + k)), t);
    }
    // Reductions accumulated in this loop: an accumulator each, added to in any order
    // (reassociation lets the vectorizer keep a vector of partial sums).
    // A NaN-propagating extremum (amax, amin: scalar 1) also counts the row's NaNs, a sum that
    // vectorizes where a NaN-propagating select would not; the extremum is NaN if any.
    struct Accumulator {
      size_t v;
      PHINode* acc;
      Value* next = nullptr;
      PHINode* nans = nullptr;
      Value* nans_next = nullptr;
    };
    std::vector<Accumulator> accumulators;
    FastMathFlags reassoc;
    reassoc.setAllowReassoc();
    for (size_t k = 0; k < spec_.instrs.size(); ++k) {
      const KInstr& in = spec_.instrs[k];
      const size_t v = nin + k;
      if (stage_[v] > stage + (in.row_reduction() ? 1 : 0)) continue;  // a later loop's
      if (in.row_reduction() && stage_[v] <= stage) {  // complete: the result of its loop
        values[v] = finals_[v];
        continue;
      }
      std::vector<Value*> args, imag_args;
      bool complex_args = false;
      for (int r : in.args) {
        if (r < 0 || size_t(r) >= v || !values[size_t(r)])
          throw std::runtime_error("jit: a kernel instruction reads an undefined value");
        args.push_back(values[size_t(r)]);
        imag_args.push_back(imags[size_t(r)]);
        complex_args = complex_args || imags[size_t(r)];
      }
      if (complex_args) {
        if (in.row_reduction()) throw std::runtime_error("jit: the CPU code generator has no complex row reductions");
        const Cx z = complex_op(in, args, imag_args);
        values[v] = z.re;
        imags[v] = z.im;
        continue;
      }
      if (in.row_reduction()) {  // accumulated in this loop
        const bool max = in.op == "row_max", min = in.op == "row_min";
        const double inf = std::numeric_limits<double>::infinity();
        Accumulator a{v, PHINode::Create(ct_, 2, "acc", &body->front())};
        a.acc->addIncoming(max ? c(-inf) : min ? c(inf) : c(0), head);
        auto add = [&](Value* x, Value* y) {
          auto* added = cast<Instruction>(b_.CreateFAdd(x, y));
          added->setFastMathFlags(reassoc);
          return added;
        };
        if (max || min) {
          // No-NaNs flags let the vectorizer keep a vector of extrema. They hold where it matters:
          // a row without NaN gets the exact extremum; with a NaN the extremum is replaced (amax,
          // amin: the count below) or irrelevant (softmax's shift: the NaN reaches every output).
          FastMathFlags minmax;
          minmax.setNoNaNs();
          minmax.setNoSignedZeros();
          auto* beats = cast<Instruction>(max ? b_.CreateFCmpOGT(args.at(0), a.acc) : b_.CreateFCmpOLT(args.at(0), a.acc));
          beats->setFastMathFlags(minmax);
          auto* pick = cast<Instruction>(b_.CreateSelect(beats, args.at(0), a.acc));
          pick->setFastMathFlags(minmax);
          a.next = pick;
          if (in.num_scalars > 1 && in.scalars[1] == 1) {
            a.nans = PHINode::Create(ct_, 2, "nans", &body->front());
            a.nans->addIncoming(c(0), head);
            a.nans_next = add(a.nans, b_.CreateSelect(b_.CreateFCmpUNO(args.at(0), args.at(0)), c(1), c(0)));
          }
        } else {
          a.next = add(a.acc, args.at(0));
        }
        accumulators.push_back(a);
        continue;
      }
      values[v] = op(in, args);
    }
    for (size_t k = 0; k < nout; ++k) {
      const size_t v = size_t(spec_.output_values[k]);
      const bool reduced = v >= nin && spec_.instrs[v - nin].row_reduction();
      if (reduced || store_stage(v) != stage) continue;
      if (!values[v]) throw std::runtime_error("jit: a kernel stores an undefined value");
      b_.CreateStore(narrow(values[v], spec_.outputs[k]), address(k));
      if (kcomplex(spec_.outputs[k])) b_.CreateStore(narrow(imags[v] ? imags[v] : c(0), spec_.outputs[k]), imag_address(k));
      else if (imags[v]) throw std::runtime_error("jit: a kernel stores a complex value to a real output");
    }
    Value* next = b_.CreateAdd(i, b_.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
    i->addIncoming(next, b_.GetInsertBlock());
    for (const Accumulator& a : accumulators) {
      a.acc->addIncoming(a.next, b_.GetInsertBlock());
      if (a.nans) a.nans->addIncoming(a.nans_next, b_.GetInsertBlock());
    }
    if (accumulators.empty()) {
      b_.CreateCondBr(b_.CreateICmpSLT(next, n), body, done);
      return;
    }
    // After the row: each reduction's sum (a mean's divided by n), kept for the later loops and
    // stored once at its output's pointer.
    BasicBlock* exit = BasicBlock::Create(ctx_, tag + ".exit", f);
    b_.CreateCondBr(b_.CreateICmpSLT(next, n), body, exit);
    b_.SetInsertPoint(exit);
    for (const Accumulator& a : accumulators) {
      const size_t v = a.v;
      Value* total = a.next;
      if (spec_.instrs[v - nin].op == "row_sum" && spec_.instrs[v - nin].scalars[0] == 1)
        total = b_.CreateFDiv(total, b_.CreateSIToFP(n, ct_));
      if (a.nans)
        total = b_.CreateSelect(b_.CreateFCmpONE(a.nans_next, c(0)), c(std::numeric_limits<double>::quiet_NaN()), total);
      finals_[v] = total;
      for (size_t k = 0; k < nout; ++k)
        if (size_t(spec_.output_values[k]) == v) {
          Type* t = storage(spec_.outputs[k]);
          b_.CreateStore(narrow(total, spec_.outputs[k]), b_.CreateBitCast(base[k], t->getPointerTo()));
        }
    }
    b_.CreateBr(done);
  }

  LLVMContext& ctx_;
  Module& m_;
  const KernelSpec& spec_;
  IRBuilder<> b_;
  Type* ct_;
  std::vector<int> stage_;         // per value (inputs, then instructions): its loop
  int last_stage_ = 0;
  std::vector<Value*> finals_;     // per reduction: its sum once its loop is done
  Value* index_ = nullptr;        // the loop's element number
  Value* first_index_ = nullptr;  // extra[0]: the row-major index of element 0 (kernels with seeds)
  std::vector<Value*> seeds_;
};

void optimize(Module& m, TargetMachine& tm) {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  PassBuilder pb(&tm, pto);
  const Triple target(m.getTargetTriple());
  TargetLibraryInfoImpl tlii(target);
  add_libmvec(tlii, target, jit().avx512, jit().avx2);
  fam.registerPass([&] { return TargetLibraryAnalysis(tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
  mpm.run(m, mam);
}

}  // namespace

// Compiles spec into a kernel named `name` (its object file in *object); throws
// std::runtime_error with a message on failure.
KernelFn compile(const KernelSpec& spec, const std::string& name, std::string* ir_out, std::string* object_out) {
  static std::mutex mutex;  // one compilation at a time
  std::lock_guard<std::mutex> lock(mutex);
  Jit& j = jit();
  // Already in this process (the same key compiled again): reuse it.
  if (auto sym = j.jit->lookup(name)) return reinterpret_cast<KernelFn>(sym->getAddress());
  else consumeError(sym.takeError());
  auto ctx = std::make_unique<LLVMContext>();
  auto m = std::make_unique<Module>("ember_fused", *ctx);
  m->setDataLayout(j.jit->getDataLayout());
  m->setTargetTriple(j.tm->getTargetTriple().str());
  Emitter e(*ctx, *m, spec);
  Function* f = e.emit(name);
  std::string verify;
  raw_string_ostream vos(verify);
  if (verifyFunction(*f, &vos)) throw std::runtime_error("jit: generated invalid code for " + spec.str() + ": " + vos.str());
  optimize(*m, *j.tm);
  if (ir_out) {
    raw_string_ostream os(*ir_out);
    m->print(os, nullptr);
  }
  SmallVector<char, 0> object;
  {
    raw_svector_ostream os(object);
    legacy::PassManager pm;
    if (j.tm->addPassesToEmitFile(pm, os, nullptr, CGFT_ObjectFile))
      throw std::runtime_error("jit: LLVM cannot emit object code for this CPU");
    pm.run(*m);
  }
  if (Error err = j.jit->addObjectFile(MemoryBuffer::getMemBufferCopy(StringRef(object.data(), object.size()), name)))
    throw std::runtime_error("jit: LLVM could not add the kernel: " + error_text(std::move(err)));
  auto sym = j.jit->lookup(name);
  if (!sym) throw std::runtime_error("jit: LLVM could not compile the kernel: " + error_text(sym.takeError()));
  if (object_out) object_out->assign(object.data(), object.size());
  return reinterpret_cast<KernelFn>(sym->getAddress());
}

// Adds an object file compile() made (in this or an earlier process) and returns its kernel.
KernelFn load(const std::string& object, const std::string& name) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  Jit& j = jit();
  if (auto sym = j.jit->lookup(name)) return reinterpret_cast<KernelFn>(sym->getAddress());
  else consumeError(sym.takeError());
  if (Error err = j.jit->addObjectFile(MemoryBuffer::getMemBufferCopy(object, name)))
    throw std::runtime_error("jit: LLVM could not load a cached kernel: " + error_text(std::move(err)));
  auto sym = j.jit->lookup(name);
  if (!sym) throw std::runtime_error("jit: a cached kernel has no entry point " + name + ": " + error_text(sym.takeError()));
  return reinterpret_cast<KernelFn>(sym->getAddress());
}

}  // namespace ember::jit::llvm_backend

// The entry points libember finds with dlsym. Each returns the kernel, or null with *error set.
extern "C" __attribute__((visibility("default"))) ember::jit::KernelFn ember_llvm_compile(
    const ember::jit::KernelSpec* spec, const char* name, std::string* ir_out, std::string* object_out,
    std::string* error) {
  try {
    return ember::jit::llvm_backend::compile(*spec, name, ir_out, object_out);
  } catch (const std::exception& e) {
    *error = e.what();
    return nullptr;
  }
}

extern "C" __attribute__((visibility("default"))) ember::jit::KernelFn ember_llvm_load(const std::string* object,
                                                                                       const char* name,
                                                                                       std::string* error) {
  try {
    return ember::jit::llvm_backend::load(*object, name);
  } catch (const std::exception& e) {
    *error = e.what();
    return nullptr;
  }
}

// What this library compiles for (the host CPU and features, and a digest of this library).
extern "C" __attribute__((visibility("default"))) bool ember_llvm_host(std::string* host, std::string* error) {
  try {
    *host = ember::jit::llvm_backend::jit().host;
    return true;
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
}
