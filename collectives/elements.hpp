// collectives/elements.hpp — what the builder and the checker record about each rank's bytes:
// for every piece of a rank's address space, the last transfer that wrote it, the transfers
// that read it since, and (a switch reducer's) the in-network reductions accumulated there.
//
// Two ways to cut the bytes into pieces, one set of rules (AccessLog):
//  * ElementMap: the whole schedule's chunk boundaries, the same for every rank, with a dense
//    array of (rank, element) records. Fast where chunks are few (rings, trees), but a
//    schedule whose ranks each touch a few of P nested chunks (recursive halving) is cut into
//    P elements on every rank: O(P^2) records and visits.
//  * PieceMap: each rank's own pieces, an interval map cut only where a transfer on that rank
//    begins or ends (and where data with different histories meets), so a transfer costs
//    O(log pieces) plus the pieces it covers: Rabenseifner on 65,536 ranks keeps ~2 lg P
//    pieces a rank.
// Both are exact: a piece's bytes share one history, so per-piece bookkeeping is per-byte.
#pragma once

#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
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

// The accesses to one piece of one rank's (or reducer's) bytes. Lists live in AccessLog's pool.
struct AccessState {
  static constexpr std::uint32_t kNoList = 0xFFFFFFFFu;
  TransferId last_writer = kNoTransfer;
  std::uint32_t readers = kNoList;      // since the last write
  std::uint32_t accumulated = kNoList;  // in-network reductions since the last read (reducers only)
};

// Whether two pieces' accesses are the same and keep no lists: one write left them both.
inline bool written_alike(const AccessState& a, const AccessState& b) {
  return a.last_writer == b.last_writer && a.readers == AccessState::kNoList && b.readers == AccessState::kNoList &&
         a.accumulated == AccessState::kNoList && b.accumulated == AccessState::kNoList;
}

// The rules of what a read, a write and an in-network reduction leave behind, and the pool of
// the lists they keep. Both the builder (to infer dependencies) and the checker (to prove
// them) follow them.
class AccessLog {
 public:
  void record_read(AccessState& s, TransferId reader) { push(s.readers, reader); }
  // A write recycles the readers list (and a reducer's accumulation).
  void record_write(AccessState& s, TransferId writer);
  // An in-network reduction: after a read it starts a new accumulation (the readers are
  // recycled), otherwise it joins the reductions accumulated so far.
  void record_accumulate(AccessState& s, TransferId writer);

  // Call visit(transfer) for each reader since the last write / each accumulated reduction;
  // return how many there were.
  template <class Visit>
  std::size_t for_each_reader(const AccessState& s, Visit&& visit) const { return walk(s.readers, visit); }
  template <class Visit>
  std::size_t for_each_accumulated(const AccessState& s, Visit&& visit) const { return walk(s.accumulated, visit); }

  // The same accesses on their own lists: the state of the bytes cut off a piece.
  AccessState copy(const AccessState& s);

 private:
  struct ListNode {
    TransferId transfer;
    std::uint32_t next;
  };
  template <class Visit>
  std::size_t walk(std::uint32_t head, Visit&& visit) const {
    std::size_t n = 0;
    for (std::uint32_t i = head; i != AccessState::kNoList; i = pool_[i].next, ++n) visit(pool_[i].transfer);
    return n;
  }
  void push(std::uint32_t& head, TransferId transfer);
  void recycle(std::uint32_t& head);
  std::uint32_t copy_list(std::uint32_t head);

  std::vector<ListNode> pool_;
  std::uint32_t free_ = AccessState::kNoList;
};

// Each endpoint's address space as pieces [start, end) of a `Piece` (its AccessState and
// whatever else the user tracks), cut on demand. `Cut` tells the state of the bytes `delta`
// past a piece's start when the piece is cut there.
template <class Piece>
class PieceMap {
 public:
  using Cut = std::function<Piece(const Piece& whole, std::uint64_t delta)>;

  PieceMap(Rank endpoints, std::uint64_t address_space, Cut cut) : maps_(endpoints), cut_(std::move(cut)) {
    for (Map& m : maps_) m.emplace(0, Segment{address_space, Piece{}});
  }

  // Cuts `rank`'s pieces at the ends of `range`, then calls visit(piece's bytes, piece) for
  // each piece inside it, in address order.
  template <class Visit>
  void for_each(Rank rank, ByteRange range, Visit&& visit) {
    if (range.bytes == 0) return;
    Map& m = maps_[rank];
    auto it = cut(m, range.offset);
    cut(m, range.end());  // std::map keeps `it` valid
    for (; it != m.end() && it->first < range.end(); ++it)
      visit(ByteRange{it->first, it->second.end - it->first}, it->second.piece);
  }
  // Joins neighbouring pieces inside `range` (which starts a piece) where
  // continues(left piece's bytes, left, right) says the right one only carries the left one
  // on: pieces written by one transfer become one again, so a rank that ends with its whole
  // buffer from one transfer keeps one piece, not one per piece of the sender. `continues`
  // must hold only where the right piece keeps no lists (AccessLog's): its state is dropped.
  template <class Continues>
  void join(Rank rank, ByteRange range, Continues&& continues) {
    Map& m = maps_[rank];
    auto it = m.find(range.offset);
    if (range.bytes == 0 || it == m.end()) return;
    for (auto next = std::next(it); next != m.end() && next->first < range.end();) {
      if (continues(ByteRange{it->first, it->second.end - it->first}, it->second.piece, next->second.piece)) {
        it->second.end = next->second.end;
        next = m.erase(next);
      } else {
        it = next++;
      }
    }
  }
  // Cuts `rank`'s piece holding `offset` there, so a piece starts at it.
  void cut_at(Rank rank, std::uint64_t offset) { cut(maps_[rank], offset); }

  std::size_t pieces() const {
    std::size_t n = 0;
    for (const Map& m : maps_) n += m.size();
    return n;
  }

 private:
  struct Segment {
    std::uint64_t end;
    Piece piece;
  };
  using Map = std::map<std::uint64_t, Segment>;

  // The piece starting at `at`, cutting the one around it; end() at the end of the space.
  typename Map::iterator cut(Map& m, std::uint64_t at) {
    auto it = std::prev(m.upper_bound(at));  // the piece holding `at`: pieces start at 0
    if (it->first == at) return it;
    if (at >= it->second.end) return std::next(it);
    Segment right{it->second.end, cut_(it->second.piece, at - it->first)};
    it->second.end = at;
    return m.emplace_hint(std::next(it), at, std::move(right));
  }

  std::vector<Map> maps_;
  Cut cut_;
};

}  // namespace collsim
