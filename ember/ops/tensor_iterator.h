// TensorIterator: prepares the operands of an elementwise op for a kernel.
//
// It broadcasts the inputs to a common shape, computes the common dtype (PyTorch's type
// promotion) and casts inputs to it, allocates or checks the outputs (new outputs follow
// the inputs' memory layout, so channels-last in gives channels-last out), then reorders
// and coalesces dimensions so that the kernel sees as few, as long and as contiguous inner
// loops as possible. Dimension 0 of the iterator is the innermost (fastest-varying) one.
// Kernels receive `loop(char** data, const int64_t* strides, int64_t n)` calls: data[k]
// points at operand k (outputs first) and strides[k] is its byte stride.
#pragma once
#include <functional>

#include "ember/core/tensor.h"

namespace ember {

class TensorIterator;

// The most operands (outputs and inputs) one iterator takes; they are stored inline.
constexpr int kMaxIteratorOperands = 6;

// Outputs of at least this many bytes are written with streaming stores by
// TensorIterator::for_each_overwrite: 32 MiB, or EMBER_STREAMING_STORES_MB (0: every output
// of two blocks or more; "off": never). The setter is for tests and benchmarks.
int64_t streaming_store_bytes();
void set_streaming_store_bytes(int64_t bytes);

class TensorIteratorConfig {
 public:
  // User-provided, so that TensorIteratorConfig() does not zero the operand slots first.
  TensorIteratorConfig() {}  // NOLINT
  TensorIteratorConfig& add_output(const Tensor& t) { outputs_.push_back(t); return *this; }
  TensorIteratorConfig& add_input(const Tensor& t) { inputs_.push_back(t); return *this; }
  // Cast inputs to the common dtype (default true).
  TensorIteratorConfig& promote_inputs_to_common_dtype(bool v) { promote_ = v; return *this; }
  // Bool/integer common dtypes become the default float dtype (div, exp, sqrt...).
  TensorIteratorConfig& promote_integer_inputs_to_float(bool v) { int_to_float_ = v; return *this; }
  // Outputs given by the caller may differ in dtype from the result: the result is
  // computed in a temporary and cast back (default true). Lossy category changes error.
  TensorIteratorConfig& cast_common_dtype_to_outputs(bool v) { cast_outputs_ = v; return *this; }
  // Fixes the dtype of newly allocated outputs (e.g. kBool for comparisons).
  TensorIteratorConfig& declare_static_output_dtype(ScalarType t) { static_out_dtype_ = t; return *this; }
  // Fixes the dtype computation happens in, whatever the inputs are.
  TensorIteratorConfig& declare_static_common_dtype(ScalarType t) { static_common_dtype_ = t; return *this; }
  // Output dtype = real counterpart of the common dtype (abs of complex).
  TensorIteratorConfig& output_to_real(bool v) { output_to_real_ = v; return *this; }
  // Inputs keep their own dtypes (copy_).
  TensorIteratorConfig& check_all_same_dtype(bool v) { same_dtype_ = v; return *this; }
  // Whether an existing output of the wrong shape may be resized (default true).
  TensorIteratorConfig& resize_outputs(bool v) { resize_outputs_ = v; return *this; }
  // Output is also read (in-place op): its shape must equal the broadcast shape.
  TensorIteratorConfig& is_inplace(bool v) { inplace_ = v; return *this; }
  TensorIteratorConfig& set_op_name(const char* n) { name_ = n; return *this; }
  // Iterate over this shape instead of broadcasting inputs (outputs only, e.g. fill).
  TensorIteratorConfig& declare_static_shape(IntArrayRef shape) { static_shape_ = DimVector(shape); has_static_shape_ = true; return *this; }

  // Builds the iterator; the config's tensors move into it, so a config builds once.
  TensorIterator build();

 private:
  friend class TensorIterator;
  StaticVector<Tensor, kMaxIteratorOperands> outputs_, inputs_;  // no heap allocation per op
  bool promote_ = true, int_to_float_ = false, cast_outputs_ = true, same_dtype_ = false,
       resize_outputs_ = true, inplace_ = false, output_to_real_ = false, has_static_shape_ = false;
  std::optional<ScalarType> static_out_dtype_, static_common_dtype_;
  DimVector static_shape_;
  const char* name_ = "op";
};

class TensorIterator {
 public:
  using Loop = std::function<void(char** data, const int64_t* strides, int64_t n)>;
  static constexpr int kMaxOperands = kMaxIteratorOperands;

