// An insertion-ordered map with LibTorch's torch::OrderedDict interface (the container of
// a module's parameters, buffers and children).
#pragma once
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/error.h"

namespace ember {

template <class Key, class Value>
class OrderedDict {
 public:
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    const Key& key() const { return pair_.first; }
    Value& value() { return pair_.second; }
    const Value& value() const { return pair_.second; }
    Value& operator*() { return value(); }
    const Value& operator*() const { return value(); }
    Value* operator->() { return &value(); }
    const Value* operator->() const { return &value(); }
    const std::pair<Key, Value>& pair() const { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };

  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  explicit OrderedDict(std::string key_description = "Key") : key_description_(std::move(key_description)) {}
  // OrderedDict<std::string, int> d = {{"a", 1}, {"b", 2}};
  OrderedDict(std::initializer_list<Item> items) : OrderedDict("Key") {  // NOLINT
    for (const Item& item : items) insert(item.key(), item.value());
  }

  // Inserts; a key that is already present is an error.
  Value& insert(Key key, Value value) {
    EMBER_CHECK(index_.count(key) == 0, key_description_, " '", key, "' already defined");
    index_.emplace(key, items_.size());
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().value();
  }
  // Inserts every item of `other`, in order (a key already present is an error).
  void update(const OrderedDict& other) {
    for (const Item& item : other) insert(item.key(), item.value());
  }
  void update(OrderedDict&& other) {
    for (Item& item : other) insert(item.key(), std::move(item.value()));
  }
  // Inserts or replaces.
  Value& update(Key key, Value value) {
    auto it = index_.find(key);
    if (it == index_.end()) return insert(std::move(key), std::move(value));
    return items_[it->second].value() = std::move(value);
  }
  Value* find(const Key& key) {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  bool contains(const Key& key) const { return index_.count(key) > 0; }
  Value& operator[](const Key& key) {
    Value* v = find(key);
    EMBER_CHECK(v != nullptr, key_description_, " '", key, "' is not defined");
    return *v;
  }
  const Value& operator[](const Key& key) const {
    const Value* v = find(key);
    EMBER_CHECK(v != nullptr, key_description_, " '", key, "' is not defined");
    return *v;
  }
  Item& operator[](size_t i) {
    EMBER_CHECK_INDEX(i < items_.size(), "Index ", i, " is out of bounds");
    return items_[i];
  }
  const Item& operator[](size_t i) const {
    EMBER_CHECK_INDEX(i < items_.size(), "Index ", i, " is out of bounds");
    return items_[i];
  }
  Item& front() {
    EMBER_CHECK(!items_.empty(), "Called front() on an empty OrderedDict");
    return items_.front();
  }
  const Item& front() const {
    EMBER_CHECK(!items_.empty(), "Called front() on an empty OrderedDict");
    return items_.front();
  }
  Item& back() {
    EMBER_CHECK(!items_.empty(), "Called back() on an empty OrderedDict");
    return items_.back();
  }
  const Item& back() const {
    EMBER_CHECK(!items_.empty(), "Called back() on an empty OrderedDict");
    return items_.back();
  }
  void reserve(size_t n) {
    items_.reserve(n);
    index_.reserve(n);
  }
  size_t size() const { return items_.size(); }
  bool is_empty() const { return items_.empty(); }
  void clear() {
    items_.clear();
    index_.clear();
  }
  // Removes a key (keeping the order of the rest).
  void erase(const Key& key) {
    auto it = index_.find(key);
    EMBER_CHECK(it != index_.end(), "Key '", key, "' doesn't exist");
    items_.erase(items_.begin() + int64_t(it->second));
    index_.clear();
    for (size_t i = 0; i < items_.size(); ++i) index_.emplace(items_[i].key(), i);
  }

  const std::vector<Item>& items() const { return items_; }
  std::vector<Key> keys() const {
    std::vector<Key> r;
    for (const Item& it : items_) r.push_back(it.key());
    return r;
  }
  std::vector<Value> values() const {
    std::vector<Value> r;
    for (const Item& it : items_) r.push_back(it.value());
    return r;
  }
  typename std::vector<Item>::iterator begin() { return items_.begin(); }
  typename std::vector<Item>::iterator end() { return items_.end(); }
  typename std::vector<Item>::const_iterator begin() const { return items_.begin(); }
  typename std::vector<Item>::const_iterator end() const { return items_.end(); }
  const std::string& key_description() const { return key_description_; }

 private:
  std::string key_description_;
  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
};

// Equal sizes, keys and values, in order.
template <class Key, class Value>
bool operator==(const OrderedDict<Key, Value>& a, const OrderedDict<Key, Value>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i].key() == b[i].key()) || !(a[i].value() == b[i].value())) return false;
  return true;
}

}  // namespace ember
