// The pointwise fuser (jit.h: fuse_pointwise, Note [Pointwise fusion]).
//
// Note [Pointwise fusion]: a pass groups chains of pointwise nodes into one "fused" node that
// holds them as a subgraph; running it computes the whole chain in one pass over memory with a
// kernel the CPU code generator made for it (libember_llvm.so, Note [LLVM backend]), compiled
// once per group shape (the kernel cache is keyed by the group's canonical text, KernelSpec::
// str(); sizes are not part of it, so a new batch size compiles nothing); on CUDA tensors the
// kernel is CUDA C++ compiled by NVRTC (Note [CUDA code generator]). What joins a group: a
// pointwise node (the op table's fusion class) the code generator has a rule for, without
// effects, computing in one dtype class (double and complex128, or float/half/bfloat16/complex64
// computed in float; comparisons give bool, where reads a bool condition; a complex value only
// through the ops with a complex rule, on the CPU: Note [Complex kernels] in cpu_codegen.cpp),
// whose output has the group's shape
// (inputs may broadcast: TensorIterator lays them out), and whose other inputs were all defined
// before the group's first node (so the group, run where its first node was, never needs a value
// computed after it). Numbers wrapped as tensors and other 0-dim constants become constants of
// the kernel. At most kMaxIteratorOperands tensors cross a CUDA group's boundary, kMaxRowOperands a
// CPU group's (past TensorIterator's limit it runs row by row): a larger group is cut, in node
// order, into groups that fit. Groups of one shape that read a common tensor are merged into one
// (horizontal fusion: the tensor is read once) where the later needs nothing computed after the
// earlier starts. A fused node whose inputs
// need gradients runs its kernel and records one autograd node whose backward is a fused program
// derived from the op table's formulas (Note [Fused backward] in autodiff.cpp). It falls back to
// running its subgraph op by op, counted in stats() (fused_fallbacks), when its inputs are not
// all on the CPU or all on one CUDA device, when forward-mode AD is on (tangents go through the ops' own jvps), while a trace
// records (so that it records the ops), or when no kernel could be made (LLVM or NVRTC missing:
// the reason is kept and shown by fusion_report()).
//
// Note [Row reductions]: a sum or mean over the last dimension may end or feed a group whose
// shape is its input's (x.sub(y).square().mean(-1) is one pass over memory, not three). The
// kernel then runs row by row (the row driver, as for fused dropout), in stages: each reduction is
// an accumulator its loop adds to (reassociated: a vector of partial sums), complete when the loop
// ends; members that read it (only reductions that keep the dimension: a [..., 1] value
// broadcast along the row) run in the next loop over the same row, which is still in cache, and
// recompute what they need of the earlier stages. Members of the row's shape that read only such
// row values (rsqrt(var + eps)) are per-row arithmetic, hoisted out of the loop by LLVM. So
// layer_norm over the last dimension, rewritten into its arithmetic (mean, centered square,
// mean, rsqrt, scale, shift: rewrite_layer_norm), is one kernel of three loops per row with what
// feeds and follows it, and its derived backward one kernel of four (the formulas' sums over the
// row are row reductions too; the weight's and bias's gradients are column sums, run eagerly).
// The backward of a reduction spreads the gradient over the row by a broadcasting add (sum's and
// mean's own formula, without an expand that would cut the group). amax and amin over the last
// dimension are row reductions too (a maximum or minimum accumulator and a count of NaNs: NaN
// propagates as in eager; the extremum's own loop carries no-NaNs flags so that it vectorizes),
// their gradient shared evenly among the elements equal to the extremum
// (eager's rule, written as where/sum over the row); var and std over the last dimension become
// mean, centered square and mean (rewrite_var_std), so var_mean is one kernel of two loops per
// row. CPU only (the CUDA code generator has no stages yet).
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <mutex>
#include <sstream>

#include "ember/autograd/autograd_meta.h"
#include "ember/autograd/forward_ad.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/core/parallel.h"
#include "ember/core/error.h"
#include "ember/jit/cuda_codegen.h"
#include "ember/jit/fusion_group.h"
#include "ember/jit/jit.h"
#include "ember/jit/kernel_cache.h"
#include "ember/jit/kernel_spec.h"
#include "ember/ops/functions.h"
#include "ember/ops/tensor_iterator.h"
#include "ember/ops/type_promotion.h"

namespace ember::jit {

namespace {

// ---- the backend -----------------------------------------------------------------------------

using CompileFn = KernelFn (*)(const KernelSpec*, const char* name, std::string* ir, std::string* object,
                               std::string* error);
using LoadFn = KernelFn (*)(const std::string* object, const char* name, std::string* error);
using HostFn = bool (*)(std::string* host, std::string* error);

struct Backend {
  CompileFn compile = nullptr;
  LoadFn load = nullptr;
  std::string host;   // what its kernels are compiled for (part of their cache keys)
  std::string error;  // why there is none
};

const Backend& backend() {
  static const Backend b = [] {
    Backend r;
    // libember_llvm.so beside libember.so first (build tree, install prefix), then the loader's search.
    std::vector<std::string> candidates;
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&backend), &info) && info.dli_fname) {
      std::string self = info.dli_fname;
      const size_t slash = self.rfind('/');
      if (slash != std::string::npos) candidates.push_back(self.substr(0, slash + 1) + "libember_llvm.so");
    }
    candidates.push_back("libember_llvm.so");
    std::string tried;
    for (const std::string& path : candidates) {
      void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h) {
        const char* e = ::dlerror();
        tried += (tried.empty() ? "" : "; ") + std::string(e ? e : path);
        continue;
      }
      r.compile = reinterpret_cast<CompileFn>(::dlsym(h, "ember_llvm_compile"));
      r.load = reinterpret_cast<LoadFn>(::dlsym(h, "ember_llvm_load"));
      auto host = reinterpret_cast<HostFn>(::dlsym(h, "ember_llvm_host"));
      if (r.compile && r.load && host) {
        std::string error;
        if (host(&r.host, &error)) return r;
        r.compile = nullptr;
        r.error = "the CPU code generator cannot start: " + error;
        return r;
      }
      r.compile = nullptr;
      tried += "; " + path + " lacks ember_llvm_compile, ember_llvm_load or ember_llvm_host (another version?)";
    }
    r.error = "the CPU code generator (libember_llvm.so, built with LLVM) could not be loaded: " + tried;
    return r;
  }();
  return b;
}

bool floating(ScalarType t) { return t == kFloat || t == kDouble || t == kHalf || t == kBFloat16; }
bool complex_dtype(ScalarType t) { return t == kComplexFloat || t == kComplexDouble; }
KTy kty(ScalarType t) {
  switch (t) {
    case kDouble: return KTy::F64;
    case kComplexFloat: return KTy::C64;
    case kComplexDouble: return KTy::C128;
    case kHalf: return KTy::F16;
    case kBFloat16: return KTy::BF16;
    case kBool: return KTy::Bool;
    default: return KTy::F32;
  }
}

// The ops the code generator has a rule for (cpu_codegen.cpp, Emitter::op).
const std::set<std::string_view>& kernel_ops() {
  static const std::set<std::string_view> ops = {
      "add",  "sub",   "mul",   "div_true", "neg",  "reciprocal", "square", "exp",  "log",        "sin",
      "cos",  "sqrt",  "rsqrt", "abs",      "tanh", "erf",        "sigmoid", "silu", "relu",      "leaky_relu",
      "gelu", "maximum", "minimum", "pow",  "sign", "sgn",        "where",  "full_like", "gt",     "lt",
      "ge",   "le",    "eq",    "ne",    "fused_dropout", "conj_physical", "angle"};
  return ops;
}
// The ops it has a complex rule for (Note [Complex kernels] in cpu_codegen.cpp): a node reading or
// giving a complex tensor fuses only if it is one of these, on the CPU.
const std::set<std::string_view>& complex_kernel_ops() {
  static const std::set<std::string_view> ops = {"add", "sub",  "mul", "div_true", "neg",   "reciprocal", "square", "exp",
                                                 "sgn", "abs", "angle", "conj_physical", "where", "eq", "ne"};
  return ops;
}
bool is_comparison(std::string_view op) {
  return op == "gt" || op == "lt" || op == "ge" || op == "le" || op == "eq" || op == "ne";
}

