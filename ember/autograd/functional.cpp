// Functional transforms (vjp, jvp, jacobian, hessian, hvp, vhp) and gradcheck.
#include "ember/autograd/functional.h"

#include <cmath>

#include "ember/autograd/autograd_meta.h"
#include "ember/autograd/forward_ad.h"
#include "ember/ops/functions.h"

namespace ember::autograd {

namespace {

// Fresh inputs for the user function: detached leaves that require grad, or (create_graph)
// differentiable aliases that keep the graph to the caller's tensors.
variable_list prepare_inputs(const variable_list& inputs, bool create_graph, const char* api) {
  variable_list r;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    EMBER_CHECK(t.defined(), api, ": input ", i, " is undefined");
    EMBER_CHECK(t.is_floating_point() || t.is_complex(), api, ": input ", i,
                " must be a floating point or complex tensor, got ", t.scalar_type());
    if (create_graph && t.requires_grad()) r.push_back(t.view(t.sizes()));
    else r.push_back(t.detach().requires_grad_(true));
  }
  return r;
}

void check_v(const variable_list& v, const variable_list& like, const char* api, const char* what) {
  EMBER_CHECK(v.size() == like.size(), api, ": expected ", like.size(), " tensors in ", what, ", got ", v.size());
  for (size_t i = 0; i < v.size(); ++i)
    EMBER_CHECK(v[i].sizes() == like[i].sizes(), api, ": ", what, "[", i, "] has shape ", v[i].sizes(),
                " but the corresponding tensor has shape ", like[i].sizes());
}

variable_list grads_or_zeros(const variable_list& outputs, const variable_list& inputs, const variable_list& go,
                             bool create_graph, bool strict, const char* api) {
  variable_list diff_out, diff_go;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].requires_grad()) {
      diff_out.push_back(outputs[i]);
      diff_go.push_back(go[i]);
    }
  variable_list g(inputs.size());
  if (!diff_out.empty()) g = grad(diff_out, inputs, diff_go, /*retain_graph=*/true, create_graph, /*allow_unused=*/true);
  for (size_t i = 0; i < g.size(); ++i) {
    if (g[i].defined()) continue;
    EMBER_CHECK(!strict, api, ": The output of the user-provided function is independent of input ", i,
                ". This is not allowed in strict mode.");
    g[i] = zeros_like(inputs[i]);
  }
  return g;
}

}  // namespace

namespace functional {

std::pair<variable_list, variable_list> vjp(const Fn& func, const variable_list& inputs, const variable_list& v,
                                            bool create_graph, bool strict) {
  AutoGradMode enable(true);
  variable_list in = prepare_inputs(inputs, create_graph, "vjp");
  variable_list out = func(in);
  variable_list go = v;
  if (go.empty()) {
    for (const Tensor& o : out) {
      EMBER_CHECK(o.numel() == 1, "vjp: The vector v can only be None if the user-provided function returns a single "
                  "Tensor with a single element.");
      go.push_back(ones_like(o));
    }
  }
  check_v(go, out, "vjp", "v");
  variable_list g = grads_or_zeros(out, in, go, create_graph, strict, "vjp");
  if (!create_graph) {
    for (Tensor& t : out) t = t.detach();
    for (Tensor& t : g) t = t.detach();
  }
  return {out, g};
}

std::pair<variable_list, variable_list> jvp(const Fn& func, const variable_list& inputs, const variable_list& v,
                                            bool create_graph, bool strict) {
  variable_list tangents = v;
  if (tangents.empty()) {
    for (const Tensor& t : inputs) {
      EMBER_CHECK(t.numel() == 1, "jvp: The vector v can only be None if the input to the user-provided function is a "
                  "single Tensor with a single element.");
      tangents.push_back(ones_like(t));
    }
  }
  check_v(tangents, inputs, "jvp", "v");
  forward_ad::dual_level level;
  variable_list duals;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Tensor p = create_graph ? inputs[i] : inputs[i].detach();
    duals.push_back(forward_ad::make_dual(p, tangents[i].to(p.scalar_type())));
  }
  AutoGradMode grad_mode(create_graph);
  variable_list out = func(duals);
  variable_list primals, jv;
  for (size_t i = 0; i < out.size(); ++i) {
    auto u = forward_ad::unpack_dual(out[i]);
    EMBER_CHECK(!strict || u.tangent.defined(), "jvp: The output of the user-provided function is independent of "
                "the inputs. This is not allowed in strict mode.");
    primals.push_back(create_graph ? u.primal : u.primal.detach());
    Tensor t = u.tangent.defined() ? u.tangent : zeros_like(u.primal);
    jv.push_back(create_graph ? t : t.detach());
  }
  return {primals, jv};
}

