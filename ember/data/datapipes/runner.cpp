#include "ember/data/datapipes/runner.h"

namespace ember::data::datapipes::detail {

void rethrow_worker(int64_t worker, std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    EMBER_CHECK(false, "DataLoader worker ", worker, " raised an error: ", e.what());
  } catch (...) {
    EMBER_CHECK(false, "DataLoader worker ", worker, " raised a non-standard exception");
  }
  std::abort();
}

void worker_timeout(int64_t worker, std::chrono::milliseconds timeout) {
  if (worker >= 0)
    EMBER_CHECK(false, "DataLoader: timed out after ", timeout.count(), " ms waiting for worker ", worker,
                " (raise the timeout, or check the pipe for a stall)");
  EMBER_CHECK(false, "DataLoader: timed out after ", timeout.count(),
              " ms waiting for any worker (raise the timeout, or check the pipe for a stall)");
  std::abort();
}

void check_sharded(int64_t found, int64_t instances, const char* root) {
  EMBER_CHECK(found > 0, "DataLoader: the pipe (", root, ") has no sharding_filter, so each of the ", instances,
              " workers/ranks would yield every element; add .sharding_filter() after the source (before "
              "expensive maps) so that each element is read once per epoch");
}

uint64_t parse_seed(const json::Value& v) {
  const std::string& s = v.as_string("seed");
  char* end = nullptr;
  uint64_t seed = std::strtoull(s.c_str(), &end, 10);
  EMBER_CHECK(!s.empty() && *end == 0, "DataLoader::load_state_dict: bad seed '", s, "'");
  return seed;
}

}  // namespace ember::data::datapipes::detail
