#include "ember/data/s3/client.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <tuple>

#include "ember/data/s3/http.h"
#include "ember/data/s3/sigv4.h"
#include "ember/data/s3/xml.h"

namespace ember::data::s3 {

namespace {

using detail::HttpRequest;
using detail::HttpResponse;
using Headers = std::vector<std::pair<std::string, std::string>>;

// S3 error codes that mean "slow down and try again" whatever the status.
bool is_throttle_code(const std::string& code) {
  for (const char* c : {"SlowDown", "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottled",
                        "RequestLimitExceeded", "TooManyRequestsException", "RequestTimeout", "InternalError",
                        "ServiceUnavailable", "BandwidthLimitExceeded", "EC2ThrottledException"})
    if (code == c) return true;
  return false;
}

// A DNS label usable as bucket.host: lower-case letters, digits and '-', no dots (TLS
// certificates cover one level only).
bool dns_compatible(const std::string& b) {
  if (b.size() < 3 || b.size() > 63 || b.front() == '-' || b.back() == '-') return false;
  for (char c : b)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

std::string url_decode(const std::string& s) {  // S3's encoding-type=url (form style)
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i] == '+' ? ' ' : s[i]);
    }
  }
  return out;
}

// Plain decimal digits only: strtoull alone would also take leading spaces and a sign, so
// " -1" would become 2^64 - 1.
uint64_t parse_u64(const std::string& s, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
  unsigned long long v = digits ? std::strtoull(s.c_str(), &end, 10) : 0;
  EMBER_CHECK(digits && end && *end == '\0' && errno == 0, "s3: ", what, ": expected a non-negative integer, got '",
              s.substr(0, 64), "'");
  return v;
}

// The outcome of one attempt: nothing (success) or why it failed.
struct Failure {
  bool retryable = false;
  int status = 0;
  std::string code;
  std::string message;
};

}  // namespace

struct S3Client::Impl {
  S3Config cfg;
  mutable detail::HttpPool pool;

  explicit Impl(S3Config c) : cfg(std::move(c)) {}

  // Hides credentials in anything that may reach a user: errors and log lines.
  std::string redact(std::string s) const {
    for (const std::string* secret : {&cfg.credentials.secret_access_key, &cfg.credentials.session_token}) {
      if (secret->size() < 4) continue;
      for (size_t p; (p = s.find(*secret)) != std::string::npos;) s.replace(p, secret->size(), "<redacted>");
    }
    return s;
  }
  void log(const std::string& line) const {
    if (cfg.log) cfg.log(redact(line));
  }

  static std::string what(const char* op, const std::string& bucket, const std::string& key) {
    return std::string("s3: ") + op + " s3://" + bucket + (key.empty() ? "" : "/" + key);
  }

  bool path_style(const std::string& bucket) const {
    switch (cfg.addressing_style) {
      case AddressingStyle::Path: return true;
      case AddressingStyle::Virtual: return false;
      default: return cfg.custom_endpoint || !dns_compatible(bucket);
    }
  }

  // Builds, signs and sends one request.
  HttpResponse send(const std::string& method, const std::string& bucket, const std::string& key,
                    const Params& query, Headers extra, std::string_view body,
                    detail::Sink sink, const std::atomic<bool>* cancel) const {
    std::string host = cfg.authority, path = cfg.base_path;
    if (bucket.empty()) {
      path += "/";
    } else if (path_style(bucket)) {
      path += "/" + uri_encode(bucket, false) + (key.empty() ? "" : "/" + uri_encode(key, true));
    } else {
      host = bucket + "." + host;
      path += "/" + uri_encode(key, true);
    }
    std::string payload_hash = method == "PUT" ? sha256_hex(body) : kEmptySha256;
    Headers headers = {{"Host", host},
                       {"x-amz-date", amz_date(std::chrono::system_clock::now())},
                       {"x-amz-content-sha256", payload_hash}};
    const Credentials& cr = cfg.credentials;
    if (!cr.session_token.empty()) headers.emplace_back("x-amz-security-token", cr.session_token);
    for (auto& h : extra) headers.push_back(std::move(h));
    if (!cr.anonymous) {
      SigningRequest sr{method, path, query, headers, payload_hash};
      SigningResult sig = sign_v4(sr, cr.access_key_id, cr.secret_access_key, cfg.region, "s3", headers[1].second);
      headers.emplace_back("Authorization", std::move(sig.authorization));
    }
    HttpRequest req;
    req.method = method;
    std::string q = canonical_query(query);
    req.url = cfg.scheme + "://" + host + path + (q.empty() ? "" : "?" + q);
    req.headers = std::move(headers);
    req.body = body;
    req.connect_timeout_ms = cfg.connect_timeout_ms;
    req.stall_timeout_ms = cfg.request_timeout_ms;
    req.cancel = cancel;
    req.sink = std::move(sink);
    HttpResponse r = pool.perform(req);
    if (r.sink_error) std::rethrow_exception(r.sink_error);  // the caller's own error, as it was
    return r;
  }

