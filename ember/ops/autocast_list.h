// The autocast lists: for every op that autocast touches, its policy per device type, in one
// table (Note [Autocast] in ember/ops/autocast.h says what each policy does). An op's entry
// (OpInfo::autocast) and the composite ops' EMBER_AUTOCAST(name, ...) read their policies
// from here by name, at compile time: a name missing from the table does not compile, and no
// call site spells a policy. tests/amp/autocast_lists_test.cpp checks the CPU column against
// what PyTorch 1.13 itself does (tests/golden/autocast_lists.json).
//
// Names are ATen's, without the overload (conv2d covers conv2d.padding). The CPU column is
// PyTorch 1.13's AutocastCPU list; the CUDA column its Autocast (CUDA) list
// (aten/src/ATen/autocast_mode.cpp: lower_precision_fp, fp32, fp32_set_opt_dtype as Float32,
// promote), read by the CUDA backend once it exists. Under CUDA autocast PyTorch refuses
// binary_cross_entropy outright; the CUDA backend must raise there (its column says Float32
// only as a placeholder). Ops only CUDA lists (exp, log, softmax, ...) are listed too, so
// that adding CUDA kernels changes no call site.
#pragma once
#include <array>
#include <string_view>

#include "ember/core/device.h"

namespace ember {

enum class AutocastPolicy : uint8_t {
  None,            // not affected by autocast
  LowerPrecision,  // runs in the autocast dtype (matmul, conv)
  Float32,         // runs in float32 (losses, linalg decompositions, 3-d pooling)
  Promote,         // runs in the widest input dtype (cat, stack, index_copy)
};

// An op's policy on each device type.
struct AutocastPolicies {
  AutocastPolicy cpu = AutocastPolicy::None;
  AutocastPolicy cuda = AutocastPolicy::None;
  constexpr AutocastPolicy on(DeviceType d) const {
    return d == DeviceType::CPU ? cpu : d == DeviceType::CUDA ? cuda : AutocastPolicy::None;
  }
  constexpr bool any() const { return cpu != AutocastPolicy::None || cuda != AutocastPolicy::None; }
  constexpr bool operator==(const AutocastPolicies&) const = default;
};

// _(name, CPU policy, CUDA policy); L = LowerPrecision, F = Float32, P = Promote, N = None.
#define EMBER_AUTOCAST_LIST(_)                                                            \
  /* matrix products and convolutions */                                                 \
  _(mm, L, L) _(bmm, L, L) _(addmm, L, L) _(baddbmm, L, L) _(addbmm, L, L) _(matmul, L, L) \
  _(linear, L, L) _(conv1d, L, L) _(conv2d, L, L) _(conv3d, L, L) _(prelu, N, L)         \
  _(conv_transpose1d, F, L) _(conv_transpose2d, F, L) _(conv_transpose3d, F, L)          \
  _(addmv, N, L) _(addr, N, L) _(mv, N, L) _(einsum, N, L) _(chain_matmul, N, L)         \
  _(linalg_multi_dot, N, L) _(lstm_cell, N, L) _(gru_cell, N, L) _(rnn_tanh_cell, N, L)  \
  _(rnn_relu_cell, N, L)                                                                 \
  /* losses */                                                                           \
  _(mse_loss, F, F) _(l1_loss, F, F) _(smooth_l1_loss, F, F) _(huber_loss, F, F)        \
  _(nll_loss, F, F) _(cross_entropy_loss, F, N) _(binary_cross_entropy, F, F)           \
  _(binary_cross_entropy_with_logits, F, F) _(kl_div, F, F) _(soft_margin_loss, F, F)    \
  _(multi_margin_loss, F, F) _(multilabel_margin_loss, F, F) _(poisson_nll_loss, F, F)   \
  _(margin_ranking_loss, F, F) _(hinge_embedding_loss, F, F)                             \
  _(cosine_embedding_loss, F, F) _(triplet_margin_loss, F, F) _(ctc_loss, F, N)          \
  /* pooling, padding, sampling */                                                       \
  _(avg_pool3d, F, N) _(max_pool3d, F, N) _(adaptive_avg_pool3d, F, N)                   \
  _(adaptive_max_pool3d, F, N) _(max_unpool2d, F, N) _(max_unpool3d, F, N)               \
  _(reflection_pad1d, F, N) _(reflection_pad2d, F, N) _(replication_pad1d, F, N)         \
  _(replication_pad2d, F, N) _(replication_pad3d, F, N) _(grid_sampler, F, P)            \
  /* linear algebra */                                                                   \
  _(trace, F, N) _(cdist, F, F) _(pinverse, F, N) _(inverse, F, N) _(linalg_inv, F, N)   \
  _(cholesky, F, N) _(linalg_cholesky, F, N) _(linalg_solve, F, N) _(lu_solve, F, N)     \
  _(linalg_lstsq, F, N) _(linalg_qr, F, N) _(linalg_svd, F, N) _(linalg_svdvals, F, N)   \
  _(linalg_eig, F, N) _(linalg_eigh, F, N) _(linalg_householder_product, F, N)           \
  _(geqrf, F, N) _(linalg_matrix_norm, F, F) _(linalg_vector_norm, N, F)                 \
  _(linalg_eigvals, F, N) _(linalg_eigvalsh, F, N) _(orgqr, F, N) _(cholesky_inverse, F, N) \
  _(cholesky_solve, F, N) _(linalg_cholesky_ex, F, N) _(linalg_inv_ex, F, N)             \
  _(linalg_tensorinv, F, N) _(linalg_tensorsolve, F, N) _(qr, F, N) _(svd, F, N)         \
  _(triangular_solve, F, N) _(nll_loss2d, F, F) _(grid_sampler_2d, F, N)                 \
  _(grid_sampler_3d, F, N)                                                               \
  /* fft, complex, reductions */                                                         \
  _(fft_fft, F, N) _(fft_ifft, F, N) _(fft_fft2, F, N) _(fft_ifft2, F, N)                \
  _(fft_fftn, F, N) _(fft_ifftn, F, N) _(fft_rfft, F, N) _(fft_irfft, F, N)              \
  _(fft_rfft2, F, N) _(fft_irfft2, F, N) _(fft_rfftn, F, N) _(fft_irfftn, F, N)          \
  _(fft_hfft, F, N) _(fft_ihfft, F, N) _(stft, F, N) _(view_as_complex, F, N)            \
  _(polar, F, N) _(prod, F, F) _(quantile, F, N) _(nanquantile, F, N)                    \
  _(sum, N, F) _(cumsum, N, F) _(cumprod, N, F) _(softmax, N, F) _(log_softmax, N, F)    \
  _(logsumexp, N, F)                                                                     \
  /* pointwise (CUDA only) and normalization */                                          \
  _(acos, N, F) _(asin, N, F) _(cosh, N, F) _(erfinv, N, F) _(exp, N, F) _(expm1, N, F)  \
  _(log, N, F) _(log10, N, F) _(log2, N, F) _(log1p, N, F) _(reciprocal, N, F)           \
  _(rsqrt, N, F) _(sinh, N, F) _(tan, N, F) _(pow, N, F) _(softplus, N, F)               \
  _(layer_norm, N, F) _(group_norm, N, F) _(cosine_similarity, N, F) _(dist, N, F)       \
  _(pdist, N, F) _(renorm, N, F)                                                         \
  /* promote */                                                                          \
  _(cat, P, N) _(stack, P, N) _(index_copy, P, N) _(addcdiv, N, P) _(addcmul, N, P)      \
  _(atan2, N, P) _(bilinear, N, P) _(cross, N, P) _(dot, N, P) _(index_put, N, P)        \
  _(tensordot, N, P) _(scatter_add, N, P)

namespace autocast {

struct ListEntry {
  std::string_view name;
  AutocastPolicies policies;
};

namespace list_detail {
constexpr AutocastPolicy L = AutocastPolicy::LowerPrecision, F = AutocastPolicy::Float32,
                         P = AutocastPolicy::Promote, N = AutocastPolicy::None;
#define EMBER_AUTOCAST_ENTRY_(name, cpu, cuda) ListEntry{#name, AutocastPolicies{cpu, cuda}},
inline constexpr auto kList = std::to_array<ListEntry>({EMBER_AUTOCAST_LIST(EMBER_AUTOCAST_ENTRY_)});
#undef EMBER_AUTOCAST_ENTRY_
}  // namespace list_detail

// Every entry, in table order (the tests walk it).
constexpr const auto& list() { return list_detail::kList; }

// The policies of the op `name`, at compile time: a name not in the table does not compile.
consteval AutocastPolicies policies(std::string_view name) {
  for (const ListEntry& e : list_detail::kList)
    if (e.name == name) return e.policies;
  throw "ember: op missing from EMBER_AUTOCAST_LIST (ember/ops/autocast_list.h)";
}

// The entry of `name` at run time, or nullptr.
constexpr const ListEntry* find(std::string_view name) {
  for (const ListEntry& e : list_detail::kList)
    if (e.name == name) return &e;
  return nullptr;
}

// The policies of `name`; None on every device when the list does not name it.
constexpr AutocastPolicies find_policies(std::string_view name) {
  const ListEntry* e = find(name);
  return e ? e->policies : AutocastPolicies{};
}

namespace list_detail {
constexpr bool names_unique() {
  for (size_t i = 0; i < kList.size(); ++i)
    for (size_t j = i + 1; j < kList.size(); ++j)
      if (kList[i].name == kList[j].name) return false;
  return true;
}
static_assert(names_unique(), "EMBER_AUTOCAST_LIST names an op twice");
// Ops that share one implementation (and so one EMBER_AUTOCAST name) must share policies.
static_assert(policies("reflection_pad1d") == policies("replication_pad1d") &&
                  policies("reflection_pad2d") == policies("replication_pad1d") &&
                  policies("replication_pad2d") == policies("replication_pad1d") &&
                  policies("replication_pad3d") == policies("replication_pad1d"),
              "the padding modes run through one EMBER_AUTOCAST(replication_pad1d)");
static_assert(policies("inverse") == policies("linalg_inv") && policies("cholesky") == policies("linalg_cholesky"),
              "inverse/cholesky and their linalg forms share one implementation");
// Entries without a call site of their own: ember runs them through another entry's
// implementation, whose policies they must equal.
static_assert(policies("linalg_eigvals") == policies("linalg_eig") &&
                  policies("linalg_eigvalsh") == policies("linalg_eigh") &&
                  policies("orgqr") == policies("linalg_householder_product") &&
                  policies("linalg_cholesky_ex") == policies("linalg_cholesky") &&
                  policies("linalg_inv_ex") == policies("linalg_inv") && policies("qr") == policies("linalg_qr") &&
                  policies("svd") == policies("linalg_svd") && policies("nll_loss2d") == policies("nll_loss"),
              "an op and the entry whose implementation it shares have one policy");
}  // namespace list_detail

}  // namespace autocast
}  // namespace ember
