#include "engine/parallel/mpi_communicator.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "engine/parallel/buffers.h"
#include "engine/parallel/call_check.h"
#include "engine/parallel/runtime.h"

namespace spire::parallel {
namespace {

// Below MPI_THREAD_MULTIPLE, MPI may be called by one thread at a time: every call takes this lock.
std::unique_lock<std::mutex> mpi_lock() {
  static std::mutex m;
  if (mpi_thread_level() >= MPI_THREAD_MULTIPLE) return std::unique_lock<std::mutex>(m, std::defer_lock);
  return std::unique_lock<std::mutex>(m);
}

void mpi_check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(std::string(call) + ": MPI error: " + std::string(text, len));
}

MPI_Datatype mpi_type(DType t) {
  switch (t) {
    case DType::Bool: return MPI_C_BOOL;
    case DType::Int32: return MPI_INT32_T;
    case DType::Int64: return MPI_INT64_T;
    case DType::Float32: return MPI_FLOAT;
    case DType::Float64: return MPI_DOUBLE;
    case DType::Complex64: return MPI_C_FLOAT_COMPLEX;
    case DType::Complex128: return MPI_C_DOUBLE_COMPLEX;
  }
  throw DTypeError("no MPI type for this dtype");
}

MPI_Op mpi_op(DType t, ReduceOp op) {
  if (t == DType::Bool) return op == ReduceOp::Min ? MPI_LAND : MPI_LOR;
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean: return MPI_SUM;
    case ReduceOp::Max: return MPI_MAX;
    case ReduceOp::Min: return MPI_MIN;
  }
  return MPI_SUM;
}

// MPI counts are ints.
int count_of(int64_t n, const char* call) {
  SPIRE_CHECK(n <= INT_MAX, ValueError, call, ": ", n, " elements exceed MPI's int count (", INT_MAX,
              "); split the buffer");
  return int(n);
}

bool use_mpi_allreduce() {
  static const bool on = [] {
    const char* v = std::getenv("SPIRE_ALLREDUCE");
    if (!v || !*v || std::strcmp(v, "ordered") == 0) return false;
    if (std::strcmp(v, "mpi") == 0) return true;
    throw ValueError(std::string("SPIRE_ALLREDUCE='") + v + "'; allowed: ordered (deterministic, the default), mpi");
  }();
  return on;
}

[[noreturn]] void timed_out(const MpiCommunicator& c, const char* call, double limit, double waited) {
  abort_job(timeout_message(call, detail::cat("communicator ", c.id(), " (mpi, rank ", c.rank(), " of ", c.size(), ")"),
                            limit, waited));
}

// The waiting of one blocking call, between unsuccessful polls: spinning keeps latency low;
// yielding after a while lets oversubscribed ranks (more ranks than cores) make progress; past
// collective_timeout() the job ends. The clock starts at the first check, kSpinsPerCheck polls in,
// and is read every kSpinsPerCheck polls while spinning (every poll once yielding, which can take
// milliseconds): a call that completes within microseconds (most) never reads the clock nor
// collective_timeout() (which takes the runtime's mutex), costs that a 256-byte all_reduce (0.5 us)
// feels. A timeout is seconds; the microseconds before the first check do not matter.
class Poller {
 public:
  Poller(const MpiCommunicator& c, const char* call) : comm_(c), call_(call) {}

  void idle() {
    ++spins_;
    const bool yielding = spins_ > kSpinsBeforeYield;
    if (yielding || spins_ % kSpinsPerCheck == 0) check();
    if (yielding) std::this_thread::yield();
  }

 private:
  static constexpr uint64_t kSpinsPerCheck = 1024, kSpinsBeforeYield = 20000;

  void check() {
    const auto now = std::chrono::steady_clock::now();
    if (spins_ == kSpinsPerCheck) {
      start_ = now;
      limit_ = collective_timeout();
      return;
    }
    const double waited = std::chrono::duration<double>(now - start_).count();
    if (limit_ > 0 && waited > limit_) timed_out(comm_, call_, limit_, waited);
  }

