// The enumerated options of nn (reductions, nonlinearities, padding and interpolation modes,
// recurrent cells) and LibTorch's constants for them. torch::kReLU, torch::kMean, torch::kSame
// ... are each a value of its own tag type enumtype::kReLU, ..., as in LibTorch: a tag converts
// to every ember enum that has its name and to its PyTorch string ("reflect"), so an option
// takes it whatever its type; enumtype::get_enum_name gives "kReLU" for a tag, a std::variant
// of tags or an ember enum value.
#pragma once
#include <string>
#include <type_traits>
#include <variant>

namespace ember {

// BatchMean (sum / batch size) is kl_div's only; the other losses reject it.
enum class Reduction { None, Mean, Sum, BatchMean };
enum class PadMode { Constant, Reflect, Replicate, Circular };
enum class InterpolateMode { Nearest, Linear, Bilinear, Bicubic, Trilinear, Area, NearestExact };
enum class GridSampleMode { Bilinear, Nearest, Bicubic };
enum class GridSamplePaddingMode { Zeros, Border, Reflection };

namespace nn::init {
// Nonlinearity names for calculate_gain / kaiming_* and recurrent cells.
enum class Nonlinearity { Linear, Conv1D, Conv2D, Conv3D, ConvTranspose1D, ConvTranspose2D, ConvTranspose3D,
                          Sigmoid, Tanh, ReLU, LeakyReLU, SELU };
enum class FanMode { FanIn, FanOut };
}  // namespace nn::init

namespace nn::detail {
// The cell a recurrent module runs.
enum class RNNMode { RNN_TANH, RNN_RELU, LSTM, GRU };
}  // namespace nn::detail

namespace enumtype {
#define EMBER_ENUM_TAG(Tag, str, ...)                                        \
  struct Tag {                                                               \
    constexpr Tag() {}                                                       \
    operator std::string() const { return str; } /* NOLINT */               \
    static constexpr const char* name() { return #Tag; }                     \
    __VA_ARGS__                                                              \
  };                                                                         \
  inline std::string get_enum_name(Tag) { return #Tag; }
#define EMBER_TO(Enum, v) \
  constexpr operator Enum() const { return Enum::v; } /* NOLINT */
using ::ember::nn::detail::RNNMode;
using ::ember::nn::init::FanMode;
using ::ember::nn::init::Nonlinearity;
EMBER_ENUM_TAG(kLinear, "linear", EMBER_TO(Nonlinearity, Linear) EMBER_TO(InterpolateMode, Linear))
EMBER_ENUM_TAG(kConv1D, "conv1d", EMBER_TO(Nonlinearity, Conv1D))
EMBER_ENUM_TAG(kConv2D, "conv2d", EMBER_TO(Nonlinearity, Conv2D))
EMBER_ENUM_TAG(kConv3D, "conv3d", EMBER_TO(Nonlinearity, Conv3D))
EMBER_ENUM_TAG(kConvTranspose1D, "conv_transpose1d", EMBER_TO(Nonlinearity, ConvTranspose1D))
EMBER_ENUM_TAG(kConvTranspose2D, "conv_transpose2d", EMBER_TO(Nonlinearity, ConvTranspose2D))
EMBER_ENUM_TAG(kConvTranspose3D, "conv_transpose3d", EMBER_TO(Nonlinearity, ConvTranspose3D))
EMBER_ENUM_TAG(kSigmoid, "sigmoid", EMBER_TO(Nonlinearity, Sigmoid))
EMBER_ENUM_TAG(kTanh, "tanh", EMBER_TO(Nonlinearity, Tanh))
EMBER_ENUM_TAG(kReLU, "relu", EMBER_TO(Nonlinearity, ReLU))
EMBER_ENUM_TAG(kGELU, "gelu")
EMBER_ENUM_TAG(kSiLU, "silu")
EMBER_ENUM_TAG(kMish, "mish")
EMBER_ENUM_TAG(kLeakyReLU, "leaky_relu", EMBER_TO(Nonlinearity, LeakyReLU))
EMBER_ENUM_TAG(kSELU, "selu", EMBER_TO(Nonlinearity, SELU))  // (not a LibTorch tag)
EMBER_ENUM_TAG(kFanIn, "fan_in", EMBER_TO(FanMode, FanIn))
EMBER_ENUM_TAG(kFanOut, "fan_out", EMBER_TO(FanMode, FanOut))
EMBER_ENUM_TAG(kConstant, "constant", EMBER_TO(PadMode, Constant))
EMBER_ENUM_TAG(kReflect, "reflect", EMBER_TO(PadMode, Reflect))
EMBER_ENUM_TAG(kReplicate, "replicate", EMBER_TO(PadMode, Replicate))
EMBER_ENUM_TAG(kCircular, "circular", EMBER_TO(PadMode, Circular))
EMBER_ENUM_TAG(kNearest, "nearest", EMBER_TO(InterpolateMode, Nearest) EMBER_TO(GridSampleMode, Nearest))
EMBER_ENUM_TAG(kBilinear, "bilinear", EMBER_TO(InterpolateMode, Bilinear) EMBER_TO(GridSampleMode, Bilinear))
EMBER_ENUM_TAG(kBicubic, "bicubic", EMBER_TO(InterpolateMode, Bicubic) EMBER_TO(GridSampleMode, Bicubic))
EMBER_ENUM_TAG(kTrilinear, "trilinear", EMBER_TO(InterpolateMode, Trilinear))
EMBER_ENUM_TAG(kArea, "area", EMBER_TO(InterpolateMode, Area))
EMBER_ENUM_TAG(kNearestExact, "nearest-exact", EMBER_TO(InterpolateMode, NearestExact))
EMBER_ENUM_TAG(kSum, "sum", EMBER_TO(Reduction, Sum))
EMBER_ENUM_TAG(kMean, "mean", EMBER_TO(Reduction, Mean))
EMBER_ENUM_TAG(kMax, "max")
EMBER_ENUM_TAG(kNone, "none", EMBER_TO(Reduction, None))
EMBER_ENUM_TAG(kBatchMean, "batchmean", EMBER_TO(Reduction, BatchMean))
EMBER_ENUM_TAG(kZeros, "zeros", EMBER_TO(GridSamplePaddingMode, Zeros))
EMBER_ENUM_TAG(kBorder, "border", EMBER_TO(GridSamplePaddingMode, Border))
EMBER_ENUM_TAG(kReflection, "reflection", EMBER_TO(GridSamplePaddingMode, Reflection))
EMBER_ENUM_TAG(kRNN_TANH, "RNN_TANH", EMBER_TO(RNNMode, RNN_TANH))
EMBER_ENUM_TAG(kRNN_RELU, "RNN_RELU", EMBER_TO(RNNMode, RNN_RELU))
EMBER_ENUM_TAG(kLSTM, "LSTM", EMBER_TO(RNNMode, LSTM))
EMBER_ENUM_TAG(kGRU, "GRU", EMBER_TO(RNNMode, GRU))
EMBER_ENUM_TAG(kValid, "valid")
EMBER_ENUM_TAG(kSame, "same")
#undef EMBER_TO
#undef EMBER_ENUM_TAG

// The names of ember's enum values, as LibTorch's tags print ("kMean").
std::string get_enum_name(Reduction v);
std::string get_enum_name(PadMode v);
std::string get_enum_name(InterpolateMode v);
std::string get_enum_name(GridSampleMode v);
std::string get_enum_name(GridSamplePaddingMode v);
std::string get_enum_name(Nonlinearity v);
std::string get_enum_name(FanMode v);
std::string get_enum_name(RNNMode v);

// A std::variant of tags (or of anything get_enum_name names).
template <class... Ts>
std::string get_enum_name(const std::variant<Ts...>& v) {
  return std::visit([](const auto& x) { return get_enum_name(x); }, v);
}

// at::Reduction's value for a reduction tag or variant (kNone, kMean, kSum).
Reduction reduction_get_enum(Reduction r);
template <class... Ts>
Reduction reduction_get_enum(const std::variant<Ts...>& v) {
  return std::visit([](const auto& x) -> Reduction {
    if constexpr (std::is_convertible_v<decltype(x), Reduction>) {
      return reduction_get_enum(Reduction(x));
    } else {
      return reduction_get_enum(Reduction(-1));
    }
  }, v);
}

}  // namespace enumtype

inline constexpr enumtype::kLinear kLinear{};
inline constexpr enumtype::kConv1D kConv1D{};
inline constexpr enumtype::kConv2D kConv2D{};
inline constexpr enumtype::kConv3D kConv3D{};
inline constexpr enumtype::kConvTranspose1D kConvTranspose1D{};
inline constexpr enumtype::kConvTranspose2D kConvTranspose2D{};
inline constexpr enumtype::kConvTranspose3D kConvTranspose3D{};
inline constexpr enumtype::kSigmoid kSigmoid{};
inline constexpr enumtype::kTanh kTanh{};
inline constexpr enumtype::kReLU kReLU{};
inline constexpr enumtype::kGELU kGELU{};
inline constexpr enumtype::kSiLU kSiLU{};
inline constexpr enumtype::kMish kMish{};
inline constexpr enumtype::kLeakyReLU kLeakyReLU{};
inline constexpr enumtype::kSELU kSELU{};
inline constexpr enumtype::kFanIn kFanIn{};
inline constexpr enumtype::kFanOut kFanOut{};
inline constexpr enumtype::kConstant kConstant{};
inline constexpr enumtype::kReflect kReflect{};
inline constexpr enumtype::kReplicate kReplicate{};
inline constexpr enumtype::kCircular kCircular{};
inline constexpr enumtype::kNearest kNearest{};
inline constexpr enumtype::kBilinear kBilinear{};
inline constexpr enumtype::kBicubic kBicubic{};
inline constexpr enumtype::kTrilinear kTrilinear{};
inline constexpr enumtype::kArea kArea{};
inline constexpr enumtype::kNearestExact kNearestExact{};
inline constexpr enumtype::kSum kSum{};
inline constexpr enumtype::kMean kMean{};
inline constexpr enumtype::kMax kMax{};
inline constexpr enumtype::kNone kNone{};
inline constexpr enumtype::kBatchMean kBatchMean{};
inline constexpr enumtype::kZeros kZeros{};
inline constexpr enumtype::kBorder kBorder{};
inline constexpr enumtype::kReflection kReflection{};
inline constexpr enumtype::kRNN_TANH kRNN_TANH{};
inline constexpr enumtype::kRNN_RELU kRNN_RELU{};
inline constexpr enumtype::kLSTM kLSTM{};
inline constexpr enumtype::kGRU kGRU{};
inline constexpr enumtype::kValid kValid{};
inline constexpr enumtype::kSame kSame{};

}  // namespace ember
