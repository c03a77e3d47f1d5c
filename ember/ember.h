// The umbrella header: everything in ember's tensor core.
#pragma once
#include "ember/autograd/autograd.h"
#include "ember/autograd/forward_ad.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/core/allocator.h"
#include "ember/core/generator.h"
#include "ember/core/parallel.h"
#include "ember/core/tensor.h"
#include "ember/ops/functions.h"
#include "ember/ops/indexing.h"
#include "ember/ops/tensor_literal.h"
#include "ember/ops/type_promotion.h"
