// Arithmetic on columns: + - * / // % ** between columns and scalars, unary negation and
// the math functions. Semantics in Note [Compute semantics] (compute.h).
#include <cmath>
#include <limits>

#include "ember/frame/compute/compute.h"
#include "ember/frame/compute/kernels.h"

namespace ember::frame {

using namespace compute_detail;

namespace {

enum class ArithOp { Add, Sub, Mul, TrueDiv, FloorDiv, Mod, Pow };

const char* op_name(ArithOp op) {
  switch (op) {
    case ArithOp::Add: return "add";
    case ArithOp::Sub: return "sub";
    case ArithOp::Mul: return "mul";
    case ArithOp::TrueDiv: return "truediv";
    case ArithOp::FloorDiv: return "floordiv";
    case ArithOp::Mod: return "mod";
    case ArithOp::Pow: return "pow";
  }
  return "?";
}

const char* op_symbol(ArithOp op) {
  switch (op) {
    case ArithOp::Add: return "+";
    case ArithOp::Sub: return "-";
    case ArithOp::Mul: return "*";
    case ArithOp::TrueDiv: return "/";
    case ArithOp::FloorDiv: return "//";
    case ArithOp::Mod: return "%";
    case ArithOp::Pow: return "**";
  }
  return "?";
}


// numpy's npy_divmod: Python's floor division and modulo for floats, with x // 0 = x / 0
// (+-inf or nan) and x % 0 = nan.
template <class T>
T float_divmod(T a, T b, T* modulus) {
  T mod = std::fmod(a, b);
  if (b == T(0)) {
    *modulus = mod;
    return a / b;
  }
  T div = (a - mod) / b;
  if (mod != T(0)) {
    if ((b < T(0)) != (mod < T(0))) {
      mod += b;
      div -= T(1);
    }
  } else {
    mod = std::copysign(T(0), b);
  }
  T floordiv;
  if (div != T(0)) {
    floordiv = std::floor(div);
    if (div - floordiv > T(0.5)) floordiv += T(1);
  } else {
    floordiv = std::copysign(T(0), a / b);
  }
  *modulus = mod;
  return floordiv;
}

// Integer ops on C, wrapping on overflow (computed in an unsigned type at least as wide as
// int, so that no promotion overflows). Division by zero is excluded by the caller.
template <class C>
struct IntMath {
  using W = std::conditional_t<(sizeof(C) < 4), uint32_t, std::make_unsigned_t<C>>;
  static C add(C a, C b) { return C(W(a) + W(b)); }
  static C sub(C a, C b) { return C(W(a) - W(b)); }
  static C mul(C a, C b) { return C(W(a) * W(b)); }
  static C floordiv(C a, C b) {
    if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) return C(W(0) - W(a));  // MIN // -1 wraps instead of trapping
      C q = C(a / b);
      if (C(a % b) != 0 && ((a < 0) != (b < 0))) q = C(q - 1);
      return q;
    } else {
      return C(a / b);
    }
  }
  static C mod(C a, C b) {
    if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) return 0;
      C r = C(a % b);
      if (r != 0 && ((r < 0) != (b < 0))) r = C(r + b);
      return r;
    } else {
      return C(a % b);
    }
  }
  static C pow(C a, C b) {  // b >= 0
    W r = 1, base = W(a);
    auto e = std::make_unsigned_t<C>(b);
    while (e) {
      if (e & 1) r = W(r * base);
      base = W(base * base);
      e >>= 1;
    }
    return C(r);
  }
};

template <class C, class F>
void run_binary(const C* a0, C as, const C* b0, C bs, C* out0, int64_t n, const F& f) {
  parallel_for(0, n, kGrain, [=, &f](int64_t s, int64_t e) {
    const C* __restrict a = a0;
    const C* __restrict b = b0;
    C* __restrict out = out0;
    if (a && b) {
      for (int64_t i = s; i < e; ++i) out[i] = f(a[i], b[i]);
    } else if (a) {
      for (int64_t i = s; i < e; ++i) out[i] = f(a[i], bs);
    } else {
      for (int64_t i = s; i < e; ++i) out[i] = f(as, b[i]);
    }
  });
}

