// collectives/schedule_builder.cpp — dependency inference from byte-level hazards.
#include "collectives/schedule_builder.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim {

ChunkId ChunkTable::intern(ByteRange range) {
  auto [it, inserted] = ids_.try_emplace({range.offset, range.bytes}, ChunkId(ranges_.size()));
  if (inserted) ranges_.push_back(range);
  return it->second;
}

namespace {
std::size_t dense_limit = kDenseRecordLimit;
}  // namespace

std::size_t dense_record_limit() { return dense_limit; }
void set_dense_record_limit(std::size_t records) { dense_limit = records; }

ScheduleBuilder::ScheduleBuilder(ScheduleInfo info, const std::vector<ByteRange>& chunks)
    : schedule_(info),
      elements_(chunks),
      dense_(double(info.endpoints()) * elements_.count() <= double(dense_limit)),
      dense_records_(dense_ ? std::size_t(info.endpoints()) * elements_.count() : 0),
      pieces_(dense_ ? 0 : info.endpoints(), info.address_space(),
              [this](const AccessState& whole, std::uint64_t) { return log_.copy(whole); }) {
  for (const ByteRange& c : chunks) schedule_.add_chunk(c);
}

void ScheduleBuilder::add_phase(std::string name, std::uint32_t first_step, std::uint32_t step_count) {
  if (step_count > 0) schedule_.add_phase({std::move(name), first_step, step_count});
}

// Calls visit(state) for every piece of `rank`'s bytes that `chunk` covers.
template <class Visit>
void ScheduleBuilder::for_each_access(Rank rank, ChunkId chunk, Visit&& visit) {
  if (dense_) {
    const std::size_t row = std::size_t(rank) * elements_.count();
    for (std::uint32_t e = elements_.first(chunk); e < elements_.last(chunk); ++e) visit(dense_records_[row + e]);
    return;
  }
  pieces_.for_each(rank, schedule_.chunks()[chunk], [&](ByteRange, AccessState& s) { visit(s); });
}

void ScheduleBuilder::collect_read_hazards(Rank rank, ChunkId chunk, TransferId self) {
  for_each_access(rank, chunk, [&](AccessState& s) {
    const std::size_t accumulated = log_.for_each_accumulated(s, [&](TransferId w) { deps_.push_back(w); });
    if (accumulated == 0 && s.last_writer != kNoTransfer) deps_.push_back(s.last_writer);
    log_.record_read(s, self);
  });
}

void ScheduleBuilder::collect_write_hazards(Rank rank, ChunkId chunk, TransferId self) {
  for_each_access(rank, chunk, [&](AccessState& s) {
    const std::size_t readers = log_.for_each_reader(s, [&](TransferId r) { deps_.push_back(r); });
    if (readers == 0 && s.last_writer != kNoTransfer) deps_.push_back(s.last_writer);
    log_.record_write(s, self);
  });
  if (!dense_)
    pieces_.join(rank, schedule_.chunks()[chunk],
                 [](ByteRange, const AccessState& a, const AccessState& b) { return written_alike(a, b); });
}

void ScheduleBuilder::collect_accumulate_hazards(Rank reducer, ChunkId chunk, TransferId self) {
  for_each_access(reducer, chunk, [&](AccessState& s) {
    const std::size_t readers = log_.for_each_reader(s, [&](TransferId r) { deps_.push_back(r); });
    const std::size_t accumulated = log_.for_each_accumulated(s, [](TransferId) {});
    if (readers == 0 && accumulated == 0 && s.last_writer != kNoTransfer) deps_.push_back(s.last_writer);
    log_.record_accumulate(s, self);
  });
}

TransferId ScheduleBuilder::add(Rank src, ChunkId src_chunk, Rank dst, ChunkId dst_chunk, Op op,
                                std::uint32_t step, TransferId after) {
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
  if (after != kNoTransfer) {
    // A switch runs no program: the rank they share must be a rank for an executor to see it.
    const Transfer earlier = schedule_.transfer(after);
    const auto shares = [&](Rank r) { return !info.is_reducer(r) && (earlier.src == r || earlier.dst == r); };
    if (!shares(src) && !shares(dst))
      throw Error(fmt::format("generator bug: transfer {} -> {} ordered after one it shares no rank with", src, dst));
    deps_.push_back(after);
  }
  std::sort(deps_.begin(), deps_.end());
  deps_.erase(std::unique(deps_.begin(), deps_.end()), deps_.end());
  // A local op reads and writes the same rank: its own read must not become its dependency.
  std::erase(deps_, self);
  return schedule_.append(src, src_chunk, dst, dst_chunk, op, step, deps_);
}

namespace {

// The plan's indices in step order, equal steps in plan order: a counting sort, since steps
// are few (a pipeline's slots) and plans are long (a tree on 16,384 ranks plans 6 M transfers
// per channel, where a comparison sort took a tenth of the schedule's build).
std::vector<std::uint32_t> step_order(const std::vector<PlannedTransfer>& plan) {
  std::uint32_t last_step = 0;
  for (const PlannedTransfer& t : plan) last_step = std::max(last_step, t.step);
  std::vector<std::uint32_t> first(std::size_t(last_step) + 2, 0);
  for (const PlannedTransfer& t : plan) ++first[t.step + 1];
  for (std::size_t s = 1; s < first.size(); ++s) first[s] += first[s - 1];
  std::vector<std::uint32_t> order(plan.size());
  for (std::uint32_t i = 0; i < plan.size(); ++i) order[first[plan[i].step]++] = i;
  return order;
}

}  // namespace

void ScheduleBuilder::add_in_step_order(std::vector<PlannedTransfer> plan) {
  if (plan.size() >= PlannedTransfer::kNoPlan) throw Error("generator bug: a plan too long to index");
  schedule_.reserve(schedule_.size() + plan.size(), schedule_.dependency_count() + 2 * plan.size());
  const std::vector<std::uint32_t> order = step_order(plan);
  const bool ordered = std::any_of(plan.begin(), plan.end(),
                                   [](const PlannedTransfer& t) { return t.after != PlannedTransfer::kNoPlan; });
  if (!ordered) {  // the common case: no flow control (trees of millions of transfers)
    for (std::uint32_t i : order) add(plan[i].src, plan[i].src_chunk, plan[i].dst, plan[i].dst_chunk, plan[i].op, plan[i].step);
    return;
  }
  // Flow control names plan indices: learn each index's id.
  std::vector<TransferId> id_of(plan.size(), kNoTransfer);  // kNoTransfer: not added yet, or empty
  for (std::uint32_t index : order) {
    const PlannedTransfer& t = plan[index];
    TransferId after = kNoTransfer;
    if (t.after != PlannedTransfer::kNoPlan) {
      if (plan[t.after].step >= t.step) throw Error("generator bug: a transfer ordered after a later step's");
      after = id_of[t.after];
    }
    id_of[index] = add(t.src, t.src_chunk, t.dst, t.dst_chunk, t.op, t.step, after);
  }
}

Schedule ScheduleBuilder::build() && { return std::move(schedule_); }

}  // namespace collsim
