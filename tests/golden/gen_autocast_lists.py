#!/usr/bin/env python3
"""Golden data for tests/amp/autocast_lists_test.cpp: PyTorch 1.13's CPU autocast lists, observed.

Writes tests/golden/autocast_lists.json. Run with the system Python (torch 1.13):
    /usr/bin/python3 tests/golden/gen_autocast_lists.py

Membership is taken from torch itself, never from memory: `autocast_cpu_ops` is every op that
has a kernel for the AutocastCPU dispatch key (torch._C._dispatch_get_registrations_for_dispatch_key),
i.e. the union of the lower_precision_fp, fp32 and promote lists of aten/src/ATen/autocast_mode.cpp.
Every op of that union is either exercised by a case below or named in MISSING_IN_EMBER with the
reason; the script fails otherwise, so the JSON documents the coverage.

Each case runs one call under torch.autocast("cpu", dtype=torch.bfloat16) with its floating inputs
  "float32":   all float32,
  "bfloat16":  all bfloat16,
  "mixed":     the first floating input float32, the others bfloat16 (two or more floating inputs),
  "mixed_rev": the first bfloat16, the others float32,
and records each output's dtype, shape and values (float64; complex as [re, im] pairs). Runs where
torch raises are recorded as {"error": ...} and not compared. Every case names the aten op that
receives the call (`aten`) and the policy it shows; the script checks that the observed dtypes
fit that policy and that the aten op is registered for AutocastCPU exactly when the policy is a
list's:
  lower_precision_fp: float32 inputs give bfloat16 results;
  fp32:               bfloat16 inputs give float32 (complex64) results;
  promote:            one dtype stays itself, mixed inputs give float32;
  none:               not registered, results keep the inputs' dtype;
  composite:          not registered itself, but calls list ops (einsum -> bmm): whatever torch gives.
Inputs are float32 values (not bfloat16-exact, so the lower-precision cast shows in the values)
written exactly; a test makes its bfloat16 inputs with a round-to-nearest-even cast, as torch does.
Seeds are fixed, so the output is deterministic.
"""
import json
import math
import os
import warnings

import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
BF16 = torch.bfloat16

# Ops on PyTorch 1.13's CPU lists that ember does not have (yet), and why each is not tested.
MISSING_IN_EMBER = {
    "aten::_convolution.deprecated": "internal convolution entry point; ember exposes conv1d/2d/3d",
    "aten::conv_tbc": "no conv_tbc in ember",
    "aten::_grid_sampler_2d_cpu_fallback": "internal fallback of grid_sampler_2d",
    "aten::grid_sampler": "reached through grid_sample, tested as grid_sampler_2d/3d",
    "aten::_lu_with_info": "internal op of the deprecated torch.lu, which ember does not have (linalg::lu_factor instead)",
    "aten::fake_quantize_per_tensor_affine": "no quantization in ember",
    "aten::fractional_max_pool2d": "random pooling regions: no values to compare without replaying the samples",
    "aten::fractional_max_pool3d": "random pooling regions: no values to compare without replaying the samples",
    "aten::ormqr": "no ormqr in ember",
    "aten::index_copy.dimname": "no named dims in ember",
    "aten::prod.dim_Dimname": "no named dims in ember",
    "aten::linalg_cond": "no linalg_cond in ember (nor in LibTorch 1.13's torch::linalg)",
    "aten::linalg_cond.p_str": "no linalg_cond in ember (nor in LibTorch 1.13's torch::linalg)",
    "aten::linalg_matrix_rank": "an int64 result: nothing for the dtype check to compare",
    "aten::linalg_matrix_rank.atol_rtol_float": "an int64 result: nothing for the dtype check to compare",
    "aten::linalg_matrix_rank.atol_rtol_tensor": "an int64 result: nothing for the dtype check to compare",
    "aten::linalg_matrix_rank.tol_tensor": "an int64 result: nothing for the dtype check to compare",
    "aten::multilabel_margin_loss_forward": "internal forward of multilabel_margin_loss",
    "aten::symeig": "no deprecated symeig in ember (linalg::eigh is tested)",
    "aten::ctc_loss.Tensor": "reached with tensor lengths; tested through the IntList form",
    "aten::conv1d.padding": "string padding: tested for conv2d.padding",
    "aten::conv3d.padding": "string padding: tested for conv2d.padding",
    "aten::quantile": "tensor q: tested as quantile.scalar and nanquantile (tensor q)",
    "aten::nanquantile.scalar": "tested as nanquantile (tensor q) and quantile.scalar",
}

CASES = []


def case(name, policy, aten, fn, inputs, outputs=None, transform=None, tol=None, note=None, mixed=None):
    """inputs: tensors (float32 ones vary per run; others are passed as they are). outputs: which
    outputs of a tuple to record (all by default). transform: "abs" for sign-ambiguous factors.
    mixed: whether to record the mixed runs (by default for the list ops only: for the others
    they test type promotion, not autocast). tol: the relative tolerance of bfloat16 results."""
    if mixed is None:
        mixed = policy != "none"
    CASES.append(dict(name=name, policy=policy, aten=aten, fn=fn, inputs=inputs, outputs=outputs,
                      transform=transform, tol=tol, note=note, mixed=mixed))


