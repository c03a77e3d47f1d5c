// LibTorch compatibility: caffe2::TypeMeta, the element type Tensor::dtype() returns.
#pragma once
#include <ostream>
#include <string_view>

#include "c10/ember_namespaces.h"

namespace caffe2 {
using TypeMeta = ::ember::TypeMeta;  // ember/core/dtype.h
}  // namespace caffe2

namespace c10 {
inline caffe2::TypeMeta scalarTypeToTypeMeta(ScalarType type) { return caffe2::TypeMeta(type); }
inline ScalarType typeMetaToScalarType(caffe2::TypeMeta meta) { return meta.toScalarType(); }
inline ScalarType typeMetaToScalarType(ScalarType type) { return type; }
}  // namespace c10