  const MpiCommunicator& comm_;
  const char* call_;
  uint64_t spins_ = 0;
  std::chrono::steady_clock::time_point start_;
  double limit_ = 0;
};

// Scratch buffers for the reductions, reused across calls instead of a fresh allocation (and its
// page faults) per call.
std::mutex g_scratch_mutex;
std::vector<std::vector<char>>& scratch_pool() {
  static auto* pool = new std::vector<std::vector<char>>();
  return *pool;
}
std::vector<char> take_scratch(size_t bytes) {
  std::vector<char> v;
  {
    std::lock_guard<std::mutex> lock(g_scratch_mutex);
    auto& pool = scratch_pool();
    // The smallest cached buffer that fits; else a new one.
    size_t best = pool.size();
    for (size_t i = 0; i < pool.size(); ++i)
      if (pool[i].capacity() >= bytes && (best == pool.size() || pool[i].capacity() < pool[best].capacity())) best = i;
    if (best < pool.size()) {
      v = std::move(pool[best]);
      pool.erase(pool.begin() + best);
    }
  }
  if (v.capacity() < bytes) v.reserve(bytes);
  v.resize(bytes);  // within capacity: touches only new bytes (once per buffer)
  return v;
}
void give_back(std::vector<char>&& v) {
  std::lock_guard<std::mutex> lock(g_scratch_mutex);
  auto& pool = scratch_pool();
  if (pool.size() < 8) pool.push_back(std::move(v));  // a few concurrent all_reduces' worth
  v = std::vector<char>();
}

// all_reduce's point-to-point messages on a communicator's internal context carry the tags of
// their call (MpiCommunicator::all_reduce_tags): the scatter (or whole exchange) `tag`, the gather
// `tag + 1`. Several all_reduces in flight (DataParallel's buckets) post their later windows and
// gathers whenever each is polled, which ranks may do in different orders; tags of their own keep
// every message with its call.

// Up to this many gathered bytes (buffer x ranks), every rank sends its whole buffer to every
// other and all fold everything: latency matters more than volume there.
constexpr size_t kGatherBytes = 64 * 1024;
// Larger buffers go through in windows of this many bytes, one after another, so the pieces being
// folded stay in cache (one pass over a 64 MiB buffer at a time measured 0.6x MPI_Allreduce).
constexpr size_t kWindowBytes = 4 << 20;

bool exchanges_whole(const Tensor& buffer, int n) { return buffer.nbytes() * size_t(n) <= kGatherBytes; }

// The whole-buffer messages go in pieces of at most this many bytes. OpenMPI's shared-memory
// transport (btl vader) sends a message eagerly, copied through a shared fragment, only when it
// fits btl_vader_eager_limit (4096 bytes) with the headers (4040 bytes of payload measured); a
// larger one goes rendezvous: the receiver answers before the data moves, one more round trip.
// Measured on 2 ranks, exchange and fold: a 4096-byte buffer whole 4.1 us, in pieces 1.9 us
// (MPI_Allreduce 3.3 us); 16 KiB whole 9-11 us, in pieces 6.5-7.5 us. 4000 leaves room for
// slightly larger headers.
constexpr size_t kPieceBytes = 4000;

int64_t piece_elements(size_t itemsize) { return std::max<int64_t>(1, int64_t(kPieceBytes / itemsize)); }

// How many requests post_whole posts for a buffer of `numel` elements.
int whole_requests(int64_t numel, size_t itemsize, int n) {
  const int64_t per = piece_elements(itemsize);
  return int(2 * (n - 1) * ((numel + per - 1) / per));
}