std::vector<variable_list> jacobian(const Fn& func, const variable_list& inputs, bool create_graph, bool strict,
                                    const std::string& strategy) {
  EMBER_CHECK(strategy == "reverse-mode" || strategy == "forward-mode",
              "jacobian: Expected strategy to be either \"forward-mode\" or \"reverse-mode\", got \"", strategy, "\"");
  std::vector<variable_list> J;
  if (strategy == "reverse-mode") {
    AutoGradMode enable(true);
    variable_list in = prepare_inputs(inputs, create_graph, "jacobian");
    variable_list out = func(in);
    for (size_t o = 0; o < out.size(); ++o) {
      variable_list row;
      std::vector<variable_list> cols(in.size());
      const int64_t n = out[o].numel();
      for (int64_t k = 0; k < n; ++k) {
        variable_list go;
        for (size_t q = 0; q < out.size(); ++q) go.push_back(zeros_like(out[q], {}, MemoryFormat::Contiguous));
        go[o].view({-1})[k].fill_(1);
        variable_list g = grads_or_zeros(out, in, go, create_graph, strict, "jacobian");
        for (size_t i = 0; i < in.size(); ++i) cols[i].push_back(create_graph ? g[i] : g[i].detach());
      }
      for (size_t i = 0; i < in.size(); ++i) {
        std::vector<int64_t> shape(out[o].sizes().begin(), out[o].sizes().end());
        shape.insert(shape.end(), in[i].sizes().begin(), in[i].sizes().end());
        row.push_back(n == 0 ? zeros(shape, in[i].options()) : stack(cols[i]).view(shape));
      }
      J.push_back(std::move(row));
    }
    return J;
  }
  // forward mode: one jvp per input element
  variable_list out0;
  {
    NoGradGuard g;
    variable_list plain;
    for (const Tensor& t : inputs) plain.push_back(t.detach());
    out0 = func(plain);
  }
  J.assign(out0.size(), variable_list(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<variable_list> cols(out0.size());
    for (int64_t k = 0; k < inputs[i].numel(); ++k) {
      variable_list v;
      for (const Tensor& t : inputs) v.push_back(zeros_like(t, {}, MemoryFormat::Contiguous));
      v[i].view({-1})[k].fill_(1);
      variable_list jv = jvp(func, inputs, v, create_graph, strict).second;
      for (size_t o = 0; o < out0.size(); ++o) cols[o].push_back(jv[o]);
    }
    for (size_t o = 0; o < out0.size(); ++o) {
      std::vector<int64_t> shape(out0[o].sizes().begin(), out0[o].sizes().end());
      shape.insert(shape.end(), inputs[i].sizes().begin(), inputs[i].sizes().end());
      // cols: per input element, a tensor of the output's shape -> move the input dims last
      Tensor s = inputs[i].numel() == 0 ? zeros(shape, out0[o].options()) : stack(cols[o], -1);
      J[o][i] = s.view(shape);
    }
  }
  return J;
}

std::vector<variable_list> hessian(const std::function<Tensor(const variable_list&)>& func,
                                   const variable_list& inputs, bool create_graph, bool strict,
                                   const std::string& outer_jacobian_strategy) {
  Fn gradient = [&](const variable_list& in) {
    variable_list x = in;
    AutoGradMode enable(true);
    // Our own inputs (fresh leaves or duals): marking them keeps a dual's tangent.
    for (Tensor& t : x)
      if (!t.requires_grad()) t.requires_grad_(true);
    Tensor out = func(x);
    EMBER_CHECK(out.numel() == 1, "hessian: The function given to hessian should return a single element Tensor, got "
                "shape ", out.sizes());
    return grads_or_zeros({out}, x, {ones_like(out)}, /*create_graph=*/true, strict, "hessian");
  };
  return jacobian(gradient, inputs, create_graph, strict, outer_jacobian_strategy);
}

std::pair<Tensor, variable_list> hvp(const std::function<Tensor(const variable_list&)>& func,
                                     const variable_list& inputs, const variable_list& v, bool create_graph,
                                     bool strict) {
  check_v(v, inputs, "hvp", "v");
  AutoGradMode enable(true);
  variable_list in = prepare_inputs(inputs, create_graph, "hvp");
  forward_ad::dual_level level;
  variable_list duals;
  for (size_t i = 0; i < in.size(); ++i) duals.push_back(forward_ad::make_dual(in[i], v[i].to(in[i].scalar_type())));
  Tensor out = func(duals);
  EMBER_CHECK(out.numel() == 1, "hvp: The function given to hvp should return a single element Tensor, got shape ",
              out.sizes());
  variable_list g = grads_or_zeros({out}, in, {ones_like(out)}, create_graph, strict, "hvp");
  variable_list hv;
  for (size_t i = 0; i < g.size(); ++i) {
    Tensor t = forward_ad::unpack_dual(g[i]).tangent;
    EMBER_CHECK(!strict || t.defined(), "hvp: The Hessian of the user-provided function with respect to input ", i,
                " is independent of the input. This is not allowed in strict mode.");
    if (!t.defined()) t = zeros_like(in[i]);
    hv.push_back(create_graph ? t : t.detach());
  }
  Tensor primal = forward_ad::unpack_dual(out).primal;
  return {create_graph ? primal : primal.detach(), hv};
}

std::pair<Tensor, variable_list> vhp(const std::function<Tensor(const variable_list&)>& func,
                                     const variable_list& inputs, const variable_list& v, bool create_graph,
                                     bool strict) {
  check_v(v, inputs, "vhp", "v");
  AutoGradMode enable(true);
  variable_list in = prepare_inputs(inputs, create_graph, "vhp");
  Tensor out = func(in);
  EMBER_CHECK(out.numel() == 1, "vhp: The function given to vhp should return a single element Tensor, got shape ",
              out.sizes());
  variable_list g = grads_or_zeros({out}, in, {ones_like(out)}, /*create_graph=*/true, strict, "vhp");
  variable_list vh = grads_or_zeros(g, in, v, create_graph, strict, "vhp");
  if (!create_graph)
    for (Tensor& t : vh) t = t.detach();
  return {create_graph ? out : out.detach(), vh};
}

}  // namespace functional

