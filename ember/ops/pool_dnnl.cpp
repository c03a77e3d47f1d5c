#include "ember/ops/pool_dnnl.h"

#include <climits>
#include <cmath>
#include <list>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>

#include "ember/core/parallel.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/device_check.h"
#include "ember/ops/dnnl_common.h"
#include "ember/ops/functions.h"
#include "ember/ops/op_def.h"

namespace ember::pool_detail {

namespace {

using dnnl::memory;
using dims = memory::dims;
using dnnl_common::dnnl_type;
using dnnl_common::engine;

dims to_dims(const std::vector<int64_t>& v) { return dims(v.begin(), v.end()); }

std::vector<int64_t> output_sizes(IntArrayRef in, const PoolShape& s) {
  std::vector<int64_t> out{in[0], in[1]};
  for (size_t i = 0; i + 2 < in.size(); ++i)
    out.push_back(dnnl_common::window_output_size(in[i + 2], s.kernel[i], s.stride[i], s.pad_l[i], s.pad_r[i],
                                                  s.dilation[i]));
  return out;
}

// One pooling geometry and its primitives, created on first use.
struct Geometry {
  std::vector<int64_t> in, out;
  PoolShape s;
  PoolKind kind;
  ScalarType dtype;
  bool last;  // channels-last activations
  int threads;

  std::string key() const {
    std::ostringstream k;
    for (const auto* v : {&in, &s.kernel, &s.stride, &s.pad_l, &s.pad_r, &s.dilation}) {
      for (int64_t x : *v) k << x << ',';
      k << ';';
    }
    k << int(kind) << ';' << int(dtype) << ';' << last << ';' << threads;
    return k.str();
  }
  memory::desc md(const std::vector<int64_t>& sizes) const {
    return memory::desc(to_dims(sizes), dnnl_type(dtype), dnnl_common::plain_tag(int64_t(sizes.size()), last));
  }
  dnnl::algorithm alg() const {
    return kind == PoolKind::Max            ? dnnl::algorithm::pooling_max
           : kind == PoolKind::AvgIncludePad ? dnnl::algorithm::pooling_avg_include_padding
                                             : dnnl::algorithm::pooling_avg_exclude_padding;
  }
  dims dilation() const {
    dims d;
    for (int64_t v : s.dilation) d.push_back(v - 1);  // oneDNN counts the gaps
    return d;
  }
  dnnl::pooling_v2_forward::desc fwd_desc(bool training) const {
    return dnnl::pooling_v2_forward::desc(
        training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference, alg(), md(in), md(out),
        to_dims(s.stride), to_dims(s.kernel), dilation(), to_dims(s.pad_l), to_dims(s.pad_r));
  }
};

struct PoolEntry {
  std::mutex mu;  // guards creation
  std::unique_ptr<dnnl::pooling_v2_forward::primitive_desc> train_pd, infer_pd;
  dnnl::pooling_v2_forward train, infer;
  std::unique_ptr<dnnl::pooling_v2_backward::primitive_desc> bwd_pd;
  dnnl::pooling_v2_backward bwd;
};

// The forward primitive (training: the one the backward is made from), created once.
const dnnl::pooling_v2_forward::primitive_desc& forward_pd(PoolEntry& e, const Geometry& g, bool training,
                                                           dnnl::pooling_v2_forward* prim) {
  std::lock_guard<std::mutex> lock(e.mu);
  auto& pd = training ? e.train_pd : e.infer_pd;
  auto& p = training ? e.train : e.infer;
  if (!pd) {
    pd = std::make_unique<dnnl::pooling_v2_forward::primitive_desc>(g.fwd_desc(training), dnnl_common::scratchpad_attr(), engine());
    p = dnnl::pooling_v2_forward(*pd);
  }
  if (prim) *prim = p;
  return *pd;
}

Geometry geometry(IntArrayRef in, const PoolShape& s, PoolKind kind, ScalarType dtype, bool last) {
  Geometry g{{in.begin(), in.end()}, output_sizes(in, s), s, kind, dtype, last, 1};
  double work = 1;
  for (int64_t v : g.out) work *= double(v);
  for (int64_t k : s.kernel) work *= double(k);
  g.threads = in_parallel_region() || work < 32768.0 ? 1 : get_num_threads();
  return g;
}

void execute(const dnnl::primitive& p, const dnnl::primitive_desc_base& pd, std::unordered_map<int, memory> args) {
  dnnl_common::execute(p, pd, std::move(args));
  dnnl_common::stream().wait();
}

MemoryFormat format_of(size_t rank, bool last) {
  if (!last) return MemoryFormat::Contiguous;
  return rank == 5 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast;
}

}  // namespace

bool dnnl_supported(const Tensor& input) {
  const ScalarType t = input.scalar_type();
  if (t == kBFloat16 && !dnnl_common::bf16_supported()) return false;
  return (t == kFloat || t == kBFloat16) && input.device().is_cpu() && input.dim() >= 3 && input.dim() <= 5 &&
         input.numel() > 0 && input.numel() <= INT_MAX;
}

MemoryFormat pool_format(const Tensor& input) {
  if (input.dim() == 4 && input.is_contiguous(MemoryFormat::ChannelsLast) && !input.is_contiguous())
    return MemoryFormat::ChannelsLast;
  if (input.dim() == 5 && input.is_contiguous(MemoryFormat::ChannelsLast3d) && !input.is_contiguous())
    return MemoryFormat::ChannelsLast3d;
  return MemoryFormat::Contiguous;
}

Tensor dnnl_pool_forward(const Tensor& input, const PoolShape& s, PoolKind kind, Tensor* workspace) {
  const MemoryFormat fmt = pool_format(input);
  const Tensor x = input.contiguous(fmt);
  const Geometry g = geometry(x.sizes(), s, kind, x.scalar_type(), fmt != MemoryFormat::Contiguous);
  Tensor out = empty(g.out, x.options().memory_format(fmt));
  const bool training = workspace != nullptr && kind == PoolKind::Max;
  dnnl_common::OmpThreads threads(g.threads, in_parallel_region());
  std::shared_ptr<PoolEntry> e = dnnl_common::cached_entry<PoolEntry>(g.key());
  dnnl::pooling_v2_forward prim;
  const auto& pd = forward_pd(*e, g, training, &prim);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(pd.src_desc(), engine(), x.data_ptr())},
                                       {DNNL_ARG_DST, memory(pd.dst_desc(), engine(), out.data_ptr())}};
  if (training) {
    const memory::desc wd = pd.workspace_desc();
    *workspace = empty({int64_t(std::max<size_t>(wd.get_size(), 1))}, TensorOptions().dtype(kByte));
    args.emplace(DNNL_ARG_WORKSPACE, memory(wd, engine(), workspace->data_ptr()));
  }
  execute(prim, pd, args);
  return out;
}

