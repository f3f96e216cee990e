// validate/nccl_tests_log.cpp — nccl-tests logs read (line by line, every error with its line
// number) and written (nccl-tests' own column widths).
#include "validate/nccl_tests_log.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <regex>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "collectives/collective_spec.hpp"

namespace collsim {
namespace {

// nccl-tests' type names (src/common.cu test_typenames, NCCL 1 names too) and their bytes.
struct TypeSize {
  std::string_view name;
  std::uint32_t bytes;
};
constexpr std::array kTypes{TypeSize{"int8", 1},   TypeSize{"uint8", 1},    TypeSize{"char", 1},   TypeSize{"int32", 4},
                            TypeSize{"uint32", 4}, TypeSize{"int", 4},      TypeSize{"int64", 8},  TypeSize{"uint64", 8},
                            TypeSize{"half", 2},   TypeSize{"float", 4},    TypeSize{"double", 8}, TypeSize{"bfloat16", 2},
                            TypeSize{"f8e4m3", 1}, TypeSize{"f8e5m2", 1}};
constexpr std::array<std::string_view, 7> kRedops{"sum", "prod", "max", "min", "avg", "mulsum", "none"};

std::vector<std::string> tokens_of(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

bool all_digits(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }); }

// The parse of one file: where we are, and errors that say so.
class LogReader {
 public:
  explicit LogReader(std::string origin) : origin_(std::move(origin)) {}
  [[noreturn]] void fail(std::size_t line, const std::string& what) const {
    throw Error(fmt::format("{}:{}: {}", origin_, line, what));
  }
  std::uint64_t whole(const std::string& text, std::size_t line, std::string_view column) const {
    std::uint64_t x = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
    if (ec != std::errc() || end != text.data() + text.size())
      fail(line, fmt::format("{} '{}' is not a whole number", column, text));
    return x;
  }
  double number(const std::string& text, std::size_t line, std::string_view column) const {
    double x = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(x) || x < 0)
      fail(line, fmt::format("{} '{}' is not a number >= 0", column, text));
    return x;
  }

 private:
  std::string origin_;
};

// The column titles: the fields before the timings (size count type [redop] [root]) and the
// number of timing groups (time algbw busbw #wrong), out of place and in place.
struct Layout {
  std::vector<std::string> lead;
  bool found = false;
  std::size_t line = 0;
  std::size_t width() const { return lead.size() + 8; }
  bool has(std::string_view name) const { return std::find(lead.begin(), lead.end(), name) != lead.end(); }
};

Layout layout_from_titles(const std::vector<std::string>& titles, std::size_t line, const LogReader& reader) {
  Layout layout;
  layout.line = line;
  layout.found = true;
  std::size_t i = 0;
  for (; i < titles.size() && titles[i] != "time" && titles[i] != "cputime"; ++i) layout.lead.push_back(titles[i]);
  const bool lead_ok = layout.lead.size() >= 3 && layout.lead[0] == "size" && layout.lead[1] == "count" && layout.lead[2] == "type";
  const std::set<std::string> known{"size", "count", "type", "redop", "root", "op"};
  bool groups_ok = titles.size() - i == 8;
  for (std::size_t g = i; groups_ok && g < titles.size(); g += 4)
    groups_ok = (titles[g] == "time" || titles[g] == "cputime") && titles[g + 1] == "algbw" && titles[g + 2] == "busbw" &&
                (titles[g + 3] == "#wrong" || titles[g + 3] == "error");
  for (const std::string& t : layout.lead) groups_ok = groups_ok && known.contains(t);
  if (!lead_ok || !groups_ok)
    reader.fail(line, "column titles are not nccl-tests' (size count type redop root, then time algbw busbw #wrong out of "
                      "place and in place); per-iteration (-P) and timestamp (-T) columns are not read");
  for (std::string& t : layout.lead)
    if (t == "op") t = "redop";  // nccl-tests before 2.0 named the column op
  return layout;
}

// Bounds no real run passes: a collective of more than a day, faster than a petabyte a second,
// or on more than a pebibyte per rank is a corrupt line, not a measurement.
constexpr double kMaxTime_us = 86400e6;
constexpr double kMaxBandwidth_GBps = 1e6;
constexpr std::uint64_t kMaxLogSize = std::uint64_t(1) << 50;

