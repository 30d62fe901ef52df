// CPU kernels for arithmetic, casts and fills.
#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {

// A kernel applying `f` elementwise to the inputs, all of the output's dtype.
template <class F>
KernelFn same_type(F f) {
  return [f](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
    visit_dtype(out[0].dtype(), [&]<class T>() {
      // Arithmetic on bools computes in int and narrows back, as NumPy does for add and mul.
      using C = std::conditional_t<std::is_same_v<T, bool>, int, T>;
      if constexpr (std::is_invocable_v<F, C, C>)
        map<T, T, T>(out[0], [&](T a, T b) { return T(f(C(a), C(b))); }, in[0], in[1]);
      else
        map<T, T>(out[0], [&](T a) { return T(f(C(a))); }, in[0]);
    });
  };
}

SPIRE_REGISTER_KERNEL("add", DeviceKind::CPU, same_type([](auto a, auto b) { return a + b; }));
SPIRE_REGISTER_KERNEL("sub", DeviceKind::CPU, same_type([](auto a, auto b) { return a - b; }));
SPIRE_REGISTER_KERNEL("mul", DeviceKind::CPU, same_type([](auto a, auto b) { return a * b; }));
SPIRE_REGISTER_KERNEL("div", DeviceKind::CPU, same_type([](auto a, auto b) { return a / b; }));
SPIRE_REGISTER_KERNEL("neg", DeviceKind::CPU, same_type([](auto a) { return -a; }));

SPIRE_REGISTER_KERNEL("cast", DeviceKind::CPU,
                      [](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
                        copy_into(in[0], out[0]);
                      });

void fill(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  fill_value(out[0], a.get<Scalar>("value"));
}
SPIRE_REGISTER_KERNEL("full", DeviceKind::CPU, fill);

}  // namespace

void fill_value(Tensor& t, Scalar v) {
  visit_dtype(t.dtype(), [&]<class T>() {
    T x = v.to<T>();
    T* p = t.data<T>();
    std::fill(p, p + t.numel(), x);
  });
}

}  // namespace spire::cpu
