// manual_seed reaches the devices' generators: as at::manual_seed seeds every CUDA device's
// default generator besides the CPU's, ember::manual_seed calls the hooks that device runtimes
// (ember/cuda) register when they are loaded. Core knows no device runtime; this is how it
// reaches them.
#pragma once
#include <cstdint>

namespace ember::detail {
// Registers hook(seed), called by every ember::manual_seed after the CPU generator is seeded.
void add_manual_seed_hook(void (*hook)(uint64_t seed));
}  // namespace ember::detail
