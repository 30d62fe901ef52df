// Tensors to Loops: broadcasting by zero strides, then merging dimensions that are contiguous
// across every operand, so that most loops become one dense row and take the fast path.
#include "engine/backends/cuda/loop.h"

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
  // Merge runs of dimensions contiguous across all operands; drop size-1 dimensions.
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> strides(N);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !sizes.empty();
    for (int k = 0; k < N && merge; ++k) merge = strides[k].back() == full[k][d] * shape[d];
    if (merge) {
      sizes.back() *= shape[d];
      for (int k = 0; k < N; ++k) strides[k].back() = full[k][d];
    } else {
      sizes.push_back(shape[d]);
      for (int k = 0; k < N; ++k) strides[k].push_back(full[k][d]);
    }
  }
  if (sizes.empty()) {
    sizes.push_back(1);
    for (auto& s : strides) s.push_back(1);
  }
  SPIRE_CHECK(int(sizes.size()) <= kMaxDims, ValueError, "cuda: an operand of shape ", shape_str(shape),
              " has ", sizes.size(), " non-mergeable dimensions; CUDA kernels take at most ", kMaxDims,
              " (make it contiguous first)");
  L.ndim = int(sizes.size());
  L.numel = numel_of(shape);
  L.contiguous = L.ndim == 1;
  for (int d = 0; d < L.ndim; ++d) {
    L.sizes[d] = sizes[d];
    for (int k = 0; k < N; ++k) {
      L.strides[k][d] = strides[k][d];
      if (L.ndim == 1 && strides[k][d] != 1) L.contiguous = false;
    }
  }
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
