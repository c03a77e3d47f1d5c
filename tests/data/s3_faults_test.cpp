// The S3 client's retries, timeouts and errors against tests/data/s3_fault_server.py (5xx, drops, stalls).
#include <stdexcept>
#include <string>

#include "ember/data/s3/client.h"
#include "ember/data/s3/object_stream.h"
#include "s3_test_util.h"
#include "test_util.h"

namespace s3 = ember::data::s3;

using ember::test::Child;
using ember::test::drain;
using ember::test::free_port;
using ember::test::kTestsDir;
using ember::test::LogSink;
using ember::test::random_bytes;
using ember::test::raw_http;

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
