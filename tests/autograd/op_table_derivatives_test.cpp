// The generic derivative check for the op table's non-pointwise ops (reductions, indexing,
// shape, linear algebra, views, in-place ops on views): each case runs gradcheck with
// forward mode and gradgradcheck in double (and complex double where the op supports it).
// Every op-table entry must be covered here or be listed as not differentiable.
#include <functional>
#include <set>
#include <string>

#include "ember/ops/op_def.h"
#include "test_util.h"

namespace ember::test {
namespace {

using autograd::variable_list;

struct Case {
  std::string table_name;  // the op-table entry this exercises
  std::string label;
  std::function<variable_list(const variable_list&)> fn;
  std::function<variable_list(ScalarType)> inputs;
  bool complex = false;  // also run in complex double
  bool forward = true;   // has a forward-mode derivative
};

Tensor R(IntArrayRef shape, ScalarType dt) {
  Tensor x = randn(shape, dtype(kDouble));
  if (isComplexType(dt)) x = complex(x, randn(shape, dtype(kDouble)));
  return x.requires_grad_();
}
// Distinct values (ties would make max/sort/median non-differentiable).
Tensor D(IntArrayRef shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return randperm(n, dtype(kDouble)).add(rand({n}, dtype(kDouble)).mul(0.5)).view(shape).requires_grad_();
}
Tensor L(std::initializer_list<int64_t> v) {
  std::vector<int64_t> d(v);
  return tensor(d, dtype(kLong));
}
Tensor Bm(std::initializer_list<bool> v) {
  Tensor t = empty({int64_t(v.size())}, dtype(kBool));
  int64_t i = 0;
  for (bool b : v) t[i++].fill_(b);
  return t;
}

std::vector<Case> cases() {
  using V = const variable_list&;
  std::vector<Case> c;
  auto add = [&](std::string table, std::string label, std::function<variable_list(V)> f,
                 std::function<variable_list(ScalarType)> in, bool cplx = false) {
    c.push_back({std::move(table), std::move(label), std::move(f), std::move(in), cplx});
  };
  auto one = [](std::function<Tensor(V)> f) { return [f](V v) { return variable_list{f(v)}; }; };
  auto x34 = [](ScalarType dt) { return variable_list{R({3, 4}, dt)}; };

  // reductions
  add("sum", "sum dims", one([](V v) { return v[0].sum(IntArrayRef{0}, true); }), x34, true);
  add("sum", "mean", one([](V v) { return v[0].mean(IntArrayRef{1}); }), x34, true);
  add("prod", "prod all (no zero)", one([](V v) { return v[0].prod(); }), x34, true);
  add("prod", "prod dim with a zero", one([](V v) { return v[0].mul(Bm({true, false, true, true}).to(kDouble)).prod(1); }),
      x34);
  add("amax", "amax", one([](V v) { return v[0].amax(IntArrayRef{1}); }), [](ScalarType) { return variable_list{D({3, 4})}; });
  add("amin", "min all", one([](V v) { return v[0].min(); }), [](ScalarType) { return variable_list{D({3, 4})}; });
  add("max_dim", "max dim", one([](V v) { return std::get<0>(v[0].max(1, false)); }),
      [](ScalarType) { return variable_list{D({3, 4})}; });
  add("min_dim", "min dim keepdim", one([](V v) { return std::get<0>(v[0].min(0, true)); }),
      [](ScalarType) { return variable_list{D({3, 4})}; });
  add("var_mean", "var", one([](V v) { return v[0].var(IntArrayRef{1}, true, false); }), x34, true);
  add("var_mean", "std", one([](V v) { return v[0].std(IntArrayRef{0}, true, true); }), x34);
  // channel_affine is batch norm's inference pass; under autograd the composite runs instead,
  // and its gradients (input, statistics, affine parameters) are checked here.
  add("channel_affine", "batch_norm with running stats", one([](V v) {
        return nn::functional::batch_norm(v[0], v[1], v[2].exp(), v[3], v[4], /*training=*/false, 0.1, 1e-5);
      }), [](ScalarType dt) { return variable_list{R({2, 3, 4}, dt), R({3}, dt), R({3}, dt), R({3}, dt), R({3}, dt)}; });
  add("var_mean", "var_mean", [](V v) {
        auto [a, b] = var_mean(v[0], IntArrayRef{1}, true, false);
        return variable_list{a, b};
      }, x34);
  add("linalg_vector_norm", "norm 2", one([](V v) { return v[0].norm(); }), x34, true);
  add("linalg_vector_norm", "norm 3 dim", one([](V v) { return linalg::vector_norm(v[0], 3, IntArrayRef{1}); }), x34);
  add("linalg_vector_norm", "norm inf", one([](V v) { return linalg::vector_norm(v[0], INFINITY); }),
      [](ScalarType) { return variable_list{D({3, 4})}; });
  add("sum", "logsumexp", one([](V v) { return logsumexp(v[0], {1}); }), x34);
  add("softmax", "softmax", one([](V v) { return softmax(v[0], 1); }), x34);
  add("softmax", "log_softmax", one([](V v) { return log_softmax(v[0], 0); }), x34);
  add("cumsum", "cumsum", one([](V v) { return v[0].cumsum(1); }), x34, true);
  add("sort", "sort", one([](V v) { return std::get<0>(v[0].sort(1)); }), [](ScalarType) { return variable_list{D({3, 4})}; });
  add("topk", "topk", one([](V v) { return std::get<0>(v[0].topk(2, 0)); }), [](ScalarType) { return variable_list{D({3, 4})}; });
  add("kthvalue", "kthvalue", one([](V v) { return std::get<0>(v[0].kthvalue(2, 1)); }),
      [](ScalarType) { return variable_list{D({3, 4})}; });
  add("sort", "median dim", one([](V v) { return std::get<0>(v[0].median(1)); }),
      [](ScalarType) { return variable_list{D({3, 5})}; });
  add("sort", "median all", one([](V v) { return v[0].median(); }), [](ScalarType) { return variable_list{D({3, 5})}; });

  // indexing
  add("index", "index_select", one([](V v) { return v[0].index_select(1, L({3, 0, 3})); }), x34, true);
  add("scatter_gather", "gather", one([](V v) { return v[0].gather(1, L({0, 2, 2, 1, 0, 3}).view({3, 2})); }), x34, true);
  add("scatter_gather", "scatter src", one([](V v) { return v[0].scatter(1, L({0, 2, 3, 1}).view({2, 2}), v[1]); }),
      [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({2, 2}, dt)}; }, true);
  add("scatter_gather", "scatter value", one([](V v) { return v[0].scatter(0, L({2, 0, 1, 2}).view({1, 4}), 1.5); }), x34);
  add("scatter_gather", "scatter_add", one([](V v) { return v[0].scatter_add(1, L({0, 0, 3, 1, 1, 1}).view({2, 3}), v[1]); }),
      [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({2, 3}, dt)}; }, true);
  add("index_put_", "index_add", one([](V v) { return v[0].index_add(0, L({2, 0, 2}), v[1], 0.5); }),
      [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({3, 4}, dt)}; }, true);
  add("index_put_", "index_copy", one([](V v) { return v[0].index_copy(1, L({3, 0}), v[1]); }),
      [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({3, 2}, dt)}; });
  add("index_put_", "index_fill", one([](V v) { return v[0].index_fill(1, L({1, 2}), 7.0); }), x34);
  add("masked_fill_", "masked_fill broadcast", one([](V v) { return v[0].masked_fill(Bm({true, false, false, true}), 0.5); }),
      x34, true);
  add("index", "masked_select", one([](V v) { return v[0].masked_select(v[0].detach().real().gt(0)); }), x34, true);
  add("index_put_", "masked_scatter",
      one([](V v) { return v[0].masked_scatter(Bm({true, false, true, false}), v[1]); }),
      [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({7}, dt)}; });
  add("index", "take", one([](V v) { return v[0].take(L({0, 11, 5, 5})); }), x34);
  add("index", "advanced index", one([](V v) { return v[0].index({L({2, 0, 2}), L({1, 3, 1})}); }), x34, true);
  add("index_put_", "index_put accumulate",
      one([](V v) { return index_put(v[0], {std::optional<Tensor>(L({1, 1, 0}))}, v[1], true); }),
      [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({3, 4}, dt)}; }, true);
  add("index_put_", "index_put replace",
      one([](V v) { return index_put(v[0], {std::optional<Tensor>(L({2, 0}))}, v[1], false); }),
      [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({4}, dt)}; });
  add("where", "where", one([](V v) { return where(v[0].detach().real().gt(0), v[0], v[1]); }),
      [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({4}, dt)}; }, true);

  // shape
  add("copy_", "cat", one([](V v) { return cat({v[0], v[1], v[0]}, 1); }),
      [](ScalarType dt) { return variable_list{R({3, 2}, dt), R({3, 4}, dt)}; }, true);
  add("copy_", "stack", one([](V v) { return stack({v[0], v[1]}, 1); }),
      [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({3, 4}, dt)}; });
  add("flip", "flip", one([](V v) { return v[0].flip({0, 1}); }), x34, true);
  add("flip", "roll", one([](V v) { return v[0].roll({1, -2}, {0, 1}); }), x34);
  add("trilu", "tril", one([](V v) { return v[0].tril(1); }), x34, true);
  add("trilu", "triu", one([](V v) { return v[0].triu(-1); }), x34);
  add("copy_", "repeat", one([](V v) { return v[0].repeat({2, 1, 3}); }), x34, true);
  add("copy_", "tile", one([](V v) { return v[0].tile({2}); }), x34);
  add("copy_", "constant_pad_nd", one([](V v) { return constant_pad_nd(v[0], {1, -1, 2, 0}, 3.0); }), x34, true);
  add("copy_", "diag", one([](V v) { return diag(v[0], 1); }), [](ScalarType dt) { return variable_list{R({4}, dt)}; });
  add("copy_", "diag_embed", one([](V v) { return diag_embed(v[0], -1, 0, 2); }), x34);
  add("copy_", "complex", one([](V v) { return complex(v[0], v[1]); }),
      [](ScalarType) { return variable_list{R({3, 4}, kDouble), R({4}, kDouble)}; });
  add("copy_", "clone/to", one([](V v) { return v[0].t().contiguous().to(kComplexDouble).mul(2); }), x34);

  // linear algebra
  add("mm", "mm", one([](V v) { return v[0].mm(v[1]); }),
      [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({4, 2}, dt)}; }, true);
  add("bmm", "bmm", one([](V v) { return v[0].bmm(v[1]); }),
      [](ScalarType dt) { return variable_list{R({2, 3, 4}, dt), R({2, 4, 2}, dt)}; }, true);
  add("addmm", "addmm", one([](V v) { return addmm(v[0], v[1], v[2], 0.5, 2.0); }),
      [](ScalarType dt) { return variable_list{R({2}, dt), R({3, 4}, dt), R({4, 2}, dt)}; }, true);
  add("baddbmm", "baddbmm", one([](V v) { return baddbmm(v[0], v[1], v[2], 0.5, 2.0); }),
      [](ScalarType dt) { return variable_list{R({2, 3, 2}, dt), R({2, 3, 4}, dt), R({2, 4, 2}, dt)}; });
  add("addbmm", "addbmm", one([](V v) { return addbmm(v[0], v[1], v[2], 0.5, 2.0); }),
      [](ScalarType dt) { return variable_list{R({3, 2}, dt), R({2, 3, 4}, dt), R({2, 4, 2}, dt)}; });
  add("mv", "mv", one([](V v) { return v[0].mv(v[1]); }),
      [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({4}, dt)}; }, true);
  add("addmv", "addmv", one([](V v) { return addmv(v[0], v[1], v[2], 0.5, 2.0); }),
      [](ScalarType dt) { return variable_list{R({3}, dt), R({3, 4}, dt), R({4}, dt)}; });
  add("dot", "dot", one([](V v) { return dot(v[0], v[1]); }),
      [](ScalarType dt) { return variable_list{R({4}, dt), R({4}, dt)}; }, true);
  add("vdot", "vdot", one([](V v) { return vdot(v[0], v[1]); }),
      [](ScalarType dt) { return variable_list{R({4}, dt), R({4}, dt)}; }, true);
  add("mm", "matmul broadcast", one([](V v) { return matmul(v[0], v[1]); }),
      [](ScalarType dt) { return variable_list{R({2, 3, 4}, dt), R({4, 2}, dt)}; }, true);
  add("mm", "trace", one([](V v) { return trace(v[0]); }), x34, true);

  add("cumprod", "cumprod", one([](V v) { return v[0].cumprod(1); }), x34, true);
  add("cumprod", "cumprod with zeros", one([](V v) {
        Tensor m = ones({3, 4}, dtype(kDouble));
        m[0][1].fill_(0);
        m[1][0].fill_(0);
        m[1][2].fill_(0);
        m[2][3].fill_(0);
        return v[0].mul(m).cumprod(1);
      }), x34);
  add("cummax", "cummax", one([](V v) { return std::get<0>(v[0].cummax(1)); }), [](ScalarType) { return variable_list{D({3, 4})}; });
  add("cummin", "cummin", one([](V v) { return std::get<0>(v[0].cummin(0)); }), [](ScalarType) { return variable_list{D({3, 4})}; });
  add("logcumsumexp", "logcumsumexp", one([](V v) { return v[0].mul(5).logcumsumexp(1); }), x34);
  add("nansum", "nansum", one([](V v) { return v[0].mul(2).nansum(IntArrayRef{1}); }), x34);
  add("aminmax", "aminmax", [](V v) {
        auto [a, b] = aminmax(v[0], 1);
        return variable_list{a, b};
      }, [](ScalarType) { return variable_list{D({3, 4})}; });
  add("mm", "einsum", one([](V v) { return einsum("bij,bjk->bik", {v[0], v[1]}); }),
      [](ScalarType dt) { return variable_list{R({2, 3, 4}, dt), R({2, 4, 2}, dt)}; }, true);
  add("mm", "tensordot", one([](V v) { return tensordot(v[0], v[1], {1}, {0}); }),
      [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({4, 2}, dt)}; });
  add("mm", "linalg.inv", one([](V v) { return linalg::inv(v[0].add(eye(3, v[0].options()).mul(3))); }),
      [](ScalarType dt) { return variable_list{R({2, 3, 3}, dt)}; }, true);
  add("mm", "linalg.det", one([](V v) { return linalg::det(v[0]); }),
      [](ScalarType dt) { return variable_list{R({2, 3, 3}, dt)}; }, true);
  add("mm", "linalg.slogdet", one([](V v) { return std::get<1>(linalg::slogdet(v[0])); }),
      [](ScalarType dt) { return variable_list{R({3, 3}, dt)}; });
  add("mm", "linalg.solve matrix", one([](V v) { return linalg::solve(v[0].add(eye(3, v[0].options()).mul(3)), v[1]); }),
      [](ScalarType dt) { return variable_list{R({3, 3}, dt), R({3, 2}, dt)}; }, true);
  add("mm", "linalg.solve vector, right", one([](V v) {
        return linalg::solve(v[0].add(eye(3, v[0].options()).mul(3)), v[1], /*left=*/false);
      }), [](ScalarType dt) { return variable_list{R({3, 3}, dt), R({2, 3}, dt)}; });
  add("mm", "linalg.solve batch of vectors", one([](V v) {
        return linalg::solve(v[0].add(eye(3, v[0].options()).mul(3)), v[1]);
      }), [](ScalarType dt) { return variable_list{R({2, 3, 3}, dt), R({2, 3}, dt)}; });
  // symmetric positive definite / Hermitian inputs built from a free matrix
  auto spd = [](const Tensor& a) { return ember::matmul(a, a.transpose(-2, -1).conj()).add(eye(3, a.options()).mul(3)); };
  auto herm = [](const Tensor& a) { return a.add(a.transpose(-2, -1).conj()).mul(0.5); };
  add("mm", "linalg.cholesky", one([spd](V v) { return linalg::cholesky(spd(v[0])); }),
      [](ScalarType dt) { return variable_list{R({2, 3, 3}, dt)}; }, true);
  add("mm", "cholesky upper", one([spd](V v) { return cholesky(spd(v[0]), /*upper=*/true); }),
      [](ScalarType dt) { return variable_list{R({3, 3}, dt)}; });
  add("mm", "linalg.eigvalsh", one([herm](V v) { return linalg::eigvalsh(herm(v[0])); }),
      [](ScalarType dt) { return variable_list{R({2, 3, 3}, dt)}; }, true);
  // eigenvectors up to sign: a gauge-invariant function of them (V diag(w^2) V^H)
  add("mm", "linalg.eigh vectors", one([herm](V v) {
        auto [w, Q] = linalg::eigh(herm(v[0]));
        return ember::matmul(Q.mul(w.square().unsqueeze(-2)), Q.transpose(-2, -1));
      }), [](ScalarType dt) { return variable_list{R({3, 3}, dt)}; });
  add("mm", "linalg.svdvals", one([](V v) { return linalg::svdvals(v[0]); }),
      [](ScalarType dt) { return variable_list{R({2, 4, 3}, dt)}; }, true);
  // U S^2 V^H: invariant under the sign/phase freedom of singular vector pairs
  add("mm", "linalg.svd", one([](V v) {
        auto [U, S, Vh] = linalg::svd(v[0], false);
        return ember::matmul(U.mul(S.square().to(U.scalar_type()).unsqueeze(-2)), Vh);
      }), [](ScalarType dt) { return variable_list{R({4, 3}, dt)}; }, true);
  add("mm", "linalg.svd wide, U only", one([](V v) {
        auto [U, S, Vh] = linalg::svd(v[0], false);
        return ember::matmul(U.mul(S.to(U.scalar_type()).unsqueeze(-2)), U.transpose(-2, -1).conj());
      }), [](ScalarType dt) { return variable_list{R({3, 5}, dt)}; }, true);
  // Q R Q^H-type products are invariant to the sign/phase choices of the factorization
  add("mm", "linalg.qr", [](V v) {
        auto [Q, Rr] = linalg::qr(v[0]);
        return variable_list{ember::matmul(Q, Rr.mul(Rr.diagonal(0, -2, -1).abs().to(Rr.scalar_type()).unsqueeze(-1))),
                             Rr.abs()};
      }, [](ScalarType dt) { return variable_list{R({4, 3}, dt)}; }, true);
  add("mm", "linalg.qr wide", [](V v) {
        auto [Q, Rr] = linalg::qr(v[0]);
        return variable_list{ember::matmul(Q, Rr.mul(Rr.diagonal(0, -2, -1).abs().to(Rr.scalar_type()).unsqueeze(-1))),
                             Rr.abs()};
      }, [](ScalarType dt) { return variable_list{R({3, 5}, dt)}; }, true);
  // LU (Note [LU derivatives]): random matrices keep their pivot order under the small
  // perturbations the checks make.
  auto lu_LU = [](V v) {
    auto [P, Lf, U] = linalg::lu(v[0]);
    return variable_list{Lf, U};
  };
  add("mm", "linalg.lu square batch", lu_LU, [](ScalarType dt) { return variable_list{R({2, 4, 4}, dt)}; }, true);
  add("mm", "linalg.lu wide", lu_LU, [](ScalarType dt) { return variable_list{R({3, 5}, dt)}; }, true);
  add("mm", "linalg.lu tall", lu_LU, [](ScalarType dt) { return variable_list{R({5, 3}, dt)}; }, true);
  add("mm", "linalg.lu_factor packed", one([](V v) { return std::get<0>(linalg::lu_factor(v[0])); }),
      [](ScalarType dt) { return variable_list{R({4, 3}, dt)}; }, true);
  add("mm", "linalg.lu_solve left, right, adjoint", [](V v) {
        auto [LU, piv] = linalg::lu_factor(v[0]);
        return variable_list{linalg::lu_solve(LU, piv, v[1]), linalg::lu_solve(LU, piv, v[1].transpose(-2, -1), false),
                             linalg::lu_solve(LU, piv, v[1], true, true)};
      }, [](ScalarType dt) { return variable_list{R({3, 3}, dt), R({3, 2}, dt)}; }, true);
  add("mm", "linalg.lstsq tall (solution)", one([](V v) { return std::get<0>(linalg::lstsq(v[0], v[1])); }),
      [](ScalarType dt) { return variable_list{R({5, 3}, dt), R({5, 2}, dt)}; }, true);
  add("mm", "linalg.lstsq wide, batch of vectors, gelsd", one([](V v) {
        return std::get<0>(linalg::lstsq(v[0], v[1], std::nullopt, "gelsd"));
      }), [](ScalarType dt) { return variable_list{R({2, 3, 4}, dt), R({2, 3}, dt)}; });
  add("mm", "linalg.slogdet complex (sign and logabsdet)", [](V v) {
        auto [sgn, la] = linalg::slogdet(v[0]);
        return variable_list{sgn, la};
      }, [](ScalarType) { return variable_list{R({3, 3}, kComplexDouble)}; });
  add("scatter_gather", "scatter_reduce prod with zeros", one([](V v) {
        Tensor src = v[1].mul(tensor({1.0, 0.0, 1.0, 0.0, 1.0, 0.0}, dtype(kDouble)).view({2, 3}));
        return v[0].scatter_reduce(1, L({0, 0, 3, 1, 1, 1}).view({2, 3}), src, "prod", true);
      }), [](ScalarType) { return variable_list{R({3, 4}, kDouble), R({2, 3}, kDouble)}; });
  add("scatter_gather", "scatter_reduce prod, self excluded", one([](V v) {
        return v[0].scatter_reduce(1, L({0, 0, 3, 1, 1, 1}).view({2, 3}), v[1], "prod", false);
      }), [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({2, 3}, dt)}; }, true);
  add("scatter_gather", "scatter_reduce amax", one([](V v) {
        return v[0].scatter_reduce(1, L({0, 0, 3, 1, 1, 1}).view({2, 3}), v[1], "amax", true);
      }), [](ScalarType) { return variable_list{D({3, 4}), D({2, 3})}; });
  add("scatter_gather", "scatter_reduce amin, self excluded", one([](V v) {
        return v[0].scatter_reduce(1, L({0, 0, 3, 1, 1, 1}).view({2, 3}), v[1], "amin", false);
      }), [](ScalarType) { return variable_list{D({3, 4}), D({2, 3})}; });
  add("mm", "linalg.qr square complete", one([](V v) {
        auto [Q, Rr] = linalg::qr(v[0], "complete");
        return ember::matmul(Q, Rr);
      }), [](ScalarType dt) { return variable_list{R({3, 3}, dt)}; });
  add("index", "put", one([](V v) { return v[0].put(L({0, 5, 11}), v[1], false); }),
      [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({3}, dt)}; }, true);
  add("index", "put accumulate", one([](V v) { return v[0].put(L({0, 5, 5}), v[1], true); }),
      [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({3}, dt)}; });
  add("scatter_gather", "scatter_reduce sum", one([](V v) {
        return v[0].scatter_reduce(1, L({0, 0, 3, 1, 1, 1}).view({2, 3}), v[1], "sum", false);
      }), [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({2, 3}, dt)}; }, true);
  add("scatter_gather", "scatter_reduce mean", one([](V v) {
        return v[0].scatter_reduce(1, L({0, 0, 3, 1, 1, 1}).view({2, 3}), v[1], "mean", true);
      }), [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({2, 3}, dt)}; });
  add("sort", "quantile linear", one([](V v) { return v[0].quantile(0.3, 1); }), [](ScalarType) { return variable_list{D({3, 5})}; });
  add("sort", "quantile midpoint, q list", one([](V v) {
        return v[0].quantile(tensor({0.25, 0.9}, dtype(kDouble)), std::nullopt, false, "midpoint");
      }), [](ScalarType) { return variable_list{D({3, 5})}; });
  add("index", "pad reflect", one([](V v) { return pad(v[0].unsqueeze(0), {2, 1}, "reflect"); }), x34, true);
  add("index", "pad circular", one([](V v) { return pad(v[0].unsqueeze(0), {1, 2}, "circular"); }), x34);
  add("index", "repeat_interleave", one([](V v) { return v[0].repeat_interleave(tensor(std::vector<int64_t>{1, 0, 3}), 0); }), x34);
  add("copy_", "cross", one([](V v) { return linalg::cross(v[0], v[1], 1); }),
      [](ScalarType dt) { return variable_list{R({2, 3}, dt), R({2, 3}, dt)}; }, true);

  // views and in-place ops on views
  add("copy_", "views", one([](V v) {
        return v[0].t().unsqueeze(0).expand({2, 4, 3}).select(2, 1).narrow(1, 1, 2).mul(v[0].diagonal().sum());
      }), x34, true);
  add("copy_", "unfold/as_strided", one([](V v) { return v[0].unfold(1, 2, 1).as_strided({2, 2}, {1, 3}, 1); }), x34);
  add("copy_", "view_as_real/complex", one([](V v) { return view_as_real(v[0]).mul(2); }),
      [](ScalarType) { return variable_list{R({3, 4}, kComplexDouble)}; });
  add("copy_", "inplace on a view (CopySlices)", one([](V v) {
        Tensor y = v[0].mul(1);
        y.narrow(1, 1, 2).mul_(v[1]);
        y.select(0, 0).exp_();
        return y;
      }), [](ScalarType dt) { return variable_list{R({3, 4}, dt), R({2}, dt)}; }, true);
  add("copy_", "copy_ into a view of a plain tensor", one([](V v) {
        Tensor y = zeros({3, 4}, v[0].options().requires_grad(false));
        y.narrow(0, 1, 2).copy_(v[0]);
        return y.mul(2);
      }), [](ScalarType dt) { return variable_list{R({2, 4}, dt)}; });
  return c;
}

