// sim/flow_report.cpp — critical path breakdown, link tables, rank finish summary.
#include "sim/flow_report.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "base/units.hpp"
#include "sim/cost_rule.hpp"
#include "sim/host_issue.hpp"

namespace collsim {
namespace {

std::string_view to_string(Waited w) {
  switch (w) {
    case Waited::nothing: return "start";
    case Waited::dependency: return "dependency";
    case Waited::channel: return "pair channel";
    case Waited::reducer: return "reduction unit";
  }
  return "?";
}

double average_utilization(const Topology& t, const FlowResult& r, LinkId l) {
  return r.time_s > 0 ? r.links[l].bytes / (shared_capacity_Bps(t.network, l, r.protocol) * r.time_s) : 0.0;
}

// Links that carried bytes, busiest (by average utilization) first.
std::vector<LinkId> busiest_links(const Topology& t, const FlowResult& r) {
  std::vector<LinkId> used;
  for (LinkId l = 0; l < r.links.size(); ++l)
    if (r.links[l].bytes > 0) used.push_back(l);
  std::stable_sort(used.begin(), used.end(), [&](LinkId a, LinkId b) {
    return average_utilization(t, r, a) > average_utilization(t, r, b);
  });
  return used;
}

std::string percent(double x) { return fmt::format("{:.1f}%", 100 * x); }

}  // namespace

// Each entry covers the path from where its predecessor handed over (its ready time after a
// dependency, its drain start after an earlier transfer of its pair, its reduction start
// after the reduction ahead) to where it hands over to the next entry; the pieces telescope
// to the run's time.
CriticalBreakdown critical_breakdown(const FlowResult& result) {
  CriticalBreakdown b;
  const auto& path = result.critical_path;
  b.transfers = path.size();
  for (std::size_t i = 0; i < path.size(); ++i) {
    const TransferTimes& t = path[i].times;
    double from = t.ready_s;
    if (path[i].waited == Waited::channel) from = t.start_s;
    if (path[i].waited == Waited::reducer) from = path[i - 1].times.done_s;
    const bool next_on_channel = i + 1 < path.size() && path[i + 1].waited == Waited::channel;
    const double to = next_on_channel ? t.arrival_s : t.done_s;
    auto overlap = [&](double a, double z) { return std::max(0.0, std::min(z, to) - std::max(a, from)); };
    // Ready to start: the wait for the host's issue of it (sim/host_issue.hpp), then alpha and latency.
    const double issued = std::clamp(issued_at(result.issue_s, path[i].id), t.ready_s, t.start_s);
    b.issue_s += overlap(t.ready_s, issued);
    b.latency_s += overlap(issued, t.start_s);
    b.drain_s += overlap(t.start_s, t.arrival_s);
    b.reduction_s += overlap(t.arrival_s, t.done_s);
    if (from <= t.start_s && to >= t.arrival_s) b.ideal_drain_s += path[i].ideal_drain_s;
  }
  return b;
}

nlohmann::json flow_detail_json(const Schedule& s, const Topology& t, const FlowResult& r) {
  nlohmann::json links = nlohmann::json::array();
  for (LinkId l = 0; l < r.links.size(); ++l) {
    if (r.links[l].bytes <= 0) continue;
    links.push_back({{"link", l},
                     {"name", link_name(t.network, l)},
                     {"bytes", r.links[l].bytes},
                     {"busy_s", r.links[l].busy_s},
                     {"peak_utilization", r.links[l].peak_utilization},
                     {"average_utilization", average_utilization(t, r, l)}});
  }
  nlohmann::json path = nlohmann::json::array();
  for (const CriticalTransfer& c : r.critical_path) {
    const Transfer x = s.transfer(c.id);
    path.push_back({{"transfer", c.id},
                    {"src", x.src},
                    {"dst", x.dst},
                    {"step", x.step},
                    {"op", to_string(x.op)},
                    {"bytes", s.transfer_bytes(c.id)},
                    {"waited", to_string(c.waited)},
                    {"ready_s", c.times.ready_s},
                    {"drain_start_s", c.times.start_s},
                    {"arrival_s", c.times.arrival_s},
                    {"done_s", c.times.done_s},
                    {"ideal_drain_s", c.ideal_drain_s}});
  }
  nlohmann::json critical_links = nlohmann::json::array();
  for (const CriticalLink& c : r.critical_links)
    critical_links.push_back(
        {{"link", c.link}, {"name", link_name(t.network, c.link)}, {"drain_s", c.drain_s}, {"transfers", c.transfers}});
  const CriticalBreakdown b = critical_breakdown(r);
  return {{"rank_finish_s", r.rank_finish_s},
          {"links", links},
          {"critical_path", path},
          {"critical_path_breakdown",
           {{"host_issue_s", b.issue_s}, {"latency_s", b.latency_s}, {"drain_s", b.drain_s}, {"ideal_drain_s", b.ideal_drain_s},
            {"reduction_s", b.reduction_s}}},
          {"critical_links", critical_links},
          {"events", r.events},
          {"rate_solves", r.rate_solves}};
}

std::string flow_detail_text(const Schedule& s, const Topology& t, const FlowResult& r, std::size_t rows) {
  std::string out;
  const CriticalBreakdown b = critical_breakdown(r);
  // The host's issue only where the run has one (RunCosts::issue_s), so other runs read as before.
  const std::string issue = r.issue_s > 0 ? format_seconds(b.issue_s) + " waiting for the host's issue + " : "";
  out += fmt::format("  critical path: {} transfers = {}{} alpha+latency + {} draining (alone: {}) + {} reductions\n",
                     b.transfers, issue, format_seconds(b.latency_s), format_seconds(b.drain_s),
                     format_seconds(b.ideal_drain_s), format_seconds(b.reduction_s));
  const auto& path = r.critical_path;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path.size() > rows && i == rows / 2) {
      out += fmt::format("    ... {} more ...\n", path.size() - rows);
      i = path.size() - rows / 2;
    }
    const Transfer x = s.transfer(path[i].id);
    const TransferTimes& tt = path[i].times;
    out += fmt::format("    step {:>4}  {} {:>4} -> {:<4} {:>9}  ready {:>10}  done {:>10}  drain {:>9} (alone {:>9})  after {}\n",
                       x.step, x.op == Op::reduce ? "reduce" : "copy  ", x.src, x.dst,
                       format_size(s.transfer_bytes(path[i].id)), format_seconds(tt.ready_s),
                       format_seconds(tt.done_s), format_seconds(tt.arrival_s - tt.start_s),
                       format_seconds(path[i].ideal_drain_s), to_string(path[i].waited));
  }
  out += "  critical links (draining time of the critical path across them):\n";
  for (std::size_t i = 0; i < std::min(rows, r.critical_links.size()); ++i) {
    const CriticalLink& c = r.critical_links[i];
    out += fmt::format("    {:<40} {:>10} over {} transfers, average utilization {}\n", link_name(t.network, c.link),
                       format_seconds(c.drain_s), c.transfers, percent(average_utilization(t, r, c.link)));
  }
  const std::vector<LinkId> busy = busiest_links(t, r);
  out += fmt::format("  busiest links ({} of {} carried bytes):\n", busy.size(), r.links.size());
  for (std::size_t i = 0; i < std::min(rows, busy.size()); ++i) {
    const LinkUsage& u = r.links[busy[i]];
    out += fmt::format("    {:<40} {:>10} busy {:>10}  average {:>6}  peak {:>6}\n", link_name(t.network, busy[i]),
                       format_size(std::uint64_t(u.bytes)), format_seconds(u.busy_s),
                       percent(average_utilization(t, r, busy[i])), percent(u.peak_utilization));
  }
  std::vector<Rank> order(r.rank_finish_s.size());
  std::iota(order.begin(), order.end(), Rank(0));
  std::stable_sort(order.begin(), order.end(), [&](Rank x, Rank y) { return r.rank_finish_s[x] < r.rank_finish_s[y]; });
  if (!order.empty())
    out += fmt::format("  ranks finish: first rank {} at {}, median {}, last rank {} at {}\n", order.front(),
                       format_seconds(r.rank_finish_s[order.front()]),
                       format_seconds(r.rank_finish_s[order[order.size() / 2]]), order.back(),
                       format_seconds(r.rank_finish_s[order.back()]));
  return out;
}

}  // namespace collsim
