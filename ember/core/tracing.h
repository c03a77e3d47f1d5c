// Tracing hooks: how ember::jit's tracer sees the ops a program calls (Note [Tracing hooks]).
//
// Note [Tracing hooks]: ember has no boxed dispatcher that every op passes through, so the ops
// the tracer knows say so themselves. Such an op registers a TracedOp (its name and a runner
// that calls it again from recorded inputs and attributes) and opens an OpScope at its entry:
// when this thread traces and no traced op is already running, the scope records one node
// (name, input tensors, attributes, outputs) after the op has run eagerly; the ops it calls
// meanwhile (its composites, its autograd and autocast re-entries) are not recorded. Tensors
// are told apart by their TensorImpl: every impl made while a thread traces is noted, so the
// tracer can tell a constant that existed before (a captured tensor) from the result of an
// op it does not know (an error, not a silently frozen value). Outside tracing all of this
// costs one relaxed atomic load per traced op.
#pragma once
#include <atomic>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ember/core/macros.h"
#include "ember/core/scalar.h"

namespace ember {
class Tensor;
class TensorImpl;
}  // namespace ember

namespace ember::tracing {

// A non-tensor argument as recorded: numbers (bool, int, double, complex) as a Scalar, int
// lists, strings, dtypes; monostate for an absent optional.
using Attr = std::variant<std::monostate, Scalar, std::vector<int64_t>, std::string, ScalarType>;
using Attrs = std::vector<std::pair<std::string, Attr>>;

// Reads attribute `name` of `attrs` (an error naming op when it is missing or of another kind).
EMBER_API const Attr& attr(const Attrs& attrs, std::string_view name, std::string_view op);
EMBER_API Scalar scalar_attr(const Attrs& attrs, std::string_view name, std::string_view op);
EMBER_API int64_t int_attr(const Attrs& attrs, std::string_view name, std::string_view op);
EMBER_API double double_attr(const Attrs& attrs, std::string_view name, std::string_view op);
EMBER_API bool bool_attr(const Attrs& attrs, std::string_view name, std::string_view op);
EMBER_API std::vector<int64_t> ints_attr(const Attrs& attrs, std::string_view name, std::string_view op);
EMBER_API std::string string_attr(const Attrs& attrs, std::string_view name, std::string_view op);
EMBER_API ScalarType dtype_attr(const Attrs& attrs, std::string_view name, std::string_view op);
// monostate (absent) or the value.
EMBER_API bool has_attr(const Attrs& attrs, std::string_view name);

// What a traced op's node can be fused as (the JIT's fuser reads it).
enum class Fusion : uint8_t { Pointwise, Reduction, View, Opaque };

// A traced op: its name (the node kind), what the fuser may do with it, whether it has effects
// beyond its outputs (randomness, writes into an input), and how to run it again.
struct TracedOp {
  using Runner = std::vector<Tensor> (*)(const TracedOp& op, const std::vector<Tensor>& inputs, const Attrs& attrs);
  std::string_view name;
  Fusion fusion = Fusion::Opaque;
  Runner run = nullptr;
  bool random = false;            // draws from a generator: never merged or folded away
  const void* context = nullptr;  // the runner's own (a pointwise row's table entry)
};
// Registers op (static initialization); a second op of the same name is an internal error.
EMBER_API void register_traced_op(const TracedOp* op);
// A traced op registered for the program's life: `const tracing::TracedOpDef view_op{{"view", ...}};`
struct TracedOpDef {
  TracedOp op;
  explicit TracedOpDef(TracedOp o) : op(o) { register_traced_op(&op); }
  operator const TracedOp&() const { return op; }  // NOLINT
};
EMBER_API const TracedOp* find_traced_op(std::string_view name);
EMBER_API std::vector<const TracedOp*> traced_ops();

// The tracer's side.
class Recorder {
 public:
  virtual ~Recorder() = default;
  // `mutates`: the op wrote into inputs[0] (an in-place op or an out= call), which is also its output.
  virtual void record(const TracedOp& op, const std::vector<Tensor>& inputs, Attrs attrs,
                      const std::vector<Tensor>& outputs, bool mutates) = 0;
  virtual void on_new_impl(const TensorImpl* impl) = 0;
};

namespace detail {
EMBER_API extern std::atomic<int> g_tracing_threads;  // threads with a recorder installed
EMBER_API bool thread_records();                       // a recorder here, no traced op running
EMBER_API void note_new_impl(const TensorImpl* impl);
EMBER_API void enter_op();
EMBER_API void leave_op();
EMBER_API void record(const TracedOp& op, const std::vector<Tensor>& inputs, Attrs attrs,
                      const std::vector<Tensor>& outputs, bool mutates);
}  // namespace detail

// True when an op called now on this thread would be recorded.
inline bool active() {
  return EMBER_UNLIKELY(detail::g_tracing_threads.load(std::memory_order_relaxed) > 0) && detail::thread_records();
}

// Called by TensorImpl's constructor.
inline void note_new_impl(const TensorImpl* impl) {
  if (EMBER_UNLIKELY(detail::g_tracing_threads.load(std::memory_order_relaxed) > 0)) detail::note_new_impl(impl);
}

// Installs a recorder on this thread for its lifetime (nesting is refused).
class EMBER_API RecorderGuard {
 public:
  explicit RecorderGuard(Recorder* r);
  ~RecorderGuard();
  RecorderGuard(const RecorderGuard&) = delete;
  RecorderGuard& operator=(const RecorderGuard&) = delete;

 private:
  Recorder* previous_;
};

// Suspends recording on this thread (the tracer's own work, a guard's checks).
class EMBER_API PauseGuard {
 public:
  PauseGuard();
  ~PauseGuard();
  PauseGuard(const PauseGuard&) = delete;
  PauseGuard& operator=(const PauseGuard&) = delete;
};

// Opened at a traced op's entry; record() once its outputs exist. Ops it calls meanwhile are
// not recorded.
class OpScope {
 public:
  OpScope() : on_(active()) {
    if (on_) detail::enter_op();
  }
  ~OpScope() {
    if (on_) detail::leave_op();
  }
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;
  explicit operator bool() const { return on_; }
  void record(const TracedOp& op, const std::vector<Tensor>& inputs, Attrs attrs, const std::vector<Tensor>& outputs,
              bool mutates = false) {
    if (!on_) return;
    on_ = false;
    detail::leave_op();
    detail::record(op, inputs, std::move(attrs), outputs, mutates);
  }

 private:
  bool on_;
};

}  // namespace ember::tracing
