// Every nn module (LibTorch's torch/nn/modules.h): ember/nn/modules/, one header per family;
// each includes its family's options and functionals.
#pragma once
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/distance.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/embedding.h"
#include "ember/nn/modules/normalization.h"
#include "ember/nn/modules/loss.h"
#include "ember/nn/modules/ctc.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/pooling.h"
#include "ember/nn/modules/rnn.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/adaptive_softmax.h"
#include "ember/nn/modules/transformer.h"
