// execute/mpi/mpi_transport.cpp — MPI_Isend / MPI_Irecv / MPI_Waitsome (see the header).
#include "execute/mpi/mpi_transport.hpp"

#include <fmt/format.h>

#include "base/error.hpp"

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

void MpiRequests::isend(std::uint32_t op, const RankOp& rank_op, const float* data, std::uint64_t count, MPI_Comm comm) {
  requests_.emplace_back();
  ops_.push_back(op);
  MPI_Isend(data, element_count(count), MPI_FLOAT, int(rank_op.peer), int(rank_op.transfer), comm, &requests_.back());
}

void MpiRequests::irecv(std::uint32_t op, const RankOp& rank_op, float* into, std::uint64_t count, MPI_Comm comm) {
  requests_.emplace_back();
  ops_.push_back(op);
  MPI_Irecv(into, element_count(count), MPI_FLOAT, int(rank_op.peer), int(rank_op.transfer), comm, &requests_.back());
}

const std::vector<std::uint32_t>& MpiRequests::completed(bool block) {
  finished_ops_.clear();
  if (requests_.empty()) return finished_ops_;
  indices_.resize(requests_.size());
  int count = 0;
  if (block)
    MPI_Waitsome(int(requests_.size()), requests_.data(), &count, indices_.data(), MPI_STATUSES_IGNORE);
  else
    MPI_Testsome(int(requests_.size()), requests_.data(), &count, indices_.data(), MPI_STATUSES_IGNORE);
  for (int i = 0; i < count; ++i) finished_ops_.push_back(ops_[std::size_t(indices_[std::size_t(i)])]);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i] == MPI_REQUEST_NULL) continue;
    requests_[kept] = requests_[i];
    ops_[kept++] = ops_[i];
  }
  requests_.resize(kept);
  ops_.resize(kept);
  return finished_ops_;
}

void MpiTransport::post_send(std::uint32_t op, const RankOp& rank_op, std::span<const float> data) {
  requests_.isend(op, rank_op, data.data(), data.size(), comm_);
}

void MpiTransport::post_receive(std::uint32_t op, const RankOp& rank_op, std::span<float> into) {
  requests_.irecv(op, rank_op, into.data(), into.size(), comm_);
}

void MpiTransport::run_to_completion(RankExecution& execution) {
  while (!execution.finished()) {
    if (requests_.empty()) throw Error("rank stalled: no message in flight and operations left (broken schedule)");
    // Copied out: completing an op posts new requests, which must not disturb this list.
    const std::vector<std::uint32_t>& finished = requests_.completed(/*block=*/true);
    finished_.assign(finished.begin(), finished.end());
    for (std::uint32_t op : finished_) execution.complete(op, *this);
  }
}

}  // namespace collsim