// Posts, on c's internal communicator, the exchange of whole buffers: `data` (numel elements of
// `t`) to every other rank, and rank i's buffer into slot i of `slots` (numel elements per slot;
// my own slot stays unused), each message in pieces of at most kPieceBytes (MPI matches the pieces
// in the order posted). Fills q[0, whole_requests()). The caller holds mpi_lock().
void post_whole(const MpiCommunicator& c, const void* data, int64_t numel, DType t, char* slots, int tag,
                MPI_Request* q) {
  const int n = c.size(), r = c.rank();
  const size_t item = itemsize(t);
  const int64_t per = piece_elements(item);
  const MPI_Datatype type = mpi_type(t);
  for (int k = 1; k < n; ++k) {  // receive from r-1, r-2, ... while sending to r+1, r+2, ...
    const int i = (r + n - k) % n;
    char* slot = slots + size_t(i) * size_t(numel) * item;
    for (int64_t lo = 0; lo < numel; lo += per)
      mpi_check(MPI_Irecv(slot + size_t(lo) * item, int(std::min(per, numel - lo)), type, i, tag,
                          c.internal_comm(), q++),
                "all_reduce");
  }
  for (int k = 1; k < n; ++k)
    for (int64_t lo = 0; lo < numel; lo += per)
      mpi_check(MPI_Isend(static_cast<const char*>(data) + size_t(lo) * item, int(std::min(per, numel - lo)), type,
                          (r + k) % n, tag, c.internal_comm(), q++),
                "all_reduce");
}

// The fold ((x0 + x1) + x2) + ... of `cnt` elements of rank r's share, without copies: slot i of
// `slots` holds rank i's piece (i != r), `mine` rank r's, in place. The ranks before r fold into
// slot 0, my piece takes that partial result, and the later ranks follow. Each step is one
// commutative binary op (IEEE a + b == b + a bit for bit); only the grouping, which this keeps,
// changes bits. Mean divides at the end.
void fold_rank_order(char* mine, char* slots, int64_t cnt, DType t, ReduceOp op, int r, int n) {
  auto slot = [&](int i) { return slots + size_t(i) * size_t(cnt) * itemsize(t); };
  if (r != 0) {
    for (int i = 1; i < r; ++i) combine(slot(0), slot(i), cnt, t, op);
    combine(mine, slot(0), cnt, t, op);
  }
  for (int i = r + 1; i < n; ++i) combine(mine, slot(i), cnt, t, op);
  if (op == ReduceOp::Mean) divide(mine, cnt, t, n);
}

// The synchronous all_reduce of a buffer that exchanges_whole: AllReduceWork's exchange and fold
// without its per-call costs (the Work's allocation, its vectors, the scratch pool's lock, the
// deadline's clock and lock), about 0.15 us a call: 256 bytes measured 0.8x MPI_Allreduce with
// them, 1.0x without. The slots (at most kGatherBytes) and requests are the calling thread's,
// reused: a synchronous call ends before its thread makes the next, so they need no lock.
void all_reduce_whole(MpiCommunicator& c, Tensor& buffer, ReduceOp op) {
  struct Scratch {
    std::vector<char> slots;
    std::vector<MPI_Request> requests;
  };
  thread_local Scratch s;
  const int64_t numel = buffer.numel();
  const DType t = buffer.dtype();
  const size_t slots_bytes = size_t(c.size()) * buffer.nbytes();
  if (s.slots.size() < slots_bytes) s.slots.resize(slots_bytes);
  s.requests.resize(size_t(whole_requests(numel, buffer.itemsize(), c.size())));
  {
    auto lock = mpi_lock();
    post_whole(c, buffer.raw_data(), numel, t, s.slots.data(), c.all_reduce_tags(), s.requests.data());
  }
  c.await(s.requests.data(), int(s.requests.size()), "all_reduce");
  fold_rank_order(static_cast<char*>(buffer.raw_data()), s.slots.data(), numel, t, op, c.rank(), c.size());
}

// all_reduce in flight. Per window of the buffer: scatter (chunk j of every rank to rank j), fold
// in rank order, gather (every reduced chunk to every rank); or, for a buffer that exchanges_whole,
// one exchange of whole buffers and a fold on every rank. All point-to-point on the internal
// communicator: OpenMPI's pml progresses these (single-copy for large messages) faster than its
// generic nonblocking-collective schedules (MPI_Ialltoallv + MPI_Iallgatherv measured 0.1-0.7x at
// 4 MiB).
class AllReduceWork final : public Work, public Progressive {
  enum Phase { kWhole, kScatter, kGather, kMpi, kDone };

