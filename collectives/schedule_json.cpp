// collectives/schedule_json.cpp — the JSON form of the IR (docs/schedule-format.md).
#include "collectives/schedule_json.hpp"

#include <algorithm>
#include <initializer_list>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/collective_spec.hpp"
#include "collectives/algorithms/channels.hpp"
#include "collectives/checker.hpp"

namespace collsim {
namespace {

using nlohmann::json;

const json& field(const json& object, const char* key, const std::string& where) {
  if (!object.is_object()) throw Error(fmt::format("schedule JSON: {} is not an object", where));
  auto it = object.find(key);
  if (it == object.end()) throw Error(fmt::format("schedule JSON: {} has no '{}'", where, key));
  return *it;
}

// A whole number >= 0. nlohmann::json keeps integers built in memory (such as the version
// schedule_to_json writes) as signed, and parsed non-negative integers as unsigned: accept both.
bool is_whole_number(const json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

std::uint64_t unsigned_field(const json& object, const char* key, const std::string& where,
                             std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  const json& v = field(object, key, where);
  if (!is_whole_number(v) || v.get<std::uint64_t>() > max)
    throw Error(fmt::format("schedule JSON: {}.{} must be a whole number from 0 to {} (got {})", where, key, max, v.dump()));
  return v.get<std::uint64_t>();
}

std::uint32_t u32_field(const json& object, const char* key, const std::string& where) {
  return static_cast<std::uint32_t>(unsigned_field(object, key, where, 0xFFFFFFFEu));
}

std::string string_field(const json& object, const char* key, const std::string& where) {
  const json& v = field(object, key, where);
  if (!v.is_string()) throw Error(fmt::format("schedule JSON: {}.{} must be a string", where, key));
  return v.get<std::string>();
}

const json& array_field(const json& object, const char* key, const std::string& where) {
  const json& v = field(object, key, where);
  if (!v.is_array()) throw Error(fmt::format("schedule JSON: {}.{} must be an array", where, key));
  return v;
}

// A typo'd optional key ("chanels") would otherwise change the schedule silently.
void only_keys(const json& object, std::initializer_list<std::string_view> keys, const std::string& where) {
  for (const auto& [key, value] : object.items())
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      throw Error(fmt::format("schedule JSON: unknown key '{}' in {} (expected: {})", one_line(key, 60), where,
                              fmt::join(keys, ", ")));
}

ScheduleInfo info_from_json(const json& j) {
  only_keys(j, {"format", "version", "collective", "algorithm", "ranks", "bytes", "scratch_bytes", "root", "segments",
                "ranks_per_node", "channels", "channel_orders", "reducers", "pair_bytes", "chunks", "phases", "transfers"},
            "the schedule");
  ScheduleInfo info;
  info.collective = parse_collective(string_field(j, "collective", "schedule"));
  info.algorithm = string_field(j, "algorithm", "schedule");
  check_name(info.algorithm, "schedule JSON: algorithm");
  info.ranks = u32_field(j, "ranks", "schedule");
  if (info.ranks == 0 || info.ranks > kMaxRanks)
    throw Error(fmt::format("schedule JSON: ranks must be 1..{} (got {})", kMaxRanks, info.ranks));
  info.bytes = unsigned_field(j, "bytes", "schedule");
  info.scratch_bytes = unsigned_field(j, "scratch_bytes", "schedule");
  if (info.scratch_bytes > std::numeric_limits<std::uint64_t>::max() - info.bytes)
    throw Error("schedule JSON: bytes + scratch_bytes overflow");
  info.root = u32_field(j, "root", "schedule");
  info.segments = u32_field(j, "segments", "schedule");
  info.ranks_per_node = u32_field(j, "ranks_per_node", "schedule");
  // Optional (format version 1 files written before channels have none): 1 channel.
  info.channels = j.contains("channels") ? u32_field(j, "channels", "schedule") : 1;
  if (info.channels == 0 || info.channels > kMaxChannels)
    throw Error(fmt::format("schedule JSON: channels must be 1..{} (got {})", kMaxChannels, info.channels));
  // Optional (absent: every node's ranks rotated): each channel's rank order, where a ring
  // search chose them (a switchless NVLink mesh's rings).
  if (j.contains("channel_orders")) {
    for (const json& order : array_field(j, "channel_orders", "schedule")) {
      if (!order.is_array()) throw Error("schedule JSON: channel_orders holds a rank order that is not an array");
      std::vector<Rank>& ranks = info.channel_orders.emplace_back();
      for (const json& r : order) {
        if (!is_whole_number(r) || r.get<std::uint64_t>() >= info.ranks)
          throw Error(fmt::format("schedule JSON: channel_orders holds {}, not a rank", r.dump()));
        ranks.push_back(r.get<Rank>());
      }
    }
    algorithms::check_channel_orders(info.channel_orders, info.ranks, info.channels);
  }
  // Optional (absent: equal blocks): alltoall's bytes per pair, row by row (all-to-all-v).
  if (j.contains("pair_bytes")) {
    for (const json& b : array_field(j, "pair_bytes", "schedule")) {
      if (!is_whole_number(b)) throw Error(fmt::format("schedule JSON: pair_bytes holds {}, not a size", one_line(b.dump(), 60)));
      info.pair_bytes.push_back(b.get<std::uint64_t>());
    }
    check_pair_bytes(info.pair_bytes, info.collective, info.ranks, info.bytes);
  }
  // Optional (absent: none): switch reducers, ids ranks .. ranks+reducers-1.
  info.reducers = j.contains("reducers") ? u32_field(j, "reducers", "schedule") : 0;
  if (info.reducers > kMaxRanks)
    throw Error(fmt::format("schedule JSON: reducers must be 0..{} (got {})", kMaxRanks, info.reducers));
  return info;
}

// JSON as the YAML loader reads YAML: a key given twice in one object is refused (nlohmann
// would keep the last silently), and so is nesting deeper than any schedule has.
constexpr int kMaxJsonDepth = 16;

json parse_strict(const std::string& text) {
  std::vector<std::vector<std::string>> keys_at_depth;  // the keys seen so far in each open object
  const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > kMaxJsonDepth)
      throw Error(fmt::format("nested deeper than {} levels: not a schedule collsim wrote", kMaxJsonDepth));
    if (event == json::parse_event_t::object_start) {
      if (keys_at_depth.size() <= std::size_t(depth)) keys_at_depth.resize(std::size_t(depth) + 1);
      keys_at_depth[std::size_t(depth)].clear();
    } else if (event == json::parse_event_t::key) {
      std::vector<std::string>& seen = keys_at_depth[std::size_t(depth) - 1];
      const std::string& key = parsed.get_ref<const std::string&>();
      if (std::find(seen.begin(), seen.end(), key) != seen.end())
        throw Error(fmt::format("schedule JSON: key '{}' is given twice in one object (which one is meant?)", one_line(key, 60)));
      seen.push_back(key);
    }
    return true;
  };
  return json::parse(text, check);
}

}  // namespace

