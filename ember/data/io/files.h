// Files on disk for the data layer: listing files under roots with glob masks (TorchData's
// FileLister, whose masks are Python fnmatch patterns on the basename) and writing a file
// atomically (TorchData's save_to_disk).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ember::data::io {

// Python's fnmatch.fnmatchcase: `*` matches any run of characters (including '/' and a
// leading '.'), `?` any one character, `[seq]` / `[!seq]` a set with ranges (`[a-z]`); an
// unclosed '[' and a backslash are literal characters. Case-sensitive, byte-wise.
bool fnmatch(std::string_view name, std::string_view pattern);
// Whether `name` matches any of `masks`; no masks (or only "") match everything.
bool match_masks(std::string_view name, const std::vector<std::string>& masks);

// The files under `roots`, in TorchData's deterministic order: per root, a directory's files
// sorted by name, then (when recursive) each subdirectory in name order, depth first.
// A root that is a file is listed itself when its basename matches. Paths are the root
// joined with the relative path ("data/a.csv"), absolute when `abspath`. Everything that is
// not a directory counts as a file (symlinks to files too); symlinked directories are not
// entered (os.walk's default). A missing or unreadable root or subdirectory raises an error
// naming it.
std::vector<std::string> list_files(const std::vector<std::string>& roots,
                                    const std::vector<std::string>& masks = {}, bool recursive = false,
                                    bool abspath = false);
inline std::vector<std::string> list_files(const std::string& root, const std::vector<std::string>& masks = {},
                                           bool recursive = false, bool abspath = false) {
  return list_files(std::vector<std::string>{root}, masks, recursive, abspath);
}

// Writes `bytes` to `path` atomically (a temporary file beside it, fsync, rename), creating
// missing parent directories first. A reader never sees a half-written file.
void write_file(const std::string& path, const std::string& bytes);

}  // namespace ember::data::io
