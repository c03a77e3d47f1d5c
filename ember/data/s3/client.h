// S3Client: the S3 REST API over libcurl, signed with SigV4 (ListObjectsV2, HEAD/GET with
// ranges, PUT, CreateBucket, DELETE), with retries and clear errors. A client is a cheap
// handle: copies share one connection pool and may be used from several threads.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/data/s3/config.h"

namespace ember::data::s3 {

// An S3 request that failed for good: HTTP status (0 for a transport error) and S3's
// error code ("NoSuchKey", "AccessDenied", "SlowDown", ...; "" when there was none).
class S3Error : public Error {
 public:
  S3Error(const std::string& msg, int http_status, std::string code)
      : Error(msg), http_status_(http_status), code_(std::move(code)) {}
  int http_status() const noexcept { return http_status_; }
  const std::string& code() const noexcept { return code_; }

 private:
  int http_status_;
  std::string code_;
};

struct S3Url {
  std::string bucket;
  std::string key;  // "" for a bucket or a bare prefix
};
// Parses "s3://bucket/key/with/slashes" (the key may be empty).
S3Url parse_s3_url(std::string_view url);

struct ObjectInfo {
  std::string key;
  uint64_t size = 0;
  std::string etag;           // as S3 sends it, quotes included
  std::string last_modified;  // as S3 sends it
};

struct ListPage {
  std::vector<ObjectInfo> objects;
  std::string next_continuation_token;  // "" on the last page
  bool is_truncated = false;
};

// What the client parses out of response bodies (public for the tests and fuzz/s3_xml_fuzz).
namespace detail {
// A ListObjectsV2 body (<ListBucketResult>) as a page; `what` names the response in errors.
ListPage parse_list_page(std::string_view body, const std::string& what);
// An error body (<Error><Code>...</Code><Message>...</Message></Error>) as {code, message};
// both empty when the body is not XML (a proxy's HTML page, say).
std::pair<std::string, std::string> parse_error_body(std::string_view body);
}  // namespace detail

class S3Client {
 public:
  explicit S3Client(const S3Options& options = S3Options());
  const S3Config& config() const;

  // One ListObjectsV2 page of keys under `prefix` (max_keys 0: the configured page size).
  ListPage list_objects_v2(const std::string& bucket, const std::string& prefix,
                           const std::string& continuation_token = "", int max_keys = 0) const;
  // Every key under `prefix`, page after page; `fn` sees each object in key order.
  void list_objects(const std::string& bucket, const std::string& prefix,
                    const std::function<void(const ObjectInfo&)>& fn) const;
  std::vector<ObjectInfo> list_objects(const std::string& bucket, const std::string& prefix) const;

  ObjectInfo head_object(const std::string& bucket, const std::string& key) const;
  // The whole object, streamed to `sink` by one GET (a dropped connection resumes with a
  // ranged GET from the byte it reached, pinned to the first response's ETag).
  void get_object(const std::string& bucket, const std::string& key,
                  const std::function<void(const char*, size_t)>& sink) const;
  std::string get_object(const std::string& bucket, const std::string& key) const;
  // Bytes [offset, offset + length) into `dst` (which holds `length` bytes). With
  // `if_match`, a changed object fails with HTTP 412 instead of mixing versions.
  // `cancel` aborts transfers and backoff waits (the call then raises an error).
  void get_object_range(const std::string& bucket, const std::string& key, uint64_t offset, uint64_t length,
                        char* dst, const std::string& if_match = "",
                        const std::atomic<bool>* cancel = nullptr) const;
  std::string get_object_range(const std::string& bucket, const std::string& key, uint64_t offset,
                               uint64_t length) const;

  void put_object(const std::string& bucket, const std::string& key, std::string_view body) const;
  void create_bucket(const std::string& bucket) const;
  void delete_object(const std::string& bucket, const std::string& key) const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace ember::data::s3
