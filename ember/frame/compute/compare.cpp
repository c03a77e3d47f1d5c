// Comparisons (eq ne lt le gt ge) into boolean columns, Kleene logic on boolean columns,
// membership (isin) and null masks (is_null, is_valid).
#include <algorithm>
#include <cmath>
#include <unordered_set>
#include <utility>

#include "ember/frame/compute/compute.h"
#include "ember/frame/compute/kernels.h"

namespace ember::frame {

using namespace compute_detail;

namespace {

enum class CmpOp { Eq, Ne, Lt, Le, Gt, Ge };

const char* cmp_name(CmpOp op) {
  switch (op) {
    case CmpOp::Eq: return "eq";
    case CmpOp::Ne: return "ne";
    case CmpOp::Lt: return "lt";
    case CmpOp::Le: return "le";
    case CmpOp::Gt: return "gt";
    case CmpOp::Ge: return "ge";
  }
  return "?";
}

// The op with its operands swapped (a < b is b > a).
CmpOp swapped(CmpOp op) {
  switch (op) {
    case CmpOp::Lt: return CmpOp::Gt;
    case CmpOp::Le: return CmpOp::Ge;
    case CmpOp::Gt: return CmpOp::Lt;
    case CmpOp::Ge: return CmpOp::Le;
    default: return op;
  }
}

// x op y, exact for mixed signed/unsigned integers.
template <CmpOp OP, class A, class B>
inline bool compare(const A& x, const B& y) {
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B> && !std::is_same_v<A, B>) {
    if constexpr (OP == CmpOp::Eq) return std::cmp_equal(x, y);
    else if constexpr (OP == CmpOp::Ne) return std::cmp_not_equal(x, y);
    else if constexpr (OP == CmpOp::Lt) return std::cmp_less(x, y);
    else if constexpr (OP == CmpOp::Le) return std::cmp_less_equal(x, y);
    else if constexpr (OP == CmpOp::Gt) return std::cmp_greater(x, y);
    else return std::cmp_greater_equal(x, y);
  } else {
    if constexpr (OP == CmpOp::Eq) return x == y;
    else if constexpr (OP == CmpOp::Ne) return x != y;
    else if constexpr (OP == CmpOp::Lt) return x < y;
    else if constexpr (OP == CmpOp::Le) return x <= y;
    else if constexpr (OP == CmpOp::Gt) return x > y;
    else return x >= y;
  }
}

// Fills result words: get_a(i) op get_b(i) for i in [0, n).
template <CmpOp OP, class GA, class GB>
void compare_words(uint64_t* out, int64_t n, const GA& get_a, const GB& get_b) {
  parallel_for(0, num_words(n), kGrain / 64, [&](int64_t kb, int64_t ke) {
    alignas(64) uint8_t t[64];
    for (int64_t k = kb; k < ke; ++k) {
      const int64_t base = k * 64;
      const int m = int(std::min<int64_t>(64, n - base));
      if (m == 64) {
        for (int j = 0; j < 64; ++j) t[j] = compare<OP>(get_a(base + j), get_b(base + j));
      } else {
        for (int j = 0; j < m; ++j) t[j] = compare<OP>(get_a(base + j), get_b(base + j));
        for (int j = m; j < 64; ++j) t[j] = 0;
      }
      out[k] = pack_bytes(t);
    }
  });
}

template <class GA, class GB>
void dispatch_compare(CmpOp op, uint64_t* out, int64_t n, const GA& ga, const GB& gb) {
  switch (op) {
    case CmpOp::Eq: return compare_words<CmpOp::Eq>(out, n, ga, gb);
    case CmpOp::Ne: return compare_words<CmpOp::Ne>(out, n, ga, gb);
    case CmpOp::Lt: return compare_words<CmpOp::Lt>(out, n, ga, gb);
    case CmpOp::Le: return compare_words<CmpOp::Le>(out, n, ga, gb);
    case CmpOp::Gt: return compare_words<CmpOp::Gt>(out, n, ga, gb);
    case CmpOp::Ge: return compare_words<CmpOp::Ge>(out, n, ga, gb);
  }
}


// Getters of an operand in type C: a column's values or a broadcast scalar.
template <class C>
struct ColGetter {
  const C* p;
  C operator()(int64_t i) const { return p[i]; }
};
template <class C>
struct ScalarGetter {
  C s;
  C operator()(int64_t) const { return s; }
};

Column constant_bool(int64_t n, bool value, const Validity& v, bool nullable) {
  MutableBuffer out = allocate(num_words(n) * 8);
  uint64_t* w = out.as<uint64_t>();
  for (int64_t k = 0; k < num_words(n); ++k) {
    const int64_t rem = n - k * 64;
    w[k] = value ? (rem >= 64 ? ~uint64_t(0) : (uint64_t(1) << rem) - 1) : 0;
  }
  return make_bool(n, out.buffer, v, nullable);
}

Column compare_op(CmpOp op, Operand a, Operand b) {
  const char* name = cmp_name(op);
  Column ad, bd;
  if (a.col) ad = decoded(*a.col), a.col = &ad;
  if (b.col) bd = decoded(*b.col), b.col = &bd;
  if (!a.col) {  // scalar op column -> column op' scalar
    std::swap(a, b);
    op = swapped(op);
  }
  if (b.col) check_same_length(name, *a.col, *b.col);
  const Column& ca = *a.col;
  const int64_t n = ca.size();
  const bool scalar_null = b.scalar && b.scalar->is_null();
  const bool nullable = scalar_null || ca.dtype().nullable() || (b.col && b.col->dtype().nullable());
  if (scalar_null) return make_all_null(dtypes::boolean, n);
  const Validity v = b.col ? validity_and(*ca.data(), *b.col->data()) : validity_of(*ca.data());
  const TypeId ta = ca.dtype().id();
  auto bad = [&]() {
    ::ember::detail::throw_type_error(
        ::ember::detail::str_cat(name, ": cannot compare ", describe(a), " with ", describe(b)));
  };
  MutableBuffer out = allocate(num_words(n) * 8);
  uint64_t* words = out.as<uint64_t>();

  // Strings.
  if (ca.dtype().is_binary_like()) {
    const bool b_text = b.col ? b.col->dtype().is_binary_like() : (b.scalar->is_string());
    if (!b_text) bad();
    const StringAccess sa = string_access(*ca.data());
    auto ga = [&](int64_t i) { return sa.get(i); };
    if (b.col) {
      const StringAccess sb = string_access(*b.col->data());
      dispatch_compare(op, words, n, ga, [&](int64_t i) { return sb.get(i); });
    } else {
      const std::string& s = b.scalar->as_string();
      const std::string_view sv(s);
      dispatch_compare(op, words, n, ga, [sv](int64_t) { return sv; });
    }
    return make_bool(n, out.buffer, v, nullable);
  }

  // Dates and timestamps compare with their own kind (timestamps of one unit) or with
  // integer scalars (days or units since the epoch).
  const bool temporal_a = ta == TypeId::Date32 || ta == TypeId::Timestamp;
  if (b.col) {
    const TypeId tb = b.col->dtype().id();
    const bool temporal_b = tb == TypeId::Date32 || tb == TypeId::Timestamp;
    if (temporal_a || temporal_b) {
      if (ta != tb || (ta == TypeId::Timestamp && ca.dtype().unit() != b.col->dtype().unit())) bad();
    }
  } else if (temporal_a && !b.scalar->is_integer()) {
    bad();
  }

  // Numbers and bools.
  TypeId compute;
  if (b.col) {
    const TypeId tb = b.col->dtype().id();
    const Category ka = category(ta), kb = category(tb);
    if ((ka == Category::Other && !temporal_a) || (kb == Category::Other && !temporal_a)) bad();
    if (temporal_a) {
      compute = ta == TypeId::Date32 ? TypeId::Int32 : TypeId::Int64;
    } else if (ka == Category::Bool && kb == Category::Bool) {
      compute = TypeId::UInt8;
    } else if (ka == Category::Int && kb == Category::Int &&
               ((ta == TypeId::UInt64) != (tb == TypeId::UInt64)) &&
               (ca.dtype().is_signed_integer() || b.col->dtype().is_signed_integer())) {
      // uint64 against a signed type: compare exactly as uint64 and int64.
      const bool a_unsigned = ta == TypeId::UInt64;
      Converted<uint64_t> u = convert_values<uint64_t>(*(a_unsigned ? ca : *b.col).data());
      Converted<int64_t> s = convert_values<int64_t>(*(a_unsigned ? *b.col : ca).data());
      ColGetter<uint64_t> gu{u.data};
      ColGetter<int64_t> gs{s.data};
      if (a_unsigned) dispatch_compare(op, words, n, gu, gs);
      else dispatch_compare(op, words, n, gs, gu);
      return make_bool(n, out.buffer, v, nullable);
    } else {
      compute = *promote_columns(ta, tb);
    }
  } else {
    const Value& s = *b.scalar;
    const Category ka = category(ta);
    if (ka == Category::Other && !temporal_a) bad();
    if (!(s.is_bool() || s.is_integer() || s.is_double())) bad();
    if (temporal_a) {
      compute = ta == TypeId::Date32 ? TypeId::Int32 : TypeId::Int64;
    } else if (ka == Category::Bool && s.is_bool()) {
      compute = TypeId::UInt8;
    } else {
      compute = *promote_scalar(ta, s);
    }
    if (category(compute) == Category::Int && s.is_integer()) {
      // An integer scalar outside the column's type: every comparison has one answer.
      const bool fits = visit_primitive(compute, [&](auto tag) {
        using C = decltype(tag);
        if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) return value_fits<C>(s);
        else return true;
      });
      if (!fits) {
        const bool above = s.kind() == Value::Kind::UInt || s.as_int() > 0;
        bool r = false;
        switch (op) {
          case CmpOp::Eq: r = false; break;
          case CmpOp::Ne: r = true; break;
          case CmpOp::Lt: case CmpOp::Le: r = above; break;
          case CmpOp::Gt: case CmpOp::Ge: r = !above; break;
        }
        return constant_bool(n, r, v, nullable);
      }
    }
  }