def g(seed, *shape, lo=None, hi=None):
    gen = torch.Generator().manual_seed(seed)
    if lo is not None:
        return torch.rand(*shape, generator=gen) * (hi - lo) + lo
    return torch.randn(*shape, generator=gen)


def spd(n, seed):
    b = g(seed, n, n)
    return (b @ b.T / n + torch.eye(n)).float()


def well_conditioned(n, seed):
    return (g(seed, n, n) * 0.5 + 2 * torch.eye(n)).float()


def signs(seed, *shape):
    return torch.where(g(seed, *shape) > 0, 1.0, -1.0)


LONG = torch.long
# ---- lower_precision_fp -------------------------------------------------------------------------
case("mm", "lower_precision_fp", "aten::mm", torch.mm, [g(1, 3, 4), g(2, 4, 5)])
case("bmm", "lower_precision_fp", "aten::bmm", torch.bmm, [g(3, 2, 3, 4), g(4, 2, 4, 5)])
case("addmm", "lower_precision_fp", "aten::addmm", lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2.0),
     [g(5, 3, 5), g(1, 3, 4), g(2, 4, 5)])
case("baddbmm", "lower_precision_fp", "aten::baddbmm", lambda c, a, b: torch.baddbmm(c, a, b, beta=0.5, alpha=2.0),
     [g(6, 2, 3, 5), g(3, 2, 3, 4), g(4, 2, 4, 5)])
case("addbmm", "lower_precision_fp", "aten::addbmm", lambda c, a, b: torch.addbmm(c, a, b, beta=0.5, alpha=2.0),
     [g(5, 3, 5), g(3, 2, 3, 4), g(4, 2, 4, 5)])
case("matmul", "lower_precision_fp", "aten::matmul", torch.matmul, [g(7, 2, 3, 4), g(2, 4, 5)])
case("matmul_vec", "lower_precision_fp", "aten::matmul", torch.matmul, [g(8, 4), g(9, 4)])
case("linear", "lower_precision_fp", "aten::linear", F.linear, [g(10, 2, 3, 4), g(11, 5, 4), g(12, 5)])
case("conv1d", "lower_precision_fp", "aten::conv1d", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
     [g(13, 1, 2, 7), g(14, 3, 2, 3), g(15, 3)])
case("conv2d", "lower_precision_fp", "aten::conv2d", lambda x, w, b: F.conv2d(x, w, b, padding=1),
     [g(16, 1, 2, 5, 5), g(17, 3, 2, 3, 3), g(18, 3)])
case("conv2d_same", "lower_precision_fp", "aten::conv2d.padding", lambda x, w, b: F.conv2d(x, w, b, padding="same"),
     [g(16, 1, 2, 5, 5), g(17, 3, 2, 3, 3), g(18, 3)])
case("conv3d", "lower_precision_fp", "aten::conv3d", F.conv3d, [g(19, 1, 2, 4, 4, 4), g(20, 3, 2, 2, 2, 2), g(21, 3)])
# Conv2d(padding_mode="reflect") pads with reflection_pad2d (float32) and then convolves (bfloat16).
case("conv2d_reflect", "lower_precision_fp", "aten::conv2d",
     lambda x, w, b: F.conv2d(F.pad(x, (1, 1, 1, 1), mode="reflect"), w, b),
     [g(16, 1, 2, 5, 5), g(17, 3, 2, 3, 3), g(18, 3)])

# ---- fp32 ---------------------------------------------------------------------------------------
case("conv_transpose1d", "fp32", "aten::conv_transpose1d",
     lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2), [g(22, 1, 2, 5), g(23, 2, 3, 3), g(24, 3)])
case("conv_transpose2d", "fp32", "aten::conv_transpose2d.input",
     lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
     [g(25, 1, 2, 4, 4), g(26, 2, 3, 3, 3), g(27, 3)])
case("conv_transpose3d", "fp32", "aten::conv_transpose3d.input", F.conv_transpose3d,
     [g(28, 1, 2, 3, 3, 3), g(29, 2, 3, 2, 2, 2), g(30, 3)])
case("prod", "fp32", "aten::prod", torch.prod, [g(31, 2, 4, lo=0.5, hi=1.5)])
case("prod_dim", "fp32", "aten::prod.dim_int", lambda x: torch.prod(x, 1, keepdim=True), [g(32, 3, 4, lo=0.5, hi=1.5)])
case("prod_dtype", "fp32", "aten::prod", lambda x: torch.prod(x, dtype=torch.float64), [g(33, 2, 4, lo=0.5, hi=1.5)])
case("quantile", "fp32", "aten::quantile.scalar", lambda x: torch.quantile(x, 0.3, dim=1), [g(34, 3, 5)])
case("nanquantile", "fp32", "aten::nanquantile",
     lambda x, q: torch.nanquantile(x, q, dim=1, keepdim=True),
     [torch.tensor([[0.5, float("nan"), -1.25, 2.0, 0.3], [1.1, 0.7, -0.2, float("nan"), 3.3]]),
      torch.tensor([0.25, 0.75])])