// Op-table entries with no derivative (integer or boolean results, or searches).
const std::set<std::string> kNotDifferentiable = {"_gemm_fallback", "nonzero", "all", "any", "count_nonzero",
                                                   "searchsorted"};
// Entries whose derivatives are not written yet (listed so the coverage check stays honest).
const std::set<std::string> kPending = {};

TEST(OpTableDerivatives, OpsWithoutADerivativeSayWhich) {
  Tensor a = randn({3, 3}, dtype(kDouble)).requires_grad_();
  EXPECT_ERROR_WITH(linalg::svd(randn({3, 2}, dtype(kDouble)).requires_grad_()), "full_matrices=False");
  EXPECT_ERROR_WITH(linalg::qr(randn({3, 2}, dtype(kDouble)).requires_grad_(), "complete"), "not differentiable");
  EXPECT_ERROR_WITH(randn({3}, dtype(kDouble)).requires_grad_().resize_({4}), "cannot resize");
  EXPECT_ERROR_WITH(_unique2(a), "the derivative for 'unique' is not implemented");
  EXPECT_ERROR_WITH(quantile(a.mul(NAN), 0.5), "NaN inputs");
  // without grad the same calls work
  NoGradGuard g;
  EXPECT_NO_THROW(linalg::svd(a));
}

