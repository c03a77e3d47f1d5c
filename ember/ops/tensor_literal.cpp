// tensor({...}) construction.
#include "ember/ops/tensor_literal.h"

#include <ostream>

#include "ember/ops/functions.h"
#include "ember/ops/type_promotion.h"

namespace ember {

TensorDataContainer::TensorDataContainer(std::initializer_list<TensorDataContainer> l) : is_list_(true) {
  children_.assign(l.begin(), l.end());
  finish_list();
}

void TensorDataContainer::finish_list() {
  sizes_ = {int64_t(children_.size())};
  if (children_.empty()) {
    dtype_ = ScalarType::Undefined;
    return;
  }
  const auto& first = children_[0];
  for (size_t i = 0; i < children_.size(); ++i) {
    const auto& c = children_[i];
    EMBER_CHECK(c.is_scalar() == first.is_scalar() && c.sizes() == first.sizes(),
                "tensor: expected all sub-lists to have sizes ", first.sizes(), " (like element 0), but got sub-list ",
                i, " with sizes ", c.sizes());
    // Mixed scalar types promote by category like PyTorch's literal parsing.
    dtype_ = i == 0 ? c.dtype_ : (c.dtype_ == ScalarType::Undefined ? dtype_ : promoteTypes(dtype_, c.dtype_));
  }
  for (int64_t s : first.sizes_) sizes_.push_back(s);
}

void TensorDataContainer::fill(Tensor& flat, int64_t& pos) const {
  if (!is_list_) {
    switch (flat.scalar_type()) {
      case kComplexDouble: flat.data_ptr<Complex<double>>()[pos++] = scalar_.toComplexDouble(); break;
      case kDouble: flat.data_ptr<double>()[pos++] = scalar_.toDouble(); break;
      default: flat.data_ptr<int64_t>()[pos++] = scalar_.toLong(); break;
    }
    return;
  }
  for (const auto& c : children_) c.fill(flat, pos);
}

Tensor TensorDataContainer::convert_to_tensor(const TensorOptions& options) const {
  // As LibTorch: Int/Long -> Long, Float/Double -> the default dtype, others kept.
  ScalarType inferred = dtype_;
  if (inferred == ScalarType::Undefined || inferred == kFloat || inferred == kDouble) inferred = get_default_dtype();
  else if (inferred == kInt) inferred = kLong;
  ScalarType dt = options.dtype_opt().value_or(inferred);
  if (!is_list_) {
    Tensor r = empty({}, options.dtype(dt).requires_grad(false));
    r.fill_(scalar_);
    if (options.requires_grad()) r.requires_grad_(true);
    return r;
  }
  // Fill through a wide staging buffer, then convert once.
  bool any_complex = isComplexType(dtype_), any_float = isFloatingType(dtype_);
  ScalarType staging = (isComplexType(dt) || any_complex) ? kComplexDouble
                     : (isFloatingType(dt) || any_float) ? kDouble : kLong;
  Tensor flat = empty({checked_numel(sizes_, "tensor")}, TensorOptions().dtype(staging));
  int64_t pos = 0;
  fill(flat, pos);
  Tensor r = flat.view(sizes_).to(options.dtype(dt).requires_grad(false));
  if (r.is_same(flat) || r.is_alias_of(flat)) r = r.clone();
  if (options.requires_grad()) r.requires_grad_(true);
  return r;
}

Tensor tensor(const TensorDataContainer& data, const TensorOptions& options) {
  return data.convert_to_tensor(options);
}

const Scalar& TensorDataContainer::scalar() const {
  EMBER_CHECK(is_scalar(), "Can only call `scalar()` on a TensorDataContainer that has `is_scalar() == true`");
  return scalar_;
}
const std::vector<TensorDataContainer>& TensorDataContainer::init_list() const {
  EMBER_CHECK(is_init_list(),
              "Can only call `init_list()` on a TensorDataContainer that has `is_init_list() == true`");
  return children_;
}
Tensor TensorDataContainer::tensor() const {
  EMBER_CHECK(is_tensor(), "Can only call `tensor()` on a TensorDataContainer that has `is_tensor() == true`");
  return convert_to_tensor(TensorOptions().dtype(dtype_ == ScalarType::Undefined ? get_default_dtype().toScalarType() : dtype_));
}
void TensorDataContainer::pretty_print_recursive(std::ostream& stream) const {
  if (!is_list_) {
    if (scalar_.isBoolean()) stream << int(scalar_.toBool());
    else if (scalar_.isIntegral(false)) stream << scalar_.toLong();
    else if (scalar_.isComplex()) stream << scalar_.toComplexDouble();
    else stream << scalar_.toDouble();
    return;
  }
  stream << "{";
  for (size_t i = 0; i < children_.size(); ++i) {
    if (i) stream << ", ";
    children_[i].pretty_print_recursive(stream);
  }
  stream << "}";
}
std::ostream& operator<<(std::ostream& stream, const TensorDataContainer& c) {
  c.pretty_print_recursive(stream);
  return stream;
}

}  // namespace ember
