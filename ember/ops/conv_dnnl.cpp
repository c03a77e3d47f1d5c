#include "ember/ops/conv_dnnl.h"

#include <climits>
#include <list>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>

#include "ember/core/parallel.h"
#include "ember/ops/dnnl_common.h"
#include "ember/ops/functions.h"

namespace ember::conv_detail {

namespace {

using dnnl::memory;
using dims = memory::dims;
using dnnl_common::dnnl_type;
using dnnl_common::engine;
using dnnl_common::execute;
using dnnl_common::plain_tag;

bool channels_last(const Tensor& t) {
  const int64_t d = t.dim();
  return (d == 4 && t.is_contiguous(MemoryFormat::ChannelsLast) && !t.is_contiguous()) ||
         (d == 5 && t.is_contiguous(MemoryFormat::ChannelsLast3d) && !t.is_contiguous()) ||
         (d == 3 && t.stride(1) == 1 && t.size(1) > 1 && t.stride(2) == t.size(1) && t.stride(0) == t.size(1) * t.size(2));
}

// A tensor's own layout as a oneDNN descriptor (any strides).
memory::desc md_of(const Tensor& t) {
  return memory::desc(dims(t.sizes().begin(), t.sizes().end()), dnnl_type(t.scalar_type()),
                      dims(t.strides().begin(), t.strides().end()));
}

// Weights [O, I/G, k...] viewed as oneDNN's grouped [G, O/G, I/G, k...] when groups > 1.
memory::desc weight_md_of(const Tensor& w, int64_t groups) {
  if (groups == 1) return md_of(w);
  dims d{groups, w.size(0) / groups}, st{w.stride(0) * (w.size(0) / groups), w.stride(0)};
  for (int64_t i = 1; i < w.dim(); ++i) d.push_back(w.size(i)), st.push_back(w.stride(i));
  return memory::desc(d, dnnl_type(w.scalar_type()), st);
}

dims weight_dims(IntArrayRef w, int64_t groups) {
  dims d;
  if (groups > 1) d = {groups, w[0] / groups};
  else d = {w[0]};
  d.insert(d.end(), w.begin() + 1, w.end());
  return d;
}

}  // namespace

std::vector<int64_t> dnnl_output_sizes(IntArrayRef in, IntArrayRef w, const ConvShape& s) {
  std::vector<int64_t> out{in[0], w[0]};
  for (size_t i = 0; i + 2 < in.size(); ++i)
    out.push_back(dnnl_common::window_output_size(in[i + 2], w[i + 2], s.stride[i], s.pad_l[i], s.pad_r[i],
                                                  s.dilation[i]));
  return out;
}

namespace {

dims dnnl_dilation(const ConvShape& s) {
  dims d;
  for (int64_t v : s.dilation) d.push_back(v - 1);  // oneDNN counts the gaps
  return d;
}

// Primitive descriptors of one convolution geometry, created on first use.
struct ConvEntry {
  std::mutex mu;
  std::unique_ptr<dnnl::convolution_forward::primitive_desc> fwd_pd;
  std::unique_ptr<dnnl::convolution_forward> fwd;
  std::unique_ptr<dnnl::convolution_backward_data::primitive_desc> bwd_data_pd;
  std::unique_ptr<dnnl::convolution_backward_data> bwd_data;
  std::unique_ptr<dnnl::convolution_backward_weights::primitive_desc> bwd_w_pd;
  std::unique_ptr<dnnl::convolution_backward_weights> bwd_w;
};

struct Geometry {
  std::vector<int64_t> in, w, out;
  ConvShape s;
  ScalarType dtype;
  bool last;  // channels-last activations
  bool bias;
  int threads;

