// Bindings of the taylor API (being written).
#include "common.h"

namespace spire::python {
void bind_taylor(py::module_&) {}
}  // namespace spire::python
