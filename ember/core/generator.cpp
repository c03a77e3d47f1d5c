// The default generator and seeding.
#include "ember/core/generator.h"

#include <pthread.h>

#include <random>

namespace ember {

Generator::Generator() : impl_(std::make_shared<GeneratorImpl>()) {}
Generator::Generator(uint64_t seed) : Generator() { set_current_seed(seed); }

void Generator::set_current_seed(uint64_t seed) {
  std::lock_guard<std::mutex> g(impl_->mutex);
  impl_->seed = seed;
  impl_->offset = 0;
}
uint64_t Generator::current_seed() const { return impl_->seed; }
uint64_t Generator::seed() {
  std::random_device rd;
  uint64_t s = (uint64_t(rd()) << 32) | rd();
  set_current_seed(s);
  return s;
}
uint64_t Generator::get_offset() const { return impl_->offset; }
void Generator::set_offset(uint64_t off) {
  std::lock_guard<std::mutex> g(impl_->mutex);
  impl_->offset = off;
}
std::pair<uint64_t, uint64_t> Generator::reserve(uint64_t n) {
  std::lock_guard<std::mutex> g(impl_->mutex);
  uint64_t off = impl_->offset;
  impl_->offset += n;
  return {impl_->seed, off};
}

Generator& default_generator() {
  static Generator g = [] {
    Generator gen;
    // Forked data loader workers must not inherit the lock held by another thread.
    pthread_atfork([] { default_generator().impl()->mutex.lock(); },
                   [] { default_generator().impl()->mutex.unlock(); },
                   [] { default_generator().impl()->mutex.unlock(); });
    return gen;
  }();
  return g;
}
void manual_seed(uint64_t seed) { default_generator().set_current_seed(seed); }

}  // namespace ember
