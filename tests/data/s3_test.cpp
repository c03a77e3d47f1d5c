// Tests for ember/data/s3: the SigV4 signer against AWS's published examples, the XML
// reader, configuration from the environment and the AWS files, and the client and the
// streaming reader against real servers on 127.0.0.1 that the tests start themselves:
// moto's S3 server (python3 -m moto.server) and tests/data/s3_fault_server.py, which
// injects 5xx/SlowDown answers, dropped connections and stalls.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "ember/data/datapipes/loader.h"
#include "ember/data/datapipes/ops.h"
#include "ember/data/datapipes/s3.h"
#include "ember/data/s3/client.h"
#include "ember/data/s3/http.h"
#include "ember/data/s3/object_stream.h"
#include "ember/data/s3/sigv4.h"
#include "ember/data/s3/xml.h"
#include "test_util.h"

namespace s3 = ember::data::s3;
namespace fs = std::filesystem;

namespace {

const std::string kTestsDir = std::string(EMBER_GOLDEN_DIR) + "/..";

// ---- helpers: child processes and raw HTTP --------------------------------------------

// A child process (a server) that is killed when this object dies, and also if the test
// binary itself dies (PR_SET_PDEATHSIG), so no server outlives a crashed test.
class Child {
 public:
  Child(const std::vector<std::string>& argv, bool capture_stdout) {
    int fds[2] = {-1, -1};
    if (capture_stdout && pipe(fds) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      int devnull = open("/dev/null", O_RDWR);
      dup2(devnull, 0);
      dup2(capture_stdout ? fds[1] : devnull, 1);
      dup2(devnull, 2);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    if (capture_stdout) {
      close(fds[1]);
      out_ = fdopen(fds[0], "r");
    }
  }
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_) fclose(out_);
  }
  // The next line of the child's stdout ("" at its end).
  std::string read_line() {
    char buf[256];
    if (!out_ || !fgets(buf, sizeof buf, out_)) return "";
    std::string s(buf);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
};

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// One HTTP/1.0 exchange with a server on 127.0.0.1; returns the whole response ("" when
// nothing listens).
std::string raw_http(int port, const std::string& method, const std::string& path, const std::string& body = "") {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return "";
  }
  std::string req = method + " " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  (void)!write(fd, req.data(), req.size());
  std::string resp;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) resp.append(buf, n);
  close(fd);
  return resp;
}

bool python_has(const std::string& module) {
  return std::system(("python3 -c 'import " + module + "' >/dev/null 2>&1 </dev/null").c_str()) == 0;
}

std::string run_capture(const std::string& cmd) {
  std::string out;
  FILE* p = popen((cmd + " </dev/null").c_str(), "r");
  if (!p) return out;
  char buf[512];
  while (fgets(buf, sizeof buf, p)) out += buf;
  if (pclose(p) != 0) out = "FAILED: " + out;
  return out;
}

std::string random_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (size_t i = 0; i < n; i += 8) {
    uint64_t v = rng();
    std::memcpy(s.data() + i, &v, std::min<size_t>(8, n - i));
  }
  return s;
}

// Reads a stream to its end in chunks of `chunk` bytes (odd sizes cross part boundaries).
std::string drain(ember::data::io::InputStream& s, size_t chunk) {
  std::string out, buf(chunk, '\0');
  while (size_t k = s.read(buf.data(), chunk)) out.append(buf.data(), k);
  return out;
}

// Collects log lines from a client (thread-safe: parts log from worker threads).
struct LogSink {
  std::mutex mu;
  std::vector<std::string> lines;
  std::function<void(const std::string&)> fn() {
    return [this](const std::string& l) {
      std::lock_guard<std::mutex> lock(mu);
      lines.push_back(l);
    };
  }
  std::string all() {
    std::lock_guard<std::mutex> lock(mu);
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
  }
};