  std::string key() const {
    std::ostringstream k;
    auto put = [&](const std::vector<int64_t>& v) {
      for (int64_t x : v) k << x << ',';
      k << ';';
    };
    put(in), put(w), put(s.stride), put(s.pad_l), put(s.pad_r), put(s.dilation);
    k << s.groups << ';' << int(dtype) << ';' << last << bias << ';' << threads;
    return k.str();
  }
  // Activations: channels-last in the user's layout; otherwise oneDNN picks (blocked).
  memory::desc act_md(const std::vector<int64_t>& sizes) const {
    return last ? memory::desc(dims(sizes.begin(), sizes.end()), dnnl_type(dtype), plain_tag(int64_t(sizes.size()), true))
                : memory::desc(dims(sizes.begin(), sizes.end()), dnnl_type(dtype), memory::format_tag::any);
  }
  memory::desc any_weights() const {
    return memory::desc(weight_dims(w, s.groups), dnnl_type(dtype), memory::format_tag::any);
  }
  memory::desc bias_md() const {
    return bias ? memory::desc(dims{w[0]}, dnnl_type(dtype), memory::format_tag::x) : memory::desc();
  }
  dnnl::convolution_forward::desc fwd_desc() const {
    return dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                           act_md(in), any_weights(), bias_md(), act_md(out), dims(s.stride.begin(), s.stride.end()),
                                           dnnl_dilation(s), dims(s.pad_l.begin(), s.pad_l.end()),
                                           dims(s.pad_r.begin(), s.pad_r.end()));
  }
};

void ensure_forward(ConvEntry& e, const Geometry& g) {
  if (e.fwd) return;
  e.fwd_pd = std::make_unique<dnnl::convolution_forward::primitive_desc>(g.fwd_desc(), dnnl_common::scratchpad_attr(), engine());
  e.fwd = std::make_unique<dnnl::convolution_forward>(*e.fwd_pd);
}

// `t` in the layout `want`: the tensor's own memory when it already matches, else a reorder
// into a fresh buffer (kept alive by `keep`).
memory as_layout(const Tensor& t, const memory::desc& user, const memory::desc& want, std::vector<Tensor>& keep) {
  memory src(user, engine(), t.data_ptr());
  if (user == want) return src;
  Tensor buf = empty({int64_t(want.get_size())}, TensorOptions().dtype(kByte));
  keep.push_back(buf);
  memory dst(want, engine(), buf.data_ptr());
  dnnl::reorder(src, dst).execute(dnnl_common::stream(), src, dst);
  return dst;
}

// Weights reordered into a primitive's layout, cached per (tensor, version, layout) so that
// inference reorders each weight once.
memory cached_weights(const Tensor& w, const memory::desc& user, const memory::desc& want, std::vector<Tensor>& keep) {
  if (user == want) return memory(user, engine(), w.data_ptr());
  struct Item {
    Tensor source;  // keeps the TensorImpl alive, so its address identifies it
    uint32_t version;
    memory::desc layout;
    Tensor buffer;
  };
  static std::mutex mu;
  static auto* items = new std::list<Item>();
  {
    std::lock_guard<std::mutex> lock(mu);
    for (auto it = items->begin(); it != items->end(); ++it)
      if (it->source.is_same(w) && it->version == w.unsafeGetTensorImpl()->version() && it->layout == want) {
        items->splice(items->begin(), *items, it);
        keep.push_back(it->buffer);
        return memory(want, engine(), it->buffer.data_ptr());
      }
  }
  std::vector<Tensor> tmp;
  memory m = as_layout(w, user, want, tmp);
  std::lock_guard<std::mutex> lock(mu);
  // Drop stale versions of this weight, keep the 64 most recent entries.
  items->remove_if([&](const Item& i) { return i.source.is_same(w); });
  items->push_front({w, w.unsafeGetTensorImpl()->version(), want, tmp.front()});
  if (items->size() > 64) items->pop_back();
  keep.push_back(tmp.front());
  return m;
}

int threads_for(const Geometry& g) {
  if (in_parallel_region()) return 1;
  double macs = double(g.out[0]) * g.out[1] * (g.w[1]);
  for (size_t i = 2; i < g.out.size(); ++i) macs *= double(g.out[i]) * g.w[i];
  return macs < 64.0 * 64 * 64 ? 1 : get_num_threads();
}

Geometry geometry(IntArrayRef in, IntArrayRef w, const ConvShape& s, ScalarType dtype, bool last, bool bias) {
  Geometry g{{in.begin(), in.end()}, {w.begin(), w.end()}, dnnl_output_sizes(in, w, s), s, dtype, last, bias, 1};
  g.threads = threads_for(g);
  return g;
}

// Writes `m` (a primitive's result) into the user tensor `t` when their layouts differ.
void store(const memory& m, const Tensor& t) {
  const memory::desc user = md_of(t);
  if (m.get_desc() == user) return;
  memory dst(user, engine(), t.data_ptr());
  dnnl::reorder(m, dst).execute(dnnl_common::stream(), const_cast<memory&>(m), dst);
}

// The result buffer of a primitive whose output descriptor is `want`, for the user tensor t.
memory result_memory(const Tensor& t, const memory::desc& want, std::vector<Tensor>& keep) {
  if (md_of(t) == want) return memory(want, engine(), t.data_ptr());
  Tensor buf = empty({int64_t(want.get_size())}, TensorOptions().dtype(kByte));
  keep.push_back(buf);
  return memory(want, engine(), buf.data_ptr());
}

}  // namespace

