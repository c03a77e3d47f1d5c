// PyTorch 1.13's CPU autocast lists (lower_precision_fp, fp32, promote), op by op, against
// what torch itself does: tests/golden/autocast_lists.json, written by
// tests/golden/gen_autocast_lists.py under torch.autocast("cpu", dtype=torch.bfloat16). For
// every recorded case and input combination (float32, bfloat16, mixed) each of ember's call
// paths (ATen positional, nn::functional, module, Tensor method) must give torch's dtypes and
// values; then gradients through list ops reach float32 leaves in float32, each input is cast
// once, and the JSON's coverage of the lists is checked against the registry below.
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "test_util.h"
#include "ember/ops/op_def.h"

namespace ember {
namespace {

namespace F = nn::functional;
using test::Json;
using In = std::vector<Tensor>;
using Out = std::vector<Tensor>;
using PathFn = std::function<Out(const In&)>;

struct Path {
  std::string label;  // which entry point: "aten", "functional", "module", "method", ...
  PathFn fn;
};

const Json& golden() { return Json::golden("autocast_lists.json"); }

template <class... T>
Out outs(const std::tuple<T...>& t) {
  return std::apply([](const auto&... x) { return Out{x...}; }, t);
}

// Module paths copy the case's tensors into the module's parameters (plain assignment: the
// forward reads the members).
template <class M>
M with_params(M m, const Tensor& weight, const Tensor& bias = {}) {
  m->weight = weight;
  if (bias.defined()) m->bias = bias;
  return m;
}

// A recurrent cell holding the case's weight_ih, weight_hh, bias_ih, bias_hh (from x[first]).
template <class M>
M with_cell_params(M m, const In& x, size_t first) {
  m->weight_ih = x[first];
  m->weight_hh = x[first + 1];
  m->bias_ih = x[first + 2];
  m->bias_hh = x[first + 3];
  return m;
}

std::vector<int64_t> ints(std::initializer_list<int64_t> v) { return v; }

// Every case of the JSON, by name, with ember's ways of calling it (x: the case's inputs).
#define P(label, ...) Path{label, [](const In& x) -> Out { return Out{__VA_ARGS__}; }}
#define PT(label, ...) Path{label, [](const In& x) -> Out { return outs(__VA_ARGS__); }}
const std::map<std::string, std::vector<Path>>& registry() {
  static const std::map<std::string, std::vector<Path>> r = {
      // ---- lower_precision_fp
      {"mm", {P("aten", mm(x[0], x[1])), P("method", x[0].mm(x[1]))}},
      {"bmm", {P("aten", bmm(x[0], x[1])), P("method", x[0].bmm(x[1]))}},
      {"addmm", {P("aten", addmm(x[0], x[1], x[2], 0.5, 2.0)), P("method", x[0].addmm(x[1], x[2], 0.5, 2.0))}},
      {"baddbmm", {P("aten", baddbmm(x[0], x[1], x[2], 0.5, 2.0))}},
      {"addbmm", {P("aten", addbmm(x[0], x[1], x[2], 0.5, 2.0))}},
      {"matmul", {P("aten", matmul(x[0], x[1])), P("linalg", linalg::matmul(x[0], x[1])),
                  P("method", x[0].matmul(x[1]))}},
      {"matmul_vec", {P("aten", matmul(x[0], x[1]))}},
      {"linear", {P("functional", F::linear(x[0], x[1], x[2])), P("aten", ember::linear(x[0], x[1], x[2])),
                  P("module", with_params(nn::Linear(4, 5), x[1], x[2])(x[0]))}},
      {"conv1d", {P("functional", F::conv1d(x[0], x[1], x[2], {2}, 1)), P("aten", ember::conv1d(x[0], x[1], x[2], 2, 1)),
                  P("module", with_params(nn::Conv1d(nn::Conv1dOptions(2, 3, 3).stride(2).padding(1)), x[1],
                                          x[2])(x[0]))}},
      {"conv2d", {P("functional", F::conv2d(x[0], x[1], x[2], {1, 1}, 1)),
                  P("aten", ember::conv2d(x[0], x[1], x[2], 1, 1)),
                  P("module", with_params(nn::Conv2d(nn::Conv2dOptions(2, 3, 3).padding(1)), x[1], x[2])(x[0]))}},
      {"conv2d_same", {P("functional", F::conv2d(x[0], x[1], x[2], {1, 1}, "same")),
                       P("module", with_params(nn::Conv2d(nn::Conv2dOptions(2, 3, 3).padding("same")), x[1],
                                               x[2])(x[0]))}},
      {"conv3d", {P("functional", F::conv3d(x[0], x[1], x[2])), P("aten", ember::conv3d(x[0], x[1], x[2])),
                  P("module", with_params(nn::Conv3d(nn::Conv3dOptions(2, 3, 2)), x[1], x[2])(x[0]))}},
      {"conv2d_reflect",
       {P("functional", F::conv2d(pad_nd(x[0], {1, 1, 1, 1}, PadMode::Reflect), x[1], x[2])),
        P("module", with_params(nn::Conv2d(nn::Conv2dOptions(2, 3, 3).padding(1).padding_mode("reflect")), x[1],
                                x[2])(x[0]))}},
      // ---- fp32
      {"conv_transpose1d",
       {P("functional", F::conv_transpose1d(x[0], x[1], x[2], {2})),
        P("module", with_params(nn::ConvTranspose1d(nn::ConvTranspose1dOptions(2, 3, 3).stride(2)), x[1], x[2])(x[0]))}},
      {"conv_transpose2d",
       {P("functional", F::conv_transpose2d(x[0], x[1], x[2], {2}, {1}, {1})),
        P("aten", ember::conv_transpose2d(x[0], x[1], x[2], 2, 1, 1)),
        P("module", with_params(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(2, 3, 3).stride(2).padding(1)
                                                        .output_padding(1)),
                                x[1], x[2])(x[0]))}},
      {"conv_transpose3d",
       {P("functional", F::conv_transpose3d(x[0], x[1], x[2])),
        P("module", with_params(nn::ConvTranspose3d(nn::ConvTranspose3dOptions(2, 3, 2)), x[1], x[2])(x[0]))}},
      {"prod", {P("aten", prod(x[0])), P("method", x[0].prod())}},
      {"prod_dim", {P("aten", prod(x[0], 1, true)), P("method", x[0].prod(1, true))}},
      {"prod_dtype", {P("aten", prod(x[0], kDouble))}},
      {"quantile", {P("aten", quantile(x[0], 0.3, 1)), P("method", x[0].quantile(0.3, 1))}},
      {"nanquantile", {P("aten", nanquantile(x[0], x[1], 1, true)), P("method", x[0].nanquantile(x[1], 1, true))}},
      {"trace", {P("aten", trace(x[0])), P("method", x[0].trace())}},
      {"polar", {P("aten", polar(x[0], x[1]))}},
      {"view_as_complex", {P("aten", view_as_complex(x[0]))}},
      {"inverse", {P("aten", inverse(x[0])), P("method", x[0].inverse())}},
      {"linalg_inv", {P("linalg", linalg::inv(x[0]))}},
      {"cholesky", {P("aten", cholesky(x[0])), P("method", x[0].cholesky())}},
      {"linalg_cholesky", {P("linalg", linalg::cholesky(x[0], true))}},
      {"linalg_solve", {P("linalg", linalg::solve(x[0], x[1]))}},
      {"linalg_qr", {PT("linalg", linalg::qr(x[0]))}},
      {"linalg_svd", {PT("linalg", linalg::svd(x[0], false))}},
      {"linalg_svdvals", {P("linalg", linalg::svdvals(x[0]))}},
      {"linalg_eigh", {PT("linalg", linalg::eigh(x[0]))}},
      {"linalg_eigvalsh", {P("linalg", linalg::eigvalsh(x[0]))}},
      {"linalg_eig", {PT("linalg", linalg::eig(x[0]))}},
      {"linalg_eigvals", {P("linalg", linalg::eigvals(x[0]))}},
      {"geqrf", {PT("aten", geqrf(x[0]))}},
      {"linalg_householder_product", {P("linalg", linalg::householder_product(x[0], x[1]))}},
      {"orgqr", {P("aten", orgqr(x[0], x[1]))}},
      {"linalg_lstsq", {PT("linalg", linalg::lstsq(x[0], x[1]))}},
      {"lu_solve", {P("aten", lu_solve(x[0], x[1], x[2])), P("method", x[0].lu_solve(x[1], x[2]))}},
      {"cholesky_inverse", {P("aten", cholesky_inverse(x[0]))}},
      {"cholesky_solve", {P("aten", cholesky_solve(x[0], x[1]))}},
      {"triangular_solve", {PT("aten", triangular_solve(x[0], x[1]))}},
      {"linalg_cholesky_ex", {PT("linalg", linalg::cholesky_ex(x[0]))}},
      {"linalg_inv_ex", {PT("linalg", linalg::inv_ex(x[0]))}},
      {"linalg_tensorinv", {P("linalg", linalg::tensorinv(x[0], 1))}},
      {"linalg_tensorsolve", {P("linalg", linalg::tensorsolve(x[0], x[1]))}},
      {"pinverse", {P("aten", pinverse(x[0]))}},
      {"qr", {PT("aten", qr(x[0]))}},
      {"svd", {PT("aten", svd(x[0]))}},
      {"cdist", {P("aten", cdist(x[0], x[1]))}},
      {"stft", {P("aten", stft(x[0], 8, 2, std::nullopt, {}, /*center=*/false, "reflect", false, std::nullopt, true))}},
      {"stft_center", {P("aten", stft(x[0], 8, 2, std::nullopt, {}, /*center=*/true, "reflect", false, std::nullopt, true))}},
      {"fft_fft", {P("fft", fft::fft(x[0]))}},
      {"fft_ifft", {P("fft", fft::ifft(x[0]))}},
      {"fft_rfft", {P("fft", fft::rfft(x[0]))}},
      {"fft_irfft", {P("fft", fft::irfft(x[0]))}},
      {"fft_hfft", {P("fft", fft::hfft(x[0]))}},
      {"fft_ihfft", {P("fft", fft::ihfft(x[0]))}},
      {"fft_fft2", {P("fft", fft::fft2(x[0]))}},
      {"fft_ifft2", {P("fft", fft::ifft2(x[0]))}},
      {"fft_rfft2", {P("fft", fft::rfft2(x[0]))}},
      {"fft_irfft2", {P("fft", fft::irfft2(x[0]))}},
      {"fft_fftn", {P("fft", fft::fftn(x[0]))}},
      {"fft_ifftn", {P("fft", fft::ifftn(x[0]))}},
      {"fft_rfftn", {P("fft", fft::rfftn(x[0]))}},
      {"fft_irfftn", {P("fft", fft::irfftn(x[0]))}},
      {"matrix_norm_fro", {P("linalg", linalg::matrix_norm(x[0]))}},
      {"matrix_norm_nuc", {P("linalg", linalg::matrix_norm(x[0], "nuc"))}},
      {"matrix_norm_inf", {P("linalg", linalg::matrix_norm(x[0], Scalar(INFINITY)))}},
      {"matrix_norm_2", {P("linalg", linalg::matrix_norm(x[0], Scalar(2)))}},
      {"linalg_norm_matrix", {P("linalg", linalg::norm(x[0], Scalar(1)))}},
      {"max_pool3d", {P("aten", max_pool3d(x[0], {2})), P("functional", F::max_pool3d(x[0], F::MaxPool3dFuncOptions(2))),
                      P("module", nn::MaxPool3d(nn::MaxPool3dOptions(2))(x[0]))}},
      {"avg_pool3d", {P("aten", avg_pool3d(x[0], {2}, {1}, {1})),
                      P("functional", F::avg_pool3d(x[0], F::AvgPool3dFuncOptions(2).stride(1).padding(1))),
                      P("module", nn::AvgPool3d(nn::AvgPool3dOptions(2).stride(1).padding(1))(x[0]))}},
      {"adaptive_avg_pool3d",
       {P("aten", adaptive_avg_pool3d(x[0], {2, 3, 2})),
        P("functional", F::adaptive_avg_pool3d(x[0], F::AdaptiveAvgPool3dFuncOptions({2, 3, 2}))),
        P("module", nn::AdaptiveAvgPool3d(nn::AdaptiveAvgPool3dOptions({2, 3, 2}))(x[0]))}},
      {"adaptive_max_pool3d",
       {PT("aten", adaptive_max_pool3d(x[0], {2, 3, 2})),
        P("functional", F::adaptive_max_pool3d(x[0], F::AdaptiveMaxPool3dFuncOptions({2, 3, 2}))),
        P("module", nn::AdaptiveMaxPool3d(nn::AdaptiveMaxPool3dOptions({2, 3, 2}))(x[0]))}},
      {"interpolate_area_3d",
       {P("functional", F::interpolate(x[0], F::InterpolateFuncOptions().size(ints({2, 3, 2})).mode(InterpolateMode::Area))),
        P("module", nn::Upsample(nn::UpsampleOptions().size(ints({2, 3, 2})).mode(InterpolateMode::Area))(x[0]))}},
      {"max_unpool1d", {P("functional", F::max_unpool1d(x[0], x[1], F::MaxUnpool1dFuncOptions(2))),
                        P("module", nn::MaxUnpool1d(nn::MaxUnpool1dOptions(2))(x[0], x[1]))}},
      {"max_unpool2d", {P("aten", max_unpool2d(x[0], x[1], {4, 4})),
                        P("functional", F::max_unpool2d(x[0], x[1], F::MaxUnpool2dFuncOptions(2))),
                        P("module", nn::MaxUnpool2d(nn::MaxUnpool2dOptions(2))(x[0], x[1]))}},
      {"max_unpool3d", {P("aten", max_unpool3d(x[0], x[1], {4, 4, 4}, {2, 2, 2}, {0, 0, 0})),
                        P("functional", F::max_unpool3d(x[0], x[1], F::MaxUnpool3dFuncOptions(2))),
                        P("module", nn::MaxUnpool3d(nn::MaxUnpool3dOptions(2))(x[0], x[1]))}},
      {"reflection_pad1d", {P("functional", F::pad(x[0], F::PadFuncOptions({2, 1}).mode(PadMode::Reflect))),
                            P("aten", ember::pad(x[0], {2, 1}, "reflect")),
                            P("module", nn::ReflectionPad1d(nn::ReflectionPad1dOptions({2, 1}))(x[0]))}},
      {"reflection_pad2d", {P("functional", F::pad(x[0], F::PadFuncOptions({1, 2, 2, 1}).mode(PadMode::Reflect))),
                            P("aten", ember::pad(x[0], {1, 2, 2, 1}, "reflect")),
                            P("module", nn::ReflectionPad2d(nn::ReflectionPad2dOptions({1, 2, 2, 1}))(x[0]))}},
      {"replication_pad1d", {P("functional", F::pad(x[0], F::PadFuncOptions({2, 1}).mode(PadMode::Replicate))),
                             P("aten", ember::pad(x[0], {2, 1}, "replicate")),
                             P("module", nn::ReplicationPad1d(nn::ReplicationPad1dOptions({2, 1}))(x[0]))}},
      {"replication_pad2d", {P("functional", F::pad(x[0], F::PadFuncOptions({1, 2, 2, 1}).mode(PadMode::Replicate))),
                             P("aten", ember::pad(x[0], {1, 2, 2, 1}, "replicate")),
                             P("module", nn::ReplicationPad2d(nn::ReplicationPad2dOptions({1, 2, 2, 1}))(x[0]))}},
      {"replication_pad3d",
       {P("functional", F::pad(x[0], F::PadFuncOptions({1, 0, 0, 1, 1, 1}).mode(PadMode::Replicate))),
        P("aten", ember::pad(x[0], {1, 0, 0, 1, 1, 1}, "replicate")),
        P("module", nn::ReplicationPad3d(nn::ReplicationPad3dOptions({1, 0, 0, 1, 1, 1}))(x[0]))}},
      {"grid_sampler_2d", {P("functional", F::grid_sample(x[0], x[1], F::GridSampleFuncOptions().align_corners(false)))}},
      {"grid_sampler_3d", {P("functional", F::grid_sample(x[0], x[1], F::GridSampleFuncOptions().align_corners(true)))}},
      {"binary_cross_entropy",
       {P("functional", F::binary_cross_entropy(x[0], x[1], F::BinaryCrossEntropyFuncOptions())),
        P("aten", ember::binary_cross_entropy(x[0], x[1])), P("module", nn::BCELoss()(x[0], x[1]))}},
      {"binary_cross_entropy_with_logits",
       {P("functional", F::binary_cross_entropy_with_logits(x[0], x[1], Tensor(), kMean, x[2])),
        P("aten", ember::binary_cross_entropy_with_logits(x[0], x[1], {}, x[2])),
        P("module", nn::BCEWithLogitsLoss(nn::BCEWithLogitsLossOptions().pos_weight(x[2]))(x[0], x[1]))}},
      {"cosine_embedding_loss", {P("functional", F::cosine_embedding_loss(x[0], x[1], x[2], 0.1))}},
      {"cross_entropy", {P("functional", F::cross_entropy(x[0], x[1], Tensor())),
                         P("aten", ember::cross_entropy_loss(x[0], x[1])),
                         P("module", nn::CrossEntropyLoss()(x[0], x[1]))}},
      {"cross_entropy_probs", {P("functional", F::cross_entropy(x[0], x[1], Tensor(), -100, kMean, 0.1))}},
      {"ctc_loss", {P("functional", F::ctc_loss(x[0], x[1], ints({6, 5}), ints({3, 2}))),
                    P("tensor lengths", F::ctc_loss(x[0], x[1], tensor({int64_t(6), int64_t(5)}),
                                                    tensor({int64_t(3), int64_t(2)}))),
                    P("module", nn::CTCLoss()(x[0], x[1], tensor({int64_t(6), int64_t(5)}),
                                              tensor({int64_t(3), int64_t(2)})))}},
      {"hinge_embedding_loss", {P("functional", F::hinge_embedding_loss(x[0], x[1], 0.5))}},
      {"huber_loss", {P("functional", F::huber_loss(x[0], x[1], kMean, 0.5)),
                      P("aten", ember::huber_loss(x[0], x[1], kMean, 0.5))}},
      {"kl_div", {P("functional", F::kl_div(x[0], x[1], kBatchMean))}},
      {"l1_loss", {P("functional", F::l1_loss(x[0], x[1], kMean)), P("aten", ember::l1_loss(x[0], x[1])),
                   P("module", nn::L1Loss()(x[0], x[1]))}},
      {"margin_ranking_loss", {P("functional", F::margin_ranking_loss(x[0], x[1], x[2], 0.2))}},
      {"mse_loss", {P("functional", F::mse_loss(x[0], x[1], kMean)), P("aten", ember::mse_loss(x[0], x[1])),
                    P("module", nn::MSELoss()(x[0], x[1]))}},
      {"multi_margin_loss", {P("functional", F::multi_margin_loss(x[0], x[1], 1, 1.0, x[2]))}},
      {"multilabel_margin_loss", {P("functional", F::multilabel_margin_loss(x[0], x[1], kMean))}},
      {"nll_loss", {P("functional", F::nll_loss(x[0], x[1], x[2])), P("aten", ember::nll_loss(x[0], x[1], x[2]))}},
      {"nll_loss2d", {P("functional", F::nll_loss(x[0], x[1], Tensor())), P("module", nn::NLLLoss()(x[0], x[1]))}},
      {"poisson_nll_loss", {P("functional", F::poisson_nll_loss(x[0], x[1], false, true))}},
      {"smooth_l1_loss", {P("functional", F::smooth_l1_loss(x[0], x[1], kMean, 0.5)),
                          P("aten", ember::smooth_l1_loss(x[0], x[1], kMean, 0.5))}},
      {"soft_margin_loss", {P("functional", F::soft_margin_loss(x[0], x[1], kMean))}},
      {"triplet_margin_loss", {P("functional", F::triplet_margin_loss(x[0], x[1], x[2], 0.5, 2.0, 1e-6, true))}},
      // ---- promote
      {"cat", {P("aten", cat({x[0], x[1]}, 1)), P("concat", concat({x[0], x[1]}, 1))}},
      {"stack", {P("aten", stack({x[0], x[1]}, 1))}},
      {"vstack", {P("aten", vstack({x[0], x[1]}))}},
      {"index_copy", {P("aten", index_copy(x[0], 0, x[1], x[2])), P("method", x[0].index_copy(0, x[1], x[2]))}},
      // ---- on no list
      {"relu", {P("aten", relu(x[0]))}},
      {"add", {P("aten", add(x[0], x[1]))}},
      {"exp", {P("aten", exp(x[0]))}},
      {"gelu", {P("aten", gelu(x[0]))}},
      {"softmax", {P("aten", softmax(x[0], 1))}},
      {"log_softmax", {P("aten", log_softmax(x[0], 1))}},
      {"sum", {P("method", x[0].sum())}},
      {"cumsum", {P("aten", cumsum(x[0], 1))}},
      {"cumprod", {P("aten", cumprod(x[0], 1))}},
      {"mean", {P("method", x[0].mean())}},
      {"var", {P("aten", var(x[0], ints({1})))}},
      {"logsumexp", {P("aten", logsumexp(x[0], {1}))}},
      {"vector_norm", {P("linalg", linalg::vector_norm(x[0]))}},
      {"linalg_norm_default", {P("linalg", linalg::norm(x[0]))}},
      {"layer_norm", {P("functional", F::layer_norm(x[0], {4}, x[1], x[2]))}},
      {"group_norm", {P("aten", group_norm(x[0], 2))}},
      {"batch_norm", {P("functional", F::batch_norm(x[0], Tensor(), Tensor(), Tensor(), Tensor(), true))}},
      {"prelu", {P("functional", F::prelu(x[0], x[1]))}},
      {"interpolate_nearest",
       {P("functional", F::interpolate(x[0], F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2})))}},
      {"interpolate_bilinear",
       {P("functional", F::interpolate(x[0], F::InterpolateFuncOptions().size(ints({5, 4})).mode(InterpolateMode::Bilinear)
                                                 .align_corners(false)))}},
      {"interpolate_area_2d",
       {P("functional", F::interpolate(x[0], F::InterpolateFuncOptions().size(ints({2, 2})).mode(InterpolateMode::Area)))}},
      {"pad_constant", {P("functional", F::pad(x[0], F::PadFuncOptions({1, 2, 0, 1}).value(0.5))),
                        P("aten", ember::pad(x[0], {1, 2, 0, 1}, "constant", 0.5))}},
      {"pad_circular", {P("functional", F::pad(x[0], F::PadFuncOptions({1, 2, 2, 1}).mode(PadMode::Circular))),
                        P("aten", ember::pad(x[0], {1, 2, 2, 1}, "circular"))}},
      {"reflection_pad3d",
       {P("functional", F::pad(x[0], F::PadFuncOptions({1, 0, 0, 1, 1, 1}).mode(PadMode::Reflect))),
        P("aten", ember::pad(x[0], {1, 0, 0, 1, 1, 1}, "reflect")),
        P("module", nn::ReflectionPad3d(nn::ReflectionPad3dOptions({1, 0, 0, 1, 1, 1}))(x[0]))}},
      {"max_pool2d", {P("aten", max_pool2d(x[0], {2}))}},
      {"avg_pool2d", {P("aten", avg_pool2d(x[0], {2}))}},
      {"adaptive_avg_pool2d", {P("aten", adaptive_avg_pool2d(x[0], {3, 3}))}},
      {"adaptive_max_pool2d", {P("functional", F::adaptive_max_pool2d(x[0], F::AdaptiveMaxPool2dFuncOptions(3)))}},
      {"gaussian_nll_loss", {P("functional", F::gaussian_nll_loss(x[0], x[1], x[2]))}},
      {"multilabel_soft_margin_loss", {P("functional", F::multilabel_soft_margin_loss(x[0], x[1], Tensor()))}},
      {"pairwise_distance", {P("functional", F::pairwise_distance(x[0], x[1], 2.0))}},
      {"cosine_similarity", {P("functional", F::cosine_similarity(x[0], x[1], 1))}},
      {"mv", {P("aten", mv(x[0], x[1]))}},
      {"dot", {P("aten", dot(x[0], x[1]))}},
      {"outer", {P("aten", outer(x[0], x[1]))}},
      // ---- built on list ops
      {"einsum", {P("aten", einsum("bij,bjk->bik", {x[0], x[1]})),
                  P("with grad", einsum("bij,bjk->bik", {x[0].detach().requires_grad_(true), x[1]}).detach())}},
      {"einsum_elementwise", {P("aten", einsum("ij,ij->ij", {x[0], x[1]}))}},
      {"tensordot", {P("aten", tensordot(x[0], x[1], {1}, {0}))}},
      {"affine_grid", {P("functional", F::affine_grid(x[0], {1, 1, 3, 4}, false))}},
      {"bilinear", {P("functional", F::bilinear(x[0], x[1], x[2], x[3])),
                    P("module", [&] {
                      nn::Bilinear m(3, 4, 5);
                      m->weight = x[2];
                      m->bias = x[3];
                      return m(x[0], x[1]);
                    }())}},
      {"scaled_dot_product_attention", {P("functional", F::scaled_dot_product_attention(x[0], x[1], x[2]))}},
      {"multi_head_attention_forward",
       {PT("functional", F::multi_head_attention_forward(
                             x[0], x[1], x[1],
                             F::MultiheadAttentionForwardFuncOptions(4, 2, x[2], x[3], {}, {}, false, 0.0, x[4], x[5])
                                 .training(false)))}},
      {"rnn_tanh_cell", {P("module", with_cell_params(nn::RNNCell(4, 3), x, 2)(x[0], x[1]))}},
      {"lstm_cell", {PT("module", with_cell_params(nn::LSTMCell(4, 3), x, 3)(x[0], std::make_tuple(x[1], x[2])))}},
      {"gru_cell", {P("module", with_cell_params(nn::GRUCell(4, 3), x, 2)(x[0], x[1]))}},
  };
  return r;
}
#undef P
#undef PT

