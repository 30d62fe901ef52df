#include "engine/core/device.h"

#include "engine/core/error.h"

namespace spire {

std::string Device::str() const {
  return kind == DeviceKind::CPU ? "cpu" : "cuda:" + std::to_string(index);
}

Device Device::parse(const std::string& s) {
  if (s == "cpu") return kCPU;
  if (s == "cuda") return {DeviceKind::CUDA, 0};
  if (s.rfind("cuda:", 0) == 0) {
    try {
      return {DeviceKind::CUDA, std::stoi(s.substr(5))};
    } catch (const std::exception&) {
    }
  }
  throw ValueError("unknown device '" + s + "'; allowed: cpu, cuda, cuda:N");
}

}  // namespace spire
