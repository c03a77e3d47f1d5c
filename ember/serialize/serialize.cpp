#include "ember/serialize/serialize.h"

#include <cstring>

#include "ember/autograd/grad_mode.h"
#include "ember/core/generator.h"
#include "ember/ops/functions.h"
#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember {

// ---- modules ----

void nn::Module::save(serialize::OutputArchive& archive) const {
  for (const auto& p : parameters_)
    if (p.value().defined()) archive.write(p.key(), p.value());
  for (const auto& b : buffers_)
    if (b.value().defined()) archive.write(b.key(), b.value(), /*is_buffer=*/true);
  for (const auto& c : children_) {
    serialize::OutputArchive child;
    c.value()->save(child);
    archive.write(c.key(), child);
  }
}

namespace {
void load_into(serialize::InputArchive& archive, const std::string& key, Tensor& target, const char* kind) {
  Tensor stored;
  archive.read(key, stored);  // a missing key raises an error naming its full name
  EMBER_CHECK(stored.sizes() == target.sizes(), "Module::load: ", kind, " '", archive.qualified(key), "' has shape ", stored.sizes(),
              " in the checkpoint but ", target.sizes(), " in the module");
  NoGradGuard no_grad;
  target.copy_(stored);
}
}  // namespace

void nn::Module::load(serialize::InputArchive& archive) {
  for (auto& p : parameters_)
    if (p.value().defined()) load_into(archive, p.key(), p.value(), "parameter");
  for (auto& b : buffers_)
    if (b.value().defined()) load_into(archive, b.key(), b.value(), "buffer");
  for (auto& c : children_) {
    const auto& child = c.value();
    if (child->parameters().empty() && child->buffers().empty()) continue;  // nothing stored
    serialize::InputArchive nested;
    archive.read(c.key(), nested);
    child->load(nested);
  }
}

// ---- optimizers ----

namespace {

struct OptionWriter : optim::OptionVisitor {
  serialize::OutputArchive& archive;
  explicit OptionWriter(serialize::OutputArchive& a) : archive(a) {}
  using OptionVisitor::field;
  void field(const char* name, double& v) override { archive.write(name, IValue(v)); }
  void field(const char* name, int64_t& v) override { archive.write(name, IValue(v)); }
  void field(const char* name, bool& v) override { archive.write(name, IValue(v)); }
};

struct OptionReader : optim::OptionVisitor {
  serialize::InputArchive& archive;
  explicit OptionReader(serialize::InputArchive& a) : archive(a) {}
  using OptionVisitor::field;
  IValue get(const char* name) {
    IValue v;
    archive.read(name, v);
    return v;
  }
  void field(const char* name, double& v) override { v = get(name).toDouble(); }
  void field(const char* name, int64_t& v) override { v = get(name).toInt(); }
  void field(const char* name, bool& v) override { v = get(name).toBool(); }
};

}  // namespace

void optim::Optimizer::save(serialize::OutputArchive& archive) const {
  const OptimizerStateDict dict = state_dict();
  for (size_t i = 0; i < dict.param_groups.size(); ++i) {
    serialize::OutputArchive group, options;
    group.write("params", IValue(dict.param_groups[i].params));
    OptionWriter writer(options);
    dict.param_groups[i].options->visit(writer);
    group.write("options", options);
    archive.write("param_groups." + std::to_string(i), group);
  }
  archive.write("param_groups.size", IValue(int64_t(dict.param_groups.size())));
  for (const auto& [index, ps] : dict.state) {
    serialize::OutputArchive st;
    for (const auto& [name, t] : ps.tensors) st.write(name, t);
    if (ps.step > 0) st.write("step", IValue(ps.step));
    archive.write("state." + std::to_string(index), st);
  }
}