// A constant the kernel holds as a number: a wrapped number, or a 0-dim tensor that needs no
// gradient (a folded zeros({}), a captured scalar tensor).
bool is_scalar_constant(const Graph& g, const Value* v) {
  const Tensor* t = g.constant_value(v);
  if (!t || t->requires_grad() || t->dim() != 0 || !t->is_cpu() || t->is_complex()) return false;
  return t->unsafeGetTensorImpl()->is_wrapped_number() || floating(t->scalar_type()) || t->scalar_type() == kBool;
}

// A group computes in double (double, complex128) or float (the other floating and complex types).
bool same_class(ScalarType a, ScalarType b) {
  return (a == kDouble || a == kComplexDouble) == (b == kDouble || b == kComplexDouble);
}

// A dropout seed (Note [Fused dropout]): read by the kernel from its `extra` argument, not an operand.
bool is_seed(const Value* v) { return v->type.dtype == kLong && v->type.sizes.empty() && v->type.device.is_cpu(); }

// Note [Fused casts]: a dtype conversion between floating types of one class (float, half,
// bfloat16; double to double) on one device fuses as a "convert" instruction: to half or bfloat16
// it rounds the value as a store would (an explicit cast, an autocast's, is kept exactly), to
// float it is the value itself. Its derivative is the gradient converted back. Layer_norm,
// softmax and var/std over half or bfloat16 rows are rewritten over the rows converted to float
// and their results converted back, as the eager kernels compute them (rewrite_over_rows).
bool fusible_cast(const Node& n, ScalarType* cls) {
  if (n.outputs.size() != 1 || n.inputs.size() != 1 || !n.inputs[0] || tracing::has_attr(n.attrs, "device")) return false;
  const std::optional<int64_t> format = tracing::optional_int_attr(n.attrs, "memory_format", "_to_copy");
  if (format && MemoryFormat(*format) != MemoryFormat::Preserve) return false;
  const TensorType &in = n.inputs[0]->type, &out = n.outputs[0]->type;
  if (!floating(in.dtype) || !floating(out.dtype) || !same_class(in.dtype, out.dtype) || in.device != out.device ||
      !(out.device.is_cpu() || out.device.is_cuda()))
    return false;
  *cls = out.dtype;
  return true;
}

// A node that may be fused, and the dtype it computes in (*cls; a comparison's is its inputs').
bool fusible(const Graph& g, const Node& n, ScalarType* cls) {
  if (n.kind() == "_to_copy" && !n.has_effects()) return fusible_cast(n, cls);
  if (n.op->fusion != tracing::Fusion::Pointwise || n.has_effects() || n.outputs.size() != 1) return false;
  if (!kernel_ops().count(n.kind()) || tracing::has_attr(n.attrs, "mode")) return false;
  const TensorType& out = n.outputs[0]->type;
  if (!out.device.is_cpu() && !out.device.is_cuda()) return false;
  const bool compare = is_comparison(n.kind());
  if (compare ? out.dtype != kBool : !floating(out.dtype) && !complex_dtype(out.dtype)) return false;
  bool complex = complex_dtype(out.dtype);
  std::optional<ScalarType> c;
  if (!compare) c = out.dtype;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    const Value* i = n.inputs[k];
    if (!i) return false;
    if (is_scalar_constant(g, i)) continue;
    if (i->type.device != out.device) return false;  // one device per group
    if (n.kind() == "where" && k == 0) {
      if (i->type.dtype != kBool) return false;
      continue;
    }
    if (n.kind() == "fused_dropout" && k == 1) {
      if (!is_seed(i) || !out.device.is_cpu()) return false;
      continue;
    }
    if (!floating(i->type.dtype) && !complex_dtype(i->type.dtype)) return false;
    complex = complex || complex_dtype(i->type.dtype);
    if (!c) c = i->type.dtype;
    else if (!same_class(*c, i->type.dtype)) return false;
  }
  if (!c) return false;  // a comparison of constants
  if (complex && (!complex_kernel_ops().count(n.kind()) || !out.device.is_cpu())) return false;
  for (const auto& [name, a] : n.attrs) {
    if (n.kind() == "full_like" && name == "dtype") continue;  // the output's, checked above
    if (n.kind() == "full_like" && name != "value") return false;  // a device, a layout, requires_grad
    if (const Scalar* s = std::get_if<Scalar>(&a); !s || s->isComplex()) return false;
  }
  *cls = *c;
  return true;
}

// A sum, mean, amax or amin over the last dimension of a floating CPU tensor, in its own dtype
// (Note [Row reductions]), or softmax's kept maximum: it may end a group whose shape is its
// input's. *keepdim: the node's.
bool row_reduction(const Node& n, ScalarType* cls, bool* keepdim) {
  const bool extremum = n.kind() == "amax" || n.kind() == "amin";
  if ((n.kind() != "sum" && n.kind() != "mean" && n.kind() != "softmax_shift" && !extremum) || n.has_effects() ||
      n.outputs.size() != 1 || n.inputs.size() != 1 || !n.inputs[0])
    return false;
  const TensorType& in = n.inputs[0]->type;
  if (!floating(in.dtype) || !in.device.is_cpu() || in.sizes.empty() || n.outputs[0]->type.dtype != in.dtype) return false;
  if (n.kind() == "softmax_shift") {  // a kept maximum over the last dimension
    *keepdim = true;
    *cls = in.dtype;
    return true;
  }
  if (!tracing::has_attr(n.attrs, "dim") || (!extremum && tracing::has_attr(n.attrs, "dtype"))) return false;
  const std::vector<int64_t> dim = tracing::ints_attr(n.attrs, "dim", n.kind());
  const int64_t last = int64_t(in.sizes.size()) - 1;
  if (dim.size() != 1 || (dim[0] != -1 && dim[0] != last)) return false;
  *keepdim = tracing::bool_attr(n.attrs, "keepdim", n.kind());
  *cls = in.dtype;
  return true;
}

const tracing::TracedOpDef fused_op{{"fused", tracing::Fusion::Opaque,
                                     [](const tracing::TracedOp&, const std::vector<Tensor>&,
                                        const tracing::Attrs&) -> std::vector<Tensor> {
                                       EMBER_ERROR("jit: a fused node runs through its group, not its op");
                                     }}};

}  // namespace

// The most tensors a CPU group run by the row driver reads and writes.
constexpr int kMaxRowOperands = 16;

// ---- fusion groups -----------------------------------------------------------------------------