  // Classifies a response that was not a success (transport error or HTTP status).
  Failure failure(const HttpResponse& r) const {
    Failure f;
    if (r.curl_code != 0) {
      f.retryable = !r.cancelled && !r.sink_failed;
      f.message = r.cancelled ? "cancelled" : r.curl_error;
      return f;
    }
    f.status = static_cast<int>(r.status);
    std::string msg;
    if (!r.body.empty()) std::tie(f.code, msg) = detail::parse_error_body(r.body);
    f.retryable = r.status >= 500 || r.status == 429 || is_throttle_code(f.code);
    f.message = "HTTP " + std::to_string(r.status);
    if (!f.code.empty()) f.message += " " + f.code;
    if (!msg.empty()) f.message += ": " + msg;
    if (auto id = r.header("x-amz-request-id")) f.message += " (request id " + *id + ")";
    if (r.status == 403) {
      f.message += cfg.credentials.anonymous
                       ? "; the request was unsigned (anonymous)"
                       : "; signed with access key id " + cfg.credentials.access_key_id + " from " +
                             cfg.credentials.source;
    } else if (r.status == 404 && f.code.empty()) {
      f.message += " (no such bucket or key)";
    } else if (r.status == 301 || r.status == 307) {
      if (auto region = r.header("x-amz-bucket-region"))
        f.message += "; the bucket is in region " + *region + " (this client uses " + cfg.region + ")";
    }
    return f;
  }

  // Runs `attempt(n)` until it succeeds (returns nullopt), fails for good, or runs out
  // of attempts, sleeping with capped exponential backoff and full jitter in between.
  void with_retries(const char* op, const std::string& bucket, const std::string& key,
                    const std::atomic<bool>* cancel, const std::function<std::optional<Failure>(int)>& attempt) const {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    for (int n = 1;; ++n) {
      std::optional<Failure> f = attempt(n);
      if (!f) return;
      bool cancelled = cancel && cancel->load();
      if (!f->retryable || n >= cfg.max_attempts || cancelled) {
        std::string msg = what(op, bucket, key) + ": ";
        if (f->retryable && n > 1 && !cancelled) msg += "gave up after " + std::to_string(n) + " attempts: ";
        msg += f->message + " (endpoint " + cfg.endpoint() + ")";
        log(msg);
        throw S3Error(redact(msg), f->status, f->code);
      }
      int64_t cap = std::min<int64_t>(cfg.backoff_max_ms, cfg.backoff_base_ms << std::min(n - 1, 20));
      int64_t wait_ms = cap > 0 ? static_cast<int64_t>(rng() % static_cast<uint64_t>(cap + 1)) : 0;
      log(what(op, bucket, key) + ": attempt " + std::to_string(n) + "/" + std::to_string(cfg.max_attempts) +
          " failed (" + f->message + "); retrying in " + std::to_string(wait_ms) + " ms");
      auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
      while (std::chrono::steady_clock::now() < until && !(cancel && cancel->load()))
        std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(std::chrono::milliseconds(10),
                                                                        until - std::chrono::steady_clock::now()));
    }
  }

  // A simple request whose 2xx body (if any) is collected.
  // `shown` is what errors name after the bucket (the key, or a listing's prefix).
  HttpResponse request(const char* op, const std::string& method, const std::string& bucket, const std::string& key,
                       const Params& query, const Headers& extra = {}, std::string_view body = {},
                       const std::string* shown = nullptr) const {
    HttpResponse out;
    with_retries(op, bucket, shown ? *shown : key, nullptr, [&](int) -> std::optional<Failure> {
      out = send(method, bucket, key, query, extra, body, nullptr, nullptr);
      if (out.curl_code == 0 && out.status >= 200 && out.status < 300) return std::nullopt;
      return failure(out);
    });
    return out;
  }
};

namespace detail {

ListPage parse_list_page(std::string_view body, const std::string& what) {
  XmlNode root = parse_xml(body, what);
  EMBER_CHECK(root.name == "ListBucketResult", "s3: ", what, ": expected <ListBucketResult>, got <", root.name, ">");
  bool url_encoded = root.child_text("EncodingType") == "url";
  ListPage page;
  for (const XmlNode& c : root.children) {
    if (c.name != "Contents") continue;
    ObjectInfo o;
    o.key = c.child_text("Key");
    if (url_encoded) o.key = url_decode(o.key);
    EMBER_CHECK(!o.key.empty(), "s3: ", what, ": an entry without <Key>");
    o.size = parse_u64(c.child_text("Size"), what + ", <Size> of key '" + o.key + "'");
    o.etag = c.child_text("ETag");
    o.last_modified = c.child_text("LastModified");
    page.objects.push_back(std::move(o));
  }
  page.is_truncated = root.child_text("IsTruncated") == "true";
  if (page.is_truncated) {
    page.next_continuation_token = root.child_text("NextContinuationToken");
    EMBER_CHECK(!page.next_continuation_token.empty(), "s3: ", what,
                ": IsTruncated is true but there is no NextContinuationToken");
  }
  return page;
}

std::pair<std::string, std::string> parse_error_body(std::string_view body) {
  try {
    XmlNode err = parse_xml(body, "error response");
    return {err.child_text("Code"), err.child_text("Message")};
  } catch (const Error&) {
    return {};  // not XML (a proxy's HTML page, say): the status has to do
  }
}

}  // namespace detail

