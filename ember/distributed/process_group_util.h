// Helpers shared by the process groups (not installed API): who this process is, and which
// ranks of a failed collective are gone (Note [Naming the missing rank], process_group.cpp).
#pragma once
#include <string>

#include "ember/distributed/store.h"

namespace ember::distributed::detail {

// "<host> <pid>": what each rank records under "ember_pg_proc/<rank>" when its group is made.
std::string proc_id();
// True when the process `pid` of this host has exited (or is a zombie).
bool process_gone(long pid);
// " (ranks no longer running: 2 (pid 123))" for the ranks of this host that are gone, or "".
std::string gone_ranks(Store& store, int rank, int size);

}  // namespace ember::distributed::detail
