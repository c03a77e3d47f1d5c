// Recording ops into the graph, views, in-place history, and forward-mode tangents.
//
// Note [Below autograd]
// An op that records decides first (Recording), then runs its implementation under
// BelowAutogradGuard: the ops it calls internally record nothing and propagate no
// tangents, so an op's derivative is exactly the one it declares. Derivative formulas
// themselves run with grad mode as the engine sets it (on for create_graph), so they are
// differentiable: grad-of-grad works through them.
#include "ember/autograd/record.h"

#include <algorithm>
#include <mutex>

#include "ember/autograd/autograd_meta.h"
#include "ember/autograd/forward_ad.h"
#include "ember/ops/functions.h"
#include "ember/ops/views.h"

namespace ember::autograd {

namespace detail {
void set_forward_ad_enabled(bool e);
bool forward_ad_flag();
}  // namespace detail

// ---- forward-mode levels ------------------------------------------------------------------
namespace forward_ad {
namespace {
std::mutex g_levels_mutex;
std::vector<uint64_t> g_levels;  // open levels, outermost first
std::atomic<uint64_t> g_next_level{0};
std::atomic<bool> g_any_open{false};
}  // namespace

uint64_t enter_dual_level() {
  std::lock_guard<std::mutex> lock(g_levels_mutex);
  uint64_t l = g_next_level.fetch_add(1);
  g_levels.push_back(l);
  g_any_open.store(true);
  return l;
}
void exit_dual_level(uint64_t level) {
  std::lock_guard<std::mutex> lock(g_levels_mutex);
  EMBER_CHECK(!g_levels.empty() && g_levels.back() == level, "exit_dual_level: trying to exit level ", level,
              " which is not the innermost open dual level");
  g_levels.pop_back();
  g_any_open.store(!g_levels.empty());
}
void exit_dual_level() {
  uint64_t l;
  {
    std::lock_guard<std::mutex> lock(g_levels_mutex);
    EMBER_CHECK(!g_levels.empty(), "exit_dual_level: no dual level is open");
    l = g_levels.back();
  }
  exit_dual_level(l);
}

namespace detail {
bool any_level_open() { return g_any_open.load(std::memory_order_relaxed); }
std::vector<uint64_t> open_levels() {
  std::lock_guard<std::mutex> lock(g_levels_mutex);
  return g_levels;
}
}  // namespace detail

namespace {
uint64_t resolve_level(int64_t level, const char* api) {
  std::lock_guard<std::mutex> lock(g_levels_mutex);
  EMBER_CHECK(!g_levels.empty(), api, ": no dual level is open; use `forward_ad::dual_level` (or enter_dual_level()) "
              "first");
  if (level < 0) return g_levels.back();
  EMBER_CHECK(std::find(g_levels.begin(), g_levels.end(), uint64_t(level)) != g_levels.end(), api, ": dual level ",
              level, " is not open");
  return uint64_t(level);
}
bool level_open(uint64_t level) {
  std::lock_guard<std::mutex> lock(g_levels_mutex);
  return std::find(g_levels.begin(), g_levels.end(), level) != g_levels.end();
}
}  // namespace

namespace {
// A differentiable alias of t (continuing t's reverse-mode history) that carries t's
// tangents at every open level except `level`.
Tensor alias_without_level(const Tensor& t, uint64_t level) {
  Tensor a;
  {
    BelowAutogradGuard g;
    a = make_view(t, t.sizes(), t.strides(), t.storage_offset());
  }
  a.unsafeGetTensorImpl()->set_autograd_meta(nullptr);
  if (tensor_requires_grad(t) && GradMode::is_enabled()) {
    Recording rec({&t});
    rec.record("alias", {&a}, [](const VjpCtx& c) { return variable_list{c.grad(0)}; });
  }
  if (AutogradMeta* m = get_meta(t))
    for (auto& [lv, tg] : m->fw_grads_)
      if (lv != level && level_open(lv)) set_fw_grad(a, tg, lv);
  return a;
}
}  // namespace

Tensor make_dual(const Tensor& primal, const Tensor& tangent, int64_t level) {
  uint64_t l = resolve_level(level, "make_dual");
  EMBER_CHECK(primal.defined() && tangent.defined(), "make_dual: expected defined primal and tangent");
  EMBER_CHECK(primal.sizes() == tangent.sizes(), "make_dual: Trying to set a forward gradient that has a different "
              "size than that of the original Tensor, this is not supported. Tensor is of size ", primal.sizes(),
              " while the given forward gradient is of size ", tangent.sizes(), ".");
  EMBER_CHECK(primal.scalar_type() == tangent.scalar_type(), "make_dual: Expected tangent to have the same dtype as "
              "primal, but got tangent of dtype ", tangent.scalar_type(), " and primal of dtype ",
              primal.scalar_type());
  EMBER_CHECK(primal.is_floating_point() || primal.is_complex(), "make_dual: Expected primal to be floating point or "
              "complex, but got: ", primal.scalar_type());
  EMBER_CHECK(primal.device() == tangent.device(), "make_dual: tangent is on ", tangent.device(),
              " but primal is on ", primal.device());
  Tensor dual = alias_without_level(primal, l);
  set_fw_grad(dual, tangent, l);
  return dual;
}

UnpackedDual unpack_dual(const Tensor& t, int64_t level) {
  if (level < 0) {  // the innermost level; with none open, t has no tangent (as PyTorch)
    std::lock_guard<std::mutex> lock(g_levels_mutex);
    if (g_levels.empty()) return {t, Tensor()};
  }
  uint64_t l = resolve_level(level, "unpack_dual");
  Tensor tangent = fw_grad(t, l);
  // The primal is a view without the tangent at this level.
  Tensor primal = alias_without_level(t, l);
  return {primal, tangent};
}
}  // namespace forward_ad

Tensor fw_grad(const Tensor& t, uint64_t level) {
  AutogradMeta* m = t.defined() ? get_meta(t) : nullptr;
  if (!m) return Tensor();
  for (auto& [l, tg] : m->fw_grads_)
    if (l == level) return forward_ad::level_open(level) ? tg : Tensor();
  return Tensor();
}

void set_fw_grad(const Tensor& t, const Tensor& tangent, uint64_t level) {
  AutogradMeta* m = materialize_meta(t);
  Tensor tg = tangent;
  if (tg.defined() && (tg.strides() != t.strides() || tg.sizes() != t.sizes())) {
    // Same layout as the primal, so views of the primal can view the tangent alike.
    BelowAutogradGuard g;
    Tensor fresh = empty_strided(t.sizes(), t.strides(), tg.options());
    fresh.copy_(tg);
    tg = fresh;
  }
  auto& v = m->fw_grads_;
  v.erase(std::remove_if(v.begin(), v.end(), [&](const auto& p) { return p.first == level || !forward_ad::level_open(p.first); }),
          v.end());
  if (tg.defined()) v.emplace_back(level, tg);
}

bool has_any_fw_grad(const Tensor& t) {
  AutogradMeta* m = t.defined() ? get_meta(t) : nullptr;
  if (!m) return false;
  for (auto& p : m->fw_grads_)
    if (forward_ad::level_open(p.first)) return true;
  return false;
}


bool needs_autograd(const Tensor& t) {
  return (GradMode::is_enabled() && tensor_requires_grad(t)) || (forward_ad_enabled() && has_any_fw_grad(t));
}

// ---- Recording ------------------------------------------------------------------------------
Recording::Recording(std::initializer_list<const Tensor*> inputs) : inputs_(inputs) { init(); }
Recording::Recording(const std::vector<Tensor>& inputs) {
  for (const Tensor& t : inputs) inputs_.push_back(&t);
  init();
}

void Recording::init() {
  if (GradMode::is_enabled())
    for (const Tensor* t : inputs_)
      if (t && tensor_requires_grad(*t)) {
        rev_ = true;
        break;
      }
  if (forward_ad_enabled())
    for (const Tensor* t : inputs_)
      if (t && t->defined() && has_any_fw_grad(*t)) {
        fwd_ = true;
        break;
      }
}

namespace {
std::shared_ptr<OpNode> new_op_node(std::string_view op, const std::vector<const Tensor*>& inputs, VjpFunction vjp,
                                  std::vector<ToSave> saved, const PointwiseArgs& args) {
  auto node = std::make_shared<OpNode>(backward_name(op), std::move(vjp));
  std::vector<Edge> edges;
  edges.reserve(inputs.size());
  for (const Tensor* t : inputs) edges.push_back(t ? gradient_edge(*t) : Edge());
  node->set_next_edges(std::move(edges));
  node->args_ = args;
  if (AnomalyMode::is_enabled()) node->set_anomaly_context(std::string(op));
  return node;
}
void save_all(OpNode& node, std::vector<ToSave>& saved) {
  node.saved_.reserve(saved.size());
  for (ToSave& s : saved) node.saved_.emplace_back(s.t, s.is_output);
}
}  // namespace

std::shared_ptr<OpNode> Recording::record(std::string_view op, std::initializer_list<const Tensor*> outputs,
                                          VjpFunction vjp, std::vector<ToSave> saved, const PointwiseArgs& args) {
  auto node = new_op_node(op, inputs_, std::move(vjp), {}, args);
  uint32_t nr = 0;
  for (const Tensor* out : outputs) {
    node->add_input_metadata(*out);
    set_history(*out, node, nr++);
  }
  save_all(*node, saved);
  return node;
}
std::shared_ptr<OpNode> Recording::record(std::string_view op, const std::vector<Tensor>& outputs, VjpFunction vjp,
                                          std::vector<ToSave> saved, const PointwiseArgs& args) {
  auto node = new_op_node(op, inputs_, std::move(vjp), {}, args);
  uint32_t nr = 0;
  for (const Tensor& out : outputs) {
    node->add_input_metadata(out);
    if (out.defined() && (out.is_floating_point() || out.is_complex())) set_history(out, node, nr);
    ++nr;
  }
  save_all(*node, saved);
  return node;
}

std::shared_ptr<OpNode> Recording::make_node(std::string_view op, VjpFunction vjp, std::vector<ToSave> saved,
                                             const PointwiseArgs& args) {
  auto node = new_op_node(op, inputs_, std::move(vjp), {}, args);
  save_all(*node, saved);
  return node;
}

void Recording::forward_each(const Tensor& out,
                             const std::function<Tensor(const std::function<Tensor(size_t)>&)>& jvp) const {
  std::vector<uint64_t> levels;
  {
    std::lock_guard<std::mutex> lock(forward_ad::g_levels_mutex);
    levels = forward_ad::g_levels;
  }
  for (uint64_t l : levels) {
    bool any = false;
    for (const Tensor* t : inputs_)
      if (t && fw_grad(*t, l).defined()) any = true;
    if (!any) continue;
    Tensor tangent;
    {
      // The tangent's own reverse-mode history is recorded only when some input tangent
      // requires grad (reverse-over-forward): formulas read the primal result, and a
      // tangent whose history holds the tensor that holds the tangent is a reference cycle.
      bool tangents_need_grad = false;
      for (const Tensor* t : inputs_) {
        Tensor tg = t ? fw_grad(*t, l) : Tensor();
        tangents_need_grad = tangents_need_grad || (tg.defined() && tensor_requires_grad(tg));
      }
      AutoGradMode grad_mode(GradMode::is_enabled() && tangents_need_grad);
      const bool prev = detail::forward_ad_flag();
      detail::set_forward_ad_enabled(false);
      try {
        tangent = jvp([&](size_t i) { return inputs_[i] ? fw_grad(*inputs_[i], l) : Tensor(); });
      } catch (...) {
        detail::set_forward_ad_enabled(prev);
        throw;
      }
      detail::set_forward_ad_enabled(prev);
    }
    if (!tangent.defined()) continue;
    if (isComplexType(tangent.scalar_type()) && !isComplexType(out.scalar_type())) tangent = real(tangent);
    if (tangent.scalar_type() != out.scalar_type()) tangent = tangent.to(out.scalar_type());
    if (tangent.sizes() != out.sizes()) tangent = tangent.expand(out.sizes());
    set_fw_grad(out, tangent, l);
  }
}

// ---- OpNode ---------------------------------------------------------------------------------
variable_list OpNode::apply(variable_list&& grads) {
  EMBER_CHECK(!released_, "Trying to backward through the graph a second time (or directly access saved tensors "
              "after they have already been freed). Saved intermediate values of the graph are freed when you call "
              ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph "
              "a second time or if you need to access saved tensors after calling backward.");
  bool any = false;
  for (const Tensor& g : grads) any = any || g.defined();
  if (!any) return variable_list(num_outputs());
  // Undefined gradients of some outputs mean zeros.
  for (size_t i = 0; i < grads.size(); ++i)
    if (!grads[i].defined()) {
      const InputMetadata& m = input_metadata(i);
      grads[i] = zeros(m.shape, dtype(m.dtype).device(m.device));
    }
  VjpCtx ctx{grads, *this, saved_, args_, shared_from_this(), hidden_input_};
  variable_list r = vjp_(ctx);
  if (hidden_input_ >= 0 && size_t(hidden_input_) < r.size()) r.erase(r.begin() + hidden_input_);
  r.resize(num_outputs());
  for (size_t i = 0; i < r.size(); ++i)
    if (!should_compute_output(i)) r[i] = Tensor();
  return r;
}

void OpNode::release_variables() {
  for (SavedVariable& s : saved_) s.reset();
  if (!saved_.empty()) released_ = true;
}

// ---- in-place ops ---------------------------------------------------------------------------
void check_inplace(const Tensor& self, const char* op) {
  if (!GradMode::is_enabled()) return;
  AutogradMeta* m = get_meta(self);
  if (m && !m->grad_fn_ && m->requires_grad_)
    EMBER_ERROR(op, ": a leaf Variable that requires grad is being used in an in-place operation.");
  if (m && m->is_view_ && m->base_.defined() && m->base_.is_leaf() && m->base_.requires_grad())
    EMBER_ERROR(op, ": a view of a leaf Variable that requires grad is being used in an in-place operation.");
}

bool overwrite_recorded(const Tensor& self, const char* op, const std::function<void()>& write) {
  if (EMBER_LIKELY(self.unsafeGetTensorImpl()->autograd_meta() == nullptr)) return false;
  Recording rec({&self});
  if (!rec.any()) return false;
  check_inplace(self, op);
  {
    BelowAutogradGuard below;
    write();
  }
  if (rec.reverse())
    rebase_history(self, rec.make_node(op, [](const VjpCtx& c) {  // PyTorch: zeros_like(grad)
      return variable_list{c.grad().defined() ? zeros_like(c.grad()) : Tensor()};
    }));
  if (rec.forward())
    for (uint64_t level : forward_ad::detail::open_levels()) {
      Tensor t = fw_grad(self, level);
      BelowAutogradGuard below;
      if (t.defined()) t.zero_();
    }
  return true;
}

void check_out_not_differentiable(const char* op, std::initializer_list<const Tensor*> inputs) {
  if (!GradMode::is_enabled()) return;
  for (const Tensor* t : inputs)
    if (t && tensor_requires_grad(*t))
      EMBER_ERROR(op, "(): functions with out=... arguments don't support automatic differentiation, but one of the "
                  "arguments requires grad.");
}

namespace {
void rebase_onto(const Tensor& self, const std::shared_ptr<Node>& fn, uint32_t output_nr) {
  AutogradMeta* m = materialize_meta(self);
  if (m->is_view_ && m->base_.defined()) {
    // The base's history goes through fn for the view's window (CopySlices); the view's
    // own history is then a window of the base.
    const Tensor& base = m->base_;
    auto copy_slices = std::make_shared<CopySlices>(base, self, fn);
    AutogradMeta* bm = materialize_meta(base);
    bm->grad_fn_ = copy_slices;
    bm->output_nr_ = 0;
    bm->requires_grad_ = false;
    auto view_fn = std::make_shared<AsStridedBackward>(base, self);
    view_fn->set_next_edges({Edge(copy_slices, 0)});
    m->grad_fn_ = view_fn;
    m->output_nr_ = 0;
  } else {
    m->grad_fn_ = fn;
    m->output_nr_ = output_nr;
    m->requires_grad_ = false;
  }
}
}  // namespace

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn) {
  if (fn->num_inputs() == 0) fn->add_input_metadata(self);
  rebase_onto(self, fn, 0);
}
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn, uint32_t output_nr) {
  rebase_onto(self, fn, output_nr);
}