namespace {

std::mutex g_cache_mutex;
std::map<std::string, KernelFn>& kernel_cache() {
  static std::map<std::string, KernelFn> c;
  return c;
}

KernelFn kernel_of(FusionGroup& group) {
  std::lock_guard<std::mutex> lock(group.mutex);
  if (group.tried) return group.kernel;
  group.tried = true;
  {
    std::lock_guard<std::mutex> cache_lock(g_cache_mutex);
    auto it = kernel_cache().find(group.key);
    if (it != kernel_cache().end()) return group.kernel = it->second;
  }
  const Backend& b = backend();
  if (!b.compile) {
    group.error = b.error;
    return nullptr;
  }
  // The disk cache (Note [Kernel cache]): the group, then what the code generator compiles for.
  const std::string key = group.key + "\n" + b.host;
  char name[48];
  std::snprintf(name, sizeof name, "ember_fused_%016llx", static_cast<unsigned long long>(fnv1a(key)));
  std::string error;
  KernelFn k = nullptr;
  bool loaded = false;
  const auto t0 = std::chrono::steady_clock::now();
  if (std::optional<std::string> object = detail::read_cached_kernel(key, "o")) {
    k = b.load(&*object, name, &error);  // a file LLVM rejects is compiled again
    loaded = k != nullptr;
  }
  if (!k) {
    std::string object;
    k = b.compile(&group.spec, name, nullptr, &object, &error);
    if (k) detail::write_cached_kernel(key, "o", object);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!k) {
    group.error = error;
    return nullptr;
  }
  std::lock_guard<std::mutex> cache_lock(g_cache_mutex);
  kernel_cache().emplace(group.key, k);
  detail::count_compile(seconds, loaded);
  return group.kernel = k;
}

// The kernel's description of a group (inputs are the group graph's inputs, in order).
KernelSpec spec_of(const Graph& g) {
  KernelSpec s;
  std::map<const Value*, int> ref, seed;
  for (const Value* v : g.inputs()) {
    if (is_seed(v)) {
      seed[v] = s.seeds++;
      continue;
    }
    ref[v] = int(s.inputs.size());
    s.inputs.push_back(kty(v->type.dtype));
    s.f64 = s.f64 || !same_class(v->type.dtype, kFloat);
  }
  auto value = [&](const Value* v) -> int {
    auto it = ref.find(v);
    if (it != ref.end()) return it->second;
    const Tensor* c = g.constant_value(v);
    EMBER_INTERNAL_ASSERT(c, "jit: a fused group reads a value it does not define");
    KInstr k;
    k.op = "const";
    k.scalars[0] = c->item().toDouble();
    k.num_scalars = 1;
    s.instrs.push_back(k);
    return ref[v] = int(s.inputs.size() + s.instrs.size() - 1);
  };
  for (const auto& n : g.nodes()) {
    KInstr k;
    if (n->kind() == "full_like") {  // its input gives the shape only
      k.op = "const";
      k.scalars[0] = tracing::scalar_attr(n->attrs, "value", "full_like").toDouble();
      k.num_scalars = 1;
    } else if (n->kind() == "sum" || n->kind() == "mean") {  // Note [Row reductions]
      k.op = "row_sum";
      k.args.push_back(value(n->inputs[0]));
      k.scalars[0] = n->kind() == "mean" ? 1 : 0;
      k.num_scalars = 1;
    } else if (n->kind() == "softmax_shift" || n->kind() == "amax" || n->kind() == "amin") {
      k.op = n->kind() == "amin" ? "row_min" : "row_max";
      k.args.push_back(value(n->inputs[0]));
      k.scalars[1] = n->kind() == "softmax_shift" ? 0 : 1;  // amax and amin propagate NaN
      k.num_scalars = 2;
    } else if (n->kind() == "_to_copy") {  // Note [Fused casts]
      k.op = "convert";
      k.args.push_back(value(n->inputs[0]));
      k.scalars[0] = double(int(kty(n->outputs[0]->type.dtype)));
      k.num_scalars = 1;
    } else if (n->kind() == "fused_dropout") {  // scalars: p, the seed's slot
      k.op = "fused_dropout";
      k.args.push_back(value(n->inputs[0]));
      k.scalars[0] = tracing::double_attr(n->attrs, "p", "fused_dropout");
      k.scalars[1] = seed.at(n->inputs[1]);
      k.num_scalars = 2;
    } else {
      k.op = std::string(n->kind());
      for (const Value* i : n->inputs) k.args.push_back(value(i));
      for (const auto& [name, a] : n->attrs) k.scalars[k.num_scalars++] = std::get<Scalar>(a).toDouble();
    }
    s.instrs.push_back(std::move(k));
    ref[n->outputs[0]] = int(s.inputs.size() + s.instrs.size() - 1);
    s.f64 = s.f64 || !same_class(n->outputs[0]->type.dtype, kFloat);
  }
  for (const Value* o : g.outputs()) {
    s.outputs.push_back(kty(o->type.dtype));
    s.output_values.push_back(ref.at(o));
    s.output_rows.push_back(0);  // set by the caller (FusionGroup::row_outputs)
  }
  return s;
}

}  // namespace

namespace {
// Dropout nodes that the fuser can take become a seed and a fused_dropout (Note [Fused dropout]):
// plain dropout in training mode on a floating CPU tensor.
void rewrite_dropout(Graph& g) {
  bool any = false;
  for (const auto& n : g.nodes()) any = any || n->kind() == "dropout";
  if (!any) return;
  const tracing::TracedOp* seed_op = tracing::find_traced_op("dropout_seed");
  const tracing::TracedOp* drop_op = tracing::find_traced_op("fused_dropout");
  EMBER_INTERNAL_ASSERT(seed_op && drop_op, "jit: fused dropout's ops are not registered");
  // The seeds go first (they read nothing): a group starting before a dropout may take it.
  std::vector<std::unique_ptr<Node>> owned = g.take_nodes(), seeds, rebuilt;
  std::vector<std::pair<Value*, Value*>> renamed;
  for (auto& n : owned) {
    const bool plain = n->kind() == "dropout" && n->inputs.size() == 1 && n->inputs[0] &&
                       tracing::bool_attr(n->attrs, "train", "dropout") && !tracing::bool_attr(n->attrs, "feature", "dropout") &&
                       !tracing::bool_attr(n->attrs, "alpha", "dropout");
    const double p = plain ? tracing::double_attr(n->attrs, "p", "dropout") : 0;
    const TensorType& t = n->outputs[0]->type;
    if (!plain || !(p > 0 && p < 1) || !floating(t.dtype) || !t.device.is_cpu()) {
      rebuilt.push_back(std::move(n));
      continue;
    }
    TensorType seed_type;
    seed_type.dtype = kLong;
    std::unique_ptr<Node> seed = g.make_node(*seed_op, {}, {}, {seed_type}, false);
    std::unique_ptr<Node> drop = g.make_node(*drop_op, {n->inputs[0], seed->outputs[0]}, {{"p", Scalar(p)}}, {t}, false);
    renamed.emplace_back(n->outputs[0], drop->outputs[0]);
    seeds.push_back(std::move(seed));
    rebuilt.push_back(std::move(drop));
  }
  for (auto& n : rebuilt) seeds.push_back(std::move(n));
  g.set_nodes(std::move(seeds));
  for (auto& [from, to] : renamed) g.replace_uses(from, to);
}
}  // namespace

