// The non-template parts of the DataLoader: option checks, errors, WorkerException.
#include <unistd.h>

#include "ember/core/error.h"
#include "ember/core/warning.h"
#include "ember/cuda/cuda.h"
#include "ember/data/detail/dataloader_base.h"

namespace ember::data {

namespace {
std::string worker_message(const std::exception_ptr& original) {
  std::string message = "Caught exception in DataLoader worker thread. Original message: ";
  try {
    std::rethrow_exception(original);
  } catch (const std::exception& e) {
    message += e.what();
  } catch (...) {
    message += "(an exception not derived from std::exception)";
  }
  return message;
}
}  // namespace

WorkerException::WorkerException(std::exception_ptr original)
    : Error(worker_message(original)), original_exception(std::move(original)), message(what()) {}

namespace detail {

int current_pid() { return int(::getpid()); }

bool pinning_available() {
  if (cuda::is_available()) return true;
  EMBER_WARN_ONCE("'pin_memory' argument is set as true but no accelerator is found, then device pinned memory "
                  "won't be used.");
  return false;
}

void check_loader_options(const FullDataLoaderOptions& options) {
  EMBER_CHECK(options.batch_size > 0, "DataLoader: batch_size must be positive, got 0");
  EMBER_CHECK(options.workers == 0 || options.max_jobs > 0, "DataLoader: max_jobs must be positive when workers (",
              options.workers, ") > 0, got 0");
  EMBER_CHECK(!options.timeout || options.timeout->count() >= 0, "DataLoader: timeout must be non-negative, got ",
              options.timeout->count(), " ms");
}

void loader_timeout(std::chrono::milliseconds timeout, size_t sequence, size_t workers) {
  EMBER_ERROR("DataLoader: timed out after ", timeout.count(), " ms waiting for batch ", sequence,
              " of this epoch from the ", workers, " worker thread", workers == 1 ? "" : "s",
              " (DataLoaderOptions::timeout)");
}

void loader_joined() {
  EMBER_ERROR("DataLoader: begin() after join(): the worker threads have exited, so no new epoch can start");
}

void iterator_misuse(const char* what) { EMBER_ERROR("DataLoader: ", what); }

void dataset_not_copyable(size_t workers) {
  EMBER_ERROR("DataLoader: ", workers, " workers need a copy of the dataset each, but its type cannot be copied; "
              "use workers(0), or share it with datasets::make_shared_dataset");
}

void dataset_unsized() {
  EMBER_ERROR("make_data_loader: expected the dataset to have a size (dataset.size() returned nullopt) in order to "
              "construct the sampler; pass a sampler explicitly");
}

}  // namespace detail
}  // namespace ember::data
