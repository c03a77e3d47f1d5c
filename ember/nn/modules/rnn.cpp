#include "ember/nn/modules/rnn.h"

#include <cmath>
#include <ostream>

#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/linear.h"
#include "ember/ops/functions.h"

namespace ember::nn {
namespace detail {
namespace {

using State = std::vector<Tensor>;  // {h} or, for LSTM, {h, c}

struct CellWeights {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;  // b_* undefined without bias, w_hr without projection
};

const char* mode_name(RNNMode mode) {
  switch (mode) {
    case RNNMode::RNN_TANH:
    case RNNMode::RNN_RELU: return "RNN";
    case RNNMode::LSTM: return "LSTM";
    case RNNMode::GRU: return "GRU";
  }
  return "RNN";
}
int64_t gate_count(RNNMode mode) { return mode == RNNMode::LSTM ? 4 : mode == RNNMode::GRU ? 3 : 1; }
RNNMode rnn_mode(init::Nonlinearity n, const char* op) {
  EMBER_CHECK(n == init::Nonlinearity::Tanh || n == init::Nonlinearity::ReLU, op,
              ": Unknown nonlinearity; expected torch::kTanh or torch::kReLU");
  return n == init::Nonlinearity::Tanh ? RNNMode::RNN_TANH : RNNMode::RNN_RELU;
}

// One time step, given the input's projection gi = x W_ih^T + b_ih (batch, gates * hidden).
State cell_step(RNNMode mode, const Tensor& gi, const State& s, const CellWeights& w) {
  const Tensor& h = s[0];
  const Tensor gh = functional::linear(h, w.w_hh, w.b_hh);
  switch (mode) {
    case RNNMode::RNN_TANH: return {tanh(gi.add(gh))};
    case RNNMode::RNN_RELU: return {relu(gi.add(gh))};
    case RNNMode::LSTM: {
      const std::vector<Tensor> g = gi.add(gh).chunk(4, -1);  // input, forget, cell, output gates
      Tensor c = sigmoid(g[1]).mul(s[1]).add(sigmoid(g[0]).mul(tanh(g[2])));
      Tensor out = sigmoid(g[3]).mul(tanh(c));
      return {w.w_hr.defined() ? matmul(out, w.w_hr.t()) : out, c};
    }
    case RNNMode::GRU: {
      const std::vector<Tensor> i = gi.chunk(3, -1), hh = gh.chunk(3, -1);  // reset, update, new
      Tensor r = sigmoid(i[0].add(hh[0])), z = sigmoid(i[1].add(hh[1]));
      Tensor n = tanh(i[2].add(r.mul(hh[2])));
      return {n.add(z.mul(h.sub(n)))};  // (1 - z) * n + z * h
    }
  }
  EMBER_INTERNAL_ASSERT(false, "unknown RNN mode");
}

// One direction of one layer over x (seq, batch, features): the outputs h_t stacked, and the
// final state. The input projection is one GEMM for all steps.
// With batch_sizes (a packed batch, sequences sorted by decreasing length): step t runs the
// first batch_sizes[t] rows only; the others keep their state (a finished sequence its last,
// in reverse a sequence not yet started its initial one) and output zeros.
std::tuple<Tensor, State> run_direction(RNNMode mode, const Tensor& x, State s, const CellWeights& w, bool reverse,
                                        const std::vector<int64_t>* batch_sizes) {
  const Tensor gi = functional::linear(x, w.w_ih, w.b_ih);
  const int64_t steps = x.size(0), B = x.size(1);
  std::vector<Tensor> out(static_cast<size_t>(steps));
  for (int64_t k = 0; k < steps; ++k) {
    const int64_t t = reverse ? steps - 1 - k : k;
    const int64_t n = batch_sizes ? (*batch_sizes)[size_t(t)] : B;
    if (n == B) {
      s = cell_step(mode, gi[t], s, w);
      out[size_t(t)] = s[0];
      continue;
    }
    State active;
    for (const Tensor& c : s) active.push_back(c.narrow(0, 0, n));
    const State next = cell_step(mode, gi[t].narrow(0, 0, n), active, w);
    for (size_t c = 0; c < s.size(); ++c) s[c] = cat({next[c], s[c].narrow(0, n, B - n)}, 0);
    out[size_t(t)] = cat({next[0], zeros({B - n, next[0].size(1)}, next[0].options())}, 0);
  }
  return {stack(out), s};
}

}  // namespace

// ---- RNNImplBase ---------------------------------------------------------------------------
template <class Derived>
RNNImplBase<Derived>::RNNImplBase(const RNNOptionsBase& options) : options_base(options) {
  reset();
}

template <class Derived>
void RNNImplBase<Derived>::reset() {
  const RNNOptionsBase& o = options_base;
  const char* name = mode_name(o.mode());
  EMBER_CHECK(o.hidden_size() > 0, name, ": hidden_size must be greater than zero, got ", o.hidden_size());
  EMBER_CHECK(o.num_layers() > 0, name, ": num_layers must be greater than zero, got ", o.num_layers());
  EMBER_CHECK(o.dropout() >= 0 && o.dropout() <= 1, name, ": dropout should be a number in range [0, 1] "
              "representing the probability of an element being zeroed, got ", o.dropout());
  EMBER_CHECK(o.proj_size() >= 0, name, ": proj_size should be a positive integer or zero to disable projections");
  EMBER_CHECK(o.proj_size() < o.hidden_size(), name, ": proj_size has to be smaller than hidden_size, got proj_size=",
              o.proj_size(), " and hidden_size=", o.hidden_size());
  EMBER_CHECK(o.proj_size() == 0 || o.mode() == RNNMode::LSTM, "proj_size argument is only supported for LSTM, "
              "not RNN or GRU");
  flat_weights_.clear();
  const int64_t gates = gate_count(o.mode()) * o.hidden_size();
  const int64_t real_hidden = o.proj_size() > 0 ? o.proj_size() : o.hidden_size();
  const int64_t directions = o.bidirectional() ? 2 : 1;
  for (int64_t layer = 0; layer < o.num_layers(); ++layer)
    for (int64_t d = 0; d < directions; ++d) {
      const int64_t in = layer == 0 ? o.input_size() : real_hidden * directions;
      const std::string suffix = "_l" + std::to_string(layer) + (d == 1 ? "_reverse" : "");
      auto add = [&](const std::string& n, std::vector<int64_t> shape) {
        flat_weights_.push_back(this->register_parameter(n + suffix, ember::empty(shape)));
      };
      add("weight_ih", {gates, in});
      add("weight_hh", {gates, real_hidden});
      if (o.bias()) {
        add("bias_ih", {gates});
        add("bias_hh", {gates});
      }
      if (o.proj_size() > 0) add("weight_hr", {o.proj_size(), o.hidden_size()});
    }
  reset_parameters();
}

template <class Derived>
void RNNImplBase<Derived>::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(double(options_base.hidden_size()));
  for (Tensor& w : flat_weights_) init::uniform_(w, -stdv, stdv);
}

template <class Derived>
void RNNImplBase<Derived>::pretty_print(std::ostream& s) const {
  const RNNOptionsBase& o = options_base;
  s << "torch::nn::" << mode_name(o.mode()) << "(input_size=" << o.input_size() << ", hidden_size=" << o.hidden_size()
    << ", num_layers=" << o.num_layers() << ", bias=" << (o.bias() ? "true" : "false")
    << ", batch_first=" << (o.batch_first() ? "true" : "false") << ", dropout=" << o.dropout()
    << ", bidirectional=" << (o.bidirectional() ? "true" : "false");
  if (o.proj_size() > 0) s << ", proj_size=" << o.proj_size();
  s << ")";
}

template <class Derived>
std::tuple<Tensor, std::vector<Tensor>> RNNImplBase<Derived>::run(const Tensor& input, std::vector<Tensor> hx,
                                                                  const std::vector<int64_t>* batch_sizes) {
  const RNNOptionsBase& o = options_base;
  const char* name = mode_name(o.mode());
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, name, ": Expected input to be 2-D or 3-D but received ",
              input.dim(), "-D tensor");
  const bool batched = input.dim() == 3, packed = batch_sizes != nullptr;
  EMBER_CHECK(input.size(-1) == o.input_size(), name, ": input.size(-1) must be equal to input_size. Expected ",
              o.input_size(), ", got ", input.size(-1), " (input of shape ", input.sizes(), ")");
  EMBER_CHECK(input.size(batched && o.batch_first() ? 1 : 0) > 0, name, ": expected a non-empty sequence, got input "
              "of shape ", input.sizes());
  Tensor x = !batched ? input.unsqueeze(1) : o.batch_first() && !packed ? input.transpose(0, 1) : input;  // (seq, batch, in)

