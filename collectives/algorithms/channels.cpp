// collectives/algorithms/channels.cpp — C instances of one algorithm on disjoint parts of the
// buffer, each over its own rank order, merged into one schedule (channels.hpp).
#include "collectives/algorithms/channels.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim::algorithms {
namespace {

// The part of `parts` near-equal parts of `bytes` (part_of's rule) that holds `offset`.
std::uint32_t part_holding(std::uint64_t bytes, std::uint32_t parts, std::uint64_t offset) {
  const std::uint64_t base = bytes / parts, longer = bytes % parts;
  if (offset < longer * (base + 1)) return std::uint32_t(offset / (base + 1));
  return base == 0 ? parts - 1 : std::uint32_t(std::min<std::uint64_t>(longer + (offset - longer * (base + 1)) / base, parts - 1));
}

// How one channel's instance lands in the merged schedule: its ranks and its data. An
// instance's scratch is slots of its own data's size, byte x of slot j staging data byte x;
// the merged schedule keeps that rule (byte bytes + j bytes + x stages data byte x), so the
// instance's slot j goes to part c of merged slot j.
struct ChannelPlacement {
  std::vector<Rank> order;
  ByteRange data;  // the buffer split whole (block 0): the instance's data, in the merged buffer
  std::uint64_t bytes = 0;         // the instance's data bytes
  std::uint64_t merged_bytes = 0;
  std::uint64_t block = 0;         // blocks split (channels_split_blocks): a rank's block, merged
  ByteRange slice;                 // ... and the part of every block the instance moves

  ByteRange place(ByteRange chunk) const {
    if (chunk.bytes == 0) return {block == 0 ? data.offset : slice.offset, 0};  // never sent (the builder skips empty chunks)
    if (chunk.end() <= bytes) return {merged(chunk.offset, chunk.bytes), chunk.bytes};
    const std::uint64_t slot = (chunk.offset - bytes) / bytes, x = (chunk.offset - bytes) % bytes;
    if (x + chunk.bytes > bytes) throw Error("a channel's staged chunk crosses a scratch slot; it cannot run in channels");
    return {merged_bytes + slot * merged_bytes + merged(x, chunk.bytes), chunk.bytes};
  }

  // Where the instance's data bytes [x, x + n) lie in the merged data: part c of the buffer,
  // or of block b, instance position b's, that is of its rank order[b].
  std::uint64_t merged(std::uint64_t x, std::uint64_t n) const {
    if (block == 0) return data.offset + x;
    const std::uint64_t b = x / slice.bytes, within = x % slice.bytes;
    if (within + n > slice.bytes) throw Error("a channel's chunk crosses a rank's block; it cannot run in channels");
    return std::uint64_t(order[b]) * block + slice.offset + within;
  }
};

// Scratch slots of an instance: the same for every channel, or the channels cannot be merged.
std::uint64_t scratch_ratio(const std::vector<Schedule>& instances) {
  std::uint64_t ratio = 0;
  bool known = false;
  for (const Schedule& s : instances) {
    const ScheduleInfo& i = s.info();
    if (i.bytes == 0) continue;
    const std::uint64_t r = i.scratch_bytes / i.bytes;
    if (i.scratch_bytes % i.bytes != 0 || (known && r != ratio))
      throw Error(fmt::format("{}: its scratch is not a fixed multiple of its data, so it cannot run in channels",
                              i.algorithm));
    ratio = r;
    known = true;
  }
  return ratio;
}

// Appends every instance's transfers, slot by slot (lowest step first, channel 0 first on a
// tie), keeping each instance's own order, so dependencies still precede their dependents.
void merge_transfers(Schedule& out, const std::vector<Schedule>& instances, const std::vector<ChannelPlacement>& places,
                     const std::vector<ChunkId>& chunk_base) {
  const std::size_t channels = instances.size();
  std::vector<std::vector<TransferId>> new_id(channels);
  for (std::size_t c = 0; c < channels; ++c) new_id[c].reserve(instances[c].size());
  std::vector<TransferId> next(channels, 0);
  std::vector<TransferId> deps;
  for (;;) {
    std::size_t pick = channels;
    for (std::size_t c = 0; c < channels; ++c)
      if (next[c] < instances[c].size() &&
          (pick == channels || instances[c].transfer(next[c]).step < instances[pick].transfer(next[pick]).step))
        pick = c;
    if (pick == channels) return;
    const Transfer t = instances[pick].transfer(next[pick]++);
    deps.clear();
    for (TransferId d : t.deps) deps.push_back(new_id[pick][d]);
    const std::vector<Rank>& order = places[pick].order;
    new_id[pick].push_back(out.append(order[t.src], chunk_base[pick] + t.src_chunk, order[t.dst],
                                      chunk_base[pick] + t.dst_chunk, t.op, t.step, deps));
  }
}

}  // namespace

std::vector<Rank> channel_order(Rank ranks, Rank ranks_per_node, std::uint32_t channels, std::uint32_t channel) {
  std::vector<Rank> order(ranks);
  const Rank g = ranks_per_node > 0 ? ranks_per_node : ranks;
  const Rank shift = ranks_per_node > 0 && channels > 0 ? Rank(std::uint64_t(channel) * g / channels % g) : 0;
  for (Rank first = 0; first < ranks; first += g) {
    const Rank size = std::min(g, ranks - first);  // a last, partial node rotates within itself
    for (Rank j = 0; j < size; ++j) order[first + j] = first + (j + shift) % size;
  }
  return order;
}