Tensor inplace_tangent(const Tensor& self, uint64_t level) {
  Tensor existing = fw_grad(self, level);
  if (existing.defined()) return existing;
  AutogradMeta* m = get_meta(self);
  BelowAutogradGuard g;
  if (m && m->is_view_ && m->base_.defined()) {
    // The base gets a zero tangent; the view's tangent is the same window of it, so
    // writing through the view updates the base's tangent.
    const Tensor& base = m->base_;
    Tensor bt = fw_grad(base, level);
    if (!bt.defined()) {
      set_fw_grad(base, zeros_like(base), level);
      bt = fw_grad(base, level);
    }
    int64_t off;
    if (isComplexType(base.scalar_type()) && !isComplexType(self.scalar_type()))
      off = bt.storage_offset() * 2 + (self.storage_offset() - base.storage_offset() * 2);
    else if (!isComplexType(base.scalar_type()) && isComplexType(self.scalar_type()))
      off = (bt.storage_offset() + self.storage_offset() * 2 - base.storage_offset()) / 2;
    else
      off = bt.storage_offset() + (self.storage_offset() - base.storage_offset());
    Tensor tv = make_view(bt, self.sizes(), self.strides(), off, self.scalar_type());
    set_fw_grad(self, tv, level);
    return tv;
  }
  set_fw_grad(self, zeros_like(self), level);
  return fw_grad(self, level);
}