  int ntensors() const { return ntensors_; }
  int noutputs() const { return noutputs_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const { return numel_; }
  IntArrayRef shape() const { return shape_; }
  ScalarType common_dtype() const { return common_dtype_; }
  ScalarType dtype(int arg) const { return operands_[arg].dtype; }
  ScalarType input_dtype(int i = 0) const { return operands_[noutputs_ + i].dtype; }
  const Tensor& output(int i = 0) const { return operands_[i].original.defined() ? operands_[i].original : operands_[i].tensor; }
  const Tensor& input(int i = 0) const { return operands_[noutputs_ + i].tensor; }
  char* data_ptr(int arg) const { return operands_[arg].data; }
  // Byte strides of operand `arg` over the iterator's dims (innermost first).
  IntArrayRef strides(int arg) const { return operands_[arg].strides; }
  // True when, after coalescing, every operand is one contiguous run.
  bool is_contiguous() const;
  // True when operand `arg` has stride 0 everywhere (a broadcast scalar).
  bool is_scalar(int arg) const;
  bool is_cpu_scalar(int arg) const { return is_scalar(arg); }
  const char* op_name() const { return name_; }

  // Runs loop over every element, in parallel above grain_size elements.
  template <class F>
  void for_each(const F& loop, int64_t grain_size = kGrainSize) {
    for_each_impl(LoopRef(loop), grain_size);
  }
  // for_each for a loop that writes operand 0 and never reads it (an elementwise kernel):
  // a large output that is not also an input is then written with streaming stores
  // (Note [Streaming stores] in tensor_iterator.cpp).
  template <class F>
  void for_each_overwrite(const F& loop, int64_t grain_size = kGrainSize) {
    for_each_impl(LoopRef(loop), grain_size, /*overwrites=*/true);
  }
  // Runs loop over linear range [begin, end) of the iteration space, serially.
  template <class F>
  void serial_for_each(const F& loop, int64_t begin, int64_t end) const {
    serial_for_each_impl(LoopRef(loop), begin, end);
  }
  // Copies computed temporaries back into the caller's outputs (done by kernels' callers).
  void cast_outputs();

  static constexpr int64_t kGrainSize = 32768;

  // A non-owning reference to a loop callable (no std::function allocation).
  class LoopRef {
   public:
    template <class F>
    LoopRef(const F& f) : obj_(&f), call_([](const void* o, char** d, const int64_t* s, int64_t n) {  // NOLINT
      (*static_cast<const F*>(o))(d, s, n);
    }) {}
    void operator()(char** d, const int64_t* s, int64_t n) const { call_(obj_, d, s, n); }

   private:
    const void* obj_;
    void (*call_)(const void*, char**, const int64_t*, int64_t);
  };

 private:
  friend class TensorIteratorConfig;
  struct Operand {
    Tensor tensor;    // what the kernel reads or writes
    Tensor original;  // the caller's output when `tensor` is a temporary of another dtype
    char* data = nullptr;
    ScalarType dtype = ScalarType::Undefined;
    DimVector strides;  // bytes, iterator order
    bool is_output = false;
    bool will_resize = false;
  };
  void for_each_impl(LoopRef loop, int64_t grain_size, bool overwrites = false);
  bool streams_output() const;
  void serial_for_each_impl(LoopRef loop, int64_t begin, int64_t end) const;

  void build(TensorIteratorConfig& cfg);
  bool fast_setup(const TensorIteratorConfig& cfg);
  void compute_shape(TensorIteratorConfig& cfg);
  void compute_types(TensorIteratorConfig& cfg);
  void compute_strides();
  void reorder_dimensions();
  void allocate_outputs();
  void coalesce_dimensions();

  StaticVector<Operand, kMaxOperands> operands_;
  DimVector shape_;
  DimVector perm_;  // iterator dim i is tensor dim perm_[i]
  int64_t numel_ = 0;
  int ntensors_ = 0, noutputs_ = 0;
  ScalarType common_dtype_ = ScalarType::Undefined;
  const char* name_ = "op";
};

// Broadcasts two shapes (PyTorch semantics); errors name the op and both shapes.
DimVector infer_size(IntArrayRef a, IntArrayRef b, const char* op = "broadcast");

}  // namespace ember
