// torch::nn::utils::rnn (PackedSequence, pack/pad) and recurrent modules on packed batches,
// against PyTorch (tests/golden/gen_nn_rnn_packed.py): data, batch sizes, orders, padding,
// outputs, final states and gradients; errors.
#include "test_util.h"

namespace ember {
namespace {

namespace rnn = nn::utils::rnn;

const std::map<std::string, Tensor>& rnn_golden() {
  static const auto g = serialize::load_file(std::string(EMBER_GOLDEN_DIR) + "/nn_rnn_packed.safetensors").tensors;
  return g;
}
const Tensor& G(const std::string& k) { return rnn_golden().at(k); }

TEST(RnnPacked, PackAndPadMatchPyTorch) {
  const Tensor x = G("sorted.x");
  rnn::PackedSequence p = rnn::pack_padded_sequence(x, tensor({5, 3, 2}));
  EXPECT_TENSOR_EQ(p.data(), G("sorted.data"));
  EXPECT_TENSOR_EQ(p.batch_sizes(), G("sorted.batch_sizes"));
  EXPECT_FALSE(p.sorted_indices().defined());
  p = rnn::pack_padded_sequence(x, tensor({2, 5, 3}), false, /*enforce_sorted=*/false);
  EXPECT_TENSOR_EQ(p.data(), G("unsorted.data"));
  EXPECT_TENSOR_EQ(p.batch_sizes(), G("unsorted.batch_sizes"));
  EXPECT_TENSOR_EQ(p.sorted_indices(), G("unsorted.sorted_indices"));
  EXPECT_TENSOR_EQ(p.unsorted_indices(), G("unsorted.unsorted_indices"));
  auto [padded, lengths] = rnn::pad_packed_sequence(p, /*batch_first=*/true, -1.0, 6);
  EXPECT_TENSOR_EQ(padded, G("unsorted.padded"));
  EXPECT_TENSOR_EQ(lengths, G("unsorted.lengths"));
  const std::vector<Tensor> seqs{G("seq.0"), G("seq.1"), G("seq.2")};
  EXPECT_TENSOR_EQ(rnn::pad_sequence(seqs), G("seq.padded"));
  EXPECT_TENSOR_EQ(rnn::pad_sequence(seqs, true, 7.0), G("seq.padded_bf"));
  EXPECT_TENSOR_EQ(rnn::pack_sequence(seqs, false).data(), G("seq.packed_data"));
  // Gradients flow through packing and padding.
  const Tensor xg = x.clone().requires_grad_();
  auto [back, len] = rnn::pad_packed_sequence(rnn::pack_padded_sequence(xg, tensor({2, 5, 3}), false, false));
  back.sum().backward();
  EXPECT_EQ(xg.grad().sum().item<double>(), 20.0);  // (2 + 5 + 3) time steps x 2 features
}

TEST(RnnPacked, ErrorsAreClear) {
  const Tensor x = randn({4, 2, 3});
  EXPECT_ERROR_WITH(rnn::pack_padded_sequence(x, tensor({2, 4})), "`lengths` array must be sorted in decreasing order");
  EXPECT_ERROR_WITH(rnn::pack_padded_sequence(x, tensor({4, 2, 1})), "Expected `len(lengths)` to be equal to batch_size");
  EXPECT_ERROR_WITH(rnn::pack_padded_sequence(x, tensor({5, 2})), "lengths must be in [1, 4]");
  EXPECT_ERROR_WITH(rnn::pad_packed_sequence(rnn::pack_padded_sequence(x, tensor({4, 2})), false, 0.0, 3),
                    "Expected total_length to be at least the length of the longest sequence");
}

template <class Module>
void check_module(const std::string& name, Module module) {
  SCOPED_TRACE(name);
  serialize::InputArchive archive;
  archive.load_from(std::string(EMBER_GOLDEN_DIR) + "/nn_rnn_packed.safetensors");
  serialize::InputArchive params;
  archive.read(name + ".params", params);
  module->to(kDouble);
  module->load(params);
  const bool bf = module->options.batch_first();
  const Tensor input = G(name + ".input").clone().requires_grad_();
  const rnn::PackedSequence packed = rnn::pack_padded_sequence(input, G("lengths"), bf, false);
  rnn::PackedSequence result;
  Tensor h_n;
  if constexpr (std::is_same_v<Module, nn::LSTM>) {
    auto [res, state] = module->forward_with_packed_input(packed, std::make_tuple(G(name + ".hx"), G(name + ".cx")));
    result = res;
    h_n = std::get<0>(state);
    EXPECT_TENSOR_CLOSE(std::get<1>(state), G(name + ".c_n"), 1e-10, 1e-12);
  } else {
    std::tie(result, h_n) = module->forward_with_packed_input(packed, G(name + ".hx"));
  }
  EXPECT_TENSOR_CLOSE(result.data(), G(name + ".data"), 1e-10, 1e-12);
  EXPECT_TENSOR_CLOSE(h_n, G(name + ".h_n"), 1e-10, 1e-12);
  auto [padded, len] = rnn::pad_packed_sequence(result, bf);
  padded.mul(G(name + ".w")).sum().add(h_n.mul(G(name + ".v")).sum()).backward();
  EXPECT_TENSOR_CLOSE(input.grad(), G(name + ".grad_input"), 1e-10, 1e-12);
  for (const auto& p : module->named_parameters())
    EXPECT_TENSOR_CLOSE(p.value().grad(), G(name + ".grads." + p.key()), 1e-10, 1e-12) << p.key();
}

TEST(RnnPacked, RecurrentModulesMatchPyTorch) {
  check_module("lstm", nn::LSTM(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true)));
  check_module("gru", nn::GRU(nn::GRUOptions(3, 5).batch_first(true)));
  check_module("rnn", nn::RNN(nn::RNNOptions(3, 2).nonlinearity(kReLU).bidirectional(true)));
}

}  // namespace
}  // namespace ember
