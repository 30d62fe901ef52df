// Bitwise equality, for the RL tests of determinism and resume: tensors (shape, dtype and bytes) and
// state dicts (every entry, tensors by their bytes).
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <variant>

#include "engine/ops/shape.h"
#include "engine/optim/state_dict.h"

namespace spire::rl::fixtures {

inline bool same_bits(const Tensor& a, const Tensor& b) {
  Tensor x = contiguous(a), y = contiguous(b);
  return x.shape() == y.shape() && x.dtype() == y.dtype() && std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) == 0;
}

inline void expect_same_state(const optim::StateDict& a, const optim::StateDict& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const auto& [ka, va] = a.items()[i];
    const auto& [kb, vb] = b.items()[i];
    ASSERT_EQ(ka, kb);
    ASSERT_EQ(va.index(), vb.index()) << ka;
    if (auto* t = std::get_if<Tensor>(&va)) EXPECT_TRUE(same_bits(*t, std::get<Tensor>(vb))) << ka << " differs";
    else if (auto* x = std::get_if<double>(&va)) EXPECT_EQ(*x, std::get<double>(vb)) << ka;
    else EXPECT_EQ(std::get<int64_t>(va), std::get<int64_t>(vb)) << ka;
  }
}

}  // namespace spire::rl::fixtures