  visit_primitive(compute, [&](auto tag) {
    using C = decltype(tag);
    if constexpr (!std::is_same_v<C, bool>) {
      const ArrayData& a_data = *ca.data();
      Converted<C> xa = temporal_a ? Converted<C>{values_of<C>(a_data), Buffer()} : convert_values<C>(a_data);
      ColGetter<C> ga{xa.data};
      if (b.col) {
        const ArrayData& b_data = *b.col->data();
        Converted<C> xb = temporal_a ? Converted<C>{values_of<C>(b_data), Buffer()} : convert_values<C>(b_data);
        dispatch_compare(op, words, n, ga, ColGetter<C>{xb.data});
      } else {
        dispatch_compare(op, words, n, ga, ScalarGetter<C>{scalar_as<C>(name, *b.scalar)});
      }
    }
  });
  return make_bool(n, out.buffer, v, nullable);
}


// ---- logic ------------------------------------------------------------------------------------

enum class LogicOp { And, Or, Xor };

void check_bool(const char* op, const Column& c) {
  if (c.dtype().id() != TypeId::Bool) unsupported(op, c, "a boolean column");
}

Column logic(LogicOp op, const Column& a, const Column& b) {
  const char* name = op == LogicOp::And ? "logical_and" : op == LogicOp::Or ? "logical_or" : "logical_xor";
  check_bool(name, a);
  check_bool(name, b);
  check_same_length(name, a, b);
  const ArrayData& x = *a.data();
  const ArrayData& y = *b.data();
  const int64_t n = x.length, nw = num_words(n);
  MutableBuffer vals = allocate(nw * 8);
  MutableBuffer valid = allocate(nw * 8);
  uint64_t* ov = vals.as<uint64_t>();
  uint64_t* om = valid.as<uint64_t>();
  parallel_for(0, nw, kGrain / 64, [&](int64_t kb, int64_t ke) {
    for (int64_t k = kb; k < ke; ++k) {
      const uint64_t va = validity_word(x, k), vb = validity_word(y, k);
      const uint64_t xa = bool_word(x, k), xb = bool_word(y, k);
      const uint64_t at = va & xa, af = va & ~xa, bt = vb & xb, bf = vb & ~xb;
      uint64_t t, m;
      switch (op) {
        case LogicOp::And: t = at & bt; m = t | af | bf; break;
        case LogicOp::Or: t = at | bt; m = t | (af & bf); break;
        default: m = va & vb; t = (xa ^ xb) & m; break;
      }
      ov[k] = t;
      om[k] = m;
    }
  });
  const bool nullable = a.dtype().nullable() || b.dtype().nullable();
  return make_bool(n, vals.buffer, validity_from_words(std::move(valid), n), nullable);
}

}  // namespace

