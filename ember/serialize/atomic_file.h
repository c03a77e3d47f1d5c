// Atomic file replacement for checkpoints and every other file ember writes: a temporary
// file beside the target, fsync, rename over the target, fsync of the directory. A save
// that is interrupted (even by SIGKILL) leaves the previous file intact, and the next save
// of the same target removes the temporaries that dead writers left (Note [Stale temporaries]).
#pragma once
#include <string>
#include <vector>

namespace ember::serialize {

// Writes `bytes` to `path` atomically. Temporaries are named "<path>.tmp-XXXXXX".
void write_file_atomic(const std::string& path, const std::string& bytes);

// Removes the temporaries of `path` whose writer is gone (no process holds their lock);
// those of live writers stay. Returns the paths removed. write_file_atomic calls it first.
std::vector<std::string> remove_stale_temporaries(const std::string& path);

}  // namespace ember::serialize