 public:
  AllReduceWork(std::shared_ptr<MpiCommunicator> comm, const Tensor& buffer, ReduceOp op)
      : comm_(std::move(comm)), buffer_(buffer), op_(op), n_(comm_->size()), r_(comm_->rank()),
        tag_(comm_->all_reduce_tags()) {
    start();
    if (phase_ == kDone) complete_ = true;
    else comm_->track(this);
  }

  ~AllReduceWork() override {
    if (complete_) return;
    try {
      wait();
    } catch (const std::exception& e) {
      abort_job(std::string("all_reduce (dropped unwaited) failed: ") + e.what());
    }
  }

  bool done() override {
    comm_->progress();
    return complete_;
  }

  void wait() override {
    Poller p(*comm_, "all_reduce");
    while (!done()) p.idle();
  }

  // Under the communicator's progress lock (MpiCommunicator::progress).
  bool advance() override { return step(); }

 private:
  // Posts the first messages.
  void start() {
    const int64_t numel = buffer_.numel();
    const DType t = buffer_.dtype();
    count_of(numel, "all_reduce");
    if (numel == 0 || n_ == 1) {
      phase_ = kDone;  // one rank: sum, mean, max and min of one value are the value
      return;
    }
    if (use_mpi_allreduce()) {
      auto lock = mpi_lock();
      requests_.assign(1, MPI_REQUEST_NULL);
      mpi_check(MPI_Iallreduce(MPI_IN_PLACE, buffer_.raw_data(), int(numel), mpi_type(t), mpi_op(t, op_),
                               comm_->comm(), requests_.data()),
                "all_reduce");
      phase_ = kMpi;
      return;
    }
    const size_t item = buffer_.itemsize();
    if (exchanges_whole(buffer_, n_)) {
      scratch_ = take_scratch(size_t(n_) * buffer_.nbytes());
      requests_.resize(size_t(whole_requests(numel, item, n_)));
      auto lock = mpi_lock();
      post_whole(*comm_, buffer_.raw_data(), numel, t, scratch_.data(), tag_, requests_.data());
      phase_ = kWhole;
      return;
    }
    window_ = std::max<int64_t>(n_, int64_t(kWindowBytes / item));
    scratch_ = take_scratch(size_t(n_) * size_t((window_ + n_ - 1) / n_) * item);
    counts_.resize(n_);
    displs_.resize(n_);
    start_window();
  }

  char* at(int64_t element) const { return static_cast<char*>(buffer_.raw_data()) + size_t(element) * buffer_.itemsize(); }

  // Posts the scatter of the window [lo_, lo_ + window_).
  void start_window() {
    const int64_t wn = std::min(window_, buffer_.numel() - lo_);
    const MPI_Datatype type = mpi_type(buffer_.dtype());
    const size_t item = buffer_.itemsize();
    const int64_t base = wn / n_, extra = wn % n_;
    for (int j = 0, off = 0; j < n_; ++j) {
      counts_[j] = int(base + (j < extra));
      displs_[j] = off;
      off += counts_[j];
    }
    const size_t cnt = size_t(counts_[r_]);
    auto lock = mpi_lock();
    requests_.assign(2 * (n_ - 1), MPI_REQUEST_NULL);
    MPI_Request* q = requests_.data();
    for (int k = 1; k < n_; ++k) {  // receive from r-1, r-2, ... while sending to r+1, r+2, ...
      const int i = (r_ + n_ - k) % n_;
      mpi_check(MPI_Irecv(scratch_.data() + i * cnt * item, int(cnt), type, i, tag_, comm_->internal_comm(), q++),
                "all_reduce");
    }
    for (int k = 1; k < n_; ++k) {
      const int j = (r_ + k) % n_;
      mpi_check(MPI_Isend(at(lo_ + displs_[j]), counts_[j], type, j, tag_, comm_->internal_comm(), q++),
                "all_reduce");
    }
    phase_ = kScatter;
  }

