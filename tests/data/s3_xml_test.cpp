// ember/data/s3 xml: the XML reader, and the ListObjectsV2 pages and error bodies the client parses with it.
#include <cstdint>
#include <string>
#include <utility>

#include "ember/data/s3/client.h"
#include "ember/data/s3/xml.h"
#include "test_util.h"

namespace s3 = ember::data::s3;

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