#define EMBER_FRAME_DEFINE_CMP(fname, OP)                                                                \
  Column fname(const Column& a, const Column& b) { return compare_op(CmpOp::OP, col_op(a), col_op(b)); } \
  Column fname(const Column& a, const Value& b) { return compare_op(CmpOp::OP, col_op(a), val_op(b)); }  \
  Column fname(const Value& a, const Column& b) { return compare_op(CmpOp::OP, val_op(a), col_op(b)); }
EMBER_FRAME_DEFINE_CMP(eq, Eq)
EMBER_FRAME_DEFINE_CMP(ne, Ne)
EMBER_FRAME_DEFINE_CMP(lt, Lt)
EMBER_FRAME_DEFINE_CMP(le, Le)
EMBER_FRAME_DEFINE_CMP(gt, Gt)
EMBER_FRAME_DEFINE_CMP(ge, Ge)
#undef EMBER_FRAME_DEFINE_CMP

#define EMBER_FRAME_DEFINE_OPERATOR(op, fname)                                      \
  Column operator op(const Column& a, const Column& b) { return fname(a, b); }  \
  Column operator op(const Column& a, const Value& b) { return fname(a, b); }   \
  Column operator op(const Value& a, const Column& b) { return fname(a, b); }
EMBER_FRAME_DEFINE_OPERATOR(<, lt)
EMBER_FRAME_DEFINE_OPERATOR(<=, le)
EMBER_FRAME_DEFINE_OPERATOR(>, gt)
EMBER_FRAME_DEFINE_OPERATOR(>=, ge)
#undef EMBER_FRAME_DEFINE_OPERATOR
Column operator==(const Column& a, const Value& b) { return eq(a, b); }
Column operator==(const Value& a, const Column& b) { return eq(a, b); }
Column operator!=(const Column& a, const Value& b) { return ne(a, b); }
Column operator!=(const Value& a, const Column& b) { return ne(a, b); }

