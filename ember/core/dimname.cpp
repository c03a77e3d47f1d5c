#include "ember/core/dimname.h"

#include <cctype>
#include <vector>

#include "ember/core/error.h"

namespace ember {

Symbol Symbol::fromQualString(const std::string& s) {
  EMBER_CHECK(s.find("::") != std::string::npos, "Symbol::fromQualString: '", s,
              "' is not a qualified string (namespace::name)");
  return Symbol(s);
}

std::string Symbol::toUnqualString() const {
  const size_t p = qual_.find("::");
  return p == std::string::npos ? qual_ : qual_.substr(p + 2);
}

std::string Symbol::ns() const {
  const size_t p = qual_.find("::");
  return p == std::string::npos ? std::string() : qual_.substr(0, p);
}

bool Dimname::isValidName(const std::string& name) {
  if (name.empty()) return false;
  if (name == "*") return true;
  for (size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (!(std::isalpha(c) || c == '_' || (i > 0 && std::isdigit(c)))) return false;
  }
  return true;
}

Dimname Dimname::fromSymbol(Symbol name) {
  EMBER_CHECK(name.is_dimname(), "Dimname::fromSymbol: expected a dimname symbol (Symbol::dimname), got '",
              name.toQualString(), "'");
  const std::string unqual = name.toUnqualString();
  if (unqual == "*") return wildcard();
  EMBER_CHECK(isValidName(unqual), "Invalid name: a valid identifier contains only digits, alphabetical characters "
              "and/or underscore and starts with a non-digit. got: '", unqual, "'.");
  return Dimname(std::move(name), NameType::BASIC);
}

std::optional<Dimname> Dimname::unify(Dimname other) const {
  if (other.isWildcard()) return *this;
  if (isWildcard()) return other;
  if (name_ == other.name_) return *this;
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& out, const Dimname& dimname) {
  if (dimname.isWildcard()) return out << "None";
  return out << "'" << dimname.symbol().toUnqualString() << "'";
}

DimnameList default_names(size_t len) {
  static const std::vector<Dimname> all(64, Dimname::wildcard());
  EMBER_CHECK(len <= all.size(), "names(): named tensors support at most ", all.size(), " dimensions, got ", len);
  return DimnameList(all.data(), len);
}

}  // namespace ember
