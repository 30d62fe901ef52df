// One error hierarchy for all of Spire. The Python layer maps each kind onto a builtin subclass
// (ShapeError -> ValueError, DTypeError -> TypeError, IOError -> OSError), so users catch what they expect.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace spire {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class ShapeError : public Error { using Error::Error; };
class DTypeError : public Error { using Error::Error; };
class ValueError : public Error { using Error::Error; };
class ConfigError : public Error { using Error::Error; };
class ParseError : public Error { using Error::Error; };
class IOError : public Error { using Error::Error; };
// Asking for a derivative that does not exist (argmax, comparisons, floor) or a freed graph.
class AutodiffError : public Error { using Error::Error; };
class DeviceError : public Error { using Error::Error; };

namespace detail {
template <class... Args>
std::string cat(const Args&... args) {
  std::ostringstream s;
  (s << ... << args);
  return s.str();
}
// "a, b, c": the allowed values an error message lists.
inline std::string join(const std::vector<std::string>& items, const char* separator = ", ") {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? separator : "") + items[i];
  return s;
}
}  // namespace detail

// SPIRE_CHECK(cond, ShapeError, "matmul: ", a, " vs ", b)
#define SPIRE_CHECK(cond, Kind, ...)                                  \
  do {                                                                \
    if (!(cond)) throw ::spire::Kind(::spire::detail::cat(__VA_ARGS__)); \
  } while (0)

}  // namespace spire