// ---- gradcheck ---------------------------------------------------------------------------
namespace {

struct CheckFailure {
  std::string message;
};

// Outputs of func with input i replaced, as complex double vectors (flattened, concatenated).
Tensor flat_outputs(const variable_list& outs) {
  variable_list parts;
  for (const Tensor& o : outs)
    if (o.defined()) parts.push_back(o.detach().to(kComplexDouble).reshape({-1}));
  return parts.empty() ? zeros({0}, dtype(kComplexDouble)) : cat(parts);
}

variable_list detached(const variable_list& in) {
  variable_list r;
  for (const Tensor& t : in) r.push_back(t.detach());
  return r;
}

// d outputs / d (coordinate) by central differences: the coordinate is element k of input
// i, its real part (imag = false) or imaginary part.
Tensor numeric_column(const Fn& func, const variable_list& inputs, size_t i, const Tensor& direction, double eps) {
  NoGradGuard no_grad;
  variable_list up = detached(inputs), down = detached(inputs);
  up[i] = inputs[i].detach().add(direction, eps);
  down[i] = inputs[i].detach().sub(direction, eps);
  return flat_outputs(func(up)).sub(flat_outputs(func(down))).div(2 * eps);
}

bool close(double a, double n, const GradcheckOptions& o) { return std::abs(a - n) <= o.atol + o.rtol * std::abs(n); }

// Real-valued pairing <u, g> of an input direction and a (complex) gradient: PyTorch's
// gradient of a real loss is dL/da + i dL/db.
double pair_real(const Tensor& g, const Tensor& u) {
  Tensor gc = g.to(kComplexDouble), uc = u.to(kComplexDouble);
  return real(gc.conj().mul(uc)).sum().item<double>();
}

std::vector<size_t> differentiable_inputs(const variable_list& inputs) {
  std::vector<size_t> r;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && inputs[i].requires_grad()) r.push_back(i);
  return r;
}

