// base/text.hpp — small text helpers shared by the layers above (header-only, touches nothing
// but its arguments).
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace collsim {

// `text` in lower case (ASCII): for names read case-insensitively (protocols, NCCL's variables).
inline std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

}  // namespace collsim
