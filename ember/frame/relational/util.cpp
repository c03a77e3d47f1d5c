#include "ember/frame/relational/util.h"

#include <algorithm>
#include <memory>

#include "ember/frame/dataframe.h"

namespace ember::frame::relational {

OutBuffer zeroed_bitmap(int64_t nbits) {
  OutBuffer b(bits::bytes_for(nbits));
  std::memset(b.data(), 0, size_t(b.capacity()));
  return b;
}

std::vector<int64_t> chunk_bounds(int64_t n, int64_t min_rows) {
  int64_t k = std::min<int64_t>(get_num_threads(), std::max<int64_t>(1, n / std::max<int64_t>(min_rows, 1)));
  if (in_parallel_region()) k = 1;
  std::vector<int64_t> b{0};
  for (int64_t c = 1; c < k; ++c) b.push_back(std::min(n, (n * c / k) & ~int64_t(63)));
  b.push_back(n);
  // Drop empty chunks (tiny n rounded down to the same boundary).
  b.erase(std::unique(b.begin(), b.end()), b.end());
  if (b.size() == 1) b.push_back(n);
  return b;
}

std::string quoted_names(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < 20; ++i) s += (i ? ", '" : "'") + names[i] + "'";
  if (names.size() > 20) s += ", ... (" + std::to_string(names.size()) + " in all)";
  return s.empty() ? "none" : s;
}

const Column& column_for(const DataFrame& df, const std::string& name, const char* op) {
  if (df.has_column(name)) return df[name];
  try {
    return df[name];
  } catch (const IndexError& e) {
    ::ember::detail::throw_index_error(std::string(op) + ": " + e.what());
  }
}

}  // namespace ember::frame::relational
