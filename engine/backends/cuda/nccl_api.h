// NCCL, loaded when the first NCCL communicator is made rather than when libspire_cuda is. A
// process may hold one libnccl.so.2 only (one soname), and other libraries bring their own: PyTorch's
// wheel needs the NCCL it ships (newer symbols than the toolkit's), so `import spire` before
// `import torch` must not have loaded one already. Loading on first use also lets the CUDA backend
// load on machines without NCCL, which then say so when a collective first needs it.
#pragma once
#include <nccl.h>

namespace spire::cuda {

struct NcclApi {
  decltype(&::ncclGetUniqueId) GetUniqueId;
  decltype(&::ncclCommInitRank) CommInitRank;
  decltype(&::ncclCommDestroy) CommDestroy;
  decltype(&::ncclCommAbort) CommAbort;
  decltype(&::ncclCommGetAsyncError) CommGetAsyncError;
  decltype(&::ncclGetLastError) GetLastError;
  decltype(&::ncclGetErrorString) GetErrorString;
  decltype(&::ncclCommSplit) CommSplit;
  decltype(&::ncclCommUserRank) CommUserRank;
  decltype(&::ncclCommCount) CommCount;
  decltype(&::ncclAllReduce) AllReduce;
  decltype(&::ncclReduceScatter) ReduceScatter;
  decltype(&::ncclAllGather) AllGather;
  decltype(&::ncclBroadcast) Broadcast;
  decltype(&::ncclSend) Send;
  decltype(&::ncclRecv) Recv;
  decltype(&::ncclGroupStart) GroupStart;
  decltype(&::ncclGroupEnd) GroupEnd;
};

// The NCCL of this process (the one already loaded, or libnccl.so.2 from the library path), loaded
// once; DeviceError naming what dlopen or dlsym said when it cannot be.
const NcclApi& nccl();

}  // namespace spire::cuda