bool dnnl_supported(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  const ScalarType t = input.scalar_type();
  if (!(t == kFloat || t == kBFloat16) || weight.scalar_type() != t || (bias.defined() && bias.scalar_type() != t))
    return false;
  if (t == kBFloat16 && !dnnl_common::bf16_supported()) return false;
  if (!input.device().is_cpu() || !weight.device().is_cpu() || input.dim() < 3 || input.dim() > 5) return false;
  if (input.numel() == 0 || weight.numel() == 0 || input.numel() > INT_MAX || weight.numel() > INT_MAX) return false;
  return weight.dim() == input.dim();
}

MemoryFormat conv_output_format(const Tensor& input, const Tensor& weight) {
  if (input.dim() == 4 && (channels_last(input) || channels_last(weight))) return MemoryFormat::ChannelsLast;
  if (input.dim() == 5 && (channels_last(input) || channels_last(weight))) return MemoryFormat::ChannelsLast3d;
  return MemoryFormat::Contiguous;
}

Tensor dnnl_conv_forward(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvShape& s) {
  const MemoryFormat fmt = conv_output_format(input, weight);
  const bool last = fmt != MemoryFormat::Contiguous;
  const Tensor x = input.contiguous(fmt);
  const Geometry g = geometry(x.sizes(), weight.sizes(), s, x.scalar_type(), last, bias.defined());
  Tensor out = empty(g.out, x.options().memory_format(fmt));
  dnnl_common::OmpThreads threads(g.threads, in_parallel_region());
  std::shared_ptr<ConvEntry> e = dnnl_common::cached_entry<ConvEntry>(g.key());
  std::lock_guard<std::mutex> lock(e->mu);
  ensure_forward(*e, g);
  std::vector<Tensor> keep;
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, as_layout(x, md_of(x), e->fwd_pd->src_desc(), keep)},
      {DNNL_ARG_WEIGHTS, cached_weights(weight, weight_md_of(weight, s.groups), e->fwd_pd->weights_desc(), keep)}};
  Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  if (b.defined()) args.emplace(DNNL_ARG_BIAS, memory(e->fwd_pd->bias_desc(), engine(), b.data_ptr()));
  memory dst = result_memory(out, e->fwd_pd->dst_desc(), keep);
  args.emplace(DNNL_ARG_DST, dst);
  execute(*e->fwd, *e->fwd_pd, args);
  store(dst, out);
  dnnl_common::stream().wait();
  return out;
}

Tensor dnnl_conv_backward_data(const Tensor& grad_output, const Tensor& weight, IntArrayRef input_sizes,
                               MemoryFormat input_format, const ConvShape& s) {
  const bool last = input_format != MemoryFormat::Contiguous;
  const Tensor gy = grad_output.contiguous(last ? (input_sizes.size() == 5 ? MemoryFormat::ChannelsLast3d
                                                                            : MemoryFormat::ChannelsLast)
                                                : MemoryFormat::Contiguous);
  const Geometry g = geometry(input_sizes, weight.sizes(), s, gy.scalar_type(), last, false);
  Tensor gx = empty(input_sizes, gy.options().memory_format(input_format));
  dnnl_common::OmpThreads threads(g.threads, in_parallel_region());
  std::shared_ptr<ConvEntry> e = dnnl_common::cached_entry<ConvEntry>(g.key());
  std::lock_guard<std::mutex> lock(e->mu);
  ensure_forward(*e, g);
  if (!e->bwd_data) {
    dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, g.act_md(g.in), g.any_weights(),
                                            g.act_md(g.out), dims(s.stride.begin(), s.stride.end()),
                                            dnnl_dilation(s), dims(s.pad_l.begin(), s.pad_l.end()),
                                            dims(s.pad_r.begin(), s.pad_r.end()));
    e->bwd_data_pd = std::make_unique<dnnl::convolution_backward_data::primitive_desc>(d, dnnl_common::scratchpad_attr(), engine(),
                                                                                       *e->fwd_pd);
    e->bwd_data = std::make_unique<dnnl::convolution_backward_data>(*e->bwd_data_pd);
  }
  std::vector<Tensor> keep;
  memory diff_src = result_memory(gx, e->bwd_data_pd->diff_src_desc(), keep);
  execute(*e->bwd_data, *e->bwd_data_pd,
          {{DNNL_ARG_DIFF_DST, as_layout(gy, md_of(gy), e->bwd_data_pd->diff_dst_desc(), keep)},
           {DNNL_ARG_WEIGHTS,
            cached_weights(weight, weight_md_of(weight, s.groups), e->bwd_data_pd->weights_desc(), keep)},
           {DNNL_ARG_DIFF_SRC, diff_src}});
  store(diff_src, gx);
  dnnl_common::stream().wait();
  return gx;
}

