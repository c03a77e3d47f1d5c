#include "ember/nn/functional/embedding.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/core/tracing_call.h"
#include "ember/ops/functions.h"

namespace ember::nn {

namespace functional {
namespace {
// Traced (Note [Tracing hooks]); with max_norm the node renormalizes rows of the weight in place,
// so embedding nodes are kept and never merged (the op's `random` flag).
const tracing::TracedOpDef embedding_traced{{"embedding", tracing::Fusion::Opaque, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  EMBER_CHECK(in.size() == 2, "embedding: expected 2 inputs (indices, weight), got ", in.size());
  const std::optional<double> max_norm = tracing::has_attr(a, "max_norm")
      ? std::optional<double>(tracing::double_attr(a, "max_norm", "embedding")) : std::nullopt;
  return {embedding(in[0], in[1], tracing::optional_int_attr(a, "padding_idx", "embedding"), max_norm,
                    tracing::double_attr(a, "norm_type", "embedding"), tracing::bool_attr(a, "scale_grad_by_freq", "embedding"),
                    false)};
}, /*random=*/true}};
}  // namespace

Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
                 std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq, bool sparse) {
  if (tracing::active())
    return tracing::traced_call(embedding_traced, {input, weight},
                                {{"padding_idx", tracing::optional_int(padding_idx)},
                                 {"max_norm", max_norm ? tracing::Attr(Scalar(*max_norm)) : tracing::Attr()},
                                 {"norm_type", Scalar(norm_type)}, {"scale_grad_by_freq", Scalar(scale_grad_by_freq)}},
                                [&] { return embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse); });
  check_defined(input, "embedding", "input");
  check_defined(weight, "embedding", "weight");
  EMBER_CHECK_TYPE(input.scalar_type() == kLong || input.scalar_type() == kInt,
                   "embedding: Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                   "Long, Int; but got ", input.scalar_type());
  EMBER_CHECK(weight.dim() == 2, "embedding: weight must be 2-D, got ", weight.sizes());
  if (padding_idx) {
    const int64_t n = weight.size(0);
    EMBER_CHECK(*padding_idx < n && *padding_idx >= -n, "embedding: Padding_idx must be within num_embeddings");
    if (*padding_idx < 0) *padding_idx += n;
  }
  Tensor idx = input.reshape({-1}).to(kLong);
  if (idx.numel() > 0) {  // checked here so that the error names embedding, not index_select
    const auto [lo, hi] = aminmax(idx);
    const int64_t min = lo.item<int64_t>(), max = hi.item<int64_t>();
    EMBER_CHECK_INDEX(min >= 0 && max < weight.size(0), "embedding: index out of range in self (index ",
                      min < 0 ? min : max, " with num_embeddings ", weight.size(0), ")");
  }
  if (max_norm) {
    // The referenced rows are renormalized in place to max_norm, as PyTorch's embedding_renorm_.
    NoGradGuard g;
    Tensor w = weight;
    Tensor ids = std::get<0>(_unique(idx));
    Tensor rows = w.index_select(0, ids);
    Tensor norms = linalg::vector_norm(rows, norm_type, IntArrayRef{1}, true);
    Tensor scale = where(norms.gt(*max_norm), norms.add(1e-7).reciprocal().mul(*max_norm), ones_like(norms));
    w.index_copy_(0, ids, rows.mul(scale));
  }
  Tensor out = weight.index_select(0, idx);
  if (scale_grad_by_freq && out.requires_grad()) {
    // Each row's gradient is divided by how often its index occurs in the input.
    Tensor scale;
    {
      NoGradGuard g;
      Tensor count = zeros({weight.size(0)}, weight.options().requires_grad(false))
                         .index_add(0, idx, ones({idx.numel()}, weight.options().requires_grad(false)));
      scale = count.index_select(0, idx).reciprocal().unsqueeze(1);
    }
    out.register_hook([scale](const Tensor& grad) { return grad.mul(scale); });
  }
  if (padding_idx) {
    // The padding row receives no gradient (PyTorch's rule).
    Tensor pad = idx.eq(*padding_idx).unsqueeze(1);
    out = where(pad, out.detach(), out);
  }
  DimVector shape(input.sizes());
  shape.push_back(weight.size(1));
  return out.view(shape);
}
Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  return functional::embedding(input, weight, options.padding_idx(), options.max_norm(), options.norm_type(),
                               options.scale_grad_by_freq(), options.sparse());
}

