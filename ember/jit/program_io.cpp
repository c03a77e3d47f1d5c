// Saved programs (jit.h).
//
// Note [Saved programs]: a program file is a safetensors file (its format is documented by its
// authors; ember's reader is fuzzed). Its tensors are the parameters and buffers
// ("param/<name>", "buffer/<name>", as the module names them) and the graph's constants
// ("const/<k>"); its metadata key "ember.jit.program" holds the graph as JSON:
//   {"format": "ember.jit.program", "version": 1,
//    "inputs": [{"type": T}], "params": [{"name": "fc.weight", "kind": "param"|"buffer", "type": T}],
//    "constants": [{"tensor": "const/0", "wrapped": false}],
//    "nodes": [{"op": "linear", "inputs": [v, ...], "attrs": [[name, A], ...], "mutates": false,
//               "outputs": [T, ...]}],
//    "outputs": [v, ...], "training": false}
// Values are numbered as they are defined: inputs, then parameters, then constants, then each
// node's outputs in order; an absent optional tensor is -1. T = {"dtype": "Float", "sizes": [..],
// "strides": [..], "device": "cpu", "requires_grad": false}. An attribute A is
// {"none": null} | {"bool": b} | {"int": i} | {"double": d} | {"complex": [re, im]} |
// {"ints": [..]} | {"string": s} | {"dtype": "Float"}; a double that JSON cannot hold is the
// string "inf", "-inf" or "nan".
// A size-generic program (Note [Dynamic sizes]) adds "size_symbols": [[input, dim], ...],
// "equal_symbols": [[a, b], ...], "input_twin_sizes": [[..] per input] and, per node,
// "size_uses": [[attr, element, symbol, factor], ...] and "twin_sizes": [[..] per output]; a
// reader that ignores them runs the program at its traced sizes only, which is still right.
// Compatibility: a reader refuses a newer version than its own, naming both; a version-1 file
// stays readable by every later ember (new fields are optional with version-1 defaults). An op
// the reading ember does not know is refused, naming it. Every count, id and type is checked
// before use: a bad or truncated file is an error naming what is wrong, never a crash.
#include <cmath>
#include <limits>
#include <map>

#include "ember/core/error.h"
#include "ember/core/json.h"
#include "ember/jit/jit.h"
#include "ember/jit/traced_module_impl.h"
#include "ember/serialize/atomic_file.h"
#include "ember/serialize/safetensors.h"

