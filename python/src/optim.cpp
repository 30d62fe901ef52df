// Bindings of the optim API (being written).
#include "common.h"

namespace spire::python {
void bind_optim(py::module_&) {}
}  // namespace spire::python
