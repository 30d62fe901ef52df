// Where a tensor's memory lives. Backends register kernels per DeviceKind.
#pragma once
#include <string>

namespace spire {

enum class DeviceKind : uint8_t { CPU, CUDA };
constexpr int kNumDeviceKinds = 2;

struct Device {
  DeviceKind kind = DeviceKind::CPU;
  int index = 0;
  bool operator==(const Device&) const = default;
  std::string str() const;
  static Device parse(const std::string& s);  // "cpu", "cuda", "cuda:1"
};

inline const Device kCPU{DeviceKind::CPU, 0};

}  // namespace spire