  const int64_t directions = o.bidirectional() ? 2 : 1, layers = o.num_layers();
  const bool is_lstm = o.mode() == RNNMode::LSTM;
  for (size_t c = 0; c < hx.size(); ++c) {
    const int64_t features = c == 0 && o.proj_size() > 0 ? o.proj_size() : o.hidden_size();
    const std::vector<int64_t> expected{layers * directions, x.size(1), features};
    Tensor& h = hx[c];
    if (!h.defined()) {
      h = zeros(expected, x.options());
      continue;
    }
    EMBER_CHECK(h.dim() == (batched ? 3 : 2), name, ": For ", batched ? "batched 3-D" : "unbatched 2-D",
                " input, ", is_lstm ? "hx and cx" : "hx", " should also be ", batched ? 3 : 2, "-D but got ",
                h.dim(), "-D tensor");
    std::vector<int64_t> want = expected;  // in the caller's terms: no batch dim when unbatched
    if (!batched) want.erase(want.begin() + 1);
    const std::string which = is_lstm ? "hidden[" + std::to_string(c) + "]" : "hidden";
    EMBER_CHECK(h.sizes() == IntArrayRef(want), name, ": Expected ", which, " size ", IntArrayRef(want), ", got ",
                h.sizes());
    EMBER_CHECK(h.scalar_type() == x.scalar_type(), name, ": input and ", which, " must have the same dtype, got ",
                x.scalar_type(), " and ", h.scalar_type());
    if (!batched) h = h.unsqueeze(1);
  }

