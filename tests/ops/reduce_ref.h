// Test helpers for the reduction tests: naive double-precision reference reductions written
// independently of the engine, and random inputs in several memory layouts.
#pragma once
#include <cmath>
#include <complex>
#include <functional>
#include <string>
#include <vector>

#include "test_util.h"

namespace ember::test {

// The values of t in logical (row-major) order, as doubles / complex doubles.
inline std::vector<double> values_of(const Tensor& t) {
  Tensor d = t.to(kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}
inline std::vector<std::complex<double>> cvalues_of(const Tensor& t) {
  Tensor d = t.to(kComplexDouble).contiguous();
  const Complex<double>* p = d.data_ptr<Complex<double>>();
  std::vector<std::complex<double>> v;
  for (int64_t i = 0; i < d.numel(); ++i) v.emplace_back(p[i].real(), p[i].imag());
  return v;
}

// Groups the elements of `sizes` (logical order) by their position in the result of reducing
// `dims` (all dims when empty); each group lists flat input indices in logical order.
inline std::vector<std::vector<int64_t>> reduce_groups(IntArrayRef sizes, std::vector<int64_t> dims,
                                                       std::vector<int64_t>* out_shape, bool keepdim = false) {
  int64_t nd = sizes.size();
  std::vector<bool> red(nd, dims.empty());
  for (int64_t d : dims) red[d < 0 ? d + nd : d] = true;
  std::vector<int64_t> oshape;
  int64_t nout = 1, numel = 1;
  for (int64_t d = 0; d < nd; ++d) {
    numel *= sizes[d];
    if (!red[d]) { oshape.push_back(sizes[d]); nout *= sizes[d]; }
    else if (keepdim) oshape.push_back(1);
  }
  if (out_shape) *out_shape = oshape;
  std::vector<std::vector<int64_t>> groups(nout);
  std::vector<int64_t> idx(nd, 0);
  for (int64_t i = 0; i < numel; ++i) {
    int64_t o = 0;
    for (int64_t d = 0; d < nd; ++d) if (!red[d]) o = o * sizes[d] + idx[d];
    groups[o].push_back(i);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  return groups;
}

// Reference reduction: f maps the values of one group (logical order) to the result.
inline Tensor ref_reduce(const Tensor& t, std::vector<int64_t> dims, bool keepdim,
                         const std::function<double(const std::vector<double>&)>& f) {
  std::vector<int64_t> shape;
  auto groups = reduce_groups(t.sizes(), dims, &shape, keepdim);
  std::vector<double> v = values_of(t), res;
  for (auto& g : groups) {
    std::vector<double> line;
    for (int64_t i : g) line.push_back(v[i]);
    res.push_back(f(line));
  }
  Tensor out = empty(shape, TensorOptions().dtype(kDouble));
  std::copy(res.begin(), res.end(), out.data_ptr<double>());
  return out;
}
inline Tensor ref_reduce_complex(const Tensor& t, std::vector<int64_t> dims, bool keepdim,
                                 const std::function<std::complex<double>(const std::vector<std::complex<double>>&)>& f) {
  std::vector<int64_t> shape;
  auto groups = reduce_groups(t.sizes(), dims, &shape, keepdim);
  auto v = cvalues_of(t);
  Tensor out = empty(shape, TensorOptions().dtype(kComplexDouble));
  Complex<double>* o = out.data_ptr<Complex<double>>();
  for (size_t k = 0; k < groups.size(); ++k) {
    std::vector<std::complex<double>> line;
    for (int64_t i : groups[k]) line.push_back(v[i]);
    auto r = f(line);
    o[k] = Complex<double>(r.real(), r.imag());
  }
  return out;
}

inline double ref_sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

// Random values of dtype dt (integers in [-4, 4], bools random) in layout `layout` with
// logical shape `shape`: "contiguous", "transposed" (dims 0 and last swapped in memory),
// "sliced" (every other element of dim 0, an offset window of the last dim), "expanded"
// (dim 0 broadcast from size 1).
inline Tensor make_input(IntArrayRef shape, ScalarType dt, const std::string& layout) {
  std::vector<int64_t> s(shape.begin(), shape.end());
  auto gen = [&](std::vector<int64_t> sz) {
    if (isIntegralType(dt, true)) {
      Tensor r = randint(-4, 5, sz, TensorOptions().dtype(kLong));
      if (dt == kBool) return gt(r, 0);
      if (dt == kByte) r = abs(r);
      return r.to(dt);
    }
    if (isComplexType(dt)) {
      std::vector<int64_t> sz2 = sz;
      sz2.push_back(2);
      return view_as_complex(randn(sz2, TensorOptions().dtype(kDouble))).to(dt);
    }
    return randn(sz, TensorOptions().dtype(kDouble)).to(dt);
  };
  int64_t nd = s.size();
  if (layout == "transposed" && nd >= 2) {
    std::vector<int64_t> t = s;
    std::swap(t[0], t[nd - 1]);
    return gen(t).transpose(0, nd - 1);
  }
  if (layout == "sliced" && nd >= 1) {
    std::vector<int64_t> t = s;
    t[0] = 2 * s[0];
    t[nd - 1] = s[nd - 1] + 3;
    Tensor g = gen(t).slice(0, 0, std::nullopt, 2);
    return g.slice(nd - 1, 1, 1 + s[nd - 1]);
  }
  if (layout == "expanded" && nd >= 1) {
    std::vector<int64_t> t = s;
    t[0] = 1;
    return gen(t).expand(s);
  }
  return gen(s);
}

// Complex normal values of dtype dt.
inline Tensor crandn(std::vector<int64_t> sz, ScalarType dt = kComplexFloat) {
  sz.push_back(2);
  return view_as_complex(randn(sz, TensorOptions().dtype(kDouble))).to(dt);
}
// A dim list (OptionalIntArrayRef cannot safely be built from an int literal).
using Dims = std::vector<int64_t>;

inline const std::vector<std::string>& all_layouts() {
  static const std::vector<std::string> l = {"contiguous", "transposed", "sliced", "expanded"};
  return l;
}

}  // namespace ember::test
