// The HTTP transport under the S3 client: one request per call over libcurl, with a pool
// of easy handles so connections are kept alive and reused across threads. Internal to
// ember/data/s3 (no S3 or signing knowledge here; retries live in the client).
#pragma once
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ember::data::s3::detail {

struct HttpResponse;
// Receives the body of a 2xx response (with the response so far: status, headers);
// returning false aborts the transfer (the reason is the sink's to keep).
using Sink = std::function<bool(const HttpResponse&, const char*, size_t)>;

struct HttpRequest {
  std::string method;                                         // GET, HEAD, PUT, DELETE
  std::string url;                                            // already encoded
  std::vector<std::pair<std::string, std::string>> headers;  // sent as given
  std::string_view body;                                      // PUT payload
  int64_t connect_timeout_ms = 10000;
  int64_t stall_timeout_ms = 30000;  // abort when no byte moves for this long
  const std::atomic<bool>* cancel = nullptr;  // abort as soon as this becomes true
  Sink sink;  // when null, the body is collected in HttpResponse::body
};

struct HttpResponse {
  // Transport outcome: curl_code 0 means a complete HTTP response was received.
  int curl_code = 0;
  std::string curl_error;
  bool timed_out = false;    // the stall timeout fired
  bool cancelled = false;    // HttpRequest::cancel fired
  bool sink_failed = false;  // the sink returned false or threw
  std::exception_ptr sink_error;  // what the sink threw (never let through curl's C frames)
  long status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;  // error bodies (2xx bodies only without a sink), capped at 1 MiB

  std::optional<std::string> header(std::string_view lower_name) const;
};

class HttpPool {
 public:
  HttpPool();
  ~HttpPool();
  HttpPool(const HttpPool&) = delete;
  HttpPool& operator=(const HttpPool&) = delete;
  // Thread-safe: each call borrows an idle handle (or makes one) and returns it after.
  HttpResponse perform(const HttpRequest& req);

 private:
  std::mutex mu_;
  std::vector<void*> idle_;  // CURL* handles, each with its own live connections
  int owner_pid_;            // the process whose connections idle_ holds (see perform)
};

}  // namespace ember::data::s3::detail
