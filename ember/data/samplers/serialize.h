// `archive << sampler` and `archive >> sampler` (LibTorch's samplers/serialize.h).
#pragma once
#include "ember/data/samplers/base.h"

namespace ember::data::samplers {

template <typename BatchRequest>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Sampler<BatchRequest>& sampler) {
  sampler.save(archive);
  return archive;
}
template <typename BatchRequest>
serialize::InputArchive& operator>>(serialize::InputArchive& archive, Sampler<BatchRequest>& sampler) {
  sampler.load(archive);
  return archive;
}

}  // namespace ember::data::samplers
