// Scratch files for the io tests (thermo, H5MD, checkpoint): a directory per test, removed when
// the test ends, and whole-file reads for comparing outputs byte for byte.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace spire::sponge::testing {

// <tmp>/<prefix><gtest's random seed>_<test name>: distinct per test, and per shuffled run.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix) {
    const ::testing::UnitTest& gtest = *::testing::UnitTest::GetInstance();
    path_ = std::filesystem::temp_directory_path() /
            (prefix + std::to_string(gtest.random_seed()) + "_" + gtest.current_test_info()->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }
  // The names in the directory, sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (auto& e : std::filesystem::directory_iterator(path_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::filesystem::path path_;
};

inline std::string read_all(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace spire::sponge::testing