case("trace", "fp32", "aten::trace", torch.trace, [g(35, 4, 4)])
case("polar", "fp32", "aten::polar", torch.polar, [g(36, 5, lo=0.5, hi=2.0), g(37, 5)])
case("view_as_complex", "fp32", "aten::view_as_complex", torch.view_as_complex, [g(38, 3, 2)])
case("inverse", "fp32", "aten::inverse", torch.inverse, [well_conditioned(4, 39)])
case("linalg_inv", "fp32", "aten::linalg_inv", torch.linalg.inv, [well_conditioned(4, 39)])
case("cholesky", "fp32", "aten::cholesky", torch.cholesky, [spd(4, 40)])
case("linalg_cholesky", "fp32", "aten::linalg_cholesky", lambda a: torch.linalg.cholesky(a, upper=True), [spd(4, 40)])
case("linalg_solve", "fp32", "aten::linalg_solve", torch.linalg.solve, [well_conditioned(4, 41), g(42, 4, 2)])
case("linalg_qr", "fp32", "aten::linalg_qr", torch.linalg.qr, [g(43, 4, 3)], transform="abs")
case("linalg_svd", "fp32", "aten::linalg_svd", lambda a: torch.linalg.svd(a, full_matrices=False), [g(44, 4, 3)],
     outputs=[1])
case("linalg_svdvals", "fp32", "aten::linalg_svdvals", torch.linalg.svdvals, [g(44, 4, 3)])
case("linalg_eigh", "fp32", "aten::linalg_eigh", torch.linalg.eigh, [spd(4, 45)], outputs=[0])
case("linalg_eigvalsh", "fp32", "aten::linalg_eigvalsh", torch.linalg.eigvalsh, [spd(4, 45)])
case("linalg_eig", "fp32", "aten::linalg_eig", torch.linalg.eig, [well_conditioned(4, 50)], outputs=[0])
case("linalg_eigvals", "fp32", "aten::linalg_eigvals", torch.linalg.eigvals, [well_conditioned(4, 50)])
case("geqrf", "fp32", "aten::geqrf", torch.geqrf, [g(51, 4, 3)])
_qr_a, _qr_tau = torch.geqrf(g(51, 4, 3))
case("linalg_householder_product", "fp32", "aten::linalg_householder_product", torch.linalg.householder_product,
     [_qr_a, _qr_tau])
case("orgqr", "fp32", "aten::orgqr", torch.orgqr, [_qr_a, _qr_tau])
case("linalg_lstsq", "fp32", "aten::linalg_lstsq", torch.linalg.lstsq, [g(52, 5, 3), g(53, 5, 2)], outputs=[0])
_lu, _piv = torch.linalg.lu_factor(well_conditioned(4, 54))
case("lu_solve", "fp32", "aten::lu_solve", torch.lu_solve, [g(55, 4, 2), _lu, _piv])
_chol = torch.linalg.cholesky(spd(4, 56))
case("cholesky_inverse", "fp32", "aten::cholesky_inverse", torch.cholesky_inverse, [_chol])
case("cholesky_solve", "fp32", "aten::cholesky_solve", torch.cholesky_solve, [g(57, 4, 2), _chol])
case("triangular_solve", "fp32", "aten::triangular_solve", torch.triangular_solve,
     [g(58, 4, 2), well_conditioned(4, 59).triu()], outputs=[0])
case("linalg_cholesky_ex", "fp32", "aten::linalg_cholesky_ex", torch.linalg.cholesky_ex, [spd(4, 40)], outputs=[0])
case("linalg_inv_ex", "fp32", "aten::linalg_inv_ex", torch.linalg.inv_ex, [well_conditioned(4, 39)], outputs=[0])
case("linalg_tensorinv", "fp32", "aten::linalg_tensorinv", lambda a: torch.linalg.tensorinv(a, ind=1),
     [well_conditioned(4, 60)])
case("linalg_tensorsolve", "fp32", "aten::linalg_tensorsolve", torch.linalg.tensorsolve,
     [well_conditioned(4, 61), g(62, 4)])
case("pinverse", "fp32", "aten::pinverse", torch.pinverse, [g(63, 4, 3)])
case("qr", "fp32", "aten::qr", torch.qr, [g(43, 4, 3)], transform="abs")
case("svd", "fp32", "aten::svd", torch.svd, [g(44, 4, 3)], outputs=[1])
case("cdist", "fp32", "aten::cdist", torch.cdist, [g(65, 3, 4), g(66, 5, 4)])
case("stft", "fp32", "aten::stft",
     lambda x: torch.stft(x, 8, hop_length=2, center=False, return_complex=True), [g(64, 32)])
for _n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    case("fft_" + _n, "fp32", "aten::fft_" + _n, getattr(torch.fft, _n), [g(67, 8)])
for _n in ("fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn"):
    case("fft_" + _n, "fp32", "aten::fft_" + _n, getattr(torch.fft, _n), [g(68, 4, 6)])
case("stft_center", "fp32", "aten::stft.center",
     lambda x: torch.stft(x, 8, hop_length=2, center=True, return_complex=True), [g(64, 32)])
