#include "ember/serialize/archive.h"

#include <cstdio>
#include <cstdlib>
#include <istream>
#include <iterator>
#include <ostream>
#include <set>

#include "ember/autograd/grad_mode.h"
#include "ember/serialize/safetensors.h"

namespace ember::serialize {

namespace {

// ember's typed values live in the metadata under this prefix, as "<type>:<text>".
constexpr const char* kValuePrefix = "ember.value.";
constexpr const char* kRequiresGradPrefix = "ember.requires_grad.";

std::string encode(const IValue& v) {
  if (v.isBool()) return v.toBool() ? "bool:true" : "bool:false";
  if (v.isInt()) return "int:" + std::to_string(v.toInt());
  if (v.isDouble()) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%a", v.toDouble());  // hexadecimal: exact round trip
    return std::string("double:") + buf;
  }
  if (v.isString()) return "str:" + v.toStringRef();
  std::string s = "ints:";
  const auto& ints = v.toIntVector();
  for (size_t i = 0; i < ints.size(); ++i) s += (i ? "," : "") + std::to_string(ints[i]);
  return s;
}

int64_t parse_int(const std::string& text, const std::string& key) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  EMBER_CHECK(!text.empty() && errno == 0 && *end == '\0', "InputArchive: value '", key, "' holds '", text,
              "', not an integer");
  return v;
}

IValue decode(const std::string& s, const std::string& key) {
  const size_t colon = s.find(':');
  EMBER_CHECK(colon != std::string::npos, "InputArchive: value '", key, "' is not a typed ember value: '", s, "'");
  const std::string type = s.substr(0, colon), text = s.substr(colon + 1);
  if (type == "bool") {
    EMBER_CHECK(text == "true" || text == "false", "InputArchive: value '", key, "' holds '", text, "', not a bool");
    return IValue(text == "true");
  }
  if (type == "int") return IValue(parse_int(text, key));
  if (type == "double") {
    char* end = nullptr;
    const double d = std::strtod(text.c_str(), &end);
    EMBER_CHECK(!text.empty() && *end == '\0', "InputArchive: value '", key, "' holds '", text, "', not a double");
    return IValue(d);
  }
  if (type == "str") return IValue(text);
  EMBER_CHECK(type == "ints", "InputArchive: value '", key, "' has unknown type '", type, "'");
  std::vector<int64_t> ints;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    ints.push_back(parse_int(text.substr(pos, comma - pos), key));
    pos = comma + 1;
  }
  return IValue(std::move(ints));
}

}  // namespace

void OutputArchive::check_new_key(const std::string& key) const {
  EMBER_CHECK(!key.empty(), "OutputArchive: empty key");
  EMBER_CHECK(!tensors_.count(key) && !values_.count(key), "OutputArchive: key '", key, "' written twice");
}

void OutputArchive::write(const std::string& key, const Tensor& tensor, bool is_buffer) {
  check_new_key(key);
  EMBER_CHECK(tensor.defined(), "OutputArchive: tensor '", key, "' is undefined");
  tensors_[key] = tensor.detach();
  if (!is_buffer && tensor.requires_grad()) requires_grad_.insert(key);
}

void OutputArchive::write(const std::string& key, const OutputArchive& nested) {
  for (const auto& [k, t] : nested.tensors_) write(key + "." + k, t, /*is_buffer=*/true);
  for (const std::string& k : nested.requires_grad_) requires_grad_.insert(key + "." + k);
  for (const auto& [k, v] : nested.values_) {
    check_new_key(key + "." + k);
    values_[key + "." + k] = v;
  }
}

void OutputArchive::write(const std::string& key, const IValue& value) {
  if (value.isTensor()) return write(key, value.toTensor());
  EMBER_CHECK(!value.isNone(), "OutputArchive: value '", key, "' is None");
  check_new_key(key);
  values_[key] = encode(value);
}

std::string OutputArchive::to_bytes() const {
  std::map<std::string, std::string> metadata{{"format", "pt"}};  // as safetensors.torch writes
  for (const auto& [k, v] : values_) metadata[kValuePrefix + k] = v;
  for (const std::string& k : requires_grad_) metadata[kRequiresGradPrefix + k] = "true";
  return to_safetensors(tensors_, metadata);
}

void OutputArchive::save_to(const std::string& filename) const { write_file_atomic(filename, to_bytes()); }

void OutputArchive::save_to(std::ostream& stream) const {
  const std::string bytes = to_bytes();
  stream.write(bytes.data(), std::streamsize(bytes.size()));
  EMBER_CHECK(stream.good(), "OutputArchive::save_to: writing ", bytes.size(), " bytes to the stream failed");
}

void OutputArchive::save_to(const std::function<size_t(const void*, size_t)>& func) const {
  EMBER_CHECK(func != nullptr, "OutputArchive::save_to: the write function is empty");
  const std::string bytes = to_bytes();
  const size_t written = func(bytes.data(), bytes.size());
  EMBER_CHECK(written == bytes.size(), "OutputArchive::save_to: the write function wrote ", written, " of ",
              bytes.size(), " bytes");
}