Tensor one_hot(const Tensor& tensor, int64_t num_classes) {
  EMBER_CHECK(tensor.scalar_type() == kLong, "one_hot is only applicable to index tensor.");
  DimVector shape(tensor.sizes());
  if (tensor.numel() == 0) {
    EMBER_CHECK(num_classes > 0, "Can not infer total number of classes from empty tensor.");
    shape.push_back(num_classes);
    return empty(shape, tensor.options());
  }
  EMBER_CHECK(tensor.min().item<int64_t>() >= 0, "Class values must be non-negative.");
  const int64_t hi = tensor.max().item<int64_t>();
  if (num_classes == -1) num_classes = hi + 1;
  EMBER_CHECK(num_classes > hi, "Class values must be smaller than num_classes.");
  shape.push_back(num_classes);
  return zeros(shape, tensor.options()).scatter_(-1, tensor.unsqueeze(-1), 1);
}
}  // namespace functional

// ---- EmbeddingBag ------------------------------------------------------------------------

namespace detail {
// padding_idx in [0, n), from PyTorch's [-n, n).
std::optional<int64_t> wrap_padding_idx(std::optional<int64_t> p, int64_t n) {
  if (!p) return p;
  EMBER_CHECK(*p >= -n && *p < n, "padding_idx must be within the number of embeddings, -", n, " through ", n - 1,
              ", but got ", *p);
  return *p < 0 ? *p + n : *p;
}
}  // namespace detail
using detail::wrap_padding_idx;

namespace {
std::vector<int64_t> index_vector(const Tensor& t) {
  const Tensor c = t.to(kCPU, kLong).contiguous();  // read on the host (a device's tensor is copied)
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}
}  // namespace