case("matrix_norm_fro", "fp32", "aten::linalg_matrix_norm.str_ord", torch.linalg.matrix_norm, [g(46, 2, 3, 3)])
case("matrix_norm_nuc", "fp32", "aten::linalg_matrix_norm.str_ord", lambda a: torch.linalg.matrix_norm(a, "nuc"),
     [g(46, 2, 3, 3)])
case("matrix_norm_inf", "fp32", "aten::linalg_matrix_norm", lambda a: torch.linalg.matrix_norm(a, float("inf")),
     [g(46, 2, 3, 3)])
case("matrix_norm_2", "fp32", "aten::linalg_matrix_norm", lambda a: torch.linalg.matrix_norm(a, 2), [g(46, 2, 3, 3)])
# linalg.norm with an ord over two dims is a matrix norm.
case("linalg_norm_matrix", "fp32", "aten::linalg_matrix_norm", lambda a: torch.linalg.norm(a, 1), [g(47, 3, 4)])
X5 = g(48, 1, 2, 4, 4, 4)
case("max_pool3d", "fp32", "aten::max_pool3d", lambda x: F.max_pool3d(x, 2), [X5])
case("avg_pool3d", "fp32", "aten::avg_pool3d", lambda x: F.avg_pool3d(x, 2, stride=1, padding=1), [X5])
case("adaptive_avg_pool3d", "fp32", "aten::adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), [X5])
case("adaptive_max_pool3d", "fp32", "aten::adaptive_max_pool3d", lambda x: F.adaptive_max_pool3d(x, (2, 3, 2)), [X5])
# interpolate(mode="area") of a 5-D input is adaptive_avg_pool3d.
case("interpolate_area_3d", "fp32", "aten::adaptive_avg_pool3d",
     lambda x: F.interpolate(x, size=(2, 3, 2), mode="area"), [X5])
_p1, _i1 = F.max_pool1d(g(49, 1, 2, 6), 2, return_indices=True)
_p2, _i2 = F.max_pool2d(g(50, 1, 2, 4, 4), 2, return_indices=True)
_p3, _i3 = F.max_pool3d(X5, 2, return_indices=True)
# max_unpool1d is max_unpool2d on an unsqueezed input.
case("max_unpool1d", "fp32", "aten::max_unpool2d", lambda x, i: F.max_unpool1d(x, i, 2), [_p1, _i1])
case("max_unpool2d", "fp32", "aten::max_unpool2d", lambda x, i: F.max_unpool2d(x, i, 2), [_p2, _i2])
case("max_unpool3d", "fp32", "aten::max_unpool3d", lambda x, i: F.max_unpool3d(x, i, 2), [_p3, _i3])
case("reflection_pad1d", "fp32", "aten::reflection_pad1d", lambda x: F.pad(x, (2, 1), mode="reflect"), [g(51, 1, 2, 5)])
case("reflection_pad2d", "fp32", "aten::reflection_pad2d", lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"),
     [g(52, 1, 2, 4, 4)])
case("replication_pad1d", "fp32", "aten::replication_pad1d", lambda x: F.pad(x, (2, 1), mode="replicate"),
     [g(51, 1, 2, 5)])
case("replication_pad2d", "fp32", "aten::replication_pad2d", lambda x: F.pad(x, (1, 2, 2, 1), mode="replicate"),
     [g(52, 1, 2, 4, 4)])
case("replication_pad3d", "fp32", "aten::replication_pad3d", lambda x: F.pad(x, (1, 0, 0, 1, 1, 1), mode="replicate"),
     [g(53, 1, 2, 3, 3, 3)])
case("grid_sampler_2d", "fp32", "aten::grid_sampler_2d",
     lambda x, grid: F.grid_sample(x, grid, align_corners=False), [g(54, 1, 2, 4, 4), g(55, 1, 3, 3, 2, lo=-1, hi=1)])
case("grid_sampler_3d", "fp32", "aten::grid_sampler_3d",
     lambda x, grid: F.grid_sample(x, grid, align_corners=True), [X5, g(56, 1, 2, 2, 2, 3, lo=-1, hi=1)])
# losses (float targets are floating inputs too, so they take part in the casts)
case("binary_cross_entropy", "fp32", "aten::binary_cross_entropy", F.binary_cross_entropy,
     [g(57, 3, 4, lo=0.05, hi=0.95), g(58, 3, 4, lo=0, hi=1)])
case("binary_cross_entropy_with_logits", "fp32", "aten::binary_cross_entropy_with_logits",
     lambda x, y, pw: F.binary_cross_entropy_with_logits(x, y, pos_weight=pw),
     [g(59, 3, 4), g(60, 3, 4, lo=0, hi=1), g(61, 4, lo=0.5, hi=2)])
case("cosine_embedding_loss", "fp32", "aten::cosine_embedding_loss",
     lambda a, b, y: F.cosine_embedding_loss(a, b, y, margin=0.1), [g(62, 3, 4), g(63, 3, 4), signs(64, 3)])
case("cross_entropy", "fp32", "aten::cross_entropy_loss", lambda x, t: F.cross_entropy(x, t),
     [g(65, 4, 5), torch.tensor([0, 3, 1, 4])])
case("cross_entropy_probs", "fp32", "aten::cross_entropy_loss",
     lambda x, p: F.cross_entropy(x, p, label_smoothing=0.1), [g(65, 4, 5), torch.softmax(g(66, 4, 5), 1)])
case("ctc_loss", "fp32", "aten::ctc_loss.IntList",
     lambda lp, t: F.ctc_loss(lp, t, [6, 5], [3, 2]), [torch.log_softmax(g(67, 6, 2, 4), 2),
                                                       torch.tensor([[1, 2, 2], [3, 1, 0]])])
case("hinge_embedding_loss", "fp32", "aten::hinge_embedding_loss",
     lambda x, y: F.hinge_embedding_loss(x, y, margin=0.5), [g(68, 3, 4), signs(69, 3, 4)])
case("huber_loss", "fp32", "aten::huber_loss", lambda x, y: F.huber_loss(x, y, delta=0.5), [g(70, 3, 4), g(71, 3, 4)])
case("kl_div", "fp32", "aten::kl_div", lambda x, y: F.kl_div(x, y, reduction="batchmean"),
     [torch.log_softmax(g(72, 3, 4), 1), torch.softmax(g(73, 3, 4), 1)])
case("l1_loss", "fp32", "aten::l1_loss", F.l1_loss, [g(74, 3, 4), g(75, 3, 4)])
case("margin_ranking_loss", "fp32", "aten::margin_ranking_loss",
     lambda a, b, y: F.margin_ranking_loss(a, b, y, margin=0.2), [g(76, 5), g(77, 5), signs(78, 5)])
case("mse_loss", "fp32", "aten::mse_loss", F.mse_loss, [g(79, 3, 4), g(80, 3, 4)])
case("multi_margin_loss", "fp32", "aten::multi_margin_loss",
     lambda x, t, w: F.multi_margin_loss(x, t, weight=w), [g(81, 3, 4), torch.tensor([1, 0, 3]),
                                                           g(82, 4, lo=0.5, hi=1.5)])
case("multilabel_margin_loss", "fp32", "aten::multilabel_margin_loss", F.multilabel_margin_loss,
     [g(83, 2, 4), torch.tensor([[3, 0, -1, 1], [1, 2, 0, -1]])])
case("nll_loss", "fp32", "aten::nll_loss", lambda x, t, w: F.nll_loss(x, t, weight=w),
     [torch.log_softmax(g(84, 4, 5), 1), torch.tensor([0, 3, 1, 4]), g(85, 5, lo=0.5, hi=1.5)])
case("nll_loss2d", "fp32", "aten::nll_loss2d", lambda x, t: F.nll_loss(x, t),
     [torch.log_softmax(g(86, 2, 3, 2, 2), 1), torch.tensor([[[0, 2], [1, 1]], [[2, 0], [0, 1]]])])
case("poisson_nll_loss", "fp32", "aten::poisson_nll_loss",
     lambda x, y: F.poisson_nll_loss(x, y, log_input=False, full=True), [g(87, 3, 4, lo=0.1, hi=3), g(88, 3, 4, lo=0, hi=4)])
case("smooth_l1_loss", "fp32", "aten::smooth_l1_loss", lambda x, y: F.smooth_l1_loss(x, y, beta=0.5),
     [g(89, 3, 4), g(90, 3, 4)])
case("soft_margin_loss", "fp32", "aten::soft_margin_loss", F.soft_margin_loss, [g(91, 3, 4), signs(92, 3, 4)])
case("triplet_margin_loss", "fp32", "aten::triplet_margin_loss",
     lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=0.5, swap=True), [g(93, 3, 4), g(94, 3, 4), g(95, 3, 4)])

