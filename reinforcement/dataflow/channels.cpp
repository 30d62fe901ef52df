#include "reinforcement/dataflow/channels.h"

#include <chrono>
#include <thread>

#include "engine/core/error.h"

namespace spire::rl::dataflow {

TrajectoryChannel::TrajectoryChannel(std::shared_ptr<parallel::Communicator> comm, const Placement& placement)
    : comm_(std::move(comm)), placement_(placement) {
  const size_t actors = placement_.actor_rank.size();
  waiting_.resize(actors);
  gone_.assign(actors, 0);
  remote_.resize(actors);
  if (comm_->rank() != placement_.learner_rank) return;
  for (size_t a = 0; a < actors; ++a)
    if (placement_.actor_rank[a] != placement_.learner_rank)
      remote_[a] = std::make_unique<MessageReceiver>(*comm_, placement_.actor_rank[a], kTrajectoryTag + int(a));
}

void TrajectoryChannel::send(const Trajectory& t, int64_t flags) {
  if (placement_.actor_rank[size_t(t.actor)] != placement_.learner_rank) {
    send_message(*comm_, to_message(t, flags), placement_.learner_rank, kTrajectoryTag + int(t.actor));
    return;
  }
  {
    std::lock_guard lock(mutex_);
    local_.emplace_back(t.actor, Arrival{t, flags});
  }
  arrived_.notify_one();
}

void TrajectoryChannel::bye(int64_t actor) {
  Trajectory t;
  t.actor = actor;
  send(t, kBye);
}

void TrajectoryChannel::fail(int64_t actor, std::exception_ptr error) {
  {
    std::lock_guard lock(mutex_);
    if (!error_) {
      error_ = std::move(error);
      failed_actor_ = actor;
    }
  }
  arrived_.notify_one();
}

bool TrajectoryChannel::collect(int64_t& flags) {
  bool any = false;
  auto take = [&](int64_t actor, Arrival&& a) {
    any = true;
    flags |= a.flags & kStopRequest;
    if (a.flags & kBye) gone_[size_t(actor)] = 1;
    else waiting_[size_t(actor)].push_back(std::move(a.trajectory));
  };
  {
    std::lock_guard lock(mutex_);
    if (error_) std::rethrow_exception(error_);
    while (!local_.empty()) {
      take(local_.front().first, std::move(local_.front().second));
      local_.pop_front();
    }
  }
  for (size_t a = 0; a < remote_.size(); ++a)
    while (remote_[a] && !gone_[a]) {
      std::optional<Message> m = remote_[a]->poll();
      if (!m) break;
      Arrival arrival;
      arrival.trajectory = trajectory_from(*m, &arrival.flags);
      take(int64_t(a), std::move(arrival));
    }
  return any;
}

void TrajectoryChannel::wait_a_little(int& spins) {
  bool remote = false;
  for (auto& r : remote_) remote = remote || r;
  if (!remote) {  // only local actors: sleep until one delivers
    std::unique_lock lock(mutex_);
    arrived_.wait_for(lock, std::chrono::milliseconds(20), [&] { return !local_.empty() || error_; });
    return;
  }
  // MPI messages are polled: spin briefly, then back off to a millisecond.
  if (++spins < 64) std::this_thread::yield();
  else std::this_thread::sleep_for(std::chrono::microseconds(std::min(1000, 20 * (spins - 63))));
}

std::vector<Trajectory> TrajectoryChannel::receive(size_t min_actors, int64_t& flags) {
  int spins = 0;
  for (;;) {
    if (collect(flags)) spins = 0;
    size_t ready = 0, active = 0;
    for (size_t a = 0; a < waiting_.size(); ++a) {
      ready += !waiting_[a].empty();
      active += !gone_[a];
    }
    if (ready > 0 && (ready >= min_actors || ready >= active)) {
      std::vector<Trajectory> out;
      for (auto& q : waiting_)
        if (!q.empty()) {
          out.push_back(std::move(q.front()));
          q.pop_front();
        }
      return out;
    }
    SPIRE_CHECK(active > 0, ValueError, "trajectory channel: every actor has ended; nothing more will arrive");
    wait_a_little(spins);
  }
}

void TrajectoryChannel::drain() {
  int spins = 0;
  int64_t flags = 0;
  for (;;) {
    if (collect(flags)) spins = 0;
    for (auto& q : waiting_) q.clear();
    bool all_gone = true;
    for (uint8_t g : gone_) all_gone = all_gone && g;
    if (all_gone) return;
    wait_a_little(spins);
  }
}

ParameterChannel::ParameterChannel(std::shared_ptr<parallel::Communicator> comm, const Placement& placement)
    : comm_(std::move(comm)), placement_(placement) {}

void ParameterChannel::store(std::shared_ptr<const Parameters> p, int64_t flags) {
  {
    std::lock_guard lock(mutex_);
    latest_ = {std::move(p), flags};
  }
  changed_.notify_all();
}

void ParameterChannel::publish(const Parameters& p, int64_t flags) {
  auto shared = std::make_shared<const Parameters>(p);
  const int me = comm_->rank();
  std::vector<uint8_t> sent(size_t(comm_->size()), 0);
  for (int r : placement_.actor_rank) {
    if (r == me || sent[size_t(r)]) continue;
    sent[size_t(r)] = 1;
    send_message(*comm_, to_message(*shared, flags), r, kParameterTag);
  }
  store(std::move(shared), flags);
}

std::optional<ParameterChannel::Latest> ParameterChannel::newest(int64_t after, bool wait) {
  std::unique_lock lock(mutex_);
  auto ready = [&] { return latest_.parameters && (latest_.parameters->version > after || (latest_.flags & kStop)); };
  if (wait) changed_.wait(lock, ready);
  if (!ready()) return std::nullopt;
  return latest_;
}

void ParameterChannel::stop_local() {
  std::shared_ptr<const Parameters> p;
  {
    std::lock_guard lock(mutex_);
    p = latest_.parameters ? latest_.parameters : std::make_shared<const Parameters>();
  }
  store(std::move(p), kStop);
}

void ParameterChannel::relay() {
  for (;;) {
    int64_t flags = 0;
    Parameters p = parameters_from(recv_message(*comm_, placement_.learner_rank, kParameterTag), &flags);
    store(std::make_shared<const Parameters>(std::move(p)), flags);
    if (flags & kStop) return;
  }
}

}  // namespace spire::rl::dataflow
