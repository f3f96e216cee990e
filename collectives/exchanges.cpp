// collectives/exchanges.cpp — the halves of a schedule's exchanges (see the header).
#include "collectives/exchanges.hpp"

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

}  // namespace collsim