# ---- promote ------------------------------------------------------------------------------------
case("cat", "promote", "aten::cat", lambda a, b: torch.cat([a, b], 1), [g(96, 2, 3), g(97, 2, 2)])
case("stack", "promote", "aten::stack", lambda a, b: torch.stack([a, b], 1), [g(96, 2, 3), g(98, 2, 3)])
case("vstack", "promote", "aten::cat", lambda a, b: torch.vstack([a, b]), [g(96, 2, 3), g(99, 3)])
case("index_copy", "promote", "aten::index_copy", lambda s, i, src: s.index_copy(0, i, src),
     [g(100, 4, 3), torch.tensor([2, 0]), g(101, 2, 3)])

# ---- on no list: left alone ---------------------------------------------------------------------
case("relu", "none", "aten::relu", torch.relu, [g(102, 3, 4)])
# Mixed inputs of an op on no list meet ordinary type promotion: float32, not bfloat16.
case("add", "none", "aten::add.Tensor", torch.add, [g(103, 3, 4), g(104, 3, 4)], mixed=True)
case("exp", "none", "aten::exp", torch.exp, [g(105, 3, 4)])
case("gelu", "none", "aten::gelu", F.gelu, [g(106, 3, 4)])
case("softmax", "none", "aten::softmax.int", lambda x: torch.softmax(x, 1), [g(107, 3, 4)])
case("log_softmax", "none", "aten::log_softmax.int", lambda x: torch.log_softmax(x, 1), [g(107, 3, 4)])
case("sum", "none", "aten::sum", torch.sum, [g(108, 3, 4)])
case("cumsum", "none", "aten::cumsum", lambda x: torch.cumsum(x, 1), [g(108, 3, 4)])
case("cumprod", "none", "aten::cumprod", lambda x: torch.cumprod(x, 1), [g(32, 3, 4, lo=0.5, hi=1.5)])
case("mean", "none", "aten::mean", torch.mean, [g(108, 3, 4)])
case("var", "none", "aten::var", lambda x: torch.var(x, 1), [g(108, 3, 4)])
case("logsumexp", "none", "aten::logsumexp", lambda x: torch.logsumexp(x, 1), [g(108, 3, 4)])
case("vector_norm", "none", "aten::linalg_vector_norm", torch.linalg.vector_norm, [g(47, 3, 4)])
# linalg.norm without ord is a vector norm, even of a matrix.
case("linalg_norm_default", "none", "aten::linalg_vector_norm", torch.linalg.norm, [g(47, 3, 4)])
case("layer_norm", "none", "aten::layer_norm", lambda x, w, b: F.layer_norm(x, (4,), w, b),
     [g(109, 3, 4), g(110, 4), g(111, 4)])
