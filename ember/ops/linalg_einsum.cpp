// einsum (the full equation language: implicit and explicit outputs, repeated subscripts
// for diagonals, ellipsis with broadcasting), tensordot and kron. Contractions become one
// strided-batched GEMM per operand pair (permute + reshape + bmm), as PyTorch does.
#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <vector>

#include "ember/autograd/record.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/ops/linalg_utils.h"

namespace ember {

using namespace linalg_detail;

namespace {

constexpr int kNumLabels = 52;  // 'A'-'Z' then 'a'-'z', the order of implicit outputs
constexpr int kEllipsis = -1;

int label_index(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : c - 'a' + 26; }
char label_char(int l) { return l < 26 ? char('A' + l) : char('a' + l - 26); }
bool is_label(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// One term of the equation: its labels in order, kEllipsis where "..." stood.
struct Term {
  std::vector<int> labels;
  bool has_ellipsis = false;
};

// Parses the subscripts of one term starting at `pos` (skipping spaces) up to ',' or "->"
// or the end. `who` names the term in errors ("operand 0" / "output").
Term parse_term(std::string_view eq, size_t& pos, const std::string& who) {
  Term t;
  while (pos < eq.size()) {
    const char c = eq[pos];
    if (c == ',' || (c == '-' && pos + 1 < eq.size() && eq[pos + 1] == '>')) break;
    if (c == ' ') {
      ++pos;
      continue;
    }
    if (c == '.') {
      EMBER_CHECK(!t.has_ellipsis, "einsum(): found '.' for ", who, " for which an ellipsis was already found");
      EMBER_CHECK(pos + 2 < eq.size() && eq[pos + 1] == '.' && eq[pos + 2] == '.', "einsum(): found '.' for ", who,
                  " that is not part of any ellipsis");
      t.has_ellipsis = true;
      t.labels.push_back(kEllipsis);
      pos += 3;
      continue;
    }
    EMBER_CHECK(is_label(c), "einsum(): invalid subscript given at index ", pos,
                " in the equation string, subscripts must be in [a-zA-Z]");
    t.labels.push_back(label_index(c));
    ++pos;
  }
  return t;
}

// Sums the given dims (kept as size 1) of t; a no-op when dims is empty.
Tensor sum_keep(const Tensor& t, const std::vector<int64_t>& dims) {
  return dims.empty() ? t : sum_dims_keepdim(t, dims);
}

// Contracts two operands laid out on the same global dims: dims in `sum` are summed out
// (left at size 1), the others broadcast. One bmm of (batch, left-only, contracted) by
// (batch, contracted, right-only).
Tensor sumproduct_pair(Tensor left, Tensor right, const std::vector<bool>& sum) {
  const int64_t nd = left.dim();
  // A dim is "present" in an operand unless it has size 1 there (broadcast); sizes agree
  // where both have it (checked by einsum), zero sizes included.
  std::vector<int64_t> lsum, rsum;
  for (int64_t d = 0; d < nd; ++d) {
    if (!sum[d]) continue;
    const bool l = left.size(d) != 1, r = right.size(d) != 1;
    if (l && !r) lsum.push_back(d);
    if (r && !l) rsum.push_back(d);
  }
  left = sum_keep(left, lsum);
  right = sum_keep(right, rsum);
  std::vector<int64_t> batch, lo, ro, con, rest;
  int64_t bs = 1, los = 1, ros = 1, ks = 1;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t sl = left.size(d), sr = right.size(d);
    if (sl != 1 && sr != 1) {
      if (sum[d]) con.push_back(d), ks *= sl;
      else batch.push_back(d), bs *= sl;
    } else if (sl != 1) {
      lo.push_back(d), los *= sl;
    } else if (sr != 1) {
      ro.push_back(d), ros *= sr;
    } else {
      rest.push_back(d);
    }
  }
  // Nothing to contract: an elementwise product with broadcasting (bool works too).
  if (con.empty()) return mul(left, right);
  // Autocast: the contraction is a bmm, which runs in lower precision (as PyTorch's einsum).
  EMBER_AUTOCAST(bmm, sumproduct_pair(_ac[0], _ac[1], sum), &left, &right);
  // Dims an operand lacks (size 1 there) ride along in its permutation at no cost.
  auto cat = [](std::initializer_list<const std::vector<int64_t>*> parts) {
    std::vector<int64_t> r;
    for (auto* p : parts) r.insert(r.end(), p->begin(), p->end());
    return r;
  };
  Tensor a = left.permute(cat({&batch, &lo, &con, &ro, &rest})).reshape({bs, los, ks});
  Tensor b = right.permute(cat({&batch, &con, &ro, &lo, &rest})).reshape({bs, ks, ros});
  Tensor c;
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(a, b))) {
    c = bmm(a, b);  // differentiable through bmm's derivative
  } else {
    c = empty({bs, los, ros}, left.options());
    gemm_into(c, a, b, 1, 0, "einsum");
  }
  // Back to the global layout: (batch, lo, ro, then the size-1 dims) and permute.
  std::vector<int64_t> order = cat({&batch, &lo, &ro}), shape;
  for (int64_t d : order) shape.push_back(left.size(d) != 1 ? left.size(d) : right.size(d));
  for (int64_t d = 0; d < nd; ++d)
    if (std::find(order.begin(), order.end(), d) == order.end()) order.push_back(d), shape.push_back(1);
  std::vector<int64_t> inv(nd);
  for (int64_t i = 0; i < nd; ++i) inv[order[i]] = i;
  return c.view(shape).permute(inv);
}

}  // namespace

