// collectives/explain.cpp — symbolic execution on strings, step by step.
#include "collectives/explain.hpp"

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/algorithms/channels.hpp"
#include "collectives/elements.hpp"

namespace collsim {
namespace {

constexpr std::uint32_t kMaxNamedElements = 52;

std::string element_name(std::uint32_t i) {
  return i < 26 ? std::string(1, char('a' + i)) : std::string(1, char('A' + (i - 26)));
}

// Data element holding the byte a (possibly staged) offset stands for.
std::uint32_t data_element_of(const ScheduleInfo& info, const ElementMap& elements, std::uint64_t offset) {
  return elements.element_at(info.bytes == 0 ? 0 : offset % info.bytes);
}

// Slices per ring step where the schedule is a pipelined ring (its steps are slices), else 1.
std::uint32_t ring_slices(const ScheduleInfo& info) {
  const AlgorithmEntry* entry = lookup_algorithm(info.algorithm);  // a loaded file may name any
  return entry && entry->sliced_steps ? std::max<std::uint32_t>(info.segments, 1) : 1;
}

}  // namespace

Explanation explain_schedule(const Schedule& s) {
  const ScheduleInfo& info = s.info();
  if (info.ranks > kMaxExplainedRanks)
    throw Error(fmt::format("explain shows every rank's buffer: use at most {} ranks (got {})", kMaxExplainedRanks,
                            info.ranks));
  const ElementMap elements(s.chunks());
  const std::uint32_t data_elements = elements.element_at(info.bytes);
  if (data_elements > kMaxNamedElements)
    throw Error(fmt::format("explain names at most {} chunks; this schedule has {} (use fewer segments or ranks)",
                            kMaxNamedElements, data_elements));

  Explanation x;
  std::vector<std::vector<std::string>> cells(info.endpoints(), std::vector<std::string>(elements.count()));
  for (std::uint32_t e = 0; e < elements.count(); ++e) {
    const std::string name = element_name(data_element_of(info, elements, elements.range(e).offset));
    if (e < data_elements) {
      x.element_names.push_back(name);
      x.element_ranges.push_back(elements.range(e));
    }
    for (Rank r = 0; r < info.ranks; ++r)
      if (info.holds_input(r, elements.range(e))) cells[r][e] = name + std::to_string(r);
  }
  auto snapshot = [&] {
    std::vector<std::vector<std::string>> out(info.endpoints());
    for (Rank r = 0; r < info.endpoints(); ++r)
      for (std::uint32_t e = 0; e < data_elements; ++e) out[r].push_back(cells[r][e].empty() ? "-" : cells[r][e]);
    return out;
  };
  x.initial = snapshot();
  x.slices = ring_slices(info);
  if (info.channels > 1 || !info.channel_orders.empty())
    for (std::uint32_t c = 0; c < info.channels; ++c) x.channel_orders.push_back(algorithms::channel_order(info, c));

  for (TransferId id = 0; id < s.size();) {
    ExplainedStep step;
    step.step = s.transfer(id).step;
    for (const Phase& p : s.phases())
      if (step.step >= p.first_step && step.step < p.first_step + p.step_count)
        step.phase += (step.phase.empty() ? "" : " + ") + p.name;
    if (x.slices > 1)
      step.slice = fmt::format("ring step {}, slice {} of {}", step.step / x.slices, step.step % x.slices + 1, x.slices);
    // List order is a valid execution order (the checker proves every conflict is ordered
    // by dependencies), so running a step's transfers one by one shows what a real run shows.
    for (; id < s.size() && s.transfer(id).step == step.step; ++id) {
      const Transfer t = s.transfer(id);
      std::uint32_t e_src = elements.first(t.src_chunk);
      for (std::uint32_t e = elements.first(t.dst_chunk); e < elements.last(t.dst_chunk); ++e, ++e_src)
        cells[t.dst][e] = t.op == Op::copy ? cells[t.src][e_src] : cells[t.dst][e] + cells[t.src][e_src];
      step.transfers.push_back(id);
    }
    step.state = snapshot();
    x.steps.push_back(std::move(step));
  }
  return x;
}

std::string endpoint_name(const ScheduleInfo& info, Rank id) {
  return info.is_reducer(id) ? reducer_name(info, id) : fmt::format("gpu {}", id);
}

std::string describe_chunk(const Schedule& s, const Explanation& x, ChunkId chunk) {
  const ByteRange range = s.chunks()[chunk];
  const bool staged = range.offset >= s.info().bytes && range.bytes > 0;
  std::vector<std::uint32_t> covered;
  for (std::uint32_t e = 0; e < x.element_ranges.size(); ++e) {
    const std::uint64_t off = staged ? (range.offset - s.info().bytes) % std::max<std::uint64_t>(s.info().bytes, 1) : range.offset;
    if (x.element_ranges[e].offset >= off && x.element_ranges[e].end() <= off + range.bytes) covered.push_back(e);
  }
  std::string what;
  if (covered.empty()) what = "chunk (empty)";
  else if (covered.size() == 1) what = fmt::format("chunk {} ({})", covered[0], x.element_names[covered[0]]);
  else if (covered.size() == x.element_ranges.size()) what = "all chunks";
  else what = fmt::format("chunks {}-{} ({}..{})", covered.front(), covered.back(), x.element_names[covered.front()],
                          x.element_names[covered.back()]);
  return staged ? "staged " + what : what;
}

}  // namespace collsim