void InputArchive::adopt(SafetensorsContents contents) {
  auto values = std::make_shared<std::map<std::string, std::string>>();
  auto requires_grad = std::make_shared<std::set<std::string>>();
  foreign_.clear();
  for (auto& [k, v] : contents.metadata) {
    if (k.rfind(kValuePrefix, 0) == 0) (*values)[k.substr(std::strlen(kValuePrefix))] = v;
    else if (k.rfind(kRequiresGradPrefix, 0) == 0 && v == "true") requires_grad->insert(k.substr(std::strlen(kRequiresGradPrefix)));
    else foreign_[k] = v;
  }
  requires_grad_ = std::move(requires_grad);
  tensors_ = std::make_shared<std::map<std::string, Tensor>>(std::move(contents.tensors));
  values_ = std::move(values);
  prefix_.clear();
}

void InputArchive::load_from(const void* data, size_t size) {
  source_ = "buffer";
  adopt(from_safetensors(data, size, source_));
}

void InputArchive::load_from(const std::function<size_t(uint64_t, void*, size_t)>& read_func,
                             const std::function<size_t()>& size_func) {
  EMBER_CHECK(read_func != nullptr && size_func != nullptr, "InputArchive::load_from: a read or size function is empty");
  const size_t size = size_func();
  std::string bytes(size, '\0');
  size_t pos = 0;
  while (pos < size) {
    const size_t got = read_func(pos, bytes.data() + pos, size - pos);
    EMBER_CHECK(got > 0 && got <= size - pos, "InputArchive::load_from: the read function returned ", got,
                " bytes at position ", pos, " of ", size);
    pos += got;
  }
  source_ = "read function";
  adopt(from_safetensors(bytes.data(), bytes.size(), source_));
}

void InputArchive::load_from(const std::string& filename) {
  source_ = "'" + filename + "'";
  adopt(load_file(filename));
}

void InputArchive::load_from(std::istream& stream) {
  const std::string bytes((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
  source_ = "stream";
  adopt(from_safetensors(bytes.data(), bytes.size(), source_));
}

void InputArchive::missing(const std::string& key, const char* what) const {
  EMBER_ERROR("InputArchive: ", source_, " has no ", what, " '", qualified(key), "'");
}

bool InputArchive::try_read(const std::string& key, Tensor& tensor, bool /*is_buffer*/) {
  auto it = tensors_->find(qualified(key));
  if (it == tensors_->end()) return false;
  const Tensor& stored = it->second;
  NoGradGuard no_grad;
  if (tensor.defined() && tensor.sizes() == stored.sizes()) {
    tensor.copy_(stored);
  } else {
    const bool grad = tensor.defined() ? tensor.requires_grad() : requires_grad_->count(qualified(key)) > 0;
    tensor = stored.clone();
    if (grad && (tensor.is_floating_point() || tensor.is_complex())) tensor.requires_grad_(true);
  }
  return true;
}

void InputArchive::read(const std::string& key, Tensor& tensor, bool is_buffer) {
  if (!try_read(key, tensor, is_buffer)) missing(key, "tensor");
}

bool InputArchive::try_read(const std::string& key, InputArchive& nested) {
  const std::string p = qualified(key) + ".";
  auto starts = [&](const std::string& k) { return k.compare(0, p.size(), p) == 0; };
  bool any = false;
  for (auto it = tensors_->lower_bound(p); it != tensors_->end() && starts(it->first); ++it) any = true;
  for (auto it = values_->lower_bound(p); it != values_->end() && starts(it->first); ++it) any = true;
  if (!any) return false;
  nested.tensors_ = tensors_;
  nested.values_ = values_;
  nested.requires_grad_ = requires_grad_;
  nested.foreign_ = foreign_;
  nested.prefix_ = p;
  nested.source_ = source_;
  return true;
}

void InputArchive::read(const std::string& key, InputArchive& nested) {
  if (!try_read(key, nested)) missing(key, "nested archive");
}

bool InputArchive::try_read(const std::string& key, IValue& value) {
  auto it = values_->find(qualified(key));
  if (it != values_->end()) {
    value = decode(it->second, qualified(key));
    return true;
  }
  auto t = tensors_->find(qualified(key));
  if (t == tensors_->end()) return false;
  value = IValue(t->second.clone());
  return true;
}

void InputArchive::read(const std::string& key, IValue& value) {
  if (!try_read(key, value)) missing(key, "value");
}

std::vector<std::string> InputArchive::keys() const {
  std::set<std::string> out;
  auto add = [&](const std::string& k) {
    if (k.compare(0, prefix_.size(), prefix_) != 0) return;
    const std::string rest = k.substr(prefix_.size());
    out.insert(rest.substr(0, rest.find('.')));
  };
  for (const auto& kv : *tensors_) add(kv.first);
  for (const auto& kv : *values_) add(kv.first);
  return {out.begin(), out.end()};
}

}  // namespace ember::serialize
