// collectives/alltoall_matrix.cpp — reading the all-to-all-v matrix file (alltoall_matrix.hpp).
#include "collectives/alltoall_matrix.hpp"

#include <charconv>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/file_io.hpp"

namespace collsim {
namespace {

std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(trimmed(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

// Whether a field is meant as a number (a header's names are not): it starts with a digit or a
// sign; whether it is a good one, bytes_of() says.
bool looks_numeric(std::string_view field) {
  return !field.empty() && (field.front() == '-' || field.front() == '+' || (field.front() >= '0' && field.front() <= '9'));
}

// A data field: a whole number of bytes, or the reason it is not one.
std::uint64_t bytes_of(std::string_view field, std::string_view at, std::size_t column) {
  const std::string what = fmt::format("{}: column {}", at, column + 1);
  if (field.empty()) throw Error(fmt::format("{} is empty; write the bytes (0 for none)", what));
  if (field.front() == '-') throw Error(fmt::format("{}: '{}' is negative; sizes are bytes, 0 or more", what, field));
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (error == std::errc::result_out_of_range)
    throw Error(fmt::format("{}: '{}' is too large for a size in bytes", what, field));
  if (error != std::errc() || end != field.data() + field.size())
    throw Error(fmt::format("{}: '{}' is not a whole number of bytes", what, field.substr(0, 40)));
  return value;
}

}  // namespace

AlltoallMatrix parse_alltoall_matrix(std::string_view text, std::string_view where) {
  AlltoallMatrix m;
  std::size_t rows = 0, line_number = 0, columns = 0, last_row_line = 0;
  bool header_allowed = true;
  for (std::size_t start = 0; start <= text.size(); ++line_number) {
    const std::size_t newline = text.find('\n', start);
    std::string_view line = text.substr(start, newline - start);
    start = newline == std::string_view::npos ? text.size() + 1 : newline + 1;
    line = trimmed(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const std::string at = fmt::format("{}:{}", where, line_number + 1);
    const std::vector<std::string_view> fields = fields_of(line);
    bool all_numbers = true;
    for (std::string_view f : fields) all_numbers = all_numbers && looks_numeric(f);
    if (header_allowed && !all_numbers) {  // a header names the columns; nothing to read
      header_allowed = false;
      continue;
    }
    header_allowed = false;
    if (rows == 0) columns = fields.size();
    if (fields.size() != columns)
      throw Error(fmt::format("{}: {} columns where the first row has {}; every row holds one size per rank", at,
                              fields.size(), columns));
    for (std::size_t c = 0; c < fields.size(); ++c) m.pair_bytes.push_back(bytes_of(fields[c], at, c));
    ++rows;
    last_row_line = line_number + 1;
    if (rows > columns)
      throw Error(fmt::format("{}: row {} of a matrix {} columns wide; it must be square (one row and one column per "
                              "rank)", at, rows, columns));
  }
  if (rows == 0) throw Error(fmt::format("{}: no rows; write P rows of P sizes in bytes", where));
  if (rows != columns)
    throw Error(fmt::format("{}:{}: {} rows of {} columns; it must be square (one row and one column per rank)", where,
                            last_row_line, rows, columns));
  m.ranks = Rank(rows);
  return m;
}

AlltoallMatrix read_alltoall_matrix(const std::filesystem::path& path) {
  // 64 MiB holds a 2,048-rank matrix of 14-digit sizes.
  return parse_alltoall_matrix(read_text_file(path, "matrix", std::uint64_t(64) << 20), path.string());
}

}  // namespace collsim