  // Weights of (layer, direction) number k: flat_weights_[k * per + ...] in registration order.
  const size_t per = 2 + (o.bias() ? 2 : 0) + (o.proj_size() > 0 ? 1 : 0);
  std::vector<std::vector<Tensor>> finals(hx.size());
  for (int64_t layer = 0; layer < layers; ++layer) {
    std::vector<Tensor> outs;
    for (int64_t d = 0; d < directions; ++d) {
      const int64_t k = layer * directions + d;
      const Tensor* p = &flat_weights_[size_t(k) * per];
      const Tensor none;
      const CellWeights w{p[0], p[1], o.bias() ? p[2] : none, o.bias() ? p[3] : none,
                          o.proj_size() > 0 ? p[per - 1] : none};
      State s;
      for (const Tensor& h : hx) s.push_back(h[k]);
      auto [y, last] = run_direction(o.mode(), x, std::move(s), w, d == 1, batch_sizes);
      outs.push_back(y);
      for (size_t c = 0; c < last.size(); ++c) finals[c].push_back(last[c]);
    }
    x = directions == 2 ? cat(outs, 2) : outs[0];
    if (layer + 1 < layers) x = functional::dropout(x, o.dropout(), this->is_training());
  }
  std::vector<Tensor> h_n;
  for (auto& f : finals) h_n.push_back(batched ? stack(f) : stack(f).squeeze(1));
  Tensor out = !batched ? x.squeeze(1) : o.batch_first() && !packed ? x.transpose(0, 1) : x;
  return {out, h_n};
}

