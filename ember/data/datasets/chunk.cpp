// The non-template parts of ChunkDataset (datasets/chunk.h): option checks and errors.
#include "ember/data/datasets/chunk.h"

#include "ember/core/error.h"

namespace ember::data::datasets::detail {

void check_chunk_options(size_t preloader_count, size_t batch_size, size_t cache_size,
                         size_t cross_chunk_shuffle_count) {
  EMBER_CHECK(preloader_count > 0, "ChunkDatasetOptions: preloader_count is 0; at least one preloader is needed");
  EMBER_CHECK(batch_size > 0, "ChunkDatasetOptions: batch_size is 0; it must be positive");
  EMBER_CHECK(cache_size > 0, "ChunkDatasetOptions: cache_size is 0; it must be positive");
  EMBER_CHECK(cache_size >= batch_size, "ChunkDatasetOptions: cache_size (", cache_size, ") is less than batch_size (",
              batch_size, "); the cache must hold at least one batch");
  EMBER_CHECK(cross_chunk_shuffle_count > 0, "ChunkDatasetOptions: cross_chunk_shuffle_count is 0; it must be positive");
}

void chunk_dataset_not_reset() {
  EMBER_ERROR("ChunkDataset: get_batch() before reset(); reset() starts the preloaders (a DataLoader calls it in "
              "begin())");
}

void chunk_batch_size_mismatch(size_t requested, size_t configured) {
  EMBER_ERROR("ChunkDataset: get_batch(", requested, ") does not match the dataset's batch size ", configured,
              " (ChunkDatasetOptions::batch_size; the DataLoader's batch_size must be the same)");
}

}  // namespace ember::data::datasets::detail
