// ember/data/s3 sigv4: the SigV4 signer against AWS's published examples, URI encoding and canonical headers.
#include <chrono>
#include <string>

#include "ember/data/s3/sigv4.h"
#include "test_util.h"

namespace s3 = ember::data::s3;

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
