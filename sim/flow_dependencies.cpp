// sim/flow_dependencies.cpp — successors and ready times for the flow engine (see the header).
#include "sim/flow_dependencies.hpp"

#include <algorithm>

namespace collsim {

FlowDependencies::FlowDependencies(const Schedule& schedule, TransferLog& log)
    : schedule_(&schedule), log_(&log), waiting_(schedule.size()) {
  index_successors();
}

FlowDependencies::FlowDependencies(const TransferStream& stream) : stream_(&stream) {}

void FlowDependencies::index_successors() {
  const std::uint64_t total = schedule_->size();
  successor_begin_.assign(total + 1, 0);
  for (TransferId id = 0; id < total; ++id) {
    const Transfer x = schedule_->transfer(id);
    waiting_[id] = std::uint32_t(x.deps.size());
    for (TransferId d : x.deps) ++successor_begin_[d + 1];
  }
  for (std::size_t i = 0; i < total; ++i) successor_begin_[i + 1] += successor_begin_[i];
  successors_.resize(successor_begin_.back());
  std::vector<std::uint32_t> fill(successor_begin_.begin(), successor_begin_.end() - 1);
  for (TransferId id = 0; id < total; ++id)
    for (TransferId d : schedule_->transfer(id).deps) successors_[fill[d]++] = id;
}

std::vector<TransferId> FlowDependencies::roots() const {
  if (stream_) return stream_->roots();
  std::vector<TransferId> roots;
  for (TransferId id = 0; id < waiting_.size(); ++id)
    if (waiting_[id] == 0) roots.push_back(id);
  return roots;
}

std::span<const FlowDependencies::Ready> FlowDependencies::done(TransferId id, double done) {
  ready_.clear();
  if (stream_) {
    done_streamed(id, done);
  } else {
    done_held(id, done);
  }
  return ready_;
}

void FlowDependencies::done_held(TransferId id, double done) {
  for (std::uint32_t i = successor_begin_[id]; i < successor_begin_[id + 1]; ++i) {
    const TransferId next = successors_[i];
    log_->dependency_done(next, id, done);
    if (--waiting_[next] == 0) ready_.push_back({next, log_->ready_s(next), {}});
  }
}

// A successor with one deciding dependency is ready now; one with more waits in pending_,
// read from the stream when first met (its count) and when ready (its facts), not at each of
// its dependencies: a hierarchical ring's node allgather waits on M rail transfers, each of
// whose completions would otherwise write out all M again.
void FlowDependencies::done_streamed(TransferId id, double done) {
  stream_->successors(id, next_);
  for (TransferId next : next_) {
    auto it = pending_.empty() ? pending_.end() : pending_.find(next);
    if (it == pending_.end()) {
      StreamedTransfer x = stream_->deciding_transfer(next, deps_);
      x.deps = {};
      if (deps_.size() == 1) {
        ready_.push_back({next, done, x});
        continue;
      }
      it = pending_.emplace(next, Pending{done, std::uint32_t(deps_.size())}).first;
    }
    it->second.ready_s = std::max(it->second.ready_s, done);
    if (--it->second.waiting == 0) {
      StreamedTransfer x = stream_->deciding_transfer(next, deps_);
      x.deps = {};
      ready_.push_back({next, it->second.ready_s, x});
      pending_.erase(it);
    }
  }
}

}  // namespace collsim