// Unit directions over every real coordinate of input i.
template <class F>
void for_each_direction(const Tensor& x, const F& f) {
  const bool cplx = x.is_complex();
  for (int64_t k = 0; k < x.numel(); ++k)
    for (int part = 0; part < (cplx ? 2 : 1); ++part) {
      Tensor u = zeros_like(x, {}, MemoryFormat::Contiguous);
      if (part == 0) u.view({-1})[k].fill_(1);
      else u.view({-1})[k].fill_(Complex<double>(0, 1));
      f(k, part, u);
    }
}

void check_slow(const Fn& func, const variable_list& inputs, const GradcheckOptions& o) {
  std::vector<size_t> diff = differentiable_inputs(inputs);
  variable_list outputs;
  {
    AutoGradMode enable(true);
    outputs = func(inputs);
  }
  Tensor out0 = flat_outputs(outputs);
  const int64_t n_out = out0.numel();
  // Numerical derivative of every output element along every input coordinate, once.
  std::vector<std::vector<Tensor>> columns(inputs.size());
  for (size_t i : diff)
    for_each_direction(inputs[i], [&](int64_t, int, const Tensor& u) {
      columns[i].push_back(numeric_column(func, inputs, i, u, o.eps));
    });
  // Forward-mode columns (kept to compare with the reverse-mode rows below).
  std::vector<std::vector<Tensor>> fwd_columns(inputs.size());
  for (size_t i : diff) {
    for_each_direction(inputs[i], [&](int64_t k, int part, const Tensor& u) {
      const bool cplx_in = inputs[i].is_complex();
      const Tensor& num = columns[i][size_t(cplx_in ? 2 * k + part : k)];  // complex, n_out
      if (o.check_forward_ad) {
        forward_ad::dual_level level;
        variable_list duals = detached(inputs);
        duals[i] = forward_ad::make_dual(inputs[i].detach(), u.to(inputs[i].scalar_type()));
        variable_list out = func(duals);
        variable_list tangents;
        for (const Tensor& t : out) {
          Tensor tg = forward_ad::unpack_dual(t).tangent;
          tangents.push_back(tg.defined() ? tg : zeros_like(t));
        }
        Tensor ana = flat_outputs(tangents);
        fwd_columns[i].push_back(ana);
        for (int64_t m = 0; m < n_out; ++m) {
          auto a = ana[m].item().toComplexDouble(), nm = num[m].item().toComplexDouble();
          if (!close(a.real(), nm.real(), o) || !close(a.imag(), nm.imag(), o))
            throw CheckFailure{ember::detail::str_cat("Jacobian computed with forward mode mismatch for output ", m,
                                               " with respect to input ", i, " element ", k,
                                               part ? " (imaginary part)" : "", ",\nnumerical: ", nm.real(), "+",
                                               nm.imag(), "j\nanalytical: ", a.real(), "+", a.imag(), "j")};
        }
      }
      (void)k;
      (void)part;
    });
  }
  if (!o.check_backward_ad) return;
  // Reverse mode: one backward per (output element, real/imag unit).
  int64_t offset = 0;
  for (size_t oi = 0; oi < outputs.size(); ++oi) {
    const Tensor& out = outputs[oi];
    if (!out.defined()) continue;
    const bool cplx = out.is_complex();
    for (int64_t m = 0; m < out.numel(); ++m) {
      for (int q = 0; q < (cplx ? 2 : 1); ++q) {
        variable_list go;
        for (const Tensor& t : outputs)
          go.push_back(t.defined() ? zeros_like(t, {}, MemoryFormat::Contiguous) : Tensor());
        if (q == 0) go[oi].view({-1})[m].fill_(1);
        else go[oi].view({-1})[m].fill_(Complex<double>(0, 1));
        variable_list diff_out, diff_go, diff_in;
        for (size_t t = 0; t < outputs.size(); ++t)
          if (outputs[t].defined() && outputs[t].requires_grad()) {
            diff_out.push_back(outputs[t]);
            diff_go.push_back(go[t]);
          }
        for (size_t i : diff) diff_in.push_back(inputs[i]);
        variable_list g(diff_in.size());
        if (!diff_out.empty()) g = grad(diff_out, diff_in, diff_go, /*retain_graph=*/true, false, /*allow_unused=*/true);
        for (size_t d = 0; d < diff.size(); ++d) {
          const size_t i = diff[d];
          for_each_direction(inputs[i], [&](int64_t k, int part, const Tensor& u) {
            double ana = g[d].defined() ? pair_real(g[d], u) : 0.0;
            const Tensor& num = columns[i][size_t(inputs[i].is_complex() ? 2 * k + part : k)];
            auto dn = num[offset + m].item().toComplexDouble();
            double nm = q == 0 ? dn.real() : dn.imag();  // Re(conj(v) dy) for v = 1 or i
            if (!close(ana, nm, o))
              throw CheckFailure{ember::detail::str_cat("Jacobian mismatch for output ", oi, " element ", m,
                                                 q ? " (imaginary part)" : "", " with respect to input ", i,
                                                 " element ", k, part ? " (imaginary part)" : "", ",\nnumerical: ",
                                                 nm, "\nanalytical: ", ana)};
            if (!fwd_columns[i].empty()) {
              // The same Jacobian entry from forward mode must agree with reverse mode.
              auto fz = fwd_columns[i][size_t(inputs[i].is_complex() ? 2 * k + part : k)][offset + m]
                            .item().toComplexDouble();
              double fv = q == 0 ? fz.real() : fz.imag();
              if (!close(ana, fv, o))
                throw CheckFailure{ember::detail::str_cat("forward-mode and reverse-mode Jacobians disagree for output ", oi,
                                                   " element ", m, " with respect to input ", i, " element ", k,
                                                   ": forward ", fv, ", reverse ", ana)};
            }
          });
        }
      }
    }
    offset += out.numel();
  }
}

