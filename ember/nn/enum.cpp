#include "ember/nn/enum.h"

#include "ember/core/error.h"

namespace ember::enumtype {

std::string get_enum_name(Reduction v) {
  switch (v) {
    case Reduction::None: return "kNone";
    case Reduction::Mean: return "kMean";
    case Reduction::Sum: return "kSum";
    case Reduction::BatchMean: return "kBatchMean";
  }
  return "k?";
}
std::string get_enum_name(PadMode v) {
  switch (v) {
    case PadMode::Constant: return "kConstant";
    case PadMode::Reflect: return "kReflect";
    case PadMode::Replicate: return "kReplicate";
    case PadMode::Circular: return "kCircular";
  }
  return "k?";
}
std::string get_enum_name(InterpolateMode v) {
  switch (v) {
    case InterpolateMode::Nearest: return "kNearest";
    case InterpolateMode::Linear: return "kLinear";
    case InterpolateMode::Bilinear: return "kBilinear";
    case InterpolateMode::Bicubic: return "kBicubic";
    case InterpolateMode::Trilinear: return "kTrilinear";
    case InterpolateMode::Area: return "kArea";
    case InterpolateMode::NearestExact: return "kNearestExact";
  }
  return "k?";
}
std::string get_enum_name(GridSampleMode v) {
  switch (v) {
    case GridSampleMode::Bilinear: return "kBilinear";
    case GridSampleMode::Nearest: return "kNearest";
    case GridSampleMode::Bicubic: return "kBicubic";
  }
  return "k?";
}
std::string get_enum_name(GridSamplePaddingMode v) {
  switch (v) {
    case GridSamplePaddingMode::Zeros: return "kZeros";
    case GridSamplePaddingMode::Border: return "kBorder";
    case GridSamplePaddingMode::Reflection: return "kReflection";
  }
  return "k?";
}
std::string get_enum_name(Nonlinearity v) {
  switch (v) {
    case Nonlinearity::Linear: return "kLinear";
    case Nonlinearity::Conv1D: return "kConv1D";
    case Nonlinearity::Conv2D: return "kConv2D";
    case Nonlinearity::Conv3D: return "kConv3D";
    case Nonlinearity::ConvTranspose1D: return "kConvTranspose1D";
    case Nonlinearity::ConvTranspose2D: return "kConvTranspose2D";
    case Nonlinearity::ConvTranspose3D: return "kConvTranspose3D";
    case Nonlinearity::Sigmoid: return "kSigmoid";
    case Nonlinearity::Tanh: return "kTanh";
    case Nonlinearity::ReLU: return "kReLU";
    case Nonlinearity::LeakyReLU: return "kLeakyReLU";
    case Nonlinearity::SELU: return "kSELU";
  }
  return "k?";
}
std::string get_enum_name(FanMode v) { return v == FanMode::FanIn ? "kFanIn" : "kFanOut"; }
std::string get_enum_name(RNNMode v) {
  switch (v) {
    case RNNMode::RNN_TANH: return "kRNN_TANH";
    case RNNMode::RNN_RELU: return "kRNN_RELU";
    case RNNMode::LSTM: return "kLSTM";
    case RNNMode::GRU: return "kGRU";
  }
  return "k?";
}

Reduction reduction_get_enum(Reduction r) {
  EMBER_CHECK(r == Reduction::None || r == Reduction::Mean || r == Reduction::Sum, "reduction_get_enum: ",
              r == Reduction::BatchMean ? "kBatchMean" : "the value", " is not a valid value for reduction");
  return r;
}

}  // namespace ember::enumtype
