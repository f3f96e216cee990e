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

std::string bytes_of(const ElementMap& elements, std::uint32_t e) {
  const ByteRange r = elements.range(e);
  return fmt::format("bytes [{}, {})", r.offset, r.end());
}

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

void validate_transfer(const Schedule& s, TransferId id, const ElementMap& elements) {
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
  if (t.src_chunk != t.dst_chunk) {
    const std::uint32_t n = elements.last(t.src_chunk) - elements.first(t.src_chunk);
    bool same = n == elements.last(t.dst_chunk) - elements.first(t.dst_chunk);
    for (std::uint32_t i = 0; same && i < n; ++i)
      same = elements.range(elements.first(t.src_chunk) + i).bytes == elements.range(elements.first(t.dst_chunk) + i).bytes;
    if (!same)
      throw Error(fmt::format("transfer {} maps chunk {} onto chunk {} whose boundaries differ; split it", id,
                              t.src_chunk, t.dst_chunk));
  }
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

// What one element of one rank holds: whose contributions (exact bit set for P <= 64, or a
// signature) and from which position of the sources' data: the element `origin` of every
// contributing rank. One origin per value is exact for any P: a reduction of two values with
// different origins is refused as it happens.
struct Contribution {
  std::uint64_t sum = 0;    // bit set, or wrap-around sum of weights
  std::uint32_t count = 0;  // 0 = nothing has arrived yet
  std::uint32_t origin = 0; // the source element the contributions were taken from
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
      : s_(s), info_(s.info()), elements_(with_output_bounds(s)), exact_(info_.ranks <= options.exact_up_to),
        log_(info_.ranks, elements_.count(), info_.reducers),
        value_(std::size_t(info_.endpoints()) * elements_.count()) {
    for (Rank r = 0; r < info_.ranks; ++r) {
      weight_.push_back(exact_ ? (1ull << r) : (splitmix64(options.seed + r) | 1));
      everyone_.sum += weight_.back();
    }
    everyone_.count = info_.ranks;
  }

  const ElementMap& elements() const { return elements_; }
  bool exact() const { return exact_; }

  void initialise() {
    for (Rank r = 0; r < info_.ranks; ++r)
      for (std::uint32_t e = 0; e < elements_.count(); ++e)
        if (info_.holds_input(r, elements_.range(e))) value_[log_.slot(r, e)] = {weight_[r], 1, e};
  }

  void execute(const CheckOptions& options) {
    std::vector<Contribution> staged;
    for (TransferId id = 0; id < s_.size(); ++id) {
      if (options.progress && id % kCheckProgressEvery == 0) options.progress("hazards and contributions", id, s_.size());
      const Transfer t = s_.transfer(id);
      staged.clear();
      for (std::uint32_t e = elements_.first(t.src_chunk); e < elements_.last(t.src_chunk); ++e)
        staged.push_back(read(id, t.src, e));
      std::uint32_t i = 0;
      for (std::uint32_t e = elements_.first(t.dst_chunk); e < elements_.last(t.dst_chunk); ++e)
        write(id, t, e, staged[i++]);
    }
  }

  // Every part of every rank's expected output (collective_spec.hpp), in rank order.
  void verify_postcondition() const {
    for (Rank r = 0; r < info_.ranks; ++r)
      for (const ExpectedOutput& part : expected_output(info_, r)) {
        const bool sum = part.source == kEveryRank;
        const Contribution want = sum ? everyone_ : Contribution{weight_[part.source], 1, 0};
        const std::string what = sum ? std::string("the sum of all ranks")
                                 : part.source == info_.root && spec_of(info_.collective).rooted
                                     ? fmt::format("root {}'s data", part.source)
                                     : fmt::format("rank {}'s block", part.source);
        expect(r, part.range, want, what, part.source_offset);
      }
  }

 private:
  Contribution read(TransferId id, Rank rank, std::uint32_t e) {
    const std::size_t slot = log_.slot(rank, e);
    log_.for_each_accumulated(slot, [&](TransferId w) {
      if (!happens_before(w, id))
        throw Error(fmt::format("{} reads {} of switch reducer {} before {} has reduced into them, without a "
                                "dependency path between them (multicast before every reduction)",
                                describe(s_, id), bytes_of(elements_, e), rank, describe(s_, w)));
    });
    const TransferId writer = log_.last_writer(slot);
    if (writer != kNoTransfer && !happens_before(writer, id))
      throw Error(fmt::format("{} reads {} of rank {} that {} writes, without a dependency path between them "
                              "(read before arrival)", describe(s_, id), bytes_of(elements_, e), rank, describe(s_, writer)));
    if (value_[slot].count == 0)
      throw Error(fmt::format("{} reads {} of rank {}, which hold no data yet (read before arrival)", describe(s_, id),
                              bytes_of(elements_, e), rank));
    log_.record_read(slot, id);
    return value_[slot];
  }

  void write(TransferId id, const Transfer& t, std::uint32_t e, const Contribution& incoming) {
    const std::size_t slot = log_.slot(t.dst, e);
    const std::size_t readers = log_.for_each_reader(slot, [&](TransferId r) {
      if (!happens_before(r, id))
        throw Error(fmt::format("{} overwrites {} of rank {} that {} still reads, without a dependency path between "
                                "them (write after read)", describe(s_, id), bytes_of(elements_, e), t.dst, describe(s_, r)));
    });
    const TransferId writer = log_.last_writer(slot);
    // In-network reductions into the same bytes commute: only one after a copy needs an order.
    const bool in_network = is_in_network_reduction(info_, t);
    const bool accumulating = in_network && log_.for_each_accumulated(slot, [](TransferId) {}) > 0;
    if (readers == 0 && !accumulating && writer != kNoTransfer && !happens_before(writer, id))
      throw Error(fmt::format("{} and {} both write {} of rank {} without a dependency path between them "
                              "(write after write)", describe(s_, writer), describe(s_, id), bytes_of(elements_, e), t.dst));
    Contribution& v = value_[slot];
    if (t.op == Op::copy || v.count == 0) {
      v = incoming;
    } else {
      if (v.origin != incoming.origin)
        throw Error(fmt::format("{} reduces {} of the sources' data into {} of rank {}, which holds {} of theirs "
                                "(a reduction that mixes positions)", describe(s_, id),
                                bytes_of(elements_, incoming.origin), bytes_of(elements_, e), t.dst,
                                bytes_of(elements_, v.origin)));
      if (exact_ && (v.sum & incoming.sum) != 0)
        throw Error(fmt::format("{} reduces rank {}'s contribution into {} of rank {} a second time (duplicated "
                                "reduction)", describe(s_, id), std::countr_zero(v.sum & incoming.sum),
                                bytes_of(elements_, e), t.dst));
      v.sum = exact_ ? (v.sum | incoming.sum) : v.sum + incoming.sum;
      v.count += incoming.count;
    }
    if (in_network)
      log_.record_accumulate(slot, id);
    else
      log_.record_write(slot, id);
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
              std::uint64_t source_offset) const {
    if (range.bytes == 0) return;
    for (std::uint32_t e = elements_.element_at(range.offset); e < elements_.element_at(range.end()); ++e) {
      const std::size_t slot = log_.slot(rank, e);
      const Contribution& v = value_[slot];
      const std::uint64_t from = source_offset + (elements_.range(e).offset - range.offset);
      const bool placed = v.count == 0 || elements_.range(v.origin).offset == from;
      if (v.sum == want.sum && v.count == want.count && placed) continue;
      const ByteRange wanted{from, elements_.range(e).bytes};
      throw Error(fmt::format("postcondition of {} fails: rank {} {} should hold {} from bytes [{}, {}) but {}{}",
                              to_string(info_.collective), rank, bytes_of(elements_, e), what, wanted.offset,
                              wanted.end(), what_is_wrong(v, want, placed), last_written_by(slot)));
    }
  }

  std::string what_is_wrong(const Contribution& have, const Contribution& want, bool placed) const {
    const bool right_ranks = have.sum == want.sum && have.count == want.count;
    std::string out = right_ranks ? "" : explain_difference(have, want);
    if (!placed)
      out += fmt::format("{}hold {} (misplaced)", out.empty() ? "" : " and ", bytes_of(elements_, have.origin));
    return out;
  }

  // Names the transfer that last wrote a slot, where the postcondition fails: the one at fault
  // or the last to pass the fault on.
  std::string last_written_by(std::size_t slot) const {
    const TransferId w = log_.last_writer(slot);
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
  ElementMap elements_;
  bool exact_;
  AccessLog log_;
  std::vector<Contribution> value_;
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
                            "of N / P bytes after the data)", info.scratch_bytes, alltoall_receive_bytes(info)));
  const std::uint64_t space = info.address_space();
  for (std::size_t c = 0; c < s.chunks().size(); ++c) {
    const ByteRange r = s.chunks()[c];
    if (r.offset > space || r.bytes > space - r.offset)
      throw Error(fmt::format("chunk {} [{}, {}) lies outside the {} bytes of data and scratch", c, r.offset,
                              r.offset + r.bytes, space));
  }
  const ElementMap elements(s.chunks());
  for (TransferId id = 0; id < s.size(); ++id) validate_transfer(s, id, elements);
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
  return {run.exact(), schedule.size(), schedule.dependency_count(), run.elements().count()};
}

}  // namespace collsim