// `unbounded_rate`: a column whose bandwidth may exceed any link's, NCCL's in place on one rank,
// where it does nothing whatever the size (src/enqueue.cc, ncclLaunchOneRank: no copy when the
// buffers are one), so a 1 GiB line prints 0.19 us and millions of GB/s.
NcclTestsTiming timing_at(const std::vector<std::string>& t, std::size_t at, std::size_t line, const LogReader& r,
                          bool unbounded_rate = false) {
  NcclTestsTiming timing;
  timing.time_us = r.number(t[at], line, "time");
  if (timing.time_us <= 0) r.fail(line, fmt::format("time '{}' is not above 0", t[at]));
  if (timing.time_us > kMaxTime_us)
    r.fail(line, fmt::format("time '{}' us is more than a day: not a measurement (a corrupt line?)", t[at]));
  timing.algbw_GBps = r.number(t[at + 1], line, "algbw");
  timing.busbw_GBps = r.number(t[at + 2], line, "busbw");
  for (const double bw : {timing.algbw_GBps, timing.busbw_GBps})
    if (bw > kMaxBandwidth_GBps && !unbounded_rate)
      r.fail(line, fmt::format("bandwidth {:g} GB/s is more than a petabyte a second: not a measurement (a corrupt line?)", bw));
  if (t[at + 3] != "N/A") timing.wrong = r.number(t[at + 3], line, "#wrong");
  // nccl-tests counts wrong elements when it checks results (-c 1): such a run's times are
  // of a broken collective, not measurements.
  if (timing.wrong && *timing.wrong > 0)
    r.fail(line, fmt::format("#wrong is {:g}: this size gave wrong results, so its times are not measurements (fix the "
                             "run, or remove the line)",
                             *timing.wrong));
  return timing;
}

NcclTestsRow data_row(const std::vector<std::string>& t, const Layout& layout, std::size_t line, const LogReader& r,
                      Rank ranks) {
  const std::size_t lead = layout.lead.size();
  if (t.size() != layout.width())
    r.fail(line, fmt::format("{} columns, expected {} ({} then time algbw busbw #wrong, out of place and in place, as the "
                             "titles on line {}): a cut or foreign data line",
                             t.size(), layout.width(), fmt::join(layout.lead, " "), layout.line));
  NcclTestsRow row;
  row.line = line;
  for (std::size_t i = 0; i < lead; ++i) {
    const std::string& name = layout.lead[i];
    if (name == "size") row.size_bytes = r.whole(t[i], line, "size");
    else if (name == "count") row.count = r.whole(t[i], line, "count");
    else if (name == "type") row.type = t[i];
    else if (name == "redop") row.redop = t[i];
    else if (name == "root") {
      const std::string& text = t[i];
      const bool negative = !text.empty() && text[0] == '-';
      const std::uint64_t magnitude = r.whole(negative ? text.substr(1) : text, line, "root");
      if (magnitude > kMaxRanks) r.fail(line, fmt::format("root '{}' is out of range", text));
      row.root = negative ? -int(magnitude) : int(magnitude);
    }
  }
  if (!layout.has("redop")) row.redop = "";
  const auto type = std::find_if(kTypes.begin(), kTypes.end(), [&](const TypeSize& s) { return s.name == row.type; });
  if (type == kTypes.end()) r.fail(line, fmt::format("unknown type '{}' (nccl-tests types: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, f8e4m3, f8e5m2)", row.type));
  if (!row.redop.empty() && std::find(kRedops.begin(), kRedops.end(), row.redop) == kRedops.end())
    r.fail(line, fmt::format("unknown redop '{}' (nccl-tests: sum, prod, max, min, avg, mulsum, none)", row.redop));
  if (row.size_bytes % type->bytes != 0)
    r.fail(line, fmt::format("size {} is not a whole number of {} elements ({} bytes each)", row.size_bytes, row.type, type->bytes));
  if (row.size_bytes > kMaxLogSize)
    r.fail(line, fmt::format("size {} is more than a pebibyte: not a measured size (a corrupt line?)", row.size_bytes));
  row.out_of_place = timing_at(t, lead, line, r);
  row.in_place = timing_at(t, lead + 4, line, r, ranks == 1);
  return row;
}