void optim::Optimizer::load(serialize::InputArchive& archive) {
  IValue count;
  archive.read("param_groups.size", count);
  EMBER_CHECK(count.isInt() && count.toInt() == int64_t(param_groups_.size()), "Optimizer::load: the checkpoint has ", count.toInt(),
              " parameter groups but the optimizer has ", param_groups_.size());
  OptimizerStateDict dict;
  for (size_t i = 0; i < param_groups_.size(); ++i) {
    serialize::InputArchive group, options;
    archive.read("param_groups." + std::to_string(i), group);
    IValue params;
    group.read("params", params);
    EMBER_CHECK(params.isIntList(), "Optimizer::load: '", group.qualified("params"), "' is not a list of integers");
    OptimizerStateDict::Group g;
    g.params = params.toIntVector();
    g.options = param_groups_[i].options().clone();  // same type; every field is then read
    group.read("options", options);
    OptionReader reader(options);
    g.options->visit(reader);
    dict.param_groups.push_back(std::move(g));
  }
  serialize::InputArchive states;
  if (archive.try_read("state", states)) {
    for (const std::string& key : states.keys()) {
      char* end = nullptr;
      const long long index = std::strtoll(key.c_str(), &end, 10);
      EMBER_CHECK(!key.empty() && *end == '\0', "Optimizer::load: unexpected state entry '", key, "'");
      serialize::InputArchive st;
      states.read(key, st);
      OptimizerStateDict::ParamState& ps = dict.state[index];
      for (const std::string& name : st.keys()) {
        if (name == "step") {
          IValue step;
          st.read("step", step);
          EMBER_CHECK(step.isInt(), "Optimizer::load: '", st.qualified("step"), "' is not an integer step count");
          ps.step = step.toInt();
        } else {
          st.read(name, ps.tensors[name]);
        }
      }
    }
  }
  load_state_dict(dict);
}

// ---- learning-rate schedulers: their state_dict() as one JSON string ----

void optim::LRScheduler::save(serialize::OutputArchive& archive) const {
  archive.write("scheduler_state", IValue(json::dump(state_dict())));
}

void optim::LRScheduler::load(serialize::InputArchive& archive) {
  IValue v;
  archive.read("scheduler_state", v);
  load_state_dict(json::parse(v.toStringRef(), "scheduler_state"));
}

// ---- archive operators ----

namespace serialize {

OutputArchive& operator<<(OutputArchive& archive, const Tensor& tensor) {
  archive.write("0", tensor);
  return archive;
}
InputArchive& operator>>(InputArchive& archive, Tensor& tensor) {
  archive.read("0", tensor);
  return archive;
}
OutputArchive& operator<<(OutputArchive& archive, const std::vector<Tensor>& tensors) {
  for (size_t i = 0; i < tensors.size(); ++i) archive.write(std::to_string(i), tensors[i]);
  archive.write("size", IValue(int64_t(tensors.size())));
  return archive;
}
InputArchive& operator>>(InputArchive& archive, std::vector<Tensor>& tensors) {
  IValue size;
  archive.read("size", size);
  EMBER_CHECK(size.isInt(), "load: the tensor list's 'size' in ", archive.qualified("size"),
              " is not an integer");
  // The list is "0".."n-1" plus "size": n comes from the file, so it is checked against the
  // entries actually present before anything is allocated.
  const int64_t n = size.toInt();
  const size_t entries = archive.keys().size();
  EMBER_CHECK(n >= 0 && uint64_t(n) + 1 == entries, "load: the tensor list's 'size' is ", n, " but the archive holds ",
              entries - 1, " entries besides it (expected one tensor per index 0..size-1)");
  std::vector<Tensor> out(static_cast<size_t>(n));
  for (size_t i = 0; i < out.size(); ++i) archive.read(std::to_string(i), out[i]);
  tensors = std::move(out);
  return archive;
}
OutputArchive& operator<<(OutputArchive& archive, const std::shared_ptr<nn::Module>& module) {
  EMBER_CHECK(module != nullptr, "save: the module is empty");
  module->save(archive);
  return archive;
}
InputArchive& operator>>(InputArchive& archive, const std::shared_ptr<nn::Module>& module) {
  EMBER_CHECK(module != nullptr, "load: the module is empty");
  module->load(archive);
  return archive;
}
OutputArchive& operator<<(OutputArchive& archive, const optim::Optimizer& optimizer) {
  optimizer.save(archive);
  return archive;
}
InputArchive& operator>>(InputArchive& archive, optim::Optimizer& optimizer) {
  optimizer.load(archive);
  return archive;
}

}  // namespace serialize

Tensor get_rng_state() { return default_generator().get_state(); }
void set_rng_state(const Tensor& state) { default_generator().set_state(state); }

}  // namespace ember
