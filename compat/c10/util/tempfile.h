// LibTorch compatibility: c10::make_tempfile / make_tempdir, temporary files and directories
// created under $TMPDIR (or $TMP, $TEMP, $TEMPDIR, else /tmp) and removed when their owner goes
// out of scope. The try_ forms return nullopt where creation fails; the others throw c10::Error
// naming the path and the system's reason.
#pragma once
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "c10/util/Exception.h"

namespace c10 {
namespace compat_detail {
inline std::vector<char> make_filename(const std::string& name_prefix) {
  std::string dir = "/tmp";
  for (const char* var : {"TMPDIR", "TMP", "TEMP", "TEMPDIR"}) {
    if (const char* path = std::getenv(var)) {
      dir = path;
      break;
    }
  }
  std::string name = dir + "/" + name_prefix + "XXXXXX";
  return std::vector<char>(name.c_str(), name.c_str() + name.size() + 1);
}
}  // namespace compat_detail

struct TempFile {
  TempFile() = default;
  TempFile(std::string name, int fd) : fd(fd), name(std::move(name)) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  TempFile(TempFile&& other) noexcept : fd(std::exchange(other.fd, -1)), name(std::move(other.name)) {
    other.name.clear();
  }
  TempFile& operator=(TempFile&& other) noexcept {
    if (this != &other) {
      reset();
      fd = std::exchange(other.fd, -1);
      name = std::move(other.name);
      other.name.clear();
    }
    return *this;
  }
  ~TempFile() { reset(); }

  int fd = -1;
  std::string name;

 private:
  void reset() {
    if (fd >= 0) {
      ::unlink(name.c_str());
      ::close(fd);
      fd = -1;
    }
  }
};

struct TempDir {
  TempDir() = default;
  explicit TempDir(std::string name) : name(std::move(name)) {}
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&& other) noexcept : name(std::move(other.name)) { other.name.clear(); }
  TempDir& operator=(TempDir&& other) noexcept {
    if (this != &other) {
      if (!name.empty()) ::rmdir(name.c_str());
      name = std::move(other.name);
      other.name.clear();
    }
    return *this;
  }
  // Removes the directory if it is empty again (as LibTorch does: rmdir, not a recursive delete).
  ~TempDir() {
    if (!name.empty()) ::rmdir(name.c_str());
  }

  std::string name;
};

inline std::optional<TempFile> try_make_tempfile(std::string name_prefix = "torch-file-") {
  std::vector<char> filename = compat_detail::make_filename(name_prefix);
  int fd = ::mkstemp(filename.data());
  if (fd == -1) return std::nullopt;
  return TempFile(std::string(filename.data()), fd);
}

inline TempFile make_tempfile(std::string name_prefix = "torch-file-") {
  std::vector<char> filename = compat_detail::make_filename(name_prefix);
  int fd = ::mkstemp(filename.data());
  if (fd == -1)
    throw Error(::ember::detail::str_cat("c10::make_tempfile: cannot create ", filename.data(),
                                         ": ", std::strerror(errno)));
  return TempFile(std::string(filename.data()), fd);
}

inline std::optional<TempDir> try_make_tempdir(std::string name_prefix = "torch-dir-") {
  std::vector<char> dirname = compat_detail::make_filename(name_prefix);
  if (::mkdtemp(dirname.data()) == nullptr) return std::nullopt;
  return TempDir(std::string(dirname.data()));
}

inline TempDir make_tempdir(std::string name_prefix = "torch-dir-") {
  std::vector<char> dirname = compat_detail::make_filename(name_prefix);
  if (::mkdtemp(dirname.data()) == nullptr)
    throw Error(::ember::detail::str_cat("c10::make_tempdir: cannot create ", dirname.data(),
                                         ": ", std::strerror(errno)));
  return TempDir(std::string(dirname.data()));
}

}  // namespace c10
