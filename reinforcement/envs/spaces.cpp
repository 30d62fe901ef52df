#include "reinforcement/envs/spaces.h"

#include <cmath>
#include <sstream>

#include "engine/core/error.h"

namespace spire::rl {
namespace {
int64_t product(const std::vector<int64_t>& shape) {
  int64_t p = 1;
  for (int64_t d : shape) p *= d;
  return p;
}
std::string shape_string(const std::vector<int64_t>& shape) {
  std::ostringstream s;
  s << "(";
  for (size_t i = 0; i < shape.size(); ++i) s << (i ? ", " : "") << shape[i];
  s << (shape.size() == 1 ? ",)" : ")");
  return s.str();
}
}  // namespace

Space Space::box(std::vector<float> low, std::vector<float> high, std::vector<int64_t> shape) {
  for (int64_t d : shape) SPIRE_CHECK(d >= 0, ValueError, "Box: shape ", shape_string(shape), " has a negative dimension");
  const auto n = static_cast<size_t>(product(shape));
  SPIRE_CHECK(low.size() == n && high.size() == n, ShapeError, "Box: low has ", low.size(), " and high ",
              high.size(), " elements; shape ", shape_string(shape), " needs ", n, " each");
  for (size_t i = 0; i < n; ++i)
    SPIRE_CHECK(!(low[i] > high[i]), ValueError, "Box: low[", i, "] = ", low[i], " exceeds high[", i, "] = ", high[i]);
  Space s;
  s.kind_ = Kind::Box;
  s.low_ = std::move(low);
  s.high_ = std::move(high);
  s.shape_ = std::move(shape);
  return s;
}

Space Space::box(float low, float high, std::vector<int64_t> shape) {
  const auto n = static_cast<size_t>(product(shape));
  return box(std::vector<float>(n, low), std::vector<float>(n, high), std::move(shape));
}

Space Space::discrete(int64_t n, int64_t start) {
  SPIRE_CHECK(n >= 1, ValueError, "Discrete: n must be positive, got ", n);
  Space s;
  s.kind_ = Kind::Discrete;
  s.n_ = n;
  s.start_ = start;
  return s;
}

int64_t Space::size() const { return is_box() ? product(shape_) : 1; }

bool Space::contains(int64_t a) const { return is_discrete() && a >= start_ && a < start_ + n_; }

bool Space::contains(std::span<const float> x) const {
  if (!is_box() || static_cast<int64_t>(x.size()) != size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (!(x[i] >= low_[i] && x[i] <= high_[i])) return false;
  return true;
}

Generator& Space::rng() {
  if (!rng_) rng_.emplace(Generator::from_entropy());
  return *rng_;
}

void Space::seed(std::optional<uint64_t> seed) {
  if (seed) rng_.emplace(*seed);
  else rng_.emplace(Generator::from_entropy());
}

int64_t Space::sample_discrete() {
  SPIRE_CHECK(is_discrete(), ValueError, "sample_discrete: ", to_string(), " is not a Discrete space");
  return start_ + rng().below(n_);
}

std::vector<float> Space::sample_box() {
  SPIRE_CHECK(is_box(), ValueError, "sample_box: ", to_string(), " is not a Box space");
  std::vector<float> out(low_.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const bool lo = std::isfinite(low_[i]), hi = std::isfinite(high_[i]);
    double v;
    if (lo && hi) v = rng().uniform(low_[i], high_[i]);
    else if (!lo && !hi) v = rng().normal();
    else if (lo) v = low_[i] - std::log1p(-rng().random());   // low + Exponential(1)
    else v = high_[i] + std::log1p(-rng().random());          // high - Exponential(1)
    float f = static_cast<float>(v);
    out[i] = std::fmin(std::fmax(f, low_[i]), high_[i]);  // rounding to float32 must not leave the box
  }
  return out;
}

std::string Space::to_string() const {
  std::ostringstream s;
  if (is_discrete()) {
    s << "Discrete(" << n_;
    if (start_ != 0) s << ", start=" << start_;
    s << ")";
    return s.str();
  }
  auto all_same = [](const std::vector<float>& v) {
    for (float x : v) if (!(x == v[0])) return false;
    return true;
  };
  auto put = [&](const std::vector<float>& v) {
    if (!v.empty() && all_same(v)) { s << v[0]; return; }
    s << "[";
    for (size_t i = 0; i < v.size(); ++i) s << (i ? " " : "") << v[i];
    s << "]";
  };
  s << "Box(";
  put(low_);
  s << ", ";
  put(high_);
  s << ", " << shape_string(shape_) << ", float32)";
  return s.str();
}

}  // namespace spire::rl
