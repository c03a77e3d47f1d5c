// The disk kernel cache (kernel_cache.h).
//
// Note [Kernel cache]: compiled kernels are kept in two caches keyed by the group's canonical
// text (KernelSpec::str()) and what they were compiled for. In memory (fuser.cpp), for the
// process; on disk, across processes: each kernel's machine code (the CPU code generator's
// object file, NVRTC's CUDA binary) in EMBER_JIT_CACHE_DIR, else $XDG_CACHE_HOME/ember/jit, else
// ~/.cache/ember/jit ("off" or an empty EMBER_JIT_CACHE_DIR turns it off). The key of a CPU
// kernel adds the host CPU (name and features: the code is for this CPU) and a digest of
// libember_llvm.so's bytes (any change to the code generator is a new key); a CUDA kernel's adds
// the GPU architecture, NVRTC's version and the generated source itself. A file's name is a
// 64-bit hash of the key; the file ends with a footer that repeats the whole key, checked on
// load, so a collision, a truncated or a foreign file is a miss (then compiled and written
// again), never a wrong kernel. Files are written to a temporary name and renamed (atomic); a
// cache directory that cannot be written only costs the compile.
#include "ember/jit/kernel_cache.h"

#include "ember/jit/kernel_spec.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ember::jit::detail {

namespace {

constexpr char kFooterMagic[8] = {'E', 'M', 'B', 'J', 'I', 'T', '0', '1'};

// mkdir -p; false when the directory cannot be made.
bool make_dirs(const std::string& dir) {
  for (size_t at = 1; at <= dir.size(); ++at) {
    if (at != dir.size() && dir[at] != '/') continue;
    const std::string part = dir.substr(0, at);
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat st{};
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string path_of(const std::string& key, std::string_view kind) {
  char name[40];
  std::snprintf(name, sizeof name, "/%016llx.", static_cast<unsigned long long>(fnv1a(key)));
  return kernel_cache_dir() + name + std::string(kind);
}

}  // namespace

const std::string& kernel_cache_dir() {
  static const std::string dir = [] {
    if (const char* d = std::getenv("EMBER_JIT_CACHE_DIR")) return std::string(d) == "off" ? std::string() : std::string(d);
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/ember/jit";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/ember/jit";
    return std::string();
  }();
  return dir;
}

std::optional<std::string> read_cached_kernel(const std::string& key, std::string_view kind) {
  if (kernel_cache_dir().empty()) return std::nullopt;
  std::ifstream f(path_of(key, kind), std::ios::binary);
  if (!f) return std::nullopt;
  std::stringstream bytes;
  bytes << f.rdbuf();
  const std::string b = bytes.str();
  // [machine code][key][key length: 8 bytes][magic: 8 bytes]
  if (b.size() < 16 || std::memcmp(b.data() + b.size() - 8, kFooterMagic, 8) != 0) return std::nullopt;
  uint64_t key_size = 0;
  std::memcpy(&key_size, b.data() + b.size() - 16, 8);
  if (key_size != key.size() || b.size() - 16 < key_size) return std::nullopt;
  const size_t code_size = b.size() - 16 - key_size;
  if (code_size == 0 || b.compare(code_size, key_size, key) != 0) return std::nullopt;
  return b.substr(0, code_size);
}

void write_cached_kernel(const std::string& key, std::string_view kind, std::string_view bytes) {
  if (kernel_cache_dir().empty() || bytes.empty() || !make_dirs(kernel_cache_dir())) return;
  const std::string path = path_of(key, kind);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return;
    const uint64_t key_size = key.size();
    f.write(bytes.data(), std::streamsize(bytes.size()));
    f.write(key.data(), std::streamsize(key.size()));
    f.write(reinterpret_cast<const char*>(&key_size), 8);
    f.write(kFooterMagic, 8);
    if (!f.flush()) {
      ::unlink(tmp.c_str());
      return;
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) ::unlink(tmp.c_str());
}

}  // namespace ember::jit::detail