void rebase_history(const Tensor& self, const Tensor& result) {
  AutogradMeta* rm = get_meta(result);
  if (rm && rm->grad_fn_) rebase_onto(self, rm->grad_fn_, rm->output_nr_);
  if (rm && !rm->fw_grads_.empty())
    for (auto& [l, tg] : rm->fw_grads_) {
      if (!forward_ad::level_open(l)) continue;
      Tensor t = inplace_tangent(self, l);
      BelowAutogradGuard g;
      t.copy_(tg);
    }
}

Tensor tangent_or_zeros(const Tensor& t, const Tensor& like) { return t.defined() ? t : zeros_like(like); }

std::vector<int64_t> reduced_dims(int64_t ndim, OptionalIntArrayRef dim) {
  std::vector<int64_t> dims;
  if (!dim || dim->empty()) {
    for (int64_t d = 0; d < ndim; ++d) dims.push_back(d);
  } else {
    for (int64_t d : *dim) dims.push_back(maybe_wrap_dim(d, ndim));
    std::sort(dims.begin(), dims.end());
  }
  return dims;
}

Tensor restore_reduced(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim) {
  if (keepdim) return t;
  Tensor r = t;
  for (int64_t d : dims) r = r.unsqueeze(d);
  return r;
}

std::tuple<Tensor, Tensor> differentiable_select(std::string_view op, const Tensor& self, int64_t dim, bool keepdim,
                                                 const std::function<std::tuple<Tensor, Tensor>()>& impl,
                                                 bool accumulate) {
  Recording rec({&self});
  std::tuple<Tensor, Tensor> r;
  {
    BelowAutogradGuard below;
    r = impl();
  }
  if (!rec.any()) return r;
  Tensor& values = std::get<0>(r);
  const Tensor indices = std::get<1>(r);
  const bool scalar = self.dim() == 0;
  const int64_t d = scalar ? 0 : maybe_wrap_dim(dim, self.dim());
  const Tensor idx = scalar || keepdim ? indices : indices.unsqueeze(d);
  if (rec.forward())
    rec.forward_each(values, [&](const std::function<Tensor(size_t)>& t) {
      if (scalar) return t(0).clone();
      Tensor v = t(0).gather(d, idx);
      return keepdim ? v : v.squeeze(d);
    });
  if (rec.reverse()) {
    DimVector sizes(self.sizes());
    rec.record(op, {&values}, [sizes, d, idx, keepdim, scalar, accumulate](const VjpCtx& c) {
      if (scalar) return variable_list{c.grad().reshape(sizes)};
      Tensor g = keepdim ? c.grad() : c.grad().unsqueeze(d);
      Tensor z = zeros(sizes, g.options());
      return variable_list{accumulate ? z.scatter_add(d, idx, g) : z.scatter(d, idx, g)};
    });
  }
  return r;
}