Column logical_and(const Column& a, const Column& b) { return logic(LogicOp::And, a, b); }
Column logical_or(const Column& a, const Column& b) { return logic(LogicOp::Or, a, b); }
Column logical_xor(const Column& a, const Column& b) { return logic(LogicOp::Xor, a, b); }
Column logical_not(const Column& a) {
  check_bool("logical_not", a);
  const ArrayData& x = *a.data();
  const int64_t n = x.length, nw = num_words(n);
  MutableBuffer vals = allocate(nw * 8);
  uint64_t* ov = vals.as<uint64_t>();
  parallel_for(0, nw, kGrain / 64, [&](int64_t kb, int64_t ke) {
    for (int64_t k = kb; k < ke; ++k) {
      const int64_t rem = n - k * 64;
      const uint64_t tail = rem >= 64 ? ~uint64_t(0) : (uint64_t(1) << rem) - 1;
      ov[k] = ~bool_word(x, k) & tail;
    }
  });
  return make_bool(n, vals.buffer, validity_of(x), a.dtype().nullable());
}
Column operator&(const Column& a, const Column& b) { return logical_and(a, b); }
Column operator|(const Column& a, const Column& b) { return logical_or(a, b); }
Column operator^(const Column& a, const Column& b) { return logical_xor(a, b); }
Column operator~(const Column& a) { return logical_not(a); }

// ---- null masks --------------------------------------------------------------------------------

namespace {
Column null_mask(const Column& a, bool valid) {
  const ArrayData& x = *a.data();
  const int64_t n = x.length, nw = num_words(n);
  MutableBuffer vals = allocate(nw * 8);
  uint64_t* ov = vals.as<uint64_t>();
  for (int64_t k = 0; k < nw; ++k) {
    const int64_t rem = n - k * 64;
    const uint64_t tail = rem >= 64 ? ~uint64_t(0) : (uint64_t(1) << rem) - 1;
    const uint64_t w = validity_word(x, k);
    ov[k] = valid ? w : (~w & tail);
  }
  return make_bool(n, vals.buffer, Validity{}, false);
}
}  // namespace

Column is_null(const Column& a) { return null_mask(a, false); }
Column is_valid(const Column& a) { return null_mask(a, true); }

// ---- isin ----------------------------------------------------------------------------------------

