// collectives/schedule.cpp — names of the IR's closed vocabulary and the storage of a schedule.
#include "collectives/schedule.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/collective_spec.hpp"

namespace collsim {
namespace {

template <class T>
std::size_t bytes_of(const std::vector<T>& v) { return v.capacity() * sizeof(T); }

}  // namespace

std::string_view to_string(Collective collective) { return spec_of(collective).name; }

std::string reducer_name(const ScheduleInfo& info, Rank id) {
  return info.is_fabric_reducer(id) ? "SHARP switch" : fmt::format("switch {}", id - info.ranks);
}

std::string_view to_string(Op op) { return op == Op::copy ? "copy" : "reduce"; }

const std::vector<Collective>& all_collectives() {
  static const std::vector<Collective> all = [] {
    std::vector<Collective> v;
    for (const CollectiveSpec& spec : collective_table()) v.push_back(spec.collective);
    return v;
  }();
  return all;
}

Collective parse_collective(std::string_view name) {
  for (const CollectiveSpec& spec : collective_table())
    if (spec.name == name) return spec.collective;
  throw Error(fmt::format("unknown collective '{}' (expected {})", name, collective_names()));
}

std::string collective_names() {
  std::string out;
  const auto& table = collective_table();
  for (std::size_t i = 0; i < table.size(); ++i)
    out += fmt::format("{}{}", i == 0 ? "" : i + 1 == table.size() ? " or " : ", ", table[i].name);
  return out;
}

Op parse_op(std::string_view name) {
  if (name == "copy") return Op::copy;
  if (name == "reduce") return Op::reduce;
  throw Error(fmt::format("unknown transfer op '{}' (expected copy or reduce)", name));
}

double bus_bandwidth_factor(Collective collective, Rank ranks) { return spec_of(collective).bus_factor(ranks); }

bool ScheduleInfo::holds_input(Rank rank, ByteRange range) const {
  const ByteRange input = input_range(rank);
  return input.bytes > 0 && range.offset >= input.offset && range.end() <= input.end();
}

ByteRange ScheduleInfo::input_range(Rank rank) const {
  if (is_reducer(rank)) return {};
  switch (spec_of(collective).input) {
    case Input::own_part: return part_of(data(), ranks, rank);
    case Input::root_only: return rank == root ? data() : ByteRange{};
    case Input::whole: return data();
  }
  return data();
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