// ---- einsum -----------------------------------------------------------------------------
namespace {

// The equation's input terms and output term (parsed, or empty when implicit).
struct Equation {
  std::vector<Term> terms;
  Term out;
  bool explicit_out = false;
};

Equation parse_equation(std::string_view equation) {
  Equation e;
  size_t pos = 0;
  for (;;) {
    e.terms.push_back(parse_term(equation, pos, "operand " + std::to_string(e.terms.size())));
    if (pos < equation.size() && equation[pos] == ',') {
      ++pos;
      continue;
    }
    break;
  }
  e.explicit_out = pos < equation.size();
  if (e.explicit_out) {
    pos += 2;  // "->"
    e.out = parse_term(equation, pos, "output");
    EMBER_CHECK(pos == equation.size(), "einsum(): invalid subscript given at index ", pos,
                " in the equation string, subscripts must be in [a-zA-Z]");
  }
  return e;
}

// Counts labels, checks subscript counts and sizes the ellipsis; builds the implicit output
// (the ellipsis, then the labels seen exactly once, in label order) or checks the explicit one.
struct LabelCounts {
  std::array<int, kNumLabels> count{};
  int64_t ell_num = 0;
};

LabelCounts count_labels(Equation& e, TensorList tensors) {
  LabelCounts c;
  for (int64_t i = 0; i < int64_t(tensors.size()); ++i) {
    const Term& t = e.terms[i];
    const int64_t nlabels = int64_t(t.labels.size()) - (t.has_ellipsis ? 1 : 0);
    const int64_t ndim = tensors[i].dim();
    if (t.has_ellipsis) {
      EMBER_CHECK(nlabels <= ndim, "einsum(): the number of subscripts in the equation (", nlabels,
                  ") is more than the number of dimensions (", ndim, ") for operand ", i);
      c.ell_num = std::max(c.ell_num, ndim - nlabels);
    } else {
      EMBER_CHECK(nlabels == ndim, "einsum(): the number of subscripts in the equation (", nlabels,
                  ") does not match the number of dimensions (", ndim, ") for operand ", i, " and no ellipsis was given");
    }
    for (int l : t.labels)
      if (l != kEllipsis) ++c.count[l];
  }
  Term& out = e.out;
  if (!e.explicit_out) {
    out.has_ellipsis =
        c.ell_num > 0 || std::any_of(e.terms.begin(), e.terms.end(), [](const Term& t) { return t.has_ellipsis; });
    if (out.has_ellipsis) out.labels.push_back(kEllipsis);
    for (int l = 0; l < kNumLabels; ++l)
      if (c.count[l] == 1) out.labels.push_back(l);
  } else {
    std::array<bool, kNumLabels> seen{};
    for (int l : out.labels) {
      if (l == kEllipsis) continue;
      EMBER_CHECK(c.count[l] > 0, "einsum(): output subscript ", label_char(l),
                  " does not appear in the equation for any input operand");
      EMBER_CHECK(!seen[l], "einsum(): output subscript ", label_char(l), " appears more than once in the output");
      seen[l] = true;
    }
  }
  return c;
}

// Global dims: the output (ellipsis block where the output has it), then the summed labels,
// then the ellipsis block when the output omits it (summed too).
struct GlobalDims {
  std::array<int64_t, kNumLabels> label_dim;
  int64_t ndims = 0, out_ndims = 0, ell_start = -1, ell_num = 0;
  std::vector<bool> summed;
};

GlobalDims global_dims(const Term& out, const LabelCounts& c) {
  GlobalDims g;
  g.label_dim.fill(-1);
  g.ell_num = c.ell_num;
  for (int l : out.labels) {
    if (l == kEllipsis) g.ell_start = g.ndims, g.ndims += g.ell_num;
    else g.label_dim[l] = g.ndims++;
  }
  g.out_ndims = g.ndims;
  for (int l = 0; l < kNumLabels; ++l)
    if (c.count[l] > 0 && g.label_dim[l] < 0) g.label_dim[l] = g.ndims++;
  if (g.ell_start < 0) g.ell_start = g.ndims, g.ndims += g.ell_num;
  g.summed.assign(g.ndims, false);
  for (int64_t d = g.out_ndims; d < g.ndims; ++d) g.summed[d] = true;
  return g;
}

// Operand i laid out on the global dims: diagonals for repeated labels, permuted, size-1
// dims for labels it lacks. Checks that its sizes broadcast with `global_size` and updates it.
Tensor lay_out_operand(Tensor op, const Term& t, int64_t i, const GlobalDims& g, std::vector<int64_t>& global_size) {
  const int64_t ell_here = op.dim() - (int64_t(t.labels.size()) - (t.has_ellipsis ? 1 : 0));
  std::vector<int64_t> target;  // global dim of each of op's dims
  std::vector<int> tlabel;      // its label (kEllipsis for ellipsis dims)
  for (int l : t.labels) {
    if (l == kEllipsis) {
      for (int64_t e = 0; e < ell_here; ++e)
        target.push_back(g.ell_start + g.ell_num - ell_here + e), tlabel.push_back(kEllipsis);
    } else {
      target.push_back(g.label_dim[l]), tlabel.push_back(l);
    }
  }
  // Repeated labels: take the diagonal, keeping the first occurrence's position.
  for (int64_t j = 0; j < int64_t(target.size()); ++j) {
    for (int64_t k = j + 1; k < int64_t(target.size());) {
      if (target[k] != target[j]) {
        ++k;
        continue;
      }
      EMBER_CHECK(op.size(j) == op.size(k), "einsum(): subscript ", label_char(tlabel[j]), " is repeated for operand ",
                  i, " but the sizes don't match, ", op.size(k), " != ", op.size(j));
      op = op.diagonal(0, j, k).movedim(-1, j);
      target.erase(target.begin() + k);
      tlabel.erase(tlabel.begin() + k);
    }
  }
  for (int64_t j = 0; j < int64_t(target.size()); ++j) {
    const int64_t d = target[j], s = op.size(j);
    if (s != 1) {
      if (global_size[d] != 1 && global_size[d] != s) {
        if (d >= g.ell_start && d < g.ell_start + g.ell_num) {
          EMBER_ERROR("einsum(): dimension ", d - g.ell_start, " covered by ellipsis in operand ", i, "has size ", s,
                      " which does not broadcast with previously seen ellipsis with size ", global_size[d],
                      " for the respective dimension");
        }
        int l = 0;
        for (int c = 0; c < kNumLabels; ++c)
          if (g.label_dim[c] == d) l = c;
        EMBER_ERROR("einsum(): subscript ", label_char(l), " has size ", s, " for operand ", i,
                    " which does not broadcast with previously seen size ", global_size[d]);
      }
      global_size[d] = s;
    }
  }
  // Permute to global order, then insert size-1 dims for the missing ones.
  std::vector<int64_t> perm(target.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](int64_t x, int64_t y) { return target[x] < target[y]; });
  op = op.permute(perm);
  std::vector<int64_t> shape(g.ndims, 1), strides(g.ndims, 0);
  for (size_t j = 0; j < perm.size(); ++j) {
    shape[target[perm[j]]] = op.size(j);
    strides[target[perm[j]]] = op.stride(j);
  }
  return op.as_strided(shape, strides);
}

}  // namespace

