#include "ember/data/s3/config.h"

#include <cstdlib>
#include <fstream>
#include <map>

#include "ember/core/error.h"

namespace ember::data::s3 {

namespace {

using Section = std::map<std::string, std::string>;
using IniFile = std::map<std::string, Section>;

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// The AWS shared-file dialect of INI: "[section]", "key = value", '#' and ';' comments,
// and nested settings ("s3 =" followed by indented "key = value" lines, stored here as
// "s3.key"). A missing file reads as empty.
IniFile read_ini(const std::string& path) {
  IniFile out;
  std::ifstream f(path);
  if (!f) return out;
  std::string line, section, parent;
  bool have_section = false;
  while (std::getline(f, line)) {
    std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[' && t.back() == ']') {
      section = trim(t.substr(1, t.size() - 2));
      have_section = true;
      parent.clear();
      out[section];
      continue;
    }
    size_t eq = t.find('=');
    if (!have_section || eq == std::string::npos) continue;  // tolerated, as the SDKs do
    std::string key = trim(t.substr(0, eq)), value = trim(t.substr(eq + 1));
    bool indented = line[0] == ' ' || line[0] == '\t';
    if (indented && !parent.empty()) {
      out[section][parent + "." + key] = value;
    } else if (value.empty()) {
      parent = key;  // the start of a nested block
    } else {
      parent.clear();
      out[section][key] = value;
    }
  }
  return out;
}

const Section* find_section(const IniFile& ini, const std::string& name) {
  auto it = ini.find(name);
  return it == ini.end() ? nullptr : &it->second;
}

std::optional<std::string> get(const Section* s, const std::string& key) {
  if (!s) return std::nullopt;
  auto it = s->find(key);
  if (it == s->end() || it->second.empty()) return std::nullopt;
  return it->second;
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "[::1]" || host == "::1";
}

int64_t parse_int(const std::string& s, const char* what) {
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  EMBER_CHECK(!s.empty() && end && *end == '\0', "s3: ", what, " must be an integer, got '", s, "'");
  return v;
}

}  // namespace

