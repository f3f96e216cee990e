// execute/mpi/device_transport.hpp — the transport of the mpi+cuda backend: the rank's
// buffer lives on a device behind one in-order stream (execute/device/device_stream.hpp), and MPI
// moves the messages. Two paths:
//  * staged (an MPI that cannot read device memory): a send copies its chunk to a pinned
//    host buffer on the stream and is handed to MPI_Isend once the stream has reached that
//    copy; a receive lands in a pinned host buffer and is copied to the device on the
//    stream when it completes (the host buffer is reused once the stream has passed it);
//  * direct (CUDA-aware MPI): MPI reads and writes device memory itself, each send and
//    receive posted once the stream has run everything enqueued before it.
// Either way a message never touches device memory the stream has still to write or read,
// because RankExecution issues in dependency order and the stream runs in that order.
// Touches MPI_COMM_WORLD, the stream, and pinned host buffers it owns (from the stream).
#pragma once

#include <mpi.h>

#include <deque>
#include <vector>

#include "execute/device/device_stream.hpp"
#include "execute/mpi/mpi_transport.hpp"

namespace collsim {

class MpiDeviceTransport : public Transport {
 public:
  // `largest_message`: elements of the program's largest send or receive (host buffer size).
  MpiDeviceTransport(MPI_Comm comm, DeviceStream& stream, std::uint64_t largest_message);

  void post_send(std::uint32_t op, const RankOp& rank_op, std::span<const float> data) override;
  void post_receive(std::uint32_t op, const RankOp& rank_op, std::span<float> into) override;
  // Runs `execution` to its end, the stream drained: polls MPI and the stream alternately.
  void run_to_completion(RankExecution& execution);
  bool staged() const { return staged_; }

 private:
  // A send or receive waiting for the stream to reach `marker` before MPI may see it.
  struct Deferred {
    DeviceStream::Marker marker;
    std::uint32_t op;
    const RankOp* rank_op;
    bool send;
    float* data;  // what MPI reads or writes: a pinned host buffer (staged) or device memory
    std::uint64_t count;
  };
  struct Release {  // a pinned host buffer, free once the stream reaches `marker`
    DeviceStream::Marker marker;
    float* host;
  };
  struct Landing {  // a staged receive: where its host buffer goes on the device
    float* host = nullptr;
    float* device = nullptr;
    std::uint64_t count = 0;
  };

  void post_reached();
  void release_reached();
  void complete(std::uint32_t op, RankExecution& execution);
  float* take_host();

  MPI_Comm comm_;
  DeviceStream& stream_;
  bool staged_;
  std::uint64_t largest_message_;
  MpiRequests requests_;
  std::vector<std::uint32_t> finished_;
  std::deque<Deferred> deferred_;  // in marker order
  std::deque<Release> releases_;   // in marker order
  std::vector<float*> free_host_;
  std::vector<Landing> landing_;   // per op (staged receives); a send's host buffer too
};

}  // namespace collsim
