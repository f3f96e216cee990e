// base/error.hpp — the one error type collsim throws for bad input or a broken
// schedule. Its message is a single line naming the problem; the command line prints it
// and exits with code 2.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace collsim {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// `text` made safe for a one-line message: line breaks become spaces, other control and
// non-ASCII bytes become \xNN (a corrupt file's bytes never reach the terminal raw), and
// anything past `max_chars` is cut with "...".
std::string one_line(std::string_view text, std::size_t max_chars = 400);

// A name read from a file (a cluster's, an algorithm's, a phase's, a link class's): refused
// (Error "<what> is empty" or "<what> '...' holds control byte 0xNN") when empty or holding
// control bytes, since names are printed raw in tables, CSV, JSON, SVG and traces, where a
// newline or an escape would forge lines or drive the terminal.
void check_name(std::string_view name, std::string_view what);

}  // namespace collsim