json schedule_to_json(const Schedule& s) {
  const ScheduleInfo& info = s.info();
  json j = {{"format", kScheduleFormat},
            {"version", kScheduleFormatVersion},
            {"collective", to_string(info.collective)},
            {"algorithm", info.algorithm},
            {"ranks", info.ranks},
            {"bytes", info.bytes},
            {"scratch_bytes", info.scratch_bytes},
            {"root", info.root},
            {"segments", info.segments},
            {"ranks_per_node", info.ranks_per_node}};
  if (info.channels > 1) j["channels"] = info.channels;  // absent: 1, as in files written before channels
  if (!info.channel_orders.empty()) j["channel_orders"] = info.channel_orders;  // absent: rotated
  if (info.reducers > 0) j["reducers"] = info.reducers;  // absent: none, as in files without switches
  if (!info.pair_bytes.empty()) j["pair_bytes"] = info.pair_bytes;  // absent: equal blocks
  json chunks = json::array();
  for (const ByteRange& c : s.chunks()) chunks.push_back({{"offset", c.offset}, {"bytes", c.bytes}});
  json phases = json::array();
  for (const Phase& p : s.phases()) phases.push_back({{"name", p.name}, {"first_step", p.first_step}, {"steps", p.step_count}});
  json transfers = json::array();
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    transfers.push_back({{"src", t.src}, {"dst", t.dst}, {"src_chunk", t.src_chunk}, {"dst_chunk", t.dst_chunk},
                         {"op", to_string(t.op)}, {"step", t.step},
                         {"deps", std::vector<TransferId>(t.deps.begin(), t.deps.end())}});
  }
  j["chunks"] = std::move(chunks);
  j["phases"] = std::move(phases);
  j["transfers"] = std::move(transfers);
  return j;
}

