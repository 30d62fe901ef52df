#include "reinforcement/dataflow/messages.h"

#include <chrono>
#include <thread>

#include "engine/core/error.h"
#include "engine/parallel/runtime.h"
#include "engine/ops/shape.h"

namespace spire::rl::dataflow {
namespace {

// Header layout: [count of numbers, numbers..., count of tensors, per tensor: dtype, rank, dims...,
// name length, name bytes (one per entry)]. 2048 entries hold any trajectory Spire's algorithms send.
constexpr int64_t kHeader = 2048;

class HeaderWriter {
 public:
  explicit HeaderWriter(Tensor& h) : p_(h.data<int64_t>()) {}
  void put(int64_t v) {
    SPIRE_CHECK(n_ < kHeader, ValueError, "message: the header needs more than ", kHeader,
                " entries (too many tensors, dimensions or name characters)");
    p_[n_++] = v;
  }

 private:
  int64_t* p_;
  int64_t n_ = 0;
};

class HeaderReader {
 public:
  explicit HeaderReader(const Tensor& h) : p_(h.data<int64_t>()) {}
  int64_t get() {
    SPIRE_CHECK(n_ < kHeader, ValueError, "message: a malformed header (it runs past ", kHeader, " entries)");
    return p_[n_++];
  }

 private:
  const int64_t* p_;
  int64_t n_ = 0;
};

Tensor encode_header(const Message& m) {
  Tensor h = zeros({kHeader}, DType::Int64);
  HeaderWriter w(h);
  w.put(int64_t(m.numbers.size()));
  for (int64_t v : m.numbers) w.put(v);
  w.put(int64_t(m.tensors.size()));
  for (const auto& [name, t] : m.tensors) {
    w.put(int64_t(t.dtype()));
    w.put(t.dim());
    for (int64_t d : t.shape()) w.put(d);
    w.put(int64_t(name.size()));
    for (char c : name) w.put(int64_t(static_cast<unsigned char>(c)));
  }
  return h;
}

// The numbers, and the tensors allocated to receive.
Message decode_header(const Tensor& h) {
  HeaderReader r(h);
  Message m;
  int64_t numbers = r.get();
  for (int64_t i = 0; i < numbers; ++i) m.numbers.push_back(r.get());
  int64_t tensors = r.get();
  for (int64_t i = 0; i < tensors; ++i) {
    auto dtype = static_cast<DType>(r.get());
    Shape shape(static_cast<size_t>(r.get()));
    for (auto& d : shape) d = r.get();
    std::string name(static_cast<size_t>(r.get()), ' ');
    for (auto& c : name) c = static_cast<char>(r.get());
    m.tensors.emplace_back(std::move(name), empty(shape, dtype));
  }
  return m;
}

void receive_tensors(parallel::Communicator& comm, Message& m, int src, int tag) {
  std::vector<std::unique_ptr<parallel::Work>> work;
  for (auto& [name, t] : m.tensors)
    if (t.numel() > 0) work.push_back(comm.irecv(t, src, tag));
  for (auto& w : work) wait_politely(*w);
}

}  // namespace

void wait_politely(parallel::Work& work) {
  // Actor threads, relays and the learner may all wait at once on a few cores: spinning in MPI_Test
  // would starve the very ranks that must answer (measured: 40x slower on 4 ranks on 2 cores).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(parallel::collective_timeout());
  for (int spins = 0; !work.done(); ++spins) {
    if (spins < 256) {
      std::this_thread::yield();
    } else {
      if (parallel::collective_timeout() > 0 && std::chrono::steady_clock::now() > deadline) break;
      std::this_thread::sleep_for(std::chrono::microseconds(std::min(500, 10 * (spins - 255))));
    }
  }
  work.wait();  // rethrows the message's error; past the deadline, times out with the usual message
}

void send_message(parallel::Communicator& comm, const Message& m, int dst, int tag) {
  std::vector<Tensor> keep{encode_header(m)};
  for (const auto& [name, t] : m.tensors)
    if (t.numel() > 0) keep.push_back(contiguous(t));
  std::vector<std::unique_ptr<parallel::Work>> work;
  for (const Tensor& t : keep) work.push_back(comm.isend(t, dst, tag));
  for (auto& w : work) wait_politely(*w);
}

Message recv_message(parallel::Communicator& comm, int src, int tag) {
  MessageReceiver r(comm, src, tag);
  return r.wait();
}

MessageReceiver::MessageReceiver(parallel::Communicator& comm, int src, int tag)
    : comm_(comm), src_(src), tag_(tag), header_(empty({kHeader}, DType::Int64)) {}

std::optional<Message> MessageReceiver::poll() {
  if (!pending_) pending_ = comm_.irecv(header_, src_, tag_);
  if (!pending_->done()) return std::nullopt;
  return finish();
}

Message MessageReceiver::wait() {
  if (!pending_) pending_ = comm_.irecv(header_, src_, tag_);
  wait_politely(*pending_);
  return finish();
}

Message MessageReceiver::finish() {
  pending_.reset();
  Message m = decode_header(header_);
  receive_tensors(comm_, m, src_, tag_);
  return m;
}

Message to_message(const Trajectory& t, int64_t flags) {
  Message m;
  m.numbers = {flags, t.actor, t.version, t.env_steps};
  for (const Field& f : t.fields) {
    m.numbers.push_back(f.env_axis);
    m.tensors.emplace_back(f.name, f.value);
  }
  m.tensors.emplace_back("episodes.returns", from_vector(t.episodes.returns, {int64_t(t.episodes.returns.size())}));
  m.tensors.emplace_back("episodes.lengths", from_vector(t.episodes.lengths, {int64_t(t.episodes.lengths.size())}));
  return m;
}

Trajectory trajectory_from(const Message& m, int64_t* flags) {
  SPIRE_CHECK(m.numbers.size() >= 4 && m.tensors.size() >= 2 && m.numbers.size() - 4 == m.tensors.size() - 2,
              ValueError, "message: not a trajectory (", m.numbers.size(), " numbers, ", m.tensors.size(), " tensors)");
  if (flags) *flags = m.numbers[0];
  Trajectory t;
  t.actor = m.numbers[1];
  t.version = m.numbers[2];
  t.env_steps = m.numbers[3];
  const size_t fields = m.tensors.size() - 2;
  for (size_t i = 0; i < fields; ++i) t.add(m.tensors[i].first, m.tensors[i].second, int(m.numbers[4 + i]));
  const Tensor& returns = m.tensors[fields].second;
  const Tensor& lengths = m.tensors[fields + 1].second;
  t.episodes.returns.assign(returns.data<double>(), returns.data<double>() + returns.numel());
  t.episodes.lengths.assign(lengths.data<int64_t>(), lengths.data<int64_t>() + lengths.numel());
  return t;
}

Message to_message(const Parameters& p, int64_t flags) {
  Message m;
  m.numbers = {flags, p.version, p.env_steps};
  for (size_t i = 0; i < p.tensors.size(); ++i) m.tensors.emplace_back(std::to_string(i), p.tensors[i]);
  return m;
}

Parameters parameters_from(const Message& m, int64_t* flags) {
  SPIRE_CHECK(m.numbers.size() == 3, ValueError, "message: not parameters (", m.numbers.size(), " numbers)");
  if (flags) *flags = m.numbers[0];
  Parameters p;
  p.version = m.numbers[1];
  p.env_steps = m.numbers[2];
  for (const auto& [name, t] : m.tensors) p.tensors.push_back(t);
  return p;
}

}  // namespace spire::rl::dataflow