// Which collective a data line is, from its columns: allgather and reduce-scatter print the
// whole buffer as size and one rank's elements as count; broadcast and reduce have a root;
// allgather, broadcast and alltoall no reduction (alltoall: no root, redop none).
std::optional<Collective> collective_of(const NcclTestsRow& row, Rank ranks) {
  const bool per_rank = ranks > 1 && row.count * nccl_tests_type_bytes(row.type) * ranks == row.size_bytes;
  const bool whole = row.count * nccl_tests_type_bytes(row.type) == row.size_bytes;
  const bool reduces = row.redop != "none";
  if (per_rank) {
    if (row.redop.empty()) return std::nullopt;
    return reduces ? Collective::reduce_scatter : Collective::allgather;
  }
  if (!whole) return std::nullopt;
  if (row.root >= 0) return row.redop.empty() ? std::nullopt : std::optional(reduces ? Collective::reduce : Collective::broadcast);
  return row.redop == "none" ? Collective::alltoall : Collective::allreduce;
}

// Whether a row's size and count agree with the collective on `ranks` ranks.
bool size_fits(const NcclTestsRow& row, Collective c, Rank ranks) {
  const std::uint64_t per_rank = spec_of(c).count_is_one_part ? ranks : 1;
  return row.count * nccl_tests_type_bytes(row.type) * per_rank == row.size_bytes;
}

const std::regex& rank_line() {
  static const std::regex re(R"(^#\s+Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[[^\]]*\]\s*(.*?)\s*$)");
  return re;
}

// The collective named by a "# Collective test starting: ./build/all_reduce_perf" line.
Collective program_collective(const std::string& program, std::size_t line, const LogReader& r) {
  for (const CollectiveSpec& spec : collective_table())
    if (spec.nccl_tests_program == program) return spec.collective;
  std::string programs;
  for (const CollectiveSpec& spec : collective_table())
    programs += fmt::format("{}{}", programs.empty() ? "" : &spec == &collective_table().back() ? " or " : ", ",
                            spec.nccl_tests_program);
  r.fail(line, fmt::format("'{}' is not a collective collsim models (nccl-tests' {})", program, programs));
}

// The header lines that say something: program, versions, GPU lines, summary.
void read_comment(const std::string& line, std::size_t number, NcclTestsLog& log, Layout& layout, const LogReader& r) {
  const std::vector<std::string> t = tokens_of(std::string_view(line).substr(1));
  std::smatch m;
  if (std::regex_match(line, m, rank_line())) {
    const std::uint64_t rank = r.whole(m[1].str(), number, "rank");
    if (rank != log.ranks.size())
      r.fail(number, fmt::format("GPU line of rank {} where rank {} was expected (one line per rank, in order)", rank, log.ranks.size()));
    log.ranks.push_back({Rank(rank), m[2].str(), m[4].str(), std::uint32_t(r.whole(m[3].str(), number, "device"))});
  } else if (!t.empty() && t[0] == "size") {
    layout = layout_from_titles(t, number, r);
  } else if (t.size() >= 4 && t[0] == "Collective" && t[1] == "test" && (t[2] == "starting:" || t[2] == "concluded:")) {
    const std::string program = std::filesystem::path(t[3]).filename().string();
    program_collective(program, number, r);
    if (!log.program.empty() && log.program != program)
      r.fail(number, fmt::format("'{}' after '{}': two tests in one log; give one log per collective", program, log.program));
    log.program = program;
  } else if (t.size() >= 3 && t[0] == "NCCL" && t[1] == "version") {
    log.nccl_version = t[2];  // NCCL's own version line, as some versions print it
  } else if (t.size() >= 3 && t[0] == "nccl-tests" && t[1] == "version" && log.nccl_version.empty()) {
    log.nccl_version = line.substr(2);
  } else if (t.size() >= 4 && t[0] == "nThread" && t[2] == "nGpus") {
    log.gpus_per_thread = std::uint32_t(std::max<std::uint64_t>(r.whole(t[3], number, "nGpus"), 1));
  } else if (t.size() >= 5 && t[0] == "Avg" && t[1] == "bus" && t[2] == "bandwidth" && t[3] == ":") {
    log.avg_busbw_GBps = r.number(t[4], number, "Avg bus bandwidth");
  }
}