S3Config resolve_config(const S3Options& o, const EnvLookup& env_in) {
  EnvLookup env = env_in ? env_in : [](const std::string& k) -> std::optional<std::string> {
    const char* v = std::getenv(k.c_str());
    if (!v || !*v) return std::nullopt;
    return std::string(v);
  };
  auto env_or = [&](const std::string& k) { return env(k).value_or(""); };

  std::string profile = o.profile().value_or(env("AWS_PROFILE").value_or("default"));
  std::string home = env_or("HOME");
  auto expand = [&](std::string p) { return (p.rfind("~/", 0) == 0 && !home.empty()) ? home + p.substr(1) : p; };
  std::string cred_path = expand(env("AWS_SHARED_CREDENTIALS_FILE").value_or("~/.aws/credentials"));
  std::string conf_path = expand(env("AWS_CONFIG_FILE").value_or("~/.aws/config"));
  IniFile cred_file = read_ini(cred_path), conf_file = read_ini(conf_path);
  const Section* cred_sec = find_section(cred_file, profile);
  const Section* conf_sec = find_section(conf_file, "profile " + profile);
  if (!conf_sec && profile == "default") conf_sec = find_section(conf_file, "default");

  S3Config c;
  c.region = o.region().value_or(
      env("AWS_REGION").value_or(env("AWS_DEFAULT_REGION").value_or(get(conf_sec, "region").value_or("us-east-1"))));
  EMBER_CHECK(!c.region.empty() && c.region.find_first_of("/ \n") == std::string::npos,
              "s3: invalid region '", c.region, "'");

  // Endpoint.
  std::optional<std::string> endpoint = o.endpoint_url();
  if (!endpoint) endpoint = env("AWS_ENDPOINT_URL_S3");
  if (!endpoint) endpoint = env("AWS_ENDPOINT_URL");
  if (!endpoint) endpoint = get(conf_sec, "s3.endpoint_url");
  if (!endpoint) endpoint = get(conf_sec, "endpoint_url");
  c.custom_endpoint = endpoint.has_value();
  std::string url = endpoint.value_or("https://s3." + c.region + ".amazonaws.com");
  size_t sep = url.find("://");
  EMBER_CHECK(sep != std::string::npos, "s3: endpoint URL '", url, "' has no scheme (expected http:// or https://)");
  c.scheme = url.substr(0, sep);
  for (char& ch : c.scheme) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  EMBER_CHECK(c.scheme == "http" || c.scheme == "https", "s3: endpoint URL '", url,
              "' must start with http:// or https://");
  std::string rest = url.substr(sep + 3);
  EMBER_CHECK(rest.find_first_of("?#@ ") == std::string::npos, "s3: endpoint URL '", url,
              "' must be scheme://host[:port][/path] (no user, query or fragment)");
  size_t slash = rest.find('/');
  c.authority = rest.substr(0, slash);
  c.base_path = slash == std::string::npos ? "" : rest.substr(slash);
  while (!c.base_path.empty() && c.base_path.back() == '/') c.base_path.pop_back();
  EMBER_CHECK(!c.authority.empty(), "s3: endpoint URL '", url, "' has no host");
  std::string host = c.authority;
  if (host.front() == '[') host = host.substr(0, host.find(']') + 1);
  else host = host.substr(0, host.find(':'));
  EMBER_CHECK(c.scheme == "https" || is_loopback(host) || o.allow_http(), "s3: endpoint '", url,
              "' uses plain http to a non-loopback host; use https or set S3Options::allow_http(true)");

  c.addressing_style = o.addressing_style();
  if (c.addressing_style == AddressingStyle::Auto) {
    std::string style = get(conf_sec, "s3.addressing_style").value_or("auto");
    if (style == "path") c.addressing_style = AddressingStyle::Path;
    else if (style == "virtual") c.addressing_style = AddressingStyle::Virtual;
  }

  // Credentials.
  Credentials& cr = c.credentials;
  if (o.anonymous()) {
    cr.anonymous = true;
    cr.source = "anonymous";
  } else if (o.access_key_id() || o.secret_access_key()) {
    EMBER_CHECK(o.access_key_id() && o.secret_access_key(),
                "s3: S3Options needs both access_key_id and secret_access_key (only one was set)");
    cr.access_key_id = *o.access_key_id();
    cr.secret_access_key = *o.secret_access_key();
    cr.session_token = o.session_token().value_or("");
    cr.source = "explicit options";
  } else if (!o.profile() && env("AWS_ACCESS_KEY_ID") && env("AWS_SECRET_ACCESS_KEY")) {
    cr.access_key_id = *env("AWS_ACCESS_KEY_ID");
    cr.secret_access_key = *env("AWS_SECRET_ACCESS_KEY");
    cr.session_token = env("AWS_SESSION_TOKEN").value_or(env_or("AWS_SECURITY_TOKEN"));
    cr.source = "environment (AWS_ACCESS_KEY_ID)";
  } else {
    for (auto [sec, path] : {std::pair{cred_sec, &cred_path}, std::pair{conf_sec, &conf_path}}) {
      auto id = get(sec, "aws_access_key_id"), secret = get(sec, "aws_secret_access_key");
      if (id && secret) {
        cr.access_key_id = *id;
        cr.secret_access_key = *secret;
        cr.session_token = get(sec, "aws_session_token").value_or("");
        cr.source = "profile [" + profile + "] in " + *path;
        break;
      }
    }
    EMBER_CHECK(!cr.source.empty(), "s3: no AWS credentials found: set S3Options::access_key_id and "
                "secret_access_key, the AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY environment variables, "
                "or aws_access_key_id/aws_secret_access_key for profile [", profile, "] in ", cred_path, " or ",
                conf_path, (cred_sec || conf_sec ? "" : " (no such profile there)"),
                "; for a public bucket use S3Options().anonymous(true)");
  }

  c.request_timeout_ms = o.request_timeout_ms();
  c.connect_timeout_ms = o.connect_timeout_ms();
  c.backoff_base_ms = o.backoff_base_ms();
  c.backoff_max_ms = o.backoff_max_ms();
  if (o.max_attempts()) c.max_attempts = *o.max_attempts();
  else if (auto v = env("AWS_MAX_ATTEMPTS")) c.max_attempts = static_cast<int>(parse_int(*v, "AWS_MAX_ATTEMPTS"));
  else if (auto v = get(conf_sec, "max_attempts")) c.max_attempts = static_cast<int>(parse_int(*v, "max_attempts"));
  else c.max_attempts = 5;
  c.part_size = o.part_size();
  c.max_in_flight = o.max_in_flight();
  c.max_keys = o.max_keys();
  c.log = o.log();
  EMBER_CHECK(c.request_timeout_ms > 0 && c.connect_timeout_ms > 0, "s3: request_timeout_ms and connect_timeout_ms "
              "must be positive, got ", c.request_timeout_ms, " and ", c.connect_timeout_ms);
  EMBER_CHECK(c.backoff_base_ms >= 0 && c.backoff_max_ms >= 0, "s3: backoff times must not be negative");
  EMBER_CHECK(c.max_attempts >= 1 && c.max_attempts <= 100, "s3: max_attempts must be in [1, 100], got ",
              c.max_attempts);
  EMBER_CHECK(c.part_size > 0 && c.max_in_flight > 0 && c.max_in_flight <= 256,
              "s3: part_size must be positive and max_in_flight in [1, 256], got ", c.part_size, " and ",
              c.max_in_flight);
  EMBER_CHECK(c.max_keys >= 1 && c.max_keys <= 1000, "s3: max_keys must be in [1, 1000], got ", c.max_keys);
  return c;
}

}  // namespace ember::data::s3
