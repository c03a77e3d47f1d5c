// UTF-8 checks for string columns (RFC 3629: no overlong forms, no surrogates, nothing
// above U+10FFFF).
#pragma once
#include <cstdint>
#include <string_view>

namespace ember::frame::utf8 {

// True when bytes [0, n) are well-formed UTF-8; otherwise false, with the offset of the
// first byte of the bad sequence in *error_at (when given).
bool is_valid(const uint8_t* data, int64_t n, int64_t* error_at = nullptr);
inline bool is_valid(std::string_view s, int64_t* error_at = nullptr) {
  return is_valid(reinterpret_cast<const uint8_t*>(s.data()), int64_t(s.size()), error_at);
}

}  // namespace ember::frame::utf8
