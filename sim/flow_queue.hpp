// sim/flow_queue.hpp — the flow engine's two hot containers (internal to sim/flow_engine.cpp):
// its event queue, grouped by exact time, and the (source, destination) -> pair index.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace collsim::flow {

constexpr std::uint32_t kNone = ~0u;

enum class EventKind : std::uint32_t { flow_end = 0, flow_start = 1, local_ready = 2 };
constexpr std::uint32_t kKindShift = 30;
constexpr std::uint32_t kIdMask = (1u << kKindShift) - 1;

struct Event {
  double time;
  std::uint32_t key;      // kind << 30 | id: a flow slot (flow_end, flow_start) or a transfer
  std::uint32_t version;  // flow_end only: stale when the flow's rate changed since

  EventKind kind() const { return EventKind(key >> kKindShift); }
  std::uint32_t id() const { return key & kIdMask; }
};

// Events in order of time, then key (kind, then id), so that runs are deterministic.
// Lock-step schedules (a ring) put thousands of events on one exact instant, so events are
// kept in buckets of one time each: a 4-ary heap orders the buckets, and a bucket is sorted
// by key (if its pushes did not come in order) when its time comes. The bucket being popped
// is `current_`; while it lasts, every other bucket is later, and a push at its time joins
// it in key order.
class EventQueue {
 public:
  bool empty() const { return cursor_ == current_.size() && heap_.empty(); }
  double next_time() {
    settle();
    return now_;
  }
  Event pop() {
    settle();
    const Item item = current_[cursor_++];
    return {now_, item.key, item.version};
  }

  void push(const Event& e) {
    const Item item{e.key, e.version};
    if (e.time == now_ && cursor_ < current_.size()) return join_current(item);
    if (e.time < now_ && cursor_ < current_.size()) shelve_current();  // an earlier instant comes in
    if (recent_ == kNoBucket || buckets_[recent_].time != e.time) recent_ = open_bucket(e.time);
    Bucket& b = buckets_[recent_];
    b.sorted = b.sorted && (b.items.empty() || b.items.back().key <= item.key);
    b.items.push_back(item);
  }

 private:
  struct Item {
    std::uint32_t key, version;
  };
  struct Bucket {
    double time = 0;
    bool sorted = true;
    std::vector<Item> items;
  };
  struct Entry {
    double time;
    std::uint32_t bucket;
  };
  static constexpr std::uint32_t kNoBucket = ~0u;
  static constexpr std::size_t kArity = 4;

  void join_current(const Item& item) {
    const auto at = std::upper_bound(current_.begin() + std::ptrdiff_t(cursor_), current_.end(), item,
                                     [](const Item& a, const Item& b) { return a.key < b.key; });
    current_.insert(at, item);
  }

  // Puts the rest of the current instant back as a bucket; `now_` is free for an earlier one.
  void shelve_current() {
    const std::uint32_t b = open_bucket(now_);
    buckets_[b].items.assign(current_.begin() + std::ptrdiff_t(cursor_), current_.end());
    current_.clear();
    cursor_ = 0;
    now_ = -1;
    recent_ = kNoBucket;
  }

  std::uint32_t open_bucket(double time) {
    std::uint32_t b = std::uint32_t(buckets_.size());
    if (free_.empty()) {
      buckets_.emplace_back();
    } else {
      b = free_.back();
      free_.pop_back();
    }
    buckets_[b].time = time;
    buckets_[b].sorted = true;
    heap_push({time, b});
    return b;
  }

  // Once the current instant is exhausted, the next one becomes current: every bucket of the
  // earliest time, merged and sorted by key.
  void settle() {
    if (cursor_ < current_.size()) return;
    current_.clear();
    cursor_ = 0;
    recent_ = kNoBucket;
    now_ = heap_.front().time;
    bool sorted = true;
    for (int merged = 0; !heap_.empty() && heap_.front().time == now_; ++merged) {
      Bucket& b = buckets_[heap_.front().bucket];
      free_.push_back(heap_.front().bucket);
      heap_pop();
      sorted = sorted && b.sorted && merged == 0;
      if (current_.empty()) {
        current_.swap(b.items);
      } else {
        current_.insert(current_.end(), b.items.begin(), b.items.end());
      }
      b.items.clear();
    }
    if (!sorted) sort_current();
  }

