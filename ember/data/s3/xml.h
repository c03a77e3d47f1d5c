// A small XML reader for S3 responses (ListBucketResult, Error): elements, text, entities
// and CDATA; attributes, comments, the prolog and DOCTYPE are skipped. Bodies come from
// the network, so every read is bounds-checked and nesting is limited.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ember::data::s3 {

struct XmlNode {
  std::string name;  // local name (a "ns:" prefix is dropped)
  std::string text;  // the element's own character data, entities decoded
  std::vector<XmlNode> children;

  // The first child element called `name`, or nullptr.
  const XmlNode* child(std::string_view name) const;
  // That child's text, or "" when absent.
  std::string child_text(std::string_view name) const;
};

// Parses a whole document and returns its root element. Malformed input raises
// ember::Error naming `what` (e.g. "ListObjectsV2 response for s3://bucket/prefix") and
// the byte offset.
XmlNode parse_xml(std::string_view doc, std::string_view what);

}  // namespace ember::data::s3
