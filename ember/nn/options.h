// Every option struct of nn (LibTorch's torch/nn/options.h): ember/nn/options/, one header per
// family, each with the XOptions of its modules and the XFuncOptions of its functionals.
#pragma once
#include "ember/nn/options/activation.h"
#include "ember/nn/options/linear.h"
#include "ember/nn/options/distance.h"
#include "ember/nn/options/dropout.h"
#include "ember/nn/options/embedding.h"
#include "ember/nn/options/normalization.h"
#include "ember/nn/options/loss.h"
#include "ember/nn/options/ctc.h"
#include "ember/nn/options/conv.h"
#include "ember/nn/options/pooling.h"
#include "ember/nn/options/rnn.h"
#include "ember/nn/options/adaptive_softmax.h"
#include "ember/nn/options/transformer.h"