// The first valid row (per `v`, offset 0) where bad(b) holds for the right operand, or -1.
template <class C, class P>
int64_t first_bad_row(const C* b, C bs, int64_t n, const Validity& v, const P& bad) {
  const uint8_t* bm = v.null_count > 0 ? v.buffer.data() : nullptr;
  if (b == nullptr) {
    if (!bad(bs)) return -1;
    for (int64_t i = 0; i < n; ++i)
      if (bm == nullptr || bits::get(bm, i)) return i;
    return -1;
  }
  for (int64_t i = 0; i < n; ++i)
    if (bad(b[i]) && (bm == nullptr || bits::get(bm, i))) return i;
  return -1;
}

Column string_concat(const Operand& a, const Operand& b, int64_t n) {
  const Column* cols[2] = {a.col, b.col};
  std::string_view scal[2];
  std::string scal_store[2];
  const Operand* ops[2] = {&a, &b};
  bool nullable = false;
  for (int k = 0; k < 2; ++k) {
    if (cols[k]) {
      nullable |= cols[k]->dtype().nullable();
    } else {
      if (ops[k]->scalar->is_null()) return make_all_null(dtypes::String(true), n);
      scal_store[k] = ops[k]->scalar->as_string();
      scal[k] = scal_store[k];
    }
  }
  StringAccess sa[2];
  const ArrayData* da[2] = {nullptr, nullptr};
  bool large = false;
  for (int k = 0; k < 2; ++k)
    if (cols[k]) {
      da[k] = cols[k]->data().get();
      sa[k] = string_access(*da[k]);
      large |= cols[k]->dtype().id() == TypeId::LargeString;
    }
  const DType type = DType(large ? TypeId::LargeString : TypeId::String, nullable);
  return build_strings("add", type, n, [&](int64_t i, std::string& out) {
    for (int k = 0; k < 2; ++k) {
      if (!cols[k]) {
        out.append(scal[k]);
        continue;
      }
      if (!da[k]->is_valid(i)) return false;
      out.append(sa[k].get(i));
    }
    return true;
  });
}

