// The .str() accessor of string columns (pandas' Series.str, TorchArrow's StringMethods):
// UTF-8 aware lengths, slices and searches by code point; case mapping and character
// classes from Unicode data; regular expressions through RE2. Null elements give nulls.
//
// Note [Unicode in .str]
// lower/upper apply Unicode's simple (one code point to one code point) case mappings and
// the is* predicates Unicode's character properties, for every code point, from tables
// generated from pyarrow's utf8 kernels (utf8proc), which pandas 3 uses for its default
// string dtype: 'ß'.upper() is 'ẞ' (Python's str.upper gives 'SS'), 'İ'.lower() is 'i',
// and there is no final-sigma rule. ASCII-only data takes a byte-wise fast path. The regex
// functions use RE2's syntax (no backreferences or lookaround; replacement groups are
// \1 .. \9); after an empty match the search resumes one code point further on.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ember/frame/column.h"

namespace ember::frame {

class StringMethods {
 public:
  // A string or large_string column (or a dictionary of strings, decoded).
  explicit StringMethods(const Column& c);

  const Column& column() const { return c_; }

  Column length() const;  // int64 code points (pandas str.len)
  Column len() const { return length(); }
  // Code points [start, stop) with Python's slice rules (negative from the end; step != 0).
  Column slice(std::optional<int64_t> start, std::optional<int64_t> stop = std::nullopt, int64_t step = 1) const;
  // list<string>: split on `sep` (empty: runs of whitespace, dropping empty ends, as Python's
  // str.split()); at most `maxsplit` splits when >= 0.
  Column split(std::string_view sep = "", int64_t maxsplit = -1) const;
  // Strip `chars` (any of its code points; empty: Unicode whitespace) from both / one end.
  Column strip(std::string_view chars = "") const;
  Column lstrip(std::string_view chars = "") const;
  Column rstrip(std::string_view chars = "") const;
  Column lower() const;
  Column upper() const;

  Column startswith(std::string_view prefix) const;
  Column endswith(std::string_view suffix) const;
  // `pat` as a regular expression (pandas' default) or a literal substring.
  Column contains(std::string_view pat, bool regex = true) const;
  // Code point index of the first occurrence of `sub`, or -1 (int64).
  Column find(std::string_view sub) const;
  // Replace occurrences of `pat` (literal unless regex) by `repl`, at most n when n >= 0.
  Column replace(std::string_view pat, std::string_view repl, bool regex = false, int64_t n = -1) const;
  // Whether the regex matches at the start (Python's re.match) / the whole string.
  Column match(std::string_view pattern) const;
  Column fullmatch(std::string_view pattern) const;
  // list<string> of non-overlapping matches (or of group 1 when the pattern has one group).
  Column findall(std::string_view pattern) const;

  // Element-wise concatenation with another string column, `sep` between (null if either is).
  Column cat(const Column& other, std::string_view sep = "") const;
  // All non-null elements joined by `sep` (pandas' s.str.cat(sep=...)).
  std::string cat(std::string_view sep = "") const;

  // Python's str predicates over every code point: false for the empty string.
  Column isalpha() const;
  Column isnumeric() const;
  Column isdigit() const;
  Column isdecimal() const;
  Column isalnum() const;
  Column isspace() const;
  // At least one cased character and none of the other case.
  Column islower() const;
  Column isupper() const;

 private:
  Column c_;
};

}  // namespace ember::frame
