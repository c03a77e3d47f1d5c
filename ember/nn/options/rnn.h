// Options of the recurrent layers (LibTorch's torch/nn/options/rnn.h): RNN, LSTM, GRU and
// their single-step cells, and detail::RNNOptionsBase (what RNN, LSTM and GRU share).
// Modules: ember/nn/modules/rnn.h.
#pragma once
#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"

namespace ember::nn {

// RNNOptions: input_size, hidden_size, num_layers, nonlinearity (torch::kTanh or kReLU),
// bias, batch_first, dropout (between layers, training only), bidirectional.
struct RNNOptions {
  RNNOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(int64_t, num_layers) = 1;
  TORCH_ARG(init::Nonlinearity, nonlinearity) = init::Nonlinearity::Tanh;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(bool, batch_first) = false;
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bidirectional) = false;
};

// LSTMOptions: as RNNOptions without nonlinearity, plus proj_size (0: no projection; else
// h_t = W_hr (o_t * tanh(c_t)) has proj_size features).
struct LSTMOptions {
  LSTMOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(int64_t, num_layers) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(bool, batch_first) = false;
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bidirectional) = false;
  TORCH_ARG(int64_t, proj_size) = 0;
};

struct GRUOptions {
  GRUOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(int64_t, num_layers) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(bool, batch_first) = false;
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bidirectional) = false;
};

struct RNNCellOptions {
  RNNCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(init::Nonlinearity, nonlinearity) = init::Nonlinearity::Tanh;
};
struct LSTMCellOptions {
  LSTMCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(bool, bias) = true;
};
struct GRUCellOptions {
  GRUCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(bool, bias) = true;
};

namespace detail {

// RNNMode, the cell a recurrent module runs (torch::kRNN_TANH, kRNN_RELU, kLSTM, kGRU): ember/nn/enum.h.

// What RNN, LSTM and GRU share (LibTorch's detail::RNNOptionsBase).
struct RNNOptionsBase {
  RNNOptionsBase(RNNMode mode, int64_t input_size, int64_t hidden_size)
      : mode_(mode), input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(RNNMode, mode);
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(int64_t, num_layers) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(bool, batch_first) = false;
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bidirectional) = false;
  TORCH_ARG(int64_t, proj_size) = 0;
};
}  // namespace detail

}  // namespace ember::nn