template <class Derived>
std::tuple<utils::rnn::PackedSequence, std::vector<Tensor>> RNNImplBase<Derived>::run_packed(
    const utils::rnn::PackedSequence& packed, std::vector<Tensor> hx) {
  EMBER_CHECK(packed.defined(), mode_name(options_base.mode()), ": the packed input is empty");
  const Tensor bs_t = packed.batch_sizes().to(kCPU, kLong).contiguous();  // read on the host
  const std::vector<int64_t> bs(bs_t.data_ptr<int64_t>(), bs_t.data_ptr<int64_t>() + bs_t.numel());
  // Padded (T, B, *) in the packed (sorted) batch order; the initial states follow it.
  auto [padded, lengths] = utils::rnn::pad_packed_sequence(utils::rnn::PackedSequence(packed.data(), bs_t));
  if (packed.sorted_indices().defined())
    for (Tensor& h : hx)
      if (h.defined()) h = h.index_select(1, packed.sorted_indices().to(h.device()));
  auto [out, h_n] = run(padded, std::move(hx), &bs);
  if (packed.unsorted_indices().defined())
    for (Tensor& h : h_n) h = h.index_select(1, packed.unsorted_indices().to(h.device()));
  const Tensor rows = utils::rnn::pack_padded_sequence(out, lengths).data();
  return {utils::rnn::PackedSequence(rows, packed.batch_sizes(), packed.sorted_indices(),
                                     packed.unsorted_indices()),
          h_n};
}

// ---- RNNCellImplBase -------------------------------------------------------------------------
template <class Derived>
RNNCellImplBase<Derived>::RNNCellImplBase(RNNMode mode, int64_t input_size, int64_t hidden_size, bool bias)
    : mode_(mode), input_size_(input_size), hidden_size_(hidden_size), bias_(bias) {
  reset();
}

template <class Derived>
void RNNCellImplBase<Derived>::reset() {
  EMBER_CHECK(hidden_size_ > 0, mode_name(mode_), "Cell: hidden_size must be greater than zero, got ", hidden_size_);
  const int64_t gates = gate_count(mode_) * hidden_size_;
  weight_ih = this->register_parameter("weight_ih", empty({gates, input_size_}));
  weight_hh = this->register_parameter("weight_hh", empty({gates, hidden_size_}));
  bias_ih = this->register_parameter("bias_ih", bias_ ? empty({gates}) : Tensor(), bias_);
  bias_hh = this->register_parameter("bias_hh", bias_ ? empty({gates}) : Tensor(), bias_);
  reset_parameters();
}

template <class Derived>
void RNNCellImplBase<Derived>::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(double(hidden_size_));
  for (Tensor* w : {&weight_ih, &weight_hh, &bias_ih, &bias_hh})
    if (w->defined()) init::uniform_(*w, -stdv, stdv);
}

template <class Derived>
void RNNCellImplBase<Derived>::pretty_print(std::ostream& s) const {
  s << "torch::nn::" << mode_name(mode_) << "Cell(" << input_size_ << ", " << hidden_size_;
  if (!bias_) s << ", bias=false";
  if (mode_ == RNNMode::RNN_RELU) s << ", nonlinearity=kReLU";
  s << ")";
}

template <class Derived>
std::vector<Tensor> RNNCellImplBase<Derived>::step(const Tensor& input, std::vector<Tensor> hx) {
  const std::string name = std::string(mode_name(mode_)) + "Cell";
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, name, ": Expected input to be 1-D or 2-D but received ",
              input.dim(), "-D tensor");
  const bool batched = input.dim() == 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  EMBER_CHECK(x.size(1) == input_size_, name, ": input has inconsistent input_size: got ", x.size(1), ", expected ",
              input_size_);
  for (size_t c = 0; c < hx.size(); ++c) {
    Tensor& h = hx[c];
    if (!h.defined()) {
      h = zeros({x.size(0), hidden_size_}, x.options());
      continue;
    }
    const std::string which = mode_ == RNNMode::LSTM ? "[" + std::to_string(c) + "]" : "";
    EMBER_CHECK(h.dim() == input.dim(), name, ": Expected hidden", which, " to be ", input.dim(), "-D like the input, "
                "but received ", h.dim(), "-D tensor");
    if (!batched) h = h.unsqueeze(0);
    EMBER_CHECK(h.size(0) == x.size(0), name, ": Input batch size ", x.size(0), " doesn't match hidden", which,
                " batch size ", h.size(0));
    EMBER_CHECK(h.size(1) == hidden_size_, name, ": hidden", which, " has inconsistent hidden_size: got ", h.size(1),
                ", expected ", hidden_size_);
    EMBER_CHECK(h.scalar_type() == x.scalar_type(), name, ": input and hidden", which,
                " must have the same dtype, got ", x.scalar_type(), " and ", h.scalar_type());
  }
  State s = cell_step(mode_, functional::linear(x, weight_ih, bias_ih), hx,
                      CellWeights{weight_ih, weight_hh, bias_ih, bias_hh, Tensor()});
  if (!batched)
    for (Tensor& t : s) t = t.squeeze(0);
  return s;
}

