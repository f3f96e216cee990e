// execute/mpi/device_transport.cpp — MPI messages for device buffers (see the header).
#include "execute/mpi/device_transport.hpp"

#include "base/error.hpp"

namespace collsim {

MpiDeviceTransport::MpiDeviceTransport(MPI_Comm comm, DeviceStream& stream, std::uint64_t largest_message)
    : comm_(comm), stream_(stream), staged_(!stream.mpi_can_access()), largest_message_(largest_message) {}

float* MpiDeviceTransport::take_host() {
  if (free_host_.empty()) return stream_.allocate_host(largest_message_);
  float* host = free_host_.back();
  free_host_.pop_back();
  return host;
}

void MpiDeviceTransport::post_send(std::uint32_t op, const RankOp& rank_op, std::span<const float> data) {
  if (op >= landing_.size()) landing_.resize(op + 1);
  if (!staged_) {
    deferred_.push_back({stream_.mark(), op, &rank_op, true, const_cast<float*>(data.data()), data.size()});
    return;
  }
  float* host = take_host();
  landing_[op] = {host, nullptr, data.size()};
  stream_.to_host(host, data.data(), data.size());
  deferred_.push_back({stream_.mark(), op, &rank_op, true, host, data.size()});
}

void MpiDeviceTransport::post_receive(std::uint32_t op, const RankOp& rank_op, std::span<float> into) {
  if (op >= landing_.size()) landing_.resize(op + 1);
  if (!staged_) {  // device memory the stream may still read (a staging buffer being reduced)
    deferred_.push_back({stream_.mark(), op, &rank_op, false, into.data(), into.size()});
    return;
  }
  float* host = take_host();
  landing_[op] = {host, into.data(), into.size()};
  requests_.irecv(op, rank_op, host, into.size(), comm_);
}

// Hands MPI every deferred message whose data the stream has reached (markers only grow).
void MpiDeviceTransport::post_reached() {
  while (!deferred_.empty() && stream_.reached(deferred_.front().marker)) {
    const Deferred d = deferred_.front();
    deferred_.pop_front();
    if (d.send) requests_.isend(d.op, *d.rank_op, d.data, d.count, comm_);
    else requests_.irecv(d.op, *d.rank_op, d.data, d.count, comm_);
  }
}

void MpiDeviceTransport::release_reached() {
  while (!releases_.empty() && stream_.reached(releases_.front().marker)) {
    free_host_.push_back(releases_.front().host);
    releases_.pop_front();
  }
}

void MpiDeviceTransport::complete(std::uint32_t op, RankExecution& execution) {
  Landing& landing = landing_[op];
  if (landing.host && landing.device) {  // a staged receive: on to the device, on the stream
    stream_.to_device(landing.device, landing.host, landing.count);
    releases_.push_back({stream_.mark(), landing.host});
  } else if (landing.host) {  // a staged send: MPI is done with its host buffer
    free_host_.push_back(landing.host);
  }
  landing = {};
  execution.complete(op, *this);  // later device work on this data is ordered by the stream
}

void MpiDeviceTransport::run_to_completion(RankExecution& execution) {
  while (!execution.finished()) {
    post_reached();
    release_reached();
    if (requests_.empty() && deferred_.empty())
      throw Error("rank stalled: no message in flight and operations left (broken schedule)");
    const std::vector<std::uint32_t>& finished = requests_.completed(/*block=*/false);
    finished_.assign(finished.begin(), finished.end());
    for (std::uint32_t op : finished_) complete(op, execution);
  }
  stream_.synchronize();
  release_reached();
}

}  // namespace collsim
