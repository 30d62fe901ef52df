// Text formatting shared by the callbacks, following Python's rules so that the C++ and Python
// APIs write the same names and numbers.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace spire::train {

// Python's repr(float): the shortest text that reads back to the same double ("3.0", "0.1",
// "1e-05", "nan", "inf").
std::string python_repr(double value);

// printf of one double ("%.4f").
std::string printf_double(const char* format, double value);

using FieldValue = std::variant<int64_t, double>;
using Fields = std::vector<std::pair<std::string, FieldValue>>;

// Python's str.format with named fields: "ckpt-{epoch:03d}-{val_loss:.3f}.h5". A spec is
// [[fill]align][sign][0][width][.precision][type] with type one of d f F e E g G % (d for
// integers only) or none (an integer in decimal, a real as repr); "{{" and "}}" are braces.
// MissingKeyError for a field not in `fields` (naming those that are); ValueError for a bad spec.
std::string format_fields(const std::string& pattern, const Fields& fields);

}  // namespace spire::train
