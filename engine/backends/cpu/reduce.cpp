// CPU kernels for reductions.
#include "engine/backends/cpu/reduce_loops.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {

SPIRE_REGISTER_KERNEL("sum", DeviceKind::CPU,
                      [](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
                        visit_dtype(in[0].dtype(), [&]<class T>() {
                          // Integers accumulate in int64; floats in their own type, by blocks.
                          using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, T>;
                          T* o = out[0].data<T>();
                          reduce<T, Acc>(
                              in[0], a.get<Axes>("axes"), Acc(0),
                              [](Acc acc, T v, int64_t) { return acc + Acc(v); },
                              [](Acc x, Acc y) { return x + y; },
                              [o](int64_t i, Acc v) { o[i] = T(v); });
                        });
                      });

}  // namespace
}  // namespace spire::cpu
