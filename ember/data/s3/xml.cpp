// The S3 XML reader (xml.h): one pass over the document with an explicit element stack.
#include "ember/data/s3/xml.h"

#include <cstring>

#include "ember/core/error.h"
#include "ember/core/utf8.h"

namespace ember::data::s3 {

namespace {

constexpr size_t kMaxDepth = 64;

struct Parser {
  std::string_view s;
  std::string_view what;
  size_t i = 0;

  [[noreturn]] void fail(const char* msg) const {
    EMBER_ERROR("s3: malformed XML in ", what, " at byte ", i, ": ", msg);
  }
  bool starts(std::string_view p) const { return s.substr(i, p.size()) == p; }
  // Moves past the next occurrence of `end`; fails if there is none.
  void skip_past(std::string_view end, const char* msg) {
    size_t j = s.find(end, i);
    if (j == std::string_view::npos) fail(msg);
    i = j + end.size();
  }

  // Character data up to the next '<', entities decoded, appended to `out`.
  void text(std::string& out) {
    while (i < s.size() && s[i] != '<') {
      if (s[i] != '&') {
        out.push_back(s[i++]);
        continue;
      }
      size_t semi = s.find(';', i);
      if (semi == std::string_view::npos || semi - i > 12) fail("unterminated entity");
      std::string_view ent = s.substr(i + 1, semi - i - 1);
      if (ent == "amp") out.push_back('&');
      else if (ent == "lt") out.push_back('<');
      else if (ent == "gt") out.push_back('>');
      else if (ent == "quot") out.push_back('"');
      else if (ent == "apos") out.push_back('\'');
      else if (ent.size() >= 2 && ent[0] == '#') {
        bool hex = ent[1] == 'x' || ent[1] == 'X';
        std::string_view digits = ent.substr(hex ? 2 : 1);
        if (digits.empty()) fail("empty character reference");
        unsigned long cp = 0;
        for (char c : digits) {
          int d = (c >= '0' && c <= '9') ? c - '0'
                  : hex && (c >= 'a' && c <= 'f') ? c - 'a' + 10
                  : hex && (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                  : -1;
          if (d < 0) fail("bad character reference");
          cp = cp * (hex ? 16 : 10) + d;
          if (cp > 0x10FFFF) fail("character reference out of range");
        }
        ember::utf8::append(out, cp);
      } else {
        fail("unknown entity");
      }
      i = semi + 1;
    }
  }

  std::string_view name() {
    size_t b = i;
    while (i < s.size() && !std::strchr(" \t\r\n/>", s[i])) ++i;
    if (i == b) fail("expected an element name");
    std::string_view n = s.substr(b, i - b);
    size_t colon = n.rfind(':');
    return colon == std::string_view::npos ? n : n.substr(colon + 1);
  }

  // Skips attributes up to and including '>' (or "/>"); returns true for "/>".
  bool rest_of_tag() {
    while (i < s.size()) {
      char c = s[i];
      if (c == '"' || c == '\'') {
        size_t j = s.find(c, i + 1);
        if (j == std::string_view::npos) fail("unterminated attribute value");
        i = j + 1;
      } else if (c == '>') {
        ++i;
        return false;
      } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '>') {
        i += 2;
        return true;
      } else {
        ++i;
      }
    }
    fail("unterminated tag");
  }

  // Prolog, comments, processing instructions and DOCTYPE; true if something was skipped.
  bool misc() {
    if (starts("<?")) skip_past("?>", "unterminated processing instruction");
    else if (starts("<!--")) skip_past("-->", "unterminated comment");
    else if (starts("<!DOCTYPE")) skip_past(">", "unterminated DOCTYPE");
    else return false;
    return true;
  }

  XmlNode document() {
    std::vector<XmlNode> stack;
    XmlNode root;
    bool have_root = false;
    while (i < s.size()) {
      if (stack.empty()) {
        // Outside the root: only whitespace and markup that is skipped.
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n' || (i == 0 && starts("\xEF\xBB\xBF"))) {
          i += starts("\xEF\xBB\xBF") ? 3 : 1;
          continue;
        }
        if (misc()) continue;
        if (s[i] != '<' || have_root) fail(have_root ? "content after the root element" : "expected '<'");
      }
      if (s[i] != '<') {
        text(stack.back().text);
        continue;
      }
      if (misc()) continue;
      if (starts("<![CDATA[")) {
        // Character data belongs to an element: outside the root it is malformed (and there
        // is no element to append it to).
        if (stack.empty()) fail("CDATA section outside the root element");
        size_t b = i + 9;
        skip_past("]]>", "unterminated CDATA section");
        stack.back().text.append(s.substr(b, i - 3 - b));
        continue;
      }
      if (starts("</")) {
        i += 2;
        std::string_view n = name();
        if (stack.empty() || n != stack.back().name) fail("mismatched end tag");
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
        if (i >= s.size() || s[i] != '>') fail("expected '>'");
        ++i;
        XmlNode done = std::move(stack.back());
        stack.pop_back();
        if (stack.empty()) {
          root = std::move(done);
          have_root = true;
        } else {
          stack.back().children.push_back(std::move(done));
        }
        continue;
      }
      ++i;  // '<'
      XmlNode node;
      node.name = std::string(name());
      bool empty = rest_of_tag();
      if (empty) {
        if (stack.empty()) {
          root = std::move(node);
          have_root = true;
        } else {
          stack.back().children.push_back(std::move(node));
        }
      } else {
        if (stack.size() >= kMaxDepth) fail("elements nested too deeply");
        stack.push_back(std::move(node));
      }
    }
    if (!stack.empty()) fail("unexpected end of document");
    if (!have_root) fail("no root element");
    return root;
  }
};

}  // namespace

const XmlNode* XmlNode::child(std::string_view n) const {
  for (const XmlNode& c : children)
    if (c.name == n) return &c;
  return nullptr;
}

std::string XmlNode::child_text(std::string_view n) const {
  const XmlNode* c = child(n);
  return c ? c->text : std::string();
}

XmlNode parse_xml(std::string_view doc, std::string_view what) {
  Parser p{doc, what};
  return p.document();
}

}  // namespace ember::data::s3