namespace {
// A registered traced op by name (the ops a rewrite emits).
const tracing::TracedOp& traced(std::string_view name) {
  const tracing::TracedOp* op = tracing::find_traced_op(name);
  EMBER_INTERNAL_ASSERT(op, "jit: traced op ", name, " is not registered");
  return *op;
}

// The attributes of a sum or mean over the last dimension and of add/sub with alpha 1, as the
// traced ops record them.
const tracing::Attrs& row_reduction_attrs(bool keepdim) {
  static const tracing::Attrs kept{{"dim", std::vector<int64_t>{-1}}, {"keepdim", Scalar(true)}, {"dtype", tracing::Attr()}};
  static const tracing::Attrs dropped{{"dim", std::vector<int64_t>{-1}}, {"keepdim", Scalar(false)}, {"dtype", tracing::Attr()}};
  return keepdim ? kept : dropped;
}
const tracing::Attrs& alpha_one() {
  static const tracing::Attrs a{{"s0", Scalar(int64_t(1))}};
  return a;
}

// Emits the nodes that stand for a node over the rows of x (its last dimension): values of x's
// shape ("full") or of the row's ([..., 1]), dense, with x's twin sizes (Note [Dynamic sizes]),
// computed in float for half and bfloat16 rows (Note [Fused casts]): input() is x converted, and
// finish() converts a result back.
class RowEmitter {
 public:
  RowEmitter(Graph& g, Value& x, std::vector<std::unique_ptr<Node>>& out) : g_(g), out_(out), x_(x) {
    full_ = row_ = x.type;
    if (x.type.dtype == kHalf || x.type.dtype == kBFloat16) full_.dtype = row_.dtype = kFloat;
    full_.requires_grad = row_.requires_grad = false;
    row_.sizes.back() = 1;
    full_.strides = dense(full_.sizes);
    row_.strides = dense(row_.sizes);
    full_twin_ = row_twin_ = x.twin_sizes;
    if (!row_twin_.empty()) row_twin_.back() = 1;
  }
  Value* operator()(std::string_view op, std::vector<Value*> ins, tracing::Attrs attrs, bool row_shaped) {
    return emit(op, std::move(ins), std::move(attrs), row_shaped ? row_ : full_, row_shaped ? row_twin_ : full_twin_);
  }
  // A sum or mean over the row; without keepdim, of the row's shape less its last dimension.
  Value* reduce(std::string_view op, Value* x, bool keepdim) {
    if (keepdim) return (*this)(op, {x}, row_reduction_attrs(true), true);
    TensorType t = row_;
    t.sizes.pop_back();
    t.strides = dense(t.sizes);
    std::vector<int64_t> twin = row_twin_;
    if (!twin.empty()) twin.pop_back();
    return emit(op, {x}, row_reduction_attrs(false), t, twin);
  }
  // x in the compute type (converted once, where the rows are half or bfloat16).
  Value* input() {
    if (full_.dtype == x_.type.dtype) return &x_;
    if (!converted_) converted_ = convert(&x_, full_.dtype);
    return converted_;
  }
  // A result in x's dtype.
  Value* finish(Value* v) { return full_.dtype == x_.type.dtype ? v : convert(v, x_.type.dtype); }
  // An elementwise op on a value of any shape: its result has that value's type.
  Value* apply(std::string_view op, std::vector<Value*> ins) {
    const Value& a = *ins.at(0);
    return emit(op, std::move(ins), {}, a.type, a.twin_sizes);
  }
  // Where the node had more outputs than the one expand returns: what stands for another one.
  void rename(Value* from, Value* to) { renamed_.emplace_back(from, to); }
  const std::vector<std::pair<Value*, Value*>>& renamed() const { return renamed_; }

 private:
  static std::vector<int64_t> dense(const std::vector<int64_t>& sizes) {
    const DimVector d = contiguous_strides(sizes);
    return std::vector<int64_t>(d.begin(), d.end());
  }
  Value* convert(Value* v, ScalarType dtype) {
    TensorType t = v->type;
    t.dtype = dtype;
    t.requires_grad = false;
    return emit("_to_copy", {v}, {{"dtype", tracing::Attr(dtype)}, {"device", tracing::Attr()}, {"memory_format", tracing::Attr()}},
                t, v->twin_sizes);
  }
  Value* emit(std::string_view op, std::vector<Value*> ins, tracing::Attrs attrs, const TensorType& t,
              const std::vector<int64_t>& twin) {
    std::unique_ptr<Node> m = g_.make_node(traced(op), std::move(ins), std::move(attrs), {t}, false);
    m->outputs[0]->twin_sizes = twin;
    Value* v = m->outputs[0];
    out_.push_back(std::move(m));
    return v;
  }
  Graph& g_;
  std::vector<std::unique_ptr<Node>>& out_;
  Value& x_;
  Value* converted_ = nullptr;
  TensorType full_, row_;
  std::vector<int64_t> full_twin_, row_twin_;
  std::vector<std::pair<Value*, Value*>> renamed_;
};

// Replaces each node of g whose kind is one of `kinds` and for which expand(node, emit) emits its
// arithmetic (returning the value for the node's output; null keeps the node): the new nodes
// stand where the node stood.
template <class F>
void rewrite_over_rows(Graph& g, std::initializer_list<std::string_view> kinds, F&& expand) {
  auto wanted = [&](const Node& n) { return std::find(kinds.begin(), kinds.end(), n.kind()) != kinds.end(); };
  if (std::none_of(g.nodes().begin(), g.nodes().end(), [&](const auto& n) { return wanted(*n); })) return;
  std::vector<std::unique_ptr<Node>> owned = g.take_nodes(), rebuilt;
  std::vector<std::pair<Value*, Value*>> renamed;
  for (auto& n : owned) {
    Value* x = wanted(*n) && !n->inputs.empty() ? n->inputs[0] : nullptr;
    const bool fits = x && floating(x->type.dtype) && x->type.device.is_cpu() && !x->type.sizes.empty();
    if (!fits) {
      rebuilt.push_back(std::move(n));
      continue;
    }
    std::vector<std::unique_ptr<Node>> emitted;
    RowEmitter emit(g, *x, emitted);
    Value* y = expand(*n, *x, emit);
    if (!y) {
      rebuilt.push_back(std::move(n));
      continue;
    }
    renamed.emplace_back(n->outputs[0], emit.finish(y));
    for (const auto& [from, to] : emit.renamed()) renamed.emplace_back(from, emit.finish(to));
    for (auto& m : emitted) rebuilt.push_back(std::move(m));
  }
  g.set_nodes(std::move(rebuilt));
  for (auto& [from, to] : renamed) g.replace_uses(from, to);
}

// layer_norm over the last dimension of a floating CPU tensor becomes its arithmetic (Note [Row
// reductions]): mean, x - mean, the mean of its square, rsqrt(var + eps), the scale and shift;
// the fuser makes one kernel of it (three loops over each row) with what feeds it and what
// follows, and its backward is derived from those ops' formulas. Half and bfloat16 rows are
// converted to float and the result back (Note [Fused casts]): run op by op, the arithmetic
// rounds once, as eager's kernel does.
void rewrite_layer_norm(Graph& g) {
  rewrite_over_rows(g, {"layer_norm"}, [&](const Node& n, Value& x, RowEmitter& emit) -> Value* {
    const std::vector<int64_t> shape = tracing::ints_attr(n.attrs, "normalized_shape", "layer_norm");
    if (shape.size() != 1 || shape[0] != x.type.sizes.back()) return nullptr;
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      const Value* p = n.inputs[i];
      if (p && (p->type.dtype != x.type.dtype || !p->type.device.is_cpu() || p->type.sizes != shape)) return nullptr;
    }
    const Tensor eps = scalar_to_tensor(Scalar(tracing::double_attr(n.attrs, "eps", "layer_norm")));  // wrapped
    Value* mean = emit.reduce("mean", emit.input(), true);
    Value* centered = emit("sub", {emit.input(), mean}, alpha_one(), false);
    Value* var = emit.reduce("mean", emit("mul", {centered, centered}, {}, false), true);
    Value* rstd = emit("rsqrt", {emit("add", {var, g.add_constant(eps)}, alpha_one(), true)}, {}, true);
    Value* y = emit("mul", {centered, rstd}, {}, false);
    if (n.inputs.size() > 1 && n.inputs[1]) y = emit("mul", {y, n.inputs[1]}, {}, false);
    if (n.inputs.size() > 2 && n.inputs[2]) y = emit("add", {y, n.inputs[2]}, alpha_one(), false);
    return y;
  });
}

