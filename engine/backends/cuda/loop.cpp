// Tensors to Loops: broadcasting by zero strides, then merging dimensions that are contiguous
// across every operand, so that most loops become one dense row and take the fast path.
#include "engine/backends/cuda/loop.h"

#include "engine/backends/cuda/loop_plan.h"
#include "engine/core/error.h"

namespace spire::cuda {

static_assert(int(Elem::Bool) == int(DType::Bool) && int(Elem::Int32) == int(DType::Int32) &&
              int(Elem::Int64) == int(DType::Int64) && int(Elem::Float32) == int(DType::Float32) &&
              int(Elem::Float64) == int(DType::Float64) && int(Elem::Complex64) == int(DType::Complex64) &&
              int(Elem::Complex128) == int(DType::Complex128));

Elem elem(DType t) { return Elem(int(t)); }

template <int N>
Loop<N> make_loop(const Shape& shape, const std::vector<Tensor>& operands) {
  SPIRE_CHECK(int(operands.size()) == N, ValueError, "cuda loop: ", operands.size(), " operands for a ",
              N, "-operand kernel");
  Loop<N> L;
  std::vector<Shape> full(N);
  for (int k = 0; k < N; ++k) {
    full[k] = broadcast_strides(operands[k], shape);
    L.data[k] = operands[k].raw_data();
    L.elem[k] = elem(operands[k].dtype());
  }
  const int dims = plan_loop<N>(shape, full, L);
  SPIRE_CHECK(dims <= kMaxDims, ValueError, "cuda: an operand of shape ", shape_str(shape), " has ", dims,
              " non-mergeable dimensions; CUDA kernels take at most ", kMaxDims, " (make it contiguous first)");
  return L;
}

template <int N>
Loop<N> make_loop(const Tensor& out, std::initializer_list<Tensor> ins) {
  std::vector<Tensor> ops{out};
  ops.insert(ops.end(), ins.begin(), ins.end());
  return make_loop<N>(out.shape(), ops);
}

#define SPIRE_LOOP_INSTANCES(N)                                                  \
  template Loop<N> make_loop<N>(const Shape&, const std::vector<Tensor>&);     \
  template Loop<N> make_loop<N>(const Tensor&, std::initializer_list<Tensor>);
SPIRE_LOOP_INSTANCES(1)
SPIRE_LOOP_INSTANCES(2)
SPIRE_LOOP_INSTANCES(3)
SPIRE_LOOP_INSTANCES(4)
SPIRE_LOOP_INSTANCES(5)
SPIRE_LOOP_INSTANCES(6)
#undef SPIRE_LOOP_INSTANCES

}  // namespace spire::cuda