Tensor dnnl_pool_backward(const Tensor& grad_output, IntArrayRef input_sizes, MemoryFormat format, const PoolShape& s,
                          PoolKind kind, const Tensor& workspace) {
  const bool last = format != MemoryFormat::Contiguous;
  const Tensor gy = grad_output.contiguous(format_of(input_sizes.size(), last));
  const Geometry g = geometry(input_sizes, s, kind, gy.scalar_type(), last);
  Tensor gx = empty(input_sizes, gy.options().memory_format(format_of(input_sizes.size(), last)));
  dnnl_common::OmpThreads threads(g.threads, in_parallel_region());
  std::shared_ptr<PoolEntry> e = dnnl_common::cached_entry<PoolEntry>(g.key());
  const auto& fwd = forward_pd(*e, g, true, nullptr);
  dnnl::pooling_v2_backward prim;
  {
    std::lock_guard<std::mutex> lock(e->mu);
    if (!e->bwd_pd) {
      dnnl::pooling_v2_backward::desc d(g.alg(), g.md(g.in), g.md(g.out), to_dims(s.stride), to_dims(s.kernel),
                                        g.dilation(), to_dims(s.pad_l), to_dims(s.pad_r));
      e->bwd_pd = std::make_unique<dnnl::pooling_v2_backward::primitive_desc>(d, dnnl_common::scratchpad_attr(), engine(), fwd);
      e->bwd = dnnl::pooling_v2_backward(*e->bwd_pd);
    }
    prim = e->bwd;
  }
  const auto& pd = *e->bwd_pd;
  std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, memory(pd.diff_dst_desc(), engine(), gy.data_ptr())},
                                       {DNNL_ARG_DIFF_SRC, memory(pd.diff_src_desc(), engine(), gx.data_ptr())}};
  if (kind == PoolKind::Max) {
    EMBER_INTERNAL_ASSERT(workspace.defined(), "max pooling backward without a workspace");
    args.emplace(DNNL_ARG_WORKSPACE, memory(pd.workspace_desc(), engine(), workspace.data_ptr()));
  }
  execute(prim, pd, args);
  return gx;
}