// softmax and log_softmax over the last dimension (rows of 128 or more) of a floating CPU tensor
// (half and bfloat16 in float, Note [Fused casts]) become their arithmetic (Note [Row
// reductions]): m = the row's maximum (softmax_shift: no gradient, the result does not depend on
// it), e = exp(x - m), s = e's row sum; e / s, or x - m - log(s).
void rewrite_softmax(Graph& g) {
  rewrite_over_rows(g, {"softmax", "log_softmax"}, [](const Node& n, Value& x, RowEmitter& emit) -> Value* {
    const int64_t dim = tracing::int_attr(n.attrs, "dim", n.kind());
    // Rows of at least 128: shorter ones cost the row driver more per row than eager softmax
    // (an attention's [64, 64] scores measured no faster fused; bench/RESULTS.md).
    if (n.inputs.size() != 1 || tracing::has_attr(n.attrs, "dtype") || x.type.sizes.back() < 128 ||
        (dim != -1 && dim != int64_t(x.type.sizes.size()) - 1))
      return nullptr;
    Value* m = emit("softmax_shift", {emit.input()}, {}, true);
    Value* d = emit("sub", {emit.input(), m}, alpha_one(), false);
    Value* e = emit("exp", {d}, {}, false);
    Value* s = emit.reduce("sum", e, true);
    if (n.kind() == "log_softmax") return emit("sub", {d, emit("log", {s}, {}, true)}, alpha_one(), false);
    return emit("div_true", {e, s}, {}, false);
  });
}
// var, std, var_mean and std_mean over the last dimension of a floating CPU tensor (half and
// bfloat16 in float, Note [Fused casts]) become their arithmetic (Note [Row reductions]): m = the
// row's mean, d = x - m, var = mean(d * d) scaled by n / (n - correction) (a constant of the row's length: not when that length is
// size-generic and the correction non-zero, Note [Dynamic sizes]); std = sqrt(var). Results that
// drop the dimension are reductions without keepdim (read outside the group only).
void rewrite_var_std(Graph& g) {
  rewrite_over_rows(g, {"var", "std", "var_mean", "std_mean"}, [&](const Node& n, Value& x, RowEmitter& emit) -> Value* {
    const std::string_view kind = n.kind();
    if (n.inputs.size() != 1 || !tracing::has_attr(n.attrs, "dim")) return nullptr;
    const std::vector<int64_t> dim = tracing::ints_attr(n.attrs, "dim", kind);
    const int64_t last = int64_t(x.type.sizes.size()) - 1, len = x.type.sizes.back();
    if (dim.size() != 1 || (dim[0] != -1 && dim[0] != last) || len < 1) return nullptr;
    const int64_t correction = tracing::optional_int_attr(n.attrs, "correction", kind).value_or(1);
    const bool generic_row = !x.twin_sizes.empty() && x.twin_sizes.back() != len;
    if (correction != 0 && generic_row) return nullptr;
    const bool keepdim = tracing::bool_attr(n.attrs, "keepdim", kind), root = kind == "std" || kind == "std_mean";
    Value* mean = emit.reduce("mean", emit.input(), true);
    Value* centered = emit("sub", {emit.input(), mean}, alpha_one(), false);
    Value* square = emit("mul", {centered, centered}, {}, false);
    // n / max(0, n - correction), as eager: a row no longer than the correction gives inf or NaN.
    const Tensor scale = scalar_to_tensor(Scalar(double(len) / std::max(0.0, double(len - correction))));
    Value* y;
    if (keepdim) {
      y = emit.reduce("mean", square, true);
      if (correction != 0) y = emit("mul", {y, g.add_constant(scale)}, {}, true);
      if (root) y = emit("sqrt", {y}, {}, true);
    } else {  // the results drop the dimension: read outside the group only (a sqrt is its own kernel)
      if (correction != 0) square = emit("mul", {square, g.add_constant(scale)}, {}, false);
      y = emit.reduce("mean", square, false);
      if (root) y = emit.apply("sqrt", {y});
    }
    if (n.outputs.size() > 1) emit.rename(n.outputs[1], keepdim ? mean : emit.reduce("mean", emit.input(), false));
    return y;
  });
}
}  // namespace