Schedule schedule_from_json(const json& j) {
  if (!j.is_object()) throw Error("schedule JSON: the document is not an object");
  if (string_field(j, "format", "schedule") != kScheduleFormat)
    throw Error(fmt::format("schedule JSON: format is not '{}'", kScheduleFormat));
  if (unsigned_field(j, "version", "schedule") != kScheduleFormatVersion)
    throw Error(fmt::format("schedule JSON: only version {} is understood", kScheduleFormatVersion));
  Schedule s(info_from_json(j));
  for (const json& c : array_field(j, "chunks", "schedule")) {
    s.add_chunk({unsigned_field(c, "offset", "chunk"), unsigned_field(c, "bytes", "chunk")});
    only_keys(c, {"offset", "bytes"}, "a chunk");
  }
  for (const json& p : array_field(j, "phases", "schedule")) {
    s.add_phase({string_field(p, "name", "phase"), u32_field(p, "first_step", "phase"), u32_field(p, "steps", "phase")});
    only_keys(p, {"name", "first_step", "steps"}, "a phase");
    check_name(s.phases().back().name, "schedule JSON: a phase's name");
  }
  const json& transfers = array_field(j, "transfers", "schedule");
  std::vector<TransferId> deps;
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    const json& t = transfers[i];
    const std::string where = fmt::format("transfers[{}]", i);
    if (t.is_object() && t.size() != 7) only_keys(t, {"src", "dst", "src_chunk", "dst_chunk", "op", "step", "deps"}, where);
    deps.clear();
    for (const json& d : array_field(t, "deps", where)) {
      if (!is_whole_number(d) || d.get<std::uint64_t>() >= kNoTransfer)
        throw Error(fmt::format("schedule JSON: {}.deps holds {}, not a transfer index", where, d.dump()));
      deps.push_back(d.get<TransferId>());
    }
    s.append(u32_field(t, "src", where), u32_field(t, "src_chunk", where), u32_field(t, "dst", where),
             u32_field(t, "dst_chunk", where), parse_op(string_field(t, "op", where)), u32_field(t, "step", where), deps);
  }
  validate_structure(s);
  return s;
}

void save_schedule(const Schedule& schedule, const std::filesystem::path& path) {
  write_text_file(path, schedule_to_json(schedule).dump() + '\n', "schedule");
}

Schedule parse_schedule(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = parse_strict(text);
  } catch (const Error& e) {
    throw Error(fmt::format("schedule file '{}': {}", origin, e.what()));
  } catch (const json::exception& e) {
    throw Error(fmt::format("schedule file '{}' is not valid JSON (truncated or corrupt): {}", origin, e.what()));
  }
  try {
    return schedule_from_json(j);
  } catch (const Error& e) {
    throw Error(fmt::format("schedule file '{}': {}", origin, e.what()));
  } catch (const json::exception& e) {  // a shape the reader did not foresee
    throw Error(fmt::format("schedule file '{}': {}", origin, e.what()));
  }
}

Schedule load_schedule(const std::filesystem::path& path) {
  return parse_schedule(read_text_file(path, "schedule"), path.string());
}

}  // namespace collsim