std::pair<Tensor, Tensor> max_pool_indices(const Tensor& input, const std::vector<WindowDim>& wd, const char* op) {
  const size_t d = wd.size();
  EMBER_INTERNAL_ASSERT(input.dim() == int64_t(d) + 2 && d >= 1 && d <= 3, "max_pool_indices: bad rank");
  std::vector<int64_t> out_sizes{input.size(0), input.size(1)};
  for (const WindowDim& w : wd) out_sizes.push_back(int64_t(w.begin.size()));
  const MemoryFormat fmt = pool_format(input);
  Tensor out = empty(out_sizes, input.options().memory_format(fmt));
  Tensor idx = empty(out_sizes, input.options().dtype(kLong).memory_format(fmt));
  if (out.numel() == 0 || input.is_meta()) return {out, idx};
  if (!input.is_cpu()) {
    const auto fn = reinterpret_cast<MaxPoolIndicesFn>(lookup_kernel("max_pool_indices", input.device().type()));
    if (!fn) check_cpu_only(input, op);
    EMBER_CHECK_TYPE(isFloatingType(input.scalar_type()), "\"", op, "\" not implemented for '", input.scalar_type(), "'");
    fn(input, wd, out, idx);
    return {out, idx};
  }
  // Three spatial dims always: missing leading ones have one window of one position.
  WindowDim unit;
  unit.begin = {0}, unit.end = {1};
  const WindowDim* w[3] = {&unit, &unit, &unit};
  int64_t xs[3] = {0, 0, 0}, os[3] = {0, 0, 0};
  for (size_t i = 0; i < d; ++i) {
    w[3 - d + i] = &wd[i];
    xs[3 - d + i] = input.stride(2 + int64_t(i));
    os[3 - d + i] = out.stride(2 + int64_t(i));
  }
  const int64_t C = input.size(1), in1 = w[1]->in, in2 = w[2]->in;
  const int64_t O0 = int64_t(w[0]->begin.size()), O1 = int64_t(w[1]->begin.size()), O2 = int64_t(w[2]->begin.size());
  visit_dtype<kFloatingTypes>(input.scalar_type(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = compute_t<T>;
    const T* x = input.data_ptr<T>();
    T* y = out.data_ptr<T>();
    int64_t* yi = idx.data_ptr<int64_t>();
    parallel_for(0, input.size(0) * C, 16, [&](int64_t b, int64_t e) {
      for (int64_t plane = b; plane < e; ++plane) {
        const int64_t n = plane / C, c = plane % C;
        const T* xp = x + n * input.stride(0) + c * input.stride(1);
        const int64_t ob = n * out.stride(0) + c * out.stride(1);
        for (int64_t o0 = 0; o0 < O0; ++o0)
          for (int64_t o1 = 0; o1 < O1; ++o1)
            for (int64_t o2 = 0; o2 < O2; ++o2) {
              A best = -std::numeric_limits<A>::infinity();
              int64_t at = (w[0]->begin[o0] * in1 + w[1]->begin[o1]) * in2 + w[2]->begin[o2];
              for (int64_t p0 = w[0]->begin[o0]; p0 < w[0]->end[o0]; p0 += w[0]->step)
                for (int64_t p1 = w[1]->begin[o1]; p1 < w[1]->end[o1]; p1 += w[1]->step)
                  for (int64_t p2 = w[2]->begin[o2]; p2 < w[2]->end[o2]; p2 += w[2]->step) {
                    const A v = A(xp[p0 * xs[0] + p1 * xs[1] + p2 * xs[2]]);
                    if (v > best || std::isnan(v)) best = v, at = (p0 * in1 + p1) * in2 + p2;
                  }
              const int64_t o = ob + o0 * os[0] + o1 * os[1] + o2 * os[2];
              y[o] = T(best);
              yi[o] = at;
            }
      }
    });
  });
  return {out, idx};
}

}  // namespace ember::pool_detail
