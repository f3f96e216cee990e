// collectives/error.hpp — the one error type collsim throws for bad input or a broken
// schedule. Its message is a single line naming the problem; the command line prints it
// and exits with code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace collsim {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace collsim