std::pair<Tensor, Tensor> dnnl_conv_backward_weights(const Tensor& grad_output, const Tensor& input,
                                                     IntArrayRef weight_sizes, bool bias, const ConvShape& s) {
  const MemoryFormat fmt = channels_last(input) ? (input.dim() == 5 ? MemoryFormat::ChannelsLast3d
                                                                    : MemoryFormat::ChannelsLast)
                                                : MemoryFormat::Contiguous;
  const bool last = fmt != MemoryFormat::Contiguous && input.dim() > 3;
  const Tensor x = input.contiguous(last ? fmt : MemoryFormat::Contiguous);
  const Tensor gy = grad_output.contiguous(last ? fmt : MemoryFormat::Contiguous);
  const Geometry g = geometry(x.sizes(), weight_sizes, s, x.scalar_type(), last, bias);
  Tensor gw = empty(weight_sizes, x.options());
  Tensor gb = bias ? empty({weight_sizes[0]}, x.options()) : Tensor();
  dnnl_common::OmpThreads threads(g.threads, in_parallel_region());
  std::shared_ptr<ConvEntry> e = dnnl_common::cached_entry<ConvEntry>(g.key());
  std::lock_guard<std::mutex> lock(e->mu);
  ensure_forward(*e, g);
  if (!e->bwd_w) {
    dnnl::convolution_backward_weights::desc d(dnnl::algorithm::convolution_direct, g.act_md(g.in), g.any_weights(),
                                               g.bias_md(), g.act_md(g.out), dims(s.stride.begin(), s.stride.end()),
                                               dnnl_dilation(s), dims(s.pad_l.begin(), s.pad_l.end()),
                                               dims(s.pad_r.begin(), s.pad_r.end()));
    e->bwd_w_pd = std::make_unique<dnnl::convolution_backward_weights::primitive_desc>(d, dnnl_common::scratchpad_attr(), engine(),
                                                                                       *e->fwd_pd);
    e->bwd_w = std::make_unique<dnnl::convolution_backward_weights>(*e->bwd_w_pd);
  }
  std::vector<Tensor> keep;
  const memory::desc user_w = weight_md_of(gw, s.groups), want_w = e->bwd_w_pd->diff_weights_desc();
  memory diff_w(user_w, engine(), gw.data_ptr());
  if (user_w != want_w) {
    Tensor buf = empty({int64_t(want_w.get_size())}, TensorOptions().dtype(kByte));
    keep.push_back(buf);
    diff_w = memory(want_w, engine(), buf.data_ptr());
  }
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, as_layout(x, md_of(x), e->bwd_w_pd->src_desc(), keep)},
      {DNNL_ARG_DIFF_DST, as_layout(gy, md_of(gy), e->bwd_w_pd->diff_dst_desc(), keep)},
      {DNNL_ARG_DIFF_WEIGHTS, diff_w}};
  if (bias) args.emplace(DNNL_ARG_DIFF_BIAS, memory(e->bwd_w_pd->diff_bias_desc(), engine(), gb.data_ptr()));
  execute(*e->bwd_w, *e->bwd_w_pd, args);
  if (user_w != want_w) {
    memory dst(user_w, engine(), gw.data_ptr());
    dnnl::reorder(diff_w, dst).execute(dnnl_common::stream(), diff_w, dst);
  }
  dnnl_common::stream().wait();
  return {gw, gb};
}

}  // namespace ember::conv_detail
