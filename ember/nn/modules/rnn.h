// Recurrent layers with LibTorch's names (torch/nn/modules/rnn.h) and PyTorch's semantics: RNN
// (tanh/relu), LSTM (with proj_size), GRU over (seq, batch, feature) / batch_first / unbatched
// inputs, stacked and bidirectional, and the single-step cells RNNCell, LSTMCell, GRUCell. One
// recurrence (rnn.cpp) serves all of them; it composes differentiable ops, so both autograd
// modes apply. Options: ember/nn/options/rnn.h.
#pragma once
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/nn/init.h"
#include "ember/nn/any.h"
#include "ember/nn/module.h"
#include "ember/nn/options/rnn.h"
#include "ember/nn/rnn_utils.h"

namespace ember::nn {

namespace detail {

// Parameters per layer and direction, registered in PyTorch's order: weight_ih_l{k}{suffix},
// weight_hh_l{k}{suffix}, bias_ih_l{k}{suffix}, bias_hh_l{k}{suffix}, weight_hr_l{k}{suffix}
// (suffix "_reverse" for the backward direction), all ~ U(-1/sqrt(hidden), 1/sqrt(hidden)).
template <class Derived>
class RNNImplBase : public Cloneable<Derived> {
 public:
  explicit RNNImplBase(const RNNOptionsBase& options_base);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // cuDNN packs weights into one buffer; on ember's backends there is nothing to do.
  void flatten_parameters() {}
  // The parameters in registration order (LibTorch's all_weights()).
  std::vector<Tensor> all_weights() const { return flat_weights_; }

  RNNOptionsBase options_base;

 protected:
  // The stacked recurrence: input (seq, batch, input_size), (batch, seq, input_size) when
  // batch_first, or unbatched (seq, input_size); hx holds h0 (and c0 for LSTM), each
  // (num_layers * directions, batch, features) or unbatched without the batch dim; undefined
  // entries start at zero. Returns the output and {h_n} or {h_n, c_n}.
  // batch_sizes: input is a packed batch laid out padded (seq, batch, input_size) in the
  // packed order (see run_direction).
  std::tuple<Tensor, std::vector<Tensor>> run(const Tensor& input, std::vector<Tensor> hx,
                                              const std::vector<int64_t>* batch_sizes = nullptr);
  // A PackedSequence in and out; hx and the final states in the caller's batch order.
  std::tuple<utils::rnn::PackedSequence, std::vector<Tensor>> run_packed(const utils::rnn::PackedSequence& packed,
                                                                         std::vector<Tensor> hx);

  std::vector<Tensor> flat_weights_;  // handles to the registered parameters, in order
};

// The cells' parameters: weight_ih (chunks * hidden, input), weight_hh (chunks * hidden,
// hidden), bias_ih, bias_hh (undefined without bias), all ~ U(-1/sqrt(hidden), 1/sqrt(hidden)).
template <class Derived>
class RNNCellImplBase : public Cloneable<Derived> {
 public:
  RNNCellImplBase(RNNMode mode, int64_t input_size, int64_t hidden_size, bool bias);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  Tensor weight_ih, weight_hh, bias_ih, bias_hh;

 protected:
  // One step on input (batch, input_size) or unbatched (input_size); hx as for run().
  std::vector<Tensor> step(const Tensor& input, std::vector<Tensor> hx);

  RNNMode mode_;
  int64_t input_size_, hidden_size_;
  bool bias_;
};

}  // namespace detail

class RNNImpl : public detail::RNNImplBase<RNNImpl> {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options);
  // (output, h_n): output (seq, batch, directions * hidden), h_n (layers * directions, batch, hidden).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(::ember::Tensor())})
  // Each sequence of the packed batch runs for its own length; h_n holds each one's last state.
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});
  RNNOptions options;
};
TORCH_MODULE(RNN);

class LSTMImpl : public detail::RNNImplBase<LSTMImpl> {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size) : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options);
  // (output, (h_n, c_n)); h has proj_size features when projecting, c always hidden_size.
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(const Tensor& input,
                                                         std::optional<std::tuple<Tensor, Tensor>> hx = {});
  FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(std::optional<std::tuple<Tensor, Tensor>>())})
  std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, std::optional<std::tuple<Tensor, Tensor>> hx = {});
  LSTMOptions options;
};
TORCH_MODULE(LSTM);

class GRUImpl : public detail::RNNImplBase<GRUImpl> {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options);
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(::ember::Tensor())})
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});
  GRUOptions options;
};
TORCH_MODULE(GRU);

class RNNCellImpl : public detail::RNNCellImplBase<RNNCellImpl> {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size) : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options);
  Tensor forward(const Tensor& input, Tensor hx = {});
  FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(::ember::Tensor())})
  RNNCellOptions options;
};
TORCH_MODULE(RNNCell);

class LSTMCellImpl : public detail::RNNCellImplBase<LSTMCellImpl> {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size) : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  // (h', c')
  std::tuple<Tensor, Tensor> forward(const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx = {});
  FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(std::optional<std::tuple<Tensor, Tensor>>())})
  LSTMCellOptions options;
};
TORCH_MODULE(LSTMCell);

class GRUCellImpl : public detail::RNNCellImplBase<GRUCellImpl> {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size) : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options);
  Tensor forward(const Tensor& input, Tensor hx = {});
  FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(::ember::Tensor())})
  GRUCellOptions options;
};
TORCH_MODULE(GRUCell);

extern template class detail::RNNImplBase<RNNImpl>;
extern template class detail::RNNImplBase<LSTMImpl>;
extern template class detail::RNNImplBase<GRUImpl>;
extern template class detail::RNNCellImplBase<RNNCellImpl>;
extern template class detail::RNNCellImplBase<LSTMCellImpl>;
extern template class detail::RNNCellImplBase<GRUCellImpl>;

}  // namespace ember::nn