void fuse_pointwise(Graph& g) {
  rewrite_dropout(g);
  rewrite_layer_norm(g);
  rewrite_softmax(g);
  rewrite_var_std(g);
  const auto& nodes = g.nodes();
  std::map<const Value*, size_t> producer;  // node index of each node output
  for (size_t k = 0; k < nodes.size(); ++k)
    for (const Value* o : nodes[k]->outputs) producer[o] = k;
  // group[k]: the group of node k (-1: none); groups as lists of node indices.
  std::vector<int> group(nodes.size(), -1);
  std::vector<std::vector<size_t>> members;
  std::vector<std::vector<int64_t>> sizes, twins;  // a group's output sizes (and in the twin trace)
  std::vector<ScalarType> cls;
  // A member's role (Note [Row reductions]): an elementwise node of the group's shape; a
  // reduction keeping its dimension (a row value: later members may read it); one that drops it
  // (read outside the group only); or a row member, a node of the row's shape ([..., 1]) that
  // reads only row values and constants (per-row arithmetic such as rsqrt(var + eps)).
  enum Role : uint8_t { kNone, kElementwise, kKeepdimReduction, kReduction, kRowMember };
  std::vector<uint8_t> role(nodes.size(), kNone);
  auto row_shape = [](std::vector<int64_t> v) {
    if (!v.empty()) v.back() = 1;
    return v;
  };
  auto row_value_of = [&](const Value* v, int gi) {
    auto p = producer.find(v);
    return p != producer.end() && group[p->second] == gi &&
           (role[p->second] == kKeepdimReduction || role[p->second] == kRowMember);
  };
  // Note [Extrema of library calls]: the kernel calls libm and its vector twins (libmvec) for exp,
  // tanh, erf, ...; the two may differ in the last bit, and each loop of a row kernel picks its
  // own vector width, so one element's tanh may differ between loops. An amax or amin must then
  // not reduce such a value inside the group that computes it: its gradient's tie mask (x == max,
  // autodiff.cpp) would compare the maximum of one loop with the values of another and may find
  // no element equal to it. Such a reduction starts its own group and reads the value stored.
  std::vector<bool> libm(nodes.size(), false);  // a member's value comes from a library call in its group
  auto calls_libm = [](std::string_view op) {
    return op == "exp" || op == "log" || op == "sin" || op == "cos" || op == "tanh" || op == "erf" || op == "sigmoid" ||
           op == "silu" || op == "gelu" || op == "pow";
  };
  auto libm_input = [&](const Node& n, int gi) {
    for (const Value* i : n.inputs) {
      auto p = producer.find(i);
      if (p != producer.end() && group[p->second] >= 0 && (gi < 0 || group[p->second] == gi) && libm[p->second]) return true;
    }
    return false;
  };
  auto is_extremum = [](const Node& n) { return n.kind() == "amax" || n.kind() == "amin"; };
  // Whether groups may become one (with node `also`, if given), run where the first of them
  // starts: every value they read from outside exists before that, and none reads a reduction
  // that dropped its dimension.
  auto mergeable = [&](const std::vector<int>& merged, const Node* also) {
    size_t first = SIZE_MAX;
    for (int gi : merged) first = std::min(first, members[gi].front());
    auto external_ok = [&](const Node& m) {
      for (const Value* j : m.inputs) {
        auto q = producer.find(j);
        if (q == producer.end()) continue;
        const bool in_merged = group[q->second] >= 0 &&
                               std::find(merged.begin(), merged.end(), group[q->second]) != merged.end();
        if (!in_merged && q->second >= first) return false;
        if (in_merged && role[q->second] == kReduction) return false;  // its dimension is gone
      }
      return true;
    };
    for (int gi : merged)
      for (size_t m : members[gi])
        if (!external_ok(*nodes[m])) return false;
    return !also || external_ok(*also);
  };
  for (size_t k = 0; k < nodes.size(); ++k) {
    const Node& n = *nodes[k];
    ScalarType node_cls = kFloat;
    bool keepdim = false;
    const bool reduction = row_reduction(n, &node_cls, &keepdim);
    if (!reduction && !fusible(g, n, &node_cls)) continue;
    libm[k] = calls_libm(n.kind()) || libm_input(n, -1);
    // n joins the groups of its producers, merged into the earliest of them, when every value
    // the merged group reads from outside exists before that group's first node. A reduction
    // joins the group of its input (whose shape is that input's) or starts one; a node may read
    // a row value of its group, never a reduction that dropped its dimension.
    const std::vector<int64_t>& shape = reduction ? n.inputs[0]->type.sizes : n.outputs[0]->type.sizes;
    const std::vector<int64_t>& twin = reduction ? n.inputs[0]->twin_sizes : n.outputs[0]->twin_sizes;
    std::vector<int> cands;
    int row_group = -1;  // a group n may join as a row member
    for (const Value* i : n.inputs) {
      auto p = producer.find(i);
      if (p == producer.end() || group[p->second] < 0) continue;
      const int gi = group[p->second];
      if (!same_class(cls[gi], node_cls)) continue;
      if (sizes[gi] == shape && twins[gi] == twin) {
        if (std::find(cands.begin(), cands.end(), gi) == cands.end()) cands.push_back(gi);
      } else if (!reduction && row_group < 0 && !sizes[gi].empty() && shape == row_shape(sizes[gi]) &&
                 twin == (twins[gi].empty() ? twins[gi] : row_shape(twins[gi]))) {
        bool rows_only = true;
        for (const Value* j : n.inputs) rows_only = rows_only && (is_scalar_constant(g, j) || row_value_of(j, gi));
        if (rows_only) row_group = gi;
      }
    }
    auto legal = [&](const std::vector<int>& merged) { return mergeable(merged, &n); };
    if (reduction) {  // into its input's group, or the start of one
      if (is_extremum(n) && libm_input(n, -1)) cands.clear();  // Note [Extrema of library calls]
      if (cands.size() == 1 && legal(cands)) {
        group[k] = cands[0];
        members[cands[0]].push_back(k);
      } else if (cands.empty()) {
        group[k] = int(members.size());
        members.push_back({k});
        sizes.push_back(shape);
        twins.push_back(twin);
        cls.push_back(node_cls);
      } else {
        continue;
      }
      role[k] = keepdim ? kKeepdimReduction : kReduction;
      continue;
    }
    if (row_group >= 0 && cands.empty() && legal({row_group})) {
      group[k] = row_group;
      members[row_group].push_back(k);
      role[k] = kRowMember;
      continue;
    }
    int join = -1;
    if (!cands.empty() && legal(cands)) {
      std::sort(cands.begin(), cands.end(), [&](int a, int b) { return members[a].front() < members[b].front(); });
      join = cands[0];
      for (size_t c = 1; c < cands.size(); ++c) {
        for (size_t m : members[cands[c]]) group[m] = join;
        members[join].insert(members[join].end(), members[cands[c]].begin(), members[cands[c]].end());
        members[cands[c]].clear();
      }
      std::sort(members[join].begin(), members[join].end());
    } else {
      for (int gi : cands)
        if (legal({gi})) {
          join = gi;
          break;
        }
    }
    if (join < 0) {
      join = int(members.size());
      members.emplace_back();
      sizes.push_back(n.outputs[0]->type.sizes);
      twins.push_back(n.outputs[0]->twin_sizes);
      cls.push_back(node_cls);
    }
    group[k] = join;
    members[join].push_back(k);
    role[k] = kElementwise;
  }
  // Horizontal fusion: groups of one shape and class that read a common tensor become one (which
  // reads it once), where mergeable (a later group may need a value computed after the earlier
  // one starts: then they stay apart).
  auto reads = [&](int gi) {
    std::set<const Value*> r;
    for (size_t m : members[size_t(gi)])
      for (const Value* i : nodes[m]->inputs)
        if (i && !is_scalar_constant(g, i)) r.insert(i);
    return r;
  };
  for (size_t a = 0; a < members.size(); ++a) {
    if (members[a].empty()) continue;
    std::set<const Value*> read_a = reads(int(a));
    for (size_t b = a + 1; b < members.size(); ++b) {
      if (members[b].empty() || sizes[a] != sizes[b] || twins[a] != twins[b] || !same_class(cls[a], cls[b])) continue;
      const std::set<const Value*> read_b = reads(int(b));
      const bool shared = std::any_of(read_b.begin(), read_b.end(), [&](const Value* v) {
        auto p = producer.find(v);  // a tensor from outside both groups
        return read_a.count(v) && (p == producer.end() || (group[p->second] != int(a) && group[p->second] != int(b)));
      });
      // Note [Extrema of library calls]: no extremum joins the group that computes its argument.
      const bool extremum_of_call = std::any_of(members[b].begin(), members[b].end(), [&](size_t m) {
        return is_extremum(*nodes[m]) && libm_input(*nodes[m], int(a));
      }) || std::any_of(members[a].begin(), members[a].end(), [&](size_t m) {
        return is_extremum(*nodes[m]) && libm_input(*nodes[m], int(b));
      });
      if (!shared || extremum_of_call || !mergeable({int(a), int(b)}, nullptr)) continue;
      for (size_t m : members[b]) group[m] = int(a);
      members[a].insert(members[a].end(), members[b].begin(), members[b].end());
      std::sort(members[a].begin(), members[a].end());
      members[b].clear();
      read_a.insert(read_b.begin(), read_b.end());
    }
  }
  // The values a set of nodes reads from outside (constants the kernel holds aside) and those
  // it defines that a node outside it or the graph's outputs read.
  std::vector<std::vector<size_t>> readers(g.num_values());
  for (size_t k = 0; k < nodes.size(); ++k)
    for (const Value* i : nodes[k]->inputs)
      if (i) readers[i->id].push_back(k);
  std::vector<bool> is_output(g.num_values(), false);
  for (const Value* o : g.outputs()) is_output[o->id] = true;
  auto boundary = [&](const std::vector<size_t>& set, std::vector<Value*>* ins, std::vector<Value*>* outs) {
    auto in_set = [&](size_t k) { return std::binary_search(set.begin(), set.end(), k); };
    for (size_t k : set) {
      for (Value* i : nodes[k]->inputs) {
        auto p = producer.find(i);
        const bool inside = p != producer.end() && in_set(p->second);
        if (!inside && !is_scalar_constant(g, i) && std::find(ins->begin(), ins->end(), i) == ins->end())
          ins->push_back(i);
      }
      Value* o = nodes[k]->outputs[0];
      bool leaves = is_output[o->id];
      for (size_t r : readers[o->id]) leaves = leaves || !in_set(r);
      if (leaves) outs->push_back(o);
    }
  };
  // A group with more operands than its kernel takes is cut, in node order, into groups that
  // fit (each part reads only what exists before its first node: the earlier parts' values and
  // the group's own inputs). On the CPU a group of more than TensorIterator's operands runs row
  // by row (the row driver takes up to kMaxRowOperands); a CUDA kernel takes the iterator's.
  std::vector<std::vector<size_t>> parts;
  auto limit_of = [&](const std::vector<size_t>& m) {
    return nodes[m.front()]->outputs[0]->type.device.is_cpu() ? size_t(kMaxRowOperands) : size_t(kMaxIteratorOperands);
  };
  for (auto& m : members) {
    if (m.size() < 2) continue;  // a single node (or a group merged into another)
    const size_t limit = limit_of(m);
    std::vector<size_t> part;
    for (size_t k : m) {
      std::vector<size_t> grown = part;
      grown.push_back(k);
      std::vector<Value*> ins, outs;
      boundary(grown, &ins, &outs);
      if (!part.empty() && ins.size() + outs.size() > limit) {
        parts.push_back(std::move(part));
        part = {k};
      } else {
        part = std::move(grown);
      }
    }
    parts.push_back(std::move(part));
  }
  std::fill(group.begin(), group.end(), -1);
  std::vector<std::vector<Value*>> ins(parts.size()), outs(parts.size());
  std::vector<bool> fuse(parts.size(), false);
  for (size_t gi = 0; gi < parts.size(); ++gi) {
    if (parts[gi].size() < 2) continue;
    boundary(parts[gi], &ins[gi], &outs[gi]);
    fuse[gi] = !outs[gi].empty() && ins[gi].size() + outs[gi].size() <= limit_of(parts[gi]);
    for (size_t k : parts[gi]) group[k] = int(gi);
  }
  members = std::move(parts);
  // Each fused group becomes one node at its first node's place.
  std::vector<std::unique_ptr<Node>> owned = g.take_nodes(), rebuilt;
  std::map<Value*, Value*> renamed;  // a group's outputs -> the fused node's
  for (size_t k = 0; k < owned.size(); ++k) {
    const int gi = group[k];
    if (gi < 0 || !fuse[gi]) {
      rebuilt.push_back(std::move(owned[k]));
      continue;
    }
    if (members[gi].front() != k) continue;  // made with its group's first node
    auto fg = std::make_shared<FusionGroup>();
    std::map<const Value*, Value*> local;
    for (size_t i = 0; i < ins[gi].size(); ++i)
      local[ins[gi][i]] = fg->graph.add_input("in" + std::to_string(i), ins[gi][i]->type);
    for (size_t m : members[gi]) {
      const Node& n = *owned[m];
      std::vector<Value*> args;
      for (Value* i : n.inputs) {
        if (!local.count(i)) local[i] = fg->graph.add_constant(*g.constant_value(i));  // a scalar constant
        args.push_back(local.at(i));
      }
      Node* copy = fg->graph.add_node(*n.op, args, n.attrs, {n.outputs[0]->type}, false);
      local[n.outputs[0]] = copy->outputs[0];
    }
    std::vector<Value*> sub_outs;
    std::vector<TensorType> types;
    for (Value* o : outs[gi]) sub_outs.push_back(local.at(o)), types.push_back(o->type);
    fg->graph.set_outputs(sub_outs);
    for (Value* o : outs[gi]) {
      const uint8_t r = role[producer.at(o)];
      fg->row_outputs.push_back(r == kKeepdimReduction || r == kRowMember ? 1 : r == kReduction ? 2 : 0);
    }
    fg->spec = spec_of(fg->graph);
    for (size_t o = 0; o < fg->row_outputs.size(); ++o) fg->spec.output_rows[o] = fg->row_outputs[o] != 0;
    fg->key = fg->spec.str();
    std::unique_ptr<Node> f = g.make_node(fused_op, ins[gi], {}, types, false);
    f->fusion = fg;
    for (size_t i = 0; i < outs[gi].size(); ++i) renamed[outs[gi][i]] = f->outputs[i];
    rebuilt.push_back(std::move(f));
  }
  for (auto& n : rebuilt)
    for (Value*& i : n->inputs)
      if (auto r = renamed.find(i); i && r != renamed.end()) i = r->second;
  g.set_nodes(std::move(rebuilt));
  for (auto& [from, to] : renamed) g.replace_uses(from, to);
  g.drop_unused_constants();
}

