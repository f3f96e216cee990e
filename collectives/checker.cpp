// collectives/checker.cpp — structural validation, hazard proof and symbolic execution.
#include "collectives/checker.hpp"

#include <algorithm>
#include <bit>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/collective_spec.hpp"
#include "collectives/elements.hpp"

namespace collsim {
namespace {

std::string describe(const Schedule& s, TransferId id) {
  const Transfer t = s.transfer(id);
  return fmt::format("transfer {} ({} {} -> {}, step {})", id, to_string(t.op), t.src, t.dst, t.step);
}

std::string bytes_of(ByteRange r) { return fmt::format("bytes [{}, {})", r.offset, r.end()); }

// Finds a cycle through forward dependencies, or reports the first out-of-order dependency.
[[noreturn]] void report_forward_dependency(const Schedule& s, TransferId from, TransferId to) {
  const std::size_t n = s.size();
  std::vector<std::uint8_t> color(n, 0);  // 0 new, 1 on stack, 2 done
  std::vector<TransferId> parent(n, kNoTransfer);
  for (TransferId start = 0; start < n; ++start) {
    if (color[start]) continue;
    std::vector<std::pair<TransferId, std::size_t>> stack{{start, 0}};
    color[start] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const auto deps = s.transfer(node).deps;
      if (next == deps.size()) {
        color[node] = 2;
        stack.pop_back();
        continue;
      }
      const TransferId d = deps[next++];
      if (d >= n) continue;  // reported elsewhere
      if (color[d] == 1) {
        std::string path = std::to_string(d);
        for (TransferId x = node; x != d; x = parent[x]) path = std::to_string(x) + " -> " + path;
        throw Error(fmt::format("dependency cycle: transfers {} -> {} (each waits for the next)", d, path));
      }
      if (color[d] == 0) {
        color[d] = 1;
        parent[d] = node;
        stack.push_back({d, 0});
      }
    }
  }
  throw Error(fmt::format("transfer {} depends on later transfer {}: transfers must be listed in dependency order",
                          from, to));
}

void validate_transfer(const Schedule& s, TransferId id) {
  const ScheduleInfo& info = s.info();
  const Transfer t = s.transfer(id);
  const auto& chunks = s.chunks();
  if (t.src >= info.endpoints() || t.dst >= info.endpoints())
    throw Error(fmt::format("transfer {} names rank {} but the schedule has {} ranks{}", id, std::max(t.src, t.dst),
                            info.ranks, info.reducers ? fmt::format(" and {} switch reducers", info.reducers) : ""));
  if (t.is_local() && info.is_reducer(t.src))
    throw Error(fmt::format("transfer {} is local to switch reducer {}: a switch reduces what arrives, it has no "
                            "local reductions", id, t.src));
  if (t.src_chunk >= chunks.size() || t.dst_chunk >= chunks.size())
    throw Error(fmt::format("transfer {} names chunk {} but the schedule has {} chunks", id,
                            std::max(t.src_chunk, t.dst_chunk), chunks.size()));
  const ByteRange a = chunks[t.src_chunk], b = chunks[t.dst_chunk];
  if (a.bytes != b.bytes)
    throw Error(fmt::format("transfer {} moves chunk {} ({} bytes) into chunk {} ({} bytes)", id, t.src_chunk,
                            a.bytes, t.dst_chunk, b.bytes));
  if (t.is_local() && a.bytes > 0 && a.offset < b.end() && b.offset < a.end())
    throw Error(fmt::format("transfer {} is local to rank {} and its source and destination overlap", id, t.src));
  for (TransferId d : t.deps) {
    if (d >= s.size()) throw Error(fmt::format("transfer {} depends on transfer {}, which does not exist", id, d));
    if (d == id) throw Error(fmt::format("dependency cycle: transfer {} depends on itself", id));
    if (d > id) report_forward_dependency(s, id, d);
    const Transfer u = s.transfer(d);
    if (u.src != t.src && u.dst != t.src && u.src != t.dst && u.dst != t.dst)
      throw Error(fmt::format("transfer {} ({} -> {}) depends on transfer {} ({} -> {}), which neither of its ranks "
                              "takes part in", id, t.src, t.dst, d, u.src, u.dst));
  }
}

// What one piece of one rank holds: whose contributions (exact bit set for P <= 64, or a
// signature) and from which position of the sources' data: the bytes from `origin` on of
// every contributing rank. One origin per value is exact for any P: a reduction of two values
// with different origins is refused as it happens.
struct Contribution {
  std::uint64_t sum = 0;     // bit set, or wrap-around sum of weights
  std::uint64_t origin = 0;  // the sources' byte the piece's first byte was taken from
  std::uint32_t count = 0;   // 0 = nothing has arrived yet

