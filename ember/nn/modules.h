// Every nn module (LibTorch's torch/nn/modules.h): ember/nn/modules/, one header per family;
// each includes its family's options and functionals.
#pragma once
#include "ember/nn/modules/activation.h"
