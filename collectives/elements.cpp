// collectives/elements.cpp — element boundaries and the rules of the access log.
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

void AccessLog::push(std::uint32_t& head, TransferId transfer) {
  std::uint32_t node;
  if (free_ != AccessState::kNoList) {
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
  while (i != AccessState::kNoList) {
    const std::uint32_t next = pool_[i].next;
    pool_[i].next = free_;
    free_ = i;
    i = next;
  }
  head = AccessState::kNoList;
}

// The order of a list does not matter to its readers: copied in reverse.
std::uint32_t AccessLog::copy_list(std::uint32_t head) {
  std::uint32_t copy = AccessState::kNoList;
  walk(head, [&](TransferId t) { push(copy, t); });
  return copy;
}

AccessState AccessLog::copy(const AccessState& s) {
  return {s.last_writer, copy_list(s.readers), copy_list(s.accumulated)};
}

void AccessLog::record_write(AccessState& s, TransferId writer) {
  recycle(s.readers);
  recycle(s.accumulated);
  s.last_writer = writer;
}

void AccessLog::record_accumulate(AccessState& s, TransferId writer) {
  if (s.readers != AccessState::kNoList) {  // read since: a new accumulation
    recycle(s.readers);
    recycle(s.accumulated);
  }
  push(s.accumulated, writer);
  s.last_writer = writer;
}

}  // namespace collsim