TEST(OpTableDerivatives, EveryEntryIsCoveredOrListed) {
  std::set<std::string> covered;
  for (const Case& k : cases()) covered.insert(k.table_name);
  std::vector<std::string> missing;
  for (OpInfo* info : OpInfo::all()) {
    if (info->fusion == FusionClass::Pointwise) continue;  // op_derivatives_test.cpp
    std::string n(info->name);
    if (!covered.count(n) && !kNotDifferentiable.count(n) && !kPending.count(n)) missing.push_back(n);
  }
  EXPECT_TRUE(missing.empty()) << "op-table entries without a derivative check: " << ::testing::PrintToString(missing);
}

void run_case(const Case& k, ScalarType dt) {
  SCOPED_TRACE(k.label + " " + torch_name(dt));
  autograd::GradcheckOptions o;
  o.check_forward_ad = k.forward;
  variable_list in = k.inputs(dt);
  try {
    EXPECT_TRUE(autograd::gradcheck(k.fn, in, o)) << k.label;
    // The sanitizer build checks second derivatives in double only (the complex ones were the
    // most expensive quarter of autograd_tests under ASan; Release checks both).
    if (!kSanitizerBuild || dt != kComplexDouble) EXPECT_TRUE(autograd::gradgradcheck(k.fn, in, {}, o)) << k.label;
  } catch (const Error& e) {
    ADD_FAILURE() << k.label << ": " << e.what();
  }
}

TEST(OpTableDerivatives, MatchFiniteDifferencesInDouble) {
  manual_seed(21);
  for (const Case& k : cases()) run_case(k, kDouble);
}

TEST(OpTableDerivatives, MatchFiniteDifferencesInComplexDouble) {
  manual_seed(22);
  for (const Case& k : cases())
    if (k.complex) run_case(k, kComplexDouble);
}

}  // namespace
}  // namespace ember::test