  void post_gather() {
    const MPI_Datatype type = mpi_type(buffer_.dtype());
    auto lock = mpi_lock();
    MPI_Request* q = requests_.data();
    for (int k = 1; k < n_; ++k) {
      const int i = (r_ + n_ - k) % n_;
      mpi_check(MPI_Irecv(at(lo_ + displs_[i]), counts_[i], type, i, tag_ + 1, comm_->internal_comm(), q++),
                "all_reduce");
    }
    for (int k = 1; k < n_; ++k)
      mpi_check(MPI_Isend(at(lo_ + displs_[r_]), counts_[r_], type, (r_ + k) % n_, tag_ + 1,
                          comm_->internal_comm(), q++),
                "all_reduce");
    phase_ = kGather;
  }

  bool finish() {
    give_back(std::move(scratch_));
    phase_ = kDone;
    complete_ = true;
    return true;
  }

  bool next_window() {
    lo_ += window_;
    if (lo_ >= buffer_.numel()) return finish();
    start_window();
    return false;
  }

  // Advances as far as completed messages allow; true when the reduction is complete.
  bool step() {
    if (phase_ == kDone) return true;
    int flag = 0;
    {
      auto lock = mpi_lock();
      mpi_check(MPI_Testall(int(requests_.size()), requests_.data(), &flag, MPI_STATUSES_IGNORE), "all_reduce");
    }
    if (!flag) return false;
    switch (phase_) {
      case kMpi:
        if (op_ == ReduceOp::Mean) divide(buffer_.raw_data(), buffer_.numel(), buffer_.dtype(), n_);
        phase_ = kDone;
        complete_ = true;
        return true;
      case kWhole:
        fold_rank_order(at(0), scratch_.data(), buffer_.numel(), buffer_.dtype(), op_, r_, n_);
        return finish();
      case kScatter:
        fold_rank_order(at(lo_ + displs_[r_]), scratch_.data(), counts_[r_], buffer_.dtype(), op_, r_, n_);
        post_gather();
        return false;
      case kGather: return next_window();
      case kDone: return true;
    }
    return true;
  }

  std::shared_ptr<MpiCommunicator> comm_;  // kept alive while MPI works on the requests
  Tensor buffer_;                          // likewise the buffer MPI reads and writes
  ReduceOp op_;
  int n_, r_;
  int tag_;  // this call's scatter tag; tag_ + 1 its gather's
  Phase phase_ = kDone;
  std::atomic<bool> complete_{false};  // read by done() outside the progress lock
  int64_t window_ = 0, lo_ = 0;
  std::vector<char> scratch_;
  std::vector<MPI_Request> requests_;
  std::vector<int> counts_, displs_;
};

// The checks of all_reduce and all_reduce_async.
void check_all_reduce(MpiCommunicator& c, const Tensor& buffer, ReduceOp op) {
  check_buffer(buffer, kCPU, "all_reduce", "buffer");
  check_reduce_dtype(buffer.dtype(), op, "all_reduce");
  c.check_same_call("all_reduce", &buffer, int64_t(op));
}

}  // namespace

void MpiCommunicator::track(Progressive* call) {
  std::lock_guard<std::mutex> lock(progress_mutex_);
  in_flight_.push_back(call);
  ++in_flight_count_;
}

void MpiCommunicator::progress() {
  if (in_flight_count_.load(std::memory_order_acquire) == 0) return;  // the common case: no lock
  std::lock_guard<std::mutex> lock(progress_mutex_);
  for (size_t i = 0; i < in_flight_.size();) {
    if (in_flight_[i]->advance()) {
      in_flight_.erase(in_flight_.begin() + std::ptrdiff_t(i));
      --in_flight_count_;
    } else {
      ++i;
    }
  }
}

int MpiCommunicator::all_reduce_tags() { return int(2 * (all_reduce_calls_++ % 16000)); }

std::shared_ptr<MpiCommunicator> MpiCommunicator::adopt(MPI_Comm comm) {
  std::shared_ptr<MpiCommunicator> c(new MpiCommunicator(comm));
  enrol(c);
  return c;
}