Column arith(ArithOp op, Operand a, Operand b) {
  const char* name = op_name(op);
  Column ad, bd;
  if (a.col) ad = decoded(*a.col), a.col = &ad;
  if (b.col) bd = decoded(*b.col), b.col = &bd;
  if (a.col && b.col) check_same_length(name, *a.col, *b.col);
  const int64_t n = a.col ? a.col->size() : b.col->size();

  auto is_text = [](const Operand& o) {
    return o.col ? o.col->dtype().is_string() : o.scalar->is_string();
  };
  auto bad_types = [&]() {
    ::ember::detail::throw_type_error(::ember::detail::str_cat(name, ": unsupported operand types for ", op_symbol(op), ": ",
                                             describe(a), " and ", describe(b)));
  };
  if (is_text(a) || is_text(b)) {
    const bool a_ok = is_text(a) || (a.scalar && a.scalar->is_null());
    const bool b_ok = is_text(b) || (b.scalar && b.scalar->is_null());
    if (op != ArithOp::Add || !a_ok || !b_ok) bad_types();
    return string_concat(a, b, n);
  }

  std::optional<TypeId> t;
  if (a.col && b.col) t = promote_columns(a.col->dtype().id(), b.col->dtype().id());
  else if (a.col) t = promote_scalar(a.col->dtype().id(), *b.scalar);
  else t = promote_scalar(b.col->dtype().id(), *a.scalar);
  if (!t) bad_types();
  TypeId compute = *t;
  if (op == ArithOp::TrueDiv && category(compute) != Category::Float) compute = TypeId::Float64;

  const bool scalar_null = (a.scalar && a.scalar->is_null()) || (b.scalar && b.scalar->is_null());
  const bool nullable =
      scalar_null || (a.col && a.col->dtype().nullable()) || (b.col && b.col->dtype().nullable());
  if (scalar_null) return make_all_null(DType(compute), n);
  const Validity v = a.col && b.col ? validity_and(*a.col->data(), *b.col->data())
                                    : validity_of(*(a.col ? a.col : b.col)->data());

  return visit_primitive(compute, [&](auto tag) -> Column {
    using C = decltype(tag);
    if constexpr (std::is_same_v<C, bool>) {
      EMBER_ERROR("internal: bool arithmetic");
    } else {
      Converted<C> ca, cb;
      C as{}, bs{};
      if (a.col) ca = convert_values<C>(*a.col->data());
      else as = scalar_as<C>(name, *a.scalar);
      if (b.col) cb = convert_values<C>(*b.col->data());
      else bs = scalar_as<C>(name, *b.scalar);
      MutableBuffer out = allocate(n * int64_t(sizeof(C)));
      C* o = out.as<C>();
      const C* pa = ca.data;
      const C* pb = cb.data;
      if constexpr (std::is_floating_point_v<C>) {
        switch (op) {
          case ArithOp::Add: run_binary(pa, as, pb, bs, o, n, [](C x, C y) { return C(x + y); }); break;
          case ArithOp::Sub: run_binary(pa, as, pb, bs, o, n, [](C x, C y) { return C(x - y); }); break;
          case ArithOp::Mul: run_binary(pa, as, pb, bs, o, n, [](C x, C y) { return C(x * y); }); break;
          case ArithOp::TrueDiv: run_binary(pa, as, pb, bs, o, n, [](C x, C y) { return C(x / y); }); break;
          case ArithOp::FloorDiv:
            run_binary(pa, as, pb, bs, o, n, [](C x, C y) { C m; return float_divmod(x, y, &m); });
            break;
          case ArithOp::Mod:
            run_binary(pa, as, pb, bs, o, n, [](C x, C y) { C m; float_divmod(x, y, &m); return m; });
            break;
          case ArithOp::Pow: run_binary(pa, as, pb, bs, o, n, [](C x, C y) { return C(std::pow(x, y)); }); break;
        }
      } else {
        using M = IntMath<C>;
        auto check = [&](auto bad, const char* what) {
          const int64_t row = first_bad_row(pb, bs, n, v, bad);
          EMBER_CHECK(row < 0, name, ": ", what, " at row ", row, " (", describe(a), " ", op_symbol(op), " ",
                      describe(b), ")");
        };
        switch (op) {
          case ArithOp::Add: run_binary(pa, as, pb, bs, o, n, M::add); break;
          case ArithOp::Sub: run_binary(pa, as, pb, bs, o, n, M::sub); break;
          case ArithOp::Mul: run_binary(pa, as, pb, bs, o, n, M::mul); break;
          case ArithOp::TrueDiv: EMBER_ERROR("internal: integer truediv");
          case ArithOp::FloorDiv:
            check([](C y) { return y == 0; }, "integer division by zero");
            run_binary(pa, as, pb, bs, o, n, [](C x, C y) { return M::floordiv(x, y == 0 ? C(1) : y); });
            break;
          case ArithOp::Mod:
            check([](C y) { return y == 0; }, "integer modulo by zero");
            run_binary(pa, as, pb, bs, o, n, [](C x, C y) { return M::mod(x, y == 0 ? C(1) : y); });
            break;
          case ArithOp::Pow:
            if constexpr (std::is_signed_v<C>)
              check([](C y) { return y < 0; }, "integers to negative integer powers are not allowed");
            run_binary(pa, as, pb, bs, o, n, [](C x, C y) {
              if constexpr (std::is_signed_v<C>) return M::pow(x, y < 0 ? C(0) : y);
              else return M::pow(x, y);
            });
            break;
        }
      }
      return make_fixed(DType(compute, nullable), n, out.buffer, v);
    }
  });
}


