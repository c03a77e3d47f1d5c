// The op table: one OpDef per op is the single source of truth for its name, accepted
// dtypes, kernels per device (CPU kernels per instruction set), derivative slots, autocast
// policy and fusion class. See DESIGN.md "The op table" and Note [Op definitions].
#pragma once
#include <array>
#include <atomic>
#include <functional>
#include <string_view>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/core/macros.h"
#include "ember/ops/autocast_list.h"

namespace ember {
class Tensor;
namespace autograd { struct VjpCtx; struct JvpCtx; }

enum class FusionClass : uint8_t { Pointwise, Reduction, View, Opaque };

// How a pointwise op's result dtype follows from its (promoted) input dtype.
enum class ResultKind : uint8_t {
  Same,        // result dtype = common input dtype (add, neg, floor)
  IntToFloat,  // bool/integer inputs compute in the default float dtype (exp, div, sqrt)
  Bool,        // result is bool (isnan, eq, logical_and)
  ToReal,      // complex inputs give their real dtype (abs)
  IntToFloatToReal,  // both: angle
};

// The CPU kernel variants: one per instruction set the kernels were compiled for.
// The kernel instruction sets (CMakeLists.txt, EMBER_CPU_CAPABILITIES): each architecture's
// baseline, and its wide set (x86-64: AVX-512 F/BW/VL/DQ; 64-bit Arm: SVE), which shares index 1.
enum class CpuCapability : uint8_t { Default = 0, AVX512 = 1, SVE = 1, NumCapabilities = 2 };
CpuCapability best_cpu_capability();

// What an op's backward formula reads: the graph keeps only these tensors.
enum class Saves : uint8_t { Nothing = 0, Inputs = 1, Result = 2, Both = 3 };

// Derivatives, attached to the entry where it is defined (ops/pointwise_entries.cpp for
// the pointwise table).
using VjpFn = std::vector<Tensor> (*)(const autograd::VjpCtx&);
using JvpFn = Tensor (*)(const autograd::JvpCtx&);

struct OpInfo {
  std::string_view name;
  FusionClass fusion = FusionClass::Opaque;
  DtypeSet dtypes = kAllTypes;
  ResultKind result_kind = ResultKind::Same;
  VjpFn vjp = nullptr;
  JvpFn jvp = nullptr;
  Saves saves = Saves::Inputs;
  bool differentiable = true;  // false: results never require grad (PyTorch's non_differentiable)
  std::string_view node_name{};  // the autograd node's stem ("div" for div_true); empty: name
  // Its autocast policy per device type, from the autocast list by name (never spelled by an
  // entry; None when the list does not name the op). The drivers apply it.
  AutocastPolicies autocast = autocast::find_policies(name);

  // Every OpInfo registers itself; the generic op tests and the JIT walk this list.
  static const std::vector<OpInfo*>& all();
  static OpInfo* find(std::string_view name);

 protected:
  void register_self();
};

// Kernels register by op name, device and CPU instruction set (kernel files are compiled
// once per instruction set, so they cannot name the OpDef object directly).
void register_kernel(std::string_view op, DeviceType d, CpuCapability cap, void* fn);
void* lookup_kernel(std::string_view op, DeviceType d);

template <class Fn>
struct KernelRegistrar {
  KernelRegistrar(std::string_view op, DeviceType d, CpuCapability cap, Fn fn) {
    register_kernel(op, d, cap, reinterpret_cast<void*>(fn));
  }
};

// An op whose kernels have signature Fn (a plain function pointer type).
template <class Fn>
struct OpDef : OpInfo {
  explicit OpDef(OpInfo info) : OpInfo(info) { register_self(); }
  OpDef(const OpDef&) = delete;

  // The kernel for a device (the best CPU instruction set); null when there is none.
  Fn kernel(DeviceType d) const {
    auto& slot = kernels_[int(d)];
    Fn fn = slot.load(std::memory_order_acquire);
    if (EMBER_UNLIKELY(!fn)) {
      fn = reinterpret_cast<Fn>(lookup_kernel(name, d));
      slot.store(fn, std::memory_order_release);
    }
    return fn;
  }

 private:
  mutable std::array<std::atomic<Fn>, kNumDeviceTypes> kernels_{};
};
}  // namespace ember