template class RNNImplBase<RNNImpl>;
template class RNNImplBase<LSTMImpl>;
template class RNNImplBase<GRUImpl>;
template class RNNCellImplBase<RNNCellImpl>;
template class RNNCellImplBase<LSTMCellImpl>;
template class RNNCellImplBase<GRUCellImpl>;

}  // namespace detail

// ---- the modules -------------------------------------------------------------------------------
namespace {
template <class Options>
detail::RNNOptionsBase base_options(detail::RNNMode mode, const Options& o) {
  return detail::RNNOptionsBase(mode, o.input_size(), o.hidden_size())
      .num_layers(o.num_layers())
      .bias(o.bias())
      .batch_first(o.batch_first())
      .dropout(o.dropout())
      .bidirectional(o.bidirectional());
}
}  // namespace

RNNImpl::RNNImpl(const RNNOptions& options_)
    : RNNImplBase(base_options(detail::rnn_mode(options_.nonlinearity(), "RNN"), options_)), options(options_) {}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  auto [out, h] = run(input, {std::move(hx)});
  return {out, h[0]};
}
std::tuple<utils::rnn::PackedSequence, Tensor> RNNImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  auto [out, h] = run_packed(packed_input, {std::move(hx)});
  return {out, h[0]};
}

LSTMImpl::LSTMImpl(const LSTMOptions& options_)
    : RNNImplBase(base_options(detail::RNNMode::LSTM, options_).proj_size(options_.proj_size())), options(options_) {}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(const Tensor& input,
                                                                 std::optional<std::tuple<Tensor, Tensor>> hx) {
  auto [out, h] = run(input, hx ? std::vector<Tensor>{std::get<0>(*hx), std::get<1>(*hx)} : std::vector<Tensor>(2));
  return {out, {h[0], h[1]}};
}
std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> LSTMImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, std::optional<std::tuple<Tensor, Tensor>> hx) {
  auto [out, h] = run_packed(packed_input, hx ? std::vector<Tensor>{std::get<0>(*hx), std::get<1>(*hx)}
                                              : std::vector<Tensor>(2));
  return {out, {h[0], h[1]}};
}

GRUImpl::GRUImpl(const GRUOptions& options_)
    : RNNImplBase(base_options(detail::RNNMode::GRU, options_)), options(options_) {}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  auto [out, h] = run(input, {std::move(hx)});
  return {out, h[0]};
}
std::tuple<utils::rnn::PackedSequence, Tensor> GRUImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  auto [out, h] = run_packed(packed_input, {std::move(hx)});
  return {out, h[0]};
}

RNNCellImpl::RNNCellImpl(const RNNCellOptions& options_)
    : RNNCellImplBase(detail::rnn_mode(options_.nonlinearity(), "RNNCell"), options_.input_size(),
                      options_.hidden_size(), options_.bias()),
      options(options_) {}
Tensor RNNCellImpl::forward(const Tensor& input, Tensor hx) { return step(input, {std::move(hx)})[0]; }

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& options_)
    : RNNCellImplBase(detail::RNNMode::LSTM, options_.input_size(), options_.hidden_size(), options_.bias()),
      options(options_) {}
std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx) {
  auto s = step(input, hx ? std::vector<Tensor>{std::get<0>(*hx), std::get<1>(*hx)} : std::vector<Tensor>(2));
  return {s[0], s[1]};
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& options_)
    : RNNCellImplBase(detail::RNNMode::GRU, options_.input_size(), options_.hidden_size(), options_.bias()),
      options(options_) {}
Tensor GRUCellImpl::forward(const Tensor& input, Tensor hx) { return step(input, {std::move(hx)})[0]; }

}  // namespace ember::nn
