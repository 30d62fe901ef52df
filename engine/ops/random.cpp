// Random draws: ops without tensor inputs whose attributes carry everything the kernel needs
// (shape, dtype, device, parameters, and the Philox coordinates seed, stream and block offset).
// The public functions reserve blocks from a Generator, so consecutive draws never overlap and a
// draw is reproducible from its attributes alone, on any backend.
#include <cmath>
#include <limits>

#include "engine/core/op.h"
#include "engine/core/transfer.h"
#include "engine/ops/random.h"

namespace spire {
namespace {

// Attributes hold int64; seeds and offsets are uint64 bit patterns.
int64_t bits(uint64_t v) { return int64_t(v); }

void check_shape(const char* op, const Shape& shape) {
  for (int64_t d : shape)
    SPIRE_CHECK(d >= 0, ShapeError, op, ": negative dimension in shape ", shape_str(shape));
}

std::vector<TensorMeta> meta_from_attrs(const std::vector<Tensor>&, const Attrs& a) {
  return {{a.get<Shape>("shape"), a.get<DType>("dtype")}};
}

// Attributes common to every draw, with the blocks it consumes reserved from `gen`.
Attrs draw_attrs(const Shape& shape, DType dtype, Generator& gen, uint64_t blocks, Device device, const char* op) {
  require_device(device, op);
  return Attrs{{"shape", shape},
               {"dtype", dtype},
               {"device", device.str()},
               {"seed", bits(gen.seed())},
               {"stream", bits(gen.stream())},
               {"offset", bits(gen.reserve(blocks))}};
}

uint64_t ceil_div(uint64_t n, uint64_t k) { return (n + k - 1) / k; }

// A sample draw for the registry test (non-differentiable; it checks that no gradient is offered).
Attrs sample_attrs(Shape shape, DType dtype) {
  return Attrs{{"shape", std::move(shape)}, {"dtype", dtype}, {"device", std::string("cpu")},
               {"seed", int64_t(42)}, {"stream", int64_t(0)}, {"offset", int64_t(0)}};
}

SPIRE_DEFINE_OP({
    .name = "uniform",
    .num_inputs = 0,
    .infer = meta_from_attrs,
    .differentiable = false,
    .samples = [] {
      return std::vector<OpSample>{
          {{}, sample_attrs({3, 5}, DType::Float64).set("low", -1.0).set("high", 2.0), "float64"}};
    },
});

SPIRE_DEFINE_OP({
    .name = "normal",
    .num_inputs = 0,
    .infer = meta_from_attrs,
    .differentiable = false,
    .samples = [] {
      return std::vector<OpSample>{
          {{}, sample_attrs({7}, DType::Float64).set("mean", 1.0).set("std", 2.0), "float64"}};
    },
});

SPIRE_DEFINE_OP({
    .name = "bernoulli",
    .num_inputs = 0,
    .infer = meta_from_attrs,
    .differentiable = false,
    .samples = [] {
      return std::vector<OpSample>{{{}, sample_attrs({9}, DType::Bool).set("p", 0.3), "p=0.3"}};
    },
});

SPIRE_DEFINE_OP({
    .name = "randint",
    .num_inputs = 0,
    .infer = meta_from_attrs,
    .differentiable = false,
    .samples = [] {
      return std::vector<OpSample>{
          {{}, sample_attrs({4, 3}, DType::Int64).set("low", int64_t(-5)).set("high", int64_t(5)), "int64"}};
    },
});

SPIRE_DEFINE_OP({
    .name = "permutation",
    .num_inputs = 0,
    .infer = meta_from_attrs,
    .differentiable = false,
    .samples = [] { return std::vector<OpSample>{{{}, sample_attrs({10}, DType::Int64), "n=10"}}; },
});

}  // namespace

Generator& default_generator() {
  static Generator gen(0);
  return gen;
}

void manual_seed(uint64_t seed) { default_generator() = Generator(seed); }

Tensor uniform(const Shape& shape, double low, double high, DType dtype, Generator& gen, Device device) {
  static const OpDef& d = op_def("uniform");
  check_shape("uniform", shape);
  SPIRE_CHECK(is_floating(dtype), DTypeError, "uniform: dtype must be float32 or float64, got ", name(dtype));
  SPIRE_CHECK(std::isfinite(low) && std::isfinite(high) && low <= high, ValueError,
              "uniform: needs finite low <= high, got low=", low, ", high=", high);
  uint64_t per_block = dtype == DType::Float32 ? 4 : 2;
  Attrs a = draw_attrs(shape, dtype, gen, ceil_div(uint64_t(numel_of(shape)), per_block), device, "uniform");
  return call1(d, {}, a.set("low", low).set("high", high));
}

Tensor normal(const Shape& shape, double mean, double std, DType dtype, Generator& gen, Device device) {
  static const OpDef& d = op_def("normal");
  check_shape("normal", shape);
  SPIRE_CHECK(is_floating(dtype), DTypeError, "normal: dtype must be float32 or float64, got ", name(dtype));
  SPIRE_CHECK(std::isfinite(mean) && std::isfinite(std) && std >= 0, ValueError,
              "normal: needs finite mean and std >= 0, got mean=", mean, ", std=", std);
  uint64_t per_block = dtype == DType::Float32 ? 4 : 2;
  Attrs a = draw_attrs(shape, dtype, gen, ceil_div(uint64_t(numel_of(shape)), per_block), device, "normal");
  return call1(d, {}, a.set("mean", mean).set("std", std));
}

Tensor bernoulli(const Shape& shape, double p, Generator& gen, Device device) {
  static const OpDef& d = op_def("bernoulli");
  check_shape("bernoulli", shape);
  SPIRE_CHECK(p >= 0 && p <= 1, ValueError, "bernoulli: p must be in [0, 1], got ", p);
  Attrs a = draw_attrs(shape, DType::Bool, gen, ceil_div(uint64_t(numel_of(shape)), 4), device, "bernoulli");
  return call1(d, {}, a.set("p", p));
}

Tensor randint(const Shape& shape, int64_t low, int64_t high, DType dtype, Generator& gen, Device device) {
  static const OpDef& d = op_def("randint");
  check_shape("randint", shape);
  SPIRE_CHECK(is_integral(dtype), DTypeError, "randint: dtype must be int32 or int64, got ", name(dtype));
  SPIRE_CHECK(low < high, ValueError, "randint: needs low < high (high is excluded), got low=", low,
              ", high=", high);
  if (dtype == DType::Int32)
    SPIRE_CHECK(low >= std::numeric_limits<int32_t>::min() &&
                    high - 1 <= std::numeric_limits<int32_t>::max(),
                ValueError, "randint: [", low, ", ", high, ") does not fit int32");
  Attrs a = draw_attrs(shape, dtype, gen, uint64_t(numel_of(shape)), device, "randint");
  return call1(d, {}, a.set("low", low).set("high", high));
}

Tensor permutation(int64_t n, Generator& gen, Device device) {
  static const OpDef& d = op_def("permutation");
  SPIRE_CHECK(n >= 0, ValueError, "permutation: n must be >= 0, got ", n);
  return call1(d, {}, draw_attrs({n}, DType::Int64, gen, uint64_t(n), device, "permutation"));
}

}  // namespace spire
