// sim/flow_engine.cpp — events in a heap, flows on links, max-min re-solves per component.
#include "sim/flow_engine.hpp"

#include <algorithm>
#include <queue>
#include <tuple>

#include <fmt/format.h>

#include "collectives/error.hpp"
#include "sim/max_min.hpp"

namespace collsim {
namespace {

enum class EventKind : std::uint8_t { flow_end, flow_start, done };

struct Event {
  double time;
  EventKind kind;
  std::uint32_t id;       // flow slot (flow_end, flow_start) or transfer (done)
  std::uint32_t version;  // flow_end only: stale when the flow's rate changed since

  // Min-heap order; ties broken by kind and id so that runs are deterministic.
  bool operator>(const Event& o) const { return std::tie(time, kind, id) > std::tie(o.time, o.kind, o.id); }
};

struct Flow {
  TransferId transfer = 0;
  std::vector<LinkId> route;
  double remaining = 0, rate = 0, since = 0;
  std::uint32_t version = 0;
  std::uint64_t epoch = 0;  // last re-solve that visited it
  bool active = false;
};

class FlowSimulation {
 public:
  FlowSimulation(const Schedule& s, const Topology& t, double gamma)
      : s_(s), t_(t), gamma_(gamma), waiting_(s.size()), successor_begin_(s.size() + 1, 0),
        reducer_free_(s.info().ranks, 0.0), on_link_(t.network.link_count()),
        link_local_(t.network.link_count(), 0), link_epoch_(t.network.link_count(), 0) {
    result_.rank_finish_s.assign(s.info().ranks, 0.0);
    result_.link_bytes.assign(t.network.link_count(), 0.0);
    index_successors();
  }

  FlowResult run() {
    for (TransferId id = 0; id < s_.size(); ++id)
      if (waiting_[id] == 0) become_ready(id, 0.0);
    while (!events_.empty()) step();
    if (completed_ != s_.size())
      throw Error(fmt::format("schedule cannot finish: {} of {} transfers never completed", s_.size() - completed_,
                              s_.size()));
    return std::move(result_);
  }

 private:
  void index_successors() {
    for (TransferId id = 0; id < s_.size(); ++id) {
      const Transfer x = s_.transfer(id);
      waiting_[id] = std::uint32_t(x.deps.size());
      for (TransferId d : x.deps) ++successor_begin_[d + 1];
    }
    for (std::size_t i = 0; i < s_.size(); ++i) successor_begin_[i + 1] += successor_begin_[i];
    successors_.resize(successor_begin_.back());
    std::vector<std::uint32_t> fill(successor_begin_.begin(), successor_begin_.end() - 1);
    for (TransferId id = 0; id < s_.size(); ++id)
      for (TransferId d : s_.transfer(id).deps) successors_[fill[d]++] = id;
  }

  // One instant: every event within 1e-12 relative of the earliest is part of the batch.
  void step() {
    const double now = events_.top().time;
    const double limit = now + std::max(now, 1e-9) * 1e-12;
    while (!events_.empty() && events_.top().time <= limit) {
      const Event e = events_.top();
      events_.pop();
      switch (e.kind) {
        case EventKind::flow_end:
          if (flows_[e.id].active && flows_[e.id].version == e.version) finish_flow(e.id, now);
          break;
        case EventKind::flow_start: start_flow(e.id, now); break;
        case EventKind::done: complete(e.id, now); break;
      }
    }
    resolve(now);
  }

  // The flow is routed once, here; it holds no bandwidth until its start event.
  void become_ready(TransferId id, double now) {
    const Transfer x = s_.transfer(id);
    if (x.is_local()) return arrive(id, now);
    const std::uint32_t slot = new_flow();
    Flow& f = flows_[slot];
    f.transfer = id;
    f.route.clear();
    t_.route(x.src, x.dst, id, f.route);
    const double delay = route_alpha(t_.network, f.route) + route_latency(t_.network, f.route);
    events_.push({now + delay, EventKind::flow_start, slot, 0});
  }

