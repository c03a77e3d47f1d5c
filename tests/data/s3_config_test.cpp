// ember/data/s3 config: options, the environment and the AWS credentials and config files, and their errors.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "ember/data/s3/config.h"
#include "test_util.h"

namespace s3 = ember::data::s3;
namespace fs = std::filesystem;

namespace {

s3::EnvLookup env_of(std::map<std::string, std::string> m) {
  return [m](const std::string& k) -> std::optional<std::string> {
    auto it = m.find(k);
    if (it == m.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace

// ---- configuration -------------------------------------------------------------------------

class S3ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ember_s3_config_" + std::to_string(getpid()));
    fs::create_directories(dir_ / ".aws");
    std::ofstream(dir_ / ".aws" / "credentials") << "[default]\naws_access_key_id = FILEKEY\n"
                                                    "aws_secret_access_key = filesecret\n\n"
                                                    "# a comment\n[dev]\naws_access_key_id=DEVKEY\n"
                                                    "aws_secret_access_key=devsecret\naws_session_token=devtoken\n";
    std::ofstream(dir_ / ".aws" / "config") << "[default]\nregion = eu-west-3\n"
                                               "[profile dev]\nregion = ap-south-1\ns3 =\n"
                                               "  endpoint_url = http://localhost:9000\n  addressing_style = path\n"
                                               "[profile cfgonly]\naws_access_key_id = CFGKEY\n"
                                               "aws_secret_access_key = cfgsecret\nmax_attempts = 7\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(S3ConfigTest, SharedFilesAndProfiles) {
  auto env = env_of({{"HOME", dir_.string()}});
  s3::S3Config c = s3::resolve_config(s3::S3Options(), env);
  EXPECT_EQ(c.region, "eu-west-3");
  EXPECT_EQ(c.credentials.access_key_id, "FILEKEY");
  EXPECT_EQ(c.credentials.secret_access_key, "filesecret");
  EXPECT_EQ(c.endpoint(), "https://s3.eu-west-3.amazonaws.com");
  EXPECT_FALSE(c.custom_endpoint);
  EXPECT_EQ(c.max_attempts, 5);

  c = s3::resolve_config(s3::S3Options(), env_of({{"HOME", dir_.string()}, {"AWS_PROFILE", "dev"}}));
  EXPECT_EQ(c.region, "ap-south-1");
  EXPECT_EQ(c.credentials.access_key_id, "DEVKEY");
  EXPECT_EQ(c.credentials.session_token, "devtoken");
  EXPECT_EQ(c.endpoint(), "http://localhost:9000");  // nested "s3 =" block
  EXPECT_EQ(c.addressing_style, s3::AddressingStyle::Path);

  c = s3::resolve_config(s3::S3Options().profile("cfgonly"), env);
  EXPECT_EQ(c.credentials.access_key_id, "CFGKEY");  // credentials in the config file
  EXPECT_EQ(c.max_attempts, 7);
  EXPECT_NE(c.credentials.source.find("[cfgonly]"), std::string::npos);

  // AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE move the files.
  fs::rename(dir_ / ".aws", dir_ / "elsewhere");
  c = s3::resolve_config(s3::S3Options(), env_of({{"HOME", "/nonexistent"},
                                                  {"AWS_SHARED_CREDENTIALS_FILE", (dir_ / "elsewhere/credentials").string()},
                                                  {"AWS_CONFIG_FILE", (dir_ / "elsewhere/config").string()}}));
  EXPECT_EQ(c.credentials.access_key_id, "FILEKEY");
  EXPECT_EQ(c.region, "eu-west-3");
}

TEST_F(S3ConfigTest, EnvironmentAndExplicitOptionsTakePrecedence) {
  std::map<std::string, std::string> m = {{"HOME", dir_.string()},
                                          {"AWS_ACCESS_KEY_ID", "ENVKEY"},
                                          {"AWS_SECRET_ACCESS_KEY", "envsecret"},
                                          {"AWS_SESSION_TOKEN", "envtoken"},
                                          {"AWS_DEFAULT_REGION", "us-west-1"},
                                          {"AWS_ENDPOINT_URL", "http://127.0.0.1:1/"},
                                          {"AWS_MAX_ATTEMPTS", "2"}};
  s3::S3Config c = s3::resolve_config(s3::S3Options(), env_of(m));
  EXPECT_EQ(c.credentials.access_key_id, "ENVKEY");
  EXPECT_EQ(c.credentials.session_token, "envtoken");
  EXPECT_EQ(c.region, "us-west-1");
  EXPECT_EQ(c.endpoint(), "http://127.0.0.1:1");
  EXPECT_TRUE(c.custom_endpoint);
  EXPECT_EQ(c.max_attempts, 2);

  m["AWS_REGION"] = "us-west-2";  // beats AWS_DEFAULT_REGION
  m["AWS_ENDPOINT_URL_S3"] = "https://s3.example.com:8443/base/";  // beats AWS_ENDPOINT_URL
  c = s3::resolve_config(s3::S3Options(), env_of(m));
  EXPECT_EQ(c.region, "us-west-2");
  EXPECT_EQ(c.scheme, "https");
  EXPECT_EQ(c.authority, "s3.example.com:8443");
  EXPECT_EQ(c.base_path, "/base");

  c = s3::resolve_config(s3::S3Options().region("ca-central-1").endpoint_url("http://localhost:5").access_key_id("OPT")
                             .secret_access_key("optsecret").max_attempts(9),
                         env_of(m));
  EXPECT_EQ(c.region, "ca-central-1");
  EXPECT_EQ(c.endpoint(), "http://localhost:5");
  EXPECT_EQ(c.credentials.access_key_id, "OPT");
  EXPECT_EQ(c.credentials.session_token, "");
  EXPECT_EQ(c.max_attempts, 9);

  // An explicit profile skips the environment's keys (as boto3's Session(profile_name=)).
  c = s3::resolve_config(s3::S3Options().profile("dev"), env_of(m));
  EXPECT_EQ(c.credentials.access_key_id, "DEVKEY");
  c = s3::resolve_config(s3::S3Options().anonymous(true), env_of(m));
  EXPECT_TRUE(c.credentials.anonymous);
  EXPECT_EQ(c.credentials.secret_access_key, "");
}

TEST_F(S3ConfigTest, Errors) {
  auto none = env_of({{"HOME", "/nonexistent-home"}});
  EXPECT_ERROR_WITH(s3::resolve_config(s3::S3Options(), none), "no AWS credentials found");
  EXPECT_ERROR_WITH(s3::resolve_config(s3::S3Options(), none), "/nonexistent-home/.aws/credentials");
  EXPECT_ERROR_WITH(s3::resolve_config(s3::S3Options().profile("nope"), env_of({{"HOME", dir_.string()}})),
                    "no such profile");
  auto ok = s3::S3Options().access_key_id("K").secret_access_key("S");
  EXPECT_ERROR_WITH(s3::resolve_config(s3::S3Options().access_key_id("K"), none), "both access_key_id");
  EXPECT_ERROR_WITH(s3::resolve_config(s3::S3Options(ok).endpoint_url("http://s3.example.com"), none), "allow_http");
  EXPECT_NO_THROW(s3::resolve_config(s3::S3Options(ok).endpoint_url("http://s3.example.com").allow_http(true), none));
  EXPECT_NO_THROW(s3::resolve_config(s3::S3Options(ok).endpoint_url("http://[::1]:9000"), none));
  EXPECT_ERROR_WITH(s3::resolve_config(s3::S3Options(ok).endpoint_url("127.0.0.1:9000"), none), "no scheme");
  EXPECT_ERROR_WITH(s3::resolve_config(s3::S3Options(ok).endpoint_url("ftp://x"), none), "http://");
  EXPECT_ERROR_WITH(s3::resolve_config(s3::S3Options(ok).endpoint_url("https://u:p@x"), none), "no user");
  EXPECT_ERROR_WITH(s3::resolve_config(s3::S3Options(ok).max_in_flight(0), none), "max_in_flight");
  EXPECT_ERROR_WITH(s3::resolve_config(s3::S3Options(ok).max_keys(5000), none), "max_keys");
  EXPECT_ERROR_WITH(s3::resolve_config(ok, env_of({{"AWS_MAX_ATTEMPTS", "x"}})), "AWS_MAX_ATTEMPTS");
}
