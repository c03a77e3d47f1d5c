// The disk side of the kernel caches (internal to ember::jit; Note [Kernel cache] in
// kernel_cache.cpp): compiled kernels (CPU object files, CUDA binaries) stored by key.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ember::jit::detail {

// EMBER_JIT_CACHE_DIR, else $XDG_CACHE_HOME/ember/jit, else ~/.cache/ember/jit; "" when off.
const std::string& kernel_cache_dir();
// The bytes stored for `key` (a kernel's full key: group, target, code generator), if any and
// intact; `kind` names the file type ("o", "cubin").
std::optional<std::string> read_cached_kernel(const std::string& key, std::string_view kind);
// Stores bytes for `key` (atomically: a temporary file renamed); failures only cost the cache.
void write_cached_kernel(const std::string& key, std::string_view kind, std::string_view bytes);

}  // namespace ember::jit::detail
