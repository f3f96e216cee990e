// sim/flow_queue.hpp — the flow engine's hot containers (internal to sim/flow_engine.cpp): its
// event queue (starts and local reductions grouped by exact time; each draining flow's one end,
// moved in place when its rate changes) and the (source, destination) -> pair index.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <cstdint>
#include <utility>
#include <vector>

namespace collsim::flow {

constexpr std::uint32_t kNone = ~0u;

// At one instant: ends first, then starts, then local reductions; within a kind, in order of
// transfer id.
enum class EventKind : std::uint32_t { flow_end = 0, flow_start = 1, local_ready = 2 };
constexpr std::uint32_t kKindShift = 30;
constexpr std::uint32_t kIdMask = (1u << kKindShift) - 1;

struct Event {
  double time;
  std::uint32_t key;      // kind << 30 | transfer id: the order of events at one instant
  // flow_start: its channel, or on an exclusive channel its transfer's facts (sim/flow_engine.cpp)
  std::uint32_t payload;
  // flow_start: the flow slot (or an exclusive channel); flow_end: the drain (sim/flow_engine.cpp)
  std::uint32_t slot;

  EventKind kind() const { return EventKind(key >> kKindShift); }
  std::uint32_t id() const { return key & kIdMask; }
};

// Starts and local reductions in order of time, then key (kind, then transfer id), so that runs
// are deterministic. A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, 1990): time only moves
// forward, so an event goes to bucket i, the highest bit in which its time (as the bits of a
// non-negative double, which order as the doubles do) differs from the instant last popped;
// popping an empty current instant takes the lowest non-empty bucket, finds its earliest time
// and spreads the rest to lower buckets. A push costs an append and each event moves down a few
// times at most, where a heap of per-instant buckets paid log n cache misses on every event
// whose time was its own (a ring on a dragonfly: routes of different latency give every
// transfer its own instant). Lock-step schedules put thousands of events on one exact instant:
// they become current together and are sorted by key (radix) once. A push at or before the
// current instant (within the engine's 1e-12 batch) joins it in key order.
class RadixQueue {
 public:
  bool empty() const { return size_ == 0; }
  // Looks without moving on: a push before the next instant must still come first.
  double next_time() {
    if (cursor_ < current_.size()) return current_[cursor_].time;
    if (peek_bucket_ == 0) peek();
    return peek_time_;
  }
  // The instant the next pop belongs to (a push that joined the current instant belongs to it,
  // whatever its own time), and that pop's key; next_key() settles the instant, so ask it
  // only once that instant is the queue's next.
  double next_instant() {
    if (cursor_ < current_.size()) return current_time_;
    return next_time();
  }
  std::uint32_t next_key() {
    settle();
    return current_[cursor_].key;
  }
  Event pop() {
    settle();
    --size_;
    return current_[cursor_++];
  }

  void push(const Event& e) {
    ++size_;
    const std::uint64_t t = bits(e.time);
    if (t <= last_) return join_current(e);
    const int b = bucket_of(t);
    buckets_[b].push_back(e);
    if (peek_bucket_ != 0 && e.time < peek_time_) {
      peek_time_ = e.time;
      peek_bucket_ = std::min(peek_bucket_, b);
    }
  }

 private:
  static constexpr int kBuckets = 65;

  static std::uint64_t bits(double time) {
    const double t = time + 0.0;  // -0 becomes +0
    std::uint64_t b;
    std::memcpy(&b, &t, sizeof b);
    return b;
  }
  int bucket_of(std::uint64_t t) const { return 64 - std::countl_zero(t ^ last_); }
  static bool by_key(const Event& a, const Event& b) { return a.key < b.key; }

  void join_current(const Event& e) {
    const auto at = std::upper_bound(current_.begin() + std::ptrdiff_t(cursor_), current_.end(), e, by_key);
    current_.insert(at, e);
  }

  // The lowest non-empty bucket holds the next instant: its earliest time.
  void peek() {
    int i = 1;
    while (buckets_[i].empty()) ++i;
    peek_bucket_ = i;
    peek_time_ = buckets_[i][0].time;
    for (const Event& e : buckets_[i]) peek_time_ = std::min(peek_time_, e.time);
  }

  // The current instant is exhausted: the next one becomes current, sorted by key.
  void settle() {
    if (cursor_ < current_.size()) return;
    if (peek_bucket_ == 0) peek();
    current_.clear();
    cursor_ = 0;
    std::vector<Event>& from = buckets_[peek_bucket_];
    last_ = bits(peek_time_);
    current_time_ = peek_time_;
    peek_bucket_ = 0;
    bool sorted = true;
    for (const Event& e : from) {
      const std::uint64_t t = bits(e.time);
      if (t != last_) {
        buckets_[bucket_of(t)].push_back(e);
        continue;
      }
      sorted = sorted && (current_.empty() || current_.back().key <= e.key);
      current_.push_back(e);
    }
    from.clear();
    if (!sorted) sort_current();
  }

