// Note [CUDA libraries loaded on first use] (lazy_library.h).
#include "ember/cuda/lazy_library.h"

#include <dlfcn.h>

#include "ember/core/error.h"

namespace ember::cuda::detail {

void* LazyLibrary::symbol(const char* name) {
  std::call_once(opened_, [this] {
    // RTLD_LOCAL: the library's symbols stay out of the global namespace; never closed
    // (kernels may run on streams until exit).
    handle_ = ::dlopen(soname_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
      const char* why = ::dlerror();
      open_error_ = why ? why : "unknown dlopen error";
    }
  });
  EMBER_CHECK(handle_ != nullptr, what_, " is needed here but ", soname_, " could not be loaded: ", open_error_,
              " (ember was built against this CUDA toolkit's ", what_,
              "; put its lib directory on LD_LIBRARY_PATH or in the ld.so cache)");
  ::dlerror();
  void* address = ::dlsym(handle_, name);
  EMBER_CHECK(address != nullptr, what_, " (", soname_, ") has no entry point ", name,
              ": the library found is not the version ember was built against");
  return address;
}

}  // namespace ember::cuda::detail