std::tuple<Tensor, Tensor> differentiable_cumulative_select(std::string_view op, const Tensor& self, int64_t dim,
                                                            const std::function<std::tuple<Tensor, Tensor>()>& impl) {
  return differentiable_select(op, self, dim, /*keepdim=*/true, impl, /*accumulate=*/true);
}

void check_no_derivative_needed(const char* op, std::initializer_list<const Tensor*> inputs) {
  for (const Tensor* t : inputs)
    if (t && maybe_differentiable(*t))
      EMBER_ERROR("the derivative for '", op, "' is not implemented (an input requires grad or carries a forward-mode "
                  "tangent); detach the input or compute it without autograd");
}

Tensor& assign_inplace(Tensor& self, const Tensor& result, const char* op) {
  check_inplace(self, op);
  EMBER_CHECK(result.sizes() == self.sizes(), op, ": output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", result.sizes());
  {
    BelowAutogradGuard below;
    self.copy_(result);
  }
  rebase_history(self, result);
  // A formula that saved self (x.addmm_(x, w)) would now hold the tensor whose history
  // holds the formula: keep it without its history (a use still fails the version check).
  if (AutogradMeta* rm = get_meta(result))
    if (auto* node = dynamic_cast<OpNode*>(rm->grad_fn_.get()))
      for (SavedVariable& sv : node->saved_) sv.drop_history_if(self);
  return self;
}

