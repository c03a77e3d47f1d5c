// LibTorch compatibility: the c10 macros user code spells (export markers, branch hints,
// attributes, token pasting).
#pragma once

#define C10_API
#define C10_EXPORT
#define C10_IMPORT
#define TORCH_API
#define TORCH_PYTHON_API
#define CAFFE2_API

// UBSan opt-outs that LibTorch code annotates functions with (no-ops here).
#define __ubsan_ignore_float_divide_by_zero__
#define __ubsan_ignore_undefined__
#define __ubsan_ignore_signed_int_overflow__
#define __ubsan_ignore_function__
#define C10_LIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 1))
#define C10_UNLIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 0))
#define C10_ALWAYS_INLINE inline __attribute__((__always_inline__))
#define C10_NOINLINE __attribute__((__noinline__))
#define C10_UNUSED __attribute__((__unused__))
#define C10_USED __attribute__((__used__))
#define C10_NODISCARD [[nodiscard]]
#define C10_FALLTHROUGH [[fallthrough]]
#define C10_RESTRICT __restrict
#define C10_HOST_DEVICE
#define C10_HOST
#define C10_DEVICE
#define C10_HOST_CONSTEXPR_EXCEPT_WIN_CUDA constexpr
#define CONSTEXPR_EXCEPT_WIN_CUDA constexpr

#define C10_CONCATENATE_IMPL(s1, s2) s1##s2
#define C10_CONCATENATE(s1, s2) C10_CONCATENATE_IMPL(s1, s2)
#define C10_ANONYMOUS_VARIABLE(str) C10_CONCATENATE(str, __COUNTER__)
#define C10_STRINGIZE_IMPL(x) #x
#define C10_STRINGIZE(x) C10_STRINGIZE_IMPL(x)
#define C10_MACRO_EXPAND(args) args

#define C10_DISABLE_COPY_AND_ASSIGN(classname) \
  classname(const classname&) = delete;        \
  classname& operator=(const classname&) = delete
