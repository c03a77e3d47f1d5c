// MemoryFormat: the order of a dense tensor's strides. ChannelsLast is NHWC strides on
// NCHW sizes; ChannelsLast3d is NDHWC on NCDHW. Preserve asks an op to keep its input's.
#pragma once
#include <cstdint>
#include <iosfwd>

namespace ember {

enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };
std::ostream& operator<<(std::ostream& os, MemoryFormat f);

// LibTorch's enum-like names: torch::MemoryFormat::ChannelsLast or at::kChannelsLast
constexpr MemoryFormat kContiguousFormat = MemoryFormat::Contiguous;
constexpr MemoryFormat kChannelsLast = MemoryFormat::ChannelsLast;
constexpr MemoryFormat kChannelsLast3d = MemoryFormat::ChannelsLast3d;
constexpr MemoryFormat kPreserveFormat = MemoryFormat::Preserve;

enum class Layout : int8_t { Strided };
constexpr Layout kStrided = Layout::Strided;
std::ostream& operator<<(std::ostream& os, Layout l);

}  // namespace ember
