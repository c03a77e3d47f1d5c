#include "ember/data/s3/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <ctime>

#include "ember/core/error.h"

namespace ember::data::s3 {

namespace {

std::string to_hex(const unsigned char* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out(2 * n, '\0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = digits[p[i] >> 4];
    out[2 * i + 1] = digits[p[i] & 15];
  }
  return out;
}

std::string hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  const unsigned char* r = HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
                                reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  EMBER_INTERNAL_ASSERT(r != nullptr, "HMAC-SHA256 failed");
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Header values are signed trimmed, with runs of spaces collapsed to one.
std::string trim_collapse(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char out[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out);
  return to_hex(out, sizeof out);
}

std::string uri_encode(std::string_view s, bool keep_slash) {
  static const char* digits = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_' || c == '.' || c == '~' || (c == '/' && keep_slash);
    if (unreserved) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(digits[c >> 4]);
      out.push_back(digits[c & 15]);
    }
  }
  return out;
}

std::string canonical_query(const Params& query) {
  std::vector<std::pair<std::string, std::string>> enc;
  enc.reserve(query.size());
  for (const auto& [k, v] : query) enc.emplace_back(uri_encode(k, false), uri_encode(v, false));
  std::sort(enc.begin(), enc.end());
  std::string out;
  for (const auto& [k, v] : enc) {
    if (!out.empty()) out.push_back('&');
    out += k;
    out.push_back('=');
    out += v;
  }
  return out;
}

std::string amz_date(std::chrono::system_clock::time_point t) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

SigningResult sign_v4(const SigningRequest& req, std::string_view access_key_id,
                      std::string_view secret_access_key, std::string_view region,
                      std::string_view service, std::string_view date) {
  EMBER_CHECK(date.size() == 16 && date[8] == 'T' && date[15] == 'Z',
              "s3: sign_v4: date must look like 20130524T000000Z, got '", date, "'");
  // Canonical headers: lower-case names, sorted; repeated names joined with ','.
  std::vector<std::pair<std::string, std::string>> hs;
  for (const auto& [k, v] : req.headers) hs.emplace_back(lower(k), trim_collapse(v));
  std::stable_sort(hs.begin(), hs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string canonical_headers, signed_headers;
  for (size_t i = 0; i < hs.size(); ++i) {
    if (i > 0 && hs[i].first == hs[i - 1].first) {
      canonical_headers.pop_back();  // the '\n' of the previous line
      canonical_headers += "," + hs[i].second + "\n";
      continue;
    }
    canonical_headers += hs[i].first + ":" + hs[i].second + "\n";
    if (!signed_headers.empty()) signed_headers.push_back(';');
    signed_headers += hs[i].first;
  }

  SigningResult r;
  r.signed_headers = signed_headers;
  r.canonical_request = req.method + "\n" + req.canonical_uri + "\n" + canonical_query(req.query) + "\n" +
                        canonical_headers + "\n" + signed_headers + "\n" + req.payload_hash;
  std::string day(date.substr(0, 8));
  std::string scope = day + "/" + std::string(region) + "/" + std::string(service) + "/aws4_request";
  r.string_to_sign = "AWS4-HMAC-SHA256\n" + std::string(date) + "\n" + scope + "\n" + sha256_hex(r.canonical_request);

  std::string k = hmac("AWS4" + std::string(secret_access_key), day);
  k = hmac(k, region);
  k = hmac(k, service);
  k = hmac(k, "aws4_request");
  std::string sig = hmac(k, r.string_to_sign);
  r.signature = to_hex(reinterpret_cast<const unsigned char*>(sig.data()), sig.size());
  r.authorization = "AWS4-HMAC-SHA256 Credential=" + std::string(access_key_id) + "/" + scope +
                    ", SignedHeaders=" + signed_headers + ", Signature=" + r.signature;
  return r;
}

}  // namespace ember::data::s3