double json_number(const Json& v) {
  if (v.type() != Json::Type::String) return v.as_double();
  const std::string& s = v.as_string();
  if (s == "nan") return std::nan("");
  return s == "inf" ? INFINITY : -INFINITY;
}

std::vector<int64_t> json_ints(const Json& a) {
  std::vector<int64_t> r;
  for (const Json& v : a.items()) r.push_back(v.as_int());
  return r;
}

// The case's inputs for one run: floating inputs in float32 or bfloat16 (a round-to-nearest
// cast of the recorded float32 values, as torch's .to(bfloat16)), the others as recorded.
In make_inputs(const Json& c, const std::string& run) {
  std::vector<size_t> floating;
  for (size_t i = 0; i < c["inputs"].size(); ++i)
    if (c["inputs"][i]["dtype"].as_string() == "float") floating.push_back(i);
  In in;
  for (size_t i = 0; i < c["inputs"].size(); ++i) {
    const Json& spec = c["inputs"][i];
    const std::vector<int64_t> shape = json_ints(spec["shape"]);
    const std::string& dt = spec["dtype"].as_string();
    if (dt != "float") {
      std::vector<int64_t> v = json_ints(spec["values"]);
      in.push_back(tensor(v).to(test::dtype_from_torch_name(dt)).reshape(shape));
      continue;
    }
    std::vector<double> v;
    for (const Json& e : spec["values"].items()) v.push_back(json_number(e));
    Tensor t = tensor(v, kDouble).to(kFloat).reshape(shape);
    const bool first = i == floating.front();
    const bool low = run == "bfloat16" || (run == "mixed" && !first) || (run == "mixed_rev" && first);
    in.push_back(low ? t.to(kBFloat16) : t);
  }
  return in;
}

