// sweep/sweep_results.cpp — the results table, written and read back (sweep_results.hpp).
#include "sweep/sweep_results.hpp"

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/file_io.hpp"

namespace collsim {
namespace {

constexpr std::string_view kRequestColumns = "collective,engine,algorithm,bytes";
constexpr std::string_view kRowColumns = "status,ranks,runs,protocol,channels,time_s,algbw_GBps,busbw_GBps,error";

std::string header(const Sweep& sweep) {
  std::string out = "point,hash,";
  for (const SweepAxis& axis : sweep.axes) out += axis.name + ',';
  return fmt::format("{}{},{}\n", out, kRequestColumns, kRowColumns);
}

std::string quoted(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
  return out + '"';
}

// One CSV line's cells (quotes as quoted() writes them).
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells(1);
  bool in_quotes = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_quotes && c == '"' && i + 1 < line.size() && line[i + 1] == '"') cells.back() += '"', ++i;
    else if (c == '"') in_quotes = !in_quotes;
    else if (c == ',' && !in_quotes) cells.emplace_back();
    else cells.back() += c;
  }
  return cells;
}

std::optional<RowStatus> status_of(const std::string& word) {
  for (RowStatus s : {RowStatus::ok, RowStatus::refused, RowStatus::failed})
    if (to_string(s) == word) return s;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(RowStatus status) {
  switch (status) {
    case RowStatus::ok: return "ok";
    case RowStatus::refused: return "refused";
    case RowStatus::failed: return "failed";
  }
  return "?";
}

std::string results_csv(const Sweep& sweep, const std::map<std::size_t, SweepRow>& rows) {
  std::string out = header(sweep);
  for (const auto& [index, row] : rows) {
    const SweepPoint& p = sweep.points.at(index);
    out += fmt::format("{},{:016x},", index, p.hash);
    for (std::size_t a = 0; a < sweep.axes.size(); ++a) out += sweep.axes[a].labels[p.value[a]] + ',';
    out += fmt::format("{},{},{},{},{},", p.collective, p.engine, p.algorithm, p.bytes, to_string(row.status));
    if (row.status == RowStatus::ok)
      out += fmt::format("{},{},{},{},{:.9g},{:.6g},{:.6g},\n", row.ranks, row.runs, row.protocol, row.channels,
                         row.time_s, row.algbw_GBps, row.busbw_GBps);
    else
      out += fmt::format(",,,,,,,{}\n", quoted(row.error));
  }
  return out;
}

std::map<std::size_t, SweepRow> read_results(const Sweep& sweep, const std::filesystem::path& csv) {
  const std::string text = read_text_file(csv, "sweep results");
  std::map<std::string, std::size_t> by_key;
  for (const SweepPoint& p : sweep.points) by_key[p.key(sweep.axes)] = p.index;
  const std::size_t axes = sweep.axes.size(), first_row_cell = 2 + axes + 4;
  std::map<std::size_t, SweepRow> rows;
  std::size_t start = text.find('\n');
  if (start == std::string::npos || text.substr(0, start + 1) != header(sweep))
    throw Error(fmt::format("{}: not the results of this sweep (its columns differ): give another -o, or remove the "
                            "folder to start again",
                            csv.string()));
  for (std::size_t end; (end = text.find('\n', start + 1)) != std::string::npos; start = end) {
    const std::vector<std::string> cells = cells_of(text.substr(start + 1, end - start - 1));
    if (cells.size() != first_row_cell + 9) continue;  // not a row this version writes: priced again
    std::string key;
    for (std::size_t c = 2; c < first_row_cell; ++c) key += cells[c] + (c + 1 < first_row_cell ? "|" : "");
    const auto point = by_key.find(key);
    const std::optional<RowStatus> status = status_of(cells[first_row_cell]);
    if (point == by_key.end() || !status || *status == RowStatus::failed) continue;
    if (cells[1] != fmt::format("{:016x}", sweep.points[point->second].hash)) continue;  // the point changed
    SweepRow row;
    row.index = point->second, row.hash = sweep.points[point->second].hash, row.status = *status;
    if (*status == RowStatus::ok) try {
      row.ranks = std::uint32_t(std::stoul(cells[first_row_cell + 1]));
      row.runs = cells[first_row_cell + 2];
      row.protocol = cells[first_row_cell + 3];
      row.channels = std::uint32_t(std::stoul(cells[first_row_cell + 4]));
      row.time_s = std::stod(cells[first_row_cell + 5]);
      row.algbw_GBps = std::stod(cells[first_row_cell + 6]);
      row.busbw_GBps = std::stod(cells[first_row_cell + 7]);
    } catch (const std::exception&) {
      continue;  // a damaged cell: the point is priced again
    }
    else {
      row.error = cells[first_row_cell + 8];
    }
    rows[row.index] = row;
  }
  return rows;
}

}  // namespace collsim