// ---- views ----------------------------------------------------------------------------------
namespace {
// A strided window (the view) of a strided base over one storage, offsets relative to the
// base's offset.
struct Window {
  DimVector base_sizes, base_strides, view_sizes, view_strides;
  int64_t view_offset = 0;

  int64_t extent() const {
    int64_t e = 1;
    for (size_t d = 0; d < base_sizes.size(); ++d) e += (base_sizes[d] - 1) * base_strides[d];
    return e;
  }
  bool empty_base() const {
    for (int64_t s : base_sizes)
      if (s == 0) return true;
    return false;
  }
  // Whether no two elements of (sizes, strides) share a storage position.
  static bool non_overlapping(const DimVector& sizes, const DimVector& strides) {
    std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of dims with size > 1
    for (size_t d = 0; d < sizes.size(); ++d)
      if (sizes[d] > 1) dims.emplace_back(strides[d], sizes[d]);
    std::sort(dims.begin(), dims.end());
    int64_t reach = 0;  // largest offset reachable with the smaller strides
    for (const auto& [stride, size] : dims) {
      if (stride <= reach) return false;
      reach += (size - 1) * stride;
    }
    return true;
  }
  // The base covers its storage extent exactly once (a permutation of a contiguous block),
  // so a storage-shaped buffer and the base are the same elements.
  bool dense_base() const {
    int64_t n = 1;
    for (int64_t s : base_sizes) n *= s;
    return non_overlapping(base_sizes, base_strides) && n == extent();
  }
  // Storage positions of the base's and the view's elements, row-major.
  Tensor base_positions() const {
    return arange(extent(), dtype(kLong)).as_strided(base_sizes, base_strides, 0).reshape({-1});
  }
  Tensor view_positions() const {
    return arange(extent(), dtype(kLong)).as_strided(view_sizes, view_strides, view_offset).reshape({-1});
  }
};

Tensor window_gather(const Tensor& g_base, const Window& w);

// The base-shaped gradient of a view-shaped one: scattered into zeros, summing where the
// view's elements share storage (expand). Linear, with window_gather as its adjoint.
Tensor window_scatter(const Tensor& g_view, const Window& w) {
  Recording rec({&g_view});
  Tensor r;
  {
    BelowAutogradGuard below;
    if (w.empty_base()) {
      r = zeros(w.base_sizes, g_view.options());
    } else if (w.dense_base() && Window::non_overlapping(w.view_sizes, w.view_strides)) {
      // Fast path (transposes, slices, narrows): write the view's elements into a zeroed
      // storage-shaped buffer; the base is that buffer with the base's strides.
      Tensor flat = zeros({w.extent()}, g_view.options());
      flat.as_strided(w.view_sizes, w.view_strides, w.view_offset).copy_(g_view);
      r = flat.as_strided(w.base_sizes, w.base_strides, 0);
    } else {
      Tensor flat = zeros({w.extent()}, g_view.options()).index_add(0, w.view_positions(), g_view.reshape({-1}));
      r = flat.index_select(0, w.base_positions()).view(w.base_sizes);
    }
  }
  if (rec.forward()) rec.forward_each(r, [&](const std::function<Tensor(size_t)>& t) { return window_scatter(t(0), w); });
  if (rec.reverse())
    rec.record("as_strided_scatter", {&r}, [w](const VjpCtx& c) { return variable_list{window_gather(c.grad(), w)}; });
  return r;
}

// The view's elements of a base-shaped tensor (the adjoint of window_scatter).
Tensor window_gather(const Tensor& g_base, const Window& w) {
  Recording rec({&g_base});
  Tensor r;
  {
    BelowAutogradGuard below;
    if (w.dense_base()) {
      // Fast path: lay the base out in its storage order, read the view from it.
      Tensor flat = empty({w.extent()}, g_base.options());
      flat.as_strided(w.base_sizes, w.base_strides, 0).copy_(g_base);
      r = flat.as_strided(w.view_sizes, w.view_strides, w.view_offset).clone();
    } else {
      // storage position -> base element index
      Tensor inverse = full({w.extent()}, -1, dtype(kLong));
      inverse = inverse.index_copy(0, w.base_positions(), arange(g_base.numel(), dtype(kLong)));
      Tensor index = inverse.index_select(0, w.view_positions());
      r = g_base.reshape({-1}).index_select(0, index).view(w.view_sizes);
    }
  }
  if (rec.forward()) rec.forward_each(r, [&](const std::function<Tensor(size_t)>& t) { return window_gather(t(0), w); });
  if (rec.reverse())
    rec.record("as_strided_gather", {&r}, [w](const VjpCtx& c) { return variable_list{window_scatter(c.grad(), w)}; });
  return r;
}
}  // namespace

