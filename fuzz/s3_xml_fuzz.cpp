// Fuzzes the S3 response parsers (ember/data/s3/xml.h parse_xml, and client.h's
// detail::parse_list_page and detail::parse_error_body, what ListObjectsV2 and every failed
// request run on bodies from the network): errors are ember::Error, never crashes.
#include <algorithm>

#include "ember/data/s3/client.h"
#include "ember/data/s3/xml.h"
#include "fuzz_util.h"

namespace {

using namespace ember;
using namespace ember::data::s3;
namespace s3 = ember::data::s3;

size_t count(const XmlNode& n, int depth) {
  if (depth > 1000) fuzz::fail("s3 xml: a tree deeper than parse_xml's nesting limit");
  size_t k = 1;
  for (const XmlNode& c : n.children) k += count(c, depth + 1);
  return k;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::setup();
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  EMBER_FUZZ_TRY({
    XmlNode root = parse_xml(body, "fuzz input");
    (void)count(root, 0);
    (void)root.child_text("Code");
  });
  EMBER_FUZZ_TRY({
    ListPage page = s3::detail::parse_list_page(body, "fuzz input");
    for (const ObjectInfo& o : page.objects)
      if (o.key.empty()) fuzz::fail("s3: a listed object without a key");
    // Every <Size> accepted is a plain decimal number that fits in 64 bits (leading zeros
    // allowed: the value is what counts).
    for (const XmlNode& c : parse_xml(body, "fuzz input").children) {
      if (c.name != "Contents") continue;
      const std::string s = c.child_text("Size");
      const size_t first = std::min(s.find_first_not_of('0'), s.size() - (s.empty() ? 0 : 1));
      const bool digits = !s.empty() && s.size() - first <= 20 && s.find_first_not_of("0123456789") == std::string::npos;
      if (!digits) fuzz::fail("s3: parse_list_page accepted <Size>" + s + "</Size>");
    }
    if (page.is_truncated && page.next_continuation_token.empty())
      fuzz::fail("s3: a truncated page without a continuation token");
  });
  (void)s3::detail::parse_error_body(body);
  return 0;
}