  // The same contributions `delta` bytes further on.
  Contribution shifted(std::uint64_t delta) const { return {sum, count == 0 ? 0 : origin + delta, count}; }
  friend bool operator==(const Contribution&, const Contribution&) = default;
};

// One piece of a rank's bytes (elements.hpp's PieceMap): its accesses and what it holds.
struct Piece {
  AccessState access;
  Contribution value;
};

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The chunks plus the ranges the postcondition speaks about, so both lie on element bounds.
std::vector<ByteRange> with_output_bounds(const Schedule& s) {
  std::vector<ByteRange> ranges = s.chunks();
  for (const ByteRange& r : output_bounds(s.info())) ranges.push_back(r);
  return ranges;
}

class SymbolicRun {
 public:
  SymbolicRun(const Schedule& s, const CheckOptions& options)
      : s_(s), info_(s.info()), exact_(info_.ranks <= options.exact_up_to),
        pieces_(info_.endpoints(), info_.address_space(), [this](const Piece& whole, std::uint64_t delta) {
          return Piece{log_.copy(whole.access), whole.value.shifted(delta)};
        }) {
    for (Rank r = 0; r < info_.ranks; ++r) {
      weight_.push_back(exact_ ? (1ull << r) : (splitmix64(options.seed + r) | 1));
      everyone_.sum += weight_.back();
    }
    everyone_.count = info_.ranks;
  }

  bool exact() const { return exact_; }
  std::size_t pieces() const { return pieces_.pieces(); }

  void initialise() {
    for (Rank r = 0; r < info_.ranks; ++r)
      pieces_.for_each(r, info_.input_range(r), [&](ByteRange bytes, Piece& p) { p.value = {weight_[r], bytes.offset, 1}; });
  }

  void execute(const CheckOptions& options) {
    for (TransferId id = 0; id < s_.size(); ++id) {
      if (options.progress && id % kCheckProgressEvery == 0) options.progress("hazards and contributions", id, s_.size());
      run_transfer(id);
    }
  }

  // Every part of every rank's expected output (collective_spec.hpp), in rank order.
  void verify_postcondition() {
    for (Rank r = 0; r < info_.ranks; ++r)
      for (const ExpectedOutput& part : expected_output(info_, r)) {
        const bool sum = part.source == kEveryRank;
        const Contribution want = sum ? everyone_ : Contribution{weight_[part.source], 0, 1};
        const std::string what = sum ? std::string("the sum of all ranks")
                                 : part.source == info_.root && spec_of(info_.collective).rooted
                                     ? fmt::format("root {}'s data", part.source)
                                     : fmt::format("rank {}'s block", part.source);
        expect(r, part.range, want, what, part.source_offset);
      }
  }

 private:
  // What a transfer read, piece by piece: from `offset` bytes into its chunk on.
  struct Staged {
    std::uint64_t offset;
    Contribution value;
  };

  // Reads the source's pieces, then writes each destination piece from the staged piece it
  // lies in; the destination is first cut where the source's pieces meet, so both sides'
  // histories stay exact whatever each rank's own cuts.
  void run_transfer(TransferId id) {
    const Transfer t = s_.transfer(id);
    const ByteRange from = s_.chunks()[t.src_chunk], to = s_.chunks()[t.dst_chunk];
    staged_.clear();
    pieces_.for_each(t.src, from, [&](ByteRange bytes, Piece& p) {
      staged_.push_back({bytes.offset - from.offset, read(id, t.src, bytes, p)});
    });
    for (std::size_t i = 1; i < staged_.size(); ++i) pieces_.cut_at(t.dst, to.offset + staged_[i].offset);
    std::size_t i = 0;
    pieces_.for_each(t.dst, to, [&](ByteRange bytes, Piece& p) {
      const std::uint64_t offset = bytes.offset - to.offset;
      while (i + 1 < staged_.size() && staged_[i + 1].offset <= offset) ++i;
      write(id, t, bytes, p, staged_[i].value.shifted(offset - staged_[i].offset));
    });
    pieces_.join(t.dst, to, [](ByteRange left, const Piece& a, const Piece& b) {
      return written_alike(a.access, b.access) && a.value.shifted(left.bytes) == b.value;
    });
  }