  // Least significant byte first radix sort by key (stable), skipping bytes all keys share;
  // thousands of events on one instant sort faster that way than by comparisons.
  void sort_current() {
    if (current_.size() < 64) {
      std::stable_sort(current_.begin(), current_.end(), by_key);
      return;
    }
    scratch_.resize(current_.size());
    for (std::uint32_t shift = 0; shift < 32; shift += 8) {
      std::array<std::uint32_t, 256> start{};
      for (const Event& e : current_) ++start[(e.key >> shift) & 0xFF];
      if (start[(current_[0].key >> shift) & 0xFF] == current_.size()) continue;
      std::uint32_t sum = 0;
      for (std::uint32_t& s : start) sum += std::exchange(s, sum);
      for (const Event& e : current_) scratch_[start[(e.key >> shift) & 0xFF]++] = e;
      current_.swap(scratch_);
    }
  }

  std::array<std::vector<Event>, kBuckets> buckets_;  // by bit; bucket 0 stays empty
  std::vector<Event> current_, scratch_;  // the instant being popped, sorted by key
  std::size_t cursor_ = 0;
  std::uint64_t last_ = 0;  // its time, as bits
  double current_time_ = 0;  // and as a double
  int peek_bucket_ = 0;     // where the next instant is, once looked for (0: not yet)
  double peek_time_ = 0;    // and its time
  std::size_t size_ = 0;
};

// Each draining flow's end, one entry per flow (`slot`: the caller's dense number for it), in
// order of time then key: a 4-ary heap whose entries know their place, so a re-rated flow's
// end moves in place. Pushing a new end for every change of rate and dropping the old one when
// it popped cost a pop, and a cache miss on the flow's record to tell it was stale, per change:
// half the events of two-tree on 8 channels (5.6 M of 10.8 M at 1,024 ranks) were such
// leftovers.
class FlowEnds {
 public:
  struct End {
    double time;
    std::uint32_t key;
    std::uint32_t slot;
  };

  bool empty() const { return heap_.empty(); }
  const End& top() const { return heap_.front(); }
  // The end of the flow in `slot` is now at `time` (added, or moved from where it was).
  void set(std::uint32_t slot, double time, std::uint32_t key) {
    if (slot >= place_.size()) place_.resize(slot + 1, kNone);
    const End e{time, key, slot};
    const std::uint32_t at = place_[slot];
    if (at == kNone) {
      heap_.push_back(e);
      return up(std::uint32_t(heap_.size() - 1), e);
    }
    before(e, heap_[at]) ? up(at, e) : down(at, e);
  }
  End pop() {
    const End top = heap_.front();
    place_[top.slot] = kNone;
    const End last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) down(0, last);
    return top;
  }

 private:
  static constexpr std::uint32_t kArity = 4;
  static bool before(const End& a, const End& b) { return a.time < b.time || (a.time == b.time && a.key < b.key); }

  // `e` goes into the hole at `at`, moving up past the entries it comes before.
  void up(std::uint32_t at, const End& e) {
    while (at > 0) {
      const std::uint32_t parent = (at - 1) / kArity;
      if (!before(e, heap_[parent])) break;
      put(at, heap_[parent]);
      at = parent;
    }
    put(at, e);
  }
  // `e` goes into the hole at `at`, moving down past the children that come before it.
  void down(std::uint32_t at, const End& e) {
    const std::size_t n = heap_.size();
    for (;;) {
      const std::size_t first = std::size_t(at) * kArity + 1;
      if (first >= n) break;
      std::size_t best = first;
      for (std::size_t c = first + 1; c < std::min(first + kArity, n); ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], e)) break;
      put(at, heap_[best]);
      at = std::uint32_t(best);
    }
    put(at, e);
  }
  void put(std::uint32_t at, const End& e) {
    heap_[at] = e;
    place_[e.slot] = at;
  }

  std::vector<End> heap_;
  std::vector<std::uint32_t> place_;  // per slot: its end's index in heap_, kNone if none
};

// All events in one order: time, then key (ends before starts before local reductions at one
// instant, each in order of transfer id). Ends come from FlowEnds, the rest from RadixQueue.
// An event pushed or set at or before the instant last popped joins that instant, in key
// order: the order is (max(time, that instant), key).
class EventQueue {
 public:
  bool empty() const { return ends_.empty() && others_.empty(); }
  // The time of the next pop, without moving on (a push before it must still come first).
  double next_time() {
    if (others_.empty()) return ends_.top().time;
    if (ends_.empty()) return others_.next_time();
    return std::min(ends_.top().time, others_.next_time());
  }
  Event pop() {
    if (next_is_end()) {
      const FlowEnds::End e = ends_.pop();
      instant_ = std::max(instant_, e.time);
      return {e.time, e.key, 0, e.slot};
    }
    instant_ = std::max(instant_, others_.next_instant());
    return others_.pop();
  }
  // A start or local reduction.
  void push(Event e) {
    e.time = std::max(e.time, instant_);
    others_.push(e);
  }
  // The end of the flow in `slot` (kind flow_end, `transfer`) is at `time`: replaces its
  // previous end, if any.
  void set_end(std::uint32_t slot, double time, std::uint32_t transfer) {
    ends_.set(slot, std::max(time, instant_), (std::uint32_t(EventKind::flow_end) << kKindShift) | transfer);
  }

 private:
  bool next_is_end() {
    if (ends_.empty()) return false;
    if (others_.empty()) return true;
    const double end = ends_.top().time, other = others_.next_instant();
    if (end != other) return end < other;
    return ends_.top().key < others_.next_key();
  }

  FlowEnds ends_;
  RadixQueue others_;
  double instant_ = 0;  // of the last pop
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
