#include "engine/data/atomic_file.h"

#include <unistd.h>

#include <filesystem>

#include "engine/core/error.h"

namespace spire::data {

void write_atomically(const std::string& path, const std::string& who,
                      const std::function<void(const std::string& tmp)>& write) {
  // The process id keeps concurrent writers (ranks of one job) off each other's temporaries.
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  std::error_code ec;
  try {
    write(tmp);
  } catch (...) {
    std::filesystem::remove(tmp, ec);
    throw;
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw IOError(detail::cat(who, ": cannot rename '", tmp, "' to '", path, "': ", ec.message()));
  }
}

}  // namespace spire::data