void check_binary(std::string_view line, std::size_t number, const LogReader& r) {
  for (unsigned char c : line)
    if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
      r.fail(number, fmt::format("byte 0x{:02x}: binary data, not an nccl-tests log (a text file)", c));
}

void check_ranks_and_rows(NcclTestsLog& log, const Layout& layout, std::size_t last_line, const LogReader& r) {
  if (log.rows.empty())
    r.fail(last_line, fmt::format("no data lines after the column titles on line {}: the run printed no sizes", layout.line));
  if (log.ranks.empty())
    r.fail(layout.line, "no GPU lines ('#  Rank  0 Group  0 Pid ... device  0 [...] GPU name') before the column titles: "
                        "keep the log's header, it says how many ranks ran");
  const NcclTestsRow& first = log.rows.front();
  if (log.program.empty()) {
    const std::optional<Collective> c = collective_of(first, log.rank_count());
    if (!c)
      r.fail(first.line, fmt::format("cannot tell the collective from size {}, count {}, redop '{}' on {} ranks, and no "
                                     "'# Collective test starting:' line names it",
                                     first.size_bytes, first.count, first.redop, log.rank_count()));
    log.collective = *c;
  } else {
    log.collective = program_collective(log.program, 0, r);  // checked where it was read
  }
  std::map<std::uint64_t, std::size_t> line_of_size;
  for (const NcclTestsRow& row : log.rows)
    if (const auto [at, fresh] = line_of_size.emplace(row.size_bytes, row.line); !fresh)
      r.fail(row.line, fmt::format("size {} again (first on line {}): two runs in one log; give one log per run",
                                   row.size_bytes, at->second));
  for (const NcclTestsRow& row : log.rows)
    if (!size_fits(row, log.collective, log.rank_count()))
      r.fail(row.line, fmt::format("size {} is not count {} x {} bytes{} for {} on {} ranks", row.size_bytes, row.count,
                                   nccl_tests_type_bytes(row.type),
                                   spec_of(log.collective).count_is_one_part
                                       ? fmt::format(" x {} ranks", log.rank_count())
                                       : "",
                                   to_string(log.collective), log.rank_count()));
}

}  // namespace

std::size_t NcclTestsLog::host_count() const {
  std::set<std::string> hosts;
  for (const NcclTestsRank& r : ranks) hosts.insert(r.host);
  return hosts.size();
}

std::string_view nccl_tests_program(Collective collective) {
  return spec_of(collective).nccl_tests_program;
}

std::uint32_t nccl_tests_type_bytes(std::string_view type) {
  for (const TypeSize& t : kTypes)
    if (t.name == type) return t.bytes;
  throw Error(fmt::format("unknown nccl-tests type '{}'", type));
}

NcclTestsLog parse_nccl_tests_log(std::string_view text, const std::string& origin) {
  const LogReader reader(origin);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) reader.fail(1, "empty file: expected an nccl-tests log");
  NcclTestsLog log;
  Layout layout;
  std::size_t number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string line(text.substr(at, end - at));
    at = end + 1;
    ++number;
    check_binary(line, number, reader);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && line[0] == '#') {
      read_comment(line, number, log, layout, reader);
      continue;
    }
    const std::vector<std::string> t = tokens_of(line);
    if (t.empty()) continue;
    if (t.size() >= 3 && t[0] == "NCCL" && t[1] == "version") {
      log.nccl_version = t[2];
      continue;
    }
    if (!all_digits(t[0])) continue;  // NCCL INFO lines, MPI messages: not the test's
    if (!layout.found)
      reader.fail(number, "a line of numbers before any nccl-tests column titles ('#  size  count  type ...'): not an "
                          "nccl-tests log, or its header was cut off");
    log.rows.push_back(data_row(t, layout, number, reader, log.rank_count()));
  }
  if (!layout.found)
    reader.fail(number, "no nccl-tests column titles ('#       size         count      type   redop    root     time   "
                        "algbw   busbw #wrong ...') in the file: not an nccl-tests log");
  check_ranks_and_rows(log, layout, number, reader);
  return log;
}