Column isin(const Column& col, const std::vector<Value>& values) {
  const Column c = decoded(col);
  const ArrayData& x = *c.data();
  const int64_t n = x.length;
  bool has_null = false;
  for (const Value& v : values) has_null |= v.is_null();
  MutableBuffer out = allocate(num_words(n) * 8);
  uint64_t* words = out.as<uint64_t>();
  const TypeId id = c.dtype().id();
  auto fill = [&](const auto& member) {
    parallel_for(0, num_words(n), kGrain / 64, [&](int64_t kb, int64_t ke) {
      for (int64_t k = kb; k < ke; ++k) {
        const int64_t base = k * 64;
        const int m = int(std::min<int64_t>(64, n - base));
        const uint64_t valid = validity_word(x, k);
        uint64_t w = 0;
        for (int j = 0; j < m; ++j) {
          const bool is_valid = (valid >> j) & 1;
          w |= uint64_t(is_valid ? member(base + j) : has_null) << j;
        }
        words[k] = w;
      }
    });
  };
  if (c.dtype().is_binary_like()) {
    std::unordered_set<std::string_view> set;
    for (const Value& v : values)
      if (v.is_string()) set.insert(v.as_string());
    const StringAccess sa = string_access(x);
    fill([&](int64_t i) { return set.count(sa.get(i)) > 0; });
  } else if (category(id) != Category::Other || id == TypeId::Date32 || id == TypeId::Timestamp) {
    visit_primitive(id, [&](auto tag) {
      using T = decltype(tag);
      std::vector<T> set;
      bool nan = false;
      for (const Value& v : values) {
        if (v.is_bool()) {
          set.push_back(T(v.as_bool() ? 1 : 0));
        } else if (v.is_integer()) {
          if constexpr (std::is_same_v<T, bool>) {
            if (v.kind() == Value::Kind::Int && (v.as_int() == 0 || v.as_int() == 1)) set.push_back(v.as_int() == 1);
          } else if constexpr (std::is_floating_point_v<T>) {
            const long double d = v.kind() == Value::Kind::UInt ? (long double)v.as_uint() : (long double)v.as_int();
            if ((long double)T(d) == d) set.push_back(T(d));
          } else {
            if (value_fits<T>(v)) set.push_back(v.kind() == Value::Kind::UInt ? T(v.as_uint()) : T(v.as_int()));
          }
        } else if (v.is_double()) {
          const double d = v.as_double();
          if constexpr (std::is_same_v<T, bool>) {
            if (d == 0.0 || d == 1.0) set.push_back(d == 1.0);
          } else if (std::isnan(d)) {
            nan = true;
          } else if constexpr (std::is_floating_point_v<T>) {
            if (double(T(d)) == d) set.push_back(T(d));
          } else if (d == std::floor(d) && d >= -9223372036854775808.0 && d < 18446744073709551616.0) {
            const Value iv = d < 0 ? Value(int64_t(d)) : Value(uint64_t(d));
            if (value_fits<T>(iv)) set.push_back(iv.kind() == Value::Kind::UInt ? T(iv.as_uint()) : T(iv.as_int()));
          }
        }
      }
      std::sort(set.begin(), set.end());
      set.erase(std::unique(set.begin(), set.end()), set.end());
      if constexpr (std::is_same_v<T, bool>) {
        const bool has_true = std::find(set.begin(), set.end(), true) != set.end();
        const bool has_false = std::find(set.begin(), set.end(), false) != set.end();
        const uint8_t* bm = x.buffers[1].data();
        fill([&](int64_t i) { return bits::get(bm, x.offset + i) ? has_true : has_false; });
      } else {
        const T* p = values_of<T>(x);
        if (set.size() <= 8) {
          fill([&](int64_t i) {
            const T e = p[i];
            if constexpr (std::is_floating_point_v<T>)
              if (std::isnan(e)) return nan;
            for (const T& s : set)
              if (s == e) return true;
            return false;
          });
        } else {
          fill([&](int64_t i) {
            const T e = p[i];
            if constexpr (std::is_floating_point_v<T>)
              if (std::isnan(e)) return nan;
            return std::binary_search(set.begin(), set.end(), e);
          });
        }
      }
    });
  } else {
    unsupported("isin", c, "a numeric, boolean, string, date or timestamp column");
  }
  return make_bool(n, out.buffer, Validity{}, false);
}

}  // namespace ember::frame
