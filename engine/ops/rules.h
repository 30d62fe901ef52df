// Helpers for writing op definitions: inference for common shapes of op, tangent arithmetic where
// undefined means zero, and sample inputs for the registry test.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/op.h"

namespace spire::rules {

// Output meta equal to input 0's.
std::vector<TensorMeta> same_as_input(const std::vector<Tensor>& in, const Attrs&);
// Output of the broadcast shape of all inputs, with dtype `dtype` (or input 0's when omitted).
TensorMeta broadcast_meta(const char* op, const std::vector<Tensor>& in);
// All inputs must share one dtype (the public wrappers cast before calling the primitive).
void require_same_dtype(const char* op, const std::vector<Tensor>& in);

// Casts a and b to their promoted dtype (and to a floating type when `inexact`), naming `op` in
// errors. Used by the public wrappers of binary ops before the primitive runs.
std::pair<Tensor, Tensor> promoted(const Tensor& a, const Tensor& b, bool inexact = false);
// x cast to a floating type if it is bool or integer (sqrt, exp, ... of ints).
Tensor as_inexact(const Tensor& x);

// x itself if it already has `shape`, else a broadcast view (recorded for autodiff).
Tensor expand_to(const Tensor& x, const Shape& shape);
// a + b where undefined counts as zero; undefined if both are.
Tensor plus(const Tensor& a, const Tensor& b);
// -a, a * b, with undefined as zero.
Tensor times(const Tensor& a, const Tensor& b);
// conj(x) for complex x; x itself otherwise (no op is recorded).
Tensor conj_if_complex(const Tensor& x);
// FLOPs of `macs` multiply-adds in dtype (OpDef::flops): 2 real, 8 complex.
inline double mac_flops(DType dtype, double macs) { return macs * (is_complex(dtype) ? 8.0 : 2.0); }

// Deterministic sample data in [lo, hi): float64 (or complex128 with random imaginary parts).
Tensor sample(const Shape& shape, double lo = -1.0, double hi = 1.0, uint64_t seed = 1,
              DType dtype = DType::Float64);
// Deterministic integer samples in [lo, hi).
Tensor sample_int(const Shape& shape, int64_t lo, int64_t hi, uint64_t seed = 1,
                  DType dtype = DType::Int64);

}  // namespace spire::rules
