// collectives/transfer_context.cpp — exchanges and reductions into sent data (see the header).
#include "collectives/transfer_context.hpp"

#include <cstdint>
#include <unordered_set>

namespace collsim {
namespace {

// A directed rank pair within a step: (step, src, dst).
struct StepPair {
  std::uint32_t step;
  Rank src, dst;
  friend bool operator==(const StepPair&, const StepPair&) = default;
};

struct StepPairHash {
  std::size_t operator()(const StepPair& p) const {
    const std::uint64_t pair = (std::uint64_t(p.src) << 32) | p.dst;
    return std::hash<std::uint64_t>{}(pair ^ (std::uint64_t(p.step) * 0x9E3779B97F4A7C15ull));
  }
};

}  // namespace

std::vector<bool> exchange_halves(const Schedule& schedule) {
  std::unordered_set<StepPair, StepPairHash> sent;
  sent.reserve(schedule.size());
  for (TransferId id = 0; id < schedule.size(); ++id) {
    const Transfer t = schedule.transfer(id);
    if (!t.is_local()) sent.insert({t.step, t.src, t.dst});
  }
  std::vector<bool> halves(schedule.size(), false);
  for (TransferId id = 0; id < schedule.size(); ++id) {
    const Transfer t = schedule.transfer(id);
    halves[id] = !t.is_local() && sent.contains({t.step, t.dst, t.src});
  }
  return halves;
}

std::vector<bool> reductions_into_sent(const Schedule& schedule) {
  const auto overlap = [](const ByteRange& a, const ByteRange& b) {
    return a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
  };
  std::vector<bool> into_sent(schedule.size(), false);
  for (TransferId id = 0; id < schedule.size(); ++id) {
    const Transfer t = schedule.transfer(id);
    if (t.op != Op::reduce) continue;
    const ByteRange& into = schedule.chunks()[t.dst_chunk];
    for (TransferId d : t.deps) {
      const Transfer sent = schedule.transfer(d);
      if (sent.is_local() || sent.src != t.dst || !overlap(schedule.chunks()[sent.src_chunk], into)) continue;
      into_sent[id] = true;
      break;
    }
  }
  return into_sent;
}


TransferContext transfer_context(const Schedule& schedule, bool exchanges, bool reductions) {
  TransferContext context;
  if (exchanges) context.halves = exchange_halves(schedule);
  if (reductions) context.into_sent = reductions_into_sent(schedule);
  return context;
}

}  // namespace collsim
