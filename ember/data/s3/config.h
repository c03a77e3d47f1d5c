// S3Options (what a user sets) and S3Config (what a client uses), resolved like the AWS
// SDKs do: explicit options first, then the standard AWS_* environment variables, then the
// shared credentials and config files (~/.aws/credentials, ~/.aws/config) for the profile.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace ember::data::s3 {

enum class AddressingStyle { Auto, Path, Virtual };

// Setter/getter pairs as in DataLoaderOptions:
// `S3Options().region("eu-west-1").endpoint_url("http://127.0.0.1:9000")`.
struct S3Options {
#define EMBER_S3_OPTION(T, name)                   \
  S3Options& name(const T& v) {                    \
    name##_ = v;                                   \
    return *this;                                  \
  }                                                \
  const T& name() const noexcept { return name##_; } \
  T& name() noexcept { return name##_; }

  // Region signed into every request (AWS_REGION, AWS_DEFAULT_REGION, the profile's
  // `region`; else us-east-1).
  EMBER_S3_OPTION(std::optional<std::string>, region)
  // An S3-compatible endpoint ("http://127.0.0.1:9000", "https://minio.example.com");
  // AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's `endpoint_url`; else AWS's
  // https://s3.<region>.amazonaws.com.
  EMBER_S3_OPTION(std::optional<std::string>, endpoint_url)
  // Profile in the shared files (AWS_PROFILE; else "default"). Naming one here skips the
  // AWS_ACCESS_KEY_ID/... variables, as boto3's Session(profile_name=...) does.
  EMBER_S3_OPTION(std::optional<std::string>, profile)
  EMBER_S3_OPTION(std::optional<std::string>, access_key_id)
  EMBER_S3_OPTION(std::optional<std::string>, secret_access_key)
  EMBER_S3_OPTION(std::optional<std::string>, session_token)
  // Send unsigned requests (public buckets); no credentials are looked up.
  EMBER_S3_OPTION(bool, anonymous)
  // Auto: path-style ("endpoint/bucket/key") for a custom endpoint or a bucket name that
  // is not a DNS label, virtual-hosted ("bucket.endpoint/key") for AWS.
  EMBER_S3_OPTION(AddressingStyle, addressing_style)
  // Plain http is accepted for loopback endpoints; anywhere else it must be allowed here.
  EMBER_S3_OPTION(bool, allow_http)
  // An attempt fails when no byte moves for this long (waiting for the response
  // included); it is then retried like a dropped connection.
  EMBER_S3_OPTION(int64_t, request_timeout_ms)
  EMBER_S3_OPTION(int64_t, connect_timeout_ms)
  // Attempts per request, the first included (AWS_MAX_ATTEMPTS). Retried: connection
  // errors, timeouts, HTTP 5xx, 429 and S3's throttling codes (SlowDown, ...).
  EMBER_S3_OPTION(std::optional<int>, max_attempts)
  // Backoff before retry n (1-based): uniform in [0, min(backoff_max, base * 2^(n-1))].
  EMBER_S3_OPTION(int64_t, backoff_base_ms)
  EMBER_S3_OPTION(int64_t, backoff_max_ms)
  // Streamed reads: ranged GETs of part_size bytes, at most max_in_flight outstanding, so
  // a reader holds at most part_size * max_in_flight bytes.
  EMBER_S3_OPTION(size_t, part_size)
  EMBER_S3_OPTION(size_t, max_in_flight)
  // Keys per ListObjectsV2 page (S3 caps it at 1000).
  EMBER_S3_OPTION(int, max_keys)
  // Receives one line per retry and per failed request (never a credential or a header).
  EMBER_S3_OPTION(std::function<void(const std::string&)>, log)
#undef EMBER_S3_OPTION

 private:
  std::optional<std::string> region_, endpoint_url_, profile_, access_key_id_, secret_access_key_, session_token_;
  bool anonymous_ = false;
  AddressingStyle addressing_style_ = AddressingStyle::Auto;
  bool allow_http_ = false;
  int64_t request_timeout_ms_ = 30000;
  int64_t connect_timeout_ms_ = 10000;
  std::optional<int> max_attempts_;
  int64_t backoff_base_ms_ = 100;
  int64_t backoff_max_ms_ = 20000;
  size_t part_size_ = 8 << 20;
  size_t max_in_flight_ = 8;
  int max_keys_ = 1000;
  std::function<void(const std::string&)> log_;
};

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;  // secret: never printed
  std::string session_token;      // secret: never printed
  bool anonymous = false;
  // Where they came from ("explicit options", "environment", "shared credentials file
  // /home/u/.aws/credentials [default]"): for error messages.
  std::string source;
};

// Everything a client needs, resolved.
struct S3Config {
  std::string region;
  std::string scheme;     // "http" or "https"
  std::string authority;  // "host" or "host:port"
  std::string base_path;  // a path prefix of the endpoint ("" or "/prefix"), no trailing '/'
  bool custom_endpoint = false;
  AddressingStyle addressing_style = AddressingStyle::Auto;
  Credentials credentials;
  int64_t request_timeout_ms = 0, connect_timeout_ms = 0, backoff_base_ms = 0, backoff_max_ms = 0;
  int max_attempts = 0;
  size_t part_size = 0, max_in_flight = 0;
  int max_keys = 0;
  std::function<void(const std::string&)> log;

  std::string endpoint() const { return scheme + "://" + authority + base_path; }
};

// Looks up an environment variable (std::getenv by default; tests pass a map).
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// Resolves `options` against the environment and the AWS shared files. Raises
// ember::Error for a malformed endpoint, http to a non-loopback host without allow_http,
// bad numbers, or when no credentials are found (naming every place that was searched).
S3Config resolve_config(const S3Options& options, const EnvLookup& env = {});

}  // namespace ember::data::s3
