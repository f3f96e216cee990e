// collectives/schedule.cpp — names of the IR's closed vocabulary and the storage of a schedule.
#include "collectives/schedule.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim {
namespace {

constexpr std::array<std::pair<Collective, std::string_view>, 5> kCollectiveNames{{
    {Collective::allreduce, "allreduce"},
    {Collective::reduce_scatter, "reduce-scatter"},
    {Collective::allgather, "allgather"},
    {Collective::broadcast, "broadcast"},
    {Collective::reduce, "reduce"},
}};

template <class T>
std::size_t bytes_of(const std::vector<T>& v) { return v.capacity() * sizeof(T); }

}  // namespace

std::string_view to_string(Collective collective) {
  for (const auto& [c, name] : kCollectiveNames)
    if (c == collective) return name;
  return "unknown";
}

std::string reducer_name(const ScheduleInfo& info, Rank id) {
  return info.is_fabric_reducer(id) ? "SHARP switch" : fmt::format("switch {}", id - info.ranks);
}

std::string_view to_string(Op op) { return op == Op::copy ? "copy" : "reduce"; }

const std::vector<Collective>& all_collectives() {
  static const std::vector<Collective> all = [] {
    std::vector<Collective> v;
    for (const auto& entry : kCollectiveNames) v.push_back(entry.first);
    return v;
  }();
  return all;
}

Collective parse_collective(std::string_view name) {
  for (const auto& [c, n] : kCollectiveNames)
    if (n == name) return c;
  throw Error(fmt::format(
      "unknown collective '{}' (expected allreduce, reduce-scatter, allgather, broadcast or reduce)",
      name));
}

Op parse_op(std::string_view name) {
  if (name == "copy") return Op::copy;
  if (name == "reduce") return Op::reduce;
  throw Error(fmt::format("unknown transfer op '{}' (expected copy or reduce)", name));
}

double bus_bandwidth_factor(Collective collective, Rank ranks) {
  const double p = ranks;
  switch (collective) {
    case Collective::allreduce: return p > 1 ? 2.0 * (p - 1) / p : 0.0;
    case Collective::reduce_scatter:
    case Collective::allgather: return p > 1 ? (p - 1) / p : 0.0;
    case Collective::broadcast:
    case Collective::reduce: return 1.0;
  }
  return 1.0;
}

bool ScheduleInfo::holds_input(Rank rank, ByteRange range) const {
  if (range.offset >= bytes || is_reducer(rank)) return false;
  switch (collective) {
    case Collective::allgather: {
      const ByteRange block = part_of(data(), ranks, rank);
      return range.offset >= block.offset && range.end() <= block.end();
    }
    case Collective::broadcast: return rank == root;
    default: return true;
  }
}

std::uint32_t Schedule::step_count() const {
  if (step_.empty()) return 0;
  return *std::max_element(step_.begin(), step_.end()) + 1;
}

const Phase* Schedule::phase_of_step(std::uint32_t step) const {
  for (const Phase& p : phases_)
    if (step >= p.first_step && step < p.first_step + p.step_count) return &p;
  return nullptr;
}

ChunkId Schedule::add_chunk(ByteRange range) {
  chunks_.push_back(range);
  return static_cast<ChunkId>(chunks_.size() - 1);
}

void Schedule::reserve(std::size_t transfers, std::size_t deps) {
  src_.reserve(transfers);
  dst_.reserve(transfers);
  src_chunk_.reserve(transfers);
  dst_chunk_.reserve(transfers);
  step_.reserve(transfers);
  op_.reserve(transfers);
  dep_begin_.reserve(transfers + 1);
  deps_.reserve(deps);
}

TransferId Schedule::append(Rank src, ChunkId src_chunk, Rank dst, ChunkId dst_chunk, Op op,
                            std::uint32_t step, std::span<const TransferId> deps) {
  if (src_.size() >= kNoTransfer) throw Error("schedule too large: more than 4294967294 transfers");
  src_.push_back(src);
  dst_.push_back(dst);
  src_chunk_.push_back(src_chunk);
  dst_chunk_.push_back(dst_chunk);
  op_.push_back(op);
  step_.push_back(step);
  deps_.insert(deps_.end(), deps.begin(), deps.end());
  dep_begin_.push_back(deps_.size());
  return static_cast<TransferId>(src_.size() - 1);
}

std::size_t Schedule::memory_bytes() const {
  return bytes_of(src_) + bytes_of(dst_) + bytes_of(src_chunk_) + bytes_of(dst_chunk_) +
         bytes_of(step_) + bytes_of(op_) + bytes_of(dep_begin_) + bytes_of(deps_) +
         bytes_of(chunks_);
}

bool operator==(const Schedule& a, const Schedule& b) {
  return a.info_ == b.info_ && a.chunks_ == b.chunks_ && a.phases_ == b.phases_ &&
         a.src_ == b.src_ && a.dst_ == b.dst_ && a.src_chunk_ == b.src_chunk_ &&
         a.dst_chunk_ == b.dst_chunk_ && a.step_ == b.step_ && a.op_ == b.op_ &&
         a.dep_begin_ == b.dep_begin_ && a.deps_ == b.deps_;
}

}  // namespace collsim
