#include "ember/data/io/hash.h"

#include <openssl/evp.h>

#include "ember/core/error.h"

namespace ember::data::io {

struct Hasher::Impl {
  EVP_MD_CTX* ctx = nullptr;
  bool finished = false;
  ~Impl() { EVP_MD_CTX_free(ctx); }
};

Hasher::Hasher(std::string_view hash_type) : impl_(std::make_unique<Impl>()), type_(hash_type) {
  const EVP_MD* md = hash_type == "sha256" ? EVP_sha256() : hash_type == "md5" ? EVP_md5() : nullptr;
  EMBER_CHECK(md, "check_hash: unsupported hash_type '", hash_type, "' (expected \"sha256\" or \"md5\")");
  impl_->ctx = EVP_MD_CTX_new();
  EMBER_CHECK(impl_->ctx && EVP_DigestInit_ex(impl_->ctx, md, nullptr) == 1, "check_hash: cannot start a ",
              hash_type, " digest (OpenSSL)");
}

Hasher::~Hasher() = default;
Hasher::Hasher(Hasher&&) noexcept = default;
Hasher& Hasher::operator=(Hasher&&) noexcept = default;

void Hasher::update(const void* data, size_t n) {
  EMBER_CHECK(impl_ && !impl_->finished, "Hasher: update() after hexdigest()");
  if (n) EMBER_CHECK(EVP_DigestUpdate(impl_->ctx, data, n) == 1, "Hasher: OpenSSL ", type_, " update failed");
}

std::string Hasher::hexdigest() {
  EMBER_CHECK(impl_ && !impl_->finished, "Hasher: hexdigest() called twice");
  impl_->finished = true;
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EMBER_CHECK(EVP_DigestFinal_ex(impl_->ctx, md, &len) == 1, "Hasher: OpenSSL ", type_, " digest failed");
  static const char* hex = "0123456789abcdef";
  std::string out(2 * len, '0');
  for (unsigned i = 0; i < len; ++i) {
    out[2 * i] = hex[md[i] >> 4];
    out[2 * i + 1] = hex[md[i] & 15];
  }
  return out;
}

std::string hash_stream(InputStream& stream, std::string_view hash_type) {
  Hasher h(hash_type);
  std::unique_ptr<char[]> buf(new char[1 << 16]);
  while (size_t k = stream.read(buf.get(), 1 << 16)) h.update(buf.get(), k);
  return h.hexdigest();
}

std::string hash_bytes(std::string_view bytes, std::string_view hash_type) {
  Hasher h(hash_type);
  h.update(bytes);
  return h.hexdigest();
}

}  // namespace ember::data::io
