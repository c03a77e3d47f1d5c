// .str() functions with patterns: contains, replace (literal or regex), match, fullmatch and
// findall, through RE2 (linear-time matching; RE2's syntax, see Note [Unicode in .str]).
#include <re2/re2.h>

#include <memory>

#include "ember/frame/compute/compute.h"
#include "ember/frame/compute/string_util.h"
#include "ember/frame/compute/unicode.h"

namespace ember::frame {

using namespace compute_detail;

namespace {

std::unique_ptr<RE2> compile(const char* op, std::string_view pattern) {
  RE2::Options opts;
  opts.set_log_errors(false);
  auto re = std::make_unique<RE2>(re2::StringPiece(pattern.data(), pattern.size()), opts);
  EMBER_CHECK(re->ok(), op, ": invalid regular expression '", pattern, "': ", re->error());
  return re;
}

inline std::string_view view(const re2::StringPiece& p) { return {p.data(), p.size()}; }

// Calls on_match(match, groups) for successive matches of re in s, and on_gap(text) for the
// text between them; an empty match right at the end of the previous match is skipped, moving
// on one code point (RE2's GlobalReplace rule, which pandas' default string dtype follows).
// At most `limit` matches when limit >= 0.
template <class OnMatch, class OnGap>
void scan(const RE2& re, std::string_view s, int64_t limit, int ngroups, const OnMatch& on_match, const OnGap& on_gap) {
  const re2::StringPiece text(s.data(), s.size());
  std::vector<re2::StringPiece> groups(size_t(ngroups) + 1);
  size_t p = 0;
  size_t last_end = std::string_view::npos;
  int64_t count = 0;
  while (p <= s.size()) {
    if (limit >= 0 && count >= limit) break;
    if (!re.Match(text, p, s.size(), RE2::UNANCHORED, groups.data(), int(groups.size()))) break;
    const size_t mb = size_t(groups[0].data() - s.data());
    const size_t me = mb + groups[0].size();
    if (mb > p) on_gap(s.substr(p, mb - p));
    if (mb == last_end && groups[0].empty()) {
      if (p >= s.size()) break;
      const size_t step = size_t(unicode::sequence_length(uint8_t(s[p])));
      on_gap(s.substr(p, step));
      p += step;
      continue;
    }
    on_match(groups);
    p = me;
    last_end = me;
    ++count;
  }
  if (p < s.size()) on_gap(s.substr(p));
}

// RE2's rewrite syntax: \0 .. \9 name groups, \\ is a backslash.
void rewrite(std::string& out, std::string_view repl, const std::vector<re2::StringPiece>& groups) {
  for (size_t i = 0; i < repl.size(); ++i) {
    const char c = repl[i];
    if (c == '\\' && i + 1 < repl.size()) {
      const char d = repl[i + 1];
      if (d >= '0' && d <= '9') {
        const size_t g = size_t(d - '0');
        if (g < groups.size()) out.append(view(groups[g]));
        ++i;
        continue;
      }
      if (d == '\\') {
        out += '\\';
        ++i;
        continue;
      }
    }
    out += c;
  }
}

// Python's str.replace(old, new, count): an empty `old` inserts `new` around every code point.
void literal_replace(std::string& out, std::string_view s, std::string_view pat, std::string_view repl, int64_t n) {
  int64_t count = 0;
  if (pat.empty()) {
    size_t i = 0;
    while (true) {
      if (n >= 0 && count >= n) break;
      out.append(repl);
      ++count;
      if (i >= s.size()) {
        i = s.size() + 1;
        break;
      }
      const size_t step = size_t(unicode::sequence_length(uint8_t(s[i])));
      out.append(s.substr(i, step));
      i += step;
    }
    if (i < s.size()) out.append(s.substr(i));
    return;
  }
  size_t pos = 0;
  while (n < 0 || count < n) {
    const size_t f = s.find(pat, pos);
    if (f == std::string_view::npos) break;
    out.append(s.substr(pos, f - pos));
    out.append(repl);
    pos = f + pat.size();
    ++count;
  }
  out.append(s.substr(pos));
}

}  // namespace

Column StringMethods::contains(std::string_view pat, bool regex) const {
  const ArrayData& a = *c_.data();
  if (!regex) return string_predicate(a, [pat](std::string_view s) { return s.find(pat) != std::string_view::npos; });
  const auto re = compile("str.contains", pat);
  return string_predicate(a, [&](std::string_view s) {
    return RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *re);
  });
}

Column StringMethods::match(std::string_view pattern) const {
  const auto re = compile("str.match", pattern);
  return string_predicate(*c_.data(), [&](std::string_view s) {
    return re->Match(re2::StringPiece(s.data(), s.size()), 0, s.size(), RE2::ANCHOR_START, nullptr, 0);
  });
}

Column StringMethods::fullmatch(std::string_view pattern) const {
  const auto re = compile("str.fullmatch", pattern);
  return string_predicate(*c_.data(), [&](std::string_view s) {
    return re->Match(re2::StringPiece(s.data(), s.size()), 0, s.size(), RE2::ANCHOR_BOTH, nullptr, 0);
  });
}

Column StringMethods::replace(std::string_view pat, std::string_view repl, bool regex, int64_t n) const {
  const ArrayData& a = *c_.data();
  const StringAccess s = string_access(a);
  if (!regex) {
    return build_strings("str.replace", a.type, a.length, [&](int64_t i, std::string& out) {
      if (!a.is_valid(i)) return false;
      literal_replace(out, s.get(i), pat, repl, n);
      return true;
    });
  }
  const auto re = compile("str.replace", pat);
  const int ngroups = re->NumberOfCapturingGroups();
  for (size_t i = 0; i + 1 < repl.size(); ++i) {
    if (repl[i] != '\\') continue;
    const char d = repl[i + 1];
    EMBER_CHECK(!(d >= '0' && d <= '9') || d - '0' <= ngroups, "str.replace: the replacement '", repl,
                "' refers to group \\", d, " but the pattern '", pat, "' has ", ngroups, " groups");
    ++i;
  }
  return build_strings("str.replace", a.type, a.length, [&](int64_t i, std::string& out) {
    if (!a.is_valid(i)) return false;
    scan(
        *re, s.get(i), n, ngroups, [&](const std::vector<re2::StringPiece>& g) { rewrite(out, repl, g); },
        [&](std::string_view gap) { out.append(gap); });
    return true;
  });
}

Column StringMethods::findall(std::string_view pattern) const {
  const auto re = compile("str.findall", pattern);
  const int ngroups = re->NumberOfCapturingGroups();
  EMBER_CHECK(ngroups <= 1, "str.findall: the pattern '", pattern, "' has ", ngroups,
              " groups; use at most one (its text is what findall returns)");
  const ArrayData& a = *c_.data();
  const StringAccess s = string_access(a);
  StringListOutput out(a.length);
  for (int64_t i = 0; i < a.length; ++i) {
    const bool valid = a.is_valid(i);
    if (valid) {
      scan(
          *re, s.get(i), -1, ngroups,
          [&](const std::vector<re2::StringPiece>& g) { out.add(view(g[size_t(ngroups)])); },
          [](std::string_view) {});
    }
    out.end_row(valid);
  }
  return out.finish("str.findall", a.type.nullable(), a.type.id() == TypeId::LargeString);
}

}  // namespace ember::frame