  // Least significant byte first radix sort by key (stable), skipping bytes all keys share;
  // thousands of events on one instant sort faster that way than by comparisons.
  void sort_current() {
    if (current_.size() < 64) {
      std::sort(current_.begin(), current_.end(), [](const Item& a, const Item& b) { return a.key < b.key; });
      return;
    }
    scratch_.resize(current_.size());
    for (std::uint32_t shift = 0; shift < 32; shift += 8) {
      std::array<std::uint32_t, 256> start{};
      for (const Item& i : current_) ++start[(i.key >> shift) & 0xFF];
      if (start[(current_[0].key >> shift) & 0xFF] == current_.size()) continue;
      std::uint32_t sum = 0;
      for (std::uint32_t& s : start) sum += std::exchange(s, sum);
      for (const Item& i : current_) scratch_[start[(i.key >> shift) & 0xFF]++] = i;
      current_.swap(scratch_);
    }
  }

  void heap_push(const Entry& e) {
    heap_.push_back(e);
    sift_up(heap_.size() - 1, e);
  }

  // Moves the hole at the root down to a leaf along the earliest children, then sifts the
  // last entry up from there: it came from the bottom, so it rarely climbs far.
  void heap_pop() {
    const Entry last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return;
    std::size_t i = 0;
    for (std::size_t first = 1; first < n; first = i * kArity + 1) {
      std::size_t best = first;
      for (std::size_t c = first + 1; c < std::min(first + kArity, n); ++c)
        best = heap_[c].time < heap_[best].time ? c : best;
      heap_[i] = heap_[best];
      i = best;
    }
    sift_up(i, last);
  }

  void sift_up(std::size_t i, const Entry& e) {
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!(e.time < heap_[parent].time)) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  std::vector<Entry> heap_;
  std::vector<Bucket> buckets_;
  std::vector<std::uint32_t> free_;
  std::uint32_t recent_ = kNoBucket;  // the bucket of the last push, while it waits
  std::vector<Item> current_, scratch_;  // the instant being popped, sorted by key
  std::size_t cursor_ = 0;
  double now_ = -1;                   // its time
};

// (source, destination) -> pair number: open addressing, linear probing. Every transfer
// looks its pair up, so this beats std::unordered_map's node per entry.
class PairIndex {
 public:
  // The number of the pair (src, dst); one seen for the first time gets `fresh`. Each
  // source's last pair is remembered: a ring's sources always talk to the same rank, and
  // skipping the hash there takes the streamed 16,384-rank ring from 24 s to 15 s.
  std::uint32_t find_or_add(std::uint32_t src, std::uint32_t dst, std::uint32_t fresh) {
    if (src < last_.size() && last_[src].dst == dst) return last_[src].pair;
    const std::uint32_t pair = find_or_add((std::uint64_t(src) << 32) | dst, fresh);
    if (src >= last_.size()) last_.resize(src + 1, {kNone, kNone});
    last_[src] = {dst, pair};
    return pair;
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t value = kNone;
  };
  struct Last {
    std::uint32_t dst, pair;
  };

  std::uint32_t find_or_add(std::uint64_t key, std::uint32_t fresh) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    for (std::size_t i = home(key);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.value == kNone) {
        s = {key, fresh};
        ++size_;
        return fresh;
      }
      if (s.key == key) return s.value;
    }
  }

  std::size_t home(std::uint64_t key) const {
    return std::size_t((key * 0x9E3779B97F4A7C15ull) >> 32) & (slots_.size() - 1);
  }

  void grow() {
    std::vector<Slot> old(std::max<std::size_t>(64, 2 * slots_.size()));
    old.swap(slots_);
    size_ = 0;
    for (const Slot& s : old)
      if (s.value != kNone) find_or_add(s.key, s.value);
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  std::vector<Last> last_;  // per source
};

}  // namespace collsim::flow
