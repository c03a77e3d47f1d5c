// torch::nn::utils::rnn: PackedSequence and pack_padded_sequence, pad_packed_sequence,
// pad_sequence, pack_sequence (LibTorch names and PyTorch 1.13 semantics). A packed batch
// stores, time step by time step, the elements of the sequences still running at that step
// (sequences sorted by decreasing length); the recurrent modules' forward_with_packed_input
// runs each sequence for its own length. All of it is differentiable.
#pragma once
#include <optional>
#include <tuple>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn::utils::rnn {

class PackedSequence {
 public:
  PackedSequence() = default;
  // batch_sizes: int64 on CPU, one entry per time step (non-increasing); sorted_indices:
  // the batch order the data is in (undefined: already sorted), unsorted_indices its inverse.
  PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices = {}, Tensor unsorted_indices = {});

  const Tensor& data() const { return data_; }
  const Tensor& batch_sizes() const { return batch_sizes_; }
  const Tensor& sorted_indices() const { return sorted_indices_; }
  const Tensor& unsorted_indices() const { return unsorted_indices_; }
  bool is_pinned() const { return false; }
  PackedSequence to(TensorOptions options) const;
  PackedSequence cpu() const { return to(TensorOptions().device(kCPU)); }
  PackedSequence cuda() const { return to(TensorOptions().device(Device(kCUDA, 0))); }
  bool is_cuda() const { return data_.is_cuda(); }
  bool defined() const { return data_.defined(); }

 private:
  Tensor data_, batch_sizes_, sorted_indices_, unsorted_indices_;
};

// input (T, B, *) or (B, T, *) with batch_first; lengths (B) int64 on CPU. enforce_sorted:
// the lengths must already decrease (else sorted here, and unsorted by pad_packed_sequence).
PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first = false, bool enforce_sorted = true);

// Back to (T, B, *) (or (B, T, *)) padded with padding_value up to total_length (at least the
// longest sequence), in the original batch order, with the lengths (int64).
std::tuple<Tensor, Tensor> pad_packed_sequence(PackedSequence sequence, bool batch_first = false,
                                               double padding_value = 0.0,
                                               std::optional<int64_t> total_length = std::nullopt);

// Sequences (L_i, *) stacked into (T, B, *) (or (B, T, *)), padded with padding_value.
Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first = false, double padding_value = 0);

PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted = true);

}  // namespace ember::nn::utils::rnn
