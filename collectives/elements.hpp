// collectives/elements.hpp — the finest byte ranges a schedule distinguishes. Chunks may
// overlap or nest (recursive halving uses halves, quarters, ...); cutting the address space
// at every chunk boundary gives "elements" that each chunk covers a whole number of, so
// per-element bookkeeping (hazards, symbolic contents) is exact.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/schedule.hpp"

namespace collsim {

class ElementMap {
 public:
  explicit ElementMap(const std::vector<ByteRange>& chunks);

  std::uint32_t count() const { return static_cast<std::uint32_t>(bounds_.empty() ? 0 : bounds_.size() - 1); }
  std::uint32_t first(ChunkId c) const { return first_[c]; }
  std::uint32_t last(ChunkId c) const { return last_[c]; }  // one past the end
  ByteRange range(std::uint32_t element) const { return {bounds_[element], bounds_[element + 1] - bounds_[element]}; }
  // Elements inside [range.offset, range.end()); range must lie on element boundaries.
  std::uint32_t element_at(std::uint64_t offset) const;

 private:
  std::vector<std::uint64_t> bounds_;
  std::vector<std::uint32_t> first_, last_;
};

// Per (rank, element): the last transfer that wrote it and the transfers that read it since.
// Both the builder (to infer dependencies) and the checker (to prove them) keep one.
// Reducers (schedule.hpp) have slots after the ranks' and also keep the in-network
// reductions accumulated since the last read: each read must follow all of them.
class AccessLog {
 public:
  AccessLog(Rank ranks, std::uint32_t elements, Rank reducers = 0);

  std::size_t slot(Rank rank, std::uint32_t element) const { return std::size_t(rank) * elements_ + element; }
  TransferId last_writer(std::size_t slot) const { return last_writer_[slot]; }
  void record_read(std::size_t slot, TransferId reader);
  // Calls visit(reader) for each reader since the last write; returns how many there were.
  template <class Visit>
  std::size_t for_each_reader(std::size_t slot, Visit&& visit) const {
    return walk(reader_head_[slot], visit);
  }
  // Records a write: the readers list of the slot is recycled (and a reducer's accumulation).
  void record_write(std::size_t slot, TransferId writer);

  // In-network reductions into a reducer's slot. Calls visit(reduction) for each one since
  // the last read or copy; returns how many there were (0 for a rank's slot).
  template <class Visit>
  std::size_t for_each_accumulated(std::size_t slot, Visit&& visit) const {
    return slot < first_reducer_slot_ ? 0 : walk(accumulated_head_[slot - first_reducer_slot_], visit);
  }
  // Records an in-network reduction: after a read it starts a new accumulation (the readers
  // are recycled), otherwise it joins the reductions accumulated so far.
  void record_accumulate(std::size_t slot, TransferId writer);

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  struct ListNode {
    TransferId transfer;
    std::uint32_t next;
  };
  template <class Visit>
  std::size_t walk(std::uint32_t head, Visit&& visit) const {
    std::size_t n = 0;
    for (std::uint32_t i = head; i != kNone; i = pool_[i].next, ++n) visit(pool_[i].transfer);
    return n;
  }
  void push(std::uint32_t& head, TransferId transfer);
  void recycle(std::uint32_t& head);

  std::uint32_t elements_;
  std::size_t first_reducer_slot_;
  std::vector<TransferId> last_writer_;
  std::vector<std::uint32_t> reader_head_;
  std::vector<std::uint32_t> accumulated_head_;  // reducers' slots only
  std::vector<ListNode> pool_;
  std::uint32_t free_ = kNone;
};

}  // namespace collsim
