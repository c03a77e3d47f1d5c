#include "ember/data/io/json_file.h"

#include <algorithm>
#include <cstdlib>

#include "ember/core/error.h"

namespace ember::data::io {

json::Value parse_json_stream(InputStream& stream, int max_depth) {
  const std::string text = stream.read_all();
  try {
    return json::parse(text, "parse_json_files: '" + stream.name() + "'", max_depth);
  } catch (const Error& e) {
    // json::parse reports a byte offset; a file reader also wants the line and column.
    std::string msg = e.what();
    const size_t at = msg.find(": invalid JSON at byte ");
    if (at == std::string::npos) throw;
    const size_t off = std::strtoull(msg.c_str() + at + 23, nullptr, 10);
    const size_t end = std::min(off, text.size());
    const size_t line = 1 + std::count(text.begin(), text.begin() + end, '\n');
    const size_t nl = text.rfind('\n', end == 0 ? std::string::npos : end - 1);
    const size_t col = 1 + end - (nl == std::string::npos || end == 0 ? 0 : nl + 1);
    throw Error(msg + " (line " + std::to_string(line) + ", column " + std::to_string(col) + ")");
  }
}

}  // namespace ember::data::io