// torch's output vs ember's: dtype, shape, values. bfloat16 results (and everything of an
// op that computes in bfloat16) get a bfloat16 tolerance relative to the largest value.
void expect_output(const Tensor& got, const Json& want, bool low_precision_run, double case_tol,
                   const std::string& where) {
  SCOPED_TRACE(where);
  const ScalarType want_dtype = test::dtype_from_torch_name(want["dtype"].as_string());
  ASSERT_TRUE(got.defined());
  EXPECT_EQ(got.scalar_type(), want_dtype) << "dtype";
  const std::vector<int64_t> shape = json_ints(want["shape"]);
  ASSERT_EQ(got.sizes().vec(), shape) << "shape";
  Tensor expected;
  Tensor actual = got.detach();
  if (isComplexType(want_dtype)) {
    std::vector<double> v;
    for (const Json& p : want["values"].items()) v.push_back(json_number(p[0])), v.push_back(json_number(p[1]));
    std::vector<int64_t> s = shape;
    s.push_back(2);
    expected = tensor(v, kDouble).reshape(s);
    actual = view_as_real(actual.to(kComplexDouble));
  } else {
    std::vector<double> v;
    for (const Json& e : want["values"].items()) v.push_back(json_number(e));
    expected = tensor(v, kDouble).reshape(shape);
    actual = actual.to(kDouble);
  }
  if (!isFloatingType(want_dtype) && !isComplexType(want_dtype)) {
    EXPECT_TENSOR_EQ(actual, expected);
    return;
  }
  const double scale = std::max(1.0, expected.numel() ? expected.nan_to_num(0, 0, 0).abs().max().item<double>() : 0.0);
  const bool low = low_precision_run || want_dtype == kBFloat16;
  const double rtol = low ? case_tol : 1e-4;
  EXPECT_TENSOR_CLOSE(actual, expected, rtol, rtol * scale);
}