  std::uint32_t new_flow() {
    std::uint32_t slot;
    if (free_.empty()) {
      slot = std::uint32_t(flows_.size());
      flows_.emplace_back();
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    return slot;
  }

  void start_flow(std::uint32_t slot, double now) {
    Flow& f = flows_[slot];
    f.remaining = double(s_.transfer_bytes(f.transfer));
    f.rate = 0;
    f.since = now;
    f.active = true;
    for (LinkId l : f.route) {
      on_link_[l].push_back(slot);
      touched_.push_back(l);
    }
  }

  void finish_flow(std::uint32_t slot, double now) {
    Flow& f = flows_[slot];
    f.active = false;
    ++f.version;
    const double bytes = double(s_.transfer_bytes(f.transfer));
    for (LinkId l : f.route) {
      auto& on = on_link_[l];
      on.erase(std::find(on.begin(), on.end(), slot));
      result_.link_bytes[l] += bytes;
      touched_.push_back(l);
    }
    free_.push_back(slot);
    arrive(f.transfer, now);
  }

  // Bytes are at the destination: reduce them (one reduction at a time per rank) or be done.
  void arrive(TransferId id, double now) {
    const Transfer x = s_.transfer(id);
    result_.rank_finish_s[x.src] = std::max(result_.rank_finish_s[x.src], now);
    double done = now;
    if (x.op == Op::reduce) {
      done = std::max(now, reducer_free_[x.dst]) + double(s_.transfer_bytes(id)) * gamma_;
      reducer_free_[x.dst] = done;
    }
    events_.push({done, EventKind::done, id, 0});
  }

  void complete(TransferId id, double now) {
    const Transfer x = s_.transfer(id);
    result_.rank_finish_s[x.dst] = std::max(result_.rank_finish_s[x.dst], now);
    result_.time_s = std::max(result_.time_s, now);
    ++completed_;
    for (std::uint32_t i = successor_begin_[id]; i < successor_begin_[id + 1]; ++i)
      if (--waiting_[successors_[i]] == 0) become_ready(successors_[i], now);
  }

  // Re-solve the rates of the flows connected, through shared links, to a touched link.
  // Epoch stamps mark what this instant has already visited.
  void resolve(double now) {
    ++epoch_;
    std::vector<std::uint32_t> component;
    std::vector<LinkId> links;
    while (!touched_.empty()) {
      const LinkId seed = touched_.back();
      touched_.pop_back();
      if (link_epoch_[seed] == epoch_) continue;
      component.clear();
      links.clear();
      collect_component(seed, component, links);
      if (!component.empty()) solve(component, links, now);
    }
  }

  void collect_component(LinkId seed, std::vector<std::uint32_t>& component, std::vector<LinkId>& links) {
    link_epoch_[seed] = epoch_;
    links.push_back(seed);
    for (std::size_t i = 0; i < links.size(); ++i)
      for (std::uint32_t slot : on_link_[links[i]]) {
        if (flows_[slot].epoch == epoch_) continue;
        flows_[slot].epoch = epoch_;
        component.push_back(slot);
        for (LinkId l : flows_[slot].route)
          if (link_epoch_[l] != epoch_) {
            link_epoch_[l] = epoch_;
            links.push_back(l);
          }
      }
  }

  void solve(std::vector<std::uint32_t>& component, const std::vector<LinkId>& links, double now) {
    std::sort(component.begin(), component.end());  // the same order in every run
    std::vector<double> capacity(links.size());
    for (std::size_t i = 0; i < links.size(); ++i) {
      link_local_[links[i]] = std::uint32_t(i);
      capacity[i] = t_.network.link(links[i]).bandwidth_Bps;
    }
    FlowLinks problem;
    std::vector<std::uint32_t> local;
    for (std::uint32_t slot : component) {
      local.clear();
      for (LinkId l : flows_[slot].route) local.push_back(link_local_[l]);
      problem.add_flow(local);
    }
    const std::vector<double> rate = max_min_rates(capacity, problem);
    ++result_.rate_solves;
    for (std::size_t i = 0; i < component.size(); ++i) {
      Flow& f = flows_[component[i]];
      f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.since));
      f.since = now;
      f.rate = rate[i];
      ++f.version;
      events_.push({now + f.remaining / f.rate, EventKind::flow_end, component[i], f.version});
    }
  }

  const Schedule& s_;
  const Topology& t_;
  double gamma_;
  std::vector<std::uint32_t> waiting_;
  std::vector<std::uint32_t> successor_begin_;
  std::vector<TransferId> successors_;
  std::vector<double> reducer_free_;
  std::vector<std::vector<std::uint32_t>> on_link_;  // active flow slots on each link
  std::vector<std::uint32_t> link_local_;            // the link's index in the current solve
  std::vector<std::uint64_t> link_epoch_;            // last re-solve that visited it
  std::uint64_t epoch_ = 0;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_;
  std::vector<LinkId> touched_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::size_t completed_ = 0;
  FlowResult result_;
};

}  // namespace

FlowResult run_flow(const Schedule& schedule, const Topology& topology, double gamma_s_per_byte) {
  if (topology.ranks() < schedule.info().ranks)
    throw Error(fmt::format("the schedule has {} ranks but the topology places {}", schedule.info().ranks,
                            topology.ranks()));
  return FlowSimulation(schedule, topology, gamma_s_per_byte).run();
}

}  // namespace collsim