s3::EnvLookup env_of(std::map<std::string, std::string> m) {
  return [m](const std::string& k) -> std::optional<std::string> {
    auto it = m.find(k);
    if (it == m.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace

// ---- SigV4 against AWS's published examples ("Signature Calculations for the
// Authorization Header: Transferring Payload in a Single Chunk", S3 API reference) --------

namespace {
const char* kExampleKeyId = "AKIAIOSFODNN7EXAMPLE";
const char* kExampleSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const char* kExampleHost = "examplebucket.s3.amazonaws.com";
}  // namespace

TEST(S3SigV4, AwsGetObjectExample) {
  s3::SigningRequest req{"GET", "/test.txt", {},
                         {{"Host", kExampleHost},
                          {"Range", "bytes=0-9"},
                          {"x-amz-content-sha256", s3::kEmptySha256},
                          {"x-amz-date", "20130524T000000Z"}},
                         s3::kEmptySha256};
  s3::SigningResult r = s3::sign_v4(req, kExampleKeyId, kExampleSecret, "us-east-1", "s3", "20130524T000000Z");
  EXPECT_EQ(r.canonical_request,
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
            "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(r.string_to_sign,
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(r.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(r.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(S3SigV4, AwsPutObjectExample) {
  // PUT /test$file.text: '$' is percent-encoded in the path; the payload hash is signed.
  std::string payload = "Welcome to Amazon S3.";
  std::string hash = s3::sha256_hex(payload);
  EXPECT_EQ(hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  s3::SigningRequest req{"PUT", "/" + s3::uri_encode("test$file.text", true), {},
                         {{"Host", kExampleHost},
                          {"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                          {"x-amz-date", "20130524T000000Z"},
                          {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
                          {"x-amz-content-sha256", hash}},
                         hash};
  s3::SigningResult r = s3::sign_v4(req, kExampleKeyId, kExampleSecret, "us-east-1", "s3", "20130524T000000Z");
  EXPECT_EQ(r.canonical_request.substr(0, 23), "PUT\n/test%24file.text\n\n");
  EXPECT_EQ(r.signed_headers, "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class");
  EXPECT_EQ(r.signature, "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(S3SigV4, AwsQueryExamples) {
  auto sign = [](s3::Params query) {
    s3::SigningRequest req{"GET", "/", std::move(query),
                           {{"Host", kExampleHost},
                            {"x-amz-content-sha256", s3::kEmptySha256},
                            {"x-amz-date", "20130524T000000Z"}},
                           s3::kEmptySha256};
    return s3::sign_v4(req, kExampleKeyId, kExampleSecret, "us-east-1", "s3", "20130524T000000Z").signature;
  };
  // GET Bucket lifecycle: a parameter without a value is signed as "lifecycle=".
  EXPECT_EQ(sign({{"lifecycle", ""}}), "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
  // GET Bucket (List Objects): parameters given out of order are signed sorted.
  EXPECT_EQ(sign({{"prefix", "J"}, {"max-keys", "2"}}),
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
  EXPECT_EQ(sign({{"max-keys", "2"}, {"prefix", "J"}}),
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(S3SigV4, EncodingAndHeaders) {
  EXPECT_EQ(s3::uri_encode("a-b_c.d~e", false), "a-b_c.d~e");
  EXPECT_EQ(s3::uri_encode("a b/c+d=\xC3\xA9", false), "a%20b%2Fc%2Bd%3D%C3%A9");
  EXPECT_EQ(s3::uri_encode("dir/a b*", true), "dir/a%20b%2A");
  EXPECT_EQ(s3::canonical_query({{"b", "2"}, {"a", "x y"}, {"a", ""}}), "a=&a=x%20y&b=2");
  EXPECT_EQ(s3::amz_date(std::chrono::system_clock::time_point(std::chrono::seconds(1369353600))),
            "20130524T000000Z");
  // Header values are trimmed and inner runs of spaces collapse; names are case-folded.
  s3::SigningRequest req{"GET", "/", {}, {{"Host", "h"}, {"X-Amz-Meta-A", "  one   two  "}, {"x-amz-date", "20130524T000000Z"}},
                         s3::kEmptySha256};
  auto r = s3::sign_v4(req, "id", "secret", "r", "s3", "20130524T000000Z");
  EXPECT_NE(r.canonical_request.find("\nx-amz-meta-a:one two\n"), std::string::npos) << r.canonical_request;
  EXPECT_ERROR_WITH(s3::sign_v4(req, "id", "secret", "r", "s3", "2013-05-24"), "20130524T000000Z");
}

// ---- XML --------------------------------------------------------------------------------

TEST(S3Xml, ParsesListBucketResult) {
  std::string doc =
      "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- a comment -->\n"
      "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Name>b</Name><IsTruncated>true</IsTruncated>"
      "<Contents><Key>a&amp;b &lt;c&gt; &#233;&#x20AC;</Key><Size>12</Size><ETag>&quot;x&quot;</ETag></Contents>"
      "<Contents><Key><![CDATA[raw <key> & more]]></Key><Size>0</Size><Owner/></Contents>"
      "<s3:NextContinuationToken attr='a>b'>tok/+=</s3:NextContinuationToken>"
      "</ListBucketResult>\n";
  s3::XmlNode root = s3::parse_xml(doc, "test");
  EXPECT_EQ(root.name, "ListBucketResult");
  ASSERT_EQ(root.children.size(), 5u);
  EXPECT_EQ(root.children[2].child_text("Key"), "a&b <c> \xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(root.children[2].child_text("ETag"), "\"x\"");
  EXPECT_EQ(root.children[3].child_text("Key"), "raw <key> & more");
  EXPECT_EQ(root.child_text("NextContinuationToken"), "tok/+=");
  EXPECT_EQ(root.child_text("Missing"), "");
}

TEST(S3Xml, MalformedInputRaisesErrors) {
  std::string doc = "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>m &amp; n</Message></Error>";
  // Every truncation of a valid document either fails cleanly or (never) parses.
  for (size_t n = 0; n < doc.size(); ++n) EXPECT_THROW(s3::parse_xml(doc.substr(0, n), "error body"), ember::Error) << n;
  EXPECT_ERROR_WITH(s3::parse_xml("<a><b></a></b>", "resp"), "mismatched end tag");
  EXPECT_ERROR_WITH(s3::parse_xml("<a>&bogus;</a>", "resp"), "unknown entity");
  EXPECT_ERROR_WITH(s3::parse_xml("<a>&#x110000;</a>", "resp"), "out of range");
  EXPECT_ERROR_WITH(s3::parse_xml("<a/><b/>", "resp"), "after the root");
  EXPECT_ERROR_WITH(s3::parse_xml("<a>", "ListObjectsV2 response"), "ListObjectsV2 response at byte");
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<a>";
  EXPECT_ERROR_WITH(s3::parse_xml(deep, "resp"), "nested too deeply");
  // CDATA before the root has no element to belong to (it read from an empty stack; found by
  // fuzz/s3_xml_fuzz.cpp, tests/fuzz/regressions/s3_xml/).
  EXPECT_ERROR_WITH(s3::parse_xml("<![CDATA[x]]>", "resp"), "CDATA section outside the root element");
  EXPECT_ERROR_WITH(s3::parse_xml("<?xml version=\"1.0\"?> <![CDATA[]]><a/>", "resp"), "outside the root element");
}

TEST(S3Xml, ListPagesAndErrorBodies) {
  // What ListObjectsV2 and failed requests parse from bodies (s3::detail, fuzzed by fuzz/s3_xml_fuzz.cpp).
  auto page = [](const std::string& size) {
    return s3::detail::parse_list_page("<ListBucketResult><EncodingType>url</EncodingType><Contents><Key>a%20b+c</Key>"
                                       "<Size>" + size + "</Size></Contents></ListBucketResult>",
                                       "resp");
  };
  s3::ListPage p = page("12");
  ASSERT_EQ(p.objects.size(), 1u);
  EXPECT_EQ(p.objects[0].key, "a b c");
  EXPECT_EQ(p.objects[0].size, 12u);
  EXPECT_FALSE(p.is_truncated);
  EXPECT_EQ(page("18446744073709551615").objects[0].size, UINT64_MAX);
  // Only plain digits: strtoull alone took " -1" as 2^64 - 1.
  for (const char* bad : {" -1", "-1", "+5", " 7", "7 ", "0x10", "", "18446744073709551616"}) {
    SCOPED_TRACE(std::string("'") + bad + "'");
    EXPECT_ERROR_WITH(page(bad), "<Size> of key 'a b c': expected a non-negative integer");
  }
  EXPECT_EQ(s3::detail::parse_error_body("<Error><Code>NoSuchKey</Code><Message>no &amp; key</Message></Error>"),
            std::make_pair(std::string("NoSuchKey"), std::string("no & key")));
  EXPECT_EQ(s3::detail::parse_error_body("<html>bad gateway"), std::make_pair(std::string(), std::string()));
}

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

// fork() while other threads use a connection pool: the child's first request must not hang
// on a pool mutex copied in the locked state (pools register with a fork handler that takes
// their mutexes around fork).
//
// Skipped under AddressSanitizer runtimes that leave their own allocator locks held in the
// child: GCC 12's libasan has no fork handler (no fork interceptor, no pthread_atfork call),
// nor has clang 14's (LLVM added one in llvm-project#75290, "[asan] Install pthread_atfork",
// LLVM 18), and neither exports a way for a library to take those locks around fork. The
// users' threads malloc and free curl's 256 KiB receive buffer (CURLOPT_BUFFERSIZE) on every
// request, so the fork often lands while one of them holds the secondary allocator's spin
// lock, and the child's own malloc of that buffer spins on its copy until SIGALRM. Under two
// busy loops, this test in build-asan failed 6 of 10 repeats (6 of 400 children hung); gdb
// attached to each hung child showed the same stack, every time:
//   #0  __sanitizer::internal_sched_yield ()
//   #1  __sanitizer::StaticSpinMutex::LockSlow ()                 sanitizer_mutex.cpp:24
//   #3  GenericScopedLock<StaticSpinMutex> (mu=<__asan::instance+680>)
//   #4  __sanitizer::LargeMmapAllocator<__asan::AsanMapUnmapCallback, ...>::Allocate
//   #6  __asan::Allocator::Allocate                                asan_allocator.cpp:536
//   #7  __asan::asan_malloc (size=262145)   #8 __interceptor_malloc (size=262145)
//   #9, #10 libcurl.so.4   #11 curl_multi_perform   #12 curl_easy_perform
//   #13 ember::data::s3::detail::HttpPool::perform                 http.cpp:211
// Without ASan nothing of the kind is held: glibc's fork takes malloc's arena locks itself,
// curl takes no process-wide lock in a request (a numeric address, no TLS, no share handle),
// and the pools' mutexes are ember's fork handler's. The Release build passed 200 of 200
// repeats (8000 forks) under the same load.
#if defined(__clang__)
#if __has_feature(address_sanitizer) && __clang_major__ < 18
#define EMBER_TEST_ASAN_WITHOUT_FORK_HANDLER 1
#endif
#elif defined(__SANITIZE_ADDRESS__)  // GCC: 12 is the one checked; revisit when it has the handler
#define EMBER_TEST_ASAN_WITHOUT_FORK_HANDLER 1
#endif
TEST(S3Http, ForkWhileOtherThreadsUseThePool) {
#ifdef EMBER_TEST_ASAN_WITHOUT_FORK_HANDLER
  GTEST_SKIP() << "this ASan runtime takes no locks around fork(): a child forked while another "
                  "thread is in malloc can spin forever on ASan's allocator lock (see the comment above)";
#endif
  // A port with nothing listening: each request fails at once, but takes and returns a handle.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  close(fd);
  s3::detail::HttpRequest req;
  req.method = "GET";
  req.url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/bucket/key";
  req.connect_timeout_ms = 2000;

  s3::detail::HttpPool pool;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> requests{0};
  std::vector<std::thread> users;
  for (int t = 0; t < 2; ++t)
    users.emplace_back([&] {
      while (!stop) {
        pool.perform(req);
        ++requests;
      }
    });
  for (int i = 0; i < 40; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      alarm(20);  // a hang ends the child with SIGALRM, which the parent reports
      const s3::detail::HttpResponse r = pool.perform(req);
      _exit(r.curl_code != 0 ? 0 : 3);  // refused: a transport error, as in the parent
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child " << i << ": status " << status;
  }
  stop = true;
  for (auto& t : users) t.join();
  EXPECT_GT(requests.load(), 40);
}

TEST(S3Url, Parse) {
  auto u = s3::parse_s3_url("s3://bucket/a/b c.txt");
  EXPECT_EQ(u.bucket, "bucket");
  EXPECT_EQ(u.key, "a/b c.txt");
  EXPECT_EQ(s3::parse_s3_url("s3://bucket").key, "");
  EXPECT_EQ(s3::parse_s3_url("s3://bucket/").key, "");
  EXPECT_ERROR_WITH(s3::parse_s3_url("http://bucket/x"), "s3://bucket/key");
  EXPECT_ERROR_WITH(s3::parse_s3_url("s3:///x"), "no bucket");
}

// ---- against moto's S3 server ---------------------------------------------------------------

class S3Moto : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!python_has("moto.server")) {
      skip_reason_ = "moto is not importable by python3 (scripts/install-deps.sh installs moto[server])";
      return;
    }
    port_ = free_port();
    server_ = new Child({"python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", std::to_string(port_)}, false);
    endpoint_ = "http://127.0.0.1:" + std::to_string(port_);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (raw_http(port_, "GET", "/moto-api/").empty()) {
      if (std::chrono::steady_clock::now() > deadline) {
        skip_reason_ = "moto server did not start";  // reported as a failure in SetUp
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    client().create_bucket("ember");
  }
  static void TearDownTestSuite() {
    delete server_;  // kills the server (also on failed tests)
    server_ = nullptr;
  }
  void SetUp() override {
    if (skip_reason_ == "moto server did not start") FAIL() << skip_reason_;
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
  }
  static s3::S3Options options() {
    return s3::S3Options().endpoint_url(endpoint_).region("us-east-1").access_key_id("testing")
        .secret_access_key("testing-secret").backoff_base_ms(1);
  }
  static s3::S3Client client() { return s3::S3Client(options()); }

  static inline Child* server_ = nullptr;
  static inline int port_ = 0;
  static inline std::string endpoint_, skip_reason_;
};

TEST_F(S3Moto, ListsThousandsOfKeysAcrossPages) {
  s3::S3Client c = client();
  c.create_bucket("many");
  std::set<std::string> a_keys, b_keys;
  for (int i = 0; i < 1200; ++i) a_keys.insert("data/a/" + std::to_string(100000 + i * 7) + ".bin");
  for (int i = 0; i < 900; ++i) b_keys.insert("data/b/x" + std::to_string(i));
  std::vector<std::string> all(a_keys.begin(), a_keys.end());
  all.insert(all.end(), b_keys.begin(), b_keys.end());
  all.push_back("other/key");
  // Four threads share one client (and its connection pool).
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (size_t i = t; i < all.size(); i += 4) c.put_object("many", all[i], std::to_string(i % 10));
    });
  for (auto& t : ts) t.join();

  // Small pages force many continuation tokens.
  s3::S3Client paged(options().max_keys(97));
  std::vector<s3::ObjectInfo> listed = paged.list_objects("many", "data/");
  std::vector<std::string> keys;
  for (const auto& o : listed) keys.push_back(o.key);
  std::vector<std::string> want(a_keys.begin(), a_keys.end());
  want.insert(want.end(), b_keys.begin(), b_keys.end());
  EXPECT_EQ(keys, want);  // every key once, in S3's (byte-wise) order
  for (const auto& o : listed) EXPECT_EQ(o.size, 1u);

  std::vector<s3::ObjectInfo> b = paged.list_objects("many", "data/b/");
  EXPECT_EQ(b.size(), 900u);
  EXPECT_EQ(paged.list_objects("many", "").size(), all.size());
  EXPECT_TRUE(paged.list_objects("many", "nothing/").empty());
  s3::ListPage first = paged.list_objects_v2("many", "data/", "", 10);
  EXPECT_EQ(first.objects.size(), 10u);
  EXPECT_TRUE(first.is_truncated);
  EXPECT_FALSE(first.next_continuation_token.empty());
}

TEST_F(S3Moto, SmallObjectsAndSpecialKeys) {
  s3::S3Client c = client();
  std::vector<std::pair<std::string, std::string>> objs = {
      {"small/empty", ""},
      {"small/one", "x"},
      {"small/with space & plus+equals=.txt", "special key"},
      {"small/unicod\xC3\xA9/\xE2\x82\xAC.txt", "unicode key"},
      {"small/binary", std::string("\0\1\2\xff\n\r\0", 7)},
  };
  for (const auto& [k, v] : objs) c.put_object("ember", k, v);
  for (const auto& [k, v] : objs) {
    EXPECT_EQ(c.get_object("ember", k), v) << k;
    s3::ObjectInfo info = c.head_object("ember", k);
    EXPECT_EQ(info.size, v.size()) << k;
    EXPECT_FALSE(info.etag.empty());
    // The streaming reader, with and without the size known up front.
    EXPECT_EQ(s3::open_object(c, "ember", k)->read_all(), v) << k;
    EXPECT_EQ(s3::open_object(c, "ember", k, v.size())->read_all(), v) << k;
  }
  // Listing decodes S3's url-encoded keys.
  std::vector<std::string> keys;
  for (const auto& o : c.list_objects("ember", "small/")) keys.push_back(o.key);
  std::vector<std::string> want;
  for (const auto& kv : objs) want.push_back(kv.first);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(keys, want);

  c.put_object("ember", "small/range", "0123456789");
  EXPECT_EQ(c.get_object_range("ember", "small/range", 3, 4), "3456");
  EXPECT_EQ(c.get_object_range("ember", "small/range", 0, 10), "0123456789");
  c.delete_object("ember", "small/range");
  EXPECT_THROW(c.head_object("ember", "small/range"), s3::S3Error);
}

TEST_F(S3Moto, MultiPartStreamIsByteExact) {
  s3::S3Client c = client();
  const std::string data = random_bytes((20 << 20) + 12345, 42);  // 20 MB and a short last part
  c.put_object("ember", "big/object.bin", data);
  s3::S3Client parts(options().part_size(1 << 20).max_in_flight(4));
  auto stream = s3::open_object(parts, "ember", "big/object.bin");
  EXPECT_EQ(stream->name(), "s3://ember/big/object.bin");
  std::string got = drain(*stream, 65537);
  ASSERT_EQ(got.size(), data.size());
  EXPECT_TRUE(got == data) << "content differs";
  EXPECT_EQ(stream->read_all(), "");  // at the end it stays at the end

  // Lines across part boundaries, and a stream dropped half-way (workers are stopped).
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i) + "\n";
  c.put_object("ember", "big/lines.txt", text);
  s3::S3Client tiny(options().part_size(1000).max_in_flight(3));
  auto lines = s3::open_object(tiny, "ember", "big/lines.txt");
  std::string line;
  int n = 0;
  while (lines->read_line(line)) EXPECT_EQ(line, "line " + std::to_string(n++));
  EXPECT_EQ(n, 20000);
  auto partial = s3::open_object(parts, "ember", "big/object.bin");
  std::string head(3 << 20, '\0');
  EXPECT_EQ(partial->read(head.data(), 100), 100u);
  EXPECT_EQ(head.substr(0, 100), data.substr(0, 100));
  partial.reset();

  // Whole-object GET streamed to a sink.
  std::string sunk;
  c.get_object("ember", "big/object.bin", [&](const char* p, size_t k) { sunk.append(p, k); });
  EXPECT_TRUE(sunk == data);
}

TEST_F(S3Moto, MissingKeyAndBucketNameThem) {
  s3::S3Client c = client();
  try {
    c.get_object("ember", "no/such/key.txt");
    FAIL() << "expected an error";
  } catch (const s3::S3Error& e) {
    std::string m = e.what();
    EXPECT_EQ(e.http_status(), 404);
    EXPECT_EQ(e.code(), "NoSuchKey");
    EXPECT_NE(m.find("s3://ember/no/such/key.txt"), std::string::npos) << m;
    EXPECT_NE(m.find("NoSuchKey"), std::string::npos) << m;
  }
  EXPECT_ERROR_WITH(s3::open_object(c, "ember", "no/such/key.txt")->read_all(), "HeadObject s3://ember/no/such/key.txt");
  EXPECT_ERROR_WITH(c.head_object("ember", "nope"), "HTTP 404");
  EXPECT_ERROR_WITH(c.list_objects("no-such-bucket", "x/"), "NoSuchBucket");
  EXPECT_ERROR_WITH(c.list_objects("no-such-bucket", "x/"), "s3://no-such-bucket/x/");
  c.put_object("ember", "missing/one", "x");
  EXPECT_ERROR_WITH(c.get_object_range("ember", "missing/one", 5, 2), "past the end");
}

// moto checks signatures only when asked (tests/data/s3_moto_auth.py): then botocore's own
// SigV4 implementation recomputes every request's signature.
TEST_F(S3Moto, SignaturesAreCheckedByMoto) {
  if (!python_has("boto3")) GTEST_SKIP() << "boto3 is not importable by python3";
  std::string script = kTestsDir + "/data/s3_moto_auth.py";
  std::string out = run_capture("python3 " + script + " " + endpoint_ + " on 2>&1");
  struct AuthOff {
    std::string cmd;
    ~AuthOff() { run_capture(cmd); }
  } off{"python3 " + script + " " + endpoint_ + " off"};
  char id[128] = {0}, secret[128] = {0};
  ASSERT_EQ(std::sscanf(out.c_str(), "%127s %127s", id, secret), 2) << out;

  LogSink logs;
  // (A '+' in a key is signed as %2B and a '/' in a query value as %2F, as SigV4 wants;
  // moto 5.x then mismatches on them for boto3 too, so the key and the prefix avoid them.)
  s3::S3Client good(options().access_key_id(id).secret_access_key(secret));
  good.put_object("ember", "auth/a b.txt", "signed");
  EXPECT_EQ(good.get_object("ember", "auth/a b.txt"), "signed");
  EXPECT_EQ(good.get_object_range("ember", "auth/a b.txt", 1, 3), "ign");
  EXPECT_EQ(good.list_objects("ember", "auth").size(), 1u);

  const std::string wrong = "Wr0ngSecretValueThatMustNotLeak";
  s3::S3Client bad(options().access_key_id(id).secret_access_key(wrong).log(logs.fn()));
  try {
    bad.get_object("ember", "auth/a b.txt");
    FAIL() << "expected an error";
  } catch (const s3::S3Error& e) {
    std::string m = e.what();
    EXPECT_EQ(e.http_status(), 403);
    EXPECT_EQ(e.code(), "SignatureDoesNotMatch") << m;
    EXPECT_NE(m.find("s3://ember/auth/a b.txt"), std::string::npos) << m;
    EXPECT_NE(m.find(id), std::string::npos) << m;  // the key id helps; it is not a secret
    EXPECT_EQ(m.find(wrong), std::string::npos) << m;
  }
  EXPECT_EQ(logs.all().find(wrong), std::string::npos);
  s3::S3Client unknown(options().access_key_id("AKIAUNKNOWNKEY000000").secret_access_key(wrong));
  EXPECT_ERROR_WITH(unknown.list_objects("ember", "auth"), "HTTP 403");
}

// ---- against the fault-injecting server ----------------------------------------------------

class S3Faults : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new Child({"python3", kTestsDir + "/data/s3_fault_server.py"}, true);
    std::string line = server_->read_line();
    if (line.rfind("PORT ", 0) == 0) port_ = std::stoi(line.substr(5));
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    ASSERT_GT(port_, 0) << "tests/data/s3_fault_server.py did not start";
    ASSERT_NE(raw_http(port_, "POST", "/__reset"), "");
  }
  static void faults(const std::string& json) { ASSERT_NE(raw_http(port_, "POST", "/__faults", json), ""); }
  static void reset() { ASSERT_NE(raw_http(port_, "POST", "/__reset"), ""); }
  // The requests the server saw (its JSON log), for counting attempts.
  static std::string requests() {
    std::string r = raw_http(port_, "GET", "/__requests");
    return r.substr(r.find("\r\n\r\n") + 4);
  }
  static size_t count(const std::string& hay, const std::string& needle) {
    size_t n = 0;
    for (size_t p = 0; (p = hay.find(needle, p)) != std::string::npos; p += needle.size()) ++n;
    return n;
  }
  static s3::S3Options options() {
    return s3::S3Options().endpoint_url("http://127.0.0.1:" + std::to_string(port_)).region("us-east-1")
        .access_key_id("AKIDFAULTTEST").secret_access_key(kSecret).session_token(kToken).backoff_base_ms(5)
        .backoff_max_ms(50).request_timeout_ms(5000);
  }
  static constexpr const char* kSecret = "FaultTestSecretKey/abcdefghij";
  static constexpr const char* kToken = "FaultTestSessionToken+0123456789";
  static inline Child* server_ = nullptr;
  static inline int port_ = 0;
};

TEST_F(S3Faults, RetriesServerErrorsAndThrottlingThenSucceeds) {
  LogSink logs;
  s3::S3Client c(options().log(logs.fn()));
  c.put_object("b", "k", "payload");
  faults(R"([{"kind": "status", "status": 500, "code": "InternalError", "method": "GET"},
             {"kind": "slowdown", "method": "GET"},
             {"kind": "status", "status": 429, "code": "TooManyRequests", "method": "GET"},
             {"kind": "status", "status": 400, "code": "RequestTimeout", "method": "GET"}])");
  EXPECT_EQ(c.get_object("b", "k"), "payload");
  EXPECT_EQ(count(requests(), "\"GET\""), 5u);
  std::string log = logs.all();
  EXPECT_EQ(count(log, "retrying in"), 4u) << log;
  EXPECT_NE(log.find("503 SlowDown: Please reduce your request rate."), std::string::npos) << log;
}

TEST_F(S3Faults, GivesUpAfterMaxAttempts) {
  s3::S3Client c(options().max_attempts(3));
  c.put_object("b", "k", "payload");
  faults(R"([{"kind": "slowdown", "count": 100}])");
  try {
    c.get_object("b", "k");
    FAIL() << "expected an error";
  } catch (const s3::S3Error& e) {
    std::string m = e.what();
    EXPECT_EQ(e.http_status(), 503);
    EXPECT_EQ(e.code(), "SlowDown");
    EXPECT_NE(m.find("s3://b/k"), std::string::npos) << m;
    EXPECT_NE(m.find("gave up after 3 attempts"), std::string::npos) << m;
  }
  EXPECT_EQ(count(requests(), "\"GET\""), 3u);
}

TEST_F(S3Faults, ClientErrorsAreNotRetried) {
  s3::S3Client c(options());
  faults(R"([{"kind": "status", "status": 400, "code": "InvalidArgument", "message": "bad thing", "count": 10}])");
  EXPECT_ERROR_WITH(c.get_object("b", "k"), "HTTP 400 InvalidArgument: bad thing");
  EXPECT_EQ(count(requests(), "\"GET\""), 1u);
  reset();
  EXPECT_ERROR_WITH(c.get_object("b", "missing"), "s3://b/missing: HTTP 404 NoSuchKey");
  EXPECT_EQ(count(requests(), "\"GET\""), 1u);
}

TEST_F(S3Faults, DroppedConnectionsAreRetriedAndResumed) {
  LogSink logs;
  s3::S3Client c(options().log(logs.fn()));
  const std::string data = random_bytes(300000, 7);
  s3::S3Client(options()).put_object("b", "drop", data);
  // Closed without an answer. (A fresh client: on a reused keep-alive connection curl
  // itself would quietly retry once.)
  faults(R"([{"kind": "drop", "method": "GET"}])");
  EXPECT_TRUE(c.get_object("b", "drop") == data);
  EXPECT_NE(logs.all().find("Empty reply from server"), std::string::npos) << logs.all();
  // Half the body, then the connection closes: the retry asks only for the rest.
  faults(R"([{"kind": "drop_mid", "method": "GET"}])");
  EXPECT_TRUE(c.get_object("b", "drop") == data);
  std::string seen = requests();
  EXPECT_NE(seen.find("\"range\": \"bytes=150000-\""), std::string::npos) << seen;
  // Ranged reads resume too.
  faults(R"([{"kind": "drop_mid", "method": "GET"}])");
  EXPECT_TRUE(c.get_object_range("b", "drop", 1000, 5000) == data.substr(1000, 5000));
  EXPECT_NE(requests().find("\"range\": \"bytes=3500-5999\""), std::string::npos) << requests();
  // A server that ignores Range is caught, not trusted.
  faults(R"([{"kind": "no_range", "method": "GET"}])");
  EXPECT_ERROR_WITH(c.get_object_range("b", "drop", 1000, 10), "ignored the Range header");
  EXPECT_EQ(count(logs.all(), "retrying in"), 3u) << logs.all();
  EXPECT_NE(logs.all().find("ignored the Range header"), std::string::npos) << logs.all();
}

TEST_F(S3Faults, SinkExceptionsReachTheCallerUnretried) {
  s3::S3Client c(options());
  c.put_object("b", "k", "payload");
  EXPECT_THROW(c.get_object("b", "k", [](const char*, size_t) { throw std::range_error("consumer is full"); }),
               std::range_error);
  EXPECT_EQ(count(requests(), "\"GET\""), 1u);
  EXPECT_EQ(c.get_object("b", "k"), "payload");  // the client is still usable
}

TEST_F(S3Faults, StalledRequestsTimeOut) {
  s3::S3Client c(options().request_timeout_ms(1000).max_attempts(1));
  c.put_object("b", "k", "payload");
  faults(R"([{"kind": "stall", "seconds": 8, "method": "GET"}])");
  EXPECT_ERROR_WITH(c.get_object("b", "k"), "no data for 1000 ms (request_timeout_ms)");
  // With a second attempt the stall is survived.
  s3::S3Client retrying(options().request_timeout_ms(1000).max_attempts(2));
  faults(R"([{"kind": "stall", "seconds": 8, "method": "GET"}])");
  EXPECT_EQ(retrying.get_object("b", "k"), "payload");
  // Nothing listens: a connection error, retried, then reported.
  s3::S3Client nowhere(options().endpoint_url("http://127.0.0.1:" + std::to_string(free_port())).max_attempts(2));
  EXPECT_ERROR_WITH(nowhere.get_object("b", "k"), "gave up after 2 attempts");
}

TEST_F(S3Faults, CredentialsNeverLeak) {
  LogSink logs;
  s3::S3Client c(options().log(logs.fn()).max_attempts(2));
  // The server echoes the Authorization header and the session token into its error
  // body (as S3's SignatureDoesNotMatch does with the canonical request).
  faults(R"([{"kind": "status", "status": 503, "code": "SlowDown", "message": "slow", "count": 1},
             {"kind": "status", "status": 403, "code": "SignatureDoesNotMatch", "message": "no", "count": 1}])");
  std::string msg;
  try {
    c.get_object("b", "k");
  } catch (const s3::S3Error& e) {
    msg = e.what();
  }
  ASSERT_NE(msg, "");
  EXPECT_NE(msg.find("HTTP 403 SignatureDoesNotMatch: no"), std::string::npos) << msg;
  EXPECT_NE(msg.find("s3://b/k"), std::string::npos) << msg;
  std::string everything = msg + logs.all();
  for (const char* secret : {kSecret, kToken, "Signature=", "Authorization", "AWS4-HMAC-SHA256"})
    EXPECT_EQ(everything.find(secret), std::string::npos) << secret << " leaked: " << everything;
  EXPECT_NE(logs.all().find("retrying"), std::string::npos);
}

TEST_F(S3Faults, MalformedListingIsAClearError) {
  s3::S3Client c(options());
  faults(R"([{"kind": "status", "status": 200, "body": "<ListBucketResult><Contents><Key>k</Key>"}])");
  EXPECT_ERROR_WITH(c.list_objects("b", "p/"), "malformed XML in ListObjectsV2 response for s3://b/p/");
  faults(R"([{"kind": "status", "status": 200, "body": "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>"}])");
  EXPECT_ERROR_WITH(c.list_objects("b", "p/"), "no NextContinuationToken");
  faults(R"([{"kind": "status", "status": 200, "body": "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>"}])");
  EXPECT_ERROR_WITH(c.list_objects("b", "p/"), "<Size> of key 'k'");
  faults(R"([{"kind": "status", "status": 200, "body": "<html>proxy</html>"}])");
  EXPECT_ERROR_WITH(c.list_objects("b", "p/"), "expected <ListBucketResult>");
}

TEST_F(S3Faults, StreamRetriesPartsAndReportsAFailedPartInOrder) {
  s3::S3Client c(options().part_size(1 << 20).max_in_flight(3).max_attempts(2));
  const std::string data = random_bytes(4 << 20, 3);
  c.put_object("b", "parts", data);
  // One failure per part is retried; the stream is still byte-exact.
  faults(R"([{"kind": "slowdown", "range_start": 0}, {"kind": "drop_mid", "range_start": 1048576},
             {"kind": "drop", "range_start": 3145728}])");
  EXPECT_TRUE(s3::open_object(c, "b", "parts")->read_all() == data);
  // Part 2 fails for good: the reader gets parts 0 and 1 intact, then the error.
  faults(R"([{"kind": "status", "status": 500, "code": "InternalError", "range_start": 2097152, "count": 10}])");
  auto s = s3::open_object(c, "b", "parts");
  std::string got, buf(300000, '\0');
  try {
    while (size_t k = s->read(buf.data(), buf.size())) got.append(buf.data(), k);
    FAIL() << "expected an error";
  } catch (const s3::S3Error& e) {
    EXPECT_NE(std::string(e.what()).find("s3://b/parts: gave up after 2 attempts: HTTP 500"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(got.size(), 2u << 20);
  EXPECT_TRUE(got == data.substr(0, 2 << 20));
  EXPECT_THROW(s->read(buf.data(), 1), s3::S3Error);  // and it stays failed
  reset();
  // An object replaced mid-read fails instead of mixing versions (If-Match on each part).
  auto t = s3::open_object(c, "b", "parts");
  EXPECT_EQ(t->read(buf.data(), 10), 10u);
  c.put_object("b", "parts", random_bytes(4 << 20, 4));
  EXPECT_ERROR_WITH(drain(*t, 1 << 20), "HTTP 412");
  // Dropping a stream whose part is stalled returns promptly (the transfer is cancelled).
  faults(R"([{"kind": "stall", "seconds": 30, "range_start": 1048576}])");
  auto u = s3::open_object(c, "b", "parts");
  EXPECT_EQ(u->read(buf.data(), 10), 10u);
  u.reset();
}

// ---- DataPipes: S3FileLister and S3FileLoader --------------------------------------------

TEST_F(S3Moto, FileListerAndLoaderPipes) {
  namespace dp = ember::data::datapipes;
  s3::S3Client c = client();
  c.create_bucket("pipes");
  std::map<std::string, std::string> files;  // url -> content
  for (int i = 0; i < 30; ++i) {
    std::string key = "train/" + std::string(i % 2 ? "a/" : "b/") + "part-" + std::to_string(100 + i) + ".csv";
    files["s3://pipes/" + key] = "x,y\n" + std::to_string(i) + "," + std::to_string(i * i) + "\n";
    c.put_object("pipes", key, files["s3://pipes/" + key]);
  }
  c.put_object("pipes", "train/README.md", "not data");
  c.put_object("pipes", "val/part-0.csv", "x,y\n0,0\n");
  files["s3://pipes/val/part-0.csv"] = "x,y\n0,0\n";

  auto opts = options().max_keys(7).part_size(5).max_in_flight(2);  // pages of 7 keys, 5-byte parts
  auto prefixes = dp::IterableWrapper<std::string>({"s3://pipes/train/", "s3://pipes/val/"});
  auto lister = dp::list_files_by_s3(prefixes, opts, {"*.csv"});
  std::vector<std::string> urls;
  for (const std::string& u : lister) urls.push_back(u);
  std::vector<std::string> want;
  for (const auto& kv : files) want.push_back(kv.first);  // std::map order is S3's key order
  EXPECT_EQ(urls, want);

  auto loader = dp::load_files_by_s3(lister, opts);
  size_t n = 0;
  for (auto& [url, stream] : loader) {
    EXPECT_EQ(stream->name(), url);
    EXPECT_EQ(stream->read_all(), files.at(url)) << url;
    ++n;
  }
  EXPECT_EQ(n, files.size());

  // Checkpoint after 5 elements and resume: the same remaining URLs, in order.
  auto it = lister.begin();
  for (int i = 0; i < 4; ++i) ++it;
  auto state = lister.state();
  std::vector<std::string> rest;
  for (++it; it != lister.end(); ++it) rest.push_back(*it);
  lister.load_state(state);
  std::vector<std::string> resumed;
  for (const std::string& u : lister) resumed.push_back(u);
  EXPECT_EQ(resumed, rest);
  EXPECT_EQ(resumed.size(), want.size() - 5);

  // Sharded across two worker threads, then two worker processes (forked after this
  // process's client has live connections: each child opens its own): every object once.
  c.put_object("pipes", "train/probe.csv", "p");  // keep the pool's connections warm
  for (bool processes : {false, true}) {
    auto contents = lister.sharding_filter().load_files_by_s3(opts).map([](std::pair<std::string, std::shared_ptr<ember::data::io::InputStream>> p) {
      return p.first + "=" + p.second->read_all();
    });
    ember::data::DataLoader2 dl(contents, std::make_shared<ember::data::MultiProcessingReadingService>(
                                              2, 2, nullptr, true, std::nullopt, processes));
    std::multiset<std::string> got;
    for (const std::string& x : dl) got.insert(x);
    std::multiset<std::string> expect;
    for (const std::string& u : lister) expect.insert(u + "=" + (u == "s3://pipes/train/probe.csv" ? "p" : files.at(u)));
    EXPECT_EQ(got, expect) << (processes ? "worker processes" : "worker threads");
  }

  // Errors name what failed: a missing object when its stream is read, a bad URL, a
  // missing bucket.
  auto missing = dp::S3FileLoader(dp::IterableWrapper<std::string>({"s3://pipes/no/such.csv"}), opts);
  for (auto& [url, stream] : missing) EXPECT_ERROR_WITH(stream->read_all(), "s3://pipes/no/such.csv");
  auto bad = dp::S3FileLoader(dp::IterableWrapper<std::string>({"pipes/x.csv"}), opts);
  EXPECT_ERROR_WITH(bad.begin(), "expected a URL like s3://bucket/key");
  auto nobucket = dp::S3FileLister(dp::IterableWrapper<std::string>({"s3://nope/x/"}), opts);
  EXPECT_ERROR_WITH(nobucket.begin(), "NoSuchBucket");
  EXPECT_ERROR_WITH(dp::S3FileLister(prefixes, s3::S3Options().endpoint_url("ftp://x")), "http://");
}
