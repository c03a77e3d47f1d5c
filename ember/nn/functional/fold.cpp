// unfold / fold: one gather / index_add over the padded image, each the other's adjoint. Error
// messages are PyTorch 1.13's.
#include "ember/nn/functional/fold.h"

#include "ember/ops/functions.h"

namespace ember::nn {

namespace functional {

namespace {
// For unfold/fold: the flat index into the padded (Hp x Wp) image of each (kernel offset,
// block) pair, kernel offsets outer, as im2col lays out its columns.
Tensor block_index(int64_t wp, const int64_t blocks[2], const std::vector<int64_t>& k, const std::vector<int64_t>& dil,
                   const std::vector<int64_t>& stride) {
  Tensor idx = empty({k[0] * k[1] * blocks[0] * blocks[1]}, dtype(kLong));
  int64_t* p = idx.data_ptr<int64_t>();
  for (int64_t ki = 0; ki < k[0]; ++ki)
    for (int64_t kj = 0; kj < k[1]; ++kj)
      for (int64_t bi = 0; bi < blocks[0]; ++bi)
        for (int64_t bj = 0; bj < blocks[1]; ++bj) *p++ = (bi * stride[0] + ki * dil[0]) * wp + bj * stride[1] + kj * dil[1];
  return idx;
}

void check_block_args(const std::vector<int64_t>& k, const std::vector<int64_t>& dil, const std::vector<int64_t>& pad,
                      const std::vector<int64_t>& stride) {
  EMBER_CHECK(k[0] > 0 && k[1] > 0, "kernel size should be greater than zero, but got kernel_height: ", k[0],
              " kernel_width: ", k[1]);
  EMBER_CHECK(dil[0] > 0 && dil[1] > 0, "dilation should be greater than zero, but got dilation_height: ", dil[0],
              " dilation_width: ", dil[1]);
  EMBER_CHECK(pad[0] >= 0 && pad[1] >= 0, "padding should be non-negative, but got pad_height: ", pad[0],
              " pad_width: ", pad[1]);
  EMBER_CHECK(stride[0] > 0 && stride[1] > 0, "stride should be greater than zero, but got stride_height: ", stride[0],
              " stride_width: ", stride[1]);
}

// Sliding blocks along one dim (floor division; a kernel larger than the padded size gives 0).
int64_t n_blocks(int64_t size, int64_t k, int64_t dil, int64_t pad, int64_t stride) {
  const int64_t room = size + 2 * pad - (dil * (k - 1) + 1);
  return room < 0 ? 0 : room / stride + 1;
}
}  // namespace

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& o) {
  const auto &k = o.kernel_size(), &dil = o.dilation(), &pad = o.padding(), &stride = o.stride();
  check_block_args(k, dil, pad, stride);
  const int64_t nd = input.dim();
  EMBER_CHECK((nd == 3 || nd == 4) && input.size(nd - 3) != 0 && input.size(nd - 2) != 0 && input.size(nd - 1) != 0,
              "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
              "input, but got: ", input.sizes());
  const Tensor x = nd == 3 ? input.unsqueeze(0) : input;
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const int64_t blocks[2] = {n_blocks(h, k[0], dil[0], pad[0], stride[0]), n_blocks(w, k[1], dil[1], pad[1], stride[1])};
  EMBER_CHECK(blocks[0] >= 1 && blocks[1] >= 1, "Given input with spatial size (", h, ", ", w, "), kernel_size=(", k[0],
              ", ", k[1], "), dilation=(", dil[0], ", ", dil[1], "), padding=(", pad[0], ", ", pad[1],
              "), calculated shape of the array of sliding blocks as (", blocks[0], ", ", blocks[1],
              "), but its components must be at least one.");
  const int64_t hp = h + 2 * pad[0], wp = w + 2 * pad[1], L = blocks[0] * blocks[1];
  Tensor padded = pad[0] || pad[1] ? constant_pad_nd(x, {pad[1], pad[1], pad[0], pad[0]}, 0) : x;
  Tensor cols = padded.reshape({n, c, hp * wp}).index_select(2, block_index(wp, blocks, k, dil, stride));
  cols = cols.view({n, c * k[0] * k[1], L});
  return nd == 3 ? cols.squeeze(0) : cols;
}

Tensor fold(const Tensor& input, const FoldFuncOptions& o) {
  const auto &out_size = o.output_size(), &k = o.kernel_size(), &dil = o.dilation(), &pad = o.padding(),
             &stride = o.stride();
  check_block_args(k, dil, pad, stride);
  const int64_t nd = input.dim();
  EMBER_CHECK((nd == 2 || nd == 3) && input.size(nd - 2) != 0 && input.size(nd - 1) != 0, "Expected 2D or 3D (batch "
              "mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: ",
              input.sizes());
  const Tensor x = nd == 2 ? input.unsqueeze(0) : input;
  const int64_t planes = x.size(1), L = x.size(2), h = out_size[0], w = out_size[1];
  EMBER_CHECK(planes % (k[0] * k[1]) == 0, "Expected size of input's dimension 1 to be divisible by the product of "
              "kernel_size, but got input.size(1)=", planes, " and kernel_size=(", k[0], ", ", k[1], ").");
  const int64_t blocks[2] = {n_blocks(h, k[0], dil[0], pad[0], stride[0]), n_blocks(w, k[1], dil[1], pad[1], stride[1])};
  EMBER_CHECK(L == blocks[0] * blocks[1], "Given output_size=(", h, ", ", w, "), kernel_size=(", k[0], ", ", k[1],
              "), dilation=(", dil[0], ", ", dil[1], "), padding=(", pad[0], ", ", pad[1], "), stride=(", stride[0],
              ", ", stride[1], "), expected size of input's dimension 2 to match the calculated number of sliding "
              "blocks ", blocks[0], " * ", blocks[1], " = ", blocks[0] * blocks[1], ", but got input.size(2)=", L, ".");
  EMBER_CHECK(blocks[0] >= 1 && blocks[1] >= 1, "Given output_size=(", h, ", ", w, "), kernel_size=(", k[0], ", ", k[1],
              "), dilation=(", dil[0], ", ", dil[1], "), padding=(", pad[0], ", ", pad[1], "), stride=(", stride[0],
              ", ", stride[1], "), calculated shape of the array of sliding blocks as (", blocks[0], ", ", blocks[1],
              "), which is too small (non-positive).");
  const int64_t n = x.size(0), c = planes / (k[0] * k[1]), hp = h + 2 * pad[0], wp = w + 2 * pad[1];
  Tensor img = zeros({n, c, hp * wp}, x.options())
                   .index_add(2, block_index(wp, blocks, k, dil, stride), x.reshape({n, c, k[0] * k[1] * L}))
                   .view({n, c, hp, wp});
  if (pad[0] || pad[1]) img = img.narrow(2, pad[0], h).narrow(3, pad[1], w).contiguous();
  return nd == 2 ? img.squeeze(0) : img;
}

}  // namespace functional

}  // namespace ember::nn
