// collectives/schedule_builder.cpp — dependency inference from byte-level hazards.
#include "collectives/schedule_builder.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "collectives/error.hpp"

namespace collsim {

ChunkId ChunkTable::intern(ByteRange range) {
  auto [it, inserted] = ids_.try_emplace({range.offset, range.bytes}, ChunkId(ranges_.size()));
  if (inserted) ranges_.push_back(range);
  return it->second;
}

ScheduleBuilder::ScheduleBuilder(ScheduleInfo info, const std::vector<ByteRange>& chunks)
    : schedule_(info), elements_(chunks), log_(info.ranks, elements_.count(), info.reducers) {
  for (const ByteRange& c : chunks) schedule_.add_chunk(c);
}

void ScheduleBuilder::add_phase(std::string name, std::uint32_t first_step, std::uint32_t step_count) {
  if (step_count > 0) schedule_.add_phase({std::move(name), first_step, step_count});
}

void ScheduleBuilder::collect_read_hazards(Rank rank, ChunkId chunk, TransferId self) {
  for (std::uint32_t e = elements_.first(chunk); e < elements_.last(chunk); ++e) {
    const std::size_t slot = log_.slot(rank, e);
    const std::size_t accumulated = log_.for_each_accumulated(slot, [&](TransferId w) { deps_.push_back(w); });
    if (accumulated == 0)
      if (TransferId w = log_.last_writer(slot); w != kNoTransfer) deps_.push_back(w);
    log_.record_read(slot, self);
  }
}

void ScheduleBuilder::collect_write_hazards(Rank rank, ChunkId chunk, TransferId self) {
  for (std::uint32_t e = elements_.first(chunk); e < elements_.last(chunk); ++e) {
    const std::size_t slot = log_.slot(rank, e);
    const std::size_t readers = log_.for_each_reader(slot, [&](TransferId r) { deps_.push_back(r); });
    if (readers == 0)
      if (TransferId w = log_.last_writer(slot); w != kNoTransfer) deps_.push_back(w);
    log_.record_write(slot, self);
  }
}

void ScheduleBuilder::collect_accumulate_hazards(Rank reducer, ChunkId chunk, TransferId self) {
  for (std::uint32_t e = elements_.first(chunk); e < elements_.last(chunk); ++e) {
    const std::size_t slot = log_.slot(reducer, e);
    const std::size_t readers = log_.for_each_reader(slot, [&](TransferId r) { deps_.push_back(r); });
    const std::size_t accumulated = log_.for_each_accumulated(slot, [](TransferId) {});
    if (readers == 0 && accumulated == 0)
      if (TransferId w = log_.last_writer(slot); w != kNoTransfer) deps_.push_back(w);
    log_.record_accumulate(slot, self);
  }
}

TransferId ScheduleBuilder::add(Rank src, ChunkId src_chunk, Rank dst, ChunkId dst_chunk, Op op,
                                std::uint32_t step) {
  const auto& chunks = schedule_.chunks();
  const ScheduleInfo& info = schedule_.info();
  if (src >= info.endpoints() || dst >= info.endpoints() || (src == dst && info.is_reducer(src)))
    throw Error(fmt::format("generator bug: rank out of range in transfer {} -> {}", src, dst));
  if (chunks[src_chunk].bytes != chunks[dst_chunk].bytes)
    throw Error("generator bug: source and destination chunks differ in size");
  // Nothing to move, nothing to send: MPI and NCCL skip empty messages too, so a collective
  // on 0 bytes is a no-op and one on fewer bytes than chunks sends only the non-empty ones.
  if (chunks[src_chunk].bytes == 0) return kNoTransfer;
  const TransferId self = static_cast<TransferId>(schedule_.size());
  deps_.clear();
  collect_read_hazards(src, src_chunk, self);
  if (op == Op::reduce && info.is_reducer(dst))
    collect_accumulate_hazards(dst, dst_chunk, self);
  else
    collect_write_hazards(dst, dst_chunk, self);
  std::sort(deps_.begin(), deps_.end());
  deps_.erase(std::unique(deps_.begin(), deps_.end()), deps_.end());
  // A local op reads and writes the same rank: its own read must not become its dependency.
  std::erase(deps_, self);
  return schedule_.append(src, src_chunk, dst, dst_chunk, op, step, deps_);
}

void ScheduleBuilder::add_in_step_order(std::vector<PlannedTransfer> plan) {
  std::stable_sort(plan.begin(), plan.end(),
                   [](const PlannedTransfer& a, const PlannedTransfer& b) { return a.step < b.step; });
  for (const PlannedTransfer& t : plan) add(t.src, t.src_chunk, t.dst, t.dst_chunk, t.op, t.step);
}

Schedule ScheduleBuilder::build() && { return std::move(schedule_); }

}  // namespace collsim
