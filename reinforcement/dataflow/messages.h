// Trajectories and parameters as messages between MPI ranks: a fixed-size int64 header (the
// message's numbers and, per tensor, its name, dtype and shape) followed by one message per tensor,
// all with the same tag. Messages between two ranks with one tag arrive in the order sent, so a
// receiver that has the header knows exactly what follows. Each actor sends with its own tag, so
// the actor threads of one rank never interleave their messages.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/parallel/communicator.h"
#include "reinforcement/dataflow/trajectory.h"

namespace spire::rl::dataflow {

struct Message {
  std::vector<int64_t> numbers;
  std::vector<std::pair<std::string, Tensor>> tensors;  // contiguous CPU tensors
};

// Blocking, but yielding the core while waiting (the collective timeout still applies).
void wait_politely(parallel::Work& work);
void send_message(parallel::Communicator& comm, const Message& m, int dst, int tag);
Message recv_message(parallel::Communicator& comm, int src, int tag);

// Receives messages from one source and tag without blocking: poll() returns a whole message once
// its header has arrived (the tensors that follow it are then received at once), else nothing.
class MessageReceiver {
 public:
  MessageReceiver(parallel::Communicator& comm, int src, int tag);
  std::optional<Message> poll();
  Message wait();  // blocking, up to the collective timeout

 private:
  Message finish();
  parallel::Communicator& comm_;
  int src_, tag_;
  Tensor header_;
  std::unique_ptr<parallel::Work> pending_;
};

// numbers: actor, version, env_steps, then each field's env_axis; tensors: the fields, then the
// finished episodes' returns (float64) and lengths (int64). `flags` travel with it (stop requests).
Message to_message(const Trajectory& t, int64_t flags = 0);
Trajectory trajectory_from(const Message& m, int64_t* flags = nullptr);
// numbers: version, env_steps, flags; tensors: the parameters in order.
Message to_message(const Parameters& p, int64_t flags = 0);
Parameters parameters_from(const Message& m, int64_t* flags = nullptr);

}  // namespace spire::rl::dataflow
