#include "ember/data/io/files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "ember/core/error.h"
#include "ember/serialize/safetensors.h"

namespace ember::data::io {

namespace fs = std::filesystem;

namespace {

// One `[...]` set starting at pattern[i] == '['. Returns the index just past its ']', or
// npos when the set is not closed (then '[' is a literal character, as in Python).
size_t match_set(std::string_view pat, size_t i, unsigned char c, bool& matched) {
  size_t j = i + 1;
  bool negate = false;
  if (j < pat.size() && pat[j] == '!') {
    negate = true;
    ++j;
  }
  // A ']' first in the set is a member, not the end.
  size_t k = j;
  if (k < pat.size() && pat[k] == ']') ++k;
  while (k < pat.size() && pat[k] != ']') ++k;
  if (k >= pat.size()) return std::string_view::npos;
  bool in = false;
  for (size_t p = j; p < k;) {
    const unsigned char lo = pat[p];
    if (p + 2 < k && pat[p + 1] == '-') {  // a range; lo > hi is empty (Python drops it)
      const unsigned char hi = pat[p + 2];
      in |= lo <= c && c <= hi;
      p += 3;
    } else {
      in |= lo == c;
      ++p;
    }
  }
  matched = in != negate;
  return k + 1;
}

// Matches one pattern element (not '*') at pattern[pi] against c; returns the next pattern
// index, or npos when it does not match.
size_t match_one(std::string_view pat, size_t pi, unsigned char c) {
  if (pat[pi] == '?') return pi + 1;
  if (pat[pi] == '[') {
    bool matched = false;
    const size_t next = match_set(pat, pi, c, matched);
    if (next != std::string_view::npos) return matched ? next : std::string_view::npos;
  }
  return static_cast<unsigned char>(pat[pi]) == c ? pi + 1 : std::string_view::npos;
}

// os.path.join(dir, name) for the paths we build.
std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

void walk(const std::string& dir, const std::vector<std::string>& masks, bool recursive,
          std::vector<std::string>& out) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  EMBER_CHECK(!ec, "list_files: cannot read directory '", dir, "': ", ec.message());
  std::vector<std::string> files, dirs;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& e = *it;
    std::error_code sec;
    const bool is_dir = e.is_directory(sec);  // follows symlinks, as os.walk's is_dir()
    std::string name = e.path().filename().string();
    if (is_dir) {
      if (!e.is_symlink(sec)) dirs.push_back(std::move(name));
    } else {
      files.push_back(std::move(name));
    }
  }
  EMBER_CHECK(!ec, "list_files: cannot read directory '", dir, "': ", ec.message());
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    if (match_masks(f, masks)) out.push_back(join(dir, f));
  if (!recursive) return;
  std::sort(dirs.begin(), dirs.end());
  for (const auto& d : dirs) walk(join(dir, d), masks, recursive, out);
}

}  // namespace

bool fnmatch(std::string_view name, std::string_view pat) {
  // Greedy matching with one backtrack point: on a mismatch, the last '*' absorbs one more
  // character. Linear in name.size() * pattern.size() at worst, never exponential.
  size_t ni = 0, pi = 0;
  size_t star_pi = std::string_view::npos, star_ni = 0;
  while (ni < name.size()) {
    if (pi < pat.size() && pat[pi] == '*') {
      star_pi = ++pi;
      star_ni = ni;
      continue;
    }
    if (pi < pat.size()) {
      const size_t next = match_one(pat, pi, static_cast<unsigned char>(name[ni]));
      if (next != std::string_view::npos) {
        pi = next;
        ++ni;
        continue;
      }
    }
    if (star_pi == std::string_view::npos) return false;
    pi = star_pi;
    ni = ++star_ni;
  }
  while (pi < pat.size() && pat[pi] == '*') ++pi;
  return pi == pat.size();
}

bool match_masks(std::string_view name, const std::vector<std::string>& masks) {
  if (masks.empty()) return true;
  for (const auto& m : masks)
    if (m.empty() || fnmatch(name, m)) return true;
  return false;
}

std::vector<std::string> list_files(const std::vector<std::string>& roots, const std::vector<std::string>& masks,
                                    bool recursive, bool abspath) {
  std::vector<std::string> out;
  for (const auto& given : roots) {
    EMBER_CHECK(!given.empty(), "list_files: empty root path");
    std::string root = given;
    if (abspath) {
      std::error_code ec;
      root = fs::absolute(given, ec).lexically_normal().string();
      EMBER_CHECK(!ec, "list_files: cannot make '", given, "' absolute: ", ec.message());
      if (root.size() > 1 && root.back() == '/') root.pop_back();
    }
    std::error_code ec;
    const fs::file_status st = fs::status(root, ec);
    EMBER_CHECK(fs::exists(st), "list_files: root '", given, "' does not exist",
                ec && ec != std::errc::no_such_file_or_directory ? ": " + ec.message() : std::string());
    if (!fs::is_directory(st)) {
      const size_t slash = root.find_last_of('/');
      if (match_masks(slash == std::string::npos ? root : root.substr(slash + 1), masks)) out.push_back(root);
      continue;
    }
    walk(root, masks, recursive, out);
  }
  return out;
}

void write_file(const std::string& path, const std::string& bytes) {
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    fs::create_directories(parent, ec);
    EMBER_CHECK(!ec, "save_to_disk: cannot create directory '", parent.string(), "' for '", path,
                "': ", ec.message());
  }
  serialize::write_file_atomic(path, bytes);
}

}  // namespace ember::data::io