  Contribution read(TransferId id, Rank rank, ByteRange bytes, Piece& p) {
    log_.for_each_accumulated(p.access, [&](TransferId w) {
      if (!happens_before(w, id))
        throw Error(fmt::format("{} reads {} of switch reducer {} before {} has reduced into them, without a "
                                "dependency path between them (multicast before every reduction)",
                                describe(s_, id), bytes_of(bytes), rank, describe(s_, w)));
    });
    const TransferId writer = p.access.last_writer;
    if (writer != kNoTransfer && !happens_before(writer, id))
      throw Error(fmt::format("{} reads {} of rank {} that {} writes, without a dependency path between them "
                              "(read before arrival)", describe(s_, id), bytes_of(bytes), rank, describe(s_, writer)));
    if (p.value.count == 0)
      throw Error(fmt::format("{} reads {} of rank {}, which hold no data yet (read before arrival)", describe(s_, id),
                              bytes_of(bytes), rank));
    log_.record_read(p.access, id);
    return p.value;
  }

  void write(TransferId id, const Transfer& t, ByteRange bytes, Piece& p, const Contribution& incoming) {
    const std::size_t readers = log_.for_each_reader(p.access, [&](TransferId r) {
      if (!happens_before(r, id))
        throw Error(fmt::format("{} overwrites {} of rank {} that {} still reads, without a dependency path between "
                                "them (write after read)", describe(s_, id), bytes_of(bytes), t.dst, describe(s_, r)));
    });
    const TransferId writer = p.access.last_writer;
    // In-network reductions into the same bytes commute: only one after a copy needs an order.
    const bool in_network = is_in_network_reduction(info_, t);
    const bool accumulating = in_network && log_.for_each_accumulated(p.access, [](TransferId) {}) > 0;
    if (readers == 0 && !accumulating && writer != kNoTransfer && !happens_before(writer, id))
      throw Error(fmt::format("{} and {} both write {} of rank {} without a dependency path between them "
                              "(write after write)", describe(s_, writer), describe(s_, id), bytes_of(bytes), t.dst));
    Contribution& v = p.value;
    if (t.op == Op::copy || v.count == 0) {
      v = incoming;
    } else {
      if (v.origin != incoming.origin)
        throw Error(fmt::format("{} reduces {} of the sources' data into {} of rank {}, which holds {} of theirs "
                                "(a reduction that mixes positions)", describe(s_, id),
                                bytes_of({incoming.origin, bytes.bytes}), bytes_of(bytes), t.dst,
                                bytes_of({v.origin, bytes.bytes})));
      if (exact_ && (v.sum & incoming.sum) != 0)
        throw Error(fmt::format("{} reduces rank {}'s contribution into {} of rank {} a second time (duplicated "
                                "reduction)", describe(s_, id), std::countr_zero(v.sum & incoming.sum),
                                bytes_of(bytes), t.dst));
      v.sum = exact_ ? (v.sum | incoming.sum) : v.sum + incoming.sum;
      v.count += incoming.count;
    }
    if (in_network)
      log_.record_accumulate(p.access, id);
    else
      log_.record_write(p.access, id);
  }

  // True when a dependency path leads from `a` to `b` (a < b). Direct dependencies answer
  // almost every query of a generated schedule; otherwise a search over b's ancestors,
  // pruned below a (ancestors listed before a cannot reach it).
  bool happens_before(TransferId a, TransferId b) {
    const auto deps = s_.transfer(b).deps;
    if (std::find(deps.begin(), deps.end(), a) != deps.end()) return true;
    if (visited_.empty()) visited_.assign(s_.size(), 0);
    ++stamp_;
    std::vector<TransferId>& stack = search_;
    stack.assign(deps.begin(), deps.end());
    while (!stack.empty()) {
      const TransferId x = stack.back();
      stack.pop_back();
      if (x == a) return true;
      if (x < a || visited_[x] == stamp_) continue;
      visited_[x] = stamp_;
      for (TransferId d : s_.transfer(x).deps) stack.push_back(d);
    }
    return false;
  }

