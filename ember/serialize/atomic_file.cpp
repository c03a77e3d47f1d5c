// write_file_atomic and the cleanup of temporaries left by killed writers.
#include "ember/serialize/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ember/core/error.h"

namespace ember::serialize {

// Note [Stale temporaries]
// A writer holds an exclusive flock() on its temporary from creation until the rename; the
// kernel drops that lock when the process dies, however it dies. So a temporary whose lock
// can be taken belongs to nobody alive, and remove_stale_temporaries unlinks it while holding
// the lock (after checking that the name still refers to the file it locked). A writer that
// cannot lock its fresh temporary, or finds it already unlinked, lost a race with a cleaner
// that saw the file between mkstemp and flock: it leaves that name to the cleaner and starts
// over with a new one. A temporary of a live writer is never removed. (A process forked
// while it writes shares the open file and so the lock; its temporary goes once both exit.)

namespace {

constexpr const char* kTmpSuffix = ".tmp-";
constexpr size_t kTmpRandom = 6;  // mkstemp's XXXXXX


struct SplitPath {
  std::string dir;   // "." for a bare file name
  std::string base;  // the last component
};

SplitPath split(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// Creates and locks a fresh temporary for `path`; returns its descriptor and sets `tmp`.
int create_locked_temporary(const std::string& path, std::string& tmp) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    tmp = path + kTmpSuffix + "XXXXXX";
    const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
    EMBER_CHECK(fd >= 0, "save: cannot create a temporary file next to '", path, "': ", errno_text(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      // A file system without flock: write unlocked (its temporaries are then never removed).
      if (errno != EWOULDBLOCK && errno != EINTR) return fd;
    } else {
      struct stat mine {}, named {};
      if (::fstat(fd, &mine) == 0 && ::lstat(tmp.c_str(), &named) == 0 && same_file(mine, named)) return fd;
    }
    ::close(fd);  // a cleaner holds or removed it (Note [Stale temporaries])
  }
  EMBER_ERROR("save: could not create a temporary file next to '", path,
              "' that no other process removed (64 attempts)");
}

}  // namespace

std::vector<std::string> remove_stale_temporaries(const std::string& path) {
  const SplitPath p = split(path);
  const std::string prefix = p.base + kTmpSuffix;
  std::vector<std::string> removed;
  DIR* d = ::opendir(p.dir.c_str());
  if (!d) return removed;  // the write itself reports an unusable directory
  while (const struct dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() != prefix.size() + kTmpRandom || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string full = p.dir == "/" ? "/" + name : p.dir + "/" + name;
    const int fd = ::open(full.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) continue;
    struct stat locked {}, named {};
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::fstat(fd, &locked) == 0 && S_ISREG(locked.st_mode) &&
        ::lstat(full.c_str(), &named) == 0 && same_file(locked, named) && ::unlink(full.c_str()) == 0)
      removed.push_back(full);
    ::close(fd);  // drops the lock
  }
  ::closedir(d);
  return removed;
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
  const SplitPath p = split(path);
  remove_stale_temporaries(path);
  std::string tmp;
  const int fd = create_locked_temporary(path, tmp);
  auto fail = [&](const char* step) {
    const std::string reason = errno_text(errno);
    ::unlink(tmp.c_str());
    ::close(fd);
    EMBER_ERROR("save: ", step, " '", tmp, "' failed: ", reason, " ('", path, "' is unchanged)");
  };
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fail("writing");
    done += size_t(w);
  }
  if (::fchmod(fd, 0644) != 0) fail("setting permissions of");
  if (::fsync(fd) != 0) fail("syncing");
  // Renamed while still locked: a cleaner never sees an unlocked temporary of a live writer.
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("renaming to the target");
  ::close(fd);
  const int dfd = ::open(p.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {  // make the rename durable; best effort where directories cannot be opened
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace ember::serialize