case("group_norm", "none", "aten::group_norm", lambda x: F.group_norm(x, 2), [g(112, 2, 4, 3)])
case("batch_norm", "none", "aten::batch_norm", lambda x: F.batch_norm(x, None, None, training=True),
     [g(113, 3, 2, 4)])
case("prelu", "none", "aten::prelu", F.prelu, [g(114, 2, 3, 4), g(115, 3, lo=0, hi=0.5)])
case("interpolate_nearest", "none", "aten::upsample_nearest2d", lambda x: F.interpolate(x, scale_factor=2),
     [g(116, 1, 2, 3, 3)])
case("interpolate_bilinear", "none", "aten::upsample_bilinear2d",
     lambda x: F.interpolate(x, size=(5, 4), mode="bilinear", align_corners=False), [g(116, 1, 2, 3, 3)])
case("interpolate_area_2d", "none", "aten::adaptive_avg_pool2d",
     lambda x: F.interpolate(x, size=(2, 2), mode="area"), [g(116, 1, 2, 3, 3)])
case("pad_constant", "none", "aten::constant_pad_nd", lambda x: F.pad(x, (1, 2, 0, 1), value=0.5),
     [g(52, 1, 2, 4, 4)])
case("pad_circular", "none", "aten::_pad_circular", lambda x: F.pad(x, (1, 2, 2, 1), mode="circular"),
     [g(52, 1, 2, 4, 4)])
case("reflection_pad3d", "none", "aten::reflection_pad3d", lambda x: F.pad(x, (1, 0, 0, 1, 1, 1), mode="reflect"),
     [g(53, 1, 2, 3, 3, 3)])
case("max_pool2d", "none", "aten::max_pool2d", lambda x: F.max_pool2d(x, 2), [g(50, 1, 2, 4, 4)])
case("avg_pool2d", "none", "aten::avg_pool2d", lambda x: F.avg_pool2d(x, 2), [g(50, 1, 2, 4, 4)])
case("adaptive_avg_pool2d", "none", "aten::adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, 3),
     [g(50, 1, 2, 4, 4)])
case("adaptive_max_pool2d", "none", "aten::adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, 3),
     [g(50, 1, 2, 4, 4)])
case("gaussian_nll_loss", "none", "aten::sum", F.gaussian_nll_loss,
     [g(117, 3, 4), g(118, 3, 4), g(119, 3, 4, lo=0.5, hi=2)], tol=0.05,
     note="a Python composite in torch: not on a list")
case("multilabel_soft_margin_loss", "none", "aten::log_sigmoid", F.multilabel_soft_margin_loss,
     [g(120, 3, 4), g(121, 3, 4, lo=0, hi=1)], note="a Python composite in torch: not on a list")
case("pairwise_distance", "none", "aten::pairwise_distance", F.pairwise_distance, [g(122, 3, 4), g(123, 3, 4)])
case("cosine_similarity", "none", "aten::cosine_similarity", F.cosine_similarity, [g(122, 3, 4), g(123, 3, 4)])
case("mv", "none", "aten::mv", torch.mv, [g(1, 3, 4), g(8, 4)])
case("dot", "none", "aten::dot", torch.dot, [g(8, 4), g(9, 4)])
case("outer", "none", "aten::outer", torch.outer, [g(8, 4), g(9, 4)])

# ---- not listed, but built on list ops ---------------------------------------------------------
# (Their mixed runs are left out: ember's einsum, like torch's without autocast, wants one
# dtype up front, where torch's under autocast lets its bmm unify them.)
case("einsum", "composite", "aten::einsum", lambda a, b: torch.einsum("bij,bjk->bik", a, b),
     [g(3, 2, 3, 4), g(4, 2, 4, 5)], mixed=False, note="contractions are bmm: lower precision")
