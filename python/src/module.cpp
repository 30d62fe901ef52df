// spire._C: the compiled half of `import spire`.
#include "common.h"

PYBIND11_MODULE(_C, m) {
  using namespace spire::python;
  m.doc() = "Spire engine bindings; import spire instead of this module.";
  m.attr("__version__") = SPIRE_VERSION;
  bind_errors(m);
  bind_dtypes(m);
  bind_tensor(m);
  bind_factories(m);
  bind_random(m);
  bind_fft(m);
  bind_conv(m);
  bind_autodiff(m);
  bind_taylor(m);
  bind_optim(m);
  bind_distributions(m);
  bind_nn(m);  // before bind_nn_layers, which adds to the submodule it makes
  bind_nn_layers(m);
  bind_nn_pooling(m);
  bind_data(m);
  bind_custom_ops(m);
  bind_train(m);
  bind_parallel(m);
  bind_parallel_ops(m);
  bind_data_parallel(m);
  bind_rl(m);
  bind_flow(m);
  bind_sponge(m);
  bind_elec(m);
}
