// What the benchmarks need to know of a GPU: its memory bandwidth, as the device reports it and as
// measured, and a way to wait for the cuda platform's work (a Simulation's steps on "cuda" return
// once the kernels are queued).
//
// Peak bandwidth: 2 x memory clock x bus width / 8 (double data rate, as NVIDIA quotes it: 3.35
// TB/s for an H100 SXM's HBM3), from the device attributes cudaDevAttrMemoryClockRate (kHz) and
// cudaDevAttrGlobalMemoryBusWidth (bits). Measured bandwidth: a cudaMemcpy device-to-device of a
// large buffer moves each byte twice (read and write); the figure is 2 x bytes / time, the best of
// a few copies after a warm-up, which is what a streaming kernel can hope for.
#pragma once
#include <cstddef>
#include <string>

namespace spire::elec::cuda {

struct DeviceMemoryInfo {
  std::string name;
  double memory_clock_hz = 0;
  int bus_width_bits = 0;
  size_t total_bytes = 0;
  double peak_bandwidth = 0;      // bytes/s, from the attributes
  double measured_bandwidth = 0;  // bytes/s, device-to-device copy (0 unless measured)
};

// ConfigError when there is no such device. measure: also time the copies (about 0.1 s).
DeviceMemoryInfo device_memory_info(int device, bool measure);

// Waits until every stream of `device` is idle (cudaDeviceSynchronize).
void synchronize_device(int device);

}  // namespace spire::elec::cuda