// ---- unary ----------------------------------------------------------------------------------

enum class UnaryOp { Neg, Abs, Ceil, Floor, Round, Log, Exp, Sqrt };

const char* unary_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "neg";
    case UnaryOp::Abs: return "abs";
    case UnaryOp::Ceil: return "ceil";
    case UnaryOp::Floor: return "floor";
    case UnaryOp::Round: return "round";
    case UnaryOp::Log: return "log";
    case UnaryOp::Exp: return "exp";
    case UnaryOp::Sqrt: return "sqrt";
  }
  return "?";
}

// numpy's power_of_ten.
double power_of_ten(int n) {
  static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
  if (n < 9) return p10[n];
  double r = 1e9;
  while (n-- > 9) r *= 10.;
  return r;
}

template <class T, class F>
Column map_values(const Column& c, TypeId out_type, const F& f) {
  const ArrayData& a = *c.data();
  const int64_t n = a.length;
  using O = std::invoke_result_t<F, T>;
  Converted<T> in = convert_values<T>(a);
  MutableBuffer out = allocate(n * int64_t(sizeof(O)));
  O* o = out.as<O>();
  const T* src = in.data;
  parallel_for(0, n, kGrain, [src, o, &f](int64_t s, int64_t e) {
    const T* __restrict x = src;
    O* __restrict y = o;
    for (int64_t i = s; i < e; ++i) y[i] = f(x[i]);
  });
  return make_fixed(DType(out_type, c.dtype().nullable()), n, out.buffer, validity_of(a));
}

Column unary(UnaryOp op, const Column& col, int decimals = 0) {
  const char* name = unary_name(op);
  const Column c = decoded(col);
  const TypeId id = c.dtype().id();
  const Category cat = category(id);
  if (cat == Category::Other || (cat == Category::Bool && op <= UnaryOp::Round))
    unsupported(name, c, cat == Category::Bool ? "a numeric column (bool has no arithmetic negation, abs or rounding)"
                                               : "a numeric column");
  if (op == UnaryOp::Log || op == UnaryOp::Exp || op == UnaryOp::Sqrt) {
    auto run = [&](auto tag) -> Column {
      using T = decltype(tag);
      switch (op) {
        case UnaryOp::Log: return map_values<T>(c, type_id_of<T>(), [](T x) { return T(std::log(x)); });
        case UnaryOp::Exp: return map_values<T>(c, type_id_of<T>(), [](T x) { return T(std::exp(x)); });
        default: return map_values<T>(c, type_id_of<T>(), [](T x) { return T(std::sqrt(x)); });
      }
    };
    return id == TypeId::Float32 ? run(float{}) : run(double{});
  }
  return visit_primitive(id, [&](auto tag) -> Column {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      EMBER_ERROR("internal: bool in ", name);
    } else if constexpr (std::is_floating_point_v<T>) {
      switch (op) {
        case UnaryOp::Neg: return map_values<T>(c, id, [](T x) { return T(-x); });
        case UnaryOp::Abs: return map_values<T>(c, id, [](T x) { return T(std::fabs(x)); });
        case UnaryOp::Ceil: return map_values<T>(c, id, [](T x) { return T(std::ceil(x)); });
        case UnaryOp::Floor: return map_values<T>(c, id, [](T x) { return T(std::floor(x)); });
        default: {
          // numpy: y = x * 10^d (or x / 10^-d), rint, then back, in the column's precision.
          const T f = T(power_of_ten(decimals >= 0 ? decimals : -decimals));
          if (decimals >= 0) return map_values<T>(c, id, [f](T x) { return T(T(std::nearbyint(T(x * f))) / f); });
          return map_values<T>(c, id, [f](T x) { return T(T(std::nearbyint(T(x / f))) * f); });
        }
      }
    } else {
      using U = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
      switch (op) {
        case UnaryOp::Neg: return map_values<T>(c, id, [](T x) { return T(U(0) - U(x)); });
        case UnaryOp::Abs:
          if constexpr (std::is_signed_v<T>) return map_values<T>(c, id, [](T x) { return x < 0 ? T(U(0) - U(x)) : x; });
          else return c;
        case UnaryOp::Ceil:
        case UnaryOp::Floor: return c;
        default: {
          if (decimals >= 0) return c;
          // numpy rounds integers through float64: rint(x / 10^-d) * 10^-d, cast back.
          const double f = power_of_ten(-decimals);
          return map_values<T>(c, id, [f](T x) {
            const double r = std::nearbyint(double(x) / f) * f;
            const double lim = std::ldexp(1.0, std::numeric_limits<T>::digits);
            const bool fits = std::is_signed_v<T> ? (r >= -lim && r < lim) : (r >= 0 && r < lim);
            if (!fits) return std::numeric_limits<T>::min();  // numpy's out-of-range cast on x86
            return T(r);
          });
        }
      }
    }
  });
}

}  // namespace

