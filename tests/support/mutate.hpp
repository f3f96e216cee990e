// tests/support/mutate.hpp — seeded mutations of a text file for the loader fuzz tests: the
// kinds of damage real files suffer (a flipped byte, a cut, a line twice, a number turned
// absurd, a stray control byte), each case reproducible from its seed.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

namespace collsim::testing {

class Mutator {
 public:
  explicit Mutator(std::uint64_t seed) : rng_(seed) {}

  // One to three mutations of `text`.
  std::string mutate(std::string text) {
    const int count = 1 + int(pick(3));
    for (int i = 0; i < count && !text.empty(); ++i) text = once(std::move(text));
    return text;
  }

 private:
  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

  std::string once(std::string text) {
    switch (pick(7)) {
      case 0: text[pick(text.size())] = char(pick(256)); return text;                       // a flipped byte
      case 1: return text.substr(0, pick(text.size()));                                      // truncated
      case 2: { const std::size_t at = pick(text.size()); return text.erase(at, 1 + pick(40)); }  // a hole
      case 3: return duplicate_line(std::move(text));
      case 4: return absurd_number(std::move(text));
      case 5: text.insert(pick(text.size()), 1, char(pick(32))); return text;                // a control byte
      default: return swap_delimiters(std::move(text));
    }
  }

  std::string duplicate_line(std::string text) {
    const std::size_t begin = text.rfind('\n', pick(text.size()));
    const std::size_t start = begin == std::string::npos ? 0 : begin + 1;
    const std::size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start + 1);
    return text.insert(start, line);
  }

  // A number in the text replaced by one a loader must refuse or survive.
  std::string absurd_number(std::string text) {
    static constexpr std::array<std::string_view, 14> kNumbers{
        "0", "-1", "1e309", "nan", ".nan", ".inf", "-0", "1e-300", "4294967296", "99999999999999999999",
        "2.5", "18446744073709551616", "0x10", "1e+300"};
    const std::size_t at = text.find_first_of("0123456789", pick(text.size()));
    if (at == std::string::npos) return text;
    const std::size_t end = text.find_first_not_of("0123456789.e+-", at);
    return text.replace(at, (end == std::string::npos ? text.size() : end) - at, kNumbers[pick(kNumbers.size())]);
  }

  std::string swap_delimiters(std::string text) {
    static constexpr std::string_view kFrom = ":{}[],\"", kTo = ",[]{}:'";
    const std::size_t at = text.find_first_of(kFrom, pick(text.size()));
    if (at != std::string::npos) text[at] = kTo[pick(kTo.size())];
    return text;
  }

  std::mt19937_64 rng_;
};

}  // namespace collsim::testing