namespace {

// The backward of a fused group's kernel run (Note [Fused backward]): saves the group's inputs and
// runs the group's backward program, derived for the inputs that need a gradient.
struct FusedBackward final : autograd::Node {
  std::shared_ptr<FusionGroup> group;
  std::vector<autograd::SavedVariable> saved;

  std::string name() const override { return "FusedBackward"; }
  void release_variables() override {
    for (auto& s : saved) s.reset();
  }
  autograd::variable_list apply(autograd::variable_list&& grads) override {
    std::vector<bool> needs(num_outputs());
    bool any = false;
    for (size_t i = 0; i < needs.size(); ++i) {
      needs[i] = should_compute_output(i);
      any = any || needs[i];
    }
    autograd::variable_list r(num_outputs());
    if (!any) return r;
    TensorList in;
    for (const auto& s : saved) in.push_back(s.unpack());
    for (size_t k = 0; k < grads.size(); ++k) {
      const autograd::InputMetadata& m = input_metadata(k);
      in.push_back(grads[k].defined() ? grads[k] : zeros(m.shape, TensorOptions().dtype(m.dtype).device(m.device)));
    }
    FusionGroup::BackwardKey key{needs, {}};
    std::vector<TensorType> types;
    for (const Tensor& t : in) {
      types.push_back(TensorType::of(t));
      key.second.push_back(types.back().sizes);
    }
    std::shared_ptr<const BackwardProgram> prog;
    {
      std::lock_guard<std::mutex> lock(group->mutex);
      auto& slot = group->backward[key];
      if (!slot) {
        const std::vector<TensorType> input_types(types.begin(), types.begin() + std::ptrdiff_t(saved.size()));
        const std::vector<TensorType> grad_types(types.begin() + std::ptrdiff_t(saved.size()), types.end());
        slot = derive_backward(group->graph, needs, input_types, grad_types);
      }
      prog = slot;
    }
    TensorList out = run_graph(*prog->exec, in, {});
    for (size_t i = 0; i < r.size(); ++i)
      if (needs[i] && prog->slot[i] >= 0) r[i] = out[size_t(prog->slot[i])];
    return r;
  }
};

// A dense tensor of `sizes` whose dimensions are ordered in memory as those of `order_strides`
// (a traced output's strides; any rank mismatch gives a contiguous tensor).
Tensor empty_in_order(IntArrayRef sizes, const std::vector<int64_t>& order_strides, ScalarType dtype, Device device) {
  const int64_t n = int64_t(sizes.size());
  const TensorOptions options = TensorOptions().dtype(dtype).device(device);
  if (order_strides.size() != sizes.size()) return empty(sizes, options);
  std::vector<int64_t> perm(size_t(n), 0);  // outermost first
  for (int64_t d = 0; d < n; ++d) perm[size_t(d)] = d;
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return order_strides[size_t(a)] > order_strides[size_t(b)]; });
  std::vector<int64_t> strides(size_t(n), 1);
  int64_t step = 1;
  for (int64_t k = n; k-- > 0;) {
    strides[size_t(perm[size_t(k)])] = step;
    step *= std::max<int64_t>(sizes[size_t(perm[size_t(k)])], 1);
  }
  return empty_strided(sizes, strides, options);
}

