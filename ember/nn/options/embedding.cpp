// The out-of-line parts of the embedding options (ember/nn/options/embedding.h).
#include "ember/nn/options/embedding.h"

#include "ember/core/error.h"

namespace ember::nn {

EmbeddingBagMode::EmbeddingBagMode(Reduction r) : kind(r == Reduction::Sum ? Sum : Mean) {
  EMBER_CHECK(r != Reduction::None, "mode has to be one of sum, mean or max");
}

}  // namespace ember::nn