S3Url parse_s3_url(std::string_view url) {
  EMBER_CHECK(url.substr(0, 5) == "s3://", "s3: expected a URL like s3://bucket/key, got '", url, "'");
  std::string_view rest = url.substr(5);
  size_t slash = rest.find('/');
  S3Url out{std::string(rest.substr(0, slash)), slash == std::string_view::npos ? "" : std::string(rest.substr(slash + 1))};
  EMBER_CHECK(!out.bucket.empty(), "s3: no bucket in URL '", url, "'");
  EMBER_CHECK(out.bucket.find_first_of(" \\?#%") == std::string::npos, "s3: invalid bucket name '", out.bucket,
              "' in URL '", url, "'");
  return out;
}

S3Client::S3Client(const S3Options& options) : impl_(std::make_shared<Impl>(resolve_config(options))) {}

const S3Config& S3Client::config() const { return impl_->cfg; }

ListPage S3Client::list_objects_v2(const std::string& bucket, const std::string& prefix,
                                   const std::string& continuation_token, int max_keys) const {
  Params q = {{"list-type", "2"}, {"prefix", prefix}, {"encoding-type", "url"},
              {"max-keys", std::to_string(max_keys > 0 ? max_keys : impl_->cfg.max_keys)}};
  if (!continuation_token.empty()) q.emplace_back("continuation-token", continuation_token);
  HttpResponse r = impl_->request("ListObjectsV2", "GET", bucket, "", q, {}, {}, &prefix);
  return detail::parse_list_page(r.body, "ListObjectsV2 response for s3://" + bucket + "/" + prefix);
}

void S3Client::list_objects(const std::string& bucket, const std::string& prefix,
                            const std::function<void(const ObjectInfo&)>& fn) const {
  std::string token;
  for (;;) {
    ListPage page = list_objects_v2(bucket, prefix, token);
    for (const ObjectInfo& o : page.objects) fn(o);
    if (!page.is_truncated) return;
    EMBER_CHECK(page.next_continuation_token != token, "s3: ListObjectsV2 s3://", bucket, "/", prefix,
                ": the server returned the same continuation token twice (it would loop forever)");
    token = page.next_continuation_token;
  }
}

std::vector<ObjectInfo> S3Client::list_objects(const std::string& bucket, const std::string& prefix) const {
  std::vector<ObjectInfo> out;
  list_objects(bucket, prefix, [&](const ObjectInfo& o) { out.push_back(o); });
  return out;
}

ObjectInfo S3Client::head_object(const std::string& bucket, const std::string& key) const {
  EMBER_CHECK(!key.empty(), "s3: HeadObject s3://", bucket, ": empty key");
  HttpResponse r = impl_->request("HeadObject", "HEAD", bucket, key, {});
  ObjectInfo o;
  o.key = key;
  auto len = r.header("content-length");
  EMBER_CHECK(len.has_value(), Impl::what("HeadObject", bucket, key), ": the response has no Content-Length");
  o.size = parse_u64(*len, Impl::what("HeadObject", bucket, key) + ": Content-Length");
  o.etag = r.header("etag").value_or("");
  o.last_modified = r.header("last-modified").value_or("");
  return o;
}

void S3Client::get_object(const std::string& bucket, const std::string& key,
                          const std::function<void(const char*, size_t)>& sink) const {
  EMBER_CHECK(!key.empty(), "s3: GetObject s3://", bucket, ": empty key");
  uint64_t delivered = 0;
  std::string etag;
  impl_->with_retries("GetObject", bucket, key, nullptr, [&](int) -> std::optional<Failure> {
    const uint64_t resume_at = delivered;
    Headers extra;
    if (resume_at > 0) {
      extra.emplace_back("Range", "bytes=" + std::to_string(resume_at) + "-");
      if (!etag.empty()) extra.emplace_back("If-Match", etag);
    }
    Failure bad;
    bool checked = resume_at == 0;
    HttpResponse r = impl_->send("GET", bucket, key, {}, extra, {}, [&](const HttpResponse& head, const char* p, size_t n) {
      if (!checked) {
        checked = true;
        std::string cr = head.header("content-range").value_or("");
        if (head.status != 206 || cr.rfind("bytes " + std::to_string(resume_at) + "-", 0) != 0) {
          bad.message = "resuming at byte " + std::to_string(resume_at) + ", the server answered HTTP " +
                        std::to_string(head.status) + " with Content-Range '" + cr + "'";
          return false;
        }
      }
      sink(p, n);
      delivered += n;
      return true;
    }, nullptr);
    if (resume_at == 0 && etag.empty()) etag = r.header("etag").value_or("");
    if (!bad.message.empty()) return bad;
    if (r.curl_code == 0 && (r.status == 200 || r.status == 206)) return std::nullopt;
    Failure f = impl_->failure(r);
    if (r.status == 412) f.message += " (the object changed while it was being read)";
    return f;
  });
}

