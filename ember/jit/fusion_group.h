// A fused group and its backward programs (internal to ember::jit: fuser.cpp, autodiff.cpp).
#pragma once
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ember/jit/ir.h"
#include "ember/jit/kernel_spec.h"

namespace ember::jit {

// The gradients of a fused group's inputs as a program of its own (Note [Fused backward] in
// autodiff.cpp): inputs are the group's inputs then the gradients of its outputs; outputs are
// the gradients of the inputs that need one (slot[i]: input i's output, -1 for none).
struct BackwardProgram {
  std::shared_ptr<Graph> graph;  // derived and optimized
  std::shared_ptr<Graph> exec;   // the same, fused
  std::vector<int> slot;
};

struct FusionGroup {
  Graph graph;  // the group's nodes; inputs: what it reads from outside; outputs: what leaves it
  KernelSpec spec;
  std::string key;
  // Per output of graph: 0 an elementwise output; 1 a row reduction's with keepdim, 2 without
  // (Note [Row reductions] in fuser.cpp).
  std::vector<uint8_t> row_outputs;
  // Whether the kernel must run row by row (the row driver): it numbers elements (seeds) or
  // reduces over rows, wherever its outputs are elementwise (TensorIterator would coalesce rows).
  bool rows() const {
    if (spec.seeds > 0) return true;
    for (const KInstr& in : spec.instrs)
      if (in.row_reduction()) return true;
    return false;
  }
  std::mutex mutex;
  bool tried = false;
  KernelFn kernel = nullptr;
  std::string error;
  // Backward programs by which inputs need a gradient and the sizes of the inputs and output
  // gradients (a size-generic graph runs its groups at many sizes), derived on first use.
  using BackwardKey = std::pair<std::vector<bool>, std::vector<std::vector<int64_t>>>;
  std::map<BackwardKey, std::shared_ptr<const BackwardProgram>> backward;
};

// Derives the backward program of a group's graph for the inputs flagged in `needs`, given the
// types of the inputs and of the outputs' gradients it will run on.
std::shared_ptr<const BackwardProgram> derive_backward(const Graph& group, const std::vector<bool>& needs,
                                                       const std::vector<TensorType>& input_types,
                                                       const std::vector<TensorType>& grad_types);
// Whether a fusible node's gradient flows to its floating inputs (comparisons and fills: no).
bool differentiable_in_group(const Node& n);

}  // namespace ember::jit
