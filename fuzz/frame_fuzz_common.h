// What the frame fuzz targets share: every element of a frame a reader accepted is read,
// so that a column that validated but points outside its buffers shows up under ASan.
#pragma once
#include "ember/frame/frame.h"

namespace ember::fuzz {

inline void touch(const frame::DataFrame& df) {
  for (int64_t c = 0; c < df.num_columns(); ++c) (void)df.column(c).to_values();
  (void)df.to_string();
}

}  // namespace ember::fuzz
