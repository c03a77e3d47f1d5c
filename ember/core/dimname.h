// Dimension names (PyTorch's named tensors, a prototype feature): at::Symbol, at::Dimname and
// DimnameList, so that LibTorch code naming dimensions compiles.
//
// Note [Named tensors]: ember does not implement named tensors. Every tensor is unnamed:
// names() answers one wildcard per dimension (as PyTorch does for an unnamed tensor),
// has_names() is false, and refine_names / rename accept only wildcards (an unnamed tensor
// stays unnamed); naming a dimension throws an error that says named tensors are not
// supported. The alternative, storing names without PyTorch's propagation rules through
// every op, would silently lose them.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "ember/core/array_ref.h"

namespace ember {

// An interned string in PyTorch (namespace::name); here the qualified string itself.
class Symbol {
 public:
  Symbol() = default;
  static Symbol fromQualString(const std::string& s);
  static Symbol dimname(const std::string& s) { return Symbol("dimname::" + s); }
  static Symbol attr(const std::string& s) { return Symbol("attr::" + s); }
  static Symbol aten(const std::string& s) { return Symbol("aten::" + s); }
  const std::string& toQualString() const { return qual_; }
  std::string toUnqualString() const;
  std::string ns() const;
  const std::string& toDisplayString() const { return qual_; }
  bool is_dimname() const { return ns() == "dimname"; }
  bool operator==(const Symbol& o) const { return qual_ == o.qual_; }
  bool operator!=(const Symbol& o) const { return qual_ != o.qual_; }

 private:
  explicit Symbol(std::string qual) : qual_(std::move(qual)) {}
  std::string qual_;
};

enum class NameType : uint8_t { BASIC, WILDCARD };

class Dimname {
 public:
  static Dimname fromSymbol(Symbol name);
  static Dimname wildcard() { return Dimname(Symbol::dimname("*"), NameType::WILDCARD); }
  // A Python identifier, or "*".
  static bool isValidName(const std::string& name);

  NameType type() const { return type_; }
  Symbol symbol() const { return name_; }
  bool isBasic() const { return type_ == NameType::BASIC; }
  bool isWildcard() const { return type_ == NameType::WILDCARD; }
  bool matches(Dimname other) const { return isWildcard() || other.isWildcard() || name_ == other.name_; }
  std::optional<Dimname> unify(Dimname other) const;

 private:
  Dimname(Symbol name, NameType type) : name_(std::move(name)), type_(type) {}
  Symbol name_;
  NameType type_;
};

using DimnameList = ArrayRef<Dimname>;

inline bool operator==(const Dimname& a, const Dimname& b) { return a.type() == b.type() && a.symbol() == b.symbol(); }
inline bool operator!=(const Dimname& a, const Dimname& b) { return !(a == b); }
std::ostream& operator<<(std::ostream& out, const Dimname& dimname);

// One wildcard per dimension, for names() of an unnamed tensor (at most 64 dimensions, as
// PyTorch's kMaxNamedTensorDim).
DimnameList default_names(size_t len);

}  // namespace ember
