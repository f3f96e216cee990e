// sim/flow_dependencies.hpp — the flow engine's dependency bookkeeping (internal to
// sim/flow_engine.cpp): when a transfer is done, which transfers become ready, and at what time
// (the latest done among their dependencies). A held schedule indexes its successors once and
// counts each transfer's dependencies not yet done, noting in the TransferLog which dependency
// decided its ready time; a streamed one asks the stream for successors and keeps only the
// transfers some but not all of whose deciding dependencies are done
// (collectives/transfer_stream.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "collectives/schedule.hpp"
#include "collectives/transfer_stream.hpp"
#include "sim/flow_record.hpp"

namespace collsim {

class FlowDependencies {
 public:
  struct Ready {
    TransferId id;
    double ready_s;
    StreamedTransfer facts;  // a streamed schedule's transfer, read once (no deps); held: unset
  };

  FlowDependencies(const Schedule& schedule, TransferLog& log);  // held
  explicit FlowDependencies(const TransferStream& stream);        // streamed

  // The transfers without dependencies, ascending: ready at time 0.
  std::vector<TransferId> roots() const;
  // `id` is done at `done`: the transfers whose last dependency it was, with their ready
  // times, in successor order. Valid until the next call.
  std::span<const Ready> done(TransferId id, double done);

 private:
  void index_successors();
  void done_held(TransferId id, double done);
  void done_streamed(TransferId id, double done);

  // A streamed transfer with some of its deciding dependencies done.
  struct Pending {
    double ready_s = 0;
    std::uint32_t waiting = 0;
  };

  const Schedule* schedule_ = nullptr;     // held
  TransferLog* log_ = nullptr;
  std::vector<std::uint32_t> waiting_;     // dependencies not yet done
  std::vector<std::uint32_t> successor_begin_;  // successors in one array (CSR)
  std::vector<TransferId> successors_;
  const TransferStream* stream_ = nullptr;  // streamed
  std::unordered_map<TransferId, Pending> pending_;
  std::vector<TransferId> next_, deps_;     // scratch for the stream's answers
  std::vector<Ready> ready_;                // done()'s answer
};

}  // namespace collsim