// Runs a kernel with seeds over `shape` row by row (the last dimension), in row-major order, so
// that it can number each element by its row-major index (Note [Fused dropout]). Operands: the
// outputs then the operand inputs, each broadcast to shape by its strides.
void run_rows(KernelFn k, const std::vector<Tensor>& operands, IntArrayRef shape, const std::vector<uint64_t>& seeds) {
  const int64_t dims = int64_t(shape.size());
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  if (numel == 0) return;
  const int64_t inner = dims == 0 ? 1 : shape[size_t(dims - 1)];
  const int64_t rows = numel / inner;
  const size_t nops = operands.size();
  // Byte strides of each operand over shape (0 where it broadcasts).
  std::vector<std::vector<int64_t>> strides(nops, std::vector<int64_t>(size_t(dims), 0));
  std::vector<char*> base(nops);
  std::vector<int64_t> inner_strides(nops, 0);
  for (size_t k2 = 0; k2 < nops; ++k2) {
    const Tensor& t = operands[k2];
    base[k2] = static_cast<char*>(t.data_ptr());
    const int64_t lead = dims - t.dim();
    const int64_t item = int64_t(t.element_size());
    for (int64_t d = 0; d < t.dim(); ++d)
      if (t.size(d) != 1) strides[k2][size_t(lead + d)] = t.stride(d) * item;
    if (dims > 0) inner_strides[k2] = strides[k2][size_t(dims - 1)];
  }
  parallel_for(0, rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(inner, 1)), [&](int64_t begin, int64_t end) {
    std::vector<char*> ptr(nops);
    std::vector<uint64_t> extra(1 + seeds.size());
    std::copy(seeds.begin(), seeds.end(), extra.begin() + 1);
    for (int64_t r = begin; r < end; ++r) {
      for (size_t k2 = 0; k2 < nops; ++k2) ptr[k2] = base[k2];
      int64_t rest = r;
      for (int64_t d = dims - 2; d >= 0; --d) {
        const int64_t coord = rest % shape[size_t(d)];
        rest /= shape[size_t(d)];
        for (size_t k2 = 0; k2 < nops; ++k2) ptr[k2] += coord * strides[k2][size_t(d)];
      }
      extra[0] = static_cast<uint64_t>(r * inner);
      k(ptr.data(), inner_strides.data(), inner, extra.data());
    }
  });
}

// Which outputs of a group a gradient can flow to from the inputs flagged in `from`.
std::vector<bool> differentiable_outputs(const Graph& group, const std::vector<bool>& from) {
  std::vector<bool> active(group.num_values(), false);
  for (size_t i = 0; i < from.size(); ++i) active[group.inputs()[i]->id] = from[i];
  for (const auto& n : group.nodes()) {
    bool any = false;
    for (const Value* i : n->inputs) any = any || (i && active[i->id]);
    const ScalarType t = n->outputs[0]->type.dtype;
    active[n->outputs[0]->id] = any && differentiable_in_group(*n) && (floating(t) || complex_dtype(t));
  }
  std::vector<bool> r;
  for (const Value* o : group.outputs()) r.push_back(active[o->id]);
  return r;
}

}  // namespace

// Runs a fused node: its kernel over the inputs, or (counted) its subgraph op by op.
std::vector<Tensor> detail::run_fused(const Node& n, const std::vector<Tensor>& inputs) {
  FusionGroup& fg = *n.fusion;
  bool eager = tracing::active() || autograd::forward_ad::detail::any_level_open();
  std::vector<bool> needs_grad;
  bool record = false;
  const Device device = inputs.empty() ? Device(kCPU) : inputs.front().device();
  for (const Tensor& t : inputs) {
    eager = eager || t.device() != device || !(t.is_cpu() || t.is_cuda());
    needs_grad.push_back(GradMode::is_enabled() && t.requires_grad());
    record = record || needs_grad.back();
  }
  KernelFn k = eager || !device.is_cpu() ? nullptr : kernel_of(fg);
  if (eager || (device.is_cpu() && !k)) {
    detail::count_fused(false);
    return run_graph(fg.graph, inputs, {});
  }
  // The outputs have the inputs' broadcast shape (the traced one, or another where the graph is
  // size-generic: Note [Dynamic sizes]), laid out in the dimension order the trace saw. They are
  // made here and given to the iterator as its first operands, as inputs: the iterator only lays
  // out and splits the loop (an output of the iterator would have to be of the common dtype, and
  // a group's outputs may be bool beside float).
  DimVector shape;
  for (const Tensor& t : inputs) shape = infer_size(shape, t.sizes());
  std::vector<Tensor> outs;
  std::vector<Tensor> row_views;  // what the row driver writes: a reduction's output as [..., 1]
  for (size_t k2 = 0; k2 < fg.graph.outputs().size(); ++k2) {
    const Value* o = fg.graph.outputs()[k2];
    const uint8_t row = k2 < fg.row_outputs.size() ? fg.row_outputs[k2] : 0;
    if (row == 0) {
      outs.push_back(empty_in_order(shape, o->type.strides, o->type.dtype, device));
      row_views.push_back(outs.back());
      continue;
    }
    DimVector reduced(shape);
    reduced.back() = 1;
    row_views.push_back(empty(reduced, TensorOptions().dtype(o->type.dtype).device(device)));
    outs.push_back(row == 1 ? row_views.back() : row_views.back().squeeze(-1));
    if (shape.back() == 0) row_views.back().fill_(o->node->kind() == "mean" ? std::numeric_limits<double>::quiet_NaN() : 0.0);
  }
  if (device.is_cuda()) {  // Note [CUDA code generator]
    std::vector<Tensor> operands = outs;
    operands.insert(operands.end(), inputs.begin(), inputs.end());
    std::string why;
    if (!detail::run_fused_cuda(fg, operands, &why)) {
      {
        std::lock_guard<std::mutex> lock(fg.mutex);
        if (fg.error.empty()) fg.error = why;
      }
      detail::count_fused(false);
      return run_graph(fg.graph, inputs, {});
    }
    detail::count_fused(true);
  } else if (fg.rows() || outs.size() + inputs.size() > size_t(kMaxIteratorOperands)) {
    // Notes [Fused dropout], [Row reductions]: row by row, in row-major order.
    detail::count_fused(true);
    std::vector<Tensor> operands = row_views;
    std::vector<uint64_t> seeds;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (is_seed(fg.graph.inputs()[i])) seeds.push_back(static_cast<uint64_t>(inputs[i].item<int64_t>()));
      else operands.push_back(inputs[i]);
    }
    run_rows(k, operands, shape, seeds);
  } else {
    detail::count_fused(true);
    TensorIteratorConfig cfg;
    cfg.set_op_name("jit fused");
    cfg.promote_inputs_to_common_dtype(false).cast_common_dtype_to_outputs(false).check_all_same_dtype(false);
    for (const Tensor& t : outs) cfg.add_input(t);
    for (const Tensor& t : inputs) cfg.add_input(t);
    TensorIterator it = cfg.build();
    if (it.numel() > 0)
      it.for_each([k](char** data, const int64_t* strides, int64_t count) { k(data, strides, count, nullptr); });
  }
  if (record) {
    const std::vector<bool> flows = differentiable_outputs(fg.graph, needs_grad);
    if (std::find(flows.begin(), flows.end(), true) != flows.end()) {
      auto node = std::make_shared<FusedBackward>();
      node->group = n.fusion;
      node->set_next_edges(autograd::collect_next_edges(inputs));
      for (const Tensor& t : inputs) node->saved.emplace_back(t, false);
      for (size_t i = 0; i < outs.size(); ++i) {
        node->add_input_metadata(outs[i]);
        if (flows[i]) autograd::set_history(outs[i], node, uint32_t(i));
      }
    }
  }
  return outs;
}

std::string fusion_report(const Graph& g) {
  std::ostringstream os;
  for (const auto& n : g.nodes()) {
    if (!n->fusion) continue;
    os << "fused group of " << n->fusion->graph.nodes().size() << " ops: " << n->fusion->key;
    if (!n->fusion->error.empty()) os << "  [not compiled: " << n->fusion->error << "]";
    os << "\n";
  }
  return os.str();
}

const Graph* fusion_subgraph(const Node& n) { return n.fusion ? &n.fusion->graph : nullptr; }

}  // namespace ember::jit
