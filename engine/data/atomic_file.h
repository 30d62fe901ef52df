// Writing a file whole or not at all: outputs go to a temporary name beside the target and are
// renamed over it once complete, so a crash or an error never leaves a half-written file under the
// target's name, and a previous version stays readable until the new one replaces it.
#pragma once
#include <functional>
#include <string>

namespace spire::data {

// Calls write(tmp) with a temporary path in path's directory; when it returns, renames tmp over
// path (atomic within a filesystem). If write throws or the rename fails, tmp is removed, path is
// untouched and the error propagates (an IOError starting with `who` for the rename).
void write_atomically(const std::string& path, const std::string& who,
                      const std::function<void(const std::string& tmp)>& write);

}  // namespace spire::data