case("einsum_elementwise", "composite", "aten::einsum", lambda a, b: torch.einsum("ij,ij->ij", a, b),
     [g(1, 3, 4), g(2, 3, 4)], mixed=False, note="no contraction: a mul, left alone")
case("tensordot", "composite", "aten::tensordot", lambda a, b: torch.tensordot(a, b, dims=([1], [0])),
     [g(1, 3, 4), g(2, 4, 5)])
case("affine_grid", "composite", "aten::affine_grid_generator",
     lambda t: F.affine_grid(t, (1, 1, 3, 4), align_corners=False), [g(124, 1, 2, 3)])
case("bilinear", "composite", "aten::bilinear", F.bilinear, [g(125, 2, 3), g(126, 2, 4), g(127, 5, 3, 4), g(128, 5)],
     mixed=False, note="a bfloat16 contraction plus a float32 bias")
# Attention: 1.13 has only the private _scaled_dot_product_attention (on no list; its bmm is).
case("scaled_dot_product_attention", "composite", "aten::_scaled_dot_product_attention",
     lambda q, k, v: torch._C._nn._scaled_dot_product_attention(q, k, v), [g(144, 2, 3, 4), g(145, 2, 5, 4),
                                                                           g(146, 2, 5, 3)],
     outputs=[0], mixed=False)
case("multi_head_attention_forward", "composite", "F.multi_head_attention_forward (Python)",
     lambda q, kv, wi, bi, wo, bo: F.multi_head_attention_forward(q, kv, kv, 4, 2, wi, bi, None, None, False, 0.0, wo, bo,
                                                                  training=False),
     [g(147, 3, 2, 4), g(148, 5, 2, 4), g(149, 12, 4), g(156, 12), g(157, 4, 4), g(158, 4)], mixed=False,
     note="linear layers in bfloat16; the weights averaged over heads keep the softmax's dtype")
# The recurrent cells: linear layers (bfloat16) whose gates meet the float32 state.
case("rnn_tanh_cell", "composite", "aten::rnn_tanh_cell", torch.rnn_tanh_cell,
     [g(129, 2, 4), g(130, 2, 3), g(131, 3, 4), g(132, 3, 3), g(133, 3), g(134, 3)], mixed=False)
case("lstm_cell", "composite", "aten::lstm_cell",
     lambda x, h, c, wi, wh, bi, bh: torch.lstm_cell(x, (h, c), wi, wh, bi, bh),
     [g(129, 2, 4), g(130, 2, 3), g(135, 2, 3), g(136, 12, 4), g(137, 12, 3), g(138, 12), g(139, 12)], mixed=False)
case("gru_cell", "composite", "aten::gru_cell", torch.gru_cell,
     [g(129, 2, 4), g(130, 2, 3), g(140, 9, 4), g(141, 9, 3), g(142, 9), g(143, 9)], mixed=False)


# ---- casts per graph ----------------------------------------------------------------------------
# How many dtype casts (distinct ToCopyBackward0 nodes) torch's autograd graph holds for small
# expressions: each input of a list op is cast once (leaves requiring grad from the weight
# cache), and ops nested inside a list op cast nothing again.
def count_casts(t):
    seen, casts, stack = set(), 0, [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        casts += fn.name().startswith("ToCopyBackward")
        stack.extend(f for f, _ in fn.next_functions)
    return casts


def cast_counts():
    a = g(150, 3, 3).requires_grad_()
    x, w, b = g(151, 1, 2, 5, 5).requires_grad_(), g(152, 3, 2, 3, 3).requires_grad_(), g(153, 3).requires_grad_()
    base, src = g(154, 3, 3).requires_grad_(), g(155, 3, 3).requires_grad_()
    exprs = {
        "matrix_norm_nuc_of_mm": lambda: torch.linalg.matrix_norm(torch.mm(a, a), "nuc"),
        "cross_entropy_of_mm": lambda: F.cross_entropy(torch.mm(a, a), torch.tensor([0, 2, 1])),
        "replication_pad_of_mm": lambda: F.pad(torch.mm(a, a).view(1, 3, 3), (1, 1), mode="replicate"),
        "conv2d_of_reflection_pad": lambda: F.conv2d(F.pad(x, (1, 1, 1, 1), mode="reflect"), w, b),
        "mse_of_linear": lambda: F.mse_loss(F.linear(src, a), base),
        "index_copy_of_mm": lambda: base.index_copy(0, torch.tensor([2, 0]), torch.mm(a[:2], a)),
        "nonleaf_mm_twice": lambda: torch.mm(a * 2, a * 2),
    }
    out = {}
    for name, fn in exprs.items():
        with torch.autocast("cpu", dtype=BF16):
            out[name] = count_casts(fn())
    return out


# ---- running ------------------------------------------------------------------------------------
def encode(t):
    if t.is_complex():
        vals = [[float(v.real), float(v.imag)] for v in t.detach().reshape(-1).tolist()]
    elif t.is_floating_point():
        vals = [float(v) for v in t.detach().to(torch.float64).reshape(-1).tolist()]
    else:
        vals = [int(v) for v in t.detach().reshape(-1).tolist()]
    return vals


def json_float(v):
    return v if math.isfinite(v) else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))


