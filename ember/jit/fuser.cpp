// The pointwise fuser (jit.h: fuse_pointwise, Note [Pointwise fusion]).
//
// Note [Pointwise fusion]: a pass groups chains of pointwise nodes into one "fused" node that
// holds them as a subgraph; running it computes the whole chain in one pass over memory with a
// kernel the CPU code generator made for it (libember_llvm.so, Note [LLVM backend]), compiled
// once per group shape (the kernel cache is keyed by the group's canonical text, KernelSpec::
// str()). What joins a group: a pointwise node (the op table's fusion class) the code
// generator has a rule for, without effects, whose operands are floating point of one class
// (double, or float/half/bfloat16, computed in float), whose output has the group's shape (inputs
// may broadcast: TensorIterator lays them out), and whose other inputs were all defined before
// the group's first node (so the group, run where its first node was, never needs a value
// computed after it). Numbers wrapped as tensors become constants of the kernel. At most six
// tensors cross a group's boundary (TensorIterator's limit). A fused node falls back to running
// its subgraph op by op, counted in stats() (fused_fallbacks), when an input needs a gradient
// (the fused backward is not generated yet), when an input is not on the CPU, or when no kernel
// could be made (LLVM missing: the reason is kept and shown by fusion_report()).
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <mutex>
#include <sstream>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/jit/jit.h"
#include "ember/jit/kernel_spec.h"
#include "ember/ops/functions.h"
#include "ember/ops/tensor_iterator.h"

namespace ember::jit {

namespace {

// ---- the backend -----------------------------------------------------------------------------

using CompileFn = KernelFn (*)(const KernelSpec*, std::string*, std::string*);

struct Backend {
  CompileFn compile = nullptr;
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
      if (r.compile) return r;
      tried += "; " + path + " has no ember_llvm_compile";
    }
    r.error = "the CPU code generator (libember_llvm.so, built with LLVM) could not be loaded: " + tried;
    return r;
  }();
  return b;
}

bool floating(ScalarType t) { return t == kFloat || t == kDouble || t == kHalf || t == kBFloat16; }
KTy kty(ScalarType t) {
  switch (t) {
    case kDouble: return KTy::F64;
    case kHalf: return KTy::F16;
    case kBFloat16: return KTy::BF16;
    default: return KTy::F32;
  }
}

// The ops the code generator has a rule for (cpu_codegen.cpp, Emitter::op).
const std::set<std::string_view>& kernel_ops() {
  static const std::set<std::string_view> ops = {
      "add",  "sub",     "mul",  "div",  "neg",     "reciprocal", "square",     "exp",  "log",     "sin",
      "cos",  "sqrt",    "rsqrt", "abs", "tanh",    "erf",        "sigmoid",    "silu", "relu",    "leaky_relu",
      "gelu", "maximum", "minimum", "pow"};
  return ops;
}

bool is_wrapped_constant(const Graph& g, const Value* v) {
  const Tensor* t = g.constant_value(v);
  return t && t->unsafeGetTensorImpl()->is_wrapped_number() && !t->requires_grad();
}

bool same_class(ScalarType a, ScalarType b) { return (a == kDouble) == (b == kDouble); }

// A node that may be fused, and the dtype class it computes in.
bool fusible(const Graph& g, const Node& n) {
  if (n.op->fusion != tracing::Fusion::Pointwise || n.has_effects() || n.outputs.size() != 1) return false;
  if (!kernel_ops().count(n.kind()) || tracing::has_attr(n.attrs, "mode")) return false;
  const TensorType& out = n.outputs[0]->type;
  if (!floating(out.dtype) || !out.device.is_cpu()) return false;
  for (const Value* i : n.inputs) {
    if (!i) return false;
    if (is_wrapped_constant(g, i)) continue;
    if (!floating(i->type.dtype) || !same_class(i->type.dtype, out.dtype) || !i->type.device.is_cpu()) return false;
  }
  for (const auto& [name, a] : n.attrs)
    if (const Scalar* s = std::get_if<Scalar>(&a); !s || s->isComplex()) return false;
  return true;
}