Tensor einsum(std::string_view equation, TensorList tensors) {
  Equation e = parse_equation(equation);
  EMBER_CHECK(e.terms.size() <= tensors.size(), "einsum(): fewer operands were provided than specified in the equation");
  EMBER_CHECK(e.terms.size() >= tensors.size(), "einsum(): more operands were provided than specified in the equation");
  for (size_t i = 1; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].scalar_type() == tensors[0].scalar_type(), "expected scalar type ",
                tensors[0].scalar_type(), " but found ", tensors[i].scalar_type());
    EMBER_CHECK(tensors[i].device() == tensors[0].device(), "einsum(): Expected all tensors to be on the same device, "
                "but found at least two devices, ", tensors[0].device(), " and ", tensors[i].device(), "!");
  }
  const LabelCounts counts = count_labels(e, tensors);
  const GlobalDims g = global_dims(e.out, counts);
  const int64_t nops = int64_t(tensors.size()), ndims = g.ndims, out_ndims = g.out_ndims;
  std::vector<Tensor> ops;
  std::vector<int64_t> global_size(ndims, 1);
  for (int64_t i = 0; i < nops; ++i) ops.push_back(lay_out_operand(tensors[i], e.terms[i], i, g, global_size));

  // Contract left to right; a summed dim is reduced as soon as no later operand has it.
  Tensor result = ops[0];
  for (int64_t i = 1; i < nops; ++i) {
    std::vector<bool> sum_now(ndims, false);
    for (int64_t d = 0; d < ndims; ++d) {
      if (!g.summed[d]) continue;
      bool later = false;
      for (int64_t j = i + 1; j < nops; ++j) later |= ops[j].size(d) != 1;
      sum_now[d] = !later;
    }
    result = sumproduct_pair(result, ops[i], sum_now);
  }
  std::vector<int64_t> rest;
  for (int64_t d = out_ndims; d < ndims; ++d)
    if (result.size(d) != 1) rest.push_back(d);
  // Integer and bool sums accumulate in int64, as PyTorch's sum does.
  if (!rest.empty() && isIntegralType(result.scalar_type(), true)) result = result.to(kLong);
  result = sum_keep(result, rest);
  // Drop the summed (now size-1) dims; broadcast output dims that stayed size 1.
  std::vector<int64_t> out_shape(global_size.begin(), global_size.begin() + out_ndims);
  Tensor r = result.dim() == out_ndims ? result : result.as_strided(
      std::vector<int64_t>(result.sizes().begin(), result.sizes().begin() + out_ndims),
      std::vector<int64_t>(result.strides().begin(), result.strides().begin() + out_ndims));
  // A single operand keeps its views (transposes, diagonals), as in PyTorch.
  return r.sizes() == IntArrayRef(out_shape) ? r : r.expand(out_shape).contiguous();
}

