// The non-template parts of map/transform (udf.h).
#include "ember/frame/compute/udf.h"

#include "ember/frame/compute/compute.h"

namespace ember::frame::udf_detail {

Column prepare_input(const char* op, const Column& col, InputKind kind, TypeId number, const char* arg_name) {
  const Column c = col.dtype().id() == TypeId::Dictionary ? col.dictionary_decode() : col;
  const DType& t = c.dtype();
  auto fail = [&]() {
    ::ember::detail::throw_type_error(::ember::detail::str_cat(op, ": the callable takes ", arg_name, " but the column's dtype is ",
                                             t.to_string()));
  };
  switch (kind) {
    case InputKind::Number:
      if (!(t.is_numeric() || t.id() == TypeId::Bool || t.id() == TypeId::Date32 || t.id() == TypeId::Timestamp)) fail();
      if (t.id() == TypeId::Date32 && number == TypeId::Int32) return c;
      if (t.id() == TypeId::Timestamp && number == TypeId::Int64) return c;
      return cast(c, DType(number, t.nullable()), CastOptions{true});
    case InputKind::Bool:
      if (t.id() != TypeId::Bool) fail();
      return c;
    case InputKind::String:
      if (!t.is_binary_like()) fail();
      return c;
    case InputKind::List:
      if (!t.is_list_like()) fail();
      return c;
    case InputKind::Value: return c;
  }
  return c;
}

std::unique_ptr<ColumnBuilder> result_builder(const DType& dtype) { return make_builder(dtype); }

}  // namespace ember::frame::udf_detail