std::string S3Client::get_object(const std::string& bucket, const std::string& key) const {
  std::string out;
  get_object(bucket, key, [&](const char* p, size_t n) { out.append(p, n); });
  return out;
}

void S3Client::get_object_range(const std::string& bucket, const std::string& key, uint64_t offset,
                                uint64_t length, char* dst, const std::string& if_match,
                                const std::atomic<bool>* cancel) const {
  EMBER_CHECK(!key.empty(), "s3: GetObject s3://", bucket, ": empty key");
  if (length == 0) return;
  uint64_t got = 0;
  impl_->with_retries("GetObject", bucket, key, cancel, [&](int) -> std::optional<Failure> {
    const uint64_t begin = offset + got, last = offset + length - 1;
    Headers extra = {{"Range", "bytes=" + std::to_string(begin) + "-" + std::to_string(last)}};
    if (!if_match.empty()) extra.emplace_back("If-Match", if_match);
    bool checked = false;
    Failure bad;
    HttpResponse r = impl_->send("GET", bucket, key, {}, extra, {}, [&](const HttpResponse& head, const char* p, size_t n) {
      if (!checked) {
        // The first bytes: make sure they are the ones asked for before copying any.
        checked = true;
        if (head.status == 206) {
          std::string cr = head.header("content-range").value_or("");
          std::string want = "bytes " + std::to_string(begin) + "-";
          if (cr.rfind(want, 0) != 0) {
            bad.message = "the server answered Range bytes=" + std::to_string(begin) + "-" + std::to_string(last) +
                          " with Content-Range '" + cr + "'";
            return false;
          }
        } else if (begin != 0) {
          // 200 is the whole object: acceptable only when that is what was asked for.
          bad.message = "the server ignored the Range header (HTTP 200 for bytes=" + std::to_string(begin) + "-)";
          return false;
        }
      }
      if (n > length - got) {
        bad.message = "the server sent more than the " + std::to_string(length) + " bytes asked for at offset " +
                      std::to_string(offset);
        return false;
      }
      std::memcpy(dst + got, p, n);
      got += n;
      return true;
    }, cancel);
    if (!bad.message.empty()) return bad;
    if (r.curl_code == 0 && (r.status == 200 || r.status == 206)) {
      if (got == length) return std::nullopt;
      Failure f;
      f.retryable = true;
      f.message = "short read: " + std::to_string(got) + " of " + std::to_string(length) + " bytes at offset " +
                  std::to_string(offset);
      return f;
    }
    Failure f = impl_->failure(r);
    if (r.status == 412) f.message += " (the object changed while it was being read: ETag is no longer " + if_match + ")";
    if (r.status == 416) f.message += " (bytes " + std::to_string(begin) + "-" + std::to_string(last) + " are past the end)";
    return f;
  });
}

std::string S3Client::get_object_range(const std::string& bucket, const std::string& key, uint64_t offset,
                                       uint64_t length) const {
  std::string out(length, '\0');
  get_object_range(bucket, key, offset, length, out.data());
  return out;
}

void S3Client::put_object(const std::string& bucket, const std::string& key, std::string_view body) const {
  EMBER_CHECK(!key.empty(), "s3: PutObject s3://", bucket, ": empty key");
  impl_->request("PutObject", "PUT", bucket, key, {}, {{"Content-Type", "application/octet-stream"}}, body);
}

void S3Client::create_bucket(const std::string& bucket) const {
  std::string body;
  if (impl_->cfg.region != "us-east-1")
    body = "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>" +
           impl_->cfg.region + "</LocationConstraint></CreateBucketConfiguration>";
  impl_->request("CreateBucket", "PUT", bucket, "", {}, {}, body);
}

void S3Client::delete_object(const std::string& bucket, const std::string& key) const {
  EMBER_CHECK(!key.empty(), "s3: DeleteObject s3://", bucket, ": empty key");
  impl_->request("DeleteObject", "DELETE", bucket, key, {});
}

}  // namespace ember::data::s3
