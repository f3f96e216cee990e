// validate/mpi/mpi_transport.hpp — the MPI transport of RankExecution: each send and
// receive is one MPI_Isend / MPI_Irecv of floats tagged with the transfer id (unique, so a
// message can only match its own receive whatever order the ranks post them in), and
// progress is MPI_Waitsome over the requests in flight. Touches MPI_COMM_WORLD only.
#pragma once

#include <mpi.h>

#include <vector>

#include "validate/rank_execution.hpp"

namespace collsim {

class MpiTransport : public Transport {
 public:
  explicit MpiTransport(MPI_Comm comm) : comm_(comm) {}

  void post_send(std::uint32_t op, const RankOp& rank_op, std::span<const float> data) override;
  void post_receive(std::uint32_t op, const RankOp& rank_op, std::span<float> into) override;
  // Runs `execution` to its end: waits for requests and hands each completion back.
  void run_to_completion(RankExecution& execution);

 private:
  MPI_Comm comm_;
  std::vector<MPI_Request> requests_;
  std::vector<std::uint32_t> ops_;  // the op each request belongs to
  std::vector<int> completed_;      // Waitsome's indices
  std::vector<std::uint32_t> finished_ops_;
};

// Throws Error when a transfer id does not fit in an MPI tag.
void check_tag_range(std::size_t transfers);

}  // namespace collsim