std::vector<Rank> channel_order(const ScheduleRequest& request, std::uint32_t channel) {
  if (!request.channel_orders.empty()) return request.channel_orders[channel];
  return channel_order(request.ranks, request.ranks_per_node, std::max<std::uint32_t>(request.channels, 1), channel);
}

std::vector<Rank> channel_order(const ScheduleInfo& info, std::uint32_t channel) {
  if (!info.channel_orders.empty()) return info.channel_orders[channel];
  return channel_order(info.ranks, info.ranks_per_node, info.channels, channel);
}

void check_channel_orders(const std::vector<std::vector<Rank>>& orders, Rank ranks, std::uint32_t channels) {
  if (orders.empty()) return;
  const std::uint32_t want = std::max<std::uint32_t>(channels, 1);
  if (orders.size() != want)
    throw Error(fmt::format("{} channel orders for {} channels: give one rank order per channel", orders.size(), want));
  for (std::size_t c = 0; c < orders.size(); ++c) {
    std::vector<bool> seen(ranks, false);
    for (Rank r : orders[c]) {
      if (r >= ranks || seen[r])
        throw Error(fmt::format("channel {}'s rank order is not a permutation of ranks 0..{} (rank {} {})", c, ranks - 1, r,
                                r >= ranks ? "is not a rank" : "appears twice"));
      seen[r] = true;
    }
    if (orders[c].size() != ranks)
      throw Error(fmt::format("channel {}'s rank order names {} ranks, not all {}", c, orders[c].size(), ranks));
  }
}

ByteRange channel_data(std::uint64_t bytes, std::uint32_t channels, std::uint32_t channel) {
  return part_of({0, bytes}, std::max<std::uint32_t>(channels, 1), channel);
}

bool channels_split_blocks(Collective collective) {
  return collective == Collective::allgather || collective == Collective::reduce_scatter;
}

bool collective_runs_in_channels(Collective collective) { return collective != Collective::alltoall; }

std::uint64_t channel_bytes(Collective collective, std::uint64_t bytes, Rank ranks, std::uint32_t channels,
                            std::uint32_t channel) {
  if (!channels_split_blocks(collective) || channels <= 1 || ranks == 0) return channel_data(bytes, channels, channel).bytes;
  return std::uint64_t(ranks) * channel_data(bytes / ranks, channels, channel).bytes;
}

std::uint32_t channel_of(const ScheduleInfo& info, std::uint64_t offset) {
  const std::uint32_t channels = std::max<std::uint32_t>(info.channels, 1);
  if (channels == 1 || info.bytes == 0) return 0;
  const std::uint64_t x = offset % info.bytes;  // scratch byte bytes + j bytes + x stages x
  if (channels_split_blocks(info.collective) && info.ranks > 0) {
    const std::uint64_t block = info.bytes / info.ranks;
    return block == 0 ? 0 : part_holding(block, channels, x % block);
  }
  return part_holding(info.bytes, channels, x);
}

Schedule with_channels(Generator generate, const ScheduleRequest& request) {
  const std::uint32_t channels = std::max<std::uint32_t>(request.channels, 1);
  std::vector<Schedule> instances;
  std::vector<ChannelPlacement> places;
  const bool blocks = channels_split_blocks(request.collective) && channels > 1 && request.ranks > 0;
  for (std::uint32_t c = 0; c < channels; ++c) {
    ScheduleRequest one = request;
    one.channels = 1;
    one.bytes = channel_bytes(request.collective, request.bytes, request.ranks, channels, c);
    std::vector<Rank> order = channel_order(request, c);
    if (request.collective == Collective::broadcast || request.collective == Collective::reduce)
      one.root = Rank(std::find(order.begin(), order.end(), request.root) - order.begin());  // the root's position
    instances.push_back(generate(one));
    ChannelPlacement place{std::move(order), channel_data(request.bytes, channels, c), one.bytes, request.bytes};
    if (blocks) {
      place.block = request.bytes / request.ranks;
      place.slice = channel_data(place.block, channels, c);
    }
    places.push_back(std::move(place));
  }
  if (channels == 1 && request.channel_orders.empty()) return std::move(instances[0]);

  const std::uint64_t ratio = scratch_ratio(instances);
  ScheduleInfo info = instances[0].info();
  info.bytes = request.bytes;
  info.scratch_bytes = ratio * request.bytes;
  info.channels = channels;
  info.channel_orders = request.channel_orders;
  Schedule out(info);
  std::vector<ChunkId> chunk_base;
  std::size_t transfers = 0, deps = 0;
  for (std::uint32_t c = 0; c < channels; ++c) {
    chunk_base.push_back(ChunkId(out.chunks().size()));
    for (const ByteRange& chunk : instances[c].chunks()) out.add_chunk(places[c].place(chunk));
    transfers += instances[c].size();
    deps += instances[c].dependency_count();
  }
  for (const Phase& phase : instances[0].phases()) out.add_phase(phase);
  out.reserve(transfers, deps);
  merge_transfers(out, instances, places, chunk_base);
  return out;
}

}  // namespace collsim::algorithms