  // Rank's `range` should hold `want`'s contributions taken from the sources' data from
  // `source_offset` on (the same bytes, but for alltoall's blocks).
  void expect(Rank rank, ByteRange range, const Contribution& want, const std::string& what,
              std::uint64_t source_offset) {
    pieces_.for_each(rank, range, [&](ByteRange bytes, const Piece& p) {
      const Contribution& v = p.value;
      const std::uint64_t from = source_offset + (bytes.offset - range.offset);
      const bool placed = v.count == 0 || v.origin == from;
      if (v.sum == want.sum && v.count == want.count && placed) return;
      throw Error(fmt::format("postcondition of {} fails: rank {} {} should hold {} from bytes [{}, {}) but {}{}",
                              to_string(info_.collective), rank, bytes_of(bytes), what, from, from + bytes.bytes,
                              what_is_wrong(v, want, placed, bytes.bytes), last_written_by(p.access)));
    });
  }

  std::string what_is_wrong(const Contribution& have, const Contribution& want, bool placed, std::uint64_t bytes) const {
    const bool right_ranks = have.sum == want.sum && have.count == want.count;
    std::string out = right_ranks ? "" : explain_difference(have, want);
    if (!placed)
      out += fmt::format("{}hold {} (misplaced)", out.empty() ? "" : " and ", bytes_of({have.origin, bytes}));
    return out;
  }

  // Names the transfer that last wrote a piece, where the postcondition fails: the one at
  // fault or the last to pass the fault on.
  std::string last_written_by(const AccessState& access) const {
    const TransferId w = access.last_writer;
    return w == kNoTransfer ? std::string(" (no transfer wrote them)") : fmt::format(" (last written by {})", describe(s_, w));
  }

  std::string explain_difference(const Contribution& have, const Contribution& want) const {
    if (have.count == 0) return "hold no data";
    if (!exact_) return fmt::format("hold {} contributions (signature {:#x}, expected {} with {:#x})", have.count,
                                    have.sum, want.count, want.sum);
    std::string out;
    const std::uint64_t missing = want.sum & ~have.sum, extra = have.sum & ~want.sum;
    if (missing) out += fmt::format("miss the contribution of rank {}", std::countr_zero(missing));
    if (extra) out += fmt::format("{}hold an extra contribution of rank {}", out.empty() ? "" : " and ", std::countr_zero(extra));
    return out;
  }

  const Schedule& s_;
  const ScheduleInfo& info_;
  bool exact_;
  AccessLog log_;
  PieceMap<Piece> pieces_;
  std::vector<Staged> staged_;
  std::vector<std::uint64_t> weight_;
  Contribution everyone_;
  std::vector<std::uint32_t> visited_;
  std::uint32_t stamp_ = 0;
  std::vector<TransferId> search_;
};

}  // namespace

void validate_structure(const Schedule& s) {
  const ScheduleInfo& info = s.info();
  if (info.ranks == 0) throw Error("schedule has 0 ranks");
  if (info.root >= info.ranks) throw Error(fmt::format("root {} is not one of the {} ranks", info.root, info.ranks));
  if (info.reducers > kMaxRanks)
    throw Error(fmt::format("schedule names {} switch reducers, more than the {} allowed", info.reducers, kMaxRanks));
  if (info.collective == Collective::alltoall && info.scratch_bytes < alltoall_receive_bytes(info))
    throw Error(fmt::format("alltoall schedule has {} scratch bytes, fewer than the {} of its receive buffer (P blocks "
                            "from every rank after the data)", info.scratch_bytes, alltoall_receive_bytes(info)));
  const std::uint64_t space = info.address_space();
  for (std::size_t c = 0; c < s.chunks().size(); ++c) {
    const ByteRange r = s.chunks()[c];
    if (r.offset > space || r.bytes > space - r.offset)
      throw Error(fmt::format("chunk {} [{}, {}) lies outside the {} bytes of data and scratch", c, r.offset,
                              r.offset + r.bytes, space));
  }
  for (TransferId id = 0; id < s.size(); ++id) validate_transfer(s, id);
}

CheckReport check_schedule(const Schedule& schedule, const CheckOptions& options) {
  const auto part = [&](std::string_view name, std::uint64_t done) {
    if (options.progress) options.progress(name, done, schedule.size());
  };
  part("structure", 0);
  validate_structure(schedule);
  SymbolicRun run(schedule, options);
  run.initialise();
  run.execute(options);
  part("postcondition", schedule.size());
  run.verify_postcondition();
  return {run.exact(), schedule.size(), schedule.dependency_count(), ElementMap(with_output_bounds(schedule)).count()};
}

}  // namespace collsim
