// sim/radix_heap.hpp — a monotone priority queue of (share, link) entries for the max-min
// filling (sim/max_min.cpp): keys are non-negative doubles, pushed no lower than the last one
// popped but by a rounding step, which is what progressive filling does (a link's share only
// rises as flows freeze). The event queue (sim/flow_queue.hpp) is a radix heap over times.
//
// Why not std::priority_queue: a filling pops each open link once or more (hundreds to
// thousands of links on a fat-tree, 250 M pops for the 16,384-GPU two-tree), and a binary
// heap's pop is log2(n) unpredictable comparisons. A radix heap (Ahuja, Mehlhorn, Orlin and
// Tarjan, "Faster algorithms for the shortest path problem", JACM 1990) files an entry in the
// bucket of the highest bit in which its key differs from the last key popped: a push is an
// append, and a pop only sorts out the lowest non-empty bucket, each entry moving down at most
// 64 times in all. A non-negative double's bits, read as an unsigned integer, order as the
// double does, so the keys are the shares' bits.
//
// Entries come out in the order a binary heap of (share, link) pairs gives them (equal shares by
// lowest link; a share pushed below the last one popped, a rounding step down, next), so the
// filling freezes links in the same order, and to the same rounding, as its scan does.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

namespace collsim {

class RadixHeap {
 public:
  struct Entry {
    double share;         // as pushed: the caller compares it with the link's current share
    std::uint32_t link;
  };

  bool empty() const { return size_ == 0; }

  // Empties the heap and forgets the last key: the next filling starts from 0.
  void clear() {
    for (std::uint64_t used = used_; used != 0; used &= used - 1) buckets_[std::countr_zero(used)].clear();
    used_ = 0;
    size_ = 0;
    last_ = 0;
  }

  // `share` >= 0. One below the last popped (a rounding step down) is ordered as the last
  // popped: it comes out next, with its own share.
  void push(double share, std::uint32_t link) {
    const std::uint64_t key = std::max(bits(share), last_);
    file({key, share, link});
    ++size_;
  }

  // The entry of the smallest key. Not on an empty heap.
  Entry pop() {
    if (buckets_[0].empty()) refill_lowest();
    std::vector<Keyed>& lowest = buckets_[0];
    const Keyed top = lowest.back();
    lowest.pop_back();
    if (lowest.empty()) used_ &= ~std::uint64_t(1);
    --size_;
    return {top.share, top.link};
  }

 private:
  struct Keyed {
    std::uint64_t key;
    double share;
    std::uint32_t link;
  };

  static std::uint64_t bits(double share) { return std::bit_cast<std::uint64_t>(share > 0 ? share : 0.0); }

  // Bucket 0 holds keys equal to last_, sorted from the back: smallest share first, then lowest
  // link; bucket b >= 1 keys whose highest bit differing from last_ is bit b - 1 (64 buckets for
  // 64 bits: bit 63, the sign, never differs).
  void file(const Keyed& e) {
    if (e.key == last_) {
      std::vector<Keyed>& lowest = buckets_[0];
      lowest.insert(std::upper_bound(lowest.begin(), lowest.end(), e, later), e);
      used_ |= 1;
      return;
    }
    const int b = 64 - std::countl_zero(e.key ^ last_);
    buckets_[b].push_back(e);
    used_ |= std::uint64_t(1) << b;
  }

  // Pop order within bucket 0, as a heap of (share, link) pairs would pop: the back is next.
  static bool later(const Keyed& x, const Keyed& y) {
    return x.share > y.share || (x.share == y.share && x.link > y.link);
  }

  // Bucket 0 is empty: the lowest non-empty bucket's smallest key becomes last_, and its
  // entries move to lower buckets (at least that key's to bucket 0).
  void refill_lowest() {
    const int b = std::countr_zero(used_);
    std::vector<Keyed>& from = buckets_[b];
    last_ = std::min_element(from.begin(), from.end(), [](const Keyed& x, const Keyed& y) { return x.key < y.key; })->key;
    used_ &= ~(std::uint64_t(1) << b);
    moving_.swap(from);
    std::vector<Keyed>& lowest = buckets_[0];
    for (const Keyed& e : moving_) {
      if (e.key == last_) {
        lowest.push_back(e);
      } else {
        file(e);
      }
    }
    moving_.clear();
    std::sort(lowest.begin(), lowest.end(), later);
    used_ |= 1;
  }

  std::array<std::vector<Keyed>, 64> buckets_;
  std::vector<Keyed> moving_;  // the bucket being sorted out
  std::uint64_t used_ = 0;     // bit b: bucket b is not empty
  std::uint64_t last_ = 0;     // the last key popped (or that refill_lowest made the floor)
  std::size_t size_ = 0;
};

}  // namespace collsim
