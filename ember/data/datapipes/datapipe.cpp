#include "ember/data/datapipes/datapipe.h"

#include <unordered_map>
#include <unordered_set>

#include "ember/core/generator.h"

namespace ember::data::datapipes {

void NodeBase::invalidated(const NodeBase& child) const {
  EMBER_CHECK(false, "DataPipe ", name(), ": its input ", child.name(),
              " was restarted by a newer iterator (begin() on this pipe or on another pipe sharing that input); "
              "the older iterator cannot continue. Iterate one pipe of a shared graph at a time, or combine them "
              "(zip, mux, concat) into one pipe.");
}

uint64_t NodeBase::begin_epoch_seed() {
  if (restarting_) {
    restarting_ = false;
    seed_ = mix_seed(*epoch_seed_, ++restarts_);
    return seed_;
  }
  seed_ = next_seed_ ? *next_seed_ : draw_seed();
  next_seed_.reset();
  epoch_seed_ = seed_;
  restarts_ = 0;
  return seed_;
}

std::vector<NodeBase*> traverse(const NodeBase& root) {
  std::vector<NodeBase*> order;
  std::unordered_set<const NodeBase*> seen;
  std::vector<NodeBase*> stack{const_cast<NodeBase*>(&root)};
  while (!stack.empty()) {
    NodeBase* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    order.push_back(n);
    auto kids = n->children();
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
      EMBER_CHECK(*it, "DataPipe ", n->name(), ": has a null input");
      stack.push_back(*it);
    }
  }
  return order;
}

namespace {
std::atomic<uint64_t> next_token{1};
}

void start_epoch(NodeBase& root) {
  auto nodes = traverse(root);
  std::unordered_map<const NodeBase*, const NodeBase*> reader;
  for (NodeBase* n : nodes) {
    for (NodeBase* c : n->children()) {
      if (c->shareable()) continue;
      auto [it, fresh] = reader.emplace(c, n);
      EMBER_CHECK(fresh, "DataPipe graph: ", c->name(), " is the input of two pipes (", it->second->name(), " and ",
                  n->name(), "); an iterable pipe is one stream and each reader would get only part of it. Use "
                  "fork() to give each reader its own copy of the stream.");
    }
  }
  for (NodeBase* n : nodes) n->stop();
  uint64_t token = next_token.fetch_add(1);
  for (NodeBase* n : nodes) {
    n->token_ = token;
    n->restarting_ = false;
    n->reset();
  }
}

void restart_subgraph(NodeBase& node) {
  auto nodes = traverse(node);
  for (NodeBase* n : nodes) n->stop();
  for (NodeBase* n : nodes) {
    n->token_ = node.token_;
    if (n->random_ && n->epoch_seed_) n->restarting_ = true;
    n->reset();
  }
}

int64_t apply_sharding(NodeBase& root, int64_t num_instances, int64_t instance_id) {
  EMBER_CHECK(num_instances >= 1 && instance_id >= 0 && instance_id < num_instances,
              "apply_sharding: expected 0 <= instance_id < num_instances, got instance ", instance_id, " of ",
              num_instances);
  int64_t found = 0;
  for (NodeBase* n : traverse(root)) {
    if (n->is_sharding_filter()) {
      n->apply_sharding(num_instances, instance_id);
      ++found;
    }
  }
  return found;
}

uint64_t mix_seed(uint64_t a, uint64_t b, uint64_t c) {
  auto step = [](uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  };
  return step(step(step(a) ^ b) ^ c);
}

uint64_t draw_seed() {
  // As torch.empty((), dtype=torch.int64).random_(): 63 bits of the default CPU stream.
  Generator& g = default_generator();
  std::lock_guard<std::mutex> lock(g.mutex());
  return g->random64() & uint64_t(INT64_MAX);
}

void seed_graph(NodeBase& root, uint64_t base_seed, int64_t instance_id) {
  auto nodes = traverse(root);
  // Nodes upstream of (reachable from) a sharding_filter share one seed across instances.
  std::unordered_set<const NodeBase*> upstream;
  for (NodeBase* n : nodes) {
    if (!n->is_sharding_filter()) continue;
    for (NodeBase* c : n->children())
      for (NodeBase* u : traverse(*c)) upstream.insert(u);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeBase* n = nodes[i];
    if (!n->is_random()) continue;
    n->set_seed(upstream.count(n) ? mix_seed(base_seed, i) : mix_seed(base_seed, i, uint64_t(instance_id) + 1));
  }
}

json::Value graph_seeds(const NodeBase& root) {
  json::Array out;
  for (NodeBase* n : traverse(root)) {
    if (!n->is_random()) continue;
    auto s = n->epoch_seed();
    // Seeds are stored as strings: JSON integers are signed 64-bit.
    out.push_back(json::Object{{"name", n->name()}, {"seed", s ? json::Value(std::to_string(*s)) : json::Value()}});
  }
  return out;
}

void load_graph_seeds(NodeBase& root, const json::Value& seeds) {
  EMBER_CHECK(seeds.is_array(), "DataPipe load_state: 'seeds' must be an array, got ", json::dump(seeds));
  const auto& arr = seeds.as_array();
  size_t k = 0;
  for (NodeBase* n : traverse(root)) {
    if (!n->is_random()) continue;
    EMBER_CHECK(k < arr.size(), "DataPipe load_state: the state has ", arr.size(),
                " random pipes but this graph has more (first extra: ", n->name(), "): was it saved from another graph?");
    const json::Value& e = arr[k++];
    const json::Value* name = e.find("name");
    EMBER_CHECK(name && name->is_string() && name->as_string() == n->name(), "DataPipe load_state: random pipe #",
                k - 1, " is ", n->name(), " in this graph but ", name ? json::dump(*name) : "missing",
                " in the state: was it saved from another graph?");
    const json::Value* seed = e.find("seed");
    if (seed && seed->is_string()) {
      const std::string& str = seed->as_string();
      char* end = nullptr;
      uint64_t v = std::strtoull(str.c_str(), &end, 10);
      EMBER_CHECK(!str.empty() && *end == 0, "DataPipe load_state: bad seed ", json::dump(*seed));
      n->set_seed(v);
    }
  }
  EMBER_CHECK(k == arr.size(), "DataPipe load_state: the state has ", arr.size(), " random pipes, this graph ", k,
              ": was it saved from another graph?");
}

}  // namespace ember::data::datapipes