NcclTestsLog load_nccl_tests_log(const std::filesystem::path& path) {
  return parse_nccl_tests_log(read_text_file(path, "nccl-tests log"), path.string());
}

NcclTestsRow nccl_tests_row(Collective collective, Rank ranks, std::uint64_t bytes, double seconds) {
  const CollectiveSpec& spec = spec_of(collective);
  const bool split = spec.count_is_one_part || spec.whole_blocks;
  const std::uint64_t unit = 4 * (split ? std::uint64_t(ranks) : 1);
  if (bytes % unit != 0)
    throw Error(fmt::format("the nccl-tests layout counts float elements{}: {} bytes is not a multiple of {} (give --bytes "
                            "in multiples of {})",
                            split ? fmt::format(" per rank ({} ranks)", ranks) : "", bytes, unit, unit));
  NcclTestsRow row;
  row.size_bytes = bytes;
  row.count = spec.count_is_one_part ? bytes / unit : bytes / 4;
  row.type = "float";
  row.redop = spec.reduces ? "sum" : "none";
  row.root = spec.rooted ? 0 : -1;
  NcclTestsTiming t;
  t.time_us = seconds * 1e6;
  t.algbw_GBps = seconds > 0 ? double(bytes) / seconds / 1e9 : 0;
  t.busbw_GBps = t.algbw_GBps * bus_bandwidth_factor(collective, ranks);
  row.out_of_place = t;
  row.in_place = t;
  return row;
}

std::string nccl_tests_number(double value, int width) {
  int digits = 0;  // digits before the decimal point
  for (double power = 1; value >= power && digits < 40; power *= 10) ++digits;
  if (digits < width - 2) return fmt::format("{:>{}.2f}", value, width);
  if (digits < width - 1) return fmt::format("{:>{}.1f}", value, width);
  if (digits < width + 1) return fmt::format("{:>{}.0f}", value, width);
  return width >= 7 ? fmt::format("{:>{}.1e}", value, width) : fmt::format("{:>{}.0e}", value, width);
}

std::string nccl_tests_log_text(const NcclTestsLog& log) {
  const std::string_view program = nccl_tests_program(log.collective);
  std::string out = fmt::format("# Collective test starting: {}\n", program);
  for (const std::string& c : log.comments) out += fmt::format("# {}\n", c);
  out += "#\n# Using devices\n";
  for (const NcclTestsRank& r : log.ranks)
    out += fmt::format("#  Rank {:>2} Group  0 Pid {:>6} on {:>10} device {:>2} [0000:00:00] {}\n", r.rank, 0, r.host, r.local_device, r.device);
  out += fmt::format("#\n# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place                       in-place          \n",
                     "", "", "", "", "");
  out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6} \n", "size",
                     "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6} \n", "(B)",
                     "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  double busbw_sum = 0;
  std::size_t halves = 0;
  auto half = [&](const NcclTestsTiming& t) {
    busbw_sum += t.busbw_GBps;
    ++halves;
    // "  %6g" where nccl-tests checked the results, "    N/A" where it did not (util.cu).
    return fmt::format("  {}  {}  {}{}", nccl_tests_number(t.time_us, 7), nccl_tests_number(t.algbw_GBps, 6),
                       nccl_tests_number(t.busbw_GBps, 6), t.wrong ? fmt::format("  {:>6g}", *t.wrong) : "    N/A");
  };
  for (const NcclTestsRow& row : log.rows) {
    out += fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", row.size_bytes, row.count, row.type, row.redop, row.root);
    out += half(row.out_of_place) + half(row.in_place) + "\n";
  }
  out += "# Out of bounds values : 0 OK\n";
  out += fmt::format("# Avg bus bandwidth    : {:g} \n#\n", halves > 0 ? busbw_sum / double(halves) : 0.0);
  out += fmt::format("# Collective test concluded: {}\n#\n", program);
  return out;
}

}  // namespace collsim
