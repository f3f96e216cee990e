// execute/mpi/mpi_transport.hpp — the MPI transport of RankExecution for host buffers: each
// send and receive is one MPI_Isend / MPI_Irecv of floats tagged with the transfer id
// (unique, so a message can only match its own receive whatever order the ranks post them
// in), and progress is MPI_Waitsome over the requests in flight. MpiRequests, the set of
// requests in flight, is shared with the device transport (device_transport.hpp).
// Touches MPI_COMM_WORLD only.
#pragma once

#include <mpi.h>

#include <vector>

#include "execute/rank_execution.hpp"

namespace collsim {

// Requests in flight, each belonging to an op of the rank's program.
class MpiRequests {
 public:
  void isend(std::uint32_t op, const RankOp& rank_op, const float* data, std::uint64_t count, MPI_Comm comm);
  void irecv(std::uint32_t op, const RankOp& rank_op, float* into, std::uint64_t count, MPI_Comm comm);
  bool empty() const { return requests_.empty(); }
  // The ops whose requests completed: waits for at least one (MPI_Waitsome) when `block`,
  // else only looks (MPI_Testsome). Their requests are gone from the set on return.
  const std::vector<std::uint32_t>& completed(bool block);

 private:
  std::vector<MPI_Request> requests_;
  std::vector<std::uint32_t> ops_;  // the op each request belongs to
  std::vector<int> indices_;        // Waitsome's / Testsome's
  std::vector<std::uint32_t> finished_ops_;
};

class MpiTransport : public Transport {
 public:
  explicit MpiTransport(MPI_Comm comm) : comm_(comm) {}

  void post_send(std::uint32_t op, const RankOp& rank_op, std::span<const float> data) override;
  void post_receive(std::uint32_t op, const RankOp& rank_op, std::span<float> into) override;
  // Runs `execution` to its end: waits for requests and hands each completion back.
  void run_to_completion(RankExecution& execution);

 private:
  MPI_Comm comm_;
  MpiRequests requests_;
  std::vector<std::uint32_t> finished_;
};

// Throws Error when a transfer id does not fit in an MPI tag.
void check_tag_range(std::size_t transfers);

}  // namespace collsim
