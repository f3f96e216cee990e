// collectives/elements.cpp — element boundaries and the per-element access log.
#include "collectives/elements.hpp"

#include <algorithm>

namespace collsim {

ElementMap::ElementMap(const std::vector<ByteRange>& chunks) {
  for (const ByteRange& c : chunks) {
    if (c.bytes == 0) continue;
    bounds_.push_back(c.offset);
    bounds_.push_back(c.end());
  }
  std::sort(bounds_.begin(), bounds_.end());
  bounds_.erase(std::unique(bounds_.begin(), bounds_.end()), bounds_.end());
  first_.reserve(chunks.size());
  last_.reserve(chunks.size());
  for (const ByteRange& c : chunks) {
    if (c.bytes == 0) {
      first_.push_back(0);
      last_.push_back(0);
      continue;
    }
    first_.push_back(element_at(c.offset));
    last_.push_back(element_at(c.end()));
  }
}

std::uint32_t ElementMap::element_at(std::uint64_t offset) const {
  auto it = std::lower_bound(bounds_.begin(), bounds_.end(), offset);
  return static_cast<std::uint32_t>(it - bounds_.begin());
}

AccessLog::AccessLog(Rank ranks, std::uint32_t elements, Rank reducers)
    : elements_(elements),
      first_reducer_slot_(std::size_t(ranks) * elements),
      last_writer_((std::size_t(ranks) + reducers) * elements, kNoTransfer),
      reader_head_((std::size_t(ranks) + reducers) * elements, kNone),
      accumulated_head_(std::size_t(reducers) * elements, kNone) {}

void AccessLog::push(std::uint32_t& head, TransferId transfer) {
  std::uint32_t node;
  if (free_ != kNone) {
    node = free_;
    free_ = pool_[node].next;
  } else {
    node = static_cast<std::uint32_t>(pool_.size());
    pool_.push_back({});
  }
  pool_[node] = {transfer, head};
  head = node;
}

void AccessLog::recycle(std::uint32_t& head) {
  std::uint32_t i = head;
  while (i != kNone) {
    const std::uint32_t next = pool_[i].next;
    pool_[i].next = free_;
    free_ = i;
    i = next;
  }
  head = kNone;
}

void AccessLog::record_read(std::size_t slot, TransferId reader) { push(reader_head_[slot], reader); }

void AccessLog::record_write(std::size_t slot, TransferId writer) {
  recycle(reader_head_[slot]);
  if (slot >= first_reducer_slot_) recycle(accumulated_head_[slot - first_reducer_slot_]);
  last_writer_[slot] = writer;
}

void AccessLog::record_accumulate(std::size_t slot, TransferId writer) {
  std::uint32_t& accumulated = accumulated_head_[slot - first_reducer_slot_];
  if (reader_head_[slot] != kNone) {  // read since: a new accumulation
    recycle(reader_head_[slot]);
    recycle(accumulated);
  }
  push(accumulated, writer);
  last_writer_[slot] = writer;
}

}  // namespace collsim