Tensor as_strided_backward(const Tensor& grad, IntArrayRef base_sizes, IntArrayRef base_strides, int64_t base_offset,
                           IntArrayRef view_sizes, IntArrayRef view_strides, int64_t view_offset) {
  Window w{DimVector(base_sizes), DimVector(base_strides), DimVector(view_sizes), DimVector(view_strides),
           view_offset - base_offset};
  return window_scatter(grad, w);
}

AsStridedBackward::AsStridedBackward(const Tensor& base, const Tensor& view)
    : base_sizes_(base.sizes()), base_strides_(base.strides()), view_sizes_(view.sizes()),
      view_strides_(view.strides()), base_offset_(base.storage_offset()), view_offset_(view.storage_offset()),
      base_dtype_(base.scalar_type()), view_dtype_(view.scalar_type()) {
  add_input_metadata(view);
}

namespace {
// Geometry of a complex tensor as its real view (sizes + [2], strides * 2 + [1]).
void as_real_geometry(DimVector& sizes, DimVector& strides, int64_t& offset) {
  for (auto& s : strides) s *= 2;
  sizes.push_back(2);
  strides.push_back(1);
  offset *= 2;
}
}  // namespace

variable_list AsStridedBackward::apply(variable_list&& grads) {
  Tensor g = grads[0];
  if (!g.defined()) return {Tensor()};
  DimVector bs = base_sizes_, bst = base_strides_, vs = view_sizes_, vst = view_strides_;
  int64_t bo = base_offset_, vo = view_offset_;
  const bool base_c = isComplexType(base_dtype_), view_c = isComplexType(view_dtype_);
  if (base_c == view_c) return {as_strided_backward(g, bs, bst, bo, vs, vst, vo)};
  if (base_c) {  // a real view of a complex base (view_as_real, real, imag)
    as_real_geometry(bs, bst, bo);
    Tensor r = as_strided_backward(g, bs, bst, bo, vs, vst, vo);
    return {view_as_complex(r.contiguous())};
  }
  as_real_geometry(vs, vst, vo);  // view_as_complex of a real base
  return {as_strided_backward(view_as_real(g.contiguous()), bs, bst, bo, vs, vst, vo)};
}

