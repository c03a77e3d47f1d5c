// Tracing hooks (tracing.h, Note [Tracing hooks]): the per-thread recorder, the traced-op
// registry and the attribute readers.
#include "ember/core/tracing.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember::tracing {

namespace detail {
std::atomic<int> g_tracing_threads{0};

namespace {
struct ThreadState {
  Recorder* recorder = nullptr;
  int depth = 0;  // traced ops running (and pauses)
};
thread_local ThreadState t_state;
}  // namespace

bool thread_records() { return t_state.recorder && t_state.depth == 0; }
void note_new_impl(const TensorImpl* impl) {
  if (t_state.recorder) t_state.recorder->on_new_impl(impl);
}
void enter_op() { ++t_state.depth; }
void leave_op() { --t_state.depth; }
void record(const TracedOp& op, const std::vector<Tensor>& inputs, Attrs attrs, const std::vector<Tensor>& outputs,
            bool mutates) {
  Recorder* r = t_state.recorder;
  if (!r) return;
  ++t_state.depth;  // what the recorder does itself (checks, copies) is not traced
  struct Leave {
    ~Leave() { --t_state.depth; }
  } leave;
  r->record(op, inputs, std::move(attrs), outputs, mutates);
}
}  // namespace detail

RecorderGuard::RecorderGuard(Recorder* r) : previous_(detail::t_state.recorder) {
  EMBER_CHECK(previous_ == nullptr, "jit::trace: this thread is already tracing (traces do not nest)");
  detail::t_state.recorder = r;
  detail::t_state.depth = 0;
  detail::g_tracing_threads.fetch_add(1, std::memory_order_relaxed);
}
RecorderGuard::~RecorderGuard() {
  detail::t_state.recorder = previous_;
  detail::t_state.depth = 0;
  detail::g_tracing_threads.fetch_sub(1, std::memory_order_relaxed);
}

PauseGuard::PauseGuard() { ++detail::t_state.depth; }
PauseGuard::~PauseGuard() { --detail::t_state.depth; }

// ---- registry ------------------------------------------------------------------------------

namespace {
std::map<std::string_view, const TracedOp*>& registry() {
  static std::map<std::string_view, const TracedOp*> r;
  return r;
}
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

void register_traced_op(const TracedOp* op) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  EMBER_INTERNAL_ASSERT(registry().emplace(op->name, op).second, "traced op registered twice: ", op->name);
}

const TracedOp* find_traced_op(std::string_view name) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second;
}

std::vector<const TracedOp*> traced_ops() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<const TracedOp*> r;
  for (const auto& [name, op] : registry()) r.push_back(op);
  return r;
}

// ---- attributes ------------------------------------------------------------------------------

bool has_attr(const Attrs& attrs, std::string_view name) {
  for (const auto& [k, v] : attrs)
    if (k == name) return !std::holds_alternative<std::monostate>(v);
  return false;
}

const Attr& attr(const Attrs& attrs, std::string_view name, std::string_view op) {
  for (const auto& [k, v] : attrs)
    if (k == name) return v;
  EMBER_ERROR(op, ": the recorded call has no attribute '", name, "'");
}

namespace {
template <class T>
const T& get(const Attrs& attrs, std::string_view name, std::string_view op, const char* kind) {
  const Attr& a = attr(attrs, name, op);
  const T* v = std::get_if<T>(&a);
  EMBER_CHECK(v, op, ": attribute '", name, "' is not ", kind);
  return *v;
}
}  // namespace

Scalar scalar_attr(const Attrs& attrs, std::string_view name, std::string_view op) {
  return get<Scalar>(attrs, name, op, "a number");
}
int64_t int_attr(const Attrs& attrs, std::string_view name, std::string_view op) {
  const Scalar s = scalar_attr(attrs, name, op);
  EMBER_CHECK(s.isIntegral(true), op, ": attribute '", name, "' is not an integer");
  return s.toLong();
}
double double_attr(const Attrs& attrs, std::string_view name, std::string_view op) {
  const Scalar s = scalar_attr(attrs, name, op);
  EMBER_CHECK(!s.isComplex(), op, ": attribute '", name, "' is not a real number");
  return s.toDouble();
}
bool bool_attr(const Attrs& attrs, std::string_view name, std::string_view op) {
  const Scalar s = scalar_attr(attrs, name, op);
  EMBER_CHECK(s.isBoolean(), op, ": attribute '", name, "' is not a bool");
  return s.toBool();
}
std::vector<int64_t> ints_attr(const Attrs& attrs, std::string_view name, std::string_view op) {
  return get<std::vector<int64_t>>(attrs, name, op, "a list of ints");
}
std::string string_attr(const Attrs& attrs, std::string_view name, std::string_view op) {
  return get<std::string>(attrs, name, op, "a string");
}
ScalarType dtype_attr(const Attrs& attrs, std::string_view name, std::string_view op) {
  return get<ScalarType>(attrs, name, op, "a dtype");
}

}  // namespace ember::tracing