const tracing::TracedOpDef fused_op{{"fused", tracing::Fusion::Opaque,
                                     [](const tracing::TracedOp&, const std::vector<Tensor>&,
                                        const tracing::Attrs&) -> std::vector<Tensor> {
                                       EMBER_ERROR("jit: a fused node runs through its group, not its op");
                                     }}};

}  // namespace

// ---- fusion groups -----------------------------------------------------------------------------

struct FusionGroup {
  Graph graph;  // the group's nodes; inputs: what it reads from outside; outputs: what leaves it
  KernelSpec spec;
  std::string key;
  std::mutex mutex;
  bool tried = false;
  KernelFn kernel = nullptr;
  std::string error;
};

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
  std::string error;
  const auto t0 = std::chrono::steady_clock::now();
  KernelFn k = b.compile(&group.spec, nullptr, &error);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!k) {
    group.error = error;
    return nullptr;
  }
  std::lock_guard<std::mutex> cache_lock(g_cache_mutex);
  kernel_cache().emplace(group.key, k);
  detail::count_compile(seconds);
  return group.kernel = k;
}

// The kernel's description of a group (inputs are the group graph's inputs, in order).
KernelSpec spec_of(const Graph& g) {
  KernelSpec s;
  std::map<const Value*, int> ref;
  for (const Value* v : g.inputs()) {
    ref[v] = int(s.inputs.size());
    s.inputs.push_back(kty(v->type.dtype));
    s.f64 = s.f64 || v->type.dtype == kDouble;
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
    k.op = std::string(n->kind());
    for (const Value* i : n->inputs) k.args.push_back(value(i));
    for (const auto& [name, a] : n->attrs) k.scalars[k.num_scalars++] = std::get<Scalar>(a).toDouble();
    s.instrs.push_back(std::move(k));
    ref[n->outputs[0]] = int(s.inputs.size() + s.instrs.size() - 1);
    s.f64 = s.f64 || n->outputs[0]->type.dtype == kDouble;
  }
  for (const Value* o : g.outputs()) {
    s.outputs.push_back(kty(o->type.dtype));
    s.output_values.push_back(ref.at(o));
  }
  return s;
}

}  // namespace

