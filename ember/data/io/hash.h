// Digests of streams and bytes (TorchData's check_hash): sha256 and md5 through OpenSSL,
// as lowercase hex strings like Python's hashlib hexdigest().
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "ember/data/io/stream.h"

namespace ember::data::io {

// Incremental hashing: update() any number of times, then hexdigest() once.
class Hasher {
 public:
  // "sha256" or "md5" (anything else raises an error naming the supported types).
  explicit Hasher(std::string_view hash_type = "sha256");
  ~Hasher();
  Hasher(Hasher&&) noexcept;
  Hasher& operator=(Hasher&&) noexcept;
  void update(const void* data, size_t n);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  std::string hexdigest();
  const std::string& type() const { return type_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string type_;
};

// The digest of everything left in `stream` (which is read to its end).
std::string hash_stream(InputStream& stream, std::string_view hash_type = "sha256");
std::string hash_bytes(std::string_view bytes, std::string_view hash_type = "sha256");

}  // namespace ember::data::io
