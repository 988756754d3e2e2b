// Exceptions thrown by the library. Messages are whole sentences meant for the
// user: they name the value or file that was wrong and what to do about it.
#pragma once

#include <stdexcept>
#include <string>

namespace gdedup {

// A failure while doing the work: I/O, a damaged file, no device.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A request that can never succeed as stated: a parameter out of range,
// filters with different layouts. The command line exits with status 2.
class UsageError : public Error {
 public:
  using Error::Error;
};

}  // namespace gdedup
