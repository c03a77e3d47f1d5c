// LibTorch compatibility: c10::scalarTypeToTypeMeta / typeMetaToScalarType (c10/util/typeid.h).
#pragma once
#include "c10/util/typeid.h"
