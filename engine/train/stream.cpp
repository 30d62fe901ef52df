#include "engine/train/stream.h"

#include <unistd.h>

#include <cstdio>

namespace spire::train {

namespace {
Stream file_stream(FILE* f) {
  return {[f](const std::string& s) {
            std::fwrite(s.data(), 1, s.size(), f);
            std::fflush(f);
          },
          isatty(fileno(f)) == 1};
}
}  // namespace

Stream Stream::standard_output() { return file_stream(stdout); }
Stream Stream::standard_error() { return file_stream(stderr); }

}  // namespace spire::train