namespace ember::jit {

namespace {
constexpr int64_t kVersion = 1;
constexpr const char* kKey = "ember.jit.program";

ScalarType dtype_from(const std::string& name, std::string_view what) {
  for (int i = 0; i < kNumScalarTypes; ++i)
    if (name == to_string(ScalarType(i))) return ScalarType(i);
  EMBER_ERROR(what, ": unknown dtype '", name, "'");
}

json::Value ints_json(const std::vector<int64_t>& v) {
  json::Array a;
  for (int64_t x : v) a.emplace_back(x);
  return a;
}
std::vector<int64_t> ints_from(const json::Value& v, std::string_view what) {
  std::vector<int64_t> r;
  for (const json::Value& x : v.as_array(what)) r.push_back(x.as_int(what));
  return r;
}

json::Value type_json(const TensorType& t) {
  return json::Object{{"dtype", to_string(t.dtype)},
                      {"sizes", ints_json(t.sizes)},
                      {"strides", ints_json(t.strides)},
                      {"device", t.device.str()},
                      {"requires_grad", t.requires_grad}};
}

const json::Value& field(const json::Value& o, std::string_view key, std::string_view what) {
  const json::Value* v = o.find(key);
  EMBER_CHECK(v, what, ": missing field '", key, "'");
  return *v;
}

TensorType type_from(const json::Value& v, std::string_view what) {
  (void)v.as_object(what);
  TensorType t;
  t.dtype = dtype_from(field(v, "dtype", what).as_string(what), what);
  t.sizes = ints_from(field(v, "sizes", what), what);
  t.strides = ints_from(field(v, "strides", what), what);
  EMBER_CHECK(t.sizes.size() == t.strides.size() && t.sizes.size() <= 64, what, ": sizes and strides disagree");
  for (int64_t s : t.sizes) EMBER_CHECK(s >= 0, what, ": negative size");
  t.device = Device(field(v, "device", what).as_string(what));
  t.requires_grad = field(v, "requires_grad", what).as_bool(what);
  return t;
}

// JSON has no infinities or NaN: those are written as the strings "inf", "-inf", "nan".
json::Value number_json(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  return d;
}
double number_from(const json::Value& v, std::string_view what) {
  if (!v.is_string()) return v.as_double(what);
  const std::string& s = v.as_string(what);
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  EMBER_ERROR(what, ": '", s, "' is not a number");
}

json::Value attr_json(const tracing::Attr& a) {
  if (std::holds_alternative<std::monostate>(a)) return json::Object{{"none", nullptr}};
  if (const Scalar* s = std::get_if<Scalar>(&a)) {
    if (s->isBoolean()) return json::Object{{"bool", s->toBool()}};
    if (s->isIntegral(false)) return json::Object{{"int", s->toLong()}};
    if (s->isComplex())
      return json::Object{
          {"complex", json::Array{number_json(s->toComplexDouble().real()), number_json(s->toComplexDouble().imag())}}};
    return json::Object{{"double", number_json(s->toDouble())}};
  }
  if (const auto* v = std::get_if<std::vector<int64_t>>(&a)) return json::Object{{"ints", ints_json(*v)}};
  if (const auto* str = std::get_if<std::string>(&a)) return json::Object{{"string", *str}};
  return json::Object{{"dtype", to_string(std::get<ScalarType>(a))}};
}

tracing::Attr attr_from(const json::Value& v, std::string_view what) {
  const json::Object& o = v.as_object(what);
  EMBER_CHECK(o.size() == 1, what, ": an attribute is an object of one member");
  const auto& [kind, x] = o[0];
  if (kind == "none") return std::monostate{};
  if (kind == "bool") return Scalar(x.as_bool(what));
  if (kind == "int") return Scalar(x.as_int(what));
  if (kind == "double") return Scalar(number_from(x, what));
  if (kind == "complex") {
    const json::Array& z = x.as_array(what);
    EMBER_CHECK(z.size() == 2, what, ": a complex attribute is [re, im]");
    return Scalar(std::complex<double>(number_from(z[0], what), number_from(z[1], what)));
  }
  if (kind == "ints") return ints_from(x, what);
  if (kind == "string") return x.as_string(what);
  if (kind == "dtype") return dtype_from(x.as_string(what), what);
  EMBER_ERROR(what, ": unknown attribute kind '", kind, "'");
}
}  // namespace

std::string save_to_bytes(const TracedModule& module) {
  const Graph& g = module.graph();
  const TracedModule::Impl::Specialization& spec = module.impl()->specializations.back();
  const bool generic = !spec.symbols.empty();
  std::map<std::string, Tensor> tensors;
  std::map<const Value*, int64_t> number;  // values renumbered in definition order
  auto num = [&](const Value* v) -> int64_t { return v ? number.at(v) : -1; };
  auto define = [&](const Value* v) { number.emplace(v, int64_t(number.size())); };
  json::Array inputs, params, constants, nodes, outputs;
  for (const Value* v : g.inputs()) define(v), inputs.push_back(json::Object{{"type", type_json(v->type)}});
  const auto named_params = module.named_parameters();
  const auto named_buffers = module.named_buffers();
  for (const Value* v : g.params()) {
    define(v);
    const bool is_param = named_params.contains(v->name);
    EMBER_CHECK(is_param || named_buffers.contains(v->name), "jit::save: the graph's parameter ", v->name,
                " is no longer a parameter or buffer of the module");
    const Tensor t = is_param ? named_params[v->name] : named_buffers[v->name];
    tensors[(is_param ? "param/" : "buffer/") + v->name] = t.detach();
    params.push_back(json::Object{{"name", v->name}, {"kind", is_param ? "param" : "buffer"}, {"type", type_json(v->type)}});
  }
  for (const auto& [v, t] : g.constants()) {
    define(v);
    const std::string key = "const/" + std::to_string(constants.size());
    tensors[key] = t.detach();
    constants.push_back(json::Object{{"tensor", key}, {"wrapped", t.unsafeGetTensorImpl()->is_wrapped_number()}});
  }
  for (const auto& n : g.nodes()) {
    json::Array ins, attrs, outs;
    for (const Value* i : n->inputs) ins.emplace_back(num(i));
    for (const auto& [name, a] : n->attrs) attrs.push_back(json::Array{name, attr_json(a)});
    for (const Value* o : n->outputs) define(o), outs.push_back(type_json(o->type));
    json::Object node{{"op", std::string(n->kind())},
                      {"inputs", std::move(ins)},
                      {"attrs", std::move(attrs)},
                      {"mutates", n->mutates},
                      {"outputs", std::move(outs)}};
    if (generic) {
      json::Array uses, twins;
      for (const SizeUse& u : n->size_uses)
        uses.push_back(json::Array{int64_t(u.attr), u.element, int64_t(u.symbol), u.factor});
      for (const Value* o : n->outputs) twins.push_back(ints_json(o->twin_sizes));
      node.emplace_back("size_uses", std::move(uses));
      node.emplace_back("twin_sizes", std::move(twins));
    }
    nodes.push_back(std::move(node));
  }
  for (const Value* o : g.outputs()) outputs.emplace_back(num(o));
  json::Object program{{"format", kKey},
                       {"version", kVersion},
                       {"inputs", std::move(inputs)},
                       {"params", std::move(params)},
                       {"constants", std::move(constants)},
                       {"nodes", std::move(nodes)},
                       {"outputs", std::move(outputs)},
                       {"training", module.is_training()}};
  if (generic) {
    json::Array symbols, equal, twins;
    for (const auto& sym : spec.symbols) symbols.push_back(json::Array{int64_t(sym.input), int64_t(sym.dim)});
    for (const auto& [a, b] : spec.equal_symbols) equal.push_back(json::Array{int64_t(a), int64_t(b)});
    for (const Value* v : g.inputs()) twins.push_back(ints_json(v->twin_sizes));
    program.emplace_back("size_symbols", std::move(symbols));
    program.emplace_back("equal_symbols", std::move(equal));
    program.emplace_back("input_twin_sizes", std::move(twins));
  }
  return serialize::to_safetensors(tensors, {{kKey, json::dump(json::Value(std::move(program)))}});
}

void save(const TracedModule& module, const std::string& path) {
  serialize::write_file_atomic(path, save_to_bytes(module));
}

namespace {
TracedModule load_program(const serialize::SafetensorsContents& file, const std::string& what) {
  auto meta = file.metadata.find(kKey);
  EMBER_CHECK(meta != file.metadata.end(), what, ": not an ember program (no '", kKey, "' metadata)");
  const json::Value p = json::parse(meta->second, what);
  (void)p.as_object(what);
  EMBER_CHECK(field(p, "format", what).as_string(what) == kKey, what, ": not an ember program");
  const int64_t version = field(p, "version", what).as_int(what);
  EMBER_CHECK(version >= 1 && version <= kVersion, what, ": program format version ", version,
              " is newer than this ember reads (", kVersion, "); load it with a newer ember");
  auto tensor = [&](const std::string& key) -> Tensor {
    auto it = file.tensors.find(key);
    EMBER_CHECK(it != file.tensors.end(), what, ": missing tensor '", key, "'");
    return it->second;
  };
  auto graph = std::make_shared<Graph>();
  Graph& g = *graph;
  std::vector<Value*> values;
  auto value = [&](const json::Value& v) -> Value* {
    const int64_t id = v.as_int(what);
    if (id == -1) return nullptr;
    EMBER_CHECK(id >= 0 && id < int64_t(values.size()), what, ": value ", id, " is used before it is defined");
    return values[id];
  };
  auto impl = std::make_shared<TracedModule::Impl>();
  Signature sig;
  for (const json::Value& in : field(p, "inputs", what).as_array(what)) {
    values.push_back(g.add_input("input" + std::to_string(g.inputs().size()), type_from(field(in, "type", what), what)));
    sig.inputs.push_back(values.back()->type);
  }
  for (const json::Value& pr : field(p, "params", what).as_array(what)) {
    const std::string& name = field(pr, "name", what).as_string(what);
    const std::string& kind = field(pr, "kind", what).as_string(what);
    EMBER_CHECK(kind == "param" || kind == "buffer", what, ": parameter ", name, " of unknown kind '", kind, "'");
    const TensorType type = type_from(field(pr, "type", what), what);
    Tensor t = tensor(kind + "/" + name);
    EMBER_CHECK(t.sizes() == IntArrayRef(type.sizes) && t.scalar_type() == type.dtype, what, ": tensor ", kind, "/", name,
                " does not match the graph's type ", type.str());
    t = t.to(type.device);
    if (kind == "param") {
      t.set_requires_grad(type.requires_grad);
      EMBER_CHECK(!impl->own_params.contains(name), what, ": parameter ", name, " twice");
      impl->own_params.insert(name, t);
    } else {
      EMBER_CHECK(!impl->own_buffers.contains(name), what, ": buffer ", name, " twice");
      impl->own_buffers.insert(name, t);
    }
    values.push_back(g.add_param(name, type));
  }
  // The graph's parameters are bound in the module's order: parameters, then buffers.
  {
    size_t k = 0;
    for (const auto& pr : impl->own_params)
      EMBER_CHECK(k < g.params().size() && g.params()[k++]->name == pr.key(), what, ": parameters must come before buffers");
  }
  for (const Value* v : g.params()) sig.params.push_back(v->type);
  for (const json::Value& c : field(p, "constants", what).as_array(what)) {
    Tensor t = tensor(field(c, "tensor", what).as_string(what));
    if (field(c, "wrapped", what).as_bool(what)) {
      EMBER_CHECK(t.dim() == 0, what, ": a wrapped number must be 0-dimensional");
      t.unsafeGetTensorImpl()->set_wrapped_number(true);
    }
    values.push_back(g.add_constant(t));
  }
  for (const json::Value& n : field(p, "nodes", what).as_array(what)) {
    const std::string& op_name = field(n, "op", what).as_string(what);
    const tracing::TracedOp* op = tracing::find_traced_op(op_name);
    EMBER_CHECK(op, what, ": the program uses op '", op_name, "', which this ember does not know");
    std::vector<Value*> ins;
    for (const json::Value& i : field(n, "inputs", what).as_array(what)) ins.push_back(value(i));
    tracing::Attrs attrs;
    for (const json::Value& a : field(n, "attrs", what).as_array(what)) {
      const json::Array& pair = a.as_array(what);
      EMBER_CHECK(pair.size() == 2, what, ": an attribute is [name, value]");
      attrs.emplace_back(pair[0].as_string(what), attr_from(pair[1], what));
    }
    const bool mutates = field(n, "mutates", what).as_bool(what);
    EMBER_CHECK(!mutates || (!ins.empty() && ins[0]), what, ": ", op_name, " writes into no tensor");
    std::vector<TensorType> outs;
    for (const json::Value& o : field(n, "outputs", what).as_array(what)) outs.push_back(type_from(o, what));
    Node* node = g.add_node(*op, std::move(ins), std::move(attrs), std::move(outs), mutates);
    for (Value* o : node->outputs) values.push_back(o);
    if (const json::Value* uses = n.find("size_uses")) {
      for (const json::Value& u : uses->as_array(what)) {
        const json::Array& q = u.as_array(what);
        EMBER_CHECK(q.size() == 4, what, ": a size use is [attr, element, symbol, factor]");
        SizeUse use{size_t(q[0].as_int(what)), q[1].as_int(what), size_t(q[2].as_int(what)), q[3].as_int(what)};
        EMBER_CHECK(q[0].as_int(what) >= 0 && use.attr < node->attrs.size() && q[2].as_int(what) >= 0 && use.factor >= 1,
                    what, ": ", op_name, " has a size use out of range");
        const tracing::Attr& a = node->attrs[use.attr].second;
        const auto* list = std::get_if<std::vector<int64_t>>(&a);
        const Scalar* number = std::get_if<Scalar>(&a);
        EMBER_CHECK(use.element == -1 ? (number && number->isIntegral(false))
                                      : (list && use.element >= 0 && use.element < int64_t(list->size())),
                    what, ": ", op_name, "'s size use names no integer of attribute ", node->attrs[use.attr].first);
        node->size_uses.push_back(use);
      }
    }
    if (const json::Value* twins = n.find("twin_sizes")) {
      const json::Array& t = twins->as_array(what);
      EMBER_CHECK(t.size() == node->outputs.size(), what, ": ", op_name, " has ", t.size(), " twin sizes for ",
                  node->outputs.size(), " outputs");
      for (size_t k = 0; k < t.size(); ++k) node->outputs[k]->twin_sizes = ints_from(t[k], what);
    }
  }
  std::vector<Value*> outputs;
  for (const json::Value& o : field(p, "outputs", what).as_array(what)) {
    Value* v = value(o);
    EMBER_CHECK(v, what, ": an output cannot be absent");
    outputs.push_back(v);
  }
  g.set_outputs(std::move(outputs));
  impl->own_training = field(p, "training", what).as_bool(what);
  sig.training = impl->own_training;
  std::vector<TracedModule::Impl::SizeSymbol> symbols;
  std::vector<std::pair<size_t, size_t>> equal;
  if (const json::Value* syms = p.find("size_symbols")) {
    for (const json::Value& sym : syms->as_array(what)) {
      const json::Array& q = sym.as_array(what);
      EMBER_CHECK(q.size() == 2, what, ": a size symbol is [input, dim]");
      const int64_t in = q[0].as_int(what), dim = q[1].as_int(what);
      EMBER_CHECK(in >= 0 && in < int64_t(sig.inputs.size()) && dim >= 0 && dim < int64_t(sig.inputs[size_t(in)].sizes.size()),
                  what, ": size symbol [", in, ", ", dim, "] names no input dimension");
      EMBER_CHECK(sig.inputs[size_t(in)].sizes[size_t(dim)] >= 2, what, ": a size symbol's traced size must be at least 2");
      symbols.push_back({size_t(in), size_t(dim)});
    }
    for (const auto& n : g.nodes())
      for (const SizeUse& u : n->size_uses)
        EMBER_CHECK(u.symbol < symbols.size(), what, ": ", n->kind(), " uses size symbol ", u.symbol, " of ", symbols.size());
    if (const json::Value* eq = p.find("equal_symbols"))
      for (const json::Value& e : eq->as_array(what)) {
        const json::Array& q = e.as_array(what);
        EMBER_CHECK(q.size() == 2 && q[0].as_int(what) >= 0 && q[1].as_int(what) >= 0 &&
                        q[0].as_int(what) < int64_t(symbols.size()) && q[1].as_int(what) < int64_t(symbols.size()),
                    what, ": an equal-symbols pair names no symbol");
        equal.emplace_back(size_t(q[0].as_int(what)), size_t(q[1].as_int(what)));
      }
    if (const json::Value* twins = p.find("input_twin_sizes")) {
      const json::Array& t = twins->as_array(what);
      EMBER_CHECK(t.size() == g.inputs().size(), what, ": ", t.size(), " input twin sizes for ", g.inputs().size(), " inputs");
      for (size_t k = 0; k < t.size(); ++k) g.inputs()[k]->twin_sizes = ints_from(t[k], what);
    }
  } else {
    for (const auto& n : g.nodes()) EMBER_CHECK(n->size_uses.empty(), what, ": size uses without size symbols");
  }
  impl->specializations.push_back(impl->specialize(sig, graph));
  impl->specializations.back().symbols = std::move(symbols);
  impl->specializations.back().equal_symbols = std::move(equal);
  return TracedModule(std::move(impl));
}

}  // namespace

TracedModule load_from_bytes(const void* data, size_t size, const std::string& what) {
  return load_program(serialize::from_safetensors(data, size, what), what);
}

TracedModule load(const std::string& path) { return load_program(serialize::load_file(path), "jit::load '" + path + "'"); }

}  // namespace ember::jit
