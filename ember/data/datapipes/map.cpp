#include "ember/data/datapipes/map.h"

#include <cstdlib>

namespace ember::data::datapipes::detail {
void map_index_error(const char* pipe, int64_t index, int64_t size) {
  EMBER_CHECK_INDEX(false, pipe, ": index ", index, " is out of range for a map-style pipe of size ", size);
  std::abort();
}
}  // namespace ember::data::datapipes::detail
