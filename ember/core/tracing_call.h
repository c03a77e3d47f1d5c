// The one-line hook of a traced op (Note [Tracing hooks]):
//
//   Tensor view(const Tensor& self, IntArrayRef size) {
//     if (tracing::active())
//       return tracing::traced_call(view_op, {self}, {{"size", tracing::ints(size)}}, [&] { return view(self, size); });
//     ...
//
// The lambda calls the op again inside an OpScope (so it runs untraced) and the call is
// recorded as one node with the op's outputs.
#pragma once
#include <optional>
#include <tuple>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/core/tracing.h"

namespace ember::tracing {

inline std::vector<int64_t> ints(IntArrayRef a) { return std::vector<int64_t>(a.begin(), a.end()); }
inline Attr optional_int(std::optional<int64_t> v) { return v ? Attr(Scalar(*v)) : Attr(); }
inline Attr optional_dtype(std::optional<ScalarType> v) { return v ? Attr(*v) : Attr(); }
inline std::optional<int64_t> optional_int_attr(const Attrs& a, std::string_view name, std::string_view op) {
  return has_attr(a, name) ? std::optional<int64_t>(int_attr(a, name, op)) : std::nullopt;
}
inline std::optional<ScalarType> optional_dtype_attr(const Attrs& a, std::string_view name, std::string_view op) {
  return has_attr(a, name) ? std::optional<ScalarType>(dtype_attr(a, name, op)) : std::nullopt;
}

inline std::vector<Tensor> as_outputs(const Tensor& t) { return {t}; }
inline const std::vector<Tensor>& as_outputs(const std::vector<Tensor>& v) { return v; }
template <class... T>
std::vector<Tensor> as_outputs(const std::tuple<T...>& t) {
  return std::apply([](const auto&... x) { return std::vector<Tensor>{Tensor(x)...}; }, t);
}

template <class F>
auto traced_call(const TracedOp& op, const std::vector<Tensor>& inputs, Attrs attrs, F&& call) {
  OpScope scope;
  auto result = call();
  scope.record(op, inputs, std::move(attrs), as_outputs(result));
  return result;
}

// An in-place op or an out= call: inputs[0] is written and is the result.
template <class F>
decltype(auto) traced_mutation(const TracedOp& op, const std::vector<Tensor>& inputs, Attrs attrs, F&& call) {
  OpScope scope;
  decltype(auto) result = call();
  scope.record(op, inputs, std::move(attrs), {inputs[0]}, /*mutates=*/true);
  return result;
}

}  // namespace ember::tracing
