// Byte encoding of pipe elements for worker processes (MultiProcessingReadingService with
// processes): numbers, bool, strings, tensors (dtype, shape, contiguous bytes), and
// std::vector / std::pair / std::tuple / std::map / std::optional of those. Specialize
// `Wire<T>` (encode, decode) to send your own types; `wire_supported<T>` says whether T has
// an encoding.
#pragma once
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember::data::datapipes {

// Reads from a received frame; every read is bounds-checked.
class WireReader {
 public:
  WireReader(const char* p, const char* end) : p_(p), end_(end) {}
  void read(void* dst, size_t n) {
    EMBER_CHECK(size_t(end_ - p_) >= n, "worker process: truncated element (", n, " bytes needed, ", end_ - p_,
                " left)");
    std::memcpy(dst, p_, n);
    p_ += n;
  }
  template <class T> T pod() {
    T v;
    read(&v, sizeof v);
    return v;
  }
  uint64_t count() {
    uint64_t n = pod<uint64_t>();
    EMBER_CHECK(n <= uint64_t(end_ - p_) * 8 + 64, "worker process: corrupt element (count ", n, ")");
    return n;
  }
  bool done() const { return p_ == end_; }
  uint64_t remaining() const { return uint64_t(end_ - p_); }

 private:
  const char* p_;
  const char* end_;
};

template <class T, class = void>
struct Wire;  // no encoding

template <class T>
struct Wire<T, std::enable_if_t<std::is_arithmetic_v<T>>> {
  static void encode(const T& v, std::string& out) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
  static T decode(WireReader& r) { return r.pod<T>(); }
};

template <>
struct Wire<std::string> {
  static void encode(const std::string& v, std::string& out) {
    uint64_t n = v.size();
    out.append(reinterpret_cast<const char*>(&n), sizeof n);
    out.append(v);
  }
  static std::string decode(WireReader& r) {
    std::string s(r.count(), '\0');
    r.read(s.data(), s.size());
    return s;
  }
};

namespace detail {
void encode_tensor(const Tensor& t, std::string& out);
Tensor decode_tensor(WireReader& r);
}  // namespace detail

template <>
struct Wire<Tensor> {
  static void encode(const Tensor& v, std::string& out) { detail::encode_tensor(v, out); }
  static Tensor decode(WireReader& r) { return detail::decode_tensor(r); }
};

template <class U>
struct Wire<std::vector<U>, std::void_t<decltype(Wire<U>::decode)>> {
  static void encode(const std::vector<U>& v, std::string& out) {
    uint64_t n = v.size();
    out.append(reinterpret_cast<const char*>(&n), sizeof n);
    for (const auto& e : v) Wire<U>::encode(e, out);
  }
  static std::vector<U> decode(WireReader& r) {
    uint64_t n = r.count();
    std::vector<U> v;
    v.reserve(n);
    for (uint64_t i = 0; i < n; ++i) v.push_back(Wire<U>::decode(r));
    return v;
  }
};

template <class U>
struct Wire<std::optional<U>, std::void_t<decltype(Wire<U>::decode)>> {
  static void encode(const std::optional<U>& v, std::string& out) {
    out.push_back(v ? 1 : 0);
    if (v) Wire<U>::encode(*v, out);
  }
  static std::optional<U> decode(WireReader& r) {
    if (!r.pod<char>()) return std::nullopt;
    return Wire<U>::decode(r);
  }
};

template <class A, class B>
struct Wire<std::pair<A, B>, std::void_t<decltype(Wire<A>::decode), decltype(Wire<B>::decode)>> {
  static void encode(const std::pair<A, B>& v, std::string& out) {
    Wire<A>::encode(v.first, out);
    Wire<B>::encode(v.second, out);
  }
  static std::pair<A, B> decode(WireReader& r) {
    A a = Wire<A>::decode(r);
    B b = Wire<B>::decode(r);
    return {std::move(a), std::move(b)};
  }
};

template <class... Ts>
struct Wire<std::tuple<Ts...>, std::void_t<decltype(Wire<Ts>::decode)...>> {
  static void encode(const std::tuple<Ts...>& v, std::string& out) {
    std::apply([&](const auto&... e) { (Wire<std::decay_t<decltype(e)>>::encode(e, out), ...); }, v);
  }
  static std::tuple<Ts...> decode(WireReader& r) { return std::tuple<Ts...>{Wire<Ts>::decode(r)...}; }  // in order
};

template <class K, class U>
struct Wire<std::map<K, U>, std::void_t<decltype(Wire<K>::decode), decltype(Wire<U>::decode)>> {
  static void encode(const std::map<K, U>& v, std::string& out) {
    uint64_t n = v.size();
    out.append(reinterpret_cast<const char*>(&n), sizeof n);
    for (const auto& [k, e] : v) {
      Wire<K>::encode(k, out);
      Wire<U>::encode(e, out);
    }
  }
  static std::map<K, U> decode(WireReader& r) {
    uint64_t n = r.count();
    std::map<K, U> m;
    for (uint64_t i = 0; i < n; ++i) {
      K k = Wire<K>::decode(r);
      m.emplace(std::move(k), Wire<U>::decode(r));
    }
    return m;
  }
};

template <class T, class = void>
inline constexpr bool wire_supported = false;
template <class T>
inline constexpr bool wire_supported<T, std::void_t<decltype(Wire<T>::decode)>> = true;

}  // namespace ember::data::datapipes