#define EMBER_FRAME_DEFINE_ARITH(fname, OP)                                                            \
  Column fname(const Column& a, const Column& b) { return arith(ArithOp::OP, col_op(a), col_op(b)); } \
  Column fname(const Column& a, const Value& b) { return arith(ArithOp::OP, col_op(a), val_op(b)); }  \
  Column fname(const Value& a, const Column& b) { return arith(ArithOp::OP, val_op(a), col_op(b)); }
EMBER_FRAME_DEFINE_ARITH(add, Add)
EMBER_FRAME_DEFINE_ARITH(sub, Sub)
EMBER_FRAME_DEFINE_ARITH(mul, Mul)
EMBER_FRAME_DEFINE_ARITH(div, TrueDiv)
EMBER_FRAME_DEFINE_ARITH(truediv, TrueDiv)
EMBER_FRAME_DEFINE_ARITH(floordiv, FloorDiv)
EMBER_FRAME_DEFINE_ARITH(mod, Mod)
EMBER_FRAME_DEFINE_ARITH(pow, Pow)
#undef EMBER_FRAME_DEFINE_ARITH

#define EMBER_FRAME_DEFINE_OPERATOR(op, fname)                                      \
  Column operator op(const Column& a, const Column& b) { return fname(a, b); }  \
  Column operator op(const Column& a, const Value& b) { return fname(a, b); }   \
  Column operator op(const Value& a, const Column& b) { return fname(a, b); }
EMBER_FRAME_DEFINE_OPERATOR(+, add)
EMBER_FRAME_DEFINE_OPERATOR(-, sub)
EMBER_FRAME_DEFINE_OPERATOR(*, mul)
EMBER_FRAME_DEFINE_OPERATOR(/, truediv)
EMBER_FRAME_DEFINE_OPERATOR(%, mod)
#undef EMBER_FRAME_DEFINE_OPERATOR

Column neg(const Column& a) { return unary(UnaryOp::Neg, a); }
Column operator-(const Column& a) { return neg(a); }
Column abs(const Column& a) { return unary(UnaryOp::Abs, a); }
Column ceil(const Column& a) { return unary(UnaryOp::Ceil, a); }
Column floor(const Column& a) { return unary(UnaryOp::Floor, a); }
Column round(const Column& a, int decimals) {
  EMBER_CHECK(decimals >= -308 && decimals <= 308, "round: decimals must be in [-308, 308], got ", decimals);
  return unary(UnaryOp::Round, a, decimals);
}
Column log(const Column& a) { return unary(UnaryOp::Log, a); }
Column exp(const Column& a) { return unary(UnaryOp::Exp, a); }
Column sqrt(const Column& a) { return unary(UnaryOp::Sqrt, a); }

}  // namespace ember::frame
