// Every nn::functional function (LibTorch's torch/nn/functional.h): ember/nn/functional/, one
// header per family, with ATen's positional forms of the same ops where ember defines them.
#pragma once
#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/ctc.h"
#include "ember/nn/functional/distance.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/functional/fold.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/functional/loss.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/functional/padding.h"
#include "ember/nn/functional/pixelshuffle.h"
#include "ember/nn/functional/pooling.h"
#include "ember/nn/functional/transformer.h"
#include "ember/nn/functional/upsampling.h"
#include "ember/nn/functional/vision.h"