void check_fast(const Fn& func, const variable_list& inputs, const GradcheckOptions& o) {
  std::vector<size_t> diff = differentiable_inputs(inputs);
  variable_list outputs;
  {
    AutoGradMode enable(true);
    outputs = func(inputs);
  }
  // Random unit-ish directions u (inputs) and v (outputs).
  variable_list u(inputs.size()), v;
  for (size_t i : diff) u[i] = randn(inputs[i].sizes(), dtype(inputs[i].scalar_type()));
  for (const Tensor& t : outputs) v.push_back(t.defined() ? randn(t.sizes(), dtype(t.scalar_type())) : Tensor());
  // Numerical: J u along all inputs at once.
  Tensor num;
  {
    NoGradGuard g;
    variable_list up = detached(inputs), down = detached(inputs);
    for (size_t i : diff) {
      up[i] = inputs[i].detach().add(u[i], o.eps);
      down[i] = inputs[i].detach().sub(u[i], o.eps);
    }
    num = flat_outputs(func(up)).sub(flat_outputs(func(down))).div(2 * o.eps);
  }
  Tensor vflat = flat_outputs(v);
  const double num_s = real(vflat.conj().mul(num)).sum().item<double>();
  if (o.check_backward_ad) {
    variable_list diff_out, diff_go, diff_in;
    for (size_t t = 0; t < outputs.size(); ++t)
      if (outputs[t].defined() && outputs[t].requires_grad()) {
        diff_out.push_back(outputs[t]);
        diff_go.push_back(v[t]);
      }
    for (size_t i : diff) diff_in.push_back(inputs[i]);
    double ana = 0;
    if (!diff_out.empty()) {
      variable_list g = grad(diff_out, diff_in, diff_go, true, false, true);
      for (size_t d = 0; d < diff.size(); ++d)
        if (g[d].defined()) ana += pair_real(g[d], u[diff[d]]);
    }
    if (!close(ana, num_s, o))
      throw CheckFailure{ember::detail::str_cat("Backward-mode gradient mismatch (fast mode): v^T J u numerical ", num_s,
                                         ", analytical ", ana)};
  }
  if (o.check_forward_ad) {
    forward_ad::dual_level level;
    variable_list duals = detached(inputs);
    for (size_t i : diff) duals[i] = forward_ad::make_dual(inputs[i].detach(), u[i]);
    variable_list out = func(duals);
    variable_list tangents;
    for (const Tensor& t : out) {
      Tensor tg = forward_ad::unpack_dual(t).tangent;
      tangents.push_back(tg.defined() ? tg : zeros_like(t));
    }
    const double ana = real(vflat.conj().mul(flat_outputs(tangents))).sum().item<double>();
    if (!close(ana, num_s, o))
      throw CheckFailure{ember::detail::str_cat("Forward-mode gradient mismatch (fast mode): v^T J u numerical ", num_s,
                                         ", analytical ", ana)};
  }
}

}  // namespace

