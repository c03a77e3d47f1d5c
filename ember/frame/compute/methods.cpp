// Column's compute members (declared in the compute block of column.h): one-line forwarders
// to the free functions of compute.h.
#include "ember/frame/compute/compute.h"

namespace ember::frame {

Column Column::is_null() const { return frame::is_null(*this); }
Column Column::is_valid() const { return frame::is_valid(*this); }
Column Column::fill_null(const Value& value) const { return frame::fill_null(*this, value); }
Column Column::drop_null() const { return frame::drop_null(*this); }
Column Column::cast(const DType& dtype, const CastOptions& options) const { return frame::cast(*this, dtype, options); }
Column Column::isin(const std::vector<Value>& values) const { return frame::isin(*this, values); }
Column Column::abs() const { return frame::abs(*this); }
Column Column::ceil() const { return frame::ceil(*this); }
Column Column::floor() const { return frame::floor(*this); }
Column Column::round(int decimals) const { return frame::round(*this, decimals); }
Column Column::log() const { return frame::log(*this); }
Column Column::exp() const { return frame::exp(*this); }
Column Column::sqrt() const { return frame::sqrt(*this); }
Column Column::pow(const Value& exponent) const { return frame::pow(*this, exponent); }
Column Column::where(const Column& mask) const { return frame::filter(*this, mask); }
Column Column::filter(const Column& mask) const { return frame::filter(*this, mask); }
Column Column::take(const Column& indices) const { return frame::take(*this, indices); }
Value Column::sum() const { return frame::sum(*this); }
double Column::mean() const { return frame::mean(*this); }
Value Column::min() const { return frame::min(*this); }
Value Column::max() const { return frame::max(*this); }
double Column::std(int64_t ddof) const { return frame::stddev(*this, ddof); }
double Column::var(int64_t ddof) const { return frame::var(*this, ddof); }
double Column::median() const { return frame::median(*this); }
double Column::quantile(double q) const { return frame::quantile(*this, q); }
int64_t Column::count() const { return frame::count(*this); }
bool Column::any() const { return frame::any(*this); }
bool Column::all() const { return frame::all(*this); }
int64_t Column::argmin() const { return frame::argmin(*this); }
int64_t Column::argmax() const { return frame::argmax(*this); }
Column Column::cumsum() const { return frame::cumsum(*this); }
Column Column::unique() const { return frame::unique(*this); }
Column Column::value_counts(bool dropna) const { return frame::value_counts(*this, dropna); }
int64_t Column::nunique(bool dropna) const { return frame::nunique(*this, dropna); }
Column Column::sort(const SortOptions& options) const { return frame::sort(*this, options); }
Column Column::argsort(const SortOptions& options) const { return frame::argsort(*this, options); }
StringMethods Column::str() const { return StringMethods(*this); }
ListMethods Column::list() const { return ListMethods(*this); }
StructMethods Column::struct_() const { return StructMethods(*this); }

}  // namespace ember::frame