CopySlices::CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn)
    : base_sizes_(base.sizes()), base_strides_(base.strides()), view_sizes_(view.sizes()),
      view_strides_(view.strides()), base_offset_(base.storage_offset()), view_offset_(view.storage_offset()),
      fn_(std::move(fn)) {
  add_input_metadata(base);
  std::vector<Edge> edges{gradient_edge(base)};
  for (size_t i = 1; i < fn_->num_outputs(); ++i) edges.push_back(fn_->next_edge(i));
  set_next_edges(std::move(edges));
}

variable_list CopySlices::apply(variable_list&& grads) {
  Tensor g = grads[0];
  variable_list out(num_outputs());
  if (!g.defined()) return out;
  Window w{base_sizes_, base_strides_, view_sizes_, view_strides_, view_offset_ - base_offset_};
  // The view's window of the base gradient goes through fn; fn's gradient for the view's
  // old value replaces that window (written with differentiable ops for create_graph).
  Tensor g_base = g.sizes() == IntArrayRef(base_sizes_) ? g : g.expand(base_sizes_);
  Tensor grad_slice = window_gather(g_base, w);
  variable_list fn_grads = (*fn_)({grad_slice});
  Tensor g0 = fn_grads.empty() ? Tensor() : fn_grads[0];
  Tensor result = g_base.sub(window_scatter(grad_slice, w));
  if (g0.defined()) result = result.add(window_scatter(g0.to(g_base.scalar_type()).expand(view_sizes_), w));
  out[0] = result;
  for (size_t i = 1; i < out.size() && i < fn_grads.size(); ++i) out[i] = fn_grads[i];
  return out;
}