namespace functional {
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& o) {
  EMBER_CHECK_TYPE(input.scalar_type() == kLong || input.scalar_type() == kInt,
                   "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; ",
                   "but got ", input.scalar_type(), " instead (while checking arguments for embedding_bag)");
  const Tensor& psw = o.per_sample_weights();
  EMBER_CHECK(!psw.defined() || psw.sizes() == input.sizes(), "embedding_bag: If per_sample_weights (", psw.sizes(),
              ") is not None, then it must have the same shape as the input (", input.sizes(), ")");
  EMBER_CHECK(weight.dim() == 2, "weight has to be a 2D Tensor, but got Tensor of dimension ", weight.dim());
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, "input has to be 1D or 2D Tensor, but got Tensor of dimension ",
              input.dim());
  std::vector<int64_t> offsets;
  if (input.dim() == 2) {
    EMBER_CHECK(!o.offsets().defined(), "if input is 2D, then offsets has to be None, as input is treated is a ",
                "mini-batch of fixed length sequences. However, found offsets of type Tensor");
    for (int64_t b = 0; b < input.size(0); ++b) offsets.push_back(b * input.size(1));
    if (o.include_last_offset()) offsets.push_back(input.numel());
  } else {
    EMBER_CHECK(o.offsets().defined(), "offsets has to be a 1D Tensor but got None");
    EMBER_CHECK(o.offsets().dim() == 1, "offsets has to be a 1D Tensor");
    offsets = index_vector(o.offsets());
  }
  const EmbeddingBagMode::Kind mode = o.mode().kind;
  EMBER_CHECK(mode != EmbeddingBagMode::Max || !o.scale_grad_by_freq(),
              "max mode does not support scaling the gradient by the frequency");
  EMBER_CHECK(mode != EmbeddingBagMode::Max || !o.sparse(), "max mode does not support sparse weights");
  EMBER_CHECK(!psw.defined() || mode == EmbeddingBagMode::Sum, "embedding_bag: per_sample_weights was not None. ",
              "per_sample_weights is only supported for mode='sum' (got mode='", o.mode().name(),
              "'). Please open a feature request on GitHub.");
  const int64_t n = weight.size(0);
  const std::optional<int64_t> padding_idx = wrap_padding_idx(o.padding_idx(), n);
  const std::vector<int64_t> idx = index_vector(input.reshape({-1}));
  const int64_t M = int64_t(idx.size());
  EMBER_CHECK(offsets.empty() || offsets[0] == 0, "offsets[0] has to be 0, i.e., the first sequence in the ",
              "mini-batch has to start from position 0. However, got ", offsets.empty() ? 0 : offsets[0]);
  EMBER_CHECK(offsets.empty() || offsets.back() <= M, "offsets[-1] can not be greater than input's length ", M,
              " but got offsets[-1] of ", offsets.empty() ? 0 : offsets.back());
  for (size_t b = 1; b < offsets.size(); ++b)
    EMBER_CHECK(offsets[b] >= offsets[b - 1], "embedding_bag: offsets must be non-decreasing, got ", offsets[b - 1],
                " before ", offsets[b]);
  const int64_t B = o.include_last_offset() ? std::max<int64_t>(0, int64_t(offsets.size()) - 1) : int64_t(offsets.size());
  // The (position, bag) pairs that contribute: in a bag, not padding.
  std::vector<int64_t> pos, bag, row, count(size_t(B), 0);
  for (int64_t b = 0; b < B; ++b) {
    const int64_t end = size_t(b + 1) < offsets.size() ? offsets[size_t(b + 1)] : M;
    for (int64_t j = offsets[size_t(b)]; j < end; ++j) {
      EMBER_CHECK_INDEX(idx[size_t(j)] >= 0 && idx[size_t(j)] < n, "Index ", j, " is out of bounds: ", idx[size_t(j)],
                        ", range 0 to ", n);
      if (padding_idx && idx[size_t(j)] == *padding_idx) continue;
      pos.push_back(j), bag.push_back(b), row.push_back(idx[size_t(j)]), ++count[size_t(b)];
    }
  }
  if (o.max_norm()) {
    // Referenced rows are renormalized in place to max_norm, as PyTorch does.
    NoGradGuard g;
    Tensor w = weight;
    Tensor ids = std::get<0>(_unique(from_blob(row.data(), {int64_t(row.size())}, kLong).clone()));
    Tensor rows = w.index_select(0, ids);
    Tensor norms = linalg::vector_norm(rows, o.norm_type(), IntArrayRef{1}, true);
    Tensor scale = where(norms.gt(*o.max_norm()), norms.add(1e-7).reciprocal().mul(*o.max_norm()), ones_like(norms));
    w.index_copy_(0, ids, rows.mul(scale));
  }
  const auto as_tensor = [](std::vector<int64_t>& v) { return from_blob(v.data(), {int64_t(v.size())}, kLong).clone(); };
  const Tensor bag_t = as_tensor(bag);
  Tensor rows = weight.index_select(0, as_tensor(row));
  if (o.scale_grad_by_freq() && rows.requires_grad()) {
    // Each row's gradient is divided by how often its index occurs in the input.
    std::vector<double> freq(size_t(n), 0.0), scale;
    for (int64_t v : idx) freq[size_t(v)] += 1;
    for (int64_t r : row) scale.push_back(1.0 / freq[size_t(r)]);
    const Tensor s = from_blob(scale.data(), {int64_t(scale.size()), 1}, kDouble).to(weight.scalar_type(), false, true);
    rows.register_hook([s](const Tensor& grad) { return grad.mul(s); });
  }
  if (psw.defined()) rows = rows.mul(psw.reshape({-1}).index_select(0, as_tensor(pos)).unsqueeze(1));
  const Tensor out = zeros({B, weight.size(1)}, weight.options().requires_grad(false));
  if (mode == EmbeddingBagMode::Max)
    return out.scatter_reduce(0, bag_t.unsqueeze(1).expand({bag_t.numel(), weight.size(1)}), rows, "amax", false);
  Tensor sum = out.index_add(0, bag_t, rows);
  if (mode == EmbeddingBagMode::Sum) return sum;
  std::vector<double> denom;
  for (int64_t c : count) denom.push_back(double(std::max<int64_t>(c, 1)));
  return sum.div(from_blob(denom.data(), {B, 1}, kDouble).to(weight.scalar_type(), false, true));
}
}  // namespace functional

}  // namespace ember::nn