bool gradcheck(const Fn& func, const variable_list& inputs, const GradcheckOptions& options) {
  bool any = false;
  for (const Tensor& t : inputs) {
    if (!t.defined() || !t.requires_grad()) continue;
    any = true;
    if (t.scalar_type() != kDouble && t.scalar_type() != kComplexDouble)
      std::fprintf(stderr, "gradcheck: input of dtype %s is not double precision; the check may fail\n",
                   std::string(to_string(t.scalar_type())).c_str());
  }
  EMBER_CHECK(any, "gradcheck expects at least one input tensor to require gradient, but none of the them have "
              "requires_grad=True.");
  try {
    if (options.fast_mode) check_fast(func, inputs, options);
    else check_slow(func, inputs, options);
  } catch (const CheckFailure& f) {
    if (options.raise_exception) EMBER_ERROR("gradcheck: ", f.message);
    return false;
  }
  return true;
}

bool gradgradcheck(const Fn& func, const variable_list& inputs, const variable_list& grad_outputs,
                   const GradcheckOptions& options) {
  variable_list outputs;
  {
    AutoGradMode enable(true);
    outputs = func(inputs);
  }
  variable_list go = grad_outputs;
  if (go.empty())
    for (const Tensor& o : outputs)
      go.push_back(randn(o.sizes(), dtype(o.scalar_type())).requires_grad_(true));
  check_v(go, outputs, "gradgradcheck", "grad_outputs");
  const size_t n_in = inputs.size();
  std::vector<bool> needs(n_in);
  for (size_t i = 0; i < n_in; ++i) needs[i] = inputs[i].requires_grad();
  Fn first_derivative = [&func, n_in, needs](const variable_list& all) {
    variable_list in(all.begin(), all.begin() + int64_t(n_in)), g(all.begin() + int64_t(n_in), all.end());
    AutoGradMode enable(true);
    // The finite differences and the forward-mode check call this with gradcheck's own
    // detached copies or duals: mark them (in place, keeping a dual's tangent).
    for (size_t i = 0; i < n_in; ++i)
      if (needs[i] && !in[i].requires_grad()) in[i].requires_grad_(true);
    variable_list out = func(in);
    variable_list diff_out, diff_go, diff_in;
    for (size_t t = 0; t < out.size(); ++t)
      if (out[t].requires_grad()) {
        diff_out.push_back(out[t]);
        diff_go.push_back(g[t]);
      }
    for (const Tensor& t : in)
      if (t.requires_grad()) diff_in.push_back(t);
    if (diff_out.empty()) return variable_list{};
    variable_list r = grad(diff_out, diff_in, diff_go, true, /*create_graph=*/true, /*allow_unused=*/true);
    variable_list defined;
    for (const Tensor& t : r)
      if (t.defined()) defined.push_back(t);
    return defined;
  };
  variable_list all = inputs;
  all.insert(all.end(), go.begin(), go.end());
  return gradcheck(first_derivative, all, options);
}

}  // namespace ember::autograd