const std::vector<std::string> kRuns = {"float32", "bfloat16", "mixed", "mixed_rev"};

// Every case of one policy: each run, through each of ember's call paths, against torch.
void check_policy(const std::string& policy) {
  int compared = 0;
  for (const Json& c : golden()["cases"].items()) {
    if (c["policy"].as_string() != policy) continue;
    const std::string name = c["name"].as_string();
    SCOPED_TRACE("case " + name + " (" + c["aten"].as_string() + ")");
    auto it = registry().find(name);
    ASSERT_NE(it, registry().end()) << "no ember call path for case " << name;
    const double tol = c.contains("tol") ? c["tol"].as_double() : 2e-2;
    for (const std::string& run : kRuns) {
      if (!c["runs"].contains(run)) continue;
      const Json& r = c["runs"][run];
      if (!r.contains("outputs")) continue;  // torch raised: nothing to compare
      // bfloat16 inputs of an op left alone compute in bfloat16 throughout; composites run
      // some list ops in bfloat16 even when their result is float32.
      const bool low_run = policy == "composite" || (run != "float32" && policy == "none");
      for (const Path& path : it->second) {
        const std::string where = name + " / " + run + " / " + path.label;
        Out out;
        {
          amp::autocast region(kCPU);
          try {
            out = path.fn(make_inputs(c, run));
          } catch (const std::exception& e) {
            ADD_FAILURE() << where << ": threw " << e.what();
            continue;
          }
        }
        for (const Json& want : r["outputs"].items()) {
          const size_t k = size_t(want["index"].as_int());
          ASSERT_LT(k, out.size()) << where;
          Tensor got = out[k];
          if (c.contains("transform") && c["transform"].as_string() == "abs") got = got.abs();  // signs are free
          expect_output(got, want, low_run, tol, where + " / output " + std::to_string(k));
        }
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 0) << "no " << policy << " case in the golden file";
}

TEST(AutocastLists, LowerPrecisionOpsMatchPyTorch) { check_policy("lower_precision_fp"); }
TEST(AutocastLists, Float32OpsMatchPyTorch) { check_policy("fp32"); }
TEST(AutocastLists, PromoteOpsMatchPyTorch) { check_policy("promote"); }
TEST(AutocastLists, OpsOnNoListAreLeftAlone) { check_policy("none"); }
TEST(AutocastLists, CompositesOfListOpsMatchPyTorch) { check_policy("composite"); }

TEST(AutocastLists, GoldenCoversTheListsAndTheRegistry) {
  const Json& g = golden();
  EXPECT_EQ(g["torch_version"].as_string().substr(0, 4), "1.13");
  // The lists as torch registers them: every op is tested or explained.
  std::set<std::string> registered, tested, missing;
  for (const Json& op : g["autocast_cpu_ops"].items()) registered.insert(op.as_string());
  for (const auto& [op, why] : g["missing_in_ember"].fields()) missing.insert(op);
  std::set<std::string> names;
  for (const Json& c : g["cases"].items()) {
    const std::string name = c["name"].as_string(), policy = c["policy"].as_string();
    names.insert(name);
    EXPECT_EQ(c["registered"].as_bool(), registered.count(c["aten"].as_string()) == 1) << name;
    EXPECT_EQ(c["registered"].as_bool(), policy != "none" && policy != "composite") << name;
    if (c["registered"].as_bool()) tested.insert(c["aten"].as_string());
    EXPECT_TRUE(registry().count(name)) << "case " << name << " has no ember call path";
  }
  for (const std::string& op : registered)
    EXPECT_TRUE(tested.count(op) + missing.count(op) == 1) << op << " is neither tested nor listed as missing";
  for (const auto& [name, paths] : registry()) EXPECT_TRUE(names.count(name)) << name << " is not in the golden file";
  EXPECT_GE(tested.size(), 60u);
}

// ember's autocast list (ember/ops/autocast_list.h), its CPU column, against PyTorch's: every
// golden case whose op the list names has that policy, and every op the list autocasts on CPU
// is one PyTorch registers for CPU autocast.
TEST(AutocastLists, EmberListsCpuColumnIsPyTorchs) {
  const Json& g = golden();
  const std::map<std::string, AutocastPolicy> policy_of = {{"lower_precision_fp", AutocastPolicy::LowerPrecision},
                                                           {"fp32", AutocastPolicy::Float32},
                                                           {"promote", AutocastPolicy::Promote},
                                                           {"none", AutocastPolicy::None}};
  auto base_name = [](std::string aten) {  // "aten::conv2d.padding" -> "conv2d"
    aten = aten.substr(aten.find("::") + 2);
    return aten.substr(0, aten.find('.'));
  };
  size_t checked = 0;
  for (const Json& c : g["cases"].items()) {
    const auto want = policy_of.find(c["policy"].as_string());
    if (want == policy_of.end() || c["aten"].as_string().rfind("aten::", 0) != 0) continue;  // composites
    const autocast::ListEntry* e = autocast::find(base_name(c["aten"].as_string()));
    if (!e) {
      EXPECT_EQ(want->second, AutocastPolicy::None) << c["aten"].as_string() << " is autocast by PyTorch but not listed";
      continue;
    }
    EXPECT_EQ(int(e->policies.cpu), int(want->second)) << c["name"].as_string() << " (" << c["aten"].as_string() << ")";
    ++checked;
  }
  EXPECT_GE(checked, 90u);
  std::set<std::string> registered;
  for (const Json& op : g["autocast_cpu_ops"].items()) registered.insert(base_name(op.as_string()));
  for (const autocast::ListEntry& e : autocast::list())
    if (e.policies.cpu != AutocastPolicy::None)
      EXPECT_TRUE(registered.count(std::string(e.name))) << e.name << " is autocast on CPU, PyTorch 1.13 does not";
  // The entries of the op table read their policies from the list.
  ASSERT_NE(OpInfo::find("mm"), nullptr);
  EXPECT_EQ(OpInfo::find("mm")->autocast, autocast::policies("mm"));
  ASSERT_NE(OpInfo::find("prod"), nullptr);
  EXPECT_EQ(OpInfo::find("prod")->autocast.cpu, AutocastPolicy::Float32);
  ASSERT_NE(OpInfo::find("exp"), nullptr);
  EXPECT_EQ(OpInfo::find("exp")->autocast.cpu, AutocastPolicy::None);
  EXPECT_EQ(OpInfo::find("exp")->autocast.cuda, AutocastPolicy::Float32);
}

// ---- gradients ------------------------------------------------------------------------------

Tensor leaf(IntArrayRef shape, uint64_t seed) {
  manual_seed(seed);
  return randn(shape).requires_grad_(true);
}

TEST(AutocastLists, BackwardThroughListOpsGivesFloat32LeavesFloat32Gradients) {
  // trace (float32) of mm (bfloat16): d trace(AB) / dA = B^T, and with the identity as the
  // incoming gradient the bfloat16 matmul backward is exact: A.grad is bfloat16(B)^T.
  {
    const Tensor a = leaf({4, 3}, 1), b = leaf({3, 4}, 2);
    Tensor y;
    {
      amp::autocast region(kCPU);
      const Tensor ab = mm(a, b);
      EXPECT_EQ(ab.scalar_type(), kBFloat16);
      y = trace(ab);
      EXPECT_EQ(y.scalar_type(), kFloat);
      y.backward();
    }
    ASSERT_TRUE(a.grad().defined());
    EXPECT_EQ(a.grad().scalar_type(), kFloat);
    EXPECT_EQ(b.grad().scalar_type(), kFloat);
    EXPECT_TENSOR_EQ(a.grad(), b.detach().to(kBFloat16).to(kFloat).t());
    EXPECT_TENSOR_EQ(b.grad(), a.detach().to(kBFloat16).to(kFloat).t());
  }
  // linear (bfloat16) -> max_pool3d and reflection padding (float32) -> prod and a loss, then
  // index_copy (promote) of a float32 leaf with a bfloat16 source: every leaf gets a float32
  // gradient close to the float32 network's.
  Tensor x = leaf({2, 8}, 3), w = leaf({16, 8}, 4), base = leaf({3, 16}, 5);
  const Tensor idx = tensor({int64_t(2), int64_t(0)});
  auto net = [&](bool amp_on) {
    amp::autocast region(kCPU, std::nullopt, amp_on);
    const Tensor h = F::linear(x, w);                                    // (2, 16)
    const Tensor pooled = max_pool3d(h.view({1, 2, 2, 2, 4}), {2});      // (1, 2, 1, 1, 2)
    const Tensor padded = ember::pad(h.view({2, 4, 4}), {1, 1}, "reflect");  // (2, 4, 6)
    const Tensor mixed = index_copy(base, 0, idx, h);                     // promote: float32
    if (amp_on) {
      EXPECT_EQ(h.scalar_type(), kBFloat16);
      EXPECT_EQ(pooled.scalar_type(), kFloat);
      EXPECT_EQ(padded.scalar_type(), kFloat);
      EXPECT_EQ(mixed.scalar_type(), kFloat);
    }
    return pooled.sum().add(prod(padded.tanh().mul(0.1).add(1))).add(F::mse_loss(mixed, base.detach().mul(2), kSum));
  };
  net(false).backward();
  const Tensor gx = x.grad().clone(), gw = w.grad().clone(), gb = base.grad().clone();
  for (Tensor* t : {&x, &w, &base}) t->mutable_grad() = Tensor();
  const Tensor loss = net(true);
  EXPECT_EQ(loss.scalar_type(), kFloat);
  loss.backward();
  for (const Tensor* t : {&x, &w, &base}) EXPECT_EQ(t->grad().scalar_type(), kFloat);
  EXPECT_TENSOR_CLOSE(x.grad(), gx, 5e-2, 5e-2 * std::max(1.0, gx.abs().max().item<double>()));
  EXPECT_TENSOR_CLOSE(w.grad(), gw, 5e-2, 5e-2 * std::max(1.0, gw.abs().max().item<double>()));
  EXPECT_TENSOR_EQ(base.grad(), gb);  // base's own rows: float32 throughout
  // conv_transpose2d (float32) on a bfloat16 input: float32 weight gradients.
  const Tensor img = leaf({1, 2, 3, 3}, 6), k = leaf({2, 2, 3, 3}, 7), kt = leaf({2, 3, 2, 2}, 8);
  {
    amp::autocast region(kCPU);
    const Tensor y = F::conv_transpose2d(F::conv2d(img, k, Tensor(), {1, 1}, 1), kt, Tensor(), {2});
    EXPECT_EQ(y.scalar_type(), kFloat);
    y.square().sum().backward();
  }
  for (const Tensor* t : {&img, &k, &kt}) {
    ASSERT_TRUE(t->grad().defined());
    EXPECT_EQ(t->grad().scalar_type(), kFloat);
    EXPECT_TRUE(t->grad().isfinite().all().item<bool>());
  }
}

// Distinct dtype casts in y's graph (ember records a cast as a copy into a new tensor).
int count_casts(const Tensor& y) {
  std::set<const autograd::Node*> seen;
  int casts = 0;
  std::vector<std::shared_ptr<autograd::Node>> stack{y.grad_fn()};
  while (!stack.empty()) {
    std::shared_ptr<autograd::Node> n = stack.back();
    stack.pop_back();
    if (!n || !seen.insert(n.get()).second) continue;
    // A cast is a copy whose result's dtype differs from its source's (a copy that only makes
    // memory contiguous, as the im2col of a composite convolution does, is not one).
    if (n->name().rfind("CopyBackward", 0) == 0 && n->num_inputs() > 0)
      for (const autograd::Edge& e : n->next_edges())
        if (e.function && e.function->input_metadata(e.input_nr).dtype != n->input_metadata(0).dtype) {
          ++casts;
          break;
        }
    for (const autograd::Edge& e : n->next_edges()) stack.push_back(e.function);
  }
  return casts;
}

TEST(AutocastLists, EachInputIsCastOnceAsInPyTorch) {
  // torch's count of casts in the same expressions' graphs: a list op casts each input once
  // (a leaf used twice comes from the weight cache), ops nested in a list op cast nothing
  // again, and a float32 op after a bfloat16 one casts its result back once.
  const Tensor a = leaf({3, 3}, 10), x = leaf({1, 2, 5, 5}, 11), w = leaf({3, 2, 3, 3}, 12), b = leaf({3}, 13);
  const Tensor base = leaf({3, 3}, 14), src = leaf({3, 3}, 15);
  const Tensor labels = tensor({int64_t(0), int64_t(2), int64_t(1)}), rows = tensor({int64_t(2), int64_t(0)});
  const std::map<std::string, std::function<Tensor()>> exprs = {
      {"matrix_norm_nuc_of_mm", [&] { return linalg::matrix_norm(mm(a, a), "nuc"); }},
      {"cross_entropy_of_mm", [&] { return F::cross_entropy(mm(a, a), labels, Tensor()); }},
      {"replication_pad_of_mm",
       [&] { return F::pad(mm(a, a).view({1, 3, 3}), F::PadFuncOptions({1, 1}).mode(PadMode::Replicate)); }},
      {"conv2d_of_reflection_pad",
       [&] { return with_params(nn::Conv2d(nn::Conv2dOptions(2, 3, 3).padding(1).padding_mode("reflect")), w, b)(x); }},
      {"mse_of_linear", [&] { return F::mse_loss(F::linear(src, a), base, kMean); }},
      {"index_copy_of_mm", [&] { return base.index_copy(0, rows, mm(a.narrow(0, 0, 2), a)); }},
      {"nonleaf_mm_twice", [&] { return mm(a.mul(2), a.mul(2)); }},
  };
  const Json& want = golden()["cast_counts"];
  EXPECT_EQ(want.size(), exprs.size());
  for (const auto& [name, count] : want.fields()) {
    ASSERT_TRUE(exprs.count(name)) << name;
    amp::autocast region(kCPU);
    const Tensor y = exprs.at(name)();
    EXPECT_EQ(count_casts(y), count.as_int()) << name;
  }
}

}  // namespace
}  // namespace ember
