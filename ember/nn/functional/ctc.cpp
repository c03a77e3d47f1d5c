#include "ember/nn/functional/ctc.h"

#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"

namespace ember::nn {

namespace functional {

namespace {

std::vector<int64_t> to_vector(const Tensor& t, const char* what) {
  EMBER_CHECK(t.defined() && !t.is_floating_point() && !t.is_complex() && t.dim() <= 1, "ctc_loss: ", what,
              " must be an integer tensor of at most 1 dimension, got ",
              t.defined() ? t.toString() : std::string("an undefined tensor"));
  const Tensor c = t.to(kCPU, kLong).contiguous();  // read on the host
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

// A bool tensor of `shape` from row-major flags.
Tensor mask(const std::vector<uint8_t>& flags, IntArrayRef shape) {
  return from_blob(const_cast<uint8_t*>(flags.data()), shape, TensorOptions().dtype(kByte)).to(kBool);
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths_in,
                IntArrayRef target_lengths_in, int64_t blank, Reduction reduction, bool zero_infinity) {
  EMBER_AUTOCAST(ctc_loss,
                 ctc_loss(_ac[0], targets, input_lengths_in, target_lengths_in, blank, reduction, zero_infinity),
                 &log_probs);
  EMBER_CHECK(log_probs.dim() == 3 || log_probs.dim() == 2, "ctc_loss: log_probs must be (T, N, C) or (T, C), got ",
              log_probs.sizes());
  EMBER_CHECK(log_probs.is_floating_point(), "ctc_loss: log_probs must be floating point, got ",
              log_probs.scalar_type());
  // Reduced-precision inputs compute in float32 (the unreachable sentinel needs its range).
  const bool reduced = log_probs.scalar_type() == kHalf || log_probs.scalar_type() == kBFloat16;
  if (reduced)
    return ctc_loss(log_probs.to(kFloat), targets, input_lengths_in, target_lengths_in, blank, reduction, zero_infinity)
        .to(log_probs.scalar_type());
  const bool unbatched = log_probs.dim() == 2;
  const Tensor lp = unbatched ? log_probs.unsqueeze(1) : log_probs;
  const int64_t T = lp.size(0), N = lp.size(1), C = lp.size(2);
  EMBER_CHECK(blank >= 0 && blank < C, "ctc_loss: blank must be in label range [0, ", C, "), got ", blank);
  const std::vector<int64_t> in_len(input_lengths_in.begin(), input_lengths_in.end()),
      tg_len(target_lengths_in.begin(), target_lengths_in.end());
  EMBER_CHECK(int64_t(in_len.size()) == N, "ctc_loss: expected input_lengths to have value for ", N,
              " batch entries, got ", in_len.size());
  EMBER_CHECK(int64_t(tg_len.size()) == N, "ctc_loss: expected target_lengths to have value for ", N,
              " batch entries, got ", tg_len.size());
  // Targets as an (N, S) table, from the padded or the concatenated form.
  const Tensor tg = targets.to(kCPU, kLong).contiguous();
  int64_t S = 0;
  for (int64_t n = 0; n < N; ++n) {
    EMBER_CHECK(in_len[size_t(n)] >= 0 && in_len[size_t(n)] <= T, "ctc_loss: Expected input_lengths to have value at "
                "most ", T, ", but got value ", in_len[size_t(n)], " (batch entry ", n, ")");
    EMBER_CHECK(tg_len[size_t(n)] >= 0, "ctc_loss: target_lengths must be non-negative, got ", tg_len[size_t(n)]);
    S = std::max(S, tg_len[size_t(n)]);
  }
  std::vector<int64_t> table(size_t(N * S), blank);
  const int64_t* tp = tg.data_ptr<int64_t>();
  if (tg.dim() == 1 && !unbatched) {  // concatenated
    int64_t offset = 0;
    for (int64_t n = 0; n < N; ++n) {
      EMBER_CHECK(offset + tg_len[size_t(n)] <= tg.numel(), "ctc_loss: the targets hold ", tg.numel(),
                  " labels, fewer than the target lengths add up to");
      for (int64_t s = 0; s < tg_len[size_t(n)]; ++s) table[size_t(n * S + s)] = tp[offset + s];
      offset += tg_len[size_t(n)];
    }
  } else {
    const Tensor t2 = tg.dim() == 1 ? tg.unsqueeze(0) : tg;
    EMBER_CHECK(t2.dim() == 2 && t2.size(0) == N, "ctc_loss: targets must be (N, S) or 1-D, got ", targets.sizes());
    for (int64_t n = 0; n < N; ++n) {
      EMBER_CHECK(tg_len[size_t(n)] <= t2.size(1), "ctc_loss: Expected tensor to have size at least ",
                  tg_len[size_t(n)], " at dimension 1, but got size ", t2.size(1), " for argument #2 'targets'");
      for (int64_t s = 0; s < tg_len[size_t(n)]; ++s) table[size_t(n * S + s)] = tp[n * t2.size(1) + s];
    }
  }
  for (int64_t n = 0; n < N; ++n)
    for (int64_t s = 0; s < tg_len[size_t(n)]; ++s) {
      const int64_t l = table[size_t(n * S + s)];
      EMBER_CHECK(l >= 0 && l < C && l != blank, "ctc_loss: target label ", l, " (batch entry ", n,
                  ") must be in [0, ", C, ") and differ from the blank ", blank);
    }

  // Extended labels: blank, l1, blank, l2, ..., blank (L = 2S + 1); skip transitions s-2 -> s
  // where l'_s is a label different from l'_{s-2}.
  const int64_t L = 2 * S + 1;
  std::vector<int64_t> ext(size_t(N * L), blank);
  std::vector<uint8_t> skip(size_t(N * L), 0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t s = 1; s < L; s += 2) {
      ext[size_t(n * L + s)] = table[size_t(n * S + s / 2)];
      if (s >= 3 && ext[size_t(n * L + s)] != ext[size_t(n * L + s - 2)]) skip[size_t(n * L + s)] = 1;
    }
  const TensorOptions lo = TensorOptions().dtype(kLong);
  const Tensor ext_t = from_blob(ext.data(), {N, L}, lo).clone();
  const Tensor skip_t = mask(skip, {N, L});
  // Log probabilities of the extended labels: (T, N, L).
  const Tensor lpe = lp.gather(2, ext_t.unsqueeze(0).expand({T, N, L}));
  // Far below any reachable path, finite so that gradients stay finite.
  const double kUnreachable = -1e30;
  const Tensor neg = full({N, 1}, kUnreachable, lp.options());
  const Tensor neg2 = full({N, 2}, kUnreachable, lp.options());
  // t = 0: only the first blank and the first label are reachable.
  const Tensor start = full({N, L}, kUnreachable, lp.options());
  std::vector<uint8_t> first(size_t(N * L), 0);
  for (int64_t n = 0; n < N; ++n) {
    first[size_t(n * L)] = 1;
    if (L > 1 && tg_len[size_t(n)] > 0) first[size_t(n * L + 1)] = 1;
  }
  const Tensor first_t = mask(first, {N, L});
  Tensor alpha = where(first_t, lpe[0], start);
  std::vector<uint8_t> active = std::vector<uint8_t>(size_t(N));
  for (int64_t t = 1; t < T; ++t) {
    for (int64_t n = 0; n < N; ++n) active[size_t(n)] = t < in_len[size_t(n)];
    const Tensor a1 = cat({neg, alpha.narrow(1, 0, L - 1)}, 1);
    const Tensor a2 = L > 2 ? where(skip_t, cat({neg2, alpha.narrow(1, 0, L - 2)}, 1), full_like(alpha, kUnreachable))
                            : full_like(alpha, kUnreachable);
    const Tensor next = logsumexp(stack({alpha, a1, a2}), {0}).add(lpe[t]);
    alpha = where(mask(active, {N, 1}), next, alpha);
  }
  // The loss: -log(alpha[T_n - 1, 2 S_n] + alpha[T_n - 1, 2 S_n - 1]).
  std::vector<int64_t> last(size_t(N * 2));
  for (int64_t n = 0; n < N; ++n) {
    last[size_t(2 * n)] = 2 * tg_len[size_t(n)];
    last[size_t(2 * n + 1)] = std::max<int64_t>(2 * tg_len[size_t(n)] - 1, 0);
  }
  const Tensor last_t = from_blob(last.data(), {N, 2}, lo).clone();
  Tensor ends = alpha.gather(1, last_t);
  std::vector<uint8_t> single = std::vector<uint8_t>(size_t(N));  // target length 0: only the blank path
  for (int64_t n = 0; n < N; ++n) single[size_t(n)] = tg_len[size_t(n)] == 0;
  ends = where(cat({zeros({N, 1}, kBool), mask(single, {N, 1})}, 1), full_like(ends, kUnreachable), ends);
  Tensor loss = logsumexp(ends, {1}).neg();
  std::vector<uint8_t> zero_input = std::vector<uint8_t>(size_t(N));  // T_n = 0: no path at all
  for (int64_t n = 0; n < N; ++n) zero_input[size_t(n)] = in_len[size_t(n)] == 0 && tg_len[size_t(n)] > 0;
  const Tensor infeasible = loss.gt(-kUnreachable / 2).logical_or(mask(zero_input, {N}));
  loss = where(infeasible, full_like(loss, zero_infinity ? 0.0 : std::numeric_limits<double>::infinity()), loss);
  switch (reduction) {
    case Reduction::None: return unbatched ? loss.squeeze(0) : loss;
    case Reduction::Sum: return loss.sum();
    default: {
      std::vector<double> lens(tg_len.begin(), tg_len.end());
      for (double& v : lens) v = std::max(v, 1.0);
      const Tensor denom = from_blob(lens.data(), {N}, TensorOptions().dtype(kDouble)).clone().to(loss.scalar_type());
      return loss.div(denom).mean();
    }
  }
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, Reduction reduction, bool zero_infinity) {
  return ctc_loss(log_probs, targets, to_vector(input_lengths, "input_lengths"),
                  to_vector(target_lengths, "target_lengths"), blank, reduction, zero_infinity);
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& o) {
  return ctc_loss(log_probs, targets, input_lengths, target_lengths, o.blank(), o.reduction(), o.zero_infinity());
}

}  // namespace functional

}  // namespace ember::nn
