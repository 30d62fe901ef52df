// SPIRE_HD marks functions that both host code and CUDA device code call (Philox draws, the CUDA
// backend's loop offsets, which tests also run on the host). Plain functions for any other
// compiler. A macro-only header, so the device compiler may include it.
#pragma once

#if defined(__CUDACC__)
#define SPIRE_HD __host__ __device__
#else
#define SPIRE_HD
#endif
