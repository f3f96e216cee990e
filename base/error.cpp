// base/error.cpp — one-line messages.
#include "base/error.hpp"

#include <fmt/format.h>

namespace collsim {
namespace {

// Length of the valid UTF-8 sequence starting at text[i] (2..4), or 0 when it is not one.
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4) length = 4;
  if (length == 0 || i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return length;
}

}  // namespace

std::string one_line(std::string_view text, std::size_t max_chars) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && out.size() < max_chars; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (c >= 0x20 && c < 0x7F) {
      out += char(c);
    } else if (const std::size_t n = c >= 0x80 ? utf8_sequence(text, i) : 0; n > 0) {
      out.append(text.substr(i, n));
      i += n - 1;
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (out.size() >= max_chars) out += "...";
  return out;
}

void check_name(std::string_view name, std::string_view what) {
  if (name.find_first_not_of(" \t") == std::string_view::npos)
    throw Error(fmt::format("{} is empty: give it a name", what));
  for (const unsigned char c : name)
    if (c < 0x20 || c == 0x7f)
      throw Error(fmt::format("{} '{}' holds control byte 0x{:02x}: names are printed in tables and files, use printable "
                              "characters",
                              what, one_line(name, 60), c));
}

}  // namespace collsim