namespace {
void view_hook(const Tensor& base, Tensor& view) {
  AutogradMeta* bm = get_meta(base);
  if (!bm) {
    // A view of a plain tensor: remember the base (as PyTorch does in grad mode), so that
    // an in-place op writing a differentiable value into the view gives the base a history.
    if (GradMode::is_enabled()) {
      AutogradMeta* m = materialize_meta(view);
      m->is_view_ = true;
      m->base_ = base;
    }
    return;
  }
  const bool rev = GradMode::is_enabled() && bm->requires_grad();
  const bool fwd = forward_ad_enabled() && has_any_fw_grad(base);
  if (!rev && !fwd) return;
  if (rev) {
    // Views of views are windows of the root base (which does not overlap itself, unlike
    // an expanded intermediate view).
    // A view that was made a leaf (requires_grad_ on it) is its own root.
    const Tensor& root = bm && bm->is_view_ && bm->base_.defined() && bm->grad_fn_ ? bm->base_ : base;
    auto node = std::make_shared<AsStridedBackward>(root, view);
    node->set_next_edges({gradient_edge(root)});
    AutogradMeta* m = materialize_meta(view);
    m->grad_fn_ = node;
    m->output_nr_ = 0;
    m->is_view_ = true;
    m->base_ = root;
  }
  if (fwd) {
    for (auto& [l, tg] : bm->fw_grads_) {
      if (!forward_ad::level_open(l)) continue;
      Tensor tv;
      {
        BelowAutogradGuard g;
        // The tangent has the base's layout: the same window, offset from the tangent's start.
        int64_t off;
        if (isComplexType(base.scalar_type()) && !isComplexType(view.scalar_type()))
          off = tg.storage_offset() * 2 + (view.storage_offset() - base.storage_offset() * 2);
        else if (!isComplexType(base.scalar_type()) && isComplexType(view.scalar_type()))
          off = (tg.storage_offset() + view.storage_offset() * 2 - base.storage_offset()) / 2;
        else
          off = tg.storage_offset() + (view.storage_offset() - base.storage_offset());
        tv = make_view(tg, view.sizes(), view.strides(), off, view.scalar_type());
      }
      set_fw_grad(view, tv, l);
    }
  }
}
struct InstallViewHook {
  InstallViewHook() { set_view_hook(&view_hook); }
} g_install_view_hook;
}  // namespace

}  // namespace ember::autograd
