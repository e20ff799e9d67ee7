// Errors caused by bad user input (files, JSON, flags). The program prints what() on one line and
// exits with code 2; library code throws, never exits.
#pragma once

#include <stdexcept>
#include <string>

namespace tgsim {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A simulation that could not finish (deadlock: nodes that never became ready).
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tgsim
