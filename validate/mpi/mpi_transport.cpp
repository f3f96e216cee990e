// validate/mpi/mpi_transport.cpp — MPI_Isend / MPI_Irecv / MPI_Waitsome (see the header).
#include "validate/mpi/mpi_transport.hpp"

#include <fmt/format.h>

#include "collectives/error.hpp"

namespace collsim {
namespace {

int element_count(std::size_t elements) {
  if (elements > std::size_t(std::numeric_limits<int>::max()))
    throw Error(fmt::format("a transfer of {} elements is larger than one MPI message can carry", elements));
  return static_cast<int>(elements);
}

}  // namespace

void check_tag_range(std::size_t transfers) {
  int* tag_ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
  const std::size_t limit = found && tag_ub ? std::size_t(*tag_ub) : 32767;
  if (transfers > limit)
    throw Error(fmt::format("the schedule has {} transfers; this MPI's tags reach {} only", transfers, limit));
}

void MpiTransport::post_send(std::uint32_t op, const RankOp& rank_op, std::span<const float> data) {
  requests_.emplace_back();
  ops_.push_back(op);
  MPI_Isend(data.data(), element_count(data.size()), MPI_FLOAT, int(rank_op.peer), int(rank_op.transfer), comm_,
            &requests_.back());
}

void MpiTransport::post_receive(std::uint32_t op, const RankOp& rank_op, std::span<float> into) {
  requests_.emplace_back();
  ops_.push_back(op);
  MPI_Irecv(into.data(), element_count(into.size()), MPI_FLOAT, int(rank_op.peer), int(rank_op.transfer), comm_,
            &requests_.back());
}

void MpiTransport::run_to_completion(RankExecution& execution) {
  while (!execution.finished()) {
    if (requests_.empty()) throw Error("rank stalled: no message in flight and operations left (broken schedule)");
    completed_.resize(requests_.size());
    int count = 0;
    MPI_Waitsome(int(requests_.size()), requests_.data(), &count, completed_.data(), MPI_STATUSES_IGNORE);
    // Take the finished requests out before completing them: completions post new ones.
    finished_ops_.clear();
    for (int i = 0; i < count; ++i) finished_ops_.push_back(ops_[std::size_t(completed_[std::size_t(i)])]);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      if (requests_[i] == MPI_REQUEST_NULL) continue;
      requests_[kept] = requests_[i];
      ops_[kept++] = ops_[i];
    }
    requests_.resize(kept);
    ops_.resize(kept);
    for (std::uint32_t op : finished_ops_) execution.complete(op, *this);
  }
}

}  // namespace collsim
