// The JIT's graph IR (ir.h, Note [JIT graphs]).
#include "ember/jit/ir.h"

#include <sstream>

#include "ember/core/error.h"

namespace ember::jit {

TensorType TensorType::of(const Tensor& t) {
  TensorType r;
  r.dtype = t.scalar_type();
  r.sizes.assign(t.sizes().begin(), t.sizes().end());
  r.strides.assign(t.strides().begin(), t.strides().end());
  r.device = t.device();
  r.requires_grad = t.requires_grad();
  return r;
}

std::string TensorType::str() const {
  std::ostringstream os;
  os << to_string(dtype) << "(";
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  os << ")";
  // Strides only where they are not the contiguous ones.
  int64_t expect = 1;
  bool contiguous = true;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] != 1 && strides[i] != expect) contiguous = false;
    expect *= sizes[i];
  }
  if (!contiguous) {
    os << "{strides ";
    for (size_t i = 0; i < strides.size(); ++i) os << (i ? ", " : "") << strides[i];
    os << "}";
  }
  if (!device.is_cpu()) os << "@" << device;
  if (requires_grad) os << "*";
  return os.str();
}

std::string attr_str(const tracing::Attr& a) {
  std::ostringstream os;
  if (std::holds_alternative<std::monostate>(a)) {
    os << "none";
  } else if (const Scalar* s = std::get_if<Scalar>(&a)) {
    if (s->isBoolean()) os << (s->toBool() ? "true" : "false");
    else if (s->isIntegral(false)) os << s->toLong();
    else if (s->isComplex()) os << s->toComplexDouble().real() << "+" << s->toComplexDouble().imag() << "j";
    else {
      os.precision(17);
      os << s->toDouble();
    }
  } else if (const auto* v = std::get_if<std::vector<int64_t>>(&a)) {
    os << "[";
    for (size_t i = 0; i < v->size(); ++i) os << (i ? ", " : "") << (*v)[i];
    os << "]";
  } else if (const auto* str = std::get_if<std::string>(&a)) {
    os << '"' << *str << '"';
  } else {
    os << to_string(std::get<ScalarType>(a));
  }
  return os.str();
}

Value* Graph::new_value(TensorType type) {
  auto v = std::make_unique<Value>();
  v->id = int64_t(values_.size());
  v->type = std::move(type);
  values_.push_back(std::move(v));
  return values_.back().get();
}

Value* Graph::add_input(std::string name, TensorType type) {
  Value* v = new_value(std::move(type));
  v->name = std::move(name);
  inputs_.push_back(v);
  return v;
}

Value* Graph::add_param(std::string name, TensorType type) {
  Value* v = new_value(std::move(type));
  v->name = std::move(name);
  params_.push_back(v);
  return v;
}

Value* Graph::add_constant(Tensor value) {
  Value* v = new_value(TensorType::of(value));
  v->type.requires_grad = false;
  constants_.emplace_back(v, std::move(value));
  return v;
}

Node* Graph::add_node(const tracing::TracedOp& op, std::vector<Value*> inputs, tracing::Attrs attrs,
                      std::vector<TensorType> output_types, bool mutates) {
  nodes_.push_back(make_node(op, std::move(inputs), std::move(attrs), std::move(output_types), mutates));
  return nodes_.back().get();
}

std::unique_ptr<Node> Graph::make_node(const tracing::TracedOp& op, std::vector<Value*> inputs, tracing::Attrs attrs,
                                       std::vector<TensorType> output_types, bool mutates) {
  auto n = std::make_unique<Node>();
  n->op = &op;
  n->inputs = std::move(inputs);
  n->attrs = std::move(attrs);
  n->mutates = mutates;
  for (size_t i = 0; i < output_types.size(); ++i) {
    Value* v = new_value(std::move(output_types[i]));
    v->node = n.get();
    v->index = i;
    n->outputs.push_back(v);
  }
  return n;
}

const Tensor* Graph::constant_value(const Value* v) const {
  for (const auto& [c, t] : constants_)
    if (c == v) return &t;
  return nullptr;
}

void Graph::replace_uses(Value* from, Value* to) {
  for (auto& n : nodes_)
    for (Value*& i : n->inputs)
      if (i == from) i = to;
  for (Value*& o : outputs_)
    if (o == from) o = to;
}

void Graph::drop_unused_constants() {
  std::vector<bool> used(values_.size(), false);
  for (const auto& n : nodes_)
    for (const Value* i : n->inputs)
      if (i) used[i->id] = true;
  for (const Value* o : outputs_) used[o->id] = true;
  std::vector<std::pair<Value*, Tensor>> kept;
  for (auto& c : constants_)
    if (used[c.first->id]) kept.push_back(std::move(c));
  constants_ = std::move(kept);
}

std::vector<const Value*> Graph::alias_roots() const {
  std::vector<const Value*> root(values_.size(), nullptr);
  for (const auto& v : values_) root[v->id] = v.get();
  for (const auto& n : nodes_) {
    if (n->inputs.empty() || !n->inputs[0]) continue;
    if (n->mutates || n->op->fusion == tracing::Fusion::View)
      for (const Value* o : n->outputs) root[o->id] = root[n->inputs[0]->id];
  }
  return root;
}

std::vector<bool> Graph::mutated_roots() const {
  const std::vector<const Value*> root = alias_roots();
  std::vector<bool> mutated(values_.size(), false);
  for (const auto& n : nodes_)
    if (n->mutates && !n->inputs.empty() && n->inputs[0]) mutated[root[n->inputs[0]->id]->id] = true;
  return mutated;
}

