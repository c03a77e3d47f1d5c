// AWS Signature Version 4 for S3 requests: the canonical request, the string to sign and
// the signature, as the SigV4 documentation spells them. Pure functions (no clock, no
// network), so tests can check them against AWS's published example values.
#pragma once
#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ember::data::s3 {

using Params = std::vector<std::pair<std::string, std::string>>;

// SHA-256 of `data` as 64 lowercase hex digits (the x-amz-content-sha256 value).
std::string sha256_hex(std::string_view data);
// The hash of an empty payload, which every GET/HEAD signs.
inline constexpr const char* kEmptySha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
// SigV4's URI encoding: every byte except A-Z a-z 0-9 - _ . ~ becomes %XX (upper-case
// hex); '/' is kept when `keep_slash` (object key paths) and encoded otherwise (query).
std::string uri_encode(std::string_view s, bool keep_slash);
// The query string SigV4 signs and the URL must carry: parameters encoded, sorted by name
// then value, joined with '&' (a parameter without value is "name=").
std::string canonical_query(const Params& query);
// "20130524T000000Z" for `t` in UTC.
std::string amz_date(std::chrono::system_clock::time_point t);

struct SigningRequest {
  std::string method;         // "GET", "PUT", ...
  std::string canonical_uri;  // the URL path exactly as sent (already uri_encode'd)
  Params query;               // raw (unencoded) names and values
  Params headers;             // every header to sign; must include host and x-amz-date
  std::string payload_hash;   // sha256_hex(body), or kEmptySha256
};

struct SigningResult {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;  // "host;range;x-amz-content-sha256;x-amz-date"
  std::string signature;       // 64 hex digits
  std::string authorization;   // the Authorization header value (a secret-derived value: never log it)
};

// Signs `req` for `service` in `region` at `date` ("YYYYMMDDTHHMMSSZ").
SigningResult sign_v4(const SigningRequest& req, std::string_view access_key_id,
                      std::string_view secret_access_key, std::string_view region,
                      std::string_view service, std::string_view date);

}  // namespace ember::data::s3