def clean(vals):
    if vals and isinstance(vals[0], list):
        return [[json_float(a), json_float(b)] for a, b in vals]
    if vals and isinstance(vals[0], float):
        return [json_float(v) for v in vals]
    return vals


def dtype_name(dt):
    return str(dt).replace("torch.", "")


def run(c, kind):
    floats = [i for i, t in enumerate(c["inputs"]) if t.is_floating_point()]
    if kind.startswith("mixed") and (len(floats) < 2 or not c["mixed"]):
        return None
    args = []
    for i, t in enumerate(c["inputs"]):
        if not t.is_floating_point():
            args.append(t)
            continue
        first = i == floats[0]
        low = {"float32": False, "bfloat16": True, "mixed": not first, "mixed_rev": first}[kind]
        args.append(t.to(BF16) if low else t)
    try:
        with torch.autocast("cpu", dtype=BF16):
            out = c["fn"](*args)
    except RuntimeError as e:
        return {"error": str(e).split("\n")[0][:200]}
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    keep = c["outputs"] if c["outputs"] is not None else range(len(outs))
    rec = []
    for k in keep:
        t = outs[k]
        if c["transform"] == "abs":
            t = t.abs()
        rec.append({"index": k, "dtype": dtype_name(t.dtype), "shape": list(t.shape), "values": clean(encode(t))})
    return {"outputs": rec}


def check_policy(c, runs, registered):
    name, policy = c["name"], c["policy"]
    out_dtype = {k: r["outputs"][0]["dtype"] for k, r in runs.items() if "outputs" in r}
    if policy == "composite":
        assert not registered, name
        return
    assert registered == (policy != "none"), f"{name}: {c['aten']} registered={registered} but policy {policy}"
    if policy == "lower_precision_fp":
        assert out_dtype["float32"] == "bfloat16", (name, out_dtype)
    elif policy == "fp32":
        assert out_dtype["bfloat16"] in ("float32", "complex64", "float64"), (name, out_dtype)
    elif policy == "promote":
        assert out_dtype["bfloat16"] == "bfloat16" and out_dtype["float32"] == "float32", (name, out_dtype)
        assert out_dtype["mixed"] == "float32" and out_dtype["mixed_rev"] == "float32", (name, out_dtype)
    else:
        assert out_dtype["float32"] == "float32" and out_dtype["bfloat16"] == "bfloat16", (name, out_dtype)
        assert out_dtype.get("mixed", "float32") == "float32", (name, out_dtype)


def main():
    registrations = sorted(torch._C._dispatch_get_registrations_for_dispatch_key("AutocastCPU"))
    reg = set(registrations)
    cases = []
    for c in CASES:
        runs = {}
        for kind in ("float32", "bfloat16", "mixed", "mixed_rev"):
            r = run(c, kind)
            if r is not None:
                runs[kind] = r
        registered = c["aten"] in reg
        check_policy(c, runs, registered)
        inputs = []
        for t in c["inputs"]:
            inputs.append({"dtype": "float" if t.is_floating_point() else dtype_name(t.dtype), "shape": list(t.shape),
                           "values": clean(encode(t))})
        entry = {"name": c["name"], "policy": c["policy"], "aten": c["aten"], "registered": registered,
                 "inputs": inputs, "runs": runs}
        if c["transform"] is not None:
            entry["transform"] = c["transform"]
        if c["tol"] is not None:
            entry["tol"] = c["tol"]
        if c["note"]:
            entry["note"] = c["note"]
        cases.append(entry)
    covered = {c["aten"] for c in CASES}
    uncovered = [op for op in registrations if op not in covered and op not in MISSING_IN_EMBER]
    assert not uncovered, f"list ops neither tested nor explained: {uncovered}"
    stale = [op for op in MISSING_IN_EMBER if op not in reg]
    assert not stale, f"not on the lists: {stale}"
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names))
    doc = {
        "torch_version": torch.__version__,
        "autocast": "torch.autocast('cpu', dtype=torch.bfloat16)",
        "autocast_cpu_ops": registrations,
        "missing_in_ember": MISSING_IN_EMBER,
        "cast_counts": cast_counts(),
        "cases": cases,
    }
    # One case per line: readable diffs without a line per number.
    path = os.path.join(HERE, "autocast_lists.json")
    with open(path, "w") as f:
        f.write("{\n")
        for key in ("torch_version", "autocast", "autocast_cpu_ops", "missing_in_ember", "cast_counts"):
            f.write(f" {json.dumps(key)}: {json.dumps(doc[key])},\n")
        f.write(' "cases": [\n')
        f.write(",\n".join("  " + json.dumps(c) for c in cases))
        f.write("\n ]\n}\n")
    json.load(open(path))  # well formed
    by_policy = {}
    for c in cases:
        by_policy[c["policy"]] = by_policy.get(c["policy"], 0) + 1
    print(f"wrote {path}: {len(cases)} cases {by_policy}; {len(registrations)} AutocastCPU ops, "
          f"{len(covered & reg)} tested, {len(MISSING_IN_EMBER)} missing in ember")


if __name__ == "__main__":
    main()