MpiCommunicator::MpiCommunicator(MPI_Comm comm) : comm_(comm) {
  auto lock = mpi_lock();
  // Errors come back as codes and become exceptions with MPI's message, instead of MPI's default
  // of ending the process from inside the library.
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm_dup(comm_, &internal_);
  MPI_Comm_set_errhandler(internal_, MPI_ERRORS_RETURN);
}

MpiCommunicator::~MpiCommunicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  auto lock = mpi_lock();
  if (internal_ != MPI_COMM_NULL) MPI_Comm_free(&internal_);
  if (comm_ != MPI_COMM_WORLD && comm_ != MPI_COMM_SELF && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiCommunicator::await(MPI_Request* requests, int n, const char* call, MPI_Status* statuses) {
  Poller p(*this, call);
  for (;;) {
    int flag = 0;
    {
      auto lock = mpi_lock();
      mpi_check(MPI_Testall(n, requests, &flag, statuses), call);
    }
    if (flag) return;
    progress();  // the ranks this call waits for may be waiting for one of ours in flight
    p.idle();
  }
}

void MpiCommunicator::check_same_call(const char* call, const Tensor* tensor, int64_t detail) {
  if (!call_checks_enabled() || size_ == 1) return;
  const CallFingerprint mine = call_fingerprint(call, tensor, detail);
  std::vector<CallFingerprint> all(static_cast<size_t>(size_));
  MPI_Request req;
  {
    auto lock = mpi_lock();
    mpi_check(MPI_Iallgather(mine.data(), int(mine.size()), MPI_INT64_T, all.data(), int(mine.size()), MPI_INT64_T,
                             internal_, &req),
              call);
  }
  await(&req, 1, call);
  check_fingerprints(call, all);
}

void MpiCommunicator::all_reduce(Tensor& buffer, ReduceOp op) {
  check_all_reduce(*this, buffer, op);
  if (size_ > 1 && buffer.numel() > 0 && !use_mpi_allreduce() && exchanges_whole(buffer, size_))
    return all_reduce_whole(*this, buffer, op);
  AllReduceWork(std::static_pointer_cast<MpiCommunicator>(shared_from_this()), buffer, op).wait();
}

std::unique_ptr<Work> MpiCommunicator::all_reduce_async(Tensor& buffer, ReduceOp op) {
  check_all_reduce(*this, buffer, op);
  return std::make_unique<AllReduceWork>(std::static_pointer_cast<MpiCommunicator>(shared_from_this()), buffer, op);
}

void MpiCommunicator::all_gather(const Tensor& in, Tensor& out) {
  check_buffer(in, kCPU, "all_gather", "input");
  check_buffer(out, kCPU, "all_gather", "output");
  check_same_dtype(in, out, "all_gather");
  check_all_gather_shapes(in, out, size_);
  count_of(out.numel(), "all_gather");
  check_same_call("all_gather", &in);
  MPI_Request req;
  {
    auto lock = mpi_lock();
    mpi_check(MPI_Iallgather(in.raw_data(), int(in.numel()), mpi_type(in.dtype()), out.raw_data(), int(in.numel()),
                             mpi_type(in.dtype()), comm_, &req),
              "all_gather");
  }
  await(&req, 1, "all_gather");
}

// Deterministic for every op: chunk r of every rank comes to rank r, which combines them in rank order.
void MpiCommunicator::reduce_scatter(const Tensor& in, Tensor& out, ReduceOp op) {
  check_buffer(in, kCPU, "reduce_scatter", "input");
  check_buffer(out, kCPU, "reduce_scatter", "output");
  check_same_dtype(in, out, "reduce_scatter");
  check_reduce_dtype(in.dtype(), op, "reduce_scatter");
  check_reduce_scatter_shapes(in, out, size_);
  const int cnt = count_of(out.numel(), "reduce_scatter");
  count_of(in.numel(), "reduce_scatter");
  check_same_call("reduce_scatter", &in, int64_t(op));
  const DType t = in.dtype();
  Tensor pieces = empty({in.numel()}, t);
  MPI_Request req;
  {
    auto lock = mpi_lock();
    mpi_check(MPI_Ialltoall(in.raw_data(), cnt, mpi_type(t), pieces.raw_data(), cnt, mpi_type(t), comm_, &req),
              "reduce_scatter");
  }
  await(&req, 1, "reduce_scatter");
  const size_t bytes = size_t(cnt) * in.itemsize();
  const char* p = static_cast<const char*>(pieces.raw_data());
  if (cnt == 0) return;
  std::memcpy(out.raw_data(), p, bytes);
  for (int i = 1; i < size_; ++i) combine(out.raw_data(), p + i * bytes, cnt, t, op);
  if (op == ReduceOp::Mean) divide(out.raw_data(), cnt, t, size_);
}

void MpiCommunicator::all_to_all(const Tensor& in, Tensor& out) {
  check_buffer(in, kCPU, "all_to_all", "input");
  check_buffer(out, kCPU, "all_to_all", "output");
  check_same_dtype(in, out, "all_to_all");
  check_all_to_all_shapes(in, out, size_);
  count_of(in.numel(), "all_to_all");
  SPIRE_CHECK(in.numel() == 0 || in.raw_data() != out.raw_data(), ValueError,
              "all_to_all: input and output share memory; pass a separate output");
  check_same_call("all_to_all", &in);
  const int cnt = int(in.numel() / size_);
  MPI_Request req;
  {
    auto lock = mpi_lock();
    mpi_check(MPI_Ialltoall(in.raw_data(), cnt, mpi_type(in.dtype()), out.raw_data(), cnt, mpi_type(in.dtype()),
                            comm_, &req),
              "all_to_all");
  }
  await(&req, 1, "all_to_all");
}

void MpiCommunicator::broadcast(Tensor& buffer, int root) {
  check_buffer(buffer, kCPU, "broadcast", "buffer");
  check_rank(root, size_, "broadcast", "root");
  const int cnt = count_of(buffer.numel(), "broadcast");
  check_same_call("broadcast", &buffer, root);
  MPI_Request req;
  {
    auto lock = mpi_lock();
    mpi_check(MPI_Ibcast(buffer.raw_data(), cnt, mpi_type(buffer.dtype()), root, comm_, &req), "broadcast");
  }
  await(&req, 1, "broadcast");
}

namespace {
void check_peer(int peer, int me, int size, int tag, const char* call, const char* role) {
  check_rank(peer, size, call, role);
  SPIRE_CHECK(peer != me, ValueError, call, ": rank ", me, " cannot be its own ", role,
              " (a blocking ", call, " to oneself never completes)");
  SPIRE_CHECK(tag >= 0 && tag <= 32767, ValueError, call, ": tag ", tag,
              " is out of range; allowed 0..32767 (the least upper bound MPI guarantees)");
}

// A point-to-point message in flight.
class PointToPointWork final : public Work {
 public:
  PointToPointWork(std::shared_ptr<MpiCommunicator> comm, const Tensor& buffer, int peer, int tag, bool receive)
      : comm_(std::move(comm)), buffer_(buffer), peer_(peer), tag_(tag), receive_(receive) {
    const char* call = receive ? "recv" : "send";
    check_buffer(buffer, kCPU, call, "buffer");
    check_peer(peer, comm_->rank(), comm_->size(), tag, call, receive ? "source" : "destination");
    count_ = count_of(buffer.numel(), call);
    auto lock = mpi_lock();
    if (receive)
      mpi_check(MPI_Irecv(buffer.raw_data(), count_, mpi_type(buffer.dtype()), peer, tag, comm_->comm(), &request_),
                call);
    else
      mpi_check(MPI_Isend(buffer.raw_data(), count_, mpi_type(buffer.dtype()), peer, tag, comm_->comm(), &request_),
                call);
  }
  ~PointToPointWork() override {
    if (finished_) return;
    try {
      wait();
    } catch (const std::exception& e) {
      abort_job(std::string(receive_ ? "recv" : "send") + " (dropped unwaited) failed: " + e.what());
    }
  }
  bool done() override {
    if (finished_) return true;
    int flag = 0;
    {
      auto lock = mpi_lock();
      mpi_check(MPI_Test(&request_, &flag, &status_), receive_ ? "recv" : "send");
    }
    if (flag) finish();
    return finished_;
  }
  void wait() override {
    if (finished_) return;
    comm_->await(&request_, 1, receive_ ? "recv" : "send", &status_);
    finish();
  }

 private:
  void finish() {
    finished_ = true;
    if (!receive_) return;
    int got = 0;
    MPI_Get_count(&status_, mpi_type(buffer_.dtype()), &got);
    SPIRE_CHECK(got == count_, ShapeError, "recv: expected ", count_, " elements (shape ", shape_str(buffer_.shape()),
                ") from rank ", peer_, " with tag ", tag_, ", got ", got);
  }
  std::shared_ptr<MpiCommunicator> comm_;
  Tensor buffer_;
  int peer_, tag_, count_ = 0;
  bool receive_, finished_ = false;
  MPI_Request request_ = MPI_REQUEST_NULL;
  MPI_Status status_{};
};
}  // namespace

std::unique_ptr<Work> MpiCommunicator::isend(const Tensor& buffer, int dst, int tag) {
  return std::make_unique<PointToPointWork>(std::static_pointer_cast<MpiCommunicator>(shared_from_this()), buffer, dst,
                                            tag, false);
}
std::unique_ptr<Work> MpiCommunicator::irecv(Tensor& buffer, int src, int tag) {
  return std::make_unique<PointToPointWork>(std::static_pointer_cast<MpiCommunicator>(shared_from_this()), buffer, src,
                                            tag, true);
}
void MpiCommunicator::send(const Tensor& buffer, int dst, int tag) { isend(buffer, dst, tag)->wait(); }
void MpiCommunicator::recv(Tensor& buffer, int src, int tag) { irecv(buffer, src, tag)->wait(); }
void MpiCommunicator::barrier() {
  check_same_call("barrier", nullptr);
  MPI_Request req;
  {
    auto lock = mpi_lock();
    mpi_check(MPI_Ibarrier(comm_, &req), "barrier");
  }
  await(&req, 1, "barrier");
}

std::shared_ptr<Communicator> MpiCommunicator::split(int color, int key) {
  MPI_Comm sub = MPI_COMM_NULL;
  {
    auto lock = mpi_lock();
    mpi_check(MPI_Comm_split(comm_, color < 0 ? MPI_UNDEFINED : color, key, &sub), "split");
  }
  if (sub == MPI_COMM_NULL) return nullptr;
  return adopt(sub);
}

std::vector<std::shared_ptr<Communicator>> MpiCommunicator::cartesian_axes(const std::vector<int>& shape,
                                                                           std::vector<int>& coords) {
  const int nd = int(shape.size());
  std::vector<int> periods(nd, 0);
  MPI_Comm cart = MPI_COMM_NULL;
  std::vector<std::shared_ptr<Communicator>> axes;
  coords.assign(nd, 0);
  {
    auto lock = mpi_lock();
    mpi_check(MPI_Cart_create(comm_, nd, shape.data(), periods.data(), /*reorder=*/0, &cart), "DeviceMesh");
    mpi_check(MPI_Cart_coords(cart, rank_, nd, coords.data()), "DeviceMesh");
  }
  for (int a = 0; a < nd; ++a) {
    std::vector<int> remain(nd, 0);
    remain[a] = 1;
    MPI_Comm sub = MPI_COMM_NULL;
    {
      auto lock = mpi_lock();
      mpi_check(MPI_Cart_sub(cart, remain.data(), &sub), "DeviceMesh");
    }
    axes.push_back(adopt(sub));
  }
  auto lock = mpi_lock();
  MPI_Comm_free(&cart);
  return axes;
}

}  // namespace spire::parallel