void fuse_pointwise(Graph& g) {
  const auto& nodes = g.nodes();
  std::map<const Value*, size_t> producer;  // node index of each node output
  for (size_t k = 0; k < nodes.size(); ++k)
    for (const Value* o : nodes[k]->outputs) producer[o] = k;
  // group[k]: the group of node k (-1: none); groups as lists of node indices.
  std::vector<int> group(nodes.size(), -1);
  std::vector<std::vector<size_t>> members;
  std::vector<std::vector<int64_t>> sizes;
  std::vector<ScalarType> cls;
  for (size_t k = 0; k < nodes.size(); ++k) {
    const Node& n = *nodes[k];
    if (!fusible(g, n)) continue;
    // n joins the groups of its producers, merged into the earliest of them, when every value
    // the merged group reads from outside exists before that group's first node.
    std::vector<int> cands;
    for (const Value* i : n.inputs) {
      auto p = producer.find(i);
      if (p == producer.end() || group[p->second] < 0) continue;
      const int gi = group[p->second];
      if (sizes[gi] != n.outputs[0]->type.sizes || !same_class(cls[gi], n.outputs[0]->type.dtype)) continue;
      if (std::find(cands.begin(), cands.end(), gi) == cands.end()) cands.push_back(gi);
    }
    auto legal = [&](const std::vector<int>& merged) {
      size_t first = SIZE_MAX;
      for (int gi : merged) first = std::min(first, members[gi].front());
      auto external_ok = [&](const Node& m) {
        for (const Value* j : m.inputs) {
          auto q = producer.find(j);
          if (q == producer.end()) continue;
          const bool in_merged = std::find(merged.begin(), merged.end(), group[q->second]) != merged.end() &&
                                 group[q->second] >= 0;
          if (!in_merged && q->second >= first) return false;
        }
        return true;
      };
      for (int gi : merged)
        for (size_t m : members[gi])
          if (!external_ok(*nodes[m])) return false;
      return external_ok(n);
    };
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
      cls.push_back(n.outputs[0]->type.dtype);
    }
    group[k] = join;
    members[join].push_back(k);
  }
  // The values each group reads from outside and those used outside it.
  std::vector<bool> used_outside(g.num_values(), false);
  for (size_t k = 0; k < nodes.size(); ++k)
    for (const Value* i : nodes[k]->inputs) {
      if (!i) continue;
      auto p = producer.find(i);
      if (p == producer.end() || group[k] < 0 || group[p->second] != group[k]) used_outside[i->id] = true;
    }
  for (const Value* o : g.outputs()) used_outside[o->id] = true;
  auto inside = [&](const Value* v, int gi) {
    auto p = producer.find(v);
    return p != producer.end() && group[p->second] == gi;
  };
  std::vector<std::vector<Value*>> ins(members.size()), outs(members.size());
  std::vector<bool> fuse(members.size(), false);
  for (size_t gi = 0; gi < members.size(); ++gi) {
    if (members[gi].size() < 2) continue;  // a single node (or a group merged into another)
    for (size_t k : members[gi]) {
      for (Value* i : nodes[k]->inputs)
        if (!inside(i, int(gi)) && !is_wrapped_constant(g, i) && std::find(ins[gi].begin(), ins[gi].end(), i) == ins[gi].end())
          ins[gi].push_back(i);
      if (used_outside[nodes[k]->outputs[0]->id]) outs[gi].push_back(nodes[k]->outputs[0]);
    }
    fuse[gi] = !outs[gi].empty() && ins[gi].size() + outs[gi].size() <= size_t(kMaxIteratorOperands);
  }
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
        if (!local.count(i)) local[i] = fg->graph.add_constant(*g.constant_value(i));  // a wrapped number
        args.push_back(local.at(i));
      }
      Node* copy = fg->graph.add_node(*n.op, args, n.attrs, {n.outputs[0]->type}, false);
      local[n.outputs[0]] = copy->outputs[0];
    }
    std::vector<Value*> sub_outs;
    std::vector<TensorType> types;
    for (Value* o : outs[gi]) sub_outs.push_back(local.at(o)), types.push_back(o->type);
    fg->graph.set_outputs(sub_outs);
    fg->spec = spec_of(fg->graph);
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

// Runs a fused node: its kernel over the inputs, or (counted) its subgraph op by op.
std::vector<Tensor> detail::run_fused(const Node& n, const std::vector<Tensor>& inputs) {
  FusionGroup& fg = *n.fusion;
  bool eager = false;
  for (const Tensor& t : inputs) eager = eager || !t.is_cpu() || (GradMode::is_enabled() && t.requires_grad());
  KernelFn k = eager ? nullptr : kernel_of(fg);
  detail::count_fused(k != nullptr);
  if (!k) return run_graph(fg.graph, inputs, {});
  std::vector<Tensor> outs;
  TensorIteratorConfig cfg;
  cfg.set_op_name("jit fused");
  cfg.promote_inputs_to_common_dtype(false).cast_common_dtype_to_outputs(false).check_all_same_dtype(false);
  for (const Value* o : fg.graph.outputs()) {
    outs.push_back(empty_strided(o->type.sizes, o->type.strides, TensorOptions().dtype(o->type.dtype)));
    cfg.add_output(outs.back());
  }
  for (const Tensor& t : inputs) cfg.add_input(t);
  TensorIterator it = cfg.build();
  if (it.numel() > 0) it.for_each([k](char** data, const int64_t* strides, int64_t count) { k(data, strides, count); });
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