std::shared_ptr<Graph> Graph::clone() const {
  auto g = std::make_shared<Graph>();
  std::vector<Value*> map(values_.size(), nullptr);
  auto copy_value = [&](const Value* v, Value* c) {
    c->name = v->name;
    c->twin_sizes = v->twin_sizes;
    map[v->id] = c;
  };
  for (const Value* v : inputs_) copy_value(v, g->add_input(v->name, v->type));
  for (const Value* v : params_) copy_value(v, g->add_param(v->name, v->type));
  for (const auto& [v, t] : constants_) {
    Value* c = g->add_constant(t);
    c->type = v->type;
    c->twin_sizes = v->twin_sizes;
    map[v->id] = c;
  }
  for (const auto& n : nodes_) {
    std::vector<Value*> ins;
    for (const Value* i : n->inputs) ins.push_back(i ? map[i->id] : nullptr);
    std::vector<TensorType> types;
    for (const Value* o : n->outputs) types.push_back(o->type);
    Node* c = g->add_node(*n->op, std::move(ins), n->attrs, std::move(types), n->mutates);
    c->fusion = n->fusion;
    c->size_uses = n->size_uses;
    for (size_t i = 0; i < n->outputs.size(); ++i) {
      c->outputs[i]->twin_sizes = n->outputs[i]->twin_sizes;
      map[n->outputs[i]->id] = c->outputs[i];
    }
  }
  std::vector<Value*> outs;
  for (const Value* o : outputs_) outs.push_back(map[o->id]);
  g->set_outputs(std::move(outs));
  return g;
}

namespace {
std::string value_ref(const Value* v) {
  if (!v) return "none";
  return "%" + (v->name.empty() ? std::to_string(v->id) : v->name);
}
}  // namespace

std::string Graph::str() const {
  std::ostringstream os;
  os << "graph(";
  bool first = true;
  for (const Value* v : inputs_) os << (first ? "" : ",\n      ") << value_ref(v) << " : " << v->type.str(), first = false;
  for (const Value* v : params_) os << (first ? "" : ",\n      ") << value_ref(v) << " : " << v->type.str(), first = false;
  os << "):\n";
  for (const auto& [v, t] : constants_) {
    os << "  " << value_ref(v) << " : " << v->type.str() << " = constant";
    if (t.numel() == 1 && t.is_cpu()) os << "[value=" << attr_str(t.item()) << "]";
    if (t.unsafeGetTensorImpl()->is_wrapped_number()) os << "[wrapped]";
    os << "\n";
  }
  for (const auto& n : nodes_) {
    os << "  ";
    for (size_t i = 0; i < n->outputs.size(); ++i)
      os << (i ? ", " : "") << value_ref(n->outputs[i]) << " : " << n->outputs[i]->type.str();
    os << " = " << n->kind();
    if (!n->attrs.empty()) {
      os << "[";
      for (size_t i = 0; i < n->attrs.size(); ++i) os << (i ? ", " : "") << n->attrs[i].first << "=" << attr_str(n->attrs[i].second);
      os << "]";
    }
    os << "(";
    for (size_t i = 0; i < n->inputs.size(); ++i) os << (i ? ", " : "") << value_ref(n->inputs[i]);
    os << ")";
    if (n->mutates) os << "  # writes " << value_ref(n->inputs[0]);
    os << "\n";
    if (const Graph* sub = fusion_subgraph(*n)) {
      std::string inner = sub->str(), line;
      for (char ch : inner) {
        line += ch;
        if (ch == '\n') os << "    | " << line, line.clear();
      }
    }
  }
  os << "  return (";
  for (size_t i = 0; i < outputs_.size(); ++i) os << (i ? ", " : "") << value_ref(outputs_[i]);
  os << ")\n";
  return os.str();
}

std::string Graph::to_dot() const {
  std::ostringstream os;
  os << "digraph G {\n  rankdir=TB;\n  node [fontname=\"monospace\"];\n";
  auto source = [&](const Value* v) {
    if (v->node) {
      for (size_t k = 0; k < nodes_.size(); ++k)
        if (nodes_[k].get() == v->node) return "n" + std::to_string(k);
    }
    return "v" + std::to_string(v->id);
  };
  for (const Value* v : inputs_) os << "  v" << v->id << " [shape=box, label=\"" << value_ref(v) << "\\n" << v->type.str() << "\"];\n";
  for (const Value* v : params_) os << "  v" << v->id << " [shape=box, style=dashed, label=\"" << value_ref(v) << "\"];\n";
  for (const auto& [v, t] : constants_) os << "  v" << v->id << " [shape=box, style=dotted, label=\"constant " << v->type.str() << "\"];\n";
  for (size_t k = 0; k < nodes_.size(); ++k) {
    const Node& n = *nodes_[k];
    const char* color = n.op->fusion == tracing::Fusion::Pointwise   ? "lightblue"
                        : n.op->fusion == tracing::Fusion::Reduction ? "lightyellow"
                        : n.op->fusion == tracing::Fusion::View      ? "lightgrey"
                                                                     : "white";
    os << "  n" << k << " [shape=ellipse, style=filled, fillcolor=" << color << ", label=\"" << n.kind() << "\"];\n";
    for (const Value* i : n.inputs)
      if (i) os << "  " << source(i) << " -> n" << k << " [label=\"" << value_ref(i) << "\"];\n";
  }
  for (size_t i = 0; i < outputs_.size(); ++i)
    os << "  out" << i << " [shape=box, label=\"output " << i << "\"];\n  " << source(outputs_[i]) << " -> out" << i << ";\n";
  os << "}\n";
  return os.str();
}

}  // namespace ember::jit
