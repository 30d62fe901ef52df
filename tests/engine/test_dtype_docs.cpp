// docs/dtypes.md shows the promotion table to users; this keeps it equal to promote().
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/dtype.h"

namespace spire {
namespace {

std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::stringstream ss(row);
  std::string c;
  std::getline(ss, c, '|');  // before the first bar
  while (std::getline(ss, c, '|')) {
    auto b = c.find_first_not_of(" *"), e = c.find_last_not_of(" *");
    out.push_back(b == std::string::npos ? "" : c.substr(b, e - b + 1));
  }
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

TEST(DTypeDocs, PromotionTableMatchesTheCode) {
  auto doc = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "docs" / "dtypes.md";
  std::ifstream f(doc);
  ASSERT_TRUE(f) << "cannot read " << doc;
  std::string line;
  int rows = 0;
  while (std::getline(f, line)) {
    auto c = cells(line);
    if (c.size() != size_t(kNumDTypes) + 1 || c[0].empty()) continue;
    DType a;
    try {
      a = dtype_from_name(c[0]);
    } catch (const std::exception&) {
      continue;  // another table
    }
    for (int j = 0; j < kNumDTypes; ++j)
      EXPECT_EQ(c[j + 1], name(promote(a, DType(j))))
          << "docs/dtypes.md says promote(" << c[0] << ", " << name(DType(j)) << ") = " << c[j + 1];
    ++rows;
  }
  EXPECT_EQ(rows, kNumDTypes) << "docs/dtypes.md should have one promotion row per dtype";
}

}  // namespace
}  // namespace spire
