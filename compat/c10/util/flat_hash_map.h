// LibTorch compatibility: ska::flat_hash_map, the map type of Optimizer::state() in LibTorch,
// is std::unordered_map here (the interface code uses: find, at, operator[], size, iteration).
#pragma once
#include <unordered_map>

namespace ska {
template <class K, class V, class Hash = std::hash<K>, class Eq = std::equal_to<K>,
          class Alloc = std::allocator<std::pair<const K, V>>>
using flat_hash_map = std::unordered_map<K, V, Hash, Eq, Alloc>;
}  // namespace ska