// ---- tensordot ----------------------------------------------------------------------------
Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  EMBER_CHECK(dims_a.size() == dims_b.size(), "both dimension lists should have same length");
  Tensor t1 = a, t2 = b;
  std::vector<bool> c1(a.dim(), false), c2(b.dim(), false);
  int64_t csize = 1;
  std::vector<int64_t> p1, p2;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    const int64_t d1 = maybe_wrap_dim(dims_a[i], a.dim(), "tensordot");
    const int64_t d2 = maybe_wrap_dim(dims_b[i], b.dim(), "tensordot");
    EMBER_CHECK(!c1[d1], "dim ", d1, " appears multiple times in the list of dims");
    EMBER_CHECK(!c2[d2], "dim ", d2, " appears multiple times in the list of dims");
    c1[d1] = c2[d2] = true;
    const int64_t s1 = t1.size(d1), s2 = t2.size(d2);
    // A size-1 dim on one side broadcasts: sum the other side over it.
    if (s2 == 1 && s1 != 1) t1 = sum_dims_keepdim(t1, {d1});
    else if (s1 == 1 && s2 != 1) t2 = sum_dims_keepdim(t2, {d2});
    else EMBER_CHECK(s1 == s2, "contracted dimensions need to match, but first has size ", s1, " in dim ", d1,
                     " and second has size ", s2, " in dim ", d2);
    p1.push_back(d1);
    p2.push_back(d2);
    csize *= t1.size(d1);
  }
  std::vector<int64_t> perm1, perm2, out_shape;
  int64_t size1 = 1, size2 = 1;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (!c1[d]) perm1.push_back(d), out_shape.push_back(a.size(d)), size1 *= a.size(d);
  perm1.insert(perm1.end(), p1.begin(), p1.end());
  perm2 = p2;
  for (int64_t d = 0; d < b.dim(); ++d)
    if (!c2[d]) perm2.push_back(d), out_shape.push_back(b.size(d)), size2 *= b.size(d);
  Tensor m1 = t1.permute(perm1).reshape({size1, csize});
  Tensor m2 = t2.permute(perm2).reshape({csize, size2});
  return mm(m1, m2).reshape(out_shape);
}

// ---- kron ---------------------------------------------------------------------------------
Tensor kron(const Tensor& self, const Tensor& other) {
  const int64_t nd = std::max(self.dim(), other.dim());
  const int64_t pad_a = nd - self.dim(), pad_b = nd - other.dim();
  std::vector<int64_t> a_shape(2 * nd, 1), b_shape(2 * nd, 1), out_shape(nd);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t sa = i >= pad_a ? self.size(i - pad_a) : 1;
    const int64_t sb = i >= pad_b ? other.size(i - pad_b) : 1;
    a_shape[2 * i] = sa;
    b_shape[2 * i + 1] = sb;
    out_shape[i] = sa * sb;
  }
  return mul(self.reshape(a_shape), other.reshape(b_shape)).reshape(out_shape);
}

Tensor Tensor::kron(const Tensor& other) const { return ember::kron(*this, other); }

}  // namespace ember
