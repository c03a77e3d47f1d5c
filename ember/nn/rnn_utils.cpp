#include "ember/nn/rnn_utils.h"

#include <algorithm>
#include <numeric>

#include "ember/ops/functions.h"

namespace ember::nn::utils::rnn {

namespace {
std::vector<int64_t> int_values(const Tensor& t, const char* what) {
  EMBER_CHECK(t.defined() && t.dim() == 1 && !t.is_floating_point() && !t.is_complex(), what,
              " must be a 1-D integer tensor, got ", t.defined() ? t.toString() : std::string("an undefined tensor"),
              t.defined() ? " of shape " : "", t.defined() ? t.sizes() : IntArrayRef());
  const Tensor c = t.to(kLong).to(Device(kCPU)).contiguous();
  return {c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel()};
}
Tensor long_tensor(const std::vector<int64_t>& v) {
  return from_blob(const_cast<int64_t*>(v.data()), {int64_t(v.size())}, TensorOptions().dtype(kLong)).clone();
}
}  // namespace

PackedSequence::PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices, Tensor unsorted_indices)
    : data_(std::move(data)), batch_sizes_(std::move(batch_sizes)), sorted_indices_(std::move(sorted_indices)),
      unsorted_indices_(std::move(unsorted_indices)) {
  if (sorted_indices_.defined() && !unsorted_indices_.defined())
    unsorted_indices_ = empty_like(sorted_indices_).scatter_(0, sorted_indices_, arange(sorted_indices_.numel(),
                                                                                      sorted_indices_.options()));
}

PackedSequence PackedSequence::to(TensorOptions options) const {
  return PackedSequence(data_.to(options), batch_sizes_, sorted_indices_, unsorted_indices_);
}

PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first, bool enforce_sorted) {
  check_defined(input, "pack_padded_sequence", "input");
  EMBER_CHECK(input.numel() > 0, "Cannot pack empty tensors.");
  // LibTorch converts lengths to int64 whatever their dtype (float lengths included).
  if (lengths.defined() && lengths.is_floating_point()) lengths = lengths.to(kLong);
  std::vector<int64_t> len = int_values(lengths, "pack_padded_sequence: lengths");
  EMBER_CHECK(input.dim() >= 2, "pack_padded_sequence: input must have at least 2 dims (T, B, *), got ",
              input.sizes());
  if (batch_first) input = input.transpose(0, 1);
  const int64_t T = input.size(0), B = input.size(1);
  EMBER_CHECK(int64_t(len.size()) == B, "Expected `len(lengths)` to be equal to batch_size, but got ", len.size(),
              " (batch_size=", B, ")");
  Tensor sorted_indices;
  if (enforce_sorted) {
    for (size_t i = 1; i < len.size(); ++i)
      EMBER_CHECK(len[i - 1] >= len[i], "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                  "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep "
                  "this requirement if you do not need ONNX exportability.");
  } else {
    std::vector<int64_t> order(len.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return len[size_t(a)] > len[size_t(b)]; });
    std::vector<int64_t> sorted(len.size());
    for (size_t i = 0; i < order.size(); ++i) sorted[i] = len[size_t(order[i])];
    len = sorted;
    sorted_indices = long_tensor(order);
    input = input.index_select(1, sorted_indices.to(input.device()));
  }
  for (int64_t l : len)
    EMBER_CHECK(l > 0 && l <= T, "pack_padded_sequence: lengths must be in [1, ", T, "] (the input's time steps), got ",
                l, l <= 0 ? " (empty sequences are not allowed)" : "");
  std::vector<int64_t> batch_sizes;
  std::vector<Tensor> steps;
  for (int64_t t = 0; t < len.front(); ++t) {
    int64_t bs = 0;
    while (bs < B && len[size_t(bs)] > t) ++bs;
    batch_sizes.push_back(bs);
    steps.push_back(input[t].narrow(0, 0, bs));
  }
  return PackedSequence(cat(steps, 0), long_tensor(batch_sizes), sorted_indices);
}

std::tuple<Tensor, Tensor> pad_packed_sequence(PackedSequence sequence, bool batch_first, double padding_value,
                                               std::optional<int64_t> total_length) {
  const std::vector<int64_t> bs = int_values(sequence.batch_sizes(), "pad_packed_sequence: batch_sizes");
  EMBER_CHECK(!bs.empty(), "pad_packed_sequence: the packed sequence has no time steps");
  const int64_t T = int64_t(bs.size()), B = bs.front();
  if (total_length)
    EMBER_CHECK(*total_length >= T, "Expected total_length to be at least the length of the longest sequence in input, "
                "but got total_length=", *total_length, " and max sequence length being ", T);
  const Tensor& data = sequence.data();
  std::vector<Tensor> steps;
  int64_t offset = 0;
  for (int64_t t = 0; t < T; ++t) {
    Tensor rows = data.narrow(0, offset, bs[size_t(t)]);
    offset += bs[size_t(t)];
    if (bs[size_t(t)] < B) {
      std::vector<int64_t> fill_shape(rows.sizes().begin(), rows.sizes().end());
      fill_shape[0] = B - bs[size_t(t)];
      rows = cat({rows, full(fill_shape, padding_value, data.options())}, 0);
    }
    steps.push_back(rows);
  }
  const int64_t total = total_length.value_or(T);
  if (total > T) {
    std::vector<int64_t> shape(data.sizes().begin(), data.sizes().end());
    shape[0] = B;
    for (int64_t t = T; t < total; ++t) steps.push_back(full(shape, padding_value, data.options()));
  }
  Tensor padded = stack(steps, 0);  // (T, B, *) in sorted order
  std::vector<int64_t> lengths = std::vector<int64_t>(size_t(B));
  for (int64_t b = 0; b < B; ++b)
    lengths[size_t(b)] = int64_t(std::count_if(bs.begin(), bs.end(), [&](int64_t n) { return n > b; }));
  Tensor len = long_tensor(lengths);
  if (sequence.unsorted_indices().defined()) {
    padded = padded.index_select(1, sequence.unsorted_indices().to(padded.device()));
    len = len.index_select(0, sequence.unsorted_indices().to(Device(kCPU)));
  }
  return {batch_first ? padded.transpose(0, 1) : padded, len};
}

Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value) {
  EMBER_CHECK(!sequences.empty(), "pad_sequence: received an empty list of sequences");
  int64_t T = 0;
  for (const Tensor& s : sequences) {
    EMBER_CHECK(s.dim() >= 1 && s.sizes().slice(1) == sequences[0].sizes().slice(1),
                "pad_sequence: every sequence must be (L, *) with the same trailing dims; got ", s.sizes(), " and ",
                sequences[0].sizes());
    T = std::max(T, s.size(0));
  }
  std::vector<Tensor> padded;
  for (const Tensor& s : sequences) {
    Tensor p = s;
    if (s.size(0) < T) {
      std::vector<int64_t> shape(s.sizes().begin(), s.sizes().end());
      shape[0] = T - s.size(0);
      p = cat({s, full(shape, padding_value, s.options())}, 0);
    }
    padded.push_back(p);
  }
  return stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const Tensor& s : sequences) lengths.push_back(s.size(0));
  return pack_padded_sequence(pad_sequence(sequences), long_tensor(lengths), false, enforce_sorted);
}

}  // namespace ember::nn::utils::rnn
